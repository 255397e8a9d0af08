import { quoteIdent, quoteQualified as quoteTable } from './sensors/quoteIdent.js';
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
 */
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
function valueExpression(column: Pick<StatisticsColumn, 'name' | 'profile'>): string {
  const quoted = quoteIdent(column.name);
  return column.profile === 'other' ? `${quoted}::text` : quoted;
}

function groupSelect(groupColumns: readonly string[]): string {
  return groupColumns.map((g, i) => `${quoteIdent(g)}::text as g${i}, `).join('');
}

/** The aggregate scan. `groupColumns` empty: one row for the table; else one row per data group. */
export function aggregateStatement(schema: string, table: string, columns: readonly StatisticsColumn[], groupColumns: readonly string[], maxGroups: number): SqlStatement {
  const parts: string[] = ['count(*)::float8 as n'];
  columns.forEach((column, i) => {
    const c = quoteIdent(column.name);
    const v = valueExpression(column);
    parts.push(`count(${c})::float8 as nn${i}`);
    if (column.distinct) parts.push(`count(distinct ${v})::float8 as d${i}`);
    if (column.range) {
      parts.push(`left(min(${c})::text, ${MAX_TEXT_RESULT}) as mint${i}`, `left(max(${c})::text, ${MAX_TEXT_RESULT}) as maxt${i}`);
      if (column.profile === 'numeric') parts.push(`min(${c})::float8 as mind${i}`, `max(${c})::float8 as maxd${i}`);
    }
    if (column.mean) parts.push(`avg(${c})::float8 as mean${i}`);
    if (column.lengths) {
      parts.push(
        `min(char_length(${c}))::float8 as lmin${i}`,
        `max(char_length(${c}))::float8 as lmax${i}`,
        `avg(char_length(${c}))::float8 as lmean${i}`,
      );
    }
  });
  const from = quoteTable(schema, table);
  if (groupColumns.length === 0) return { text: `select ${parts.join(', ')} from ${from}`, params: [] };
  const groupBy = groupColumns.map(quoteIdent).join(', ');
  return {
    // one row more than allowed tells "too many data groups" without reading them all
    text: `select ${groupSelect(groupColumns)}${parts.join(', ')} from ${from} group by ${groupBy} order by ${groupColumns.map((_, i) => `g${i}`).join(', ')} limit $1`,
    params: [maxGroups + 1],
  };
}

/**
 * The most common values of columns that have duplicates: rows `{s, g0…, v, n}` with `s` the index into
 * `columns`, the top `limit` per column (and data group), most frequent first.
 */
export function topValuesStatement(schema: string, table: string, columns: readonly StatisticsColumn[], groupColumns: readonly string[], limit: number): SqlStatement {
  const expressions = columns.map(valueExpression);
  const setIndex = `case ${expressions.map((e, i) => `when grouping(${e}) = 0 then ${i}`).join(' ')} end`;
  const value = `left(case ${expressions.map((e, i) => `when grouping(${e}) = 0 then (${e})::text`).join(' ')} end, ${MAX_TEXT_RESULT})`;
  const groups = groupColumns.map((_, i) => `g${i}`);
  const partition = ['s', ...groups].join(', ');
  const groupBy = [...groupColumns.map(quoteIdent), `grouping sets (${expressions.map((e) => `(${e})`).join(', ')})`].join(', ');
  const text = `select s, ${groups.map((g) => `${g}, `).join('')}v, n from (
  select s, ${groups.map((g) => `${g}, `).join('')}v, n, row_number() over (partition by ${partition} order by n desc, v collate "C") as r from (
    select ${setIndex} as s, ${groupSelect(groupColumns)}${value} as v, count(*)::float8 as n
      from ${quoteTable(schema, table)}
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
export function columnTopValuesStatement(schema: string, table: string, columns: readonly { index: number; column: StatisticsColumn }[], limit: number): SqlStatement {
  const from = quoteTable(schema, table);
  const branches = columns.map(({ index, column }) => {
    const e = valueExpression(column);
    const v = `left((${e})::text, ${MAX_TEXT_RESULT})`;
    return `(select ${index} as s, ${v} as v, count(*)::float8 as n from ${from} where ${quoteIdent(column.name)} is not null group by ${e} order by count(*) desc, ${v} collate "C" limit $1)`;
  });
  return { text: branches.join('\nunion all\n'), params: [limit] };
}

/**
 * The first `limit` values by text of columns whose values are all distinct (each occurs once): rows
 * `{s, g0…, v}`. One top-N sort per column for the whole table; per data group a window over the group.
 */
export function uniqueValuesStatement(schema: string, table: string, columns: readonly { index: number; column: StatisticsColumn }[], groupColumns: readonly string[], limit: number): SqlStatement {
  const from = quoteTable(schema, table);
  const branches = columns.map(({ index, column }) => {
    const c = quoteIdent(column.name);
    const v = `(${c})::text`;
    if (groupColumns.length === 0) {
      return `(select ${index} as s, left(${v}, ${MAX_TEXT_RESULT}) as v from ${from} where ${c} is not null order by ${v} collate "C" limit $1)`;
    }
    const groups = groupColumns.map((_, i) => `g${i}`);
    return `(select ${index} as s, ${groups.map((g) => `${g}, `).join('')}v from (
      select ${groupSelect(groupColumns)}left(${v}, ${MAX_TEXT_RESULT}) as v,
             row_number() over (partition by ${groupColumns.map(quoteIdent).join(', ')} order by ${v} collate "C") as r
        from ${from} where ${c} is not null) numbered where r <= $1)`;
  });
  return { text: branches.join('\nunion all\n'), params: [limit] };
}
