/**
 * The workload of the check-run benchmarks (`npm run bench:checks`, and later the full `run checks` benchmark):
 * a 10-column table of N rows (default 1,000,000) generated server-side and deterministically, with deliberate
 * quality problems, and 30 configured daily monitoring checks on it (catalog check, column, sensor parameters).
 * Also the hand-written single query that computes the same 30 aggregates: the lower bound of any check run.
 */
import pg from 'pg';
import { getCheckCatalog } from '../src/catalog/index.js';
import type { JsonValue } from '../src/model/index.js';
import { COUNTRY_CODES, EMAIL_LOCAL_MAX, NULL_PLACEHOLDERS, PATTERNS } from '../src/datasource/sensors/textPatterns.js';
import type { SensorRequest, TableQueryRequest } from '../src/datasource/sensors/index.js';

export const BENCH_SCHEMA = 'Bench';
export const BENCH_TABLE = 'orders 1M';
/** The run's start time: fixed, so the results are the same on every run. */
export const BENCH_NOW = new Date('2025-01-01T00:00:00Z');

export const BENCH_COLUMNS = ['id', 'customer_id', 'amount', 'quantity', 'email', 'status', 'country', 'created_at', 'score', 'note'] as const;

export interface BenchCheck {
  /** A daily monitoring check of the catalog. */
  check: string;
  column?: (typeof BENCH_COLUMNS)[number];
  parameters?: Record<string, JsonValue>;
  /** The `error` rule's parameters where the catalog has no default. */
  rule?: Record<string, JsonValue>;
}

export const BENCH_CHECKS: readonly BenchCheck[] = [
  { check: 'daily_row_count' },
  { check: 'daily_nulls_count', column: 'email' },
  { check: 'daily_nulls_percent', column: 'amount' },
  { check: 'daily_not_nulls_count', column: 'customer_id' },
  { check: 'daily_distinct_count', column: 'status', rule: { min_count: 1, max_count: 10 } },
  { check: 'daily_distinct_percent', column: 'country' },
  { check: 'daily_duplicate_count', column: 'id' },
  { check: 'daily_min_in_range', column: 'amount' },
  { check: 'daily_max_in_range', column: 'amount' },
  { check: 'daily_mean_in_range', column: 'score' },
  { check: 'daily_sum_in_range', column: 'quantity' },
  { check: 'daily_negative_values', column: 'amount' },
  { check: 'daily_number_below_min_value', column: 'quantity', parameters: { min_value: 1 } },
  { check: 'daily_number_above_max_value', column: 'quantity', parameters: { max_value: 100 } },
  { check: 'daily_number_in_range_percent', column: 'score', parameters: { min_value: 0, max_value: 90 } },
  { check: 'daily_text_max_length', column: 'note' },
  { check: 'daily_text_mean_length', column: 'email' },
  { check: 'daily_empty_text_found', column: 'note' },
  { check: 'daily_whitespace_text_found', column: 'note' },
  { check: 'daily_null_placeholder_text_found', column: 'status' },
  { check: 'daily_text_not_matching_regex_found', column: 'status', parameters: { regex: '^[a-z]+$' } },
  { check: 'daily_invalid_email_format_found', column: 'email' },
  { check: 'daily_text_found_in_set_percent', column: 'status', parameters: { expected_values: ['new', 'paid', 'shipped', 'cancelled'] } },
  { check: 'daily_text_valid_country_code_percent', column: 'country' },
  { check: 'daily_expected_text_values_in_use_count', column: 'status', parameters: { expected_values: ['new', 'paid', 'refunded'] } },
  { check: 'daily_date_values_in_future_percent', column: 'created_at' },
  { check: 'daily_data_freshness' },
  { check: 'daily_sql_condition_failed_on_table', parameters: { sql_condition: '{alias}.quantity >= 0 and {alias}.amount > -50' } },
  { check: 'daily_duplicate_record_count', parameters: { columns: ['customer_id', 'country'] } },
  { check: 'daily_median_in_range', column: 'amount' },
];

/** The sensor requests of the 30 checks (ids are the check names), checked against the catalog. */
export function benchSensors(): SensorRequest[] {
  const catalog = getCheckCatalog();
  return BENCH_CHECKS.map((c) => {
    const check = catalog.checkByName(c.check);
    if (check === undefined || check.checkType !== 'monitoring' || check.timeScale !== 'daily') throw new Error(`bench: ${c.check} is not a daily monitoring check`);
    if ((check.target === 'column') !== (c.column !== undefined)) throw new Error(`bench: ${c.check} is a ${check.target} check`);
    return { id: c.check, sensorName: check.sensor, ...(c.column ? { column: c.column } : {}), ...(c.parameters ? { parameters: c.parameters } : {}) };
  });
}

export function benchRequest(sensors: SensorRequest[] = benchSensors()): TableQueryRequest {
  return {
    schema: BENCH_SCHEMA,
    table: BENCH_TABLE,
    sensors,
    now: BENCH_NOW,
    timestampColumns: { eventTimestampColumn: 'created_at' },
  };
}

/**
 * The table's spec as a DQOps table file would hold it (`spec` of `Bench.orders 1M.dqotable.yaml`): the 30 checks
 * under monitoring_checks.daily, each with its sensor parameters and an `error` rule holding the catalog
 * defaults of its rule's parameters, and timestamp_columns for the freshness check. For the `run checks` benchmark.
 */
export function benchTableSpec(): Record<string, JsonValue> {
  const catalog = getCheckCatalog();
  const tableChecks: Record<string, Record<string, JsonValue>> = {};
  const columns: Record<string, { monitoring_checks: { daily: Record<string, Record<string, JsonValue>> } }> = {};
  for (const c of BENCH_CHECKS) {
    const check = catalog.checkByName(c.check)!;
    const error: Record<string, JsonValue> = {};
    for (const parameter of catalog.ruleOf(check).parameters) if (parameter.default !== null) error[parameter.name] = parameter.default;
    Object.assign(error, c.rule);
    const body: Record<string, JsonValue> = { error, ...(c.parameters ? { parameters: c.parameters } : {}) };
    const container = c.column === undefined ? tableChecks : (columns[c.column] ??= { monitoring_checks: { daily: {} } }).monitoring_checks.daily;
    ((container[check.category] ??= {}) as Record<string, JsonValue>)[c.check] = body;
  }
  return {
    timestamp_columns: { event_timestamp_column: 'created_at' },
    monitoring_checks: { daily: tableChecks },
    columns: columns as unknown as JsonValue,
  };
}

/** Creates and fills the table (server-side, ~2-5 s for a million rows), then VACUUM ANALYZE. */
export async function createBenchTable(client: pg.Client, rows: number): Promise<void> {
  await client.query(`create schema if not exists "Bench"`);
  await client.query(`drop table if exists "Bench"."orders 1M"`);
  await client.query(`
    create table "Bench"."orders 1M" (
      id bigint, customer_id int, amount numeric(12,2), quantity int, email text, status text,
      country text, created_at timestamptz, score double precision, note text
    )`);
  await client.query(
    `insert into "Bench"."orders 1M"
     select g,
       case when g % 50 = 0 then null else (g * 7919) % 100000 end,
       case when g % 40 = 0 then null else ((g * 37) % 200000 - 10000) / 100.0 end,
       (g * 13) % 120,
       case when g % 30 = 0 then null when g % 97 = 0 then 'broken-' || g else 'user' || (g % 50000) || '@example.com' end,
       (array['new', 'paid', 'shipped', 'cancelled', 'N/A'])[1 + g % 5],
       (array['US', 'PL', 'DE', 'FR', 'GB', 'XX'])[1 + g % 6],
       timestamptz '2024-01-01' + (g % 600000) * interval '1 minute',
       (g % 1000) / 10.0,
       case when g % 11 = 0 then '' when g % 13 = 0 then '   ' else 'note ' || (g % 100) end
     from generate_series(1, $1::bigint) as g`,
    [rows],
  );
  await client.query(`vacuum analyze "Bench"."orders 1M"`);
}

/**
 * The same 30 values written by hand, as one would for this table alone, with DQOps's semantics: literals instead
 * of parameters, no casts a column does not need; NULL placeholders from DQOps's list, blank texts as `btrim`
 * sees them, country codes in any case, a SQL condition that fails when FALSE (not when NULL), and duplicate
 * records counted as DQOps counts them (the groups of equal records, all-NULL keys left out), in a scalar subquery
 * of the same statement. `emailPattern`: 'fast' checks the e-mail address as dqctl's sensor does (the pattern
 * without its {0,63} count and the position of the @: the same answer); 'dqops' with DQOps's pattern as written.
 * Its values must equal dqctl's readouts (the benchmark checks).
 */
export function handWrittenQuery(options: { emailPattern?: 'fast' | 'dqops' } = {}): { text: string; values: unknown[] } {
  const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;
  const list = (values: readonly string[]): string => values.map(literal).join(', ');
  const validEmail =
    options.emailPattern === 'dqops'
      ? `email ~ ${literal(PATTERNS.email)}`
      : `email ~ ${literal(PATTERNS.emailWithoutLocalLimit)} and strpos(email, '@') <= ${EMAIL_LOCAL_MAX + 1}`;
  return {
    text: `
select
  count(*) as daily_row_count,
  count(*) - count(email) as daily_nulls_count,
  100.0 * (count(*) - count(amount)) / count(*) as daily_nulls_percent,
  count(customer_id) as daily_not_nulls_count,
  count(distinct status) as daily_distinct_count,
  100.0 * count(distinct country) / count(country) as daily_distinct_percent,
  count(id) - count(distinct id) as daily_duplicate_count,
  min(amount) as daily_min_in_range,
  max(amount) as daily_max_in_range,
  avg(score) as daily_mean_in_range,
  sum(quantity) as daily_sum_in_range,
  count(*) filter (where amount < 0) as daily_negative_values,
  count(*) filter (where quantity < 1) as daily_number_below_min_value,
  count(*) filter (where quantity > 100) as daily_number_above_max_value,
  100.0 * count(*) filter (where score between 0 and 90) / count(score) as daily_number_in_range_percent,
  max(length(note)) as daily_text_max_length,
  avg(length(email)) as daily_text_mean_length,
  count(*) filter (where note = '') as daily_empty_text_found,
  count(*) filter (where note <> '' and btrim(note) = '') as daily_whitespace_text_found,
  count(*) filter (where lower(status) in (${list(NULL_PLACEHOLDERS)})) as daily_null_placeholder_text_found,
  count(*) filter (where status !~ '^[a-z]+$') as daily_text_not_matching_regex_found,
  count(*) filter (where not (${validEmail})) as daily_invalid_email_format_found,
  100.0 * count(*) filter (where status in ('new', 'paid', 'shipped', 'cancelled')) / count(status) as daily_text_found_in_set_percent,
  100.0 * count(*) filter (where upper(country) in (${list(COUNTRY_CODES)})) / count(country) as daily_text_valid_country_code_percent,
  count(distinct status) filter (where status in ('new', 'paid', 'refunded')) as daily_expected_text_values_in_use_count,
  100.0 * count(*) filter (where created_at > timestamptz '2025-01-01 00:00:00+00') / count(created_at) as daily_date_values_in_future_percent,
  extract(epoch from timestamptz '2025-01-01 00:00:00+00' - max(created_at)) / 86400 as daily_data_freshness,
  count(*) filter (where not (quantity >= 0 and amount > -50)) as daily_sql_condition_failed_on_table,
  (select count(*) from (select from "Bench"."orders 1M" where customer_id is not null or country is not null
                         group by customer_id, country having count(*) > 1) as repeated) as daily_duplicate_record_count,
  percentile_cont(0.5) within group (order by amount) as daily_median_in_range
from "Bench"."orders 1M"`,
    values: [],
  };
}
