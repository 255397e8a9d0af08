/**
 * `npm run bench:sensors:dialects`: bench/sensorsAgreement.ts for the other engines. For every built-in check's
 * sensor with a template for the provider, dqctl's query (planSensorQueries in the engine's dialect, run through
 * dqctl's own data source) and DQOps's own query (its `duckdb`, `mysql` or `mariadb` Jinja2 template rendered with
 * that provider's dialect macros by bench/sensorsReference.py) run on the same tricky tables, case by case (the
 * cases of bench/sensorCases.ts); prints per sensor the cases whose readouts differ and, per engine, "N of M
 * sensors agree"; writes a section to BENCHMARKS.md.
 *
 * The engines:
 * - `duckdb-parquet`, `duckdb-csv`, `duckdb-json`: the fixture tables written by DuckDB as files (one folder per
 *   table, as DQOps lays out a schema), read by a dqctl DuckDB connection in files mode; DQOps's template gets
 *   the same table function as its `table_from_files` (what DQOps renders from the table's file settings).
 * - `mariadb` and `mysql`: a private MariaDB server (test/helpers/mariadbServer.ts); dqctl connects with each
 *   provider (the `mysql` templates also run on MariaDB: the ones that need MySQL 8 functions fail there and are
 *   listed as DQOps failures). DQOps's query runs on a plain session as DQOps's JDBC driver opens one (the server's
 *   sql_mode, the database as default schema), with the same UTC time zone and the same binary collation as
 *   dqctl's sessions (so the comparison measures the SQL, not two collations; the collation is a documented
 *   deviation).
 *
 * The instant: DQOps's templates read CURRENT_TIMESTAMP; dqctl binds the run's start. On DuckDB, DQOps's query runs
 * in a transaction whose start (`now()`) is read first and bound into dqctl's query; on MariaDB, DQOps's session
 * sets `timestamp` to the whole second dqctl binds. A case agrees when every readout (actual and expected value,
 * rounded to 5 decimals) is equal; a case where DQOps's own query fails is counted apart and does not make the
 * sensor disagree (a sensor needs at least one equal case to agree). The fixture rows differ from PostgreSQL's only
 * where an engine cannot hold a value (MySQL's TIMESTAMP ends in 2038; those values move to 1970/2037).
 *
 *   npm run bench:sensors:dialects                               # every engine, writes BENCHMARKS.md
 *   npm run bench:sensors:dialects -- --engine mariadb           # one engine (no BENCHMARKS.md)
 *   npm run bench:sensors:dialects -- --sensor whitespace/ --verbose
 *   DQOPS_MIRROR (default /work/.mirror/dqops+dqo/repo), DQOPS_PYTHON (python3 with jinja2)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import { getCheckCatalog } from '../src/catalog/index.js';
import { DataSources, type DataSource, type DataSourceSession } from '../src/datasource/index.js';
import { planSensorQueries, type SensorReadout, type TableQueryRequest } from '../src/datasource/sensors/index.js';
import type { JsonObject } from '../src/model/index.js';
import { MARIADB_PASSWORD, MARIADB_USER, startMariadb, type MariadbServer } from '../test/helpers/mariadbServer.js';
import { writeBenchmarkSection } from './benchmarksFile.js';
import { casesOf, label, ODD_COLUMN, ODD_TABLE, RECORD_ROWS_VALUES, SCHEMA, TEXT_SUBSETS, TRICKY_TEXTS, withDefaults, type Case, type CaseDialect } from './sensorCases.js';

const MIRROR = process.env.DQOPS_MIRROR ?? '/work/.mirror/dqops+dqo/repo';
const PYTHON = process.env.DQOPS_PYTHON ?? 'python3';
const SECTION_START = '<!-- bench/sensorsAgreementDialects.ts: DuckDB and MySQL sensors agreeing with DQOps (start) -->';
const SECTION_END = '<!-- bench/sensorsAgreementDialects.ts: DuckDB and MySQL sensors agreeing with DQOps (end) -->';

type EngineName = 'duckdb-parquet' | 'duckdb-csv' | 'duckdb-json' | 'mariadb' | 'mysql';
const ENGINES: EngineName[] = ['duckdb-parquet', 'duckdb-csv', 'duckdb-json', 'mariadb', 'mysql'];
const TITLES: Record<EngineName, string> = {
  'duckdb-parquet': 'DuckDB, Parquet files',
  'duckdb-csv': 'DuckDB, CSV files',
  'duckdb-json': 'DuckDB, JSON files',
  mariadb: 'MariaDB (`mariadb` templates)',
  mysql: 'MySQL templates on MariaDB (`mysql`)',
};

// ---------------------------------------------------------------------------------------------------------------
// The tables, as values (the same rows as bench/sensorsAgreement.ts writes in PostgreSQL's SQL)

type Value = string | number | boolean | null | { date: string } | { timestamp: string } | { timestamptz: string };
type ColumnType = 'integer' | 'text' | 'decimal' | 'double' | 'boolean' | 'date' | 'timestamp' | 'timestamptz';
interface Table {
  name: string;
  columns: Array<[string, ColumnType]>;
  rows: Value[][];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (time: number): string => new Date(time).toISOString().replace('T', ' ').replace(/\.000Z$/, '').replace('Z', '');
const day = (time: number): string => new Date(time).toISOString().slice(0, 10);
const ts = (time: number): Value => ({ timestamp: iso(time) });
const tz = (time: number): Value => ({ timestamptz: `${iso(time)}+00` });
const date = (text: string): Value => ({ date: text });

function fixtureTables(now: number, mysqlTimestamps: boolean): Table[] {
  const today = Date.parse(`${day(now)}T00:00:00Z`);
  // MySQL's TIMESTAMP holds 1970-01-01 00:00:01 to 2038-01-19 only
  const instant = (text: string, fallback: string): Value => ({ timestamptz: mysqlTimestamps ? fallback : text });
  const textTable = (name: string, values: Array<string | null>): Table => ({ name, columns: [['id', 'integer'], ['v', 'text']], rows: values.map((v, index) => [index + 1, v]) });
  const typedColumns: Array<[string, ColumnType]> = [['id', 'integer'], ['i', 'integer'], ['n', 'decimal'], ['d', 'double'], ['b', 'boolean'], ['dt', 'date'], ['ts', 'timestamp'], ['tz', 'timestamptz']];
  const typedRows: Value[][] = [
    [1, 1, 1.5, 0.25, true, date('2024-01-01'), { timestamp: '2024-01-01 10:00:00' }, instant('2024-01-01 10:00:00+00', '2024-01-01 10:00:00+00')],
    [2, -5, -2.75, -91.5, false, date('1800-01-01'), { timestamp: '1900-01-01 00:00:00' }, instant('2100-01-01 00:00:00+02', '2037-12-31 22:00:00+00')],
    [3, 0, 0, 0, true, date('2100-06-01'), { timestamp: '2099-12-30 23:59:59' }, instant('1900-01-02 00:00:00+00', '1970-01-02 00:00:00+00')],
    [4, 90, 90, 90, true, date(day(today)), ts(now - HOUR), tz(now - 60_000)],
    [5, 181, 180.5, -180, false, date(day(today + 2 * DAY)), ts(now + 3 * DAY), tz(now + DAY + HOUR)],
    [6, null, null, null, null, null, null, null],
    [7, 3, 3.3333, 1e10, true, date(day(today + DAY)), ts(now + 10 * 60_000), tz(now + 2 * DAY)],
    [8, 3, 3.3333, -0.000001, null, date('2024-02-29'), { timestamp: '2024-02-29 12:00:00' }, instant('2024-02-29 17:00:00+00', '2024-02-29 17:00:00+00')],
    [9, -91, -180.0001, 180, false, date('1900-01-02'), { timestamp: '1900-01-02 00:00:00' }, instant('2099-12-30 00:00:00+00', '2037-12-30 00:00:00+00')],
  ];
  const eventTimes: Array<[number | null, number | null]> = [
    [2 * DAY + 3 * HOUR, DAY + 2.5 * HOUR],
    [5 * DAY + 7 * HOUR, DAY + HOUR],
    [40 * DAY, 39 * DAY + 12 * HOUR],
    [null, 3 * HOUR],
    [10 * HOUR, null],
  ];
  const asTypes = (ago: number | null): Value[] => (ago === null ? [null, null, null, null] : [date(day(now - ago)), ts(now - ago), tz(now - ago), iso(now - ago)]);
  const eventColumns: Array<[string, ColumnType]> = [['id', 'integer'], ...(['ev', 'in'] as const).flatMap((p): Array<[string, ColumnType]> => [[`${p}_date`, 'date'], [`${p}_ts`, 'timestamp'], [`${p}_tz`, 'timestamptz'], [`${p}_text`, 'text']])];
  return [
    textTable('texts', TRICKY_TEXTS),
    ...Object.entries(TEXT_SUBSETS).map(([name, values]) => textTable(name, values)),
    { name: ODD_TABLE, columns: [['id', 'integer'], [ODD_COLUMN, 'text']], rows: TRICKY_TEXTS.map((v, index) => [index + 1, v]) },
    textTable('texts_empty', []),
    textTable('texts_nulls', [null, null, null, null]),
    textTable('texts_same', ['abc', 'abc', 'abc', 'abc', 'abc', 'abc']),
    { name: 'typed', columns: typedColumns, rows: typedRows },
    { name: 'typed_empty', columns: typedColumns, rows: [] },
    { name: 'typed_nulls', columns: typedColumns, rows: [1, 2, 3, 4].map((id) => [id, null, null, null, null, null, null, null]) },
    // all-equal values (bench/sensorsAgreement.ts's typed_same): one row repeated
    { name: 'typed_same', columns: typedColumns, rows: [1, 2, 3, 4, 5, 6].map((id) => [id, 3, 3.3333, 1.5, true, date('2024-02-29'), { timestamp: '2024-02-29 12:00:00' }, instant('2024-02-29 12:00:00+00', '2024-02-29 12:00:00+00')]) },
    { name: 'typed_ref', columns: [['id', 'integer'], ['i', 'integer'], ['n', 'decimal'], ['d', 'double']], rows: [[1, 10, 2.5, 0.5], [2, -5, -2.75, null], [3, null, 7, 1e10], [4, 3, 3.3333, -91.5]] },
    { name: 'records', columns: [['a', 'text'], ['b', 'text'], ['c', 'integer']], rows: RECORD_ROWS_VALUES },
    { name: 'foreign_keys', columns: [['k', 'text'], ['ki', 'integer']], rows: [['a', 1], ['a', 1], ['b', 2], ['US', 90], ['abc', 3], [null, null], ['c', 0], ['1', -5]] },
    { name: 'events', columns: eventColumns, rows: eventTimes.map(([event, ingestion], index) => [index + 1, ...asTypes(event), ...asTypes(ingestion)]) },
    { name: 'events_empty', columns: eventColumns, rows: [] },
  ];
}

// ---------------------------------------------------------------------------------------------------------------
// Per engine: the fixtures, the connection, DQOps's session

interface Outcome {
  rows?: Array<[number | null, number | null]>;
  error?: string;
}

interface Engine {
  name: EngineName;
  /** DQOps's provider name: the template file and the dialect macros. */
  provider: 'duckdb' | 'mysql' | 'mariadb';
  cases: CaseDialect;
  source: DataSource;
  /** DQOps's context beside the common part (connection, table_from_files). */
  context(table: string, relation: string | undefined): Record<string, unknown>;
  dialectSettings: Record<string, unknown>;
  /** Runs DQOps's query and returns its rows with the instant its CURRENT_TIMESTAMP read. */
  runDqops(sql: string): Promise<{ now: Date; rows?: Record<string, unknown>[]; error?: string }>;
  close(): Promise<void>;
}

const DUCKDB_CASES: CaseDialect = {
  conditionsOnColumn: ["CAST({column} AS VARCHAR) > '1'", "CAST({column} AS VARCHAR) like '%a%'", '{alias}.id > 3', "CAST({column} AS VARCHAR) = '3' or null", 'true', 'false', 'null'],
  numericConditions: ['{column} > 0', '{column} = 3 or null'],
  conditionsOnTable: ['{alias}.i > 0', '{alias}.b', '{alias}.id > 3 and {alias}.n < 100', 'null', '(select count(*) from {table}) > 5'],
  expressionsOnColumn: ['count(distinct {column})', 'max(length(CAST({column} AS VARCHAR)))', 'sum(length(CAST({column} AS VARCHAR))) / nullif(count(*), 0)'],
  numericExpressions: ['max({column}) - min({column})', 'sum({column}) / nullif(count(*), 0)'],
  expressionsOnTable: ['count(*)', 'max({alias}.i) + 1', 'avg({alias}.d)'],
  customResultQueries: {
    column: ['select count({column_name}) as actual_value, count(*) as expected_value from {table}', 'select CAST(id AS DOUBLE) / 3 as actual_value from {table} where id < 5'],
    table: ['select count(*) as actual_value, 10 as expected_value from {table}', 'select count(*) as actual_value from {table} as t where CAST(t.i AS VARCHAR) like \'%1%\''],
  },
  invalidValueLike: "select {column} from {table} as {alias} where CAST({column} AS VARCHAR) like '%1%'",
  timeSnapshots: {
    dt: ['DATE'], ts: ['TIMESTAMP', 'TIMESTAMP WITHOUT TIME ZONE'], tz: ['TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE'],
    ev_date: ['DATE'], in_date: ['DATE'], ev_ts: ['TIMESTAMP'], in_ts: ['TIMESTAMP WITHOUT TIME ZONE'], ev_tz: ['TIMESTAMPTZ'], in_tz: ['TIMESTAMP WITH TIME ZONE'], ev_text: ['VARCHAR'], in_text: ['VARCHAR'],
  },
};

const MYSQL_CASES: CaseDialect = {
  conditionsOnColumn: ["cast({column} as char) > '1'", "cast({column} as char) like '%a%'", '{alias}.id > 3', "cast({column} as char) = '3' or null", 'true', 'false', 'null'],
  numericConditions: ['{column} > 0', '{column} = 3 or null'],
  conditionsOnTable: ['{alias}.i > 0', '{alias}.b', '{alias}.id > 3 and {alias}.n < 100', 'null', '(select count(*) from {table}) > 5'],
  expressionsOnColumn: ['count(distinct {column})', 'max(char_length(cast({column} as char)))', 'sum(char_length(cast({column} as char))) / nullif(count(*), 0)'],
  numericExpressions: ['max({column}) - min({column})', 'sum({column}) / nullif(count(*), 0)'],
  expressionsOnTable: ['count(*)', 'max({alias}.i) + 1', 'avg({alias}.d)'],
  customResultQueries: {
    column: ['select count({column_name}) as actual_value, count(*) as expected_value from {schema_name}.{table_name}', 'select cast(id as double) / 3 as actual_value from {schema_name}.{table_name} where id < 5'],
    table: ['select count(*) as actual_value, 10 as expected_value from {schema_name}.{table_name}', "select count(*) as actual_value from {schema_name}.{table_name} as t where cast(t.i as char) like '%1%'"],
  },
  invalidValueLike: "select {column} from {table} as {alias} where cast({column} as char) like '%1%'",
  timeSnapshots: {
    dt: ['DATE'], ts: ['DATETIME'], tz: ['TIMESTAMP'],
    ev_date: ['DATE'], in_date: ['DATE'], ev_ts: ['DATETIME'], in_ts: ['DATETIME'], ev_tz: ['TIMESTAMP'], in_tz: ['TIMESTAMP'], ev_text: ['VARCHAR'], in_text: ['TEXT'],
  },
};

const DUCKDB_TYPES: Record<ColumnType, string> = {
  integer: 'INTEGER', text: 'VARCHAR', decimal: 'DECIMAL(14,6)', double: 'DOUBLE', boolean: 'BOOLEAN', date: 'DATE', timestamp: 'TIMESTAMP', timestamptz: 'TIMESTAMPTZ',
};

function duckdbLiteral(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if ('date' in value) return `DATE '${value.date}'`;
  if ('timestamp' in value) return `TIMESTAMP '${value.timestamp}'`;
  return `TIMESTAMPTZ '${value.timestamptz}'`;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

async function duckdbEngine(name: EngineName, format: 'parquet' | 'csv' | 'json', now: number, sources: DataSources, folder: string): Promise<Engine> {
  const instance = await DuckDBInstance.create(':memory:');
  const writer = await instance.connect();
  await writer.run("set TimeZone = 'UTC'");
  const dir = join(folder, format);
  for (const table of fixtureTables(now, false)) {
    await writer.run(`create table ${quote(table.name)} (${table.columns.map(([column, type]) => `${quote(column)} ${DUCKDB_TYPES[type]}`).join(', ')})`);
    if (table.rows.length > 0) await writer.run(`insert into ${quote(table.name)} values ${table.rows.map((row) => `(${row.map(duckdbLiteral).join(', ')})`).join(', ')}`);
    mkdirSync(join(dir, table.name), { recursive: true });
    const options = format === 'parquet' ? 'FORMAT parquet' : format === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT json';
    await writer.run(`copy ${quote(table.name)} to '${join(dir, table.name, `data.${format}`).replaceAll("'", "''")}' (${options})`);
  }
  writer.closeSync();
  instance.closeSync();
  const spec: JsonObject = {
    provider_type: 'duckdb',
    duckdb: { read_mode: 'files', files_format_type: format, directories: { [SCHEMA]: dir }, ...(format === 'csv' ? { csv: { header: true, allow_quoted_nulls: false } } : {}) },
  };
  const source = sources.get(`bench_${format}`, spec);
  return {
    name,
    provider: 'duckdb',
    cases: DUCKDB_CASES,
    source,
    context: (_table, relation) => ({ connection: { provider_type: 'duckdb', duckdb: { files_format_type: format, read_mode: 'files' } }, table_from_files: relation }),
    dialectSettings: { quote_begin: '"', quote_end: '"', quote_escape: '""', table_name_includes_database_name: false, supports_limit_clause: true },
    runDqops: (sql) =>
      source.session(async (session: DataSourceSession) => {
        // DuckDB's now() is the start of the transaction, so it is the instant the query's CURRENT_TIMESTAMP reads
        await session.query('begin transaction');
        const [{ now: instant }] = await session.query<{ now: unknown }>("select strftime(now() at time zone 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') as now");
        try {
          const rows = await session.query(sql);
          await session.query('commit');
          return { now: new Date(String(instant)), rows };
        } catch (error) {
          await session.query('rollback').catch(() => undefined);
          return { now: new Date(String(instant)), error: firstLine(error) };
        }
      }),
    close: async () => undefined,
  };
}

const MYSQL_TYPES: Record<ColumnType, string> = {
  integer: 'int', text: 'text', decimal: 'decimal(14,6)', double: 'double', boolean: 'boolean', date: 'date', timestamp: 'datetime', timestamptz: 'timestamp null',
};

function mysqlLiteral(value: Value): string {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return mysql.escape(value);
  if ('date' in value) return mysql.escape(value.date);
  if ('timestamp' in value) return mysql.escape(value.timestamp);
  return mysql.escape(value.timestamptz.replace(/\+00$/, ''));
}

async function mariadbFixtures(server: MariadbServer, now: number): Promise<void> {
  const statements = [`create database ${SCHEMA} character set utf8mb4 collate utf8mb4_nopad_bin`];
  for (const table of fixtureTables(now, true)) {
    const name = `\`${SCHEMA}\`.\`${table.name.replaceAll('`', '``')}\``;
    statements.push(`create table ${name} (${table.columns.map(([column, type]) => `\`${column.replaceAll('`', '``')}\` ${MYSQL_TYPES[type]}`).join(', ')})`);
    if (table.rows.length > 0) statements.push(`insert into ${name} values ${table.rows.map((row) => `(${row.map(mysqlLiteral).join(', ')})`).join(', ')}`);
  }
  await server.admin(["set time_zone = '+00:00'", ...statements].map((s) => s));
}

async function mysqlEngine(name: 'mariadb' | 'mysql', server: MariadbServer, sources: DataSources): Promise<Engine> {
  const settings = { host: '127.0.0.1', port: String(server.port), database: SCHEMA, user: MARIADB_USER, password: '${BENCH_MARIADB_PASSWORD}' };
  const source = sources.get(`bench_${name}`, { provider_type: name, [name]: settings });
  // DQOps's session: the server's sql_mode, the database as the default schema; UTC and dqctl's collation
  const dqops = await mysql.createConnection({ host: '127.0.0.1', port: server.port, user: MARIADB_USER, password: MARIADB_PASSWORD, database: SCHEMA, timezone: 'Z', decimalNumbers: true, supportBigNumbers: true });
  await dqops.query("set time_zone = '+00:00'");
  await dqops.query('set names utf8mb4 collate utf8mb4_nopad_bin');
  return {
    name,
    provider: name,
    cases: MYSQL_CASES,
    source,
    context: () => ({ connection: { provider_type: name, mysql: { database: SCHEMA, mysql_engine_type: 'mysql' }, mariadb: { database: SCHEMA } } }),
    dialectSettings: { quote_begin: '`', quote_end: '`', quote_escape: '""', table_name_includes_database_name: false, supports_limit_clause: true },
    runDqops: async (sql) => {
      // NOW() and CURRENT_TIMESTAMP() read the session's fixed timestamp: a whole second, the one dqctl binds
      const instant = new Date(Math.floor(Date.now() / 1000) * 1000);
      await dqops.query(`set timestamp = ${instant.getTime() / 1000}`);
      try {
        const [rows] = await dqops.query(sql);
        return { now: instant, rows: rows as Record<string, unknown>[] };
      } catch (error) {
        return { now: instant, error: firstLine(error) };
      }
    },
    close: () => dqops.end(),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Comparing

function numberOf(value: unknown): number | null {
  if (value === null || value === undefined) return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

function dqopsOutcome(sensor: string, result: { rows?: Record<string, unknown>[]; error?: string }): Outcome {
  if (sensor === 'table/availability/table_availability') {
    // TableAvailabilitySensorRunner: a failure or no row is 1.0, a NULL readout 0.0, else the readout.
    if (result.error !== undefined || result.rows!.length === 0) return { rows: [[1, null]] };
    return { rows: [[numberOf(result.rows![0]!.actual_value) ?? 0, null]] };
  }
  if (result.error !== undefined) return { error: result.error };
  return { rows: result.rows!.map((row) => [numberOf(row.actual_value), numberOf(row.expected_value)]) };
}

async function runDqctl(source: DataSource, request: TableQueryRequest): Promise<Outcome> {
  const plan = planSensorQueries(request);
  if (plan.rejected.length > 0) return { error: `rejected: ${plan.rejected.map((r) => r.reason).join('; ')}` };
  const readouts: SensorReadout[] = [];
  for (const query of plan.queries) {
    try {
      readouts.push(...(query.parse(await source.query(query.text, query.values)).get('s') ?? []));
    } catch (error) {
      if (!query.parseError) return { error: firstLine(error) };
      readouts.push(...(query.parseError(error).get('s') ?? []));
    }
  }
  return { rows: readouts.map((readout) => [readout.actualValue, readout.expectedValue ?? null]) };
}

const round5 = (value: number | null): number | null => (value === null ? null : Math.round(value * 1e5) / 1e5);

/**
 * MariaDB's decimal division keeps `div_precision_increment` (4) decimals, so DQOps's templates that divide
 * decimals give 4 decimals where dqctl's doubles give more: on MySQL a DQOps value of at most 4 decimals agrees
 * with dqctl's value rounded to 4 decimals.
 */
function sameAtFourDecimals(dqops: number | null, dqctl: number | null): boolean {
  if (dqops === null || dqctl === null) return dqops === dqctl;
  const scaled = dqops * 1e4;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6 * Math.max(1, Math.abs(scaled)) && Math.abs(dqops - dqctl) <= 5e-5 * (1 + 1e-9);
}

function sameRows(a: Array<[number | null, number | null]>, b: Array<[number | null, number | null]>, fourDecimals = false): boolean {
  if (a.length !== b.length) return false;
  if (fourDecimals && a.length === 1 && sameAtFourDecimals(a[0]![0], b[0]![0]) && sameAtFourDecimals(a[0]![1], b[0]![1])) return true;
  const key = (row: [number | null, number | null]): string => JSON.stringify(row.map(round5));
  const left = a.map(key).sort();
  const right = b.map(key).sort();
  if (left.every((value, index) => value === right[index])) return true;
  // float noise at the 5th decimal's rounding edge: relative 1e-9
  if (a.length !== 1) return false;
  return a[0]!.every((value, index) => {
    const other = b[0]![index]!;
    if (value === null || other === null) return value === other;
    return Math.abs(value - other) <= 1e-9 * Math.max(1, Math.abs(value), Math.abs(other));
  });
}

const show = (outcome: Outcome): string =>
  outcome.error !== undefined ? `error: ${outcome.error}` : outcome.rows!.map((row) => (row[1] === null ? String(row[0]) : `${row[0]} (expected ${row[1]})`)).join(', ') || 'no rows';

interface SensorSummary {
  sensor: string;
  cases: number;
  same: number;
  dqopsFails: Array<{ label: string; error: string }>;
  differing: Array<{ label: string; dqops: string; dqctl: string }>;
}

interface EngineResult {
  engine: EngineName;
  sensors: number;
  agreeing: number;
  cases: number;
  summaries: SensorSummary[];
  withoutTemplate: string[];
}

async function compareEngine(engine: Engine, home: string, filter: string, verbose: boolean): Promise<EngineResult> {
  const catalog = getCheckCatalog();
  const used = [...new Set([...catalog.checks.values()].map((check) => check.sensor))].sort();
  const templateOf = (sensor: string): string => `${sensor}/${engine.provider}.sql.jinja2`;
  const withTemplate = used.filter((sensor) => existsSync(join(home, 'sensors', templateOf(sensor))));
  const withoutTemplate = used.filter((sensor) => !withTemplate.includes(sensor));
  const compared = withTemplate.filter((sensor) => sensor.includes(filter));

  const targets = new Map<string, { relation?: string; tableRelation?: (schema: string, table: string) => string; types: Record<string, string> }>();
  const targetOf = async (table: string) => {
    let found = targets.get(table);
    if (found === undefined) {
      const target = await engine.source.sqlTarget(SCHEMA, table);
      const values: unknown[] = [];
      const describe = engine.source.dialect.describeColumns({ schema: SCHEMA, table, relation: target.relation ?? `${quote(SCHEMA)}.${quote(table)}` }, (value, type) => {
        values.push(value);
        return engine.source.dialect.placeholder(values.length, type);
      });
      let types: Record<string, string> = {};
      try {
        const rows = await engine.source.query<{ column_name: string; column_type: string }>(describe, values);
        types = Object.fromEntries(rows.filter((row) => row.column_name !== null).map((row) => [row.column_name, row.column_type]));
      } catch {
        // an unreadable table (an empty JSON file): no types
      }
      found = { ...(target.relation === undefined ? {} : { relation: target.relation }), ...(target.tableRelation === undefined ? {} : { tableRelation: target.tableRelation }), types };
      targets.set(table, found);
    }
    return found;
  };

  const cases: Array<Case & { parameters: Record<string, unknown> }> = [];
  for (const sensor of compared) {
    const catalogSensor = catalog.sensors.get(sensor)!;
    for (const item of casesOf(sensor, engine.cases)) {
      const parameters = withDefaults(catalogSensor, item.parameters);
      // files have no table name to write in a query of one's own: DuckDB's custom queries read the table function
      if (engine.provider === 'duckdb' && typeof parameters.sql_query === 'string' && sensor.endsWith('/import_custom_result')) {
        parameters.sql_query = parameters.sql_query.replaceAll('{table}', (await targetOf(item.table)).relation ?? '{table}');
      }
      cases.push({ ...item, parameters });
    }
  }
  const contexts = [];
  for (const item of cases) {
    const target = await targetOf(item.table);
    const types = { ...target.types, ...item.types };
    // DQOps renders a DuckDB accuracy sensor's referenced_table as that table's files (JinjaTemplateRenderParametersProviderImpl)
    const referenced = item.parameters.referenced_table;
    const dqopsParameters =
      engine.provider === 'duckdb' && typeof referenced === 'string' && target.tableRelation !== undefined
        ? { ...item.parameters, referenced_table: target.tableRelation(referenced.includes('.') ? referenced.slice(0, referenced.indexOf('.')) : SCHEMA, referenced.includes('.') ? referenced.slice(referenced.indexOf('.') + 1) : referenced) }
        : item.parameters;
    contexts.push({
      template: templateOf(item.sensor),
      context: {
        ...engine.context(item.table, target.relation),
        table: {
          columns: Object.fromEntries(Object.entries(types).map(([column, type]) => [column, { type_snapshot: { column_type: type } }])),
          ...(item.timestamps ? { timestamp_columns: { event_timestamp_column: item.timestamps.event, ingestion_timestamp_column: item.timestamps.ingestion } } : {}),
        },
        target_table: { schema_name: SCHEMA, table_name: item.table },
        ...(item.column ? { column: { type_snapshot: { column_type: types[item.column] } }, column_name: item.column } : {}),
        parameters: dqopsParameters,
        dialect_settings: engine.dialectSettings,
        actual_value_alias: 'actual_value',
        expected_value_alias: 'expected_value',
      },
    });
  }
  const render = spawnSync(PYTHON, [join(import.meta.dirname, 'sensorsReference.py')], { input: JSON.stringify({ home, cases: contexts }), maxBuffer: 1 << 30 });
  if (render.status !== 0) throw new Error(`sensorsReference.py failed: ${render.stderr.toString()}`);
  const rendered = JSON.parse(render.stdout.toString()) as Array<{ sql?: string; error?: string }>;

  const summaries = new Map<string, SensorSummary>(compared.map((sensor) => [sensor, { sensor, cases: 0, same: 0, dqopsFails: [], differing: [] }]));
  for (const [index, item] of cases.entries()) {
    const summary = summaries.get(item.sensor)!;
    summary.cases += 1;
    const target = await targetOf(item.table);
    const types = { ...target.types, ...item.types };
    const template = rendered[index]!;
    const result = template.error !== undefined ? { now: new Date(Math.floor(Date.now() / 1000) * 1000), error: `template: ${template.error.split('\n')[0]}` } : await engine.runDqops(template.sql!);
    const dqops = dqopsOutcome(item.sensor, result);
    const dqctl = await runDqctl(engine.source, {
      schema: SCHEMA,
      table: item.table,
      dialect: engine.source.dialect,
      ...(target.relation === undefined ? {} : { relation: target.relation }),
      ...(target.tableRelation === undefined ? {} : { tableRelation: target.tableRelation }),
      sensors: [{ id: 's', sensorName: item.sensor, ...(item.column ? { column: item.column } : {}), parameters: item.parameters as Record<string, never> }],
      columnTypes: types,
      ...(item.timestamps ? { timestampColumns: { eventTimestampColumn: item.timestamps.event, ingestionTimestampColumn: item.timestamps.ingestion } } : {}),
      now: result.now,
    });
    if (dqops.error !== undefined) summary.dqopsFails.push({ label: label(item as Case), error: dqops.error });
    else if (dqctl.error === undefined && sameRows(dqops.rows!, dqctl.rows!, engine.provider !== 'duckdb')) summary.same += 1;
    else summary.differing.push({ label: label(item as Case), dqops: show(dqops), dqctl: show(dqctl) });
  }

  let agreeing = 0;
  console.log(`\n== ${TITLES[engine.name]}`);
  for (const summary of summaries.values()) {
    const agrees = summary.differing.length === 0 && summary.same > 0;
    if (agrees) agreeing += 1;
    const fails = summary.dqopsFails.length > 0 ? `, DQOps's query fails on ${summary.dqopsFails.length}` : '';
    console.log(`${agrees ? 'agree ' : 'DIFFER'} ${summary.sensor}: ${summary.same} of ${summary.cases} cases equal${fails}${agrees ? '' : `, ${summary.differing.length} different`}`);
    const shown = verbose ? summary.differing : summary.differing.slice(0, 3);
    for (const difference of shown) console.log(`    ${difference.label}\n      dqops: ${difference.dqops}\n      dqctl: ${difference.dqctl}`);
    if (shown.length < summary.differing.length) console.log(`    … ${summary.differing.length - shown.length} more (--verbose)`);
    if (verbose) for (const failure of summary.dqopsFails) console.log(`    DQOps fails: ${failure.label}: ${failure.error}`);
  }
  console.log(`${TITLES[engine.name]}: sensors agreeing with DQOps: ${agreeing} of ${compared.length} (${cases.length} cases)`);
  return { engine: engine.name, sensors: compared.length, agreeing, cases: cases.length, summaries: [...summaries.values()], withoutTemplate };
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const filter = args.includes('--sensor') ? args[args.indexOf('--sensor') + 1]! : '';
  const verbose = args.includes('--verbose');
  const only = args.includes('--engine') ? (args[args.indexOf('--engine') + 1]! as EngineName) : undefined;
  if (only !== undefined && !ENGINES.includes(only)) throw new Error(`--engine: one of ${ENGINES.join(', ')}`);
  const engines = only === undefined ? ENGINES : [only];
  if (!existsSync(MIRROR)) {
    console.log(`skipped: no DQOps mirror at ${MIRROR}`);
    return 0;
  }
  if (spawnSync(PYTHON, ['-c', 'import jinja2']).status !== 0) {
    console.log(`skipped: ${PYTHON} has no jinja2 (apt-get install python3-jinja2)`);
    return 0;
  }
  const started = Date.now();
  const folder = mkdtempSync(join(tmpdir(), 'dqctl-dialect-bench-'));
  const sources = new DataSources({ env: { BENCH_MARIADB_PASSWORD: MARIADB_PASSWORD }, statementTimeoutMs: 60_000 });
  let server: MariadbServer | undefined;
  const results: EngineResult[] = [];
  let version = '';
  try {
    execFileSync('sh', ['-c', `git --git-dir="${MIRROR}" archive HEAD home/sensors 2>/dev/null | tar -x -C "${folder}"`]);
    const home = join(folder, 'home');
    if (!existsSync(join(home, 'sensors/dialects/duckdb.sql.jinja2'))) throw new Error(`no DQOps sensor templates in ${MIRROR}`);
    const mirrorCommit = execFileSync('git', [`--git-dir=${MIRROR}`, 'rev-parse', 'HEAD']).toString().trim();
    const now = Math.floor(Date.now() / 1000) * 1000;
    for (const name of engines) {
      let engine: Engine;
      if (name.startsWith('duckdb')) {
        engine = await duckdbEngine(name, name.slice('duckdb-'.length) as 'parquet' | 'csv' | 'json', now, sources, folder);
      } else {
        if (server === undefined) {
          server = await startMariadb();
          await mariadbFixtures(server, now);
        }
        engine = await mysqlEngine(name as 'mariadb' | 'mysql', server, sources);
      }
      try {
        results.push(await compareEngine(engine, home, filter, verbose));
      } finally {
        await engine.close();
      }
    }
    if (server !== undefined) {
      const [rows] = await (async () => {
        const connection = await mysql.createConnection({ host: '127.0.0.1', port: server!.port, user: MARIADB_USER, password: MARIADB_PASSWORD });
        try {
          return await connection.query('select version() as version');
        } finally {
          await connection.end();
        }
      })();
      version = String((rows as Array<{ version: string }>)[0]!.version);
    }
    console.log('');
    for (const result of results) console.log(`${TITLES[result.engine]}: ${result.agreeing} of ${result.sensors} sensors agree (${result.cases} cases)`);

    if (filter === '' && only === undefined) {
      const duckdbVersion = (await sources.get('bench_parquet', { provider_type: 'duckdb', duckdb: { read_mode: 'in_memory' } }).query<{ v: string }>('select version() as v'))[0]!.v;
      const lines = [
        SECTION_START,
        '## DuckDB and MySQL/MariaDB sensors agreeing with DQOps (`npm run bench:sensors:dialects`)',
        '',
        ...results.map((r) => `- **${TITLES[r.engine]}: ${r.agreeing} of ${r.sensors} sensors agree** (${r.cases} cases)`),
        '',
        `Built-in checks' sensors with a template for the provider, dqctl's query beside DQOps's own template (dqops/dqo ${mirrorCommit.slice(0, 12)}, rendered with Jinja2) on the same tricky tables (the cases of \`npm run bench:sensors\`): DuckDB ${duckdbVersion} reading the tables written as Parquet, CSV and JSON files; MariaDB ${version} (a private server; the \`mysql\` templates run there too). A case agrees when every readout (actual and expected value, rounded to 5 decimals) is equal; cases where DQOps's own query fails do not count against a sensor. Deliberate differences are listed in docs/data-sources.md.`,
        '',
      ];
      for (const result of results) {
        const failing = result.summaries.filter((s) => s.dqopsFails.length > 0);
        const differing = result.summaries.filter((s) => s.differing.length > 0);
        const shownOnly = result.summaries.filter((s) => s.same === 0 && s.differing.length === 0);
        lines.push(`### ${TITLES[result.engine]}`, '');
        if (result.withoutTemplate.length > 0) lines.push(`No ${result.engine.startsWith('duckdb') ? 'duckdb' : result.engine} template (not compared): ${result.withoutTemplate.map((s) => `\`${s}\``).join(', ')}.`, '');
        lines.push(...(differing.length === 0 ? ['Sensors that differ: none.'] : ['Sensors that differ:', '', ...differing.map((s) => `- \`${s.sensor}\`: ${s.differing.length} of ${s.cases} cases, e.g. ${s.differing[0]!.label}: DQOps ${s.differing[0]!.dqops}, dqctl ${s.differing[0]!.dqctl}`)]), '');
        if (shownOnly.length > 0) lines.push(`Sensors whose every case fails in DQOps (not counted as agreeing): ${shownOnly.map((s) => `\`${s.sensor}\` (${s.dqopsFails[0]!.error})`).join('; ')}.`, '');
        const partly = failing.filter((s) => !shownOnly.includes(s));
        if (partly.length > 0) lines.push(`DQOps's query fails on some cases of: ${partly.map((s) => `\`${s.sensor}\` (${s.dqopsFails.length} of ${s.cases}, e.g. ${s.dqopsFails[0]!.label}: ${s.dqopsFails[0]!.error})`).join('; ')}.`, '');
      }
      lines.push(
        `Measured ${new Date().toISOString().slice(0, 10)} in ${((Date.now() - started) / 1000).toFixed(0)} s. Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node.js ${process.version}, ${platform()} ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared).`,
        SECTION_END,
      );
      await writeBenchmarkSection(lines.join('\n'), SECTION_START, SECTION_END);
      console.log('BENCHMARKS.md updated');
    }
    return 0;
  } finally {
    await sources.close();
    await server?.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

process.exitCode = await main();
