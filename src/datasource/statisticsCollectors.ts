import type { SourceColumn } from './introspect.js';

/**
 * The statistics dqctl collects, by collector name and category (the `collectorCategory` of
 * StatisticsCollectorSearchFilters). One table-level collector (row_count); the column-level ones depend on
 * the column's profile: every column gets nulls, uniqueness and top values; numbers get min, max and mean;
 * text gets min, max and text lengths; dates and times get min and max.
 *
 * Result kinds: counts, percents, means and numeric min/max are doubles (numeric min/max also keep their
 * exact text); text and date/time min/max are text; top_values is JSON `[{value, count}]`.
 */
export const STATISTICS_CATEGORIES = ['volume', 'nulls', 'uniqueness', 'range', 'strings', 'sampling'] as const;
export type StatisticsCategory = (typeof STATISTICS_CATEGORIES)[number];

/** How a column is profiled, from its base type. */
export type ColumnProfile = 'numeric' | 'text' | 'datetime' | 'bool' | 'other';

export interface CollectorDefinition {
  name: string;
  category: StatisticsCategory;
  target: 'table' | 'column';
  /** Column profiles the collector applies to (column collectors only); absent: all. */
  profiles?: readonly ColumnProfile[];
}

export const STATISTICS_COLLECTORS: readonly CollectorDefinition[] = [
  { name: 'row_count', category: 'volume', target: 'table' },
  { name: 'nulls_count', category: 'nulls', target: 'column' },
  { name: 'nulls_percent', category: 'nulls', target: 'column' },
  { name: 'distinct_count', category: 'uniqueness', target: 'column' },
  { name: 'distinct_percent', category: 'uniqueness', target: 'column' },
  { name: 'duplicate_count', category: 'uniqueness', target: 'column' },
  { name: 'min_value', category: 'range', target: 'column', profiles: ['numeric', 'text', 'datetime'] },
  { name: 'max_value', category: 'range', target: 'column', profiles: ['numeric', 'text', 'datetime'] },
  { name: 'mean_value', category: 'range', target: 'column', profiles: ['numeric'] },
  { name: 'text_min_length', category: 'strings', target: 'column', profiles: ['text'] },
  { name: 'text_max_length', category: 'strings', target: 'column', profiles: ['text'] },
  { name: 'text_mean_length', category: 'strings', target: 'column', profiles: ['text'] },
  { name: 'top_values', category: 'sampling', target: 'column' },
];

/** Numbers: PostgreSQL's pg_type names, MySQL's data_type and DuckDB's types (lower case, without parameters). */
const NUMERIC_TYPES = new Set([
  'int2', 'int4', 'int8', 'float4', 'float8', 'numeric',
  'tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint', 'decimal', 'float', 'double', 'real',
  'hugeint', 'utinyint', 'usmallint', 'uinteger', 'ubigint', 'uhugeint',
]);

export function columnProfileOf(column: Pick<SourceColumn, 'baseType' | 'typeCategory'>): ColumnProfile {
  if (NUMERIC_TYPES.has(column.baseType)) return 'numeric';
  switch (column.typeCategory) {
    case 'S':
      return 'text';
    case 'D':
      return 'datetime';
    case 'B':
      return 'bool';
    default:
      return 'other';
  }
}

/** Which collectors run: by category and / or name (absent: all). */
export interface CollectorSelection {
  categories?: ReadonlySet<string>;
  names?: ReadonlySet<string>;
  /** Only table-level or only column-level collectors. */
  target?: 'table' | 'column';
}

export function selectedCollectors(target: 'table' | 'column', profile: ColumnProfile | undefined, selection: CollectorSelection): string[] {
  return STATISTICS_COLLECTORS.filter(
    (c) =>
      c.target === target &&
      (!selection.target || selection.target === target) &&
      (profile === undefined || !c.profiles || c.profiles.includes(profile)) &&
      (!selection.categories || selection.categories.has(c.category)) &&
      (!selection.names || selection.names.has(c.name)),
  ).map((c) => c.name);
}

export function categoryOfCollector(name: string): StatisticsCategory {
  const found = STATISTICS_COLLECTORS.find((c) => c.name === name);
  if (!found) throw new Error(`unknown statistics collector ${name}`);
  return found.category;
}
