import type { SqlQueryable } from './sql/sqlClient.js';
import { refreshTableStatus, type TableRef } from './tableStatus.js';
import { RESULT_KEY_PREDICATE, RESULT_KEY_SQL } from './resultKey.js';

/**
 * DQOps's `.data/` history in the store (migration 0012): rows of DQOps's six Parquet tables, keyed by DQOps's
 * own id, and read back in DQOps's form for an export. The Parquet side (files, folders, types) is
 * src/dqopsdata's; this file knows which DQOps column lands in which store column (KINDS, one table for all six
 * kinds). Every DQOps column without a store column of its own is kept as text in `dqops_columns`, so a row goes
 * back out as it came in (64-bit hashes and microseconds included).
 *
 * Readouts and check results share one store row (one per check, time period and data group: resultKey.ts): a
 * readout alone is a row without verdict; its check result adds the severity and the verdict. DQOps's errors are
 * the execution errors among check_results.
 *
 * An import runs in two steps inside its one transaction. Staging: the rows of each kind go as text into a
 * temporary table of that kind (no index, no WAL) by COPY of the CSV files the Parquet reader writes. Merging,
 * once every file was read: per kind, the "new" count (ids not stored before: one anti-join) and ONE upsert (a
 * plain insert when nothing stored can conflict) of the staged rows (the last of each id), converting the text to
 * the store's types. Set-based statements instead of a statement per batch with a lookup per row (BENCHMARKS.md,
 * bench/dqopsData.ts).
 */
export const DQOPS_KINDS = ['sensor_readouts', 'check_results', 'errors', 'statistics', 'error_samples', 'incidents'] as const;
export type DqopsKind = (typeof DQOPS_KINDS)[number];

/** One DQOps row: column name → its value as text (null: missing). Incidents carry `connection_name` from their folder. */
export type DqopsRow = Record<string, string | null>;

/** The import of one run, inside its one transaction. */
export interface DqopsDataImport {
  /**
   * Stages rows of one kind: `rows` is CSV text, or the file holding it (PostgreSQL's `format csv`: an unquoted
   * empty field is null), a line per row with its values as text in `stagedColumns(kind)` order, then a JSON
   * object of the row's other DQOps columns.
   */
  stage(kind: DqopsKind, rows: string | { file: string }): Promise<void>;
  /** Stores every staged row (upserts by DQOps's id, kinds in IMPORT_ORDER); returns per kind how many ids were not stored before. */
  merge(progress?: (done: number, total: number) => void): Promise<Record<DqopsKind, number>>;
}

/** A store column fed by a DQOps column: [store column, SQL type, DQOps column]. */
type Mapped = readonly [column: string, type: string, dqops: string];

/**
 * How one kind lands in the store: the `mapped` columns from their DQOps columns, `dqops_columns` (the row's other
 * columns), `derived` columns computed from the row, and `insertOnly` constants of an insert.
 */
interface KindSpec {
  table: 'dqctl.check_results' | 'dqctl.statistics' | 'dqctl.error_samples' | 'dqctl.incidents';
  /** The store column holding DQOps's id (unique). */
  idColumn: 'dqops_id' | 'id';
  /** Which stored rows of `table` are of this kind (`s` is the stored row), for the "new" count. */
  storedFilter: string;
  mapped: readonly Mapped[];
  /** [store column, SQL type, expression], computed by the merge; `v(name)` is a DQOps column's text in the row. */
  derived?: ReadonlyArray<readonly [column: string, type: string, sql: (v: (dqops: string) => string) => string]>;
  /** Constants the insert adds: [store column, SQL]. */
  insertOnly?: ReadonlyArray<readonly [column: string, sql: string]>;
  /** The conflict target of the upsert. */
  conflict: string;
  /** The upsert's SET per column where it is not `excluded.<column>` (a column mapped to null is left alone). */
  update?: Readonly<Record<string, string | null>>;
  /** Staged rows the merge leaves out (they would change nothing): a condition on the staged row `r`. */
  skip?: string;
  /** A condition on the stored row for the upsert's update (`<table> t`, `excluded`). */
  updateWhere?: string;
}

/** Which check a row is of (its DQOps id first), as readouts, results, errors and error samples all carry it. */
const CHECK_IDENTITY: readonly Mapped[] = [
  ['dqops_id', 'text', 'id'],
  ['connection_name', 'text', 'connection_name'],
  ['schema_name', 'text', 'schema_name'],
  ['table_name', 'text', 'table_name'],
  ['column_name', 'text', 'column_name'],
  ['check_type', 'text', 'check_type'],
  ['time_gradient', 'text', 'time_gradient'],
  ['check_category', 'text', 'check_category'],
  ['check_name', 'text', 'check_name'],
  ['check_hash', 'bigint', 'check_hash'],
  ['sensor_name', 'text', 'sensor_name'],
  ['quality_dimension', 'text', 'quality_dimension'],
  ['table_comparison', 'text', 'table_comparison'],
];

const CHECK_MAPPED: readonly Mapped[] = [
  ...CHECK_IDENTITY,
  ['time_period', 'timestamp', 'time_period'],
  ['data_group', 'text', 'data_group_name'],
  ['actual_value', 'double precision', 'actual_value'],
  ['expected_value', 'double precision', 'expected_value'],
  ['duration_ms', 'integer', 'duration_ms'],
  ['executed_at', 'timestamp', 'executed_at'],
];

/** The columns of a readout or result that the rule's run sets (not the key, not the sensor's value). */
const RUN_COLUMNS = ['check_hash', 'sensor_name', 'quality_dimension', 'expected_value', 'duration_ms', 'executed_at', 'dqops_id'];

/** A readout and its result: the same store row when the stored row is the result of the same DQOps id. */
const SAME_RESULT = 't.verdict and t.dqops_id is not distinct from excluded.dqops_id';

/** The typed result columns of statistics and error samples, in the order DQOps fills one of them. */
const TYPED_RESULTS = ['result_string', 'result_integer', 'result_float', 'result_boolean', 'result_date', 'result_date_time', 'result_instant', 'result_time'];
const firstTypedResult = (v: (dqops: string) => string) => `coalesce(${TYPED_RESULTS.map(v).join(', ')})`;
const utc = (text: string) => `(${text})::timestamp at time zone 'UTC'`;
/** DQOps's result or readout without an execution time ran when its period did. */
const executedAt = (v: (dqops: string) => string) => `coalesce(${utc(v('executed_at'))}, ${utc(v('time_period'))})`;

const KINDS: Record<DqopsKind, KindSpec> = {
  check_results: {
    table: 'dqctl.check_results',
    idColumn: 'dqops_id',
    storedFilter: 's.error_message is null and s.verdict',
    mapped: [...CHECK_MAPPED, ['severity', 'integer', 'severity']],
    derived: [['executed_at', 'timestamptz', executedAt]],
    insertOnly: [['verdict', 'true']],
    conflict: `(${RESULT_KEY_SQL}) where ${RESULT_KEY_PREDICATE}`,
    // a result joining a stored readout keeps the sensor's value; the rule's own value goes beside it
    update: {
      actual_value: null,
      rule_actual_value: 'case when t.actual_value is distinct from excluded.actual_value then excluded.actual_value end',
      dqops_columns: `coalesce(t.dqops_columns, '{}'::jsonb) || excluded.dqops_columns`,
      ...keyColumnsUnchanged(),
    },
  },
  // A readout alone is stored as dqctl stores one without verdict (severity 0, verdict false). Results are
  // merged first (IMPORT_ORDER): a readout whose result is stored (same DQOps id) with the same value changes
  // nothing and is skipped; one with another value brings the sensor's value, the result's stays as the rule's.
  sensor_readouts: {
    table: 'dqctl.check_results',
    idColumn: 'dqops_id',
    storedFilter: 's.error_message is null',
    mapped: CHECK_MAPPED,
    derived: [['executed_at', 'timestamptz', executedAt]],
    insertOnly: [['verdict', 'false'], ['severity', '0']],
    conflict: `(${RESULT_KEY_SQL}) where ${RESULT_KEY_PREDICATE}`,
    skip: `exists (select 1 from dqctl.check_results c where c.dqops_id = r.dqops_id and c.verdict and c.actual_value is not distinct from r.actual_value)`,
    update: {
      ...Object.fromEntries(RUN_COLUMNS.map((c) => [c, `case when ${SAME_RESULT} then t.${c} else excluded.${c} end`])),
      actual_value: 'excluded.actual_value',
      rule_actual_value: `case when ${SAME_RESULT} and t.actual_value is distinct from excluded.actual_value then t.actual_value else t.rule_actual_value end`,
      dqops_columns: `case when ${SAME_RESULT} then excluded.dqops_columns || t.dqops_columns else coalesce(t.dqops_columns, '{}'::jsonb) || excluded.dqops_columns end`,
      severity: null,
      verdict: null,
      ...keyColumnsUnchanged(),
    },
    updateWhere: `not (${SAME_RESULT}) or t.actual_value is distinct from excluded.actual_value`,
  },
  errors: {
    table: 'dqctl.check_results',
    idColumn: 'dqops_id',
    storedFilter: 's.error_message is not null',
    mapped: [...CHECK_MAPPED, ['error_message', 'text', 'error_message']],
    // an execution error: when DQOps recorded no execution time, the error's own timestamp
    derived: [['executed_at', 'timestamptz', (v) => `coalesce(${utc(v('executed_at'))}, ${utc(v('error_timestamp'))}, ${utc(v('time_period'))})`]],
    insertOnly: [['verdict', 'true']],
    conflict: '(dqops_id)',
  },
  statistics: {
    table: 'dqctl.statistics',
    idColumn: 'dqops_id',
    storedFilter: 'true',
    mapped: [
      ['dqops_id', 'text', 'id'],
      ['connection_name', 'text', 'connection_name'],
      ['schema_name', 'text', 'schema_name'],
      ['table_name', 'text', 'table_name'],
      ['column_name', 'text', 'column_name'],
      ['collector_category', 'text', 'collector_category'],
      ['collector_name', 'text', 'collector_name'],
      ['data_group', 'text', 'data_group_name'],
      ['collected_at', 'timestamp', 'collected_at'],
      ['duration_ms', 'integer', 'duration_ms'],
      ['error_message', 'text', 'error_message'],
    ],
    // one typed result of DQOps → dqctl's double (numbers) or text (the others)
    derived: [
      ['result_double', 'double precision', (v) => `coalesce((${v('result_float')})::double precision, (${v('result_integer')})::double precision)`],
      ['result_text', 'text', (v) => `case when ${v('result_float')} is null and ${v('result_integer')} is null then ${firstTypedResult(v)} end`],
    ],
    conflict: '(dqops_id)',
  },
  error_samples: {
    table: 'dqctl.error_samples',
    idColumn: 'dqops_id',
    storedFilter: 'true',
    mapped: [
      ...CHECK_IDENTITY,
      ['data_group', 'text', 'data_group_name'],
      ['sample_index', 'integer', 'sample_index'],
      ['result_data_type', 'text', 'result_type'],
      ['row_id_1', 'text', 'row_id_1'],
      ['row_id_2', 'text', 'row_id_2'],
      ['row_id_3', 'text', 'row_id_3'],
      ['row_id_4', 'text', 'row_id_4'],
      ['row_id_5', 'text', 'row_id_5'],
      ['collected_at', 'timestamp', 'collected_at'],
      ['executed_at', 'timestamp', 'executed_at'],
      ['duration_ms', 'integer', 'duration_ms'],
    ],
    derived: [['result', 'text', firstTypedResult]],
    conflict: '(dqops_id)',
  },
  incidents: {
    table: 'dqctl.incidents',
    idColumn: 'id',
    storedFilter: 'true',
    mapped: [
      ['id', 'text', 'id'],
      ['connection_name', 'text', 'connection_name'],
      ['schema_name', 'text', 'schema_name'],
      ['table_name', 'text', 'table_name'],
      ['table_priority', 'integer', 'table_priority'],
      ['incident_hash', 'bigint', 'incident_hash'],
      ['first_seen', 'timestamp', 'first_seen'],
      ['last_seen', 'timestamp', 'last_seen'],
      ['incident_until', 'timestamp', 'incident_until'],
      ['data_group', 'text', 'data_group_name'],
      ['quality_dimension', 'text', 'quality_dimension'],
      ['check_category', 'text', 'check_category'],
      ['check_type', 'text', 'check_type'],
      ['check_name', 'text', 'check_name'],
      ['highest_severity', 'integer', 'highest_severity'],
      ['minimum_severity', 'integer', 'minimum_severity'],
      ['failed_checks_count', 'integer', 'failed_checks_count'],
      ['issue_url', 'text', 'issue_url'],
      ['status', 'text', 'status'],
    ],
    // an incident belongs to the month of its first failure; its status last changed when DQOps last updated it
    derived: [
      ['year', 'integer', (v) => `extract(year from (${v('first_seen')})::timestamp)::integer`],
      ['month', 'integer', (v) => `extract(month from (${v('first_seen')})::timestamp)::integer`],
      ['status_changed_at', 'timestamptz', (v) => `coalesce(${utc(v('updated_at'))}, ${utc(v('created_at'))}, ${utc(v('first_seen'))})`],
      ['status_changed_by', 'text', (v) => v('updated_by')],
    ],
    conflict: '(id)',
  },
};

/** The key columns of a check row: an upsert on the key never rewrites them. */
function keyColumnsUnchanged(): Record<string, null> {
  return Object.fromEntries(['connection_name', 'schema_name', 'table_name', 'column_name', 'check_type', 'time_gradient', 'check_category', 'check_name', 'table_comparison', 'time_period', 'data_group'].map((c) => [c, null]));
}

/**
 * The order the merge stores the kinds in: check results before their readouts (see the readouts' skip), and
 * both before the errors, samples and incidents.
 */
/** The kinds stored as check results (readouts and execution errors are rows of the same table): their tables' status changes. */
const RESULT_KINDS: readonly DqopsKind[] = ['check_results', 'sensor_readouts', 'errors'];

export const IMPORT_ORDER: readonly DqopsKind[] = ['check_results', 'sensor_readouts', 'errors', 'statistics', 'error_samples', 'incidents'];

/** The DQOps columns of a staged row, in the order its CSV line carries their values (then `others`). */
export function stagedColumns(kind: DqopsKind): readonly string[] {
  return KINDS[kind].mapped.map(([, , dqops]) => dqops);
}

const stageTable = (kind: DqopsKind) => `pg_temp.dqops_import_${kind}`;

/** The staged table: every DQOps column of `stagedColumns` as text, then `others` (the row's other columns, a JSON object as text). */
function stagedColumnNames(kind: DqopsKind): string[] {
  return [...stagedColumns(kind), 'others'];
}

/** The store's value of a mapped column from its staged text: timestamps without zone are UTC wall time; a row without data group is DQOps's `all data`. */
function mappedSql(kind: DqopsKind, [column, type, dqops]: Mapped): string {
  if (type === 'timestamp') return utc(`s.${dqops}`);
  if (column === 'data_group' && kind !== 'incidents') return `coalesce(s.${dqops}, 'all data')`;
  return type === 'text' ? `s.${dqops}` : `(s.${dqops})::${type}`;
}

/** The store's columns of a kind with their values computed from a staged row `s` (its other columns: `x`). */
function storeValues(kind: DqopsKind): Array<readonly [column: string, sql: string]> {
  const spec = KINDS[kind];
  const v = (dqops: string) => (spec.mapped.some(([, , name]) => name === dqops) ? `s.${dqops}` : `x->>'${dqops}'`);
  const derived = new Map((spec.derived ?? []).map(([c, , sql]) => [c, sql(v)]));
  return [
    ...spec.mapped.filter(([c]) => !derived.has(c)).map((m) => [m[0], mappedSql(kind, m)] as const),
    ['dqops_columns', 'jsonb_strip_nulls(x)'],
    ...derived,
    ...(spec.insertOnly ?? []),
  ];
}

/** How many staged ids (unique by then: dropDuplicateIds) the store does not have yet (as rows of this kind). */
function newCountStatement(kind: DqopsKind): string {
  const spec = KINDS[kind];
  return `select count(*)::integer as n from ${stageTable(kind)} as i
    where not exists (select 1 from ${spec.table} s where s.${spec.idColumn} = i.id and ${spec.storedFilter})`;
}

/**
 * ONE statement storing every staged row of a kind, its values converted from text here: an upsert, or, when no
 * stored row can conflict with a staged one (`mayConflict`: a first import of these tables), a plain insert,
 * which spares PostgreSQL the upsert's extra index probe and lock per row (a third of the insert's time,
 * measured). On conflict every inserted column takes the staged value, unless the kind says otherwise (null:
 * left as stored). The staged ids are unique by then (dropDuplicateIds).
 */
function mergeStatement(kind: DqopsKind, mode: 'upsert' | 'insert'): string {
  const spec = KINDS[kind];
  const values = storeValues(kind);
  const inserted = values.map(([c]) => c);
  const update = spec.update ?? {};
  const sets = [...inserted.filter((c) => !(c in update)).map((c) => `${c} = excluded.${c}`), ...Object.entries(update).flatMap(([c, sql]) => (sql === null ? [] : [`${c} = ${sql}`]))];
  const upsert = `on conflict ${spec.conflict} do update set ${sets.join(', ')} ${spec.updateWhere ? `where ${spec.updateWhere}` : ''}`;
  return `insert into ${spec.table} as t (${inserted.join(', ')})
    select ${inserted.map((c) => `r.${c}`).join(', ')} from (
      select ${values.map(([c, sql]) => `${sql} as ${c}`).join(', ')}
        from ${stageTable(kind)} as s, lateral (select coalesce(s.others::jsonb, '{}'::jsonb) as x) as other) as r
    ${spec.skip ? `where not (${spec.skip})` : ''}
    ${mode === 'upsert' ? upsert : ''}`;
}

/** Whether a stored row may conflict with a staged one: a check row of a staged table, or a row of a staged id. */
function mayConflictStatement(kind: DqopsKind): string {
  const spec = KINDS[kind];
  if (spec.table === 'dqctl.check_results') {
    return `select exists (select 1 from (select distinct connection_name, schema_name, table_name from ${stageTable(kind)}) as k
      join dqctl.check_results c on c.connection_name = k.connection_name and c.schema_name = k.schema_name and c.table_name = k.table_name) as conflict`;
  }
  return `select exists (select 1 from ${stageTable(kind)} s join ${spec.table} t on t.${spec.idColumn} = s.id) as conflict`;
}

/**
 * Keeps the last staged row of each id (one statement may not write a row twice). A hash aggregate finds
 * whether any id repeats; only then are the earlier rows deleted (a sort of every staged row otherwise).
 */
async function dropDuplicateIds(sql: SqlQueryable, kind: DqopsKind): Promise<void> {
  const table = stageTable(kind);
  const [{ repeated }] = await sql.query<{ repeated: boolean }>(`select exists (select 1 from ${table} group by id having count(*) > 1) as repeated`);
  if (repeated) await sql.query(`delete from ${table} a using ${table} b where a.id = b.id and a.seq < b.seq`);
}

const STATEMENTS = new Map(
  DQOPS_KINDS.map((kind) => [
    kind,
    {
      create: `create temporary table ${stageTable(kind).slice('pg_temp.'.length)} (seq bigserial, ${stagedColumnNames(kind).map((c) => `${c} text`).join(', ')}) on commit drop`,
      copy: `copy ${stageTable(kind)} (${stagedColumnNames(kind).join(', ')}) from stdin with (format csv)`,
      count: newCountStatement(kind),
      mayConflict: mayConflictStatement(kind),
      upsert: mergeStatement(kind, 'upsert'),
      insert: mergeStatement(kind, 'insert'),
    },
  ]),
);

/** PostgreSQL's memory per hash or sort while the import merges (a constant, not input). */
const MERGE_WORK_MEM = '128MB';

/** The import, and `refreshTableStatus` for the end of its transaction: the status of the tables whose results it staged. */
export function dqopsDataImport(sql: SqlQueryable): DqopsDataImport & { refreshTableStatus(): Promise<void> } {
  const staged = new Set<DqopsKind>();
  return {
    async refreshTableStatus() {
      const kinds = RESULT_KINDS.filter((kind) => staged.has(kind));
      if (kinds.length === 0) return;
      const tables = await sql.query<TableRef>(
        kinds
          .map((kind) => `select distinct connection_name as connection, schema_name as schema, table_name as table from ${stageTable(kind)}`)
          .join(' union '),
      );
      await refreshTableStatus(sql, tables);
    },
    async stage(kind, rows) {
      if (!staged.has(kind)) {
        await sql.query(STATEMENTS.get(kind)!.create);
        staged.add(kind);
      }
      await sql.copyFrom(STATEMENTS.get(kind)!.copy, rows);
    },
    async merge(progress) {
      const counts = Object.fromEntries(DQOPS_KINDS.map((kind) => [kind, 0])) as Record<DqopsKind, number>;
      // the repeated-id check, the counts and the merge hash or sort every staged row: in memory rather than in
      // temporary files (PostgreSQL's default of 4 MB spills a million ids), for this transaction only
      await sql.query(`set local work_mem = '${MERGE_WORK_MEM}'`);
      const order = IMPORT_ORDER.filter((kind) => staged.has(kind));
      // row counts for the planner (a temporary table is never analyzed by autovacuum)
      for (const kind of order) {
        await dropDuplicateIds(sql, kind);
        await sql.query(`analyze ${stageTable(kind)}`);
      }
      // counted before any kind is stored: a readout whose result this run stores is still new
      for (const kind of order) counts[kind] = (await sql.query<{ n: number }>(STATEMENTS.get(kind)!.count))[0].n;
      let done = 0;
      progress?.(done, order.length);
      for (const kind of order) {
        const statements = STATEMENTS.get(kind)!;
        const [{ conflict }] = await sql.query<{ conflict: boolean }>(statements.mayConflict);
        await sql.query(conflict ? statements.upsert : statements.insert);
        progress?.(++done, order.length);
      }
      return counts;
    },
  };
}

/** A timestamptz as DQOps's text of a timestamp (UTC wall time, microseconds). */
function tsText(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;
}

/** What an export reads of each kind: DQOps's columns (as text) from the store's columns, before `dqops_columns`. */
const EXPORT_SELECT: Record<DqopsKind, { from: string; where: string; order: string; columns: string }> = (() => {
  const check = `dqops_id as id, connection_name, schema_name, table_name, column_name, check_type, time_gradient, check_category,
    check_name, check_hash::text as check_hash, sensor_name, quality_dimension, table_comparison, ${tsText('time_period')} as time_period,
    data_group as data_group_name, expected_value::text as expected_value, duration_ms::text as duration_ms, ${tsText('executed_at')} as executed_at`;
  return {
    sensor_readouts: { from: 'dqctl.check_results', where: 'error_message is null', order: 'id', columns: `${check}, actual_value::text as actual_value` },
    check_results: {
      from: 'dqctl.check_results',
      where: 'error_message is null and verdict',
      order: 'id',
      columns: `${check}, coalesce(rule_actual_value, actual_value)::text as actual_value, severity::text as severity`,
    },
    errors: { from: 'dqctl.check_results', where: 'error_message is not null', order: 'id', columns: `${check}, actual_value::text as actual_value, error_message` },
    statistics: {
      from: 'dqctl.statistics',
      where: 'true',
      order: 'id',
      columns: `dqops_id as id, connection_name, schema_name, table_name, column_name, collector_category, collector_name, data_group as data_group_name,
        ${tsText('collected_at')} as collected_at, duration_ms::text as duration_ms, error_message,
        case when dqops_id is null then result_double::text end as result_float, case when dqops_id is null then result_text end as result_string`,
    },
    error_samples: {
      from: 'dqctl.error_samples',
      where: 'true',
      order: 'id',
      columns: `dqops_id as id, connection_name, schema_name, table_name, column_name, check_type, time_gradient, check_category, check_name,
        check_hash::text as check_hash, sensor_name, quality_dimension, table_comparison, data_group as data_group_name, sample_index::text as sample_index,
        result_data_type as result_type, case when dqops_id is null then result end as result_string, row_id_1, row_id_2, row_id_3, row_id_4, row_id_5, ${tsText('collected_at')} as collected_at,
        ${tsText('executed_at')} as executed_at, duration_ms::text as duration_ms`,
    },
    incidents: {
      from: 'dqctl.incidents',
      where: 'true',
      order: 'id',
      columns: `id, connection_name, schema_name, table_name, table_priority::text as table_priority, incident_hash::text as incident_hash,
        ${tsText('first_seen')} as first_seen, ${tsText('last_seen')} as last_seen, ${tsText('incident_until')} as incident_until,
        data_group as data_group_name, quality_dimension, check_category, check_type, check_name, highest_severity::text as highest_severity,
        minimum_severity::text as minimum_severity, failed_checks_count::text as failed_checks_count, issue_url, status,
        ${tsText('status_changed_at')} as updated_at, status_changed_by as updated_by`,
    },
  };
})();

/** The rows of one DQOps file: a table's month (incidents: a connection's month, schema and table null). */
export interface DqopsPartition {
  connection: string;
  schema: string | null;
  table: string | null;
  /** `YYYY-MM` of the kind's month column (DQOps's `m=` folder). */
  month: string;
  /** The partition's stored rows when it was listed (dqopsPartitions). */
  rows?: number;
}

/** The month that places a stored row in its DQOps partition, as UTC wall time (what the export writes). */
const MONTH_OF: Record<DqopsKind, string> = {
  sensor_readouts: "to_char(time_period at time zone 'UTC', 'YYYY-MM')",
  check_results: "to_char(time_period at time zone 'UTC', 'YYYY-MM')",
  errors: "to_char(coalesce((dqops_columns->>'error_timestamp')::timestamp, executed_at at time zone 'UTC', time_period at time zone 'UTC'), 'YYYY-MM')",
  statistics: "to_char(collected_at at time zone 'UTC', 'YYYY-MM')",
  error_samples: "to_char(collected_at at time zone 'UTC', 'YYYY-MM')",
  incidents: "to_char(first_seen at time zone 'UTC', 'YYYY-MM')",
};

/** The partitions (files) the stored rows of `kind` fill, so that an export holds one file's rows at a time. */
export async function dqopsPartitions(sql: SqlQueryable, kind: DqopsKind): Promise<DqopsPartition[]> {
  const spec = EXPORT_SELECT[kind];
  const tableLevel = kind !== 'incidents';
  const rows = await sql.query<{ connection_name: string; schema_name: string | null; table_name: string | null; month: string; rows: string }>(
    `select connection_name, ${tableLevel ? 'schema_name, table_name' : 'null::text as schema_name, null::text as table_name'}, ${MONTH_OF[kind]} as month,
            count(*)::text as rows
       from ${spec.from} where ${spec.where} group by 1, 2, 3, 4 order by 1, 2, 3, 4`,
  );
  return rows.map((r) => ({ connection: r.connection_name, schema: r.schema_name, table: r.table_name, month: r.month, rows: Number(r.rows) }));
}

/**
 * Every stored row of `kind` (or of one partition of it) as DQOps rows, `batchSize` at a time (keyset pages, so memory holds one page), ordered by
 * connection, schema, table and the row's month column so that a writer meets each partition once. A row of
 * dqctl's own has a null `id` (and no DQOps hashes): the export computes them.
 */
export async function* readDqopsRows(sql: SqlQueryable, kind: DqopsKind, batchSize: number, partition?: DqopsPartition): AsyncGenerator<DqopsRow[]> {
  const spec = EXPORT_SELECT[kind];
  const key = kind === 'incidents' ? 'id' : 'id::text';
  let after: string | null = null;
  // pages by the primary key; the order of partitions is the writer's concern (it sorts each partition's rows)
  for (;;) {
    const rows: Array<DqopsRow & { page_key: string; dqops_columns: Record<string, string | null> | null }> = await sql.query(
      `select ${spec.columns}, dqops_columns, ${key} as page_key from ${spec.from}
        where ${spec.where} and ($1::text is null or ${kind === 'incidents' ? 'id > $1' : 'id > $1::bigint'})
          and ($2::text is null or (connection_name = $2 and ($3::text is null or schema_name = $3) and ($4::text is null or table_name = $4) and ${MONTH_OF[kind]} = $5))
        order by ${spec.order} limit ${Math.max(1, Math.floor(batchSize))}`,
      [after, partition?.connection ?? null, partition?.schema ?? null, partition?.table ?? null, partition?.month ?? null],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1].page_key;
    yield rows.map(({ page_key: _page, dqops_columns, ...row }) => ({ ...(dqops_columns ?? {}), ...withoutNullOverrides(row, dqops_columns) }));
    if (rows.length < batchSize) return;
  }
}

/** The store's values win over the kept DQOps text, except where the store has none (a kept value stays). */
function withoutNullOverrides(row: DqopsRow, kept: Record<string, string | null> | null): DqopsRow {
  if (!kept) return row;
  const out: DqopsRow = {};
  for (const [name, value] of Object.entries(row)) if (value !== null || !(name in kept)) out[name] = value;
  return out;
}
