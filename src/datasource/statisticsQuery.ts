import type { SqlDialect } from './dialects/dialect.js';
import { quoteIdent } from './sensors/quoteIdent.js';
import type { ColumnProfile } from './statisticsCollectors.js';

/**
 * The SQL of statistics collection. Identifiers are quoted with quoteIdent and result columns get positional
 * aliases (`nn0`, `d0` …), so no name ever shapes the SQL; the only value, the number of top values, is bound.
 *
 * 1. ONE scan computing, for the whole table or per data group (GROUP BY the grouping columns): the row count
 *    and, per column, the not-null count, the distinct count, min, max, mean (numbers) and min / max / mean
 *    text length (text). Types without an equality operator (json, xml, …) are counted distinct as text.
 * 2. The most common values of the columns that have duplicates: columns of at most 10,000 distinct values (and,
 *    per data group, all of them) in ONE more scan, GROUP BY GROUPING SETS with one set per column, ranked by
 *    count (ties by the value's text, C collation); columns of more distinct values each in a query of its own
 *    with a top-N sort (ranking all their groups in one query would sort them all).
 * 3. For columns whose values are all distinct every value occurs once, so their "most common" values are
 *    simply the first ones by text: a top-N sort (ORDER BY … LIMIT), far cheaper than grouping a unique column.
 * Text results (min, max, values) are cut at 1000 characters.
 *
 * Everything that differs between sources comes from the target's dialect (casts to double and text, the binary
 * order of texts, lengths) and what it reads (`from`: a quoted table, or a DuckDB table's files). MySQL has no
 * GROUPING SETS: its most common values are ranked one column per UNION ALL branch (a window per data group).
 */
export interface StatisticsTarget {
  dialect: SqlDialect;
  /** The FROM item: `"schema"."table"`, or a DuckDB table's files. */
  from: string;
}

export const MAX_TEXT_RESULT = 1000;

export interface StatisticsColumn {
  name: string;
  profile: ColumnProfile;
  /** Compute count(distinct) (uniqueness collectors or top values want it). */
  distinct: boolean;
  /** Compute min / max. */
  range: boolean;
  /** Compute the mean (numbers). */
  mean: boolean;
  /** Compute text lengths. */
  lengths: boolean;
}

export interface SqlStatement {
  text: string;
  params: unknown[];
}

/** The value a grouping or statistics expression groups and compares: the column, or its text when it has no equality. */
function valueExpression(target: StatisticsTarget, column: Pick<StatisticsColumn, 'name' | 'profile'>): string {
  const quoted = quoteIdent(column.name);
  return column.profile === 'other' ? target.dialect.toText(quoted) : quoted;
}

function groupSelect(target: StatisticsTarget, groupColumns: readonly string[]): string {
  return groupColumns.map((g, i) => `${target.dialect.toText(quoteIdent(g))} as g${i}, `).join('');
}

/** Texts in binary order (PostgreSQL: the C collation; the others compare texts binary already in dqctl's sessions). */
function binary(target: StatisticsTarget, text: string): string {
  return target.dialect.name === 'postgresql' ? `${text} collate "C"` : text;
}

/** The aggregate scan. `groupColumns` empty: one row for the table; else one row per data group. */
export function aggregateStatement(target: StatisticsTarget, columns: readonly StatisticsColumn[], groupColumns: readonly string[], maxGroups: number): SqlStatement {
  const { dialect } = target;
  const double = (sql: string) => dialect.toDouble(sql);
  const text = (sql: string) => dialect.toText(sql);
  const parts: string[] = [`${double('count(*)')} as n`];
  columns.forEach((column, i) => {
    const c = quoteIdent(column.name);
    const v = valueExpression(target, column);
    parts.push(`${double(`count(${c})`)} as nn${i}`);
    if (column.distinct) parts.push(`${double(`count(distinct ${v})`)} as d${i}`);
    if (column.range) {
      parts.push(`left(${text(`min(${c})`)}, ${MAX_TEXT_RESULT}) as mint${i}`, `left(${text(`max(${c})`)}, ${MAX_TEXT_RESULT}) as maxt${i}`);
      if (column.profile === 'numeric') parts.push(`${double(`min(${c})`)} as mind${i}`, `${double(`max(${c})`)} as maxd${i}`);
    }
    if (column.mean) parts.push(`${double(`avg(${c})`)} as mean${i}`);
    if (column.lengths) {
      const length = dialect.charLength(c);
      parts.push(`${double(`min(${length})`)} as lmin${i}`, `${double(`max(${length})`)} as lmax${i}`, `${double(`avg(${length})`)} as lmean${i}`);
    }
  });
  const { from } = target;
  if (groupColumns.length === 0) return { text: `select ${parts.join(', ')} from ${from}`, params: [] };
  const groupBy = groupColumns.map(quoteIdent).join(', ');
  return {
    // one row more than allowed tells "too many data groups" without reading them all
    text: `select ${groupSelect(target, groupColumns)}${parts.join(', ')} from ${from} group by ${groupBy} order by ${groupColumns.map((_, i) => `g${i}`).join(', ')} limit $1`,
    params: [maxGroups + 1],
  };
}

/**
 * The most common values of columns that have duplicates: rows `{s, g0…, v, n}` with `s` the index into
 * `columns`, the top `limit` per column (and data group), most frequent first.
 */
export function topValuesStatement(target: StatisticsTarget, columns: readonly StatisticsColumn[], groupColumns: readonly string[], limit: number): SqlStatement {
  if (target.dialect.name === 'mysql') return rankedPerColumnStatement(target, columns, groupColumns, limit);
  const expressions = columns.map((column) => valueExpression(target, column));
  const setIndex = `case ${expressions.map((e, i) => `when grouping(${e}) = 0 then ${i}`).join(' ')} end`;
  const value = `left(case ${expressions.map((e, i) => `when grouping(${e}) = 0 then ${target.dialect.toText(e)}`).join(' ')} end, ${MAX_TEXT_RESULT})`;
  const groups = groupColumns.map((_, i) => `g${i}`);
  const partition = ['s', ...groups].join(', ');
  const groupBy = [...groupColumns.map(quoteIdent), `grouping sets (${expressions.map((e) => `(${e})`).join(', ')})`].join(', ');
  const text = `select s, ${groups.map((g) => `${g}, `).join('')}v, n from (
  select s, ${groups.map((g) => `${g}, `).join('')}v, n, row_number() over (partition by ${partition} order by n desc, ${binary(target, 'v')}) as r from (
    select ${setIndex} as s, ${groupSelect(target, groupColumns)}${value} as v, ${target.dialect.toDouble('count(*)')} as n
      from ${target.from}
     group by ${groupBy}
  ) counted where v is not null
) ranked where r <= $1 order by ${['s', ...groups, 'r'].join(', ')}`;
  return { text, params: [limit] };
}

/**
 * The most common values of high-cardinality columns, one branch per column (UNION ALL, one round trip): each
 * branch groups one column and keeps its top `limit` with a top-N sort, and may use parallel workers. Ranking
 * hundreds of thousands of groups of several columns in one GROUPING SETS query costs a full sort of all the
 * groups; this does not. Rows `{s, v, n}`. Whole table only.
 */
export function columnTopValuesStatement(target: StatisticsTarget, columns: readonly { index: number; column: StatisticsColumn }[], limit: number): SqlStatement {
  const { from } = target;
  const branches = columns.map(({ index, column }) => {
    const e = valueExpression(target, column);
    const v = `left(${target.dialect.toText(e)}, ${MAX_TEXT_RESULT})`;
    return `(select ${index} as s, ${v} as v, ${target.dialect.toDouble('count(*)')} as n from ${from} where ${quoteIdent(column.name)} is not null group by ${e} order by count(*) desc, ${binary(target, v)} limit $1)`;
  });
  return { text: branches.join('\nunion all\n'), params: [limit] };
}

/**
 * The first `limit` values by text of columns whose values are all distinct (each occurs once): rows
 * `{s, g0…, v}`. One top-N sort per column for the whole table; per data group a window over the group.
 */
export function uniqueValuesStatement(target: StatisticsTarget, columns: readonly { index: number; column: StatisticsColumn }[], groupColumns: readonly string[], limit: number): SqlStatement {
  const { from } = target;
  const branches = columns.map(({ index, column }) => {
    const c = quoteIdent(column.name);
    const v = target.dialect.toText(c);
    if (groupColumns.length === 0) {
      return `(select ${index} as s, left(${v}, ${MAX_TEXT_RESULT}) as v from ${from} where ${c} is not null order by ${binary(target, v)} limit $1)`;
    }
    const groups = groupColumns.map((_, i) => `g${i}`);
    return `(select ${index} as s, ${groups.map((g) => `${g}, `).join('')}v from (
      select ${groupSelect(target, groupColumns)}left(${v}, ${MAX_TEXT_RESULT}) as v,
             row_number() over (partition by ${groupColumns.map(quoteIdent).join(', ')} order by ${binary(target, v)}) as r
        from ${from} where ${c} is not null) numbered where r <= $1)`;
  });
  return { text: branches.join('\nunion all\n'), params: [limit] };
}

/**
 * The most common values without GROUPING SETS (MySQL): one UNION ALL branch per column counting its values (per
 * data group), ranked by a window; rows `{s, g0…, v, n}` as topValuesStatement gives them.
 */
function rankedPerColumnStatement(target: StatisticsTarget, columns: readonly StatisticsColumn[], groupColumns: readonly string[], limit: number): SqlStatement {
  const groups = groupColumns.map((_, i) => `g${i}`);
  const partition = ['s', ...groups].join(', ');
  const branches = columns.map((column, index) => {
    const e = valueExpression(target, column);
    const groupBy = [...groupColumns.map(quoteIdent), e].join(', ');
    return `select ${index} as s, ${groupSelect(target, groupColumns)}left(${target.dialect.toText(e)}, ${MAX_TEXT_RESULT}) as v, ${target.dialect.toDouble('count(*)')} as n
      from ${target.from} where ${quoteIdent(column.name)} is not null group by ${groupBy}`;
  });
  const text = `select s, ${groups.map((g) => `${g}, `).join('')}v, n from (
  select s, ${groups.map((g) => `${g}, `).join('')}v, n, row_number() over (partition by ${partition} order by n desc, v) as r from (
    ${branches.join('\n    union all\n    ')}
  ) counted
) ranked where r <= $1 order by ${['s', ...groups, 'r'].join(', ')}`;
  return { text, params: [limit] };
}
