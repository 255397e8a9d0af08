/**
 * Checks on MariaDB (`provider_type: mariadb`, and `mysql` pointed at the same server): a private server
 * (test/helpers/mariadbServer.ts) holding the tricky rows of the DuckDB test, measured by the sensor SQL in the
 * mysql dialect with every aggregate sensor of the table in ONE scan.
 *
 * The rows of shop.orders (id, name, amount, created_at):
 *   1 'Żółw 🐢'  10.5    2024-01-01 10:00:00
 *   2 ''         -3      2024-01-02 00:00:00
 *   3 NULL       1e300   NULL
 *   4 '  '       0       2024-01-03 12:00:00
 *   5 'Żółw 🐢'  NULL    2024-01-03 12:00:00
 * Expected readouts, counted by hand from these rows: 5 rows; name: 1 NULL (20 %), 4 values, 3 distinct
 * ('Żółw 🐢', '', '  ': the table's collation is utf8mb4_nopad_bin, so '' and '  ' differ; under a PAD SPACE
 * collation such as utf8mb4_bin they would be one value, in dqctl as in DQOps, whose template counts the column), so 1 duplicate (25 % of 4); lengths in characters 0 ('') to 6 (Ż ó ł w, a space, 🐢); 1 empty text, 1
 * text of spaces only. amount: min -3, max 1e300, 1 negative, 3 of 4 non-negative (75 %), 1 above 100; sum
 * 1e300 and mean 2.5e299 (10.5 - 3 + 0 vanish in a double). Freshness at 2024-01-05 12:00 UTC: the newest event
 * is 2024-01-03 12:00, 2.0 days before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources, type DataSource } from '../../../src/datasource/index.js';
import { planSensorQueries, type SensorReadout, type SensorRequest, type TableQueryRequest } from '../../../src/datasource/sensors/index.js';
import type { JsonObject } from '../../../src/model/index.js';
import { freePort, MARIADB_PASSWORD, MARIADB_USER, startMariadb, type MariadbServer } from '../../helpers/mariadbServer.js';

let server: MariadbServer;
const NAME_TEXTS = ['Jan Kowalski', 'J.Smith', 'Żaneta Ćwik', 'Madonna', 'Ivan Иванов', 'J. Smith', 'John Smith (Jr', 'John Smith+Jr'];
const sources = new DataSources({ env: { MARIADB_PASSWORD_FOR_TEST: MARIADB_PASSWORD } });

beforeAll(async () => {
  server = await startMariadb();
  await server.admin([
    'create database shop character set utf8mb4 collate utf8mb4_nopad_bin',
    'create table shop.orders (id int primary key, name varchar(50), amount double, created_at datetime)',
    "insert into shop.orders values (1, 'Żółw 🐢', 10.5, '2024-01-01 10:00:00'), (2, '', -3, '2024-01-02 00:00:00'), (3, null, 1e300, null), (4, '  ', 0, '2024-01-03 12:00:00'), (5, 'Żółw 🐢', null, '2024-01-03 12:00:00')",
    "create database `ho\"st'ile` character set utf8mb4 collate utf8mb4_bin",
    "create table `ho\"st'ile`.`o'rders; select 1` (id int, `we\"ird col` varchar(10))",
    "insert into `ho\"st'ile`.`o'rders; select 1` values (1, 'a'), (2, null)",
    'create table shop.people (id int primary key, name varchar(50))',
    `insert into shop.people values ${NAME_TEXTS.map((t, i) => `(${i + 1}, '${t}')`).join(', ')}`,
    'create table shop.flags (id int primary key, ok boolean, day date, kind varchar(10))',
    "insert into shop.flags values (1, true, '2024-01-01', 'a'), (2, false, '2024-01-03', 'a'), (3, true, '2024-01-04', 'b'), (4, null, '2024-01-04', 'a'), (5, true, null, 'c')",
    'create table shop.texts (id int primary key, ci varchar(10) character set utf8mb4 collate utf8mb4_general_ci, uni text character set utf8mb4 collate utf8mb4_unicode_ci, l1 varchar(10) character set latin1, code int)',
    "insert into shop.texts values (1, 'A', 'A', 'A', 10), (2, 'a', 'a', 'a', 2), (3, '', '', '', 3), (4, '  ', '  ', '  ', 4), (5, 'ä', 'ä', 'ä', 5)",
  ]);
}, 120_000);
afterAll(async () => {
  await sources.close();
  await server?.stop();
});

function connection(provider: 'mariadb' | 'mysql', settings: JsonObject = {}): JsonObject {
  return { provider_type: provider, [provider]: { host: '127.0.0.1', port: String(server.port), database: 'shop', user: MARIADB_USER, password: '${MARIADB_PASSWORD_FOR_TEST}', ...settings } };
}

const NOW = new Date('2024-01-05T12:00:00Z');

async function measure(source: DataSource, schema: string, table: string, sensors: SensorRequest[]) {
  const target = await source.sqlTarget(schema, table);
  const request = { schema, table, sensors, now: NOW, timestampColumns: { eventTimestampColumn: 'created_at' }, ...target };
  const plan = planSensorQueries(request);
  const readouts = new Map<string, SensorReadout[]>();
  const errors = new Map<string, string>();
  for (const rejected of plan.rejected) errors.set(rejected.id, rejected.reason);
  for (const query of plan.queries) {
    try {
      for (const [id, values] of query.parse(await source.query(query.text, query.values))) readouts.set(id, values);
    } catch (error) {
      if (query.parseError) for (const [id, values] of query.parseError(error)) readouts.set(id, values);
      else for (const id of query.sensorIds) errors.set(id, (error as Error).message);
    }
  }
  const value = (id: string) => readouts.get(id)?.[0]?.actualValue;
  return { plan, readouts, errors, value };
}

const SENSORS: Array<[id: string, sensorName: string, column: string | undefined, parameters: Record<string, unknown>, expected: number]> = [
  ['rows', 'table/volume/row_count', undefined, {}, 5],
  ['freshness', 'table/timeliness/data_freshness', undefined, {}, 2],
  ['nulls', 'column/nulls/null_count', 'name', {}, 1],
  ['null_pct', 'column/nulls/null_percent', 'name', {}, 20],
  ['not_nulls', 'column/nulls/not_null_count', 'name', {}, 4],
  ['distinct', 'column/uniqueness/distinct_count', 'name', {}, 3],
  ['dups', 'column/uniqueness/duplicate_count', 'name', {}, 1],
  ['dup_pct', 'column/uniqueness/duplicate_percent', 'name', {}, 25],
  ['min_len', 'column/text/text_min_length', 'name', {}, 0],
  ['max_len', 'column/text/text_max_length', 'name', {}, 6],
  ['empty', 'column/whitespace/empty_text_count', 'name', {}, 1],
  ['blank', 'column/whitespace/whitespace_text_count', 'name', {}, 1],
  ['min', 'column/range/min_value', 'amount', {}, -3],
  ['max', 'column/range/max_value', 'amount', {}, 1e300],
  ['sum', 'column/numeric/sum', 'amount', {}, 1e300],
  ['mean', 'column/numeric/mean', 'amount', {}, 2.5e299],
  ['negative', 'column/numeric/negative_count', 'amount', {}, 1],
  ['non_negative_pct', 'column/numeric/non_negative_percent', 'amount', {}, 75],
  ['above', 'column/numeric/number_above_max_value_count', 'amount', { max_value: 100 }, 1],
];

describe.each(['mariadb', 'mysql'] as const)('checks on MariaDB as provider %s', (provider) => {
  it('give the readouts counted by hand, every aggregate sensor in one scan', async () => {
    const source = sources.get(`shop_${provider}`, connection(provider));
    const sensors = SENSORS.map(([id, sensorName, column, parameters]) => ({ id, sensorName, ...(column ? { column } : {}), parameters: parameters as SensorRequest['parameters'] }));
    const { plan, errors, value } = await measure(source, 'shop', 'orders', sensors);
    expect(errors).toEqual(new Map());
    expect(plan.queries.map((q) => q.kind)).toEqual(['scan']);
    for (const [id, , , , expected] of SENSORS) expect({ id, value: value(id) }).toEqual({ id, value: expected });
  });
});

describe('names on MariaDB', () => {
  /*
 * Names, as DQOps's duckdb and mysql templates read them (two words of two letters or more, or an initial and
 * a word, with the accented letters they list), counted by hand on eight texts: 'Jan Kowalski', 'J.Smith' and
 * 'Żaneta Ćwik' are names on both; 'Madonna' (one word) and 'Ivan Иванов' (Cyrillic) on neither; 'J. Smith' only
 * on DuckDB (a space after an initial); 'John Smith (Jr' and 'John Smith+Jr' only on MySQL (its later separators
 * include `( ) * + ,`). Not names: DuckDB 4 of 8 (50 %), MySQL 3 of 8 (37.5 %).
   */
  it.each(['mariadb', 'mysql'] as const)('are read as DQOps\'s %s template reads them', async (provider) => {
    const source = sources.get(`names_${provider}`, connection(provider));
    const { errors, value } = await measure(source, 'shop', 'people', [{ id: 'names', sensorName: 'column/patterns/text_not_matching_name_pattern_percent', column: 'name' }]);
    expect(errors).toEqual(new Map());
    expect(value('names')).toBe(37.5);
  });
});

describe('bad input on MariaDB', () => {
  it('hostile database, table and column names are quoted', async () => {
    const source = sources.get('hostile', connection('mariadb'));
    const { errors, value } = await measure(source, `ho"st'ile`, "o'rders; select 1", [
      { id: 'rows', sensorName: 'table/volume/row_count' },
      { id: 'nulls', sensorName: 'column/nulls/null_count', column: 'we"ird col' },
    ]);
    expect(errors).toEqual(new Map());
    expect([value('rows'), value('nulls')]).toEqual([2, 1]);
  });

  it('a missing table is a clear error of that table', async () => {
    const source = sources.get('shop_mariadb', connection('mariadb'));
    const { errors } = await measure(source, 'shop', 'no_such_table', [{ id: 'rows', sensorName: 'table/volume/row_count' }]);
    expect(errors.get('rows')).toMatch(/connection "shop_mariadb": the table does not exist on the data source/);
  });

  it('a wrong password is an authentication error that names no secret', async () => {
    const wrong = 'wrong-pass-77c1';
    const source = sources.get('wrong_password', connection('mariadb', { password: wrong }));
    const failure = await source.query('select 1').catch((error: Error & { code?: string }) => error);
    expect(failure).toMatchObject({ code: 'DATASOURCE_AUTH_FAILED' });
    expect((failure as Error).message).toMatch(/connection "wrong_password": authentication to the data source failed/);
    expect((failure as Error).message).not.toContain(wrong);
    expect((failure as Error).message).not.toContain(MARIADB_PASSWORD);
  });

  it('a closed port is a refused connection that names no secret', async () => {
    const port = await freePort();
    const source = sources.get('closed_port', { provider_type: 'mysql', mysql: { host: '127.0.0.1', port: String(port), database: 'shop', user: MARIADB_USER, password: '${MARIADB_PASSWORD_FOR_TEST}' } });
    const failure = await source.query('select 1').catch((error: Error & { code?: string }) => error);
    expect(failure).toMatchObject({ code: 'DATASOURCE_UNREACHABLE' });
    expect((failure as Error).message).toMatch(/connection "closed_port": the data source refused the connection/);
    expect((failure as Error).message).not.toContain(MARIADB_PASSWORD);
  });

  it('statements are read-only', async () => {
    const source = sources.get('shop_mariadb', connection('mariadb'));
    await expect(source.query('delete from shop.orders')).rejects.toThrow(/read-only|READ ONLY/i);
    expect(await source.query('select count(*) as n from shop.orders')).toEqual([{ n: 5 }]);
  });
});

/**
 * The sensors whose SQL was PostgreSQL's until the MySQL dialect wrote it (booleans, date ranges and future dates,
 * date-typed freshness, top values, duplicate records, daily partitions), on shop.flags (id, ok, day, kind):
 *   1 true  2024-01-01 a · 2 false 2024-01-03 a · 3 true 2024-01-04 b · 4 NULL 2024-01-04 a · 5 true NULL c
 * at 2024-01-05 12:00 UTC. By hand: ok has 4 values, 3 true (75 %), 1 false (25 %); day has 4 values, 3 in
 * [2024-01-02, 2024-01-04] (75 %), 2 after today - 2 days = 2024-01-03 (50 %), the newest 1 whole day before
 * today; kind counts a 3, b 1, c 1, so the top 1 is {a}: 1 of the 2 expected values [a, c]; the records of kind
 * repeat once (a), 100 x (1 - 3 / 5) = 40 %; rows per day: 01-01 1, 01-03 1, 01-04 2 (the NULL day in none).
 */
describe('sensors in MySQL\'s own SQL', () => {
  const run = async (sensors: SensorRequest[], extra: Partial<TableQueryRequest> = {}) => {
    const source = sources.get('shop_mariadb', connection('mariadb'));
    const request: TableQueryRequest = { schema: 'shop', table: 'flags', sensors, now: NOW, columnTypes: { day: 'DATE' }, ...(await source.sqlTarget('shop', 'flags')), ...extra };
    const plan = planSensorQueries(request);
    const readouts = new Map<string, SensorReadout[]>();
    const errors = new Map<string, string>(plan.rejected.map((r) => [r.id, r.reason]));
    for (const query of plan.queries) {
      try {
        for (const [id, values] of query.parse(await source.query(query.text, query.values))) readouts.set(id, values);
      } catch (error) {
        for (const id of query.sensorIds) errors.set(id, (error as Error).message);
      }
    }
    return { readouts, errors, value: (id: string) => readouts.get(id)?.[0]?.actualValue };
  };

  it('booleans, dates, freshness, top values and duplicate records, counted by hand', async () => {
    const { errors, readouts, value } = await run(
      [
        { id: 'true', sensorName: 'column/bool/true_percent', column: 'ok' },
        { id: 'false', sensorName: 'column/bool/false_percent', column: 'ok' },
        { id: 'in_range', sensorName: 'column/datetime/date_in_range_percent', column: 'day', parameters: { min_date: '2024-01-02', max_date: '2024-01-04' } },
        { id: 'future', sensorName: 'column/datetime/date_values_in_future_percent', column: 'day', parameters: { max_future_days: -2 } },
        { id: 'fresh', sensorName: 'table/timeliness/data_freshness' },
        { id: 'top', sensorName: 'column/accepted_values/expected_texts_in_top_values_count', column: 'kind', parameters: { expected_values: ['a', 'c'], top: 1 } },
        { id: 'dup_records', sensorName: 'table/uniqueness/duplicate_record_count', parameters: { columns: ['kind'] } },
        { id: 'dup_records_pct', sensorName: 'table/uniqueness/duplicate_record_percent', parameters: { columns: ['kind'] } },
      ],
      { timestampColumns: { eventTimestampColumn: 'day' } },
    );
    expect(errors).toEqual(new Map());
    expect(['true', 'false', 'in_range', 'future', 'fresh', 'top', 'dup_records', 'dup_records_pct'].map((id) => [id, value(id)])).toEqual([
      ['true', 75], ['false', 25], ['in_range', 75], ['future', 50], ['fresh', 1], ['top', 1], ['dup_records', 1], ['dup_records_pct', 40],
    ]);
    expect(readouts.get('top')?.[0]?.expectedValue).toBe(2);
  });

  it('daily partitions by a date column, within the window', async () => {
    const { errors, readouts } = await run([{ id: 'rows', sensorName: 'table/volume/row_count' }], {
      partitioning: { column: 'day', timeScale: 'daily', window: { recentDays: 7, includeToday: true } },
    });
    expect(errors).toEqual(new Map());
    expect(readouts.get('rows')!.map((r) => [r.timePeriod, r.actualValue])).toEqual([['2024-01-01', 1], ['2024-01-03', 1], ['2024-01-04', 2]]);
  });

  /**
   * shop.texts holds 'A', 'a', '', '  ', 'ä' in a case-insensitive PAD SPACE utf8mb4 column (ci), a utf8mb4 TEXT
   * of another collation (uni), a latin1 column (l1) and an int (code: 10, 2, 3, 4, 5). Texts compare exactly
   * in each, as in a utf8mb4_nopad_bin table: 1 of 5 is 'a' (20 %), 1 empty text, 1 text of spaces only (not
   * the empty one), the longest 2 characters; code as text: 1 of 5 is '10'. The utf8mb4 columns are relabelled
   * with the session's collation, the others converted; the bound texts are string literals (dialects/mysql.ts).
   */
  it('texts compare exactly whatever the column\'s character set and collation', async () => {
    const source = sources.get('shop_mariadb', connection('mariadb'));
    const sensors: SensorRequest[] = ['ci', 'uni', 'l1'].flatMap((column) => [
      { id: `${column}_in_set`, sensorName: 'column/accepted_values/text_found_in_set_percent', column, parameters: { expected_values: ['a'] } },
      { id: `${column}_empty`, sensorName: 'column/whitespace/empty_text_count', column },
      { id: `${column}_blank`, sensorName: 'column/whitespace/whitespace_text_count', column },
      { id: `${column}_max_len`, sensorName: 'column/text/text_max_length', column },
    ]);
    sensors.push({ id: 'code_in_set', sensorName: 'column/accepted_values/text_found_in_set_percent', column: 'code', parameters: { expected_values: ['10'] } });
    const { plan, errors, value } = await measure(source, 'shop', 'texts', sensors);
    expect(errors).toEqual(new Map());
    for (const column of ['ci', 'uni', 'l1']) {
      expect([`${column}_in_set`, `${column}_empty`, `${column}_blank`, `${column}_max_len`].map((id) => value(id))).toEqual([20, 1, 1, 2]);
    }
    expect(value('code_in_set')).toBe(20);
    const sql = plan.queries[0]!.text;
    expect(sql).toContain('(analyzed_table."ci" collate utf8mb4_nopad_bin)');
    expect(sql).toContain('(analyzed_table."uni" collate utf8mb4_nopad_bin)');
    expect(sql).not.toContain('cast(analyzed_table."ci" as char)');
    expect(sql).toContain('cast(analyzed_table."l1" as char)');
    expect(sql).toContain('cast(analyzed_table."code" as char)');
    // the bound texts are literals the driver writes, not casts evaluated on every row
    expect(sql).not.toMatch(/cast\(\$\d+ as char\)/);
  });

  it('the percentile, which MariaDB cannot aggregate, is a clear error of that check only', async () => {
    const { errors, value } = await run([
      { id: 'median', sensorName: 'column/numeric/percentile', column: 'id' },
      { id: 'rows', sensorName: 'table/volume/row_count' },
    ]);
    expect(value('rows')).toBe(5);
    expect(errors.get('median')).toBe('sensor "median": MySQL and MariaDB have no percentile aggregate (DQOps has no mysql or mariadb percentile sensor either)');
  });
});
