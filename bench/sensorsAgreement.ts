/**
 * `npm run bench:sensors`: for every sensor with a PostgreSQL definition that the built-in checks of the catalog
 * use, dqctl's query and DQOps's own query (its PostgreSQL Jinja2 template rendered with its dialect macros) run on
 * the same tricky tables of a scratch PostgreSQL database; prints, per sensor, the cases where the readouts differ
 * and the figure "PostgreSQL sensors agreeing with DQOps: N of M", and writes a section to BENCHMARKS.md.
 *
 * DQOps's templates are read at run time from the mirrored dqops/dqo repository (`git archive` of home/sensors into
 * a temporary folder); nothing of DQOps is stored here. bench/sensorsReference.py renders them as DQOps's template
 * runner does (Jinja2, ChainableUndefined) with a minimal context modelled on DQOps's JinjaTemplateRenderParameters:
 * the connection's database, the table's columns with their type snapshots and timestamp_columns, the target table,
 * the column name, the sensor's parameters with the catalog's defaults, PostgreSQL's dialect settings; no filter.
 * Each case also runs, where DQOps's provider file of the sensor allows it, as DQOps runs it on a table with a data
 * grouping (`effective_data_groupings`: level_1 from the column g) and as a daily partitioned check
 * (`effective_time_series` over the day column pd, `effective_time_window_filter` of the 7 days before today),
 * against dqctl's query with the same grouping and partitioning: readouts are then matched by data group and day.
 * (DQOps gives a template no time series for profiling and monitoring checks: those run as the plain case.)
 * Needs python3 with jinja2 (DQOPS_PYTHON to choose the interpreter; Debian: python3-jinja2); without the mirror or
 * jinja2 the bench says so and exits 0. Cases where dqctl deviates on purpose (DELIBERATE) are counted apart.
 *
 * Each case runs both queries in one read-only transaction, so DQOps's CURRENT_TIMESTAMP and the `now` bound into
 * dqctl's query are the same instant (to the millisecond pg gives a Date). A case agrees when the readouts (actual
 * and expected value of every row, rounded to 5 decimals) are equal. When DQOps's own query fails (the template does
 * not render, or PostgreSQL rejects the SQL), the case is counted apart and listed: it does not make the sensor
 * disagree (but a sensor needs at least one equal case to agree). `table_availability` is DQOps Java code over its template (TableAvailabilitySensorRunner): its readout
 * is 0 when the probe returns a row, 1 when it returns none or fails; the bench applies that rule to the template's
 * result. The six schema sensors are DQOps Java code without a template and are not compared.
 *
 *   npm run bench:sensors                            # all sensors, writes BENCHMARKS.md
 *   npm run bench:sensors -- --sensor whitespace/    # sensors whose name contains the text (no BENCHMARKS.md)
 *   npm run bench:sensors -- --verbose               # every differing case with both values and the query error
 *   DQOPS_MIRROR (default /work/.mirror/dqops+dqo/repo); server: TEST_DATABASE_URL, else
 *   postgres://postgres@127.0.0.1:5432/postgres (a scratch database is created and dropped)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { getCheckCatalog, type CatalogSensor } from '../src/catalog/index.js';
import { planSensorQueries, quoteIdent, type SensorReadout, type TableQueryRequest } from '../src/datasource/sensors/index.js';
import type { JsonValue } from '../src/model/index.js';
import { writeBenchmarkSection } from './benchmarksFile.js';

const MIRROR = process.env.DQOPS_MIRROR ?? '/work/.mirror/dqops+dqo/repo';
const PYTHON = process.env.DQOPS_PYTHON ?? 'python3';
const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'sensor_bench';
const SECTION_START = '<!-- bench/sensorsAgreement.ts: sensors agreeing with DQOps (start) -->';
const SECTION_END = '<!-- bench/sensorsAgreement.ts: sensors agreeing with DQOps (end) -->';

// ---------------------------------------------------------------------------------------------------------------
// The tables

/** The tricky texts: missing and blank values, case, unicode, and numbers, dates, codes in many layouts. */
const TRICKY_TEXTS: Array<string | null> = [
  null, null, '', ' ', '   ', '\t', '\n', 'a\tb', '\u00a0', '\u00a0x\u00a0', 'line\r\nbreak',
  'abc', 'ABC', 'Abc', ' abc', 'abc ', ' abc ', 'a  b', 'hello world', 'one two  three',
  'NULL', 'null', ' NULL ', 'None', 'n/a', 'N/A', 'na', '-', '""', "''", "\\'\\'", '#N/D', 'blank', 'Empty', 'missing', 'NaN', 'undefined',
  'Zoë Ünal', 'Łódź', '日本語', 'émilie', "O'Brien", 'Anne-Marie', 'Dr.', 'R2D2', 'John Smith', 'john  smith',
  '1', '42', ' 42 ', '-7', '+7', '3.14', '1,5', '-.5', '1e5', '1.5E-3', '0', '007', '12 345',
  'true', 'false', 'TRUE', 'No', 'yes', 'Y', 'f', 'T',
  '2024-01-31', '2024-13-01', '2024-02-30', '2024-02-29', '2023-02-29', '31/01/2024', '01/31/2024', '31-01-2024',
  '31.01.2024', '31-12.2024', '2024/01/31', 'January 5, 2024', 'Feb 5, 2024', 'may 1, 2020', '5 Jan 2024', '24-01-31',
  '2024-01-31 10:00:00', '2024-01-31T10:00:00Z', '31/12/2024 23:59:59 pm', '1599-01-01',
  'a@b.com', 'john.doe+x@sub.example.co.uk', 'a@b.museum', 'A@B.CO', 'bad@', '@b.com', 'a b@c.com',
  '123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000', '123e4567 e89b 12d3 a456 426614174000', 'not-a-uuid',
  '192.168.0.1', '10.0.0.01', '256.1.1.1', '1.2.3', '2001:db8::1', '::1', 'fe80::', '1:2:3:4:5:6:7:8:9',
  '(555) 123-4567', '+1 555.123.4567', '001 212 555 0000', '555-1234', '12345', '12345-6789', '1234',
  'US', 'us', ' GB', 'XK', 'XX', 'USD', 'eur', '€', 'zł', 'ABC ',
  'call 555-123-4567 now', 'mail me at a@b.com', 'from 10.1.2.3:80', 'NY 10001', 'addr 2001:db8::1 here', 'std::vector',
];

/** One-type subsets of the tricky texts (each with a NULL and a few near misses), one table each. */
const TEXT_SUBSETS: Record<string, Array<string | null>> = {
  emails: ['a@b.com', 'john.doe+x@sub.example.co.uk', 'a@b.museum', 'A@B.CO', 'bad@', 'x@y', null, 'ab@cd.info'],
  uuids: ['123e4567-e89b-12d3-a456-426614174000', '123E4567E89B12D3A456426614174000', '123e4567 e89b 12d3 a456 426614174000', 'not-a-uuid', null],
  ips: ['192.168.0.1', '255.255.255.255', '10.0.0.01', '256.1.1.1', '1.2.3', '2001:db8::1', '::1', 'fe80::', '::', '12345::', 'gggg::1', null],
  phones: ['(555) 123-4567', '555-123-4567', '+1 555.123.4567', '5551234567', '001 212 555 0000', '555-1234', 'call me', null],
  zips: ['12345', '12345-6789', '1234', '123456', 'ABCDE', '12345-67', ' 12345', null],
  codes: ['US', 'PL', 'us', ' GB', 'XK', 'XX', 'AN', 'USD', 'eur', '€', 'zł', 'ABC', 'PLN', null],
  numbers_text: ['1', '42', ' 42 ', '-7', '3.14', '1,5', '-.5', '1e5', '0', '007', 'abc', '', null],
  dates_text: ['2024-01-31', '2024-13-01', '2024-02-29', '2023-02-29', '31/01/2024', '01/31/2024', '31-01-2024', '31.01.2024', '2024/01/31', 'January 5, 2024', 'Feb 5, 2024', '2024-01-31 10:00:00', '99-12-31', null],
};

/** Typed rows; times relative to now() so the future and timeliness sensors see fresh data. */
const TYPED_ROWS = [
  `(1, 1, 1.5, 0.25, true, date '2024-01-01', timestamp '2024-01-01 10:00', timestamptz '2024-01-01 10:00+00')`,
  `(2, -5, -2.75, -91.5, false, date '1800-01-01', timestamp '1900-01-01 00:00', timestamptz '2100-01-01 00:00+02')`,
  `(3, 0, 0, 0, true, date '2100-06-01', timestamp '2099-12-30 23:59:59', timestamptz '1900-01-02 00:00+00')`,
  `(4, 90, 90, 90, true, current_date, localtimestamp - interval '1 hour', now() - interval '1 minute')`,
  `(5, 181, 180.5, -180, false, current_date + 2, localtimestamp + interval '3 days', now() + interval '1 day 1 hour')`,
  `(6, null, null, null, null, null, null, null)`,
  `(7, 3, 3.3333, 1e10, true, current_date + 1, localtimestamp + interval '10 minutes', now() + interval '2 days')`,
  `(8, 3, 3.3333, -0.000001, null, date '2024-02-29', timestamp '2024-02-29 12:00', timestamptz '2024-02-29 12:00-05')`,
  `(9, -91, -180.0001, 180, false, date '1900-01-02', timestamp '1900-01-02 00:00', timestamptz '2099-12-30 00:00+00')`,
];

/** Records with repeated, all-NULL and case-different keys. */
const RECORD_ROWS = [
  `('a', 'x', 1)`, `('a', 'x', 1)`, `('a', 'x', 1)`, `('a', 'y', 1)`, `('A', 'x', 1)`, `('b', null, 2)`, `('b', null, 2)`,
  `(null, null, null)`, `(null, null, null)`, `(null, 'x', null)`, `(null, 'x', null)`, `('c', 'z', 3)`, `(' a', 'x', 1)`,
];

/** Events and ingestions: each as date, timestamp, timestamptz and text. */
const EVENT_TIMES = [
  [`now() - interval '2 days 3 hours'`, `now() - interval '1 day 2 hours 30 minutes'`],
  [`now() - interval '5 days 7 hours'`, `now() - interval '1 day 1 hour'`],
  [`now() - interval '40 days'`, `now() - interval '39 days 12 hours'`],
  [null, `now() - interval '3 hours'`],
  [`now() - interval '10 hours'`, null],
];

function fixtureStatements(): Array<{ text: string; values?: unknown[] }> {
  const s = SCHEMA;
  const statements: Array<{ text: string; values?: unknown[] }> = [{ text: `create schema ${s}` }];
  // Every table that the grouped and partitioned variants read has a grouping column g (two groups and a NULL
  // group) and a partition day (today, outside the window, and the three days before it) derived from the row
  // number: GROUP_AND_DAY.
  const textTable = (name: string, values: Array<string | null> | null, column = 'v'): void => {
    statements.push({ text: `create table ${s}.${quoteIdent(name)} (id integer, ${quoteIdent(column)} text, g text, ${PARTITION_OF.texts} date)` });
    if (values) statements.push({ text: `insert into ${s}.${quoteIdent(name)} select n, v, ${GROUP_AND_DAY('n')} from unnest($1::text[]) with ordinality as t(v, n)`, values: [values] });
  };
  textTable('texts', TRICKY_TEXTS);
  for (const [name, values] of Object.entries(TEXT_SUBSETS)) textTable(name, values);
  // Names that need quoting on both sides: mixed case, a space, a double quote, unicode.
  textTable(ODD_TABLE, TRICKY_TEXTS, ODD_COLUMN);
  textTable('texts_empty', null);
  textTable('texts_nulls', [null, null, null, null, null, null]);
  textTable('texts_same', ['abc', 'abc', 'abc', 'abc', 'abc', 'abc']);
  const typed = `id integer, i integer, n numeric(14,6), d double precision, b boolean, dt date, ts timestamp, tz timestamptz, g text, ${PARTITION_OF.typed} date`;
  for (const name of TYPED_TABLES) statements.push({ text: `create table ${s}.${name} (${typed})` });
  const withGroupAndDay = (rows: string[]) => rows.map((row, index) => `${row.slice(0, -1)}, ${GROUP_AND_DAY(String(index + 1))})`);
  statements.push({ text: `insert into ${s}.typed values ${withGroupAndDay(TYPED_ROWS).join(', ')}` });
  statements.push({ text: `insert into ${s}.typed_nulls (id, g, ${PARTITION_OF.typed}) select n, ${GROUP_AND_DAY('n')} from generate_series(1, 6) as n` });
  // all-equal values: one row repeated (a constant column, one top value, no spread)
  statements.push({ text: `insert into ${s}.typed_same values ${withGroupAndDay(Array.from({ length: 6 }, () => SAME_TYPED_ROW)).join(', ')}` });
  statements.push({ text: `create table ${s}.typed_ref (id integer, i integer, n numeric(14,6), d double precision)` });
  statements.push({ text: `insert into ${s}.typed_ref values (1, 10, 2.5, 0.5), (2, -5, -2.75, null), (3, null, 7, 1e10), (4, 3, 3.3333, -91.5)` });
  statements.push({ text: `create table ${s}.records (a text, b text, c integer, g text, ${PARTITION_OF.records} date)` });
  statements.push({ text: `insert into ${s}.records values ${withGroupAndDay(RECORD_ROWS).join(', ')}` });
  statements.push({ text: `create table ${s}.foreign_keys (k text, ki integer)` });
  statements.push({ text: `insert into ${s}.foreign_keys values ('a', 1), ('a', 1), ('b', 2), ('US', 90), ('abc', 3), (null, null), ('c', 0), ('1', -5)` });
  const events = 'id integer, ev_date date, ev_ts timestamp, ev_tz timestamptz, ev_text text, in_date date, in_ts timestamp, in_tz timestamptz, in_text text';
  for (const name of ['events', 'events_empty']) statements.push({ text: `create table ${s}.${name} (${events})` });
  const asTypes = (time: string | null): string =>
    time === null ? 'null, null, null, null' : `(${time})::date, (${time})::timestamp, ${time}, to_char((${time})::timestamp, 'YYYY-MM-DD HH24:MI:SS')`;
  statements.push({ text: `insert into ${s}.events values ${EVENT_TIMES.map(([event, ingestion], index) => `(${index + 1}, ${asTypes(event)}, ${asTypes(ingestion)})`).join(', ')}` });
  return statements;
}

const TEXT_TABLES = ['texts', ...Object.keys(TEXT_SUBSETS), 'texts_empty', 'texts_nulls', 'texts_same'];
const ODD_TABLE = 'Odd "Table"';
const ODD_COLUMN = 'Välue "q"';
const TYPED_TABLES = ['typed', 'typed_empty', 'typed_nulls', 'typed_same'];
/** A typed row whose every value is also in TYPED_ROWS (the all-equal table repeats it). */
const SAME_TYPED_ROW = `(3, 3, 3.3333, 1.5, true, date '2024-02-29', timestamp '2024-02-29 12:00', timestamptz '2024-02-29 12:00+00')`;

/** The partition day column of each kind of table (the typed tables have a `d` already). */
const PARTITION_OF = { texts: 'pd', typed: 'pd', records: 'pd' } as const;
/** Row n's group (x, y or NULL) and partition day (today, then 1, 2 and 3 days ago). */
const GROUP_AND_DAY = (n: string): string => `(array['x', 'y', null])[${n} % 3 + 1], current_date - (${n} % 4)::integer`;
/** The tables whose cases also run grouped by g and partitioned by day. */
const VARIANT_TABLES = new Set([...TEXT_TABLES, ODD_TABLE, ...TYPED_TABLES, 'records']);

// ---------------------------------------------------------------------------------------------------------------
// The cases

interface Case {
  sensor: string;
  table: string;
  column?: string;
  /** The sensor's parameters as written in a check (the catalog's defaults are added to both sides). */
  parameters: Record<string, JsonValue>;
  /** Type snapshots that differ from the imported ones (pg_type names), e.g. `DATE` upper-cased. */
  types?: Record<string, string>;
  timestamps?: { event: string; ingestion: string };
  /**
   * How DQOps runs the sensor besides on the whole table: grouped by the data grouping level `g` (one readout per
   * group; DQOps adds GROUP BY), or as a daily partitioned check over `pd` (one readout per day of the last 7,
   * today excluded; DQOps's time series adds GROUP BY time_period). A group or day without a row gives no readout.
   */
  variant?: 'grouped' | 'partitioned';
}

function label(item: Case): string {
  const parts = [`${item.table}${item.column ? `.${item.column}` : ''}`];
  if (item.variant) parts.push(item.variant === 'grouped' ? 'grouped by g' : 'partitioned by day');
  if (Object.keys(item.parameters).length > 0) parts.push(JSON.stringify(item.parameters));
  if (item.timestamps) parts.push(`event ${item.timestamps.event}, ingestion ${item.timestamps.ingestion}`);
  if (item.types) parts.push(`types ${JSON.stringify(item.types)}`);
  return parts.join(' ');
}

const onColumns = (sensor: string, columns: Array<[string, string]>, parameterSets: Array<Record<string, JsonValue>> = [{}], types?: (column: string) => Record<string, string> | undefined): Case[] =>
  columns.flatMap(([table, column]) =>
    parameterSets.map((parameters) => {
      const snapshot = types?.(column);
      return { sensor, table, column, parameters, ...(snapshot ? { types: snapshot } : {}) };
    }),
  );

const textColumns = (): Array<[string, string]> => [...TEXT_TABLES.map((table): [string, string] => [table, 'v']), [ODD_TABLE, ODD_COLUMN]];
const typedColumns = (names: string[]): Array<[string, string]> => TYPED_TABLES.flatMap((table) => names.map((column) => [table, column] as [string, string]));
const everyColumn = (): Array<[string, string]> => [
  ...textColumns(),
  ...typedColumns(['i', 'n', 'd', 'b', 'dt', 'ts', 'tz']),
  ['records', 'a'], ['records', 'b'], ['records', 'c'],
];
const NUMERIC = ['i', 'n', 'd'];
const TIMES = ['dt', 'ts', 'tz'];
/** The same time column under the names DQOps's dialect tests for (upper case) besides the imported ones. */
const TIME_SNAPSHOTS: Record<string, string[]> = {
  dt: ['DATE'],
  ts: ['TIMESTAMP', 'TIMESTAMP WITHOUT TIME ZONE'],
  tz: ['TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE'],
  ev_date: ['DATE'], in_date: ['DATE'],
  ev_ts: ['TIMESTAMP'], in_ts: ['TIMESTAMP WITHOUT TIME ZONE'],
  ev_tz: ['TIMESTAMPTZ'], in_tz: ['TIMESTAMP WITH TIME ZONE'],
  ev_text: ['TEXT'], in_text: ['TEXT'],
};

function timeCases(sensor: string, parameterSets: Array<Record<string, JsonValue>>): Case[] {
  return typedColumns(TIMES).flatMap(([table, column]) =>
    [undefined, ...TIME_SNAPSHOTS[column]!].flatMap((type) => onColumns(sensor, [[table, column]], parameterSets, () => (type ? { [column]: type } : undefined))),
  );
}

function timelinessCases(sensor: string): Case[] {
  const pairs: Array<[string, string]> = [
    ['ev_date', 'in_date'], ['ev_ts', 'in_ts'], ['ev_tz', 'in_tz'], ['ev_text', 'in_text'],
    ['ev_date', 'in_tz'], ['ev_tz', 'in_ts'], ['ev_ts', 'in_date'], ['ev_text', 'in_tz'],
  ];
  const cases: Case[] = [];
  for (const table of ['events', 'events_empty']) {
    for (const [event, ingestion] of pairs) {
      const snapshots: Array<Record<string, string> | undefined> = [undefined, { [event]: TIME_SNAPSHOTS[event]![0]!, [ingestion]: TIME_SNAPSHOTS[ingestion]![0]! }];
      if (TIME_SNAPSHOTS[ingestion]![0] !== TIME_SNAPSHOTS[event]![0]) snapshots.push({ [event]: TIME_SNAPSHOTS[event]![0]! }); // one upper-cased, one as imported
      for (const types of snapshots) cases.push({ sensor, table, parameters: {}, timestamps: { event, ingestion }, ...(types ? { types } : {}) });
    }
  }
  return cases;
}

/** Conditions and expressions that fit every column type (texts and booleans too); numeric ones only on numbers. */
const CONDITIONS_ON_COLUMN = ["{column}::text > '1'", "{column}::text like '%a%'", '{alias}.id > 3', "{column}::text = '3' or null", 'true', 'false', 'null'];
const NUMERIC_CONDITIONS = ['{column} > 0', '{column} = 3 or null'];
const CONDITIONS_ON_TABLE = ['{alias}.i > 0', "{alias}.b", '{alias}.id > 3 and {alias}.n < 100', 'null', "(select count(*) from {table}) > 5"];
const EXPRESSIONS_ON_COLUMN = ['count(distinct {column})', 'max(length({column}::text))', 'sum(length({column}::text)) / nullif(count(*), 0)'];
const NUMERIC_EXPRESSIONS = ['max({column}) - min({column})', 'sum({column}) / nullif(count(*), 0)'];
const EXPRESSIONS_ON_TABLE = ['count(*)', 'max({alias}.i) + 1', 'avg({alias}.d)'];

function casesOf(sensor: string): Case[] {
  const [target, category, name] = sensor.split('/') as [string, string, string];
  if (target === 'table') return tableCasesOf(sensor, category, name);
  switch (category) {
    case 'nulls':
    case 'uniqueness':
      return onColumns(sensor, everyColumn());
    case 'numeric':
      if (name === 'percentile') return onColumns(sensor, typedColumns(NUMERIC), [{}, { percentile_value: 0.1 }, { percentile_value: 0.95 }]);
      if (name === 'integer_in_range_percent') return onColumns(sensor, typedColumns(NUMERIC), [{}, { min_value: 0 }, { max_value: 3 }, { min_value: -5, max_value: 90 }]);
      if (name === 'number_in_range_percent') return onColumns(sensor, typedColumns(NUMERIC), [{}, { min_value: 0.1 }, { max_value: 3.3333 }, { min_value: -91.5, max_value: 90 }]);
      if (/above_max|below_min/.test(name)) {
        const parameter = name.includes('above') ? 'max_value' : 'min_value';
        return onColumns(sensor, typedColumns(NUMERIC), [{}, { [parameter]: 3 }, { [parameter]: -2.75 }]);
      }
      return onColumns(sensor, typedColumns(NUMERIC));
    case 'range':
      return onColumns(sensor, typedColumns(NUMERIC));
    case 'bool':
      return onColumns(sensor, typedColumns(['b']));
    case 'accuracy':
      return onColumns(sensor, typedColumns(NUMERIC), [
        { referenced_table: 'typed_ref', referenced_column: 'n' },
        { referenced_table: `${SCHEMA}.typed_ref`, referenced_column: 'd' },
        { referenced_table: 'typed_empty', referenced_column: 'i' },
      ]);
    case 'integrity':
      return [
        ...onColumns(sensor, [...textColumns(), ['records', 'a']], [{ foreign_table: 'foreign_keys', foreign_column: 'k' }]),
        ...onColumns(sensor, typedColumns(['i']), [{ foreign_table: `${SCHEMA}.foreign_keys`, foreign_column: 'ki' }]),
      ];
    case 'accepted_values':
      if (name.startsWith('expected_numbers') || name.startsWith('number_')) {
        return onColumns(sensor, typedColumns(NUMERIC), [{ expected_values: [1, 3, 90, 7] }, { expected_values: [-5] }, { expected_values: [] }]);
      }
      if (name === 'expected_texts_in_top_values_count') {
        return onColumns(sensor, [...textColumns(), ['records', 'a'], ['records', 'b']], [
          { expected_values: ['a', 'abc', 'x', 'US'], top: 3 },
          { expected_values: ['a', 'b'], top: 1 },
          { expected_values: ['null', ''], top: 10 },
          { expected_values: [], top: 2 },
        ]);
      }
      if (name.startsWith('expected_text') || name.startsWith('text_found')) {
        return onColumns(sensor, [...textColumns(), ['records', 'a']], [{ expected_values: ['abc', 'US', '', 'a', 'zz'] }, { expected_values: ['ABC'] }, { expected_values: [] }]);
      }
      return onColumns(sensor, textColumns());
    case 'datetime':
      if (name === 'date_in_range_percent') return timeCases(sensor, [{}, { min_date: '2024-01-01', max_date: '2024-12-31' }, { min_date: '1900-01-02' }]);
      if (name === 'date_values_in_future_percent') return timeCases(sensor, [{}, { max_future_days: 1 }, { max_future_days: 1.5 }, { max_future_days: -1 }]);
      return onColumns(sensor, textColumns(), allowed(sensor, 'date_format'));
    case 'patterns':
      if (name.includes('date_pattern')) return onColumns(sensor, textColumns(), allowed(sensor, 'date_format'));
      if (name.includes('regex')) return onColumns(sensor, textColumns(), [{ regex: '^[a-z]+$' }, { regex: '^[0-9]{3,}' }, { regex: '\\s' }, { regex: '^$' }]);
      return onColumns(sensor, textColumns());
    case 'custom_sql':
      if (name === 'import_custom_result') {
        return onColumns(sensor, [['typed', 'i'], ['texts', 'v'], ['typed_empty', 'n']], [
          { sql_query: 'select count({column_name}) as actual_value, count(*) as expected_value from {schema_name}.{table_name}' },
          { sql_query: 'select id::float8 / 3 as actual_value from {schema_name}.{table_name} where id < 5' },
        ]);
      }
      if (name === 'sql_invalid_value_count') {
        return onColumns(sensor, [['typed', 'i'], ['typed', 'd'], ['texts', 'v'], ['typed_empty', 'i'], ['typed_nulls', 'i']], [
          { sql_query: 'select {column} from {table} as {alias} where {column} is null' },
          { sql_query: "select {column} from {table} as {alias} where {column}::text like '%1%'" },
        ]);
      }
      {
        const sql = (list: string[]): Array<Record<string, JsonValue>> => list.map((text) => ({ [name === 'sql_aggregated_expression' ? 'sql_expression' : 'sql_condition']: text }));
        const [general, numeric] = name === 'sql_aggregated_expression' ? [EXPRESSIONS_ON_COLUMN, NUMERIC_EXPRESSIONS] : [CONDITIONS_ON_COLUMN, NUMERIC_CONDITIONS];
        return [
          ...onColumns(sensor, [['typed', 'i'], ['typed', 'n'], ['typed', 'b'], ['texts', 'v'], ['typed_empty', 'i'], ['typed_nulls', 'i']], sql(general)),
          ...onColumns(sensor, [['typed', 'i'], ['typed', 'd'], ['typed_empty', 'n'], ['typed_nulls', 'i']], sql(numeric)),
        ];
      }
    default:
      // conversions, datatype, pii, text, whitespace: text columns
      if (name === 'text_length_in_range_percent') return onColumns(sensor, textColumns(), [{}, { min_length: 0, max_length: 3 }, { min_length: 2, max_length: 2 }]);
      if (name.startsWith('text_length_above')) return onColumns(sensor, textColumns(), [{}, { max_length: 3 }]);
      if (name.startsWith('text_length_below')) return onColumns(sensor, textColumns(), [{}, { min_length: 1 }]);
      return onColumns(sensor, textColumns());
  }
}

function tableCasesOf(sensor: string, category: string, name: string): Case[] {
  const allTables = [...TEXT_TABLES, ODD_TABLE, ...TYPED_TABLES, 'records', 'foreign_keys', 'events', 'events_empty'];
  const on = (tables: string[], parameterSets: Array<Record<string, JsonValue>> = [{}]): Case[] => tables.flatMap((table) => parameterSets.map((parameters) => ({ sensor, table, parameters })));
  switch (category) {
    case 'volume':
    case 'availability':
      return on(category === 'availability' ? [...allTables, 'no_such_table'] : allTables);
    case 'accuracy':
      return on(['typed', 'typed_empty', 'records'], [{ referenced_table: 'typed_ref' }, { referenced_table: `${SCHEMA}.texts` }, { referenced_table: 'texts_empty' }]);
    case 'uniqueness':
      return [
        ...on(['records'], [{ columns: ['a'] }, { columns: ['a', 'b'] }, { columns: ['b', 'c'] }, { columns: [] }, { columns: ['c'] }]),
        ...on(['texts', 'foreign_keys', 'texts_nulls', 'texts_empty'], [{ columns: [] }]),
        ...on(['texts'], [{ columns: ['v'] }]),
        ...on(['typed', 'typed_nulls'], [{ columns: ['i', 'n'] }, { columns: [] }]),
      ];
    case 'timeliness':
      return timelinessCases(sensor);
    case 'custom_sql':
      if (name === 'import_custom_result') {
        return on(['typed', 'records', 'typed_empty'], [
          { sql_query: 'select count(*) as actual_value, 10 as expected_value from {schema_name}.{table_name}' },
          { sql_query: "select count(*) as actual_value from {schema_name}.{table_name} where {table_name}::text like '%a%'" },
        ]);
      }
      if (name === 'sql_invalid_record_count') {
        return on(['typed', 'typed_empty', 'typed_nulls'], [
          { sql_query: 'select * from {table} as {alias} where {alias}.i < 0 or {alias}.i is null' },
          { sql_query: 'select {alias}.id from {table} as {alias}' },
        ]);
      }
      if (name === 'sql_aggregated_expression') return on(['typed', 'typed_empty', 'typed_nulls'], EXPRESSIONS_ON_TABLE.map((sql_expression) => ({ sql_expression })));
      return on(['typed', 'typed_empty', 'typed_nulls'], CONDITIONS_ON_TABLE.map((sql_condition) => ({ sql_condition })));
    default:
      throw new Error(`no cases for ${sensor}`);
  }
}

function allowed(sensor: string, parameter: string): Array<Record<string, JsonValue>> {
  const values = getCheckCatalog().sensors.get(sensor)?.parameters.find((p) => p.name === parameter)?.allowedValues ?? [];
  return values.map((value) => ({ [parameter]: value }));
}

/** The catalog's defaults under the parameters a case sets (what a check gets when it sets none). */
function withDefaults(sensor: CatalogSensor, parameters: Record<string, JsonValue>): Record<string, JsonValue> {
  const full: Record<string, JsonValue> = {};
  for (const parameter of sensor.parameters) if (parameter.default !== null && parameter.default !== undefined) full[parameter.name] = parameter.default;
  return { ...full, ...parameters };
}

// ---------------------------------------------------------------------------------------------------------------
// Running both sides

/** One readout: its data group and partition day (null without grouping or partitioning), actual and expected value. */
type Row = [string | null, string | null, number | null, number | null];
/** The readout rows of one side, or the failure. */
type Outcome = { rows: Row[] } | { error: string };

/** A partition day as the pg driver gives a DATE or TIMESTAMP (local midnight): YYYY-MM-DD. */
function dayOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (!(value instanceof Date)) return String(value).slice(0, 10);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`;
}

/** A data group as dqctl names it: the grouping value, `null` for a NULL value. */
function groupOf(value: unknown): string {
  return value === null || value === undefined ? 'null' : String(value);
}

function numberOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

async function attempt<T>(client: pg.Client, work: () => Promise<T>): Promise<T | { error: string }> {
  await client.query('savepoint side');
  try {
    const result = await work();
    await client.query('release savepoint side');
    return result;
  } catch (error) {
    await client.query('rollback to savepoint side');
    return { error: firstLine(error) };
  }
}

async function runDqops(client: pg.Client, item: Case, rendered: { sql?: string; error?: string }): Promise<Outcome> {
  if (rendered.error !== undefined) return { error: `template: ${rendered.error.split('\n')[0]}` };
  const result = await attempt(client, async () => (await client.query(rendered.sql!)).rows as Record<string, unknown>[]);
  if (item.sensor === 'table/availability/table_availability') {
    // TableAvailabilitySensorRunner: a failure or no row is 1.0, a NULL readout 0.0, else the readout.
    if ('error' in result || result.length === 0) return { rows: [[null, null, 1, null]] };
    return { rows: [[null, null, numberOf(result[0]!.actual_value) ?? 0, null]] };
  }
  if ('error' in result) return result;
  return {
    rows: result.map((row) => [
      item.variant === 'grouped' ? groupOf(row.grouping_level_1) : null,
      item.variant === 'partitioned' ? dayOf(row.time_period) : null,
      numberOf(row.actual_value),
      numberOf(row.expected_value),
    ]),
  };
}

async function runDqctl(client: pg.Client, item: Case, request: TableQueryRequest): Promise<Outcome> {
  const plan = planSensorQueries(request);
  if (plan.rejected.length > 0) return { error: `rejected: ${plan.rejected.map((r) => r.reason).join('; ')}` };
  const readouts: SensorReadout[] = [];
  for (const query of plan.queries) {
    const result = await attempt(client, async () => query.parse((await client.query(query)).rows as Record<string, unknown>[]));
    if ('error' in result) {
      if (!query.parseError) return result;
      readouts.push(...(query.parseError(new Error(result.error)).get('s') ?? []));
    } else readouts.push(...(result.get('s') ?? []));
  }
  return {
    rows: readouts.map((readout) => [
      item.variant === 'grouped' ? readout.dataGroup : null,
      item.variant === 'partitioned' ? (readout.timePeriod ?? null) : null,
      readout.actualValue,
      readout.expectedValue ?? null,
    ]),
  };
}

const round5 = (value: number | null): number | null => (value === null ? null : Math.round(value * 1e5) / 1e5);

/** Equal rows after rounding to 5 decimals, order-free (grouped and partitioned sensors return many rows). */
function sameRows(a: Row[], b: Row[]): boolean {
  if (a.length !== b.length) return false;
  const key = (row: Row): string => JSON.stringify([row[0], row[1], round5(row[2]), round5(row[3])]);
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  return left.every((value, index) => value === right[index]) || closeRows(a, b);
}

/** Float noise at the 5th decimal's rounding edge (e.g. a millisecond of `now` in days): relative 1e-9. */
function closeRows(a: Row[], b: Row[]): boolean {
  if (a.length !== 1 || b.length !== 1) return false;
  const [left, right] = [a[0]!, b[0]!];
  if (left[0] !== right[0] || left[1] !== right[1]) return false;
  return [2, 3].every((index) => {
    const [value, other] = [left[index] as number | null, right[index] as number | null];
    if (value === null || other === null) return value === other;
    return Math.abs(value - other) <= 1e-9 * Math.max(1, Math.abs(value), Math.abs(other));
  });
}

const showRow = (row: Row): string => {
  const where = [row[0] === null ? '' : `group ${row[0]}`, row[1] === null ? '' : row[1]].filter(Boolean).join(' ');
  return `${where ? `${where}: ` : ''}${row[3] === null ? String(row[2]) : `${row[2]} (expected ${row[3]})`}`;
};
const show = (outcome: Outcome): string => ('error' in outcome ? `error: ${outcome.error}` : outcome.rows.map(showRow).sort().join(', ') || 'no rows');

// ---------------------------------------------------------------------------------------------------------------

/**
 * Where dqctl answers otherwise than DQOps's query on purpose (docs/sensors.md, "Deliberate deviations"): such a
 * case that differs is counted apart and listed with the reason, never as agreeing.
 */
const DELIBERATE: Array<{ sensor: string; applies: (item: Case) => boolean; why: string }> = [
  {
    sensor: 'table/uniqueness/duplicate_record_percent',
    applies: (item) => item.variant !== undefined,
    why: "grouped or partitioned, DQOps's query counts a key once per data group or day holding it (COUNT(*) OVER the key after grouping by key and group), so its percent falls below zero; dqctl gives the share of duplicate records within each group or day",
  },
  {
    sensor: 'column/accepted_values/expected_texts_in_top_values_count',
    applies: (item) => item.variant === 'partitioned' && Array.isArray(item.parameters.expected_values) && item.parameters.expected_values.length === 0,
    why: "with no expected values DQOps's query reads the table without its filters and time window (a NULL readout for every day the table holds, today's too); dqctl keeps them",
  },
];

interface SensorSummary {
  sensor: string;
  cases: number;
  same: number;
  dqopsFails: Array<{ label: string; error: string }>;
  differing: Array<{ label: string; dqops: string; dqctl: string }>;
  deliberate: Array<{ label: string; why: string }>;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const filter = args.includes('--sensor') ? args[args.indexOf('--sensor') + 1]! : '';
  const verbose = args.includes('--verbose');
  if (!existsSync(MIRROR)) {
    console.log(`skipped: no DQOps mirror at ${MIRROR}`);
    return 0;
  }
  if (spawnSync(PYTHON, ['-c', 'import jinja2']).status !== 0) {
    console.log(`skipped: ${PYTHON} has no jinja2 (apt-get install python3-jinja2)`);
    return 0;
  }
  const started = Date.now();
  const catalog = getCheckCatalog();
  const used = [...new Set([...catalog.checks.values()].map((check) => check.sensor))];
  const sensors = used.map((name) => catalog.sensors.get(name)!).filter((sensor) => sensor.postgresql).sort((a, b) => a.name.localeCompare(b.name));

  const home = mkdtempSync(join(tmpdir(), 'dqops-sensors-'));
  const url = new URL(SERVER);
  const database = `dqctl_sensors_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  // CREATE DATABASE takes no bind parameters; the name is generated above from hex digits only.
  await admin.query(`create database ${database} template template0`);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    execFileSync('sh', ['-c', `git -C "${MIRROR}" archive HEAD home/sensors 2>/dev/null | tar -x -C "${home}"`]);
    if (!existsSync(join(home, 'home/sensors/dialects/postgresql.sql.jinja2'))) throw new Error(`no DQOps sensor templates in ${MIRROR}`);
    const mirrorCommit = execFileSync('git', ['-C', MIRROR, 'rev-parse', 'HEAD']).toString().trim();
    const templateOf = (sensor: string): string => `${sensor}/postgresql.sql.jinja2`;
    const templated = sensors.filter((sensor) => existsSync(join(home, 'home/sensors', templateOf(sensor.name))));
    const javaOnly = sensors.filter((sensor) => !templated.includes(sensor));
    const compared = templated.filter((sensor) => sensor.name.includes(filter));

    await client.connect();
    await client.query("set time zone 'UTC'");
    await client.query('set statement_timeout = 60000');
    for (const statement of fixtureStatements()) await client.query(statement.text, statement.values ?? []);
    const imported = await client.query<{ table: string; column: string; type: string }>(
      `select c.relname as table, a.attname as column, t.typname as type
         from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace join pg_type t on t.oid = a.atttypid
        where n.nspname = $1 and a.attnum > 0 and not a.attisdropped order by c.relname, a.attnum`,
      [SCHEMA],
    );
    const snapshots = new Map<string, Record<string, string>>();
    for (const row of imported.rows) snapshots.set(row.table, { ...snapshots.get(row.table), [row.column]: row.type });

    // DQOps's provider file of the sensor says whether it may run grouped and partitioned
    const provider = (sensor: string): string => readFileSync(join(home, 'home/sensors', sensor, 'postgresql.dqoprovidersensor.yaml'), 'utf8');
    const variantsOf = (sensor: string): Array<'grouped' | 'partitioned'> => {
      if (sensor === 'table/availability/table_availability' || sensor.startsWith('table/timeliness/')) return [];
      const text = provider(sensor);
      return [
        ...(/supports_grouping:\s*false/.test(text) ? [] : ['grouped' as const]),
        ...(/supports_partitioned_checks:\s*false/.test(text) ? [] : ['partitioned' as const]),
      ];
    };
    const cases = compared.flatMap((sensor) => {
      const variants = variantsOf(sensor.name);
      return casesOf(sensor.name).flatMap((item) => {
        const base = { ...item, parameters: withDefaults(sensor, item.parameters) };
        return [base, ...(VARIANT_TABLES.has(item.table) ? variants.map((variant) => ({ ...base, variant })) : [])];
      });
    });
    const typesOf = (item: Case): Record<string, string> => ({ ...(snapshots.get(item.table) ?? {}), ...item.types });
    const contexts = cases.map((item) => ({
      template: templateOf(item.sensor),
      context: {
        connection: { provider_type: 'postgresql', postgresql: { database } },
        table: {
          columns: Object.fromEntries(Object.entries(typesOf(item)).map(([column, type]) => [column, { type_snapshot: { column_type: type } }])),
          ...(item.timestamps ? { timestamp_columns: { event_timestamp_column: item.timestamps.event, ingestion_timestamp_column: item.timestamps.ingestion } } : {}),
        },
        target_table: { schema_name: SCHEMA, table_name: item.table },
        ...(item.column ? { column: { type_snapshot: { column_type: typesOf(item)[item.column] } }, column_name: item.column } : {}),
        parameters: item.parameters,
        ...(item.variant === 'grouped' ? { effective_data_groupings: { level_1: { source: 'column_value', column: 'g' } } } : {}),
        ...(item.variant === 'partitioned'
          ? {
              effective_time_series: { mode: 'timestamp_column', timestamp_column: 'pd', time_gradient: 'day' },
              effective_time_window_filter: { daily_partitioning_recent_days: 7, daily_partitioning_include_today: false },
            }
          : {}),
        dialect_settings: { quote_begin: '"', quote_end: '"', quote_escape: '""', table_name_includes_database_name: false, supports_limit_clause: true },
        actual_value_alias: 'actual_value',
        expected_value_alias: 'expected_value',
      },
    }));
    const render = spawnSync(PYTHON, [join(import.meta.dirname, 'sensorsReference.py')], { input: JSON.stringify({ home: join(home, 'home'), cases: contexts }), maxBuffer: 1 << 30 });
    if (render.status !== 0) throw new Error(`sensorsReference.py failed: ${render.stderr.toString()}`);
    const rendered = JSON.parse(render.stdout.toString()) as Array<{ sql?: string; error?: string }>;

    const summaries = new Map<string, SensorSummary>(compared.map((sensor) => [sensor.name, { sensor: sensor.name, cases: 0, same: 0, dqopsFails: [], differing: [], deliberate: [] }]));
    for (const [index, item] of cases.entries()) {
      const summary = summaries.get(item.sensor)!;
      summary.cases += 1;
      await client.query('begin read only');
      let dqops: Outcome;
      let dqctl: Outcome;
      try {
        // One transaction: DQOps's CURRENT_TIMESTAMP and dqctl's bound `now` are the same instant.
        const now = (await client.query<{ now: Date }>('select now() as now')).rows[0]!.now;
        dqops = await runDqops(client, item, rendered[index]!);
        dqctl = await runDqctl(client, item, {
          schema: SCHEMA,
          table: item.table,
          sensors: [{ id: 's', sensorName: item.sensor, ...(item.column ? { column: item.column } : {}), parameters: item.parameters }],
          columnTypes: typesOf(item),
          ...(item.timestamps ? { timestampColumns: { eventTimestampColumn: item.timestamps.event, ingestionTimestampColumn: item.timestamps.ingestion } } : {}),
          ...(item.variant === 'grouped' ? { grouping: { columns: ['g'] } } : {}),
          ...(item.variant === 'partitioned' ? { partitioning: { column: 'pd', timeScale: 'daily' as const, window: { recentDays: 7, includeToday: false } } } : {}),
          now,
        });
      } finally {
        await client.query('commit');
      }
      const deliberate = DELIBERATE.find((d) => d.sensor === item.sensor && d.applies(item));
      if ('error' in dqops) summary.dqopsFails.push({ label: label(item), error: dqops.error });
      else if (!('error' in dqctl) && sameRows(dqops.rows, dqctl.rows)) summary.same += 1;
      else if (deliberate) summary.deliberate.push({ label: label(item), why: deliberate.why });
      else summary.differing.push({ label: label(item), dqops: show(dqops), dqctl: show(dqctl) });
    }

    let agreeing = 0;
    const lines: string[] = [];
    for (const summary of summaries.values()) {
      // A sensor whose every case fails in DQOps has shown nothing: it does not count as agreeing.
      const agrees = summary.differing.length === 0 && summary.same > 0;
      if (agrees) agreeing += 1;
      const fails =
        (summary.dqopsFails.length > 0 ? `, DQOps's query fails on ${summary.dqopsFails.length}` : '') +
        (summary.deliberate.length > 0 ? `, ${summary.deliberate.length} deliberate deviations` : '');
      lines.push(`${agrees ? 'agree ' : 'DIFFER'} ${summary.sensor}: ${summary.same} of ${summary.cases} cases equal${fails}${agrees ? '' : `, ${summary.differing.length} different`}`);
      const shown = verbose ? summary.differing : summary.differing.slice(0, 3);
      for (const difference of shown) lines.push(`    ${difference.label}\n      dqops: ${difference.dqops}\n      dqctl: ${difference.dqctl}`);
      if (shown.length < summary.differing.length) lines.push(`    … ${summary.differing.length - shown.length} more (--verbose)`);
      if (verbose) for (const failure of summary.dqopsFails) lines.push(`    DQOps fails: ${failure.label}: ${failure.error}`);
    }
    for (const line of lines) console.log(line);
    const figure = `PostgreSQL sensors agreeing with DQOps: ${agreeing} of ${compared.length}`;
    console.log(`${figure} (${cases.length} cases; ${javaOnly.length} sensors are DQOps Java code without a template and not compared: ${javaOnly.map((s) => s.name).join(', ')})`);

    if (filter === '') {
      const version = (await client.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
      const failing = [...summaries.values()].filter((s) => s.dqopsFails.length > 0);
      const deviating = [...summaries.values()].filter((s) => s.deliberate.length > 0);
      const variants = cases.filter((c) => c.variant !== undefined).length;
      const differing = [...summaries.values()].filter((s) => s.differing.length > 0);
      const section = [
        SECTION_START,
        '## PostgreSQL sensors agreeing with DQOps (`npm run bench:sensors`)',
        '',
        `**${figure}** (built-in checks' sensors with a PostgreSQL template; ${javaOnly.length} more are DQOps Java code without one: ${javaOnly.map((s) => `\`${s.name}\``).join(', ')}).`,
        '',
        `${cases.length} cases: dqctl's query and DQOps's own template (dqops/dqo ${mirrorCommit.slice(0, 12)}, rendered with Jinja2) on the same tables of a scratch PostgreSQL ${version} database; a case agrees when every readout (its data group and day, actual and expected value, rounded to 5 decimals) is equal. ${variants} of the cases run a sensor as DQOps runs it on a table with a data grouping (grouped by a column with two values and NULL) or as a daily partitioned check (the 7 days before today), each where DQOps's provider file allows it; the tricky tables include empty tables, all-NULL columns and all-equal values (texts_same, typed_same). Cases where DQOps's own query fails do not count against a sensor:`,
        '',
        ...(failing.length === 0 ? ['- none'] : failing.map((s) => `- \`${s.sensor}\`: ${s.dqopsFails.length} of ${s.cases} cases, e.g. ${s.dqopsFails[0]!.label}: ${s.dqopsFails[0]!.error}`)),
        '',
        'Deliberate deviations (docs/sensors.md), counted apart:',
        '',
        ...(deviating.length === 0 ? ['- none'] : deviating.map((s) => `- \`${s.sensor}\`: ${s.deliberate.length} of ${s.cases} cases (e.g. ${s.deliberate[0]!.label}): ${s.deliberate[0]!.why}`)),
        '',
        ...(differing.length === 0 ? [] : ['Sensors that differ:', '', ...differing.map((s) => `- \`${s.sensor}\`: ${s.differing.length} of ${s.cases} cases, e.g. ${s.differing[0]!.label}: DQOps ${s.differing[0]!.dqops}, dqctl ${s.differing[0]!.dqctl}`), '']),
        `Measured ${new Date().toISOString().slice(0, 10)} in ${((Date.now() - started) / 1000).toFixed(0)} s. Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end (a machine shared with other sessions: the time is not a speed figure).`,
        SECTION_END,
      ];
      await writeBenchmarkSection(section.join('\n'), SECTION_START, SECTION_END);
      console.log('BENCHMARKS.md updated');
    }
    return 0;
  } finally {
    await client.end().catch(() => {});
    await admin.query(`drop database if exists ${database} with (force)`);
    await admin.end();
    rmSync(home, { recursive: true, force: true });
  }
}

process.exitCode = await main();
