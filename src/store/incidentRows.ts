import { int64Json, toCheckType, toSeverityNumber, type CheckType, type Int64, type SeverityNumber } from '../model/index.js';
import { chunksOfJson, insertJsonRecords, type RecordColumn } from './sql/jsonChunks.js';
import { isoTimestamp, type SqlParam, type SqlQueryable } from './sql/sqlClient.js';
import { INCIDENT_STATUSES, type IncidentStatus } from '../model/index.js';

/**
 * The SQL of incidents (migration 0005). What an incident becomes is decided by src/incidents (pure); this file
 * only reads and writes rows. Every value is bound; the only SQL chosen at run time is one of the fixed ORDER BY
 * columns below.
 */
export { INCIDENT_STATUSES, type IncidentStatus };

export interface IncidentRecord {
  id: string;
  connection: string;
  schema: string;
  table: string;
  tablePriority: number | null;
  incidentHash: Int64;
  year: number;
  month: number;
  /** ISO-8601 timestamps. */
  firstSeen: string;
  lastSeen: string;
  incidentUntil: string;
  dataGroup: string | null;
  qualityDimension: string | null;
  checkCategory: string | null;
  checkType: CheckType | null;
  checkName: string | null;
  /** 1 warning, 2 error, 3 fatal. */
  highestSeverity: SeverityNumber;
  minimumSeverity: SeverityNumber;
  failedChecksCount: number;
  issueUrl: string | null;
  status: IncidentStatus;
  statusChangedAt: string;
  statusChangedBy: string | null;
}

/** What a notification says of its incident: the incident as it was when the event happened (outboxRows.ts). */
export type IncidentSnapshot = Pick<
  IncidentRecord,
  | 'id'
  | 'connection'
  | 'schema'
  | 'table'
  | 'tablePriority'
  | 'incidentHash'
  | 'year'
  | 'month'
  | 'firstSeen'
  | 'lastSeen'
  | 'incidentUntil'
  | 'dataGroup'
  | 'qualityDimension'
  | 'checkCategory'
  | 'checkType'
  | 'checkName'
  | 'highestSeverity'
  | 'failedChecksCount'
  | 'issueUrl'
>;

const COLUMNS = `id, connection_name, schema_name, table_name, table_priority, incident_hash, year, month,
  ${isoTimestamp('first_seen')} as first_seen, ${isoTimestamp('last_seen')} as last_seen,
  ${isoTimestamp('incident_until')} as incident_until, data_group, quality_dimension, check_category, check_type,
  check_name, highest_severity, minimum_severity, failed_checks_count, issue_url, status,
  ${isoTimestamp('status_changed_at')} as status_changed_at, status_changed_by`;

/** The columns of an incident a notification keeps; the outbox holds them under the same names (migration 0009). */
export interface IncidentSnapshotRow {
  id: string;
  connection_name: string;
  schema_name: string;
  table_name: string;
  table_priority: number | null;
  incident_hash: Int64;
  year: number;
  month: number;
  first_seen: string;
  last_seen: string;
  incident_until: string;
  data_group: string | null;
  quality_dimension: string | null;
  check_category: string | null;
  check_type: string | null;
  check_name: string | null;
  highest_severity: SeverityNumber;
  failed_checks_count: number;
  issue_url: string | null;
}

/** The snapshot columns other than id and connection_name, as the outbox copies them. */
export const SNAPSHOT_COLUMNS = [
  'schema_name',
  'table_name',
  'table_priority',
  'incident_hash',
  'year',
  'month',
  'first_seen',
  'last_seen',
  'incident_until',
  'data_group',
  'quality_dimension',
  'check_category',
  'check_type',
  'check_name',
  'highest_severity',
  'failed_checks_count',
  'issue_url',
] as const satisfies ReadonlyArray<keyof IncidentSnapshotRow>;

interface IncidentRow extends IncidentSnapshotRow {
  minimum_severity: SeverityNumber;
  status: IncidentStatus;
  status_changed_at: string;
  status_changed_by: string | null;
}

export function toIncidentSnapshot(row: IncidentSnapshotRow): IncidentSnapshot {
  return {
    id: row.id,
    connection: row.connection_name,
    schema: row.schema_name,
    table: row.table_name,
    tablePriority: row.table_priority,
    incidentHash: row.incident_hash,
    year: row.year,
    month: row.month,
    firstSeen: row.first_seen,
    lastSeen: row.last_seen,
    incidentUntil: row.incident_until,
    dataGroup: row.data_group,
    qualityDimension: row.quality_dimension,
    checkCategory: row.check_category,
    checkType: row.check_type === null ? null : toCheckType(row.check_type),
    checkName: row.check_name,
    highestSeverity: row.highest_severity,
    failedChecksCount: row.failed_checks_count,
    issueUrl: row.issue_url,
  };
}

function toRecord(row: IncidentRow): IncidentRecord {
  return {
    ...toIncidentSnapshot(row),
    minimumSeverity: row.minimum_severity,
    status: row.status,
    statusChangedAt: row.status_changed_at,
    statusChangedBy: row.status_changed_by,
  };
}

function toRow(r: IncidentRecord): Omit<IncidentRow, 'incident_hash'> & { incident_hash: Int64 } {
  return {
    id: r.id,
    connection_name: r.connection,
    schema_name: r.schema,
    table_name: r.table,
    table_priority: r.tablePriority,
    incident_hash: r.incidentHash,
    year: r.year,
    month: r.month,
    first_seen: r.firstSeen,
    last_seen: r.lastSeen,
    incident_until: r.incidentUntil,
    data_group: r.dataGroup,
    quality_dimension: r.qualityDimension,
    check_category: r.checkCategory,
    check_type: r.checkType,
    check_name: r.checkName,
    highest_severity: r.highestSeverity,
    minimum_severity: r.minimumSeverity,
    failed_checks_count: r.failedChecksCount,
    issue_url: r.issueUrl,
    status: r.status,
    status_changed_at: r.statusChangedAt,
    status_changed_by: r.statusChangedBy,
  };
}

const RECORD_COLUMNS: readonly RecordColumn[] = [
  ['id', 'text'],
  ['connection_name', 'text'],
  ['schema_name', 'text'],
  ['table_name', 'text'],
  ['table_priority', 'integer'],
  ['incident_hash', 'bigint'],
  ['year', 'integer'],
  ['month', 'integer'],
  ['first_seen', 'timestamptz'],
  ['last_seen', 'timestamptz'],
  ['incident_until', 'timestamptz'],
  ['data_group', 'text'],
  ['quality_dimension', 'text'],
  ['check_category', 'text'],
  ['check_type', 'text'],
  ['check_name', 'text'],
  ['highest_severity', 'integer'],
  ['minimum_severity', 'integer'],
  ['failed_checks_count', 'integer'],
  ['issue_url', 'text'],
  ['status', 'text'],
  ['status_changed_at', 'timestamptz'],
  ['status_changed_by', 'text'],
];

/**
 * Serializes writers of the same grouping keys until the transaction ends (two runs of one table at once must
 * not both open an incident for one key). A transaction-level advisory lock per connection and table, all taken
 * in one statement, in sorted order (a set function's rows come in the array's order), so that two writers of
 * overlapping tables cannot deadlock.
 */
export async function lockIncidentKeys(sql: SqlQueryable, connection: string, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  await sql.query(`select ${LOCK_TABLES} as locked`, [incidentLockKeys(connection, tables)]);
}

/** The lock keys of these tables' incidents, sorted (JSON for LOCK_TABLES's parameter). */
function incidentLockKeys(connection: string, tables: readonly string[]): string {
  return JSON.stringify([...new Set(tables)].sort().map((table) => JSON.stringify(['dqctl.incidents', connection, table])));
}

/** The advisory locks of the keys in parameter $1 (a JSON array), in its order; a scalar subquery, run before the statement's scan. */
const LOCK_TABLES = `(select count(*) from (select pg_advisory_xact_lock(hashtextextended(key, 0)) from jsonb_array_elements_text($1::text::jsonb) as key) as locks)`;

/**
 * Per hash: the newest incident of a connection first seen at or before `at` (one row per hash that has any), the
 * one a failure seen at `at` may join. A run whose clock is earlier than a newer incident (a re-run of a past
 * time) is matched against what existed at its time, not against the later incident.
 */
export async function incidentsAsOf(
  sql: SqlQueryable,
  connection: string,
  keys: ReadonlyArray<{ incidentHash: Int64; at: string }>,
  options: { lockTables?: readonly string[] } = {},
): Promise<IncidentRecord[]> {
  if (keys.length === 0) return [];
  // with lockTables: the writers' locks of those tables first (lockIncidentKeys), in the same statement
  const rows = await sql.query<IncidentRow>(
    `select distinct on (i.incident_hash) ${COLUMNS} from dqctl.incidents i
       join (select (k->>0)::bigint as key_hash, (k->>1)::timestamptz as key_at from jsonb_array_elements($3::text::jsonb) as k) as keys
         on i.incident_hash = keys.key_hash and i.first_seen <= keys.key_at
      where i.connection_name = $2 and ${LOCK_TABLES} >= 0
      order by i.incident_hash, i.first_seen desc, i.id desc`,
    [incidentLockKeys(connection, options.lockTables ?? []), connection, int64Json(keys.map((k) => [k.incidentHash, k.at]))],
  );
  return rows.map(toRecord);
}

export async function insertIncidents(sql: SqlQueryable, records: readonly IncidentRecord[]): Promise<void> {
  if (records.length === 0) return;
  await insertJsonRecords(sql, 'dqctl.incidents', RECORD_COLUMNS, records.map(toRow));
}

/** Writes every mutable field of these incidents (by id), in one statement per chunk (rows as arrays, as inserts). */
export async function updateIncidents(sql: SqlQueryable, records: readonly IncidentRecord[]): Promise<void> {
  if (records.length === 0) return;
  const statement = `update dqctl.incidents i set
      last_seen = (r->>1)::timestamptz, incident_until = (r->>2)::timestamptz, highest_severity = (r->>3)::integer,
      failed_checks_count = (r->>4)::integer, issue_url = r->>5, status = r->>6,
      status_changed_at = (r->>7)::timestamptz, status_changed_by = r->>8
    from jsonb_array_elements($1::text::jsonb) as r
    where i.id = r->>0`;
  const rows = records.map((r) =>
    JSON.stringify([r.id, r.lastSeen, r.incidentUntil, r.highestSeverity, r.failedChecksCount, r.issueUrl, r.status, r.statusChangedAt, r.statusChangedBy]),
  );
  for (const chunk of chunksOfJson(rows)) await sql.query(statement, [chunk]);
}

/** One incident by id alone (ids are unique across connections). */
export async function findIncidentById(sql: SqlQueryable, id: string): Promise<IncidentRecord | undefined> {
  const rows = await sql.query<IncidentRow>(`select ${COLUMNS} from dqctl.incidents where id = $1`, [id]);
  return rows[0] ? toRecord(rows[0]) : undefined;
}

/** One incident by id, locked for update when asked (inside a transaction). */
export async function findIncident(sql: SqlQueryable, connection: string, id: string, options: { forUpdate?: boolean } = {}): Promise<IncidentRecord | undefined> {
  const rows = await sql.query<IncidentRow>(
    `select ${COLUMNS} from dqctl.incidents where connection_name = $1 and id = $2${options.forUpdate ? ' for update' : ''}`,
    [connection, id],
  );
  return rows[0] ? toRecord(rows[0]) : undefined;
}

export type IncidentSortOrder =
  | 'table'
  | 'tablePriority'
  | 'firstSeen'
  | 'lastSeen'
  | 'dataGroup'
  | 'qualityDimension'
  | 'checkName'
  | 'highestSeverity'
  | 'failedChecksCount';

const ORDER_COLUMNS: Record<IncidentSortOrder, string> = {
  table: 'schema_name collate "C", table_name collate "C"',
  tablePriority: 'table_priority',
  firstSeen: 'first_seen',
  lastSeen: 'last_seen',
  dataGroup: 'data_group collate "C"',
  qualityDimension: 'quality_dimension collate "C"',
  checkName: 'check_name collate "C"',
  highestSeverity: 'highest_severity',
  failedChecksCount: 'failed_checks_count',
};

export interface IncidentFilter {
  /** Absent: every connection. */
  connection?: string;
  /** Only incidents first seen on or after this instant (ISO-8601). */
  firstSeenFrom?: string;
  statuses?: readonly IncidentStatus[];
  /** Only this highest severity. */
  severity?: SeverityNumber;
  /** Only incidents whose id starts with this (a prefix given on the command line, as git takes a commit's). */
  idPrefix?: string;
  /** Case-insensitive substring of schema.table, data group, quality dimension, check category or check name. */
  text?: string;
  qualityDimension?: string;
  checkCategory?: string;
  order?: IncidentSortOrder;
  direction?: 'asc' | 'desc';
  /** 1-based page of `limit` rows. */
  page?: number;
  limit?: number;
}

export async function listIncidents(sql: SqlQueryable, filter: IncidentFilter): Promise<IncidentRecord[]> {
  const params: SqlParam[] = [];
  const where: string[] = [];
  const bind = (value: SqlParam): string => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.connection !== undefined) where.push(`connection_name = ${bind(filter.connection)}`);
  if (filter.idPrefix !== undefined) where.push(`id::text like ${bind(`${filter.idPrefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)} escape '\\'`);
  if (filter.firstSeenFrom) where.push(`first_seen >= ${bind(filter.firstSeenFrom)}::timestamptz`);
  if (filter.statuses) where.push(`status in (select jsonb_array_elements_text(${bind(JSON.stringify(filter.statuses))}::text::jsonb))`);
  if (filter.severity !== undefined) where.push(`highest_severity = ${bind(filter.severity)}`);
  if (filter.qualityDimension) where.push(`quality_dimension = ${bind(filter.qualityDimension)}`);
  if (filter.checkCategory) where.push(`check_category = ${bind(filter.checkCategory)}`);
  if (filter.text) {
    const p = bind(`%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(
      `(schema_name || '.' || table_name ilike ${p} escape '\\' or coalesce(data_group, '') ilike ${p} escape '\\' or ` +
        `coalesce(quality_dimension, '') ilike ${p} escape '\\' or coalesce(check_category, '') ilike ${p} escape '\\' or ` +
        `coalesce(check_name, '') ilike ${p} escape '\\')`,
    );
  }
  const order = ORDER_COLUMNS[filter.order ?? 'firstSeen'] ?? ORDER_COLUMNS.firstSeen;
  const direction = filter.direction === 'asc' ? 'asc' : 'desc';
  const orderBy = order
    .split(', ')
    .map((column) => `${column} ${direction} nulls last`)
    .join(', ');
  const limit = filter.limit ?? 50;
  const page = Math.max(1, filter.page ?? 1);
  const rows = await sql.query<IncidentRow>(
    `select ${COLUMNS} from dqctl.incidents ${where.length > 0 ? `where ${where.join(' and ')}` : ''}
     order by ${orderBy}, first_seen desc, id limit ${bind(limit)} offset ${bind((page - 1) * limit)}`,
    params,
  );
  return rows.map(toRecord);
}

/** Per connection: its open incidents and the newest first_seen of any (GET /api/incidentstat). */
export async function incidentStatistics(sql: SqlQueryable): Promise<Array<{ connection: string; openIncidents: number; mostRecentFirstSeen: string }>> {
  const rows = await sql.query<{ connection_name: string; open_incidents: number | string; most_recent: string }>(
    `select connection_name, count(*) filter (where status = 'open')::int as open_incidents, ${isoTimestamp('max(first_seen)')} as most_recent
     from dqctl.incidents group by connection_name order by connection_name collate "C"`,
  );
  return rows.map((r) => ({ connection: r.connection_name, openIncidents: Number(r.open_incidents), mostRecentFirstSeen: r.most_recent }));
}

/** Deletes the incidents (and their outbox rows) of a connection, narrowed to tables when given. */
export async function deleteIncidents(
  sql: SqlQueryable,
  request: {
    connection: string;
    schemaPattern: string;
    tablePattern: string;
    exactTable?: { schema: string; table: string };
    /** ISO dates, both days included, of first_seen. */
    firstSeenFrom?: string;
    firstSeenTo?: string;
  },
): Promise<number> {
  const params: SqlParam[] = [request.connection];
  let where = 'connection_name = $1';
  if (request.exactTable) {
    params.push(request.exactTable.schema, request.exactTable.table);
    where += ' and schema_name = $2 and table_name = $3';
  } else {
    params.push(request.schemaPattern, request.tablePattern);
    where += ` and schema_name like $2 escape '\\' and table_name like $3 escape '\\'`;
  }
  if (request.firstSeenFrom) {
    params.push(request.firstSeenFrom);
    where += ` and (first_seen at time zone 'UTC')::date >= $${params.length}::date`;
  }
  if (request.firstSeenTo) {
    params.push(request.firstSeenTo);
    where += ` and (first_seen at time zone 'UTC')::date <= $${params.length}::date`;
  }
  const deleted = await sql.query<{ id: string }>(`delete from dqctl.incidents where ${where} returning id`, params);
  if (deleted.length > 0) {
    await sql.query(
      `delete from dqctl.notification_outbox where status <> 'pending' and incident_id in (select jsonb_array_elements_text($1::text::jsonb))`,
      [JSON.stringify(deleted.map((d) => d.id))],
    );
  }
  return deleted.length;
}

export interface IncidentIssuesFilter {
  /** Only this column's results. */
  column?: string;
  /** Only this check's results. */
  checkName?: string;
  /** Case-insensitive substring of the check name or column name. */
  text?: string;
  /** `executed_at >= from` (ISO-8601). */
  executedFrom?: string;
  /** `executed_at < to` (ISO-8601). */
  executedTo?: string;
  /** 1-based page of `limit` rows; default all (up to 100,000). */
  page?: number;
  limit?: number;
  direction?: 'asc' | 'desc';
}

export interface IncidentIssueRow {
  id: number;
  checkHash: number;
  checkCategory: string;
  checkName: string;
  checkType: CheckType;
  timeGradient: string;
  columnName: string | null;
  dataGroup: string;
  qualityDimension: string | null;
  sensorName: string | null;
  tableComparison: string | null;
  actualValue: number | null;
  expectedValue: number | null;
  severity: SeverityNumber;
  durationMs: number | null;
  timePeriod: string;
  executedAt: string;
}

/**
 * The check results grouped into an incident: its table's failures at or above its minimum severity, seen
 * between its first and last failure, that share its grouping key (the key fields the incident has set).
 */
export async function incidentIssues(sql: SqlQueryable, incident: IncidentRecord, filter: IncidentIssuesFilter = {}): Promise<IncidentIssueRow[]> {
  const params: SqlParam[] = [];
  const bind = (value: SqlParam): string => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [
    `connection_name = ${bind(incident.connection)}`,
    `schema_name = ${bind(incident.schema)}`,
    `table_name = ${bind(incident.table)}`,
    `severity >= ${bind(incident.minimumSeverity)}`,
    'verdict',
    `executed_at >= ${bind(incident.firstSeen)}::timestamptz`,
    `executed_at <= ${bind(incident.lastSeen)}::timestamptz`,
  ];
  if (incident.dataGroup !== null) where.push(`data_group = ${bind(incident.dataGroup)}`);
  if (incident.qualityDimension !== null) where.push(`quality_dimension = ${bind(incident.qualityDimension)}`);
  if (incident.checkCategory !== null) where.push(`check_category = ${bind(incident.checkCategory)}`);
  if (incident.checkType !== null) where.push(`check_type = ${bind(incident.checkType)}`);
  if (incident.checkName !== null) where.push(`check_name = ${bind(incident.checkName)}`);
  if (filter.column !== undefined) where.push(`column_name = ${bind(filter.column)}`);
  if (filter.checkName !== undefined) where.push(`check_name = ${bind(filter.checkName)}`);
  if (filter.executedFrom) where.push(`executed_at >= ${bind(filter.executedFrom)}::timestamptz`);
  if (filter.executedTo) where.push(`executed_at < ${bind(filter.executedTo)}::timestamptz`);
  if (filter.text) {
    const p = bind(`%${filter.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(check_name ilike ${p} escape '\\' or coalesce(column_name, '') ilike ${p} escape '\\')`);
  }
  const limit = filter.limit ?? 100_000;
  const page = Math.max(1, filter.page ?? 1);
  const rows = await sql.query<Record<string, unknown>>(
    `select id, check_hash, check_category, check_name, check_type, time_gradient, column_name, data_group, quality_dimension,
            sensor_name, table_comparison, coalesce(rule_actual_value, actual_value) as actual_value, expected_value, severity, duration_ms,
            ${isoTimestamp('time_period')} as time_period, ${isoTimestamp('executed_at')} as executed_at
       from dqctl.check_results where ${where.join(' and ')}
      order by executed_at ${filter.direction === 'asc' ? 'asc' : 'desc'}, id limit ${bind(limit)} offset ${bind((page - 1) * limit)}`,
    params,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    checkHash: Number(r.check_hash),
    checkCategory: r.check_category as string,
    checkName: r.check_name as string,
    checkType: toCheckType(r.check_type as string),
    timeGradient: r.time_gradient as string,
    columnName: r.column_name as string | null,
    dataGroup: r.data_group as string,
    qualityDimension: r.quality_dimension as string | null,
    sensorName: r.sensor_name as string | null,
    tableComparison: r.table_comparison as string | null,
    actualValue: r.actual_value === null ? null : Number(r.actual_value),
    expectedValue: r.expected_value === null ? null : Number(r.expected_value),
    severity: toSeverityNumber(Number(r.severity)),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    timePeriod: r.time_period as string,
    executedAt: r.executed_at as string,
  }));
}
