import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG_FILE, getCheckCatalog } from '../../src/catalog/index.js';
import { sensorSupportsErrorSampling, sensorSupportsGrouping } from '../../src/policy/index.js';

interface RawSensor {
  postgresql_flags?: { supports_grouping?: boolean };
}

describe('sensor capabilities', () => {
  it('supports_grouping agrees with postgresql_flags.supports_grouping of the catalog file for every sensor', () => {
    const raw = JSON.parse(readFileSync(CATALOG_FILE, 'utf8')) as { sensors: Record<string, RawSensor> };
    const names = Object.keys(raw.sensors);
    expect(names.length).toBe(getCheckCatalog().sensors.size);
    const mismatches = names.filter((name) => sensorSupportsGrouping(name) !== (raw.sensors[name].postgresql_flags?.supports_grouping === true));
    expect(mismatches).toEqual([]);
  });

  it('supports_error_sampling for sensors counting rows that fail a row-level condition', () => {
    for (const name of [
      'column/nulls/null_count', 'column/nulls/null_percent', 'column/patterns/invalid_email_format_count',
      'column/uniqueness/duplicate_count', 'column/whitespace/empty_text_percent', 'table/custom_sql/sql_condition_failed_count',
      'table/uniqueness/duplicate_record_count', 'column/numeric/number_below_min_value_percent',
    ]) expect([name, sensorSupportsErrorSampling(name)]).toEqual([name, true]);
    for (const name of [
      'table/volume/row_count', 'column/numeric/mean', 'column/uniqueness/distinct_count', 'column/nulls/not_null_count',
      'table/schema/column_count', 'column/accuracy/total_sum_match_percent', 'table/timeliness/data_freshness',
      'column/text/max_word_count', 'column/accepted_values/expected_numbers_in_use_count', 'column/range/min_value',
    ]) expect([name, sensorSupportsErrorSampling(name)]).toEqual([name, false]);
  });
});
