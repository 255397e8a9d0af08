/**
 * The console's one API client: every request goes through `request`, which adds the bearer token (kept in
 * sessionStorage, so it ends with the tab) and turns a 401 into "sign in again" for the whole app. The types
 * follow the server's own schemas (schemas/api/*.json); only the fields the console reads are named.
 */
import type { CheckResultHistoryModel, JobHistoryEntryModel, OverviewModel } from './apiTypes.generated';

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

export async function request<T>(method: string, path: string, options: { body?: unknown; token?: string | null; text?: boolean; signal?: AbortSignal } = {}): Promise<T> {
  const token = options.token === undefined ? getToken() : options.token;
  const headers: Record<string, string> = { accept: options.text ? 'text/plain' : 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw new ApiError(0, 'ABORTED', `${method} ${path} was superseded`);
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

/** A GET; `signal` cancels it when its answer is no longer wanted (a newer keystroke, the view left). */
export async function get<T>(path: string, options: { signal?: AbortSignal } = {}): Promise<T> {
  const early = prefetched.get(path);
  if (early) {
    prefetched.delete(path);
    const value = await early;
    if (value !== undefined) return value as T;
  }
  return request<T>('GET', path, { signal: options.signal });
}

export function tablePath(connection: string, schema: string, table: string): string {
  return `/api/connections/${encodeURIComponent(connection)}/schemas/${encodeURIComponent(schema)}/tables/${encodeURIComponent(table)}`;
}

/**
 * The API's models as the console names them: each is the type generated from the server's schema of the route
 * (apiTypes.generated.ts, from schemas/api), so a field renamed or retyped on the server fails this typecheck.
 */
export type {
  ApplyHistoryEntryModel as ApplyEntry,
  CheckResultEntryModel as IncidentIssue,
  CheckResultHistoryModel as CheckHistory,
  ConnectionModel as Connection,
  DomainConnectionTableKey as TableKey,
  DqoUserProfileModel as Profile,
  EffectiveCheckModel as EffectiveCheck,
  ErrorSamplesListModel as SampleList,
  IncidentModel as Incident,
  IncidentsPerConnectionModel as IncidentsPerConnection,
  JobHistoryEntryModel as JobEntry,
  JobStartResult,
  ObjectStatusListModel as ObjectStatusList,
  ObjectStatusRowModel as ObjectRow,
  OverviewModel as Overview,
  TableCurrentDataQualityStatusModel as QualityStatusModel,
  TableLineageModel as LineageTree,
  TableLineageTableListModel as Neighbour,
} from './apiTypes.generated';

/** One readout of a check's history (GET …/checkresults). */
export type ResultEntry = NonNullable<CheckResultHistoryModel['results']>[number];

/** An object not in sync (the overview's list): its fields with who changed each since the last apply. */
export type NotSyncedObject = OverviewModel['not_synced'][number];

/** GET /api/gitops/status and GET /api/gitops/plan (the JSON plan `dqctl plan --format json` prints). */
export type { GitopsStatusModel as GitopsStatus, PlanDocumentModel as PlanSummary } from './apiTypes.generated';

/** GET /api/jobs/jobs: one page of jobs, newest first. */
export interface JobList {
  jobs: JobHistoryEntryModel[];
  page?: number;
  limit?: number;
  /** A next page holds more jobs. */
  hasMore?: boolean;
}
