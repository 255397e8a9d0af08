import { DqError } from '../model/index.js';
import { chunksOfJson } from './sql/jsonChunks.js';
import { refreshTableStatus, type TableRef } from './tableStatus.js';
import type { SqlQueryable } from './sql/sqlClient.js';
import { RESULT_KEY_PREDICATE, RESULT_KEY_SQL } from './resultKey.js';

/**
 * DQOps's `.data/` history in the store (migration 0012): rows of DQOps's six Parquet tables, as text values keyed
 * by DQOps's column names, upserted by DQOps's own id and read back in the same form for an export. The Parquet
 * side (files, folders, types) is src/dqopsdata's; this file knows only which DQOps column lands in which store
 * column. Every DQOps column without a store column of its own is kept as text in `dqops_columns`, so a row goes
 * back out as it came in (64-bit hashes and microseconds included).
 *
 * Readouts and check results share one store row (one per check, time period and data group: resultKey.ts): a
 * readout alone is a row without verdict; its check result adds the severity and the verdict. DQOps's errors are
 * the execution errors among check_results.
 */
export const DQOPS_KINDS = ['sensor_readouts', 'check_results', 'errors', 'statistics', 'error_samples', 'incidents'] as const;
export type DqopsKind = (typeof DQOPS_KINDS)[number];

/** One DQOps row: column name → its value as text (null: missing). Incidents carry `connection_name` from their folder. */
export type DqopsRow = Record<string, string | null>;

/** The import of one run, inside its one transaction. */
export interface DqopsDataImport {
  /** Stores the rows of one kind (upserts by DQOps's id); returns how many were not stored before. */
  importRows(kind: DqopsKind, rows: readonly DqopsRow[]): Promise<number>;
}

/** A store column fed by a DQOps column: [store column, SQL type, DQOps column]. */
type Mapped = readonly [column: string, type: string, dqops: string];

const CHECK_MAPPED: readonly Mapped[] = [
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
  ['time_period', 'timestamp', 'time_period'],
  ['data_group', 'text', 'data_group_name'],
  ['actual_value', 'double precision', 'actual_value'],
  ['expected_value', 'double precision', 'expected_value'],
  ['duration_ms', 'integer', 'duration_ms'],
  ['executed_at', 'timestamp', 'executed_at'],
];

const MAPPED: Record<DqopsKind, readonly Mapped[]> = {
  sensor_readouts: CHECK_MAPPED,
  check_results: [...CHECK_MAPPED, ['severity', 'integer', 'severity']],
  errors: [...CHECK_MAPPED, ['error_message', 'text', 'error_message']],
  statistics: [
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
  error_samples: [
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
  incidents: [
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
};

/** The typed result columns of statistics and error samples, in the order DQOps fills one of them. */
const TYPED_RESULTS = ['result_string', 'result_integer', 'result_float', 'result_boolean', 'result_date', 'result_date_time', 'result_instant', 'result_time'];

/** A value of the row array as SQL: timestamps without zone are read as UTC (DQOps's local time periods are kept as wall time). */
function valueSql(type: string, i: number): string {
  if (type === 'timestamp') return `((r->>${i})::timestamp at time zone 'UTC')`;
  return `(r->>${i})::${type}`;
}

/** The row arrays sent for `kind`: the mapped values, then `dqops_columns` (every other column) as the last element. */
function rowArrays(kind: DqopsKind, rows: readonly DqopsRow[]): string[] {
  const mapped = MAPPED[kind];
  const taken = new Set(mapped.map(([, , dqops]) => dqops));
  if (kind === 'incidents') taken.add('connection_name');
  const grouped = kind !== 'incidents';
  return rows.map((row) => {
    if (grouped && row.data_group_name == null) row = { ...row, data_group_name: 'all data' };
    const values: Array<string | null | Record<string, string | null>> = mapped.map(([, , dqops]) => row[dqops] ?? null);
    const extra: Record<string, string | null> = {};
    for (const [name, value] of Object.entries(row)) if (!taken.has(name) && value !== null) extra[name] = value;
    values.push(extra);
    // every value is text (64-bit hashes as their digits): plain JSON keeps them exact
    return JSON.stringify(values);
  });
}

/** Drops repeated ids of one batch (one statement may not upsert a row twice), the last one winning. */
function lastOfEachId(rows: readonly DqopsRow[]): DqopsRow[] {
  const byId = new Map<string, DqopsRow>();
  for (const row of rows) {
    const id = row.id;
    if (!id) throw new DqError('INVALID_ARGUMENT', 'a DQOps row without an id');
    byId.set(id, row);
  }
  return [...byId.values()];
}

/**
 * How many of these ids a kind already has stored (so that `new` counts the others). The ids are joined one by one
 * through the unique index (a nested loop over unnest): inside the import's one transaction the planner's statistics
 * still describe the table as it was before, and `= any(array)` over a table grown since turned into a scan.
 */
async function storedIds(sql: SqlQueryable, kind: DqopsKind, ids: readonly string[]): Promise<number> {
  const where: Record<DqopsKind, [table: string, key: string, filter: string]> = {
    // a row whose result this run inserted is not a stored readout (results are imported first)
    sensor_readouts: ['dqctl.check_results', 'dqops_id', `s.error_message is null and not exists (select 1 from pg_temp.${NEW_RESULTS} n where n.id = s.dqops_id)`],
    check_results: ['dqctl.check_results', 'dqops_id', 's.error_message is null and s.verdict'],
    errors: ['dqctl.check_results', 'dqops_id', 's.error_message is not null'],
    statistics: ['dqctl.statistics', 'dqops_id', 'true'],
    error_samples: ['dqctl.error_samples', 'dqops_id', 'true'],
    incidents: ['dqctl.incidents', 'id', 'true'],
  };
  const [table, key, filter] = where[kind];
  const [{ n }] = await sql.query<{ n: number }>(
    `select count(*)::integer as n from jsonb_array_elements_text($1::text::jsonb) as i(id)
       cross join lateral (select 1 from ${table} s where s.${key} = i.id and ${filter} limit 1) as stored`,
    [JSON.stringify(ids)],
  );
  return n;
}

/** This run's newly inserted check results (a temporary table of the import's transaction). */
const NEW_RESULTS = 'dqops_import_new_results';

/**
 * The order an import stores the kinds in: check results before their readouts (see the readouts' upsert), and
 * both before the errors, samples and incidents.
 */
export const IMPORT_ORDER: readonly DqopsKind[] = ['check_results', 'sensor_readouts', 'errors', 'statistics', 'error_samples', 'incidents'];

function upsertStatement(kind: DqopsKind): string {
  const mapped = MAPPED[kind];
  const columns = mapped.map(([column]) => column);
  const values = mapped.map(([, type], i) => valueSql(type, i));
  const extra = `coalesce(r->${mapped.length}, '{}'::jsonb)`;
  const set = (names: readonly string[]) => names.map((c) => `${c} = excluded.${c}`).join(', ');
  const from = 'from jsonb_array_elements($1::text::jsonb) as r';
  const checkColumns = ['check_hash', 'sensor_name', 'quality_dimension', 'expected_value', 'duration_ms', 'executed_at', 'dqops_id'];
  switch (kind) {
    case 'sensor_readouts': {
      // A readout alone is stored as dqctl stores one without verdict: severity 0, verdict false. The import writes
      // results BEFORE readouts (IMPORT_ORDER): a readout whose result is stored already (same DQOps id) only
      // brings the sensor's value when the rule reported another one, so most readouts write nothing (one write
      // of each row instead of two).
      const sameResult = 'check_results.verdict and check_results.dqops_id is not distinct from excluded.dqops_id';
      const keepResults = (names: readonly string[]) => names.map((c) => `${c} = case when ${sameResult} then check_results.${c} else excluded.${c} end`).join(', ');
      return `insert into dqctl.check_results (${columns.join(', ')}, dqops_columns, verdict, severity)
        select ${values.join(', ').replace(valueSql('timestamp', 18), `coalesce(${valueSql('timestamp', 18)}, ${valueSql('timestamp', 13)})`)}, ${extra}, false, 0 ${from}
        on conflict (${RESULT_KEY_SQL}) where ${RESULT_KEY_PREDICATE}
        do update set ${keepResults(checkColumns)}, actual_value = excluded.actual_value,
          rule_actual_value = case when ${sameResult} and check_results.actual_value is distinct from excluded.actual_value
            then check_results.actual_value else check_results.rule_actual_value end,
          dqops_columns = case when ${sameResult} then excluded.dqops_columns || check_results.dqops_columns
            else coalesce(check_results.dqops_columns, '{}'::jsonb) || excluded.dqops_columns end
        where not (${sameResult}) or check_results.actual_value is distinct from excluded.actual_value`;
    }
    case 'check_results':
      // the ids this run inserts are remembered, so that their readouts still count as new (storedIds)
      return `with written as (insert into dqctl.check_results (${columns.join(', ')}, dqops_columns, verdict)
        select ${values.join(', ').replace(valueSql('timestamp', 18), `coalesce(${valueSql('timestamp', 18)}, ${valueSql('timestamp', 13)})`)}, ${extra}, true ${from}
        on conflict (${RESULT_KEY_SQL}) where ${RESULT_KEY_PREDICATE}
        do update set ${set([...checkColumns, 'severity'])}, verdict = true,
          rule_actual_value = case when check_results.actual_value is distinct from excluded.actual_value then excluded.actual_value end,
          dqops_columns = coalesce(check_results.dqops_columns, '{}'::jsonb) || excluded.dqops_columns
        returning dqops_id, xmax::text = '0' as inserted)
        insert into pg_temp.${NEW_RESULTS} select dqops_id from written where inserted on conflict do nothing`;
    case 'errors':
      // an execution error: when DQOps recorded no execution time, the error's own timestamp
      return `insert into dqctl.check_results (${columns.join(', ')}, dqops_columns, verdict)
        select ${values.join(', ').replace(valueSql('timestamp', 18), `coalesce(${valueSql('timestamp', 18)}, ((r->${mapped.length}->>'error_timestamp')::timestamp at time zone 'UTC'), ${valueSql('timestamp', 13)})`)},
          ${extra}, true ${from}
        on conflict (dqops_id) do update set ${set(columns.filter((c) => c !== 'dqops_id'))}, dqops_columns = excluded.dqops_columns`;
    case 'statistics': {
      // one typed result of DQOps → dqctl's double (numbers) or text (the others)
      const result = `coalesce((r->${mapped.length}->>'result_float')::double precision, (r->${mapped.length}->>'result_integer')::double precision)`;
      const text = `case when (r->${mapped.length}->>'result_float') is null and (r->${mapped.length}->>'result_integer') is null then coalesce(${TYPED_RESULTS.map((t) => `r->${mapped.length}->>'${t}'`).join(', ')}) end`;
      return `insert into dqctl.statistics (${columns.join(', ')}, result_double, result_text, dqops_columns)
        select ${values.join(', ')}, ${result}, ${text}, ${extra} ${from}
        on conflict (dqops_id) do update set ${set(columns.filter((c) => c !== 'dqops_id'))}, result_double = excluded.result_double,
          result_text = excluded.result_text, dqops_columns = excluded.dqops_columns`;
    }
    case 'error_samples': {
      const result = `coalesce(${TYPED_RESULTS.map((t) => `r->${mapped.length}->>'${t}'`).join(', ')})`;
      return `insert into dqctl.error_samples (${columns.join(', ')}, result, dqops_columns)
        select ${values.join(', ')}, ${result}, ${extra} ${from}
        on conflict (dqops_id) do update set ${set(columns.filter((c) => c !== 'dqops_id'))}, result = excluded.result, dqops_columns = excluded.dqops_columns`;
    }
    case 'incidents': {
      // an incident belongs to the month of its first failure; its status last changed when DQOps last updated it
      const firstSeen = valueSql('timestamp', 6);
      const changedAt = `coalesce((r->${mapped.length}->>'updated_at')::timestamp at time zone 'UTC', (r->${mapped.length}->>'created_at')::timestamp at time zone 'UTC', ${firstSeen})`;
      return `insert into dqctl.incidents (${columns.join(', ')}, year, month, status_changed_at, status_changed_by, dqops_columns)
        select ${values.join(', ')}, extract(year from ${firstSeen} at time zone 'UTC')::integer, extract(month from ${firstSeen} at time zone 'UTC')::integer,
          ${changedAt}, r->${mapped.length}->>'updated_by', ${extra} ${from}
        on conflict (id) do update set ${set(columns.filter((c) => c !== 'id'))}, year = excluded.year, month = excluded.month,
          status_changed_at = excluded.status_changed_at, status_changed_by = excluded.status_changed_by, dqops_columns = excluded.dqops_columns`;
    }
  }
}

const STATEMENTS = new Map<DqopsKind, string>(DQOPS_KINDS.map((kind) => [kind, upsertStatement(kind)]));

/** The import, and `refreshTableStatus` for the end of its transaction: the status of the tables whose results it wrote. */
export function dqopsDataImport(sql: SqlQueryable): DqopsDataImport & { refreshTableStatus(): Promise<void> } {
  let prepared = false;
  const touched = new Map<string, TableRef>();
  return {
    async refreshTableStatus() {
      await refreshTableStatus(sql, touched.values());
    },
    async importRows(kind, rows) {
      if (rows.length === 0) return 0;
      if (kind === 'sensor_readouts' || kind === 'check_results' || kind === 'errors') {
        for (const row of rows) {
          const table = { connection: row.connection_name ?? '', schema: row.schema_name ?? '', table: row.table_name ?? '' };
          touched.set(JSON.stringify(table), table);
        }
      }
      if (!prepared) {
        await sql.query(`create temporary table if not exists ${NEW_RESULTS} (id text primary key) on commit drop`);
        prepared = true;
      }
      const unique = lastOfEachId(rows);
      const before = await storedIds(sql, kind, unique.map((row) => row.id!));
      for (const chunk of chunksOfJson(rowArrays(kind, unique))) await sql.query(STATEMENTS.get(kind)!, [chunk]);
      return unique.length - before;
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
  const rows = await sql.query<{ connection_name: string; schema_name: string | null; table_name: string | null; month: string }>(
    `select distinct connection_name, ${tableLevel ? 'schema_name, table_name' : 'null::text as schema_name, null::text as table_name'}, ${MONTH_OF[kind]} as month
       from ${spec.from} where ${spec.where} order by 1, 2, 3, 4`,
  );
  return rows.map((r) => ({ connection: r.connection_name, schema: r.schema_name, table: r.table_name, month: r.month }));
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
