/**
 * Checks on DuckDB over local files: the same tricky rows written by this test as CSV, JSON and Parquet, read
 * through a `provider_type: duckdb` connection in files mode (directories: schema → folder), measured by the
 * sensor SQL in the DuckDB dialect with every aggregate sensor of the table in ONE scan.
 *
 * The rows (id, name, amount, created_at):
 *   1 'Żółw 🐢'  10.5    2024-01-01 10:00:00
 *   2 ''         -3      2024-01-02 00:00:00
 *   3 NULL       1e300   NULL
 *   4 '  '       0       2024-01-03 12:00:00
 *   5 'Żółw 🐢'  NULL    2024-01-03 12:00:00
 * Expected readouts, counted by hand from these rows: 5 rows; name: 1 NULL (20 %), 4 values, 3 distinct
 * ('Żółw 🐢', '', '  '), so 1 duplicate (25 % of 4); lengths 0 ('') to 6 (Ż ó ł w, a space, 🐢 = 6 characters);
 * 1 empty text, 1 text of spaces only; words: 'Żółw 🐢' has one inner space → 2, '' and '  ' → 0. amount:
 * min -3, max 1e300, 1 negative, 3 of 4 non-negative (75 %), 1 above 100; the sum and mean are ruled by 1e300
 * (10.5 - 3 + 0 vanish in a double): sum 1e300, mean 2.5e299. Freshness at 2024-01-05 12:00 UTC: the newest
 * event is 2024-01-03 12:00, 2.0 days before. Schema: 4 columns.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataSources, type DataSource } from '../../../src/datasource/index.js';
import { planSensorQueries, sourceColumnTypesWanted, type SensorReadout, type SensorRequest } from '../../../src/datasource/sensors/index.js';
import type { JsonObject } from '../../../src/model/index.js';

let root: string;
const sources = new DataSources({ env: {} });

const CSV = [
  'id,name,amount,created_at',
  '1,"Żółw 🐢",10.5,2024-01-01 10:00:00',
  '2,"",-3,2024-01-02 00:00:00',
  '3,,1e300,',
  '4,"  ",0,2024-01-03 12:00:00',
  '5,"Żółw 🐢",,2024-01-03 12:00:00',
].join('\n');
const JSON_LINES = [
  { id: 1, name: 'Żółw 🐢', amount: 10.5, created_at: '2024-01-01 10:00:00' },
  { id: 2, name: '', amount: -3, created_at: '2024-01-02 00:00:00' },
  { id: 3, name: null, amount: 1e300, created_at: null },
  { id: 4, name: '  ', amount: 0, created_at: '2024-01-03 12:00:00' },
  { id: 5, name: 'Żółw 🐢', amount: null, created_at: '2024-01-03 12:00:00' },
]
  .map((row) => JSON.stringify(row))
  .join('\n');

function connection(format: 'csv' | 'json' | 'parquet', directories: Record<string, string>): JsonObject {
  // a quoted "" is an empty text, not NULL (DuckDB's default turns it into NULL)
  return { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: format, directories, ...(format === 'csv' ? { csv: { header: true, allow_quoted_nulls: false } } : {}) } };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'dqctl-duckdb-'));
  for (const format of ['csv', 'json', 'parquet']) await mkdir(join(root, format, 'orders'), { recursive: true });
  await writeFile(join(root, 'csv', 'orders', 'part-1.csv'), CSV);
  await writeFile(join(root, 'json', 'orders', 'part-1.json'), JSON_LINES);
  // Parquet written by DuckDB itself from the CSV, with the columns typed as the CSV reader detects them
  const writer = sources.get('writer', connection('csv', { landing: join(root, 'csv') }));
  const csvPath = join(root, 'csv', 'orders', 'part-1.csv').replaceAll("'", "''");
  const parquetPath = join(root, 'parquet', 'orders', 'part-1.parquet').replaceAll("'", "''");
  await writer.query(`copy (select * from read_csv('${csvPath}', header = true, allow_quoted_nulls = false)) to '${parquetPath}' (format parquet)`);
});
afterAll(async () => {
  await sources.close();
  await rm(root, { recursive: true, force: true });
});

const NOW = new Date('2024-01-05T12:00:00Z');
const NAME_TEXTS = ['Jan Kowalski', 'J.Smith', 'Żaneta Ćwik', 'Madonna', 'Ivan Иванов', 'J. Smith', 'John Smith (Jr', 'John Smith+Jr'];

async function measure(source: DataSource, schema: string, table: string, sensors: SensorRequest[], tableSpec?: JsonObject) {
  const target = await source.sqlTarget(schema, table, tableSpec);
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
  ['max_words', 'column/text/max_word_count', 'name', {}, 2],
  ['min_words', 'column/text/min_word_count', 'name', {}, 0],
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

describe.each(['csv', 'json', 'parquet'] as const)('checks on %s files through DuckDB', (format) => {
  it('give the readouts counted by hand, every aggregate sensor in one scan', async () => {
    const source = sources.get(`files_${format}`, connection(format, { landing: join(root, format) }));
    const sensors = SENSORS.map(([id, sensorName, column, parameters]) => ({ id, sensorName, ...(column ? { column } : {}), parameters: parameters as SensorRequest['parameters'] }));
    const { plan, errors, value } = await measure(source, 'landing', 'orders', sensors);
    expect(errors).toEqual(new Map());
    expect(plan.queries.map((q) => q.kind)).toEqual(['scan']);
    expect(plan.queries[0]!.text).toContain('from read_');
    for (const [id, , , , expected] of SENSORS) expect({ id, value: value(id) }).toEqual({ id, value: expected });
  });

  it('reads the schema from the files and probes availability', async () => {
    const source = sources.get(`files_${format}`, connection(format, { landing: join(root, format) }));
    const { errors, value } = await measure(source, 'landing', 'orders', [
      { id: 'columns', sensorName: 'table/schema/column_count' },
      { id: 'has_name', sensorName: 'column/schema/column_exists', column: 'name' },
      { id: 'has_nope', sensorName: 'column/schema/column_exists', column: 'nope' },
      { id: 'available', sensorName: 'table/availability/table_availability' },
    ]);
    expect(errors).toEqual(new Map());
    expect([value('columns'), value('has_name'), value('has_nope'), value('available')]).toEqual([4, 1, 0, 0]);
  });
});

describe('names on DuckDB', () => {
  /*
 * Names, as DQOps's duckdb and mysql templates read them (two words of two letters or more, or an initial and
 * a word, with the accented letters they list), counted by hand on eight texts: 'Jan Kowalski', 'J.Smith' and
 * 'Żaneta Ćwik' are names on both; 'Madonna' (one word) and 'Ivan Иванов' (Cyrillic) on neither; 'J. Smith' only
 * on DuckDB (a space after an initial); 'John Smith (Jr' and 'John Smith+Jr' only on MySQL (its later separators
 * include `( ) * + ,`). Not names: DuckDB 4 of 8 (50 %), MySQL 3 of 8 (37.5 %).
   */
  it('are read as DQOps\'s duckdb template reads them', async () => {
    const dir = join(root, 'names', 'people');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'part-1.csv'), ['name', ...NAME_TEXTS.map((t) => `"${t}"`)].join('\n'));
    const source = sources.get('names', connection('csv', { names: join(root, 'names') }));
    const { errors, value } = await measure(source, 'names', 'people', [{ id: 'names', sensorName: 'column/patterns/text_not_matching_name_pattern_percent', column: 'name' }]);
    expect(errors).toEqual(new Map());
    expect(value('names')).toBe(50);
  });
});

describe('bad input on DuckDB', () => {
  it('prepare() opens the database ahead without failing; an unresolvable folder fails the first query with the reason, then the fixed env opens it', async () => {
    const env: Record<string, string | undefined> = {};
    const own = new DataSources({ env });
    try {
      const spec = connection('csv', { landing: '${DQCTL_TEST_LANDING}' });
      const source = own.get('later', spec);
      source.prepare();
      await expect(source.query('select 1 as one')).rejects.toThrow(/DQCTL_TEST_LANDING/);
      env.DQCTL_TEST_LANDING = join(root, 'csv');
      source.prepare();
      expect(await source.query('select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await own.close();
    }
  });

  it('a missing folder is a clear error of that table; the other tables of the connection still run', async () => {
    const source = sources.get('bad_folder', connection('csv', { landing: join(root, 'csv'), gone: join(root, 'no-such-folder') }));
    const missing = await measure(source, 'gone', 'orders', [{ id: 'rows', sensorName: 'table/volume/row_count' }]);
    expect(missing.errors.get('rows')).toMatch(/connection "bad_folder": the table does not exist on the data source \(IO Error: No files found/);
    const present = await measure(source, 'landing', 'orders', [{ id: 'rows', sensorName: 'table/volume/row_count' }]);
    expect(present.value('rows')).toBe(5);
  });

  it('a schema without a folder and a table without file_paths is refused with the reason', async () => {
    const source = sources.get('no_dir', connection('csv', {}));
    await expect(source.sqlTarget('landing', 'orders')).rejects.toThrow(/the schema "landing" has no folder in duckdb.directories/);
  });

  it('a malformed CSV row fails the checks of its table with DuckDB\'s reason, not the process', async () => {
    const dir = join(root, 'malformed');
    await mkdir(join(dir, 'broken'), { recursive: true });
    // 50 good rows, then a row with two columns too many and an unterminated quote
    const good = Array.from({ length: 50 }, (_, i) => `${i + 1},${i + 1}`);
    await writeFile(join(dir, 'broken', 'a.csv'), ['id,amount', ...good, '51,5,6,7', '52,"unterminated'].join('\n'));
    await writeFile(join(dir, 'broken.csv'), ['id,amount', ...good].join('\n'));
    const source = sources.get('malformed', { provider_type: 'duckdb', duckdb: { read_mode: 'files', files_format_type: 'csv', directories: { landing: dir }, csv: { header: true, delim: ',' } } });
    const { errors } = await measure(source, 'landing', 'broken', [{ id: 'rows', sensorName: 'table/volume/row_count' }]);
    expect(errors.get('rows')).toMatch(/connection "malformed": the query failed on the data source \(Invalid Input Error: .*CSV/is);
    // a table named as its file (`broken.csv`) of the same folder still runs
    const fine = await measure(source, 'landing', 'broken.csv', [{ id: 'rows', sensorName: 'table/volume/row_count' }]);
    expect(fine.value('rows')).toBe(50);
  });

  it('a file of another format than the connection reads fails the checks of its table with the reason', async () => {
    const dir = join(root, 'wrong_format');
    await mkdir(join(dir, 'orders'), { recursive: true });
    // CSV text under a .parquet name
    await writeFile(join(dir, 'orders', 'part-0.parquet'), CSV);
    const source = sources.get('wrong_format', connection('parquet', { landing: dir, good: join(root, 'parquet') }));
    const { errors } = await measure(source, 'landing', 'orders', [
      { id: 'rows', sensorName: 'table/volume/row_count' },
      { id: 'nulls', sensorName: 'column/nulls/null_count', column: 'name' },
    ]);
    expect(errors.get('rows')).toMatch(/connection "wrong_format": the query failed on the data source \(.*(parquet|magic)/i);
    expect(errors.get('nulls')).toBe(errors.get('rows'));
    const good = await measure(source, 'good', 'orders', [{ id: 'rows', sensorName: 'table/volume/row_count' }]);
    expect(good.value('rows')).toBe(5);
  });

  it('hostile file and column names are quoted: a quote and a semicolon in the file name, quotes in a column', async () => {
    const dir = join(root, "host'ile; drop");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "o'rders; select 1.csv"), 'id,"we""ird col"\n1,a\n2,\n');
    const source = sources.get('hostile', connection('csv', { landing: dir }));
    const { errors, value } = await measure(source, 'landing', "o'rders; select 1.csv", [{ id: 'nulls', sensorName: 'column/nulls/null_count', column: 'we"ird col' }]);
    expect(errors).toEqual(new Map());
    expect(value('nulls')).toBe(1);
  });

  it('file_paths of the table file name its files; a remote path without httpfs is a clear error, never a crash', async () => {
    const source = sources.get('listed', connection('csv', { landing: join(root, 'csv') }));
    const listed = await measure(source, 'landing', 'any_name', [{ id: 'rows', sensorName: 'table/volume/row_count' }], {
      file_format: { csv: { header: true, allow_quoted_nulls: false }, file_paths: ['orders/part-1.csv', join(root, 'csv', 'orders', 'part-1.csv')] },
    });
    expect(listed.value('rows')).toBe(10);
    const remote = await measure(source, 'landing', 'lake', [{ id: 'rows', sensorName: 'table/volume/row_count' }], { file_format: { file_paths: ['s3://dqctl-test-bucket/lake/x.csv'] } });
    expect(remote.errors.get('rows')).toMatch(/remote files need DuckDB's httpfs extension/);
  });
});

describe('the newest event timestamp on DuckDB', () => {
  const freshness: SensorRequest[] = [{ id: 'freshness', sensorName: 'table/timeliness/data_freshness' }];
  const newestFirst = 'CAST(extract(epoch from ($1::TIMESTAMPTZ - (max(analyzed_table."created_at"))::timestamp))';

  async function readout(source: DataSource, request: Parameters<typeof planSensorQueries>[0]) {
    const [query] = planSensorQueries(request).queries;
    return { text: query!.text, value: query!.parse(await source.query(query!.text, query!.values)).get('freshness')?.[0]?.actualValue };
  }

  it.each(['csv', 'json', 'parquet'] as const)('without a type snapshot, %s files typed as timestamps give the newest value before the cast: the same readout', async (format) => {
    const source = sources.get(`files_${format}`, connection(format, { landing: join(root, format) }));
    const target = await source.sqlTarget('landing', 'orders');
    const request = { schema: 'landing', table: 'orders', sensors: freshness, now: NOW, timestampColumns: { eventTimestampColumn: 'created_at' }, ...target };
    expect(sourceColumnTypesWanted(request)).toBe(true);
    const types = await target.describeColumns!();
    expect(types?.created_at).toBe('TIMESTAMP');
    const typed = { ...request, sourceColumnTypes: types };
    expect(sourceColumnTypesWanted(typed)).toBe(false);
    const perRow = await readout(source, request);
    const newest = await readout(source, typed);
    expect(perRow.text).toContain('max((analyzed_table."created_at")::timestamp)');
    expect(newest.text).toContain(newestFirst);
    expect([perRow.value, newest.value]).toEqual([2, 2]);
  });

  it('a timestamp with time zone (Parquet) takes the newest first too; a snapshot or a text column keeps DQOps\'s reading', async () => {
    const dir = join(root, 'zoned');
    await mkdir(join(dir, 'events'), { recursive: true });
    const writer = sources.get('zoned', connection('parquet', { landing: dir }));
    await writer.query(`copy (select * from (values (timestamptz '2024-01-03 11:00:00+00'), (timestamptz '2024-01-04 00:00:00+00'), (null)) as t(created_at)) to '${join(dir, 'events', 'part-1.parquet').replaceAll("'", "''")}' (format parquet)`);
    const target = await writer.sqlTarget('landing', 'events');
    const request = { schema: 'landing', table: 'events', sensors: freshness, now: NOW, timestampColumns: { eventTimestampColumn: 'created_at' }, ...target };
    const types = await target.describeColumns!();
    expect(types).toEqual({ created_at: 'TIMESTAMP WITH TIME ZONE' });
    const newest = await readout(writer, { ...request, sourceColumnTypes: types });
    expect(newest.text).toContain(newestFirst);
    expect([(await readout(writer, request)).value, newest.value]).toEqual([1.5, 1.5]);
    // a snapshot decides the reading, as in DQOps's template: no source types wanted
    expect(sourceColumnTypesWanted({ ...request, columnTypes: { created_at: 'TIMESTAMP WITH TIME ZONE' } })).toBe(false);
    // text does not keep the order of time ('9 May' > '10 May'): each value is cast, then the newest taken
    const text = planSensorQueries({ ...request, sourceColumnTypes: { created_at: 'VARCHAR' } }).queries[0]!.text;
    expect(text).toContain('max((analyzed_table."created_at")::timestamp)');
  });
});
