/**
 * Capabilities of a sensor that the API models report and the catalog's typed view does not carry.
 *
 * supports_grouping: the sensor's query can be split by data grouping (GROUP BY). It cannot when its single
 * value describes the table as a whole or comes from a query the user wrote: the categories accuracy, schema,
 * availability and sampling, and the custom-SQL sensors `import_custom_result`, `sql_invalid_record_count`
 * and `sql_invalid_value_count`. (This is exactly the `postgresql_flags.supports_grouping` of the catalog
 * file; a test keeps the two in step.)
 *
 * supports_error_sampling (our rule; the catalog does not record it): the sensor counts, or measures the share
 * of, rows that fail a row-level condition, so the failing rows can be shown. That is a sensor whose name ends
 * in `_count` or `_percent`, outside the categories that measure the table as a whole (volume, schema,
 * accuracy, timeliness, availability), and not an aggregate of the values (`distinct_*`, `expected_*`,
 * `not_null_*`, `min_*`, `max_*`), whose result has no failing rows to show.
 */

const NO_GROUPING_CATEGORIES: ReadonlySet<string> = new Set(['accuracy', 'schema', 'availability', 'sampling']);
const NO_GROUPING_SENSORS: ReadonlySet<string> = new Set([
  'import_custom_result', 'sql_invalid_record_count', 'sql_invalid_value_count',
]);

const WHOLE_TABLE_CATEGORIES: ReadonlySet<string> = new Set(['volume', 'schema', 'accuracy', 'timeliness', 'availability']);
const AGGREGATE_PREFIXES = ['distinct_', 'expected_', 'not_null_', 'min_', 'max_'] as const;

/** `target/category/name` of a sensor name; the category and name are '' when the name has fewer parts. */
function partsOf(sensorName: string): { category: string; name: string } {
  const parts = sensorName.split('/');
  return { category: parts.length >= 3 ? parts[1] : '', name: parts[parts.length - 1] ?? '' };
}

export function sensorSupportsGrouping(sensorName: string): boolean {
  const { category, name } = partsOf(sensorName);
  return !NO_GROUPING_CATEGORIES.has(category) && !NO_GROUPING_SENSORS.has(name);
}

/**
 * Sensors whose failing rows cannot be told apart: a share limited from both sides (true/false percent), or a
 * query the user wrote that returns counts, not rows.
 */
const NOT_SAMPLED: ReadonlySet<string> = new Set(['true_percent', 'false_percent', 'sql_invalid_record_count', 'sql_invalid_value_count']);

export function sensorSupportsErrorSampling(sensorName: string): boolean {
  const { category, name } = partsOf(sensorName);
  if (NOT_SAMPLED.has(name)) return false;
  if (!name.endsWith('_count') && !name.endsWith('_percent')) return false;
  if (WHOLE_TABLE_CATEGORIES.has(category)) return false;
  return !AGGREGATE_PREFIXES.some((prefix) => name.startsWith(prefix));
}
