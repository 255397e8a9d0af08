/**
 * The console's one API client: every request goes through `request`, which adds the bearer token (kept in
 * sessionStorage, so it ends with the tab) and turns a 401 into "sign in again" for the whole app. The types
 * follow the server's own schemas (schemas/api/*.json); only the fields the console reads are named.
 */
import type { ObjectKindName, QualityStatus, SyncStatus } from './words';

const TOKEN_KEY = 'dqctl.token';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export function getToken(): string | null {
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

export async function request<T>(method: string, path: string, options: { body?: unknown; token?: string | null; text?: boolean } = {}): Promise<T> {
  const token = options.token === undefined ? getToken() : options.token;
  const headers: Record<string, string> = { accept: options.text ? 'text/plain' : 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  } catch (error) {
    throw new ApiError(0, 'NETWORK', `the server did not answer (${(error as Error).message})`);
  }
  if (!response.ok) {
    let code = 'HTTP_' + response.status;
    let message = `${method} ${path} answered ${response.status}`;
    try {
      const body = (await response.json()) as { code?: string; message?: string };
      if (body.code) code = body.code;
      if (body.message) message = body.message;
    } catch {
      // not a JSON error body: keep the status line
    }
    if (response.status === 401 && options.token === undefined) for (const listener of unauthorizedListeners) listener();
    throw new ApiError(response.status, code, message);
  }
  if (response.status === 204) return undefined as T;
  return (options.text ? await response.text() : await response.json()) as T;
}

/**
 * A GET started before the app knows who is signed in (the overview, at boot), used once by the first `get` of
 * the same path when it succeeded: the page's data and the profile travel together instead of one after the other.
 */
const prefetched = new Map<string, Promise<unknown>>();

export function prefetch(path: string): void {
  prefetched.set(path, request<unknown>('GET', path, { token: getToken() }).catch(() => undefined));
}

export async function get<T>(path: string): Promise<T> {
  const early = prefetched.get(path);
  if (early) {
    prefetched.delete(path);
    const value = await early;
    if (value !== undefined) return value as T;
  }
  return request<T>('GET', path);
}

export function tablePath(connection: string, schema: string, table: string): string {
  return `/api/connections/${encodeURIComponent(connection)}/schemas/${encodeURIComponent(schema)}/tables/${encodeURIComponent(table)}`;
}

export interface Profile {
  user: string;
  account_role: 'viewer' | 'editor' | 'operator' | 'admin';
  can_run_checks: boolean;
  can_collect_statistics: boolean;
  can_manage_incidents: boolean;
  can_cancel_jobs: boolean;
  features?: { incidents?: boolean };
}

export type SeverityCounts = Record<QualityStatus, number>;

export interface Overview {
  generated_at: string;
  sync: {
    sync: 'Synced' | 'OutOfSync' | 'Unknown';
    health: 'Healthy' | 'Degraded' | 'Suspended';
    message: string | null;
    loop: boolean;
    repository: { type: string; location: string; branch: string | null; revision: string | null; short_revision: string | null } | null;
    last_applied: { revision: string | null; short_revision: string | null; applied_at: string; applied_by: string } | null;
    environment?: { loaded: string | null; applied: string | null };
    last_pass: { finished_at: string; result: string; error: string | null } | null;
    counts: Record<SyncStatus, number>;
    compared_at: string | null;
  };
  objects: { total: number; by_kind: Record<ObjectKindName, { git: number; api: number }>; by_owner: { git: number; api: number } };
  not_synced: Array<{ kind: ObjectKindName; name: string; status: SyncStatus; reason: string; fields: string[]; file: string | null }>;
  not_synced_count: number;
  connections: Array<{ name: string; managed_by: string; sync_status: SyncStatus; tables: number; quality_status: QualityStatus; tables_by_quality: SeverityCounts }>;
  quality: {
    tables_by_quality: SeverityCounts;
    results: { valid: number; warnings: number; errors: number; fatals: number; execution_errors: number };
    last_executed_at: string | null;
    worst_tables: Array<{ connection: string; schema: string; table: string; quality_status: QualityStatus; errors: number; warnings: number; fatals: number }>;
  };
  jobs: { queued: number; running: number; active: Array<{ job_id: number; job_type: string; status: string; created_at: string; started_at: string | null; created_by: string | null }> };
}

export interface ObjectRow {
  kind: ObjectKindName;
  name: string;
  connection: string | null;
  schema: string | null;
  table: string | null;
  managed_by: 'git' | 'api';
  origin_file: string | null;
  sync_status: SyncStatus;
  quality_status: QualityStatus;
}

export interface EffectiveCheck {
  target: 'table' | 'column';
  column_name: string | null;
  check_type: 'profiling' | 'monitoring' | 'partitioned';
  time_scale: 'daily' | 'monthly' | null;
  check_category: string;
  check_name: string;
  /** The comparison of a comparison check (category comparisons); null for the others. */
  table_comparison: string | null;
  reference_column: string | null;
  origin: { source: 'table' | 'policy'; policy_name: string | null; priority: number | null };
  disabled: boolean;
  rules: Partial<Record<'warning' | 'error' | 'fatal', Record<string, unknown>>>;
  /** The check's newest run: its highest severity, counts, and the row with the highest severity. */
  latest_results: {
    executed_at: string;
    severity: 'valid' | 'warning' | 'error' | 'fatal' | null;
    valid: number;
    warnings: number;
    errors: number;
    fatals: number;
    execution_errors: number;
    time_period: string;
    data_group: string;
    actual_value: number | null;
    expected_value: number | null;
    error_message: string | null;
  } | null;
}

export interface ResultEntry {
  time_period: string;
  executed_at: string;
  data_group: string;
  actual_value: number | null;
  expected_value: number | null;
  severity: 'valid' | 'warning' | 'error' | 'fatal' | null;
  error_message: string | null;
}

export interface CheckHistory {
  check_type: string;
  time_gradient: string;
  check_category: string;
  check_name: string;
  column_name: string | null;
  table_comparison: string | null;
  quality_dimension: string | null;
  results: ResultEntry[];
}

export interface ErrorSample {
  checkName?: string;
  columnName?: string;
  result?: unknown;
  collectedAt?: string;
  dataGroup?: string;
  rowId1?: string;
}

export interface TableKey {
  connection_name: string;
  physical_table_name: { schema_name: string; table_name: string };
  compact_key?: string;
}

export interface QualityStatusModel {
  current_severity: 'valid' | 'warning' | 'error' | 'fatal' | null;
  last_check_executed_at: string | null;
  valid_results?: number;
  execution_errors?: number;
  warnings?: number;
  errors?: number;
  fatals?: number;
}

export interface LineageTree {
  relative_table: TableKey;
  relative_table_cumulative_quality_status: QualityStatusModel | null;
  flows: Array<{
    source_table: TableKey;
    target_table: TableKey;
    source_table_quality_status: QualityStatusModel | null;
    target_table_quality_status: QualityStatusModel | null;
  }>;
}

export interface LineageTableList {
  connection: string;
  schema: string;
  table: string;
  direction: 'source' | 'target';
}

export interface JobEntry {
  jobId: { jobId: number; createdAt: string; jobBusinessKey?: string };
  jobType: string;
  parameters: Record<string, unknown>;
  status: string;
  statusChangedAt: string;
  errorMessage?: string;
  result?: Record<string, unknown>;
  createdBy?: string;
  startedAt?: string;
  finishedAt?: string;
}

export interface ApplyEntry {
  id: number;
  applied_at: string;
  applied_by: string;
  commit: string | null;
  repository: string | null;
  summary: unknown;
}

export interface GitopsStatus {
  objects: Array<{ kind: ObjectKindName; name: string; status: SyncStatus; reason: string; fields: string[]; file: string | null }>;
}

/** DQOps's IncidentModel (camelCase), as the incidents API serves it: times are epoch milliseconds. */
export interface Incident {
  incidentId: string;
  connection: string;
  year: number;
  month: number;
  schema: string;
  table: string;
  tablePriority?: number | null;
  incidentHash?: number;
  firstSeen: number;
  lastSeen: number;
  incidentUntil?: number | null;
  dataGroup?: string | null;
  qualityDimension?: string | null;
  checkCategory?: string | null;
  checkName?: string | null;
  highestSeverity: number;
  failedChecksCount: number;
  issueUrl?: string | null;
  status: 'open' | 'acknowledged' | 'resolved' | 'muted';
}

/** DQOps's CheckResultEntryModel, as GET .../issues serves it (executedAt in epoch milliseconds). */
export interface IncidentIssue {
  id: string;
  checkCategory: string;
  checkName: string;
  checkDisplayName: string | null;
  columnName: string | null;
  severity: number;
  actualValue: number | null;
  expectedValue: number | null;
  executedAt: number;
  timePeriod: string;
  dataGroup: string | null;
}

/** DQOps's IncidentsPerConnectionModel (GET /api/incidentstat): open incidents of a connection. */
export interface IncidentsPerConnection {
  connection: string;
  openIncidents: number;
  mostRecentFirstSeen: number;
}
