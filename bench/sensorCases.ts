/**
 * The cases of the sensor agreement benches (bench/sensorsAgreement.ts on PostgreSQL, bench/sensorsAgreementDialects.ts
 * on DuckDB files and MySQL/MariaDB): the tricky values of the fixture tables, and which sensor runs on which table
 * and column with which parameters. The fixture tables themselves are written per engine by each bench; the few
 * cases whose SQL or type names differ per engine take them from a `CaseDialect`.
 */
import { getCheckCatalog, type CatalogSensor } from '../src/catalog/index.js';
import type { JsonValue } from '../src/model/index.js';

export const SCHEMA = 'sensor_bench';

/** What differs between engines in the cases: conditions and expressions in the engine's SQL, type names. */
export interface CaseDialect {
  conditionsOnColumn: string[];
  numericConditions: string[];
  conditionsOnTable: string[];
  expressionsOnColumn: string[];
  numericExpressions: string[];
  expressionsOnTable: string[];
  /** import_custom_result's queries (column, then table). */
  customResultQueries: { column: string[]; table: string[] };
  /** sql_invalid_value_count's second query (a text match on the column). */
  invalidValueLike: string;
  /** The same time column under the type names DQOps's dialect tests for, besides the imported ones (first: events). */
  timeSnapshots: Record<string, string[]>;
}

// ---------------------------------------------------------------------------------------------------------------
// The tables

/** The tricky texts: missing and blank values, case, unicode, and numbers, dates, codes in many layouts. */
export const TRICKY_TEXTS: Array<string | null> = [
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
export const TEXT_SUBSETS: Record<string, Array<string | null>> = {
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
export const TYPED_ROWS = [
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

/** Records with repeated, all-NULL and case-different keys: (a, b, c). */
export const RECORD_ROWS_VALUES: Array<[string | null, string | null, number | null]> = [
  ['a', 'x', 1], ['a', 'x', 1], ['a', 'x', 1], ['a', 'y', 1], ['A', 'x', 1], ['b', null, 2], ['b', null, 2],
  [null, null, null], [null, null, null], [null, 'x', null], [null, 'x', null], ['c', 'z', 3], [' a', 'x', 1],
];
/** The same rows as PostgreSQL values lists. */
export const RECORD_ROWS = RECORD_ROWS_VALUES.map((row) => `(${row.map((v) => (v === null ? 'null' : typeof v === 'number' ? String(v) : `'${v}'`)).join(', ')})`);

/** Events and ingestions: each as date, timestamp, timestamptz and text. */
export const EVENT_TIMES = [
  [`now() - interval '2 days 3 hours'`, `now() - interval '1 day 2 hours 30 minutes'`],
  [`now() - interval '5 days 7 hours'`, `now() - interval '1 day 1 hour'`],
  [`now() - interval '40 days'`, `now() - interval '39 days 12 hours'`],
  [null, `now() - interval '3 hours'`],
  [`now() - interval '10 hours'`, null],
];


export const TEXT_TABLES = ['texts', ...Object.keys(TEXT_SUBSETS), 'texts_empty', 'texts_nulls', 'texts_same'];
export const ODD_TABLE = 'Odd "Table"';
export const ODD_COLUMN = 'Välue "q"';
export const TYPED_TABLES = ['typed', 'typed_empty', 'typed_nulls', 'typed_same'];

// ---------------------------------------------------------------------------------------------------------------
// The cases

export interface Case {
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

export function label(item: Case): string {
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
/** PostgreSQL's cases (bench/sensorsAgreement.ts). */
export const POSTGRESQL_CASES: CaseDialect = {
  /** Conditions and expressions that fit every column type (texts and booleans too); numeric ones only on numbers. */
  conditionsOnColumn: ["{column}::text > '1'", "{column}::text like '%a%'", '{alias}.id > 3', "{column}::text = '3' or null", 'true', 'false', 'null'],
  numericConditions: ['{column} > 0', '{column} = 3 or null'],
  conditionsOnTable: ['{alias}.i > 0', "{alias}.b", '{alias}.id > 3 and {alias}.n < 100', 'null', "(select count(*) from {table}) > 5"],
  expressionsOnColumn: ['count(distinct {column})', 'max(length({column}::text))', 'sum(length({column}::text)) / nullif(count(*), 0)'],
  numericExpressions: ['max({column}) - min({column})', 'sum({column}) / nullif(count(*), 0)'],
  expressionsOnTable: ['count(*)', 'max({alias}.i) + 1', 'avg({alias}.d)'],
  customResultQueries: {
    column: ['select count({column_name}) as actual_value, count(*) as expected_value from {schema_name}.{table_name}', 'select id::float8 / 3 as actual_value from {schema_name}.{table_name} where id < 5'],
    table: ['select count(*) as actual_value, 10 as expected_value from {schema_name}.{table_name}', "select count(*) as actual_value from {schema_name}.{table_name} where {table_name}::text like '%a%'"],
  },
  invalidValueLike: "select {column} from {table} as {alias} where {column}::text like '%1%'",
  /** Upper case, as DQOps's dialect tests them. */
  timeSnapshots: {
    dt: ['DATE'],
    ts: ['TIMESTAMP', 'TIMESTAMP WITHOUT TIME ZONE'],
    tz: ['TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE'],
    ev_date: ['DATE'], in_date: ['DATE'],
    ev_ts: ['TIMESTAMP'], in_ts: ['TIMESTAMP WITHOUT TIME ZONE'],
    ev_tz: ['TIMESTAMPTZ'], in_tz: ['TIMESTAMP WITH TIME ZONE'],
    ev_text: ['TEXT'], in_text: ['TEXT'],
  },
};

function timeCases(sensor: string, parameterSets: Array<Record<string, JsonValue>>, dialect: CaseDialect): Case[] {
  return typedColumns(TIMES).flatMap(([table, column]) =>
    [undefined, ...dialect.timeSnapshots[column]!].flatMap((type) => onColumns(sensor, [[table, column]], parameterSets, () => (type ? { [column]: type } : undefined))),
  );
}

function timelinessCases(sensor: string, dialect: CaseDialect): Case[] {
  const pairs: Array<[string, string]> = [
    ['ev_date', 'in_date'], ['ev_ts', 'in_ts'], ['ev_tz', 'in_tz'], ['ev_text', 'in_text'],
    ['ev_date', 'in_tz'], ['ev_tz', 'in_ts'], ['ev_ts', 'in_date'], ['ev_text', 'in_tz'],
  ];
  const cases: Case[] = [];
  for (const table of ['events', 'events_empty']) {
    for (const [event, ingestion] of pairs) {
      const snapshots: Array<Record<string, string> | undefined> = [undefined, { [event]: dialect.timeSnapshots[event]![0]!, [ingestion]: dialect.timeSnapshots[ingestion]![0]! }];
      if (dialect.timeSnapshots[ingestion]![0] !== dialect.timeSnapshots[event]![0]) snapshots.push({ [event]: dialect.timeSnapshots[event]![0]! }); // one upper-cased, one as imported
      for (const types of snapshots) cases.push({ sensor, table, parameters: {}, timestamps: { event, ingestion }, ...(types ? { types } : {}) });
    }
  }
  return cases;
}

export function casesOf(sensor: string, dialect: CaseDialect = POSTGRESQL_CASES): Case[] {
  const [target, category, name] = sensor.split('/') as [string, string, string];
  if (target === 'table') return tableCasesOf(sensor, category, name, dialect);
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
      if (name === 'date_in_range_percent') return timeCases(sensor, [{}, { min_date: '2024-01-01', max_date: '2024-12-31' }, { min_date: '1900-01-02' }], dialect);
      if (name === 'date_values_in_future_percent') return timeCases(sensor, [{}, { max_future_days: 1 }, { max_future_days: 1.5 }, { max_future_days: -1 }], dialect);
      return onColumns(sensor, textColumns(), allowed(sensor, 'date_format'));
    case 'patterns':
      if (name.includes('date_pattern')) return onColumns(sensor, textColumns(), allowed(sensor, 'date_format'));
      if (name.includes('regex')) return onColumns(sensor, textColumns(), [{ regex: '^[a-z]+$' }, { regex: '^[0-9]{3,}' }, { regex: '\\s' }, { regex: '^$' }]);
      return onColumns(sensor, textColumns());
    case 'custom_sql':
      if (name === 'import_custom_result') {
        return onColumns(sensor, [['typed', 'i'], ['texts', 'v'], ['typed_empty', 'n']], dialect.customResultQueries.column.map((sql_query) => ({ sql_query })));
      }
      if (name === 'sql_invalid_value_count') {
        return onColumns(sensor, [['typed', 'i'], ['typed', 'd'], ['texts', 'v'], ['typed_empty', 'i'], ['typed_nulls', 'i']], [
          { sql_query: 'select {column} from {table} as {alias} where {column} is null' },
          { sql_query: dialect.invalidValueLike },
        ]);
      }
      {
        const sql = (list: string[]): Array<Record<string, JsonValue>> => list.map((text) => ({ [name === 'sql_aggregated_expression' ? 'sql_expression' : 'sql_condition']: text }));
        const [general, numeric] = name === 'sql_aggregated_expression' ? [dialect.expressionsOnColumn, dialect.numericExpressions] : [dialect.conditionsOnColumn, dialect.numericConditions];
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

function tableCasesOf(sensor: string, category: string, name: string, dialect: CaseDialect): Case[] {
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
      return timelinessCases(sensor, dialect);
    case 'custom_sql':
      if (name === 'import_custom_result') {
        return on(['typed', 'records', 'typed_empty'], dialect.customResultQueries.table.map((sql_query) => ({ sql_query })));
      }
      if (name === 'sql_invalid_record_count') {
        return on(['typed', 'typed_empty', 'typed_nulls'], [
          { sql_query: 'select * from {table} as {alias} where {alias}.i < 0 or {alias}.i is null' },
          { sql_query: 'select {alias}.id from {table} as {alias}' },
        ]);
      }
      if (name === 'sql_aggregated_expression') return on(['typed', 'typed_empty', 'typed_nulls'], dialect.expressionsOnTable.map((sql_expression) => ({ sql_expression })));
      return on(['typed', 'typed_empty', 'typed_nulls'], dialect.conditionsOnTable.map((sql_condition) => ({ sql_condition })));
    default:
      throw new Error(`no cases for ${sensor}`);
  }
}

function allowed(sensor: string, parameter: string): Array<Record<string, JsonValue>> {
  const values = getCheckCatalog().sensors.get(sensor)?.parameters.find((p) => p.name === parameter)?.allowedValues ?? [];
  return values.map((value) => ({ [parameter]: value }));
}

/** The catalog's defaults under the parameters a case sets (what a check gets when it sets none). */
export function withDefaults(sensor: CatalogSensor, parameters: Record<string, JsonValue>): Record<string, JsonValue> {
  const full: Record<string, JsonValue> = {};
  for (const parameter of sensor.parameters) if (parameter.default !== null && parameter.default !== undefined) full[parameter.name] = parameter.default;
  return { ...full, ...parameters };
}
