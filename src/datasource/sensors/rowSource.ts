/**
 * The analyzed rows of a table query: the table under the alias `analyzed_table`, the table's filter, and for
 * partitioned checks the incremental time window; the grouping expressions (data grouping columns, then the
 * partition's day or month). Days and months are those of the data source session's time zone, the same one
 * that turns the bound `now` into today's date, so windows and partitions agree.
 */
import type { SqlDialect } from '../dialects/dialect.js';
import { POSTGRESQL } from '../dialects/postgresql.js';
import { quoteIdent, quoteQualified } from './quoteIdent.js';
import type { DataGroupingLevel, PartitioningRequest, TableQueryRequest } from './sensorTypes.js';
import type { SqlParameters } from './sqlParameters.js';

export const TABLE_ALIAS = 'analyzed_table';
export const TIME_PERIOD_ALIAS = 'time_period';

export interface GroupExpression {
  /** The expression grouped by. */
  expression: string;
  /** What the query returns for it (text). */
  select: string;
  alias: string;
}

export interface TableRowSource {
  table: string;
  where: string[];
  groups: GroupExpression[];
  /** The parts of the data group name, in order: a column level's output alias, or a static tag. */
  groupName: GroupNamePart[];
  partitioned: boolean;
}

export type GroupNamePart = { alias: string } | { tag: string };

/** The grouping levels of a request (columns given as `columns` are column levels). */
export function groupingLevels(request: TableQueryRequest): readonly DataGroupingLevel[] {
  const grouping = request.grouping;
  if (grouping === undefined) return [];
  return 'levels' in grouping ? grouping.levels : grouping.columns.map((column) => ({ column }));
}

/** True when the request has a data grouping (sensors that do not support grouping then run apart, as `all data`). */
export function hasDataGrouping(request: TableQueryRequest): boolean {
  return groupingLevels(request).length > 0;
}

const DEFAULT_RECENT_DAYS = 7;
const DEFAULT_RECENT_MONTHS = 1;

/** The dialect of a request (PostgreSQL unless the data source says otherwise). */
export function dialectOf(request: TableQueryRequest): SqlDialect {
  return request.dialect ?? POSTGRESQL;
}

/** What the queries of a request read: the data source's relation (files on DuckDB), else `"schema"."table"`. */
export function relationOf(request: TableQueryRequest): string {
  return request.relation ?? quoteQualified(request.schema, request.table);
}

export function column(name: string): string {
  return `${TABLE_ALIAS}.${quoteIdent(name)}`;
}

/** Repository SQL with the DQOps tokens replaced: `{alias}`, `{table}`, and `{column}` when given. */
export function replaceTokens(sql: string, table: string, columnSql: string | undefined): string {
  return sql.replace(/\{(alias|table|column)\}/g, (token, name: string) => {
    if (name === 'alias') return TABLE_ALIAS;
    if (name === 'table') return table;
    return columnSql ?? token;
  });
}

/** User SQL without trailing semicolons (one statement is spliced into another). */
export function withoutTrailingSemicolons(sql: string): string {
  return sql.trim().replace(/(\s*;)+$/, '');
}

export function tableRowSource(
  request: TableQueryRequest,
  params: SqlParameters,
  now: () => string,
  options: { grouping: boolean } = { grouping: true },
): TableRowSource {
  const table = relationOf(request);
  const dialect = dialectOf(request);
  const where: string[] = [];
  if (request.filter !== undefined && request.filter.trim() !== '') {
    where.push(`(${replaceTokens(withoutTrailingSemicolons(request.filter), table, undefined)})`);
  }
  const groups: GroupExpression[] = [];
  const groupName: GroupNamePart[] = [];
  if (options.grouping) {
    groupingLevels(request).forEach((level, index) => {
      if ('tag' in level) {
        groupName.push({ tag: level.tag });
        return;
      }
      const alias = `grouping_level_${index + 1}`;
      groups.push({ expression: column(level.column), select: dialect.toText(column(level.column)), alias });
      groupName.push({ alias });
    });
  }
  if (request.partitioning !== undefined) {
    const period = partitionPeriod(request.partitioning, dialect);
    groups.push({ expression: period, select: dialect.formatDay(period), alias: TIME_PERIOD_ALIAS });
    where.push(...partitionWindow(request.partitioning, params, now(), dialect));
  }
  return { table, where, groups, groupName, partitioned: request.partitioning !== undefined };
}

function partitionPeriod(partitioning: PartitioningRequest, dialect: SqlDialect): string {
  return dialect.truncate(partitioning.timeScale === 'daily' ? 'day' : 'month', column(partitioning.column));
}

function partitionWindow(partitioning: PartitioningRequest, params: SqlParameters, now: string, dialect: SqlDialect): string[] {
  const p = column(partitioning.column);
  const window = partitioning.window ?? {};
  const current = window.includeToday === true ? 1 : 0;
  if (partitioning.timeScale === 'daily') {
    const today = dialect.toDate(now);
    return [
      `${p} >= ${dialect.plusDays(today, `-${params.bind(window.recentDays ?? DEFAULT_RECENT_DAYS, 'integer')}`)}`,
      `${p} < ${dialect.plusDays(today, params.bind(current, 'integer'))}`,
    ];
  }
  const month = dialect.truncate('month', now);
  return [
    `${p} >= ${month} - ${dialect.months(params.bind(window.recentMonths ?? DEFAULT_RECENT_MONTHS, 'integer'))}`,
    `${p} < ${month} + ${dialect.months(params.bind(current, 'integer'))}`,
  ];
}
