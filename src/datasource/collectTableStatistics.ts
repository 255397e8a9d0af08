import type { JsonObject, JsonValue } from '../model/index.js';
import type { DataSource, SessionOptions } from './dataSource.js';
import { dataSourceFailure } from './dataSourceErrors.js';
import { describeTable, type SourceColumn } from './introspect.js';
import {
  categoryOfCollector,
  columnProfileOf,
  selectedCollectors,
  type CollectorSelection,
  type ColumnProfile,
  type StatisticsCategory,
} from './statisticsCollectors.js';
import { aggregateStatement, columnTopValuesStatement, topValuesStatement, uniqueValuesStatement, type StatisticsColumn, type StatisticsTarget } from './statisticsQuery.js';
import { quoteQualified } from './sensors/quoteIdent.js';
import type { DataGroupingLevel } from './sensors/sensorTypes.js';

/**
 * Statistics of one table, in one read-only session on one snapshot: describe the table (a table that is gone
 * fails here with reason `table_missing`), one aggregate scan, then the most common values (see
 * statisticsQuery.ts). JIT is turned off for the session: compiling a query of dozens of aggregates costs more
 * than it saves on tables of millions of rows.
 */
export const ALL_DATA = 'all data';
export const DEFAULT_TOP_VALUES = 5;
export const MAX_DATA_GROUPS = 1000;
/** Columns with more distinct values get a most-common-values query of their own (whole table). */
export const GROUPING_SETS_MAX_DISTINCT = 10_000;

/** One level of a data grouping: a column's value, or a fixed tag. */
/** A data grouping level, as the sensors take it. */
export type GroupingLevel = DataGroupingLevel;

export interface TableStatisticsRequest {
  schema: string;
  table: string;
  /** Which of the table's columns to analyze (default all). */
  selectColumns?: (columns: readonly SourceColumn[]) => SourceColumn[];
  collectors?: CollectorSelection;
  /** Levels of the data grouping; empty or absent: the whole table ("all data"). */
  grouping?: readonly GroupingLevel[];
  /** How many most common values per column (default 5). */
  topValues?: number;
  /** Most data groups accepted (default 1000); more fails the table. */
  maxDataGroups?: number;
  /** The table's spec as the live store holds it (what a DuckDB table's `file_format` reads). */
  tableSpec?: JsonObject;
}

export interface StatisticsValue {
  /** null for table-level statistics. */
  columnName: string | null;
  category: StatisticsCategory;
  collector: string;
  dataGroup: string;
  double: number | null;
  text: string | null;
  json: JsonValue | null;
}

export interface AnalyzedColumn {
  column: SourceColumn;
  profile: ColumnProfile;
  collectors: string[];
}

export interface TableStatistics {
  /** Every column of the table, as described. */
  columns: SourceColumn[];
  tableCollectors: string[];
  analyzed: AnalyzedColumn[];
  values: StatisticsValue[];
}

type Row = Record<string, unknown>;

export async function collectTableStatistics(source: DataSource, request: TableStatisticsRequest, options: SessionOptions = {}): Promise<TableStatistics> {
  const selection = request.collectors ?? {};
  const limit = request.topValues ?? DEFAULT_TOP_VALUES;
  const maxGroups = request.maxDataGroups ?? MAX_DATA_GROUPS;
  const levels = request.grouping ?? [];
  const groupColumns = levels.flatMap((level) => ('column' in level ? [level.column] : []));

  const sqlTarget = await source.sqlTarget(request.schema, request.table, request.tableSpec);
  const target: StatisticsTarget = { dialect: sqlTarget.dialect, from: sqlTarget.relation ?? quoteQualified(request.schema, request.table) };
  return source.session(
    async (session) => {
      const columns = await describeTable(session, request.schema, request.table, {}, sqlTarget.relation);
      if (columns.length === 0) {
        throw dataSourceFailure(source.connectionName, 'table_missing', `${request.schema}.${request.table}`, { schema: request.schema, table: request.table });
      }
      const tableCollectors = selectedCollectors('table', undefined, selection);
      const analyzed: AnalyzedColumn[] = (request.selectColumns ? request.selectColumns(columns) : columns)
        .map((column) => {
          const profile = columnProfileOf(column);
          return { column, profile, collectors: selectedCollectors('column', profile, selection) };
        })
        .filter((c) => c.collectors.length > 0);
      if (tableCollectors.length === 0 && analyzed.length === 0) return { columns, tableCollectors, analyzed, values: [] };

      const planned: StatisticsColumn[] = analyzed.map(({ column, profile, collectors }) => {
        const wants = (...names: string[]) => names.some((n) => collectors.includes(n));
        return {
          name: column.name,
          profile,
          distinct: wants('distinct_count', 'distinct_percent', 'duplicate_count', 'top_values'),
          range: wants('min_value', 'max_value'),
          mean: wants('mean_value'),
          lengths: wants('text_min_length', 'text_max_length', 'text_mean_length'),
        };
      });

      const aggregate = aggregateStatement(target, planned, groupColumns, maxGroups);
      const rows = await session.query<Row>(aggregate.text, aggregate.params);
      if (rows.length > maxGroups) {
        throw dataSourceFailure(source.connectionName, 'query_failed', `the data grouping of ${request.schema}.${request.table} yields more than ${maxGroups} data groups`);
      }
      const groupOf = (row: Row) => dataGroupName(levels, row);
      const values: StatisticsValue[] = [];
      for (const row of rows) {
        const dataGroup = groupOf(row);
        const rowCount = num(row.n) ?? 0;
        if (tableCollectors.includes('row_count')) values.push(value(null, 'row_count', dataGroup, { double: rowCount }));
        analyzed.forEach(({ column, collectors }, i) => {
          const notNull = num(row[`nn${i}`]) ?? 0;
          const distinct = num(row[`d${i}`]);
          const add = (collector: string, result: Partial<Pick<StatisticsValue, 'double' | 'text' | 'json'>>) => {
            if (collectors.includes(collector)) values.push(value(column.name, collector, dataGroup, result));
          };
          add('nulls_count', { double: rowCount - notNull });
          add('nulls_percent', { double: rowCount === 0 ? null : ((rowCount - notNull) * 100) / rowCount });
          add('distinct_count', { double: distinct ?? null });
          add('distinct_percent', { double: distinct === undefined || notNull === 0 ? null : (distinct * 100) / notNull });
          add('duplicate_count', { double: distinct === undefined ? null : notNull - distinct });
          add('min_value', numberOrText(row[`mind${i}`], row[`mint${i}`]));
          add('max_value', numberOrText(row[`maxd${i}`], row[`maxt${i}`]));
          add('mean_value', finite(row[`mean${i}`]));
          add('text_min_length', { double: num(row[`lmin${i}`]) ?? null });
          add('text_max_length', { double: num(row[`lmax${i}`]) ?? null });
          add('text_mean_length', { double: num(row[`lmean${i}`]) ?? null });
        });
      }

      const sampled = analyzed.map((a, i) => ({ index: i, analyzed: a })).filter(({ analyzed: a }) => a.collectors.includes('top_values'));
      if (sampled.length > 0) {
        const top = await topValues(session, target, planned, sampled.map((s) => s.index), rows, groupColumns, levels, limit);
        for (const row of rows) {
          const dataGroup = groupOf(row);
          for (const { index, analyzed: a } of sampled) {
            values.push(value(a.column.name, 'top_values', dataGroup, { json: top.get(`${index}\0${dataGroup}`) ?? [] }));
          }
        }
      }
      return { columns, tableCollectors, analyzed, values };
    },
    { ...options, snapshot: true, settings: { jit: 'off', ...(options.settings ?? {}) } },
  );
}

/** `index\0dataGroup` → `[{value, count}]`, most frequent first. */
async function topValues(
  session: { query<R extends object>(text: string, params?: readonly unknown[]): Promise<R[]> },
  target: StatisticsTarget,
  planned: readonly StatisticsColumn[],
  indexes: readonly number[],
  aggregateRows: readonly Row[],
  groupColumns: readonly string[],
  levels: readonly GroupingLevel[],
  limit: number,
): Promise<Map<string, JsonValue[]>> {
  const out = new Map<string, JsonValue[]>();
  const push = (index: number, dataGroup: string, entry: { value: string; count: number }) => {
    const key = `${index}\0${dataGroup}`;
    const list = out.get(key) ?? [];
    list.push(entry);
    out.set(key, list);
  };
  const derived: number[] = [];
  const unique: number[] = [];
  const duplicated: number[] = [];
  for (const i of indexes) {
    const notNull = aggregateRows.map((row) => num(row[`nn${i}`]) ?? 0);
    if (notNull.every((n) => n === 0)) continue; // nothing but nulls: no values
    if (groupColumns.includes(planned[i].name)) derived.push(i);
    else if (aggregateRows.every((row) => num(row[`d${i}`]) === num(row[`nn${i}`]))) unique.push(i);
    else duplicated.push(i);
  }
  // a grouping column has one value in each of its data groups
  for (const i of derived) {
    const g = groupColumns.indexOf(planned[i].name);
    for (const row of aggregateRows) {
      const count = num(row[`nn${i}`]) ?? 0;
      if (count > 0) push(i, dataGroupName(levels, row), { value: String(row[`g${g}`]), count });
    }
  }
  const rowsOf = async (statement: { text: string; params: unknown[] }) => session.query<Row>(statement.text, statement.params);
  // for the whole table, columns of many distinct values are ranked one query each (see statisticsQuery.ts)
  const many = groupColumns.length === 0 ? duplicated.filter((i) => (num(aggregateRows[0][`d${i}`]) ?? 0) > GROUPING_SETS_MAX_DISTINCT) : [];
  const grouped = duplicated.filter((i) => !many.includes(i));
  if (grouped.length > 0) {
    const statement = topValuesStatement(target, grouped.map((i) => planned[i]), groupColumns, limit);
    for (const row of await rowsOf(statement)) {
      push(grouped[Number(row.s)], dataGroupName(levels, row), { value: String(row.v), count: num(row.n) ?? 0 });
    }
  }
  if (many.length > 0) {
    const statement = columnTopValuesStatement(target, many.map((i) => ({ index: i, column: planned[i] })), limit);
    for (const row of await rowsOf(statement)) push(Number(row.s), ALL_DATA, { value: String(row.v), count: num(row.n) ?? 0 });
  }
  if (unique.length > 0) {
    const statement = uniqueValuesStatement(target, unique.map((i) => ({ index: i, column: planned[i] })), groupColumns, limit);
    for (const row of await rowsOf(statement)) push(Number(row.s), dataGroupName(levels, row), { value: String(row.v), count: 1 });
  }
  return out;
}

/** `level 1 / level 2 …` from the grouping columns' values (`g0`, `g1` … in the row) and tags; `all data` without levels. */
export function dataGroupName(levels: readonly GroupingLevel[], row: Row): string {
  if (levels.length === 0) return ALL_DATA;
  let g = 0;
  return levels
    .map((level) => {
      if ('tag' in level) return level.tag;
      const raw = row[`g${g++}`];
      return raw === null || raw === undefined ? '(null)' : String(raw);
    })
    .join(' / ');
}

function value(columnName: string | null, collector: string, dataGroup: string, result: Partial<Pick<StatisticsValue, 'double' | 'text' | 'json'>>): StatisticsValue {
  return {
    columnName,
    category: categoryOfCollector(collector),
    collector,
    dataGroup,
    double: result.double ?? null,
    text: result.text ?? null,
    json: result.json ?? null,
  };
}

function num(raw: unknown): number | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw === 'number') return raw;
  const n = Number(raw);
  return Number.isNaN(n) && raw !== 'NaN' ? undefined : n;
}

/** A double that JSON can hold; NaN and ±Infinity are kept as text instead. */
function finite(raw: unknown): { double: number | null; text?: string | null } {
  const n = num(raw);
  if (n === undefined) return { double: null };
  return Number.isFinite(n) ? { double: n } : { double: null, text: String(n) };
}

function numberOrText(rawDouble: unknown, rawText: unknown): { double: number | null; text: string | null } {
  const text = rawText === null || rawText === undefined ? null : String(rawText);
  if (rawDouble === undefined) return { double: null, text };
  const n = num(rawDouble);
  return { double: n !== undefined && Number.isFinite(n) ? n : null, text };
}
