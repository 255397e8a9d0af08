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
import { getCheckCatalog } from '../src/catalog/index.js';
import { planSensorQueries, quoteIdent, type SensorReadout, type TableQueryRequest } from '../src/datasource/sensors/index.js';
import { writeBenchmarkSection } from './benchmarksFile.js';
import { casesOf, EVENT_TIMES, label, ODD_COLUMN, ODD_TABLE, RECORD_ROWS, SCHEMA, TEXT_SUBSETS, TEXT_TABLES, TRICKY_TEXTS, TYPED_ROWS, TYPED_TABLES, withDefaults, type Case } from './sensorCases.js';

const MIRROR = process.env.DQOPS_MIRROR ?? '/work/.mirror/dqops+dqo/repo';
const PYTHON = process.env.DQOPS_PYTHON ?? 'python3';
const SERVER = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECTION_START = '<!-- bench/sensorsAgreement.ts: sensors agreeing with DQOps (start) -->';
const SECTION_END = '<!-- bench/sensorsAgreement.ts: sensors agreeing with DQOps (end) -->';

// ---------------------------------------------------------------------------------------------------------------
// The tables (the values: sensorCases.ts)

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


/** A typed row whose every value is also in TYPED_ROWS (the all-equal table repeats it). */
const SAME_TYPED_ROW = `(3, 3, 3.3333, 1.5, true, date '2024-02-29', timestamp '2024-02-29 12:00', timestamptz '2024-02-29 12:00+00')`;

/** The partition day column of each kind of table (the typed tables have a `d` already). */
const PARTITION_OF = { texts: 'pd', typed: 'pd', records: 'pd' } as const;
/** Row n's group (x, y or NULL) and partition day (today, then 1, 2 and 3 days ago). */
const GROUP_AND_DAY = (n: string): string => `(array['x', 'y', null])[${n} % 3 + 1], current_date - (${n} % 4)::integer`;
/** The tables whose cases also run grouped by g and partitioned by day. */
const VARIANT_TABLES = new Set([...TEXT_TABLES, ODD_TABLE, ...TYPED_TABLES, 'records']);

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
