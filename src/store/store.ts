import type { CheckType, Clock, Int64 } from '../model/index.js';
import type { AppliedInputs, UnchangedSince } from './appliedInputs.js';
import type { DeleteStoredDataCounts, DeleteStoredDataRequest } from './deleteStoredData.js';
import type { ConnectionSeverityRow } from './tableStatus.js';
import type { ChildJobTotals, ClaimFilter, JobListFilter, JobRecord, JobStatus } from './jobRows.js';
import type { Leadership, LeadershipOptions } from './leadership.js';
import type {
  JsonObject,
  AppliedEnvironment,
  ApplyRecord,
  ApplyRecordInput,
  LiveObject,
  LiveSummary,
  LockInfo,
  ObjectKey,
  ObjectKind,
  ObjectWrite,
} from '../model/index.js';
import type { BacktestReadoutKey, BacktestReadoutRow, CheckResultFilter, CheckResultInput, CheckResultRow, ErrorSampleFilter, ErrorSampleInput, ErrorSampleRow, TableSeverityFilter, TableSeverityRow } from './readResults.js';
import type { DqopsDataImport, DqopsKind, DqopsPartition, DqopsRow } from './dqopsDataRows.js';
import type { StatisticsFilter, StatisticsInput, StatisticsRow } from './statistics.js';
import type { IncidentFilter, IncidentIssueRow, IncidentIssuesFilter, IncidentRecord } from './incidentRows.js';
import type { OutboxFilter, OutboxInput, OutboxMessage } from './outboxRows.js';

export type { BacktestReadoutKey, BacktestReadoutRow, CheckResultFilter, CheckResultInput, CheckResultRow, CheckType, ErrorSampleFilter, ErrorSampleInput, ErrorSampleRow, TableSeverityFilter, TableSeverityRow } from './readResults.js';
export type { StatisticsFilter, StatisticsInput, StatisticsRow } from './statistics.js';
export type { ConnectionSeverityRow } from './tableStatus.js';

/**
 * The live store: one SQL schema (`dqctl`) on PostgreSQL or on embedded PGlite, same SQL on both.
 * This module is the only one that imports `pg` or PGlite.
 */
export interface StoreReader {
  /** The store revision counter: bumped once by every write transaction. */
  revision(): Promise<number>;
  /** Every object without its spec, sorted by kind then name: what a no-change plan needs. */
  listSummaries(filter?: { kind?: ObjectKind }): Promise<LiveSummary[]>;
  /** Full objects, sorted by kind then name. */
  listObjects(filter?: { kind?: ObjectKind; namePrefix?: string }): Promise<LiveObject[]>;
  /** Full objects for the given keys (missing keys are left out). */
  getObjects(keys: ObjectKey[]): Promise<LiveObject[]>;
  /** The names of the objects of a kind (under a name prefix) whose spec says `disabled: true`, sorted. */
  listDisabledNames(filter: { kind: ObjectKind; namePrefix?: string }): Promise<string[]>;
  /** The environment the namespace was last applied with; null when none was ever recorded. */
  appliedEnvironment(namespace: string): Promise<AppliedEnvironment | null>;
  /**
   * "Nothing changed since revision N" (appliedInputs.ts): when the namespace's last apply recorded these inputs
   * and no write has happened since, that apply's revision and desired fingerprint; else null. Loads no object.
   */
  unchangedSince(namespace: string, inputDigest: string): Promise<UnchangedSince | null>;
}

export interface StoreTransaction extends StoreReader {
  /** Insert or replace objects (bulk); each row gets revision = the new store revision. */
  upsertObjects(objects: ObjectWrite[]): Promise<void>;
  /**
   * Objects new to the store (a plan's creates), written in one bulk load as `objects` yields them; each row gets
   * revision = the new store revision. A key that exists fails the transaction. `onProgress`: how many so far.
   */
  insertObjects(objects: Iterable<ObjectWrite>, onProgress?: (written: number) => void): Promise<number>;
  deleteObjects(keys: ObjectKey[]): Promise<void>;
  recordApply(record: ApplyRecordInput): Promise<ApplyRecord>;
  /** Records the environment this transaction applied the namespace with (see appliedEnvironments.ts). */
  recordEnvironment(namespace: string, environment: string | null): Promise<void>;
  /** Records what this transaction applied the namespace from (null: unknown, which forgets the earlier record). */
  recordInputs(namespace: string, inputs: AppliedInputs | null): Promise<void>;
}

export type { Leadership, LeadershipOptions } from './leadership.js';
export type { AppliedInputs, UnchangedSince } from './appliedInputs.js';

/** What a process may lead among those sharing the store. */
export type LeadershipRole = 'reconcile';

export interface LockRequest {
  /** Who holds it, e.g. `alice@laptop` or `ci`. */
  holder: string;
  /** What for, e.g. `apply`. */
  operation: string;
  /** How long to wait for another holder before failing with LOCK_TIMEOUT naming it. */
  timeoutMs: number;
  /** A lock older than this whose holder is dead is reclaimed (default: the store's, 15 min; see storeLock.ts). */
  ttlMs?: number;
  /** The clock of the waits between attempts (default: the system's; tests drive one). */
  clock?: Clock;
}

/** The job queue's rows (src/jobs runs them). Every method is one statement, outside any transaction. */
export interface JobQueueStore {
  enqueue(job: { jobType: string; parameters: JsonObject; businessKey?: string | null; createdBy?: string | null }): Promise<JobRecord>;
  /** A job run by the process recording it (not queued): `running`, claimed by `claimedBy`; end it with `finish`. */
  recordRunning(job: { jobType: string; parameters: JsonObject; createdBy: string | null; claimedBy: string }): Promise<JobRecord>;
  /** By numeric id or by business key. */
  find(idOrKey: string): Promise<JobRecord | undefined>;
  /** The oldest job not ended yet whose business key starts with this prefix (e.g. one schedule's runs). */
  findUnfinished(businessKeyPrefix: string): Promise<JobRecord | undefined>;
  /** The newest jobs first, at most `limit`, optionally only those with an id above `afterId`. */
  /** The oldest queued job the filter admits, now `running` and claimed by `worker` (FOR UPDATE SKIP LOCKED). */
  claimNext(worker: string, filter: ClaimFilter): Promise<JobRecord | undefined>;
  /** A running job split into queued children; it waits until they end (jobRows.ts fanOutJob). */
  fanOut(parentId: number, worker: string, children: readonly { jobType: string; parameters: JsonObject }[]): Promise<JobRecord | undefined>;
  /** Ends a child `worker` runs and counts it off its parent; `lastOf`: the parent whose last child this was. */
  finishChild(id: number, worker: string, outcome: { status: 'finished' | 'failed' | 'cancelled'; result?: JsonObject | null; errorMessage?: string | null }): Promise<{ job: JobRecord; lastOf?: number } | undefined>;
  /** The children's counts by status, their numeric result `fields` summed, and the first failed ones. */
  childTotals(parentId: number, fields: readonly string[], failedLimit: number): Promise<ChildJobTotals>;
  /** Ends a parent that waits for its children. */
  finishWaiting(id: number, outcome: { status: 'finished' | 'failed'; result?: JsonObject | null; errorMessage?: string | null }): Promise<JobRecord | undefined>;
  /** Which of these jobs have a cancel request (status cancel_requested). */
  cancelRequested(ids: readonly number[]): Promise<number[]>;
  /** The running jobs `worker` holds are alive. */
  heartbeat(worker: string, ids: readonly number[]): Promise<void>;
  /** Running jobs of `jobTypes` without a heartbeat for `staleAfterMs` go back to the queue; their ids. */
  requeueStale(jobTypes: readonly string[], staleAfterMs: number): Promise<number[]>;
  finish(id: number, outcome: { status: 'finished' | 'failed' | 'cancelled'; result?: JsonObject | null; errorMessage?: string | null }): Promise<JobRecord | undefined>;
  requestCancel(id: number): Promise<JobRecord | undefined>;
  /** Jobs not ended yet, by status (for the server's metrics). */
  countUnfinished(): Promise<Partial<Record<JobStatus, number>>>;
  /** The newest jobs first, at most `limit` (jobRows.ts JobListFilter: paging, statuses, a run's jobs, top level only). */
  list(options: JobListFilter): Promise<JobRecord[]>;
  /** How many jobs each of these runs has, by status. */
  countChildren(parentIds: readonly number[]): Promise<Map<number, Partial<Record<JobStatus, number>>>>;
}

export type { DeleteStoredDataCounts, DeleteStoredDataRequest } from './deleteStoredData.js';
export type { IncidentFilter, IncidentIssueRow, IncidentIssuesFilter, IncidentRecord, IncidentSnapshot, IncidentSortOrder, IncidentStatus } from './incidentRows.js';
export { INCIDENT_STATUSES } from './incidentRows.js';
export type { OutboxEvent, OutboxFilter, OutboxInput, OutboxMessage, OutboxStatus } from './outboxRows.js';

/**
 * Incident rows and outbox messages inside one transaction (see incidentRows.ts, outboxRows.ts): what
 * src/incidents needs to turn failures or a status change into incidents and messages atomically.
 */
export interface IncidentTransaction {
  /** Serializes writers of these tables' incidents until the transaction ends. */
  lockTables(connection: string, tables: readonly string[]): Promise<void>;
  /**
   * Per hash, the newest incident first seen at or before `at` (one per hash that has any); with `lockTables`,
   * after serializing the writers of those tables' incidents as lockTables does (in the same statement).
   */
  incidentsAsOf(connection: string, keys: ReadonlyArray<{ incidentHash: Int64; at: string }>, options?: { lockTables?: readonly string[] }): Promise<IncidentRecord[]>;
  findIncident(connection: string, id: string, options?: { forUpdate?: boolean }): Promise<IncidentRecord | undefined>;
  insertIncidents(records: readonly IncidentRecord[]): Promise<void>;
  updateIncidents(records: readonly IncidentRecord[]): Promise<void>;
  enqueueMessages(messages: readonly OutboxInput[]): Promise<void>;
}

/**
 * What a check run does in the transaction of its results, in two steps. `read` runs before the results are
 * written. `write` is started together with the results' insert: queries on one connection run in the order
 * they are sent, so its statements reach the database after the results', while its own work in this process
 * (deciding what the incidents become) runs as the database writes them.
 */
export interface ResultsTransactionWork {
  read(tx: IncidentTransaction): Promise<void>;
  write(tx: IncidentTransaction): Promise<void>;
}

export interface IncidentStore {
  list(filter: IncidentFilter): Promise<IncidentRecord[]>;
  get(connection: string, id: string): Promise<IncidentRecord | undefined>;
  /** By id alone (what the CLI is given). */
  getById(id: string): Promise<IncidentRecord | undefined>;
  /** Per connection: open incidents and the newest first seen. */
  statistics(): Promise<Array<{ connection: string; openIncidents: number; mostRecentFirstSeen: string }>>;
  /** The check results grouped into an incident, newest first. */
  issues(incident: IncidentRecord, filter?: IncidentIssuesFilter): Promise<IncidentIssueRow[]>;
  /** One transaction (outside the store lock): all of `work`'s writes or none. */
  transaction<T>(work: (tx: IncidentTransaction) => Promise<T>): Promise<T>;
}

/** The notification outbox (outboxRows.ts); each method one statement. */
export interface OutboxStore {
  claim(request: { worker: string; now: string; leaseUntil: string; limit: number }): Promise<OutboxMessage[]>;
  settle(
    id: number,
    worker: string,
    outcome: { kind: 'delivered'; at: string } | { kind: 'retry'; nextAttemptAt: string; error: string } | { kind: 'failed'; at: string; error: string },
  ): Promise<boolean>;
  list(filter?: OutboxFilter): Promise<OutboxMessage[]>;
  /** Messages not yet delivered nor failed (the backlog). */
  countPending(): Promise<number>;
}

export interface Store extends StoreReader {
  readonly jobs: JobQueueStore;
  /** Deletes stored results (the delete-stored-data job); one statement per kind of row. */
  deleteStoredData(request: DeleteStoredDataRequest): Promise<DeleteStoredDataCounts>;
  readonly engine: 'pglite' | 'postgres';
  /** Human description without secrets: `postgres://user@host:5432/db` or `pglite:/path/.dqctl/pglite`. */
  readonly description: string;
  /**
   * Take the store-wide lock, run `work` in ONE transaction, commit, release. The revision counter is bumped
   * once at the start of the transaction. A crash or a thrown error rolls everything back and the lock
   * cannot outlive its holder's process or connection.
   */
  withLock<T>(request: LockRequest, work: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /**
   * Lead the processes sharing this store in `role` (one reconcile loop among `serve` replicas): a session
   * advisory lock held on a connection of its own, separate from the store lock. null when another process
   * leads; `lost` resolves when the session dies. On PGlite the first caller of the process always leads.
   */
  tryLeadership(role: LeadershipRole, options?: LeadershipOptions): Promise<Leadership | null>;
  /**
   * Hands a request to whichever process leads `role` (its `onRequest`), e.g. a push webhook that reached a
   * follower; nobody hears it when no process leads. A NOTIFY: delivered once the caller's statement commits.
   */
  requestLeader(role: LeadershipRole, payload: string): Promise<void>;
  /** The current lock holder, or null when free (a lock left by a dead process counts as free). */
  currentLock(): Promise<LockInfo | null>;
  /** Apply history, newest first (the last 50 unless `limit` says otherwise). */
  history(limit?: number): Promise<ApplyRecord[]>;
  /**
   * Check results and error samples (see readResults.ts): rows of run history, outside the object revision and
   * the store lock. Reads filter on one table and return rows grouped by check, newest first; an insert writes
   * all its rows in one transaction (or none) and returns how many it wrote. One result or readout per check,
   * time period and data group (resultKey.ts): a later run's row replaces the earlier one.
   */
  checkResults(filter: CheckResultFilter): Promise<CheckResultRow[]>;
  /** The readout of each time period and data group of many checks of one check type, since `from`, in one read (readResults.ts). */
  backtestReadouts(checkType: CheckType, keys: readonly BacktestReadoutKey[], from: string): Promise<BacktestReadoutRow[]>;
  /**
   * Every table with results (or those a filter names: some tables, all tables of some connections): the worst
   * severity of each check's newest run, in one read (the console's overview and objects list).
   */
  tableSeverities(filter?: TableSeverityFilter): Promise<TableSeverityRow[]>;
  /** Each of these connections' tables with results folded to one row (tableStatus.ts). */
  connectionSeverities(connections: readonly string[]): Promise<ConnectionSeverityRow[]>;
  errorSamples(filter: ErrorSampleFilter): Promise<ErrorSampleRow[]>;
  insertCheckResults(rows: readonly CheckResultInput[]): Promise<number>;
  /**
   * Check results and what they cause (incidents and their outbox messages, src/incidents), in ONE transaction:
   * `work.read` first (it may lock and read), then the rows and `work.write` at once. A failure of any writes
   * nothing.
   */
  recordCheckResults(rows: readonly CheckResultInput[], work: ResultsTransactionWork): Promise<number>;
  readonly incidents: IncidentStore;
  readonly outbox: OutboxStore;
  insertErrorSamples(rows: readonly ErrorSampleInput[]): Promise<number>;
  /**
   * Statistics of tables and columns (see statistics.ts): the latest collection per table, column and collector
   * (every data group of it); an insert writes all its rows in one transaction (or none).
   */
  latestStatistics(filter: StatisticsFilter): Promise<StatisticsRow[]>;
  insertStatistics(rows: readonly StatisticsInput[]): Promise<number>;
  /**
   * An import of DQOps's `.data/` history (dqopsDataRows.ts) in ONE transaction: all of `work` or nothing; with
   * `dryRun` the transaction is rolled back after `work` (its counts are what a real run would report).
   */
  importDqopsData<T>(work: (tx: DqopsDataImport) => Promise<T>, options: { dryRun: boolean }): Promise<T>;
  /** The stored rows of one DQOps kind as DQOps rows, a page at a time (dqopsDataRows.ts). */
  dqopsRows(kind: DqopsKind, batchSize: number, partition?: DqopsPartition): AsyncGenerator<DqopsRow[]>;
  /** The partitions (DQOps files) the stored rows of one kind fill. */
  dqopsPartitions(kind: DqopsKind): Promise<DqopsPartition[]>;
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** postgres:// URL; when absent the embedded PGlite store in `stateDir` is used. */
  databaseUrl?: string;
  /** Folder of the embedded store (default `.dqctl` under the current directory). */
  stateDir?: string;
  /** How long to wait for the embedded store's folder while another process has it open (default 30 s). */
  openTimeoutMs?: number;
  /** What this process opens the store for (e.g. `plan`), shown to others waiting on the embedded store's folder. */
  operation?: string;
  /** Locks older than this with a dead holder are reclaimed: the store lock, and the embedded store's folder lock (default 15 min). */
  lockTtlMs?: number;
}
