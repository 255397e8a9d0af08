import { AsyncLocalStorage } from 'node:async_hooks';
import { hostname } from 'node:os';
import {
  DqError,
  type AppliedEnvironment,
  type ApplyRecord,
  type CheckType,
  type ApplyRecordInput,
  type LiveObject,
  type LiveSummary,
  type LockInfo,
  type ObjectKey,
  type ObjectKind,
  type ObjectWrite,
} from '../model/index.js';
import { listHistory, recordApply } from './applyHistory.js';
import { readAppliedEnvironment, recordAppliedEnvironment } from './appliedEnvironments.js';
import { readUnchangedSince, recordAppliedInputs, type AppliedInputs, type UnchangedSince } from './appliedInputs.js';
import { deleteStoredData, type DeleteStoredDataCounts, type DeleteStoredDataRequest } from './deleteStoredData.js';
import { childJobTotals, claimNextJob, countChildJobs, countUnfinishedJobs, enqueueJob, fanOutJob, findJob, findUnfinishedJob, finishChildJob, finishJob, finishWaitingJob, cancelRequestedJobs, heartbeatJobs, listJobs, recordRunningJob, requestCancel, requeueStaleJobs } from './jobRows.js';
import { getObjects, listDisabledNames, listObjects, listSummaries, readRevision } from './readObjects.js';
import {
  insertCheckResults,
  insertErrorSamples,
  readBacktestReadouts,
  readCheckResults,
  readErrorSamples,
  readTableSeverities,
  type TableSeverityFilter,
  type TableSeverityRow,
  type BacktestReadoutKey,
  type BacktestReadoutRow,
  type CheckResultFilter,
  type CheckResultInput,
  type CheckResultRow,
  type ErrorSampleFilter,
  type ErrorSampleInput,
  type ErrorSampleRow,
} from './readResults.js';
import { leaderChannel, tryLeadership, type Leadership, type LeadershipOptions } from './leadership.js';
import { insertStatistics, readLatestStatistics, type StatisticsFilter, type StatisticsInput, type StatisticsRow } from './statistics.js';
import { RECONCILE_LEADER_KEY, STORE_LOCK_KEY, type SqlClient, type SqlQueryable } from './sql/sqlClient.js';
import type { IncidentStore, IncidentTransaction, JobQueueStore, LeadershipRole, LockRequest, OutboxStore, ResultsTransactionWork, Store, StoreTransaction } from './store.js';
import { readConnectionSeverities, type ConnectionSeverityRow } from './tableStatus.js';
import { acquireStoreLock, clearLockRow, DEFAULT_LOCK_TTL_MS, readLockHolder, reclaimStaleStoreLock, writeLockRow } from './storeLock.js';
import { deleteObjects, insertNewObjects, upsertObjects } from './writeObjects.js';
import { findIncident, findIncidentById, incidentIssues, incidentStatistics, insertIncidents, listIncidents, incidentsAsOf, lockIncidentKeys, updateIncidents } from './incidentRows.js';
import { claimMessages, countPendingMessages, enqueueMessages, listMessages, settleMessage } from './outboxRows.js';
import { SummaryCache } from './summaryCache.js';
import { dqopsDataImport, dqopsPartitions, readDqopsRows, type DqopsDataImport, type DqopsKind, type DqopsPartition, type DqopsRow } from './dqopsDataRows.js';

/** Thrown inside a dry run's transaction to roll it back; carries the work's answer out. */
class DryRunRollback<T> {
  constructor(readonly value: T) {}
}

/**
 * The Store over any SqlClient: the same code and SQL for PostgreSQL and PGlite. Writes happen only inside
 * `withLock`, in one transaction on the session that holds the lock; a throw or a crash rolls all of it back.
 * The caller must have run `migrate(client)`; `openStore` does both.
 *
 * Inside `work`, use the transaction it is given: calling the store itself there (or withLock again) would
 * wait for the very transaction that is waiting on it (on PGlite, forever), so it fails at once instead.
 */
export function createSqlStore(client: SqlClient, options: { lockTtlMs?: number } = {}): Store {
  return new SqlStore(client, options.lockTtlMs ?? DEFAULT_LOCK_TTL_MS);
}

/** Which store's withLock work is running, in that work's async context only; cleared when the work ends. */
const insideWork = new AsyncLocalStorage<{ active: boolean; store: Store }>();

class SqlStore implements Store {
  readonly engine: 'pglite' | 'postgres';
  readonly description: string;
  /** The lock as held by a withLock of this instance, answered without SQL (on PGlite SQL waits for it). */
  #held: LockInfo | null = null;
  #closed = false;
  /** Leaderships held through this store (each on a connection of its own), released by close(). */
  readonly #leaderships = new Set<Leadership>();

  readonly jobs: JobQueueStore;
  readonly incidents: IncidentStore;
  readonly outbox: OutboxStore;
  /** Kept between reads: a reconcile pass lists every summary twice, and usually only a few rows changed. */
  private readonly summaries = new SummaryCache();

  constructor(
    private readonly client: SqlClient,
    private readonly lockTtlMs: number = DEFAULT_LOCK_TTL_MS,
  ) {
    this.engine = client.engine;
    this.description = client.description;
    const guarded = <A extends unknown[], R>(name: string, run: (...args: A) => Promise<R>) => (...args: A) => {
      this.refuseInsideWork(name);
      return run(...args);
    };
    this.jobs = {
      enqueue: guarded('jobs.enqueue', (job) => enqueueJob(client, job)),
      recordRunning: guarded('jobs.recordRunning', (job) => recordRunningJob(client, job)),
      find: guarded('jobs.find', (idOrKey) => findJob(client, idOrKey)),
      list: guarded('jobs.list', (options) => listJobs(client, options)),
      countChildren: guarded('jobs.countChildren', (parentIds) => countChildJobs(client, parentIds)),
      findUnfinished: guarded('jobs.findUnfinished', (prefix) => findUnfinishedJob(client, prefix)),
      claimNext: guarded('jobs.claimNext', (worker, filter) => claimNextJob(client, worker, filter)),
      fanOut: guarded('jobs.fanOut', (parentId, worker, children) => fanOutJob(client, parentId, worker, children)),
      finishChild: guarded('jobs.finishChild', (id, worker, outcome) => finishChildJob(client, id, worker, outcome)),
      childTotals: guarded('jobs.childTotals', (parentId, fields, failedLimit) => childJobTotals(client, parentId, fields, failedLimit)),
      finishWaiting: guarded('jobs.finishWaiting', (id, outcome) => finishWaitingJob(client, id, outcome)),
      cancelRequested: guarded('jobs.cancelRequested', (ids) => cancelRequestedJobs(client, ids)),
      heartbeat: guarded('jobs.heartbeat', (worker, ids) => heartbeatJobs(client, worker, ids)),
      requeueStale: guarded('jobs.requeueStale', (types, staleAfterMs) => requeueStaleJobs(client, types, staleAfterMs)),
      finish: guarded('jobs.finish', (id, outcome) => finishJob(client, id, outcome)),
      requestCancel: guarded('jobs.requestCancel', (id) => requestCancel(client, id)),
      countUnfinished: guarded('jobs.countUnfinished', () => countUnfinishedJobs(client)),
    };
    this.incidents = {
      list: guarded('incidents.list', (filter) => listIncidents(client, filter)),
      get: guarded('incidents.get', (connection, id) => findIncident(client, connection, id)),
      getById: guarded('incidents.getById', (id) => findIncidentById(client, id)),
      statistics: guarded('incidents.statistics', () => incidentStatistics(client)),
      issues: guarded('incidents.issues', (incident, filter) => incidentIssues(client, incident, filter)),
      transaction: guarded('incidents.transaction', (work) => this.inTransaction((tx) => work(incidentTransaction(tx, this.engine)))),
    };
    this.outbox = {
      claim: guarded('outbox.claim', (request) => claimMessages(client, request)),
      settle: guarded('outbox.settle', (id, worker, outcome) => settleMessage(client, id, worker, outcome)),
      list: guarded('outbox.list', (filter) => listMessages(client, filter)),
      countPending: guarded('outbox.countPending', () => countPendingMessages(client)),
    };
  }

  async deleteStoredData(request: DeleteStoredDataRequest): Promise<DeleteStoredDataCounts> {
    this.refuseInsideWork('deleteStoredData');
    // one transaction: the rows and the status of the tables they belonged to (tableStatus.ts)
    return this.inTransaction((tx) => deleteStoredData(tx, request));
  }

  async revision(): Promise<number> {
    this.refuseInsideWork('revision');
    return readRevision(this.client);
  }

  async listSummaries(filter?: { kind?: ObjectKind }): Promise<LiveSummary[]> {
    this.refuseInsideWork('listSummaries');
    const all = await this.summaries.read(this.client);
    return filter?.kind ? all.filter((summary) => summary.kind === filter.kind) : all;
  }

  async listObjects(filter?: { kind?: ObjectKind; namePrefix?: string }): Promise<LiveObject[]> {
    this.refuseInsideWork('listObjects');
    return listObjects(this.client, filter);
  }

  async getObjects(keys: ObjectKey[]): Promise<LiveObject[]> {
    this.refuseInsideWork('getObjects');
    return getObjects(this.client, keys);
  }

  async listDisabledNames(filter: { kind: ObjectKind; namePrefix?: string }): Promise<string[]> {
    this.refuseInsideWork('listDisabledNames');
    return listDisabledNames(this.client, filter);
  }

  async appliedEnvironment(namespace: string): Promise<AppliedEnvironment | null> {
    this.refuseInsideWork('appliedEnvironment');
    return readAppliedEnvironment(this.client, namespace);
  }

  async unchangedSince(namespace: string, inputDigest: string): Promise<UnchangedSince | null> {
    this.refuseInsideWork('unchangedSince');
    return readUnchangedSince(this.client, namespace, inputDigest);
  }

  async history(limit?: number): Promise<ApplyRecord[]> {
    this.refuseInsideWork('history');
    return listHistory(this.client, limit);
  }

  async checkResults(filter: CheckResultFilter): Promise<CheckResultRow[]> {
    this.refuseInsideWork('checkResults');
    return readCheckResults(this.client, filter);
  }

  async backtestReadouts(checkType: CheckType, keys: readonly BacktestReadoutKey[], from: string): Promise<BacktestReadoutRow[]> {
    this.refuseInsideWork('backtestReadouts');
    return readBacktestReadouts(this.client, checkType, keys, from);
  }

  async tableSeverities(filter?: TableSeverityFilter): Promise<TableSeverityRow[]> {
    this.refuseInsideWork('tableSeverities');
    return readTableSeverities(this.client, filter);
  }

  async connectionSeverities(connections: readonly string[]): Promise<ConnectionSeverityRow[]> {
    this.refuseInsideWork('connectionSeverities');
    return readConnectionSeverities(this.client, connections);
  }

  async errorSamples(filter: ErrorSampleFilter): Promise<ErrorSampleRow[]> {
    this.refuseInsideWork('errorSamples');
    return readErrorSamples(this.client, filter);
  }

  async insertCheckResults(rows: readonly CheckResultInput[]): Promise<number> {
    this.refuseInsideWork('insertCheckResults');
    return this.inTransaction((tx) => insertCheckResults(tx, rows));
  }

  async recordCheckResults(rows: readonly CheckResultInput[], work: ResultsTransactionWork): Promise<number> {
    this.refuseInsideWork('recordCheckResults');
    return this.inTransaction(async (tx) => {
      const incidents = incidentTransaction(tx, this.engine);
      await work.read(incidents);
      // both at once (see ResultsTransactionWork); the results' own error, when there is one, is the one reported
      // (the other then fails only because the transaction is aborted)
      const [written, grouped] = await Promise.allSettled([insertCheckResults(tx, rows), work.write(incidents)]);
      if (written.status === 'rejected') throw written.reason;
      if (grouped.status === 'rejected') throw grouped.reason;
      return written.value;
    });
  }

  async insertErrorSamples(rows: readonly ErrorSampleInput[]): Promise<number> {
    this.refuseInsideWork('insertErrorSamples');
    return this.inTransaction((tx) => insertErrorSamples(tx, rows));
  }

  async latestStatistics(filter: StatisticsFilter): Promise<StatisticsRow[]> {
    this.refuseInsideWork('latestStatistics');
    return readLatestStatistics(this.client, filter);
  }

  async insertStatistics(rows: readonly StatisticsInput[]): Promise<number> {
    this.refuseInsideWork('insertStatistics');
    return this.inTransaction((tx) => insertStatistics(tx, rows));
  }

  async importDqopsData<T>(work: (tx: DqopsDataImport) => Promise<T>, options: { dryRun: boolean }): Promise<T> {
    this.refuseInsideWork('importDqopsData');
    try {
      return await this.inTransaction(async (tx) => {
        const importer = dqopsDataImport(tx);
        const value = await work(importer);
        await importer.refreshTableStatus();
        if (options.dryRun) throw new DryRunRollback(value);
        return value;
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.value as T;
      throw error;
    }
  }

  dqopsRows(kind: DqopsKind, batchSize: number, partition?: DqopsPartition): AsyncGenerator<DqopsRow[]> {
    this.refuseInsideWork('dqopsRows');
    return readDqopsRows(this.client, kind, batchSize, partition);
  }

  async dqopsPartitions(kind: DqopsKind): Promise<DqopsPartition[]> {
    this.refuseInsideWork('dqopsPartitions');
    return dqopsPartitions(this.client, kind);
  }

  /** One transaction without the store lock (result rows are not objects): all chunks of an insert or none. */
  private async inTransaction<T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    const session = await this.client.session();
    let broken = false;
    try {
      return await session.transaction(work);
    } catch (error) {
      broken = !(error instanceof DqError) && !(error instanceof DryRunRollback);
      throw error;
    } finally {
      await session.release(broken);
    }
  }

  async tryLeadership(role: LeadershipRole, options?: LeadershipOptions): Promise<Leadership | null> {
    this.refuseInsideWork('tryLeadership');
    const keys: Record<LeadershipRole, typeof RECONCILE_LEADER_KEY> = { reconcile: RECONCILE_LEADER_KEY };
    const leadership = await tryLeadership(this.client, keys[role], { ...options, channel: leaderChannel(role) });
    if (leadership) {
      // its connection is outside the pool: close() gives it up too
      this.#leaderships.add(leadership);
      const forget = () => this.#leaderships.delete(leadership);
      void leadership.lost.then(forget);
      return { lost: leadership.lost, release: () => leadership.release().finally(forget) };
    }
    return null;
  }

  async requestLeader(role: LeadershipRole, payload: string): Promise<void> {
    await this.client.query('select pg_notify($1, $2)', [leaderChannel(role), payload]);
  }

  async currentLock(): Promise<LockInfo | null> {
    this.refuseInsideWork('currentLock');
    return this.#held ?? (await readLockHolder(this.client));
  }

  async withLock<T>(request: LockRequest, work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    this.refuseInsideWork('withLock');
    const session = await this.client.session();
    let broken = false;
    const markBroken = (): void => {
      broken = true;
    };
    try {
      try {
        const ttlMs = request.ttlMs ?? this.lockTtlMs;
        await acquireStoreLock(session, request, () => this.currentLock(), () => reclaimStaleStoreLock(this.client, ttlMs));
      } catch (error) {
        if (!(error instanceof DqError && error.code === 'LOCK_TIMEOUT')) broken = true;
        throw error;
      }
      const info: LockInfo = {
        holder: request.holder,
        operation: request.operation,
        since: new Date().toISOString(),
        pid: process.pid,
        host: hostname(),
      };
      this.#held = info;
      try {
        await writeLockRow(session, info);
        return await session.transaction(async (tx) => {
          const [{ revision }] = await tx.query<{ revision: number }>(
            'update dqctl.store_state set revision = revision + 1 returning revision',
          );
          const context = { active: true, store: this as Store };
          try {
            return await insideWork.run(context, () => work(new SqlTransaction(tx, revision)));
          } finally {
            context.active = false;
          }
        });
      } finally {
        // If the connection is gone these fail, and the server has already dropped the lock with it.
        await clearLockRow(session).catch(markBroken);
        await session.advisoryUnlock(STORE_LOCK_KEY).catch(markBroken);
        this.#held = null;
      }
    } finally {
      await session.release(broken);
    }
  }

  private refuseInsideWork(what: string): void {
    const context = insideWork.getStore();
    if (context?.active && context.store === this) {
      throw new DqError(
        'INTERNAL',
        `store.${what}() was called inside withLock on ${this.description}; use the transaction passed to the work`,
      );
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#leaderships].map((l) => l.release()));
    await this.client.close();
  }
}

/**
 * The embedded store needs no incident lock: PGlite has one connection and a transaction holds it until it ends,
 * so two transactions of the process never overlap, and no other process can open the folder.
 */
function incidentTransaction(sql: SqlQueryable, engine: 'pglite' | 'postgres'): IncidentTransaction {
  return {
    lockTables: engine === 'pglite' ? async () => {} : (connection, tables) => lockIncidentKeys(sql, connection, tables),
    incidentsAsOf: (connection, keys, options) => incidentsAsOf(sql, connection, keys, engine === 'pglite' ? {} : (options ?? {})),
    findIncident: (connection, id, options) => findIncident(sql, connection, id, options),
    insertIncidents: (records) => insertIncidents(sql, records),
    updateIncidents: (records) => updateIncidents(sql, records),
    enqueueMessages: (messages) => enqueueMessages(sql, messages),
  };
}

class SqlTransaction implements StoreTransaction {
  constructor(
    private readonly sql: SqlQueryable,
    private readonly storeRevision: number,
  ) {}

  async revision(): Promise<number> {
    return this.storeRevision;
  }

  listSummaries(filter?: { kind?: ObjectKind }): Promise<LiveSummary[]> {
    return listSummaries(this.sql, filter);
  }

  listObjects(filter?: { kind?: ObjectKind; namePrefix?: string }): Promise<LiveObject[]> {
    return listObjects(this.sql, filter);
  }

  getObjects(keys: ObjectKey[]): Promise<LiveObject[]> {
    return getObjects(this.sql, keys);
  }

  listDisabledNames(filter: { kind: ObjectKind; namePrefix?: string }): Promise<string[]> {
    return listDisabledNames(this.sql, filter);
  }

  upsertObjects(objects: ObjectWrite[]): Promise<void> {
    return upsertObjects(this.sql, objects, this.storeRevision);
  }

  insertObjects(objects: Iterable<ObjectWrite>, onProgress?: (written: number) => void): Promise<number> {
    return insertNewObjects(this.sql, objects, this.storeRevision, onProgress);
  }

  deleteObjects(keys: ObjectKey[]): Promise<void> {
    return deleteObjects(this.sql, keys);
  }

  recordApply(record: ApplyRecordInput): Promise<ApplyRecord> {
    return recordApply(this.sql, record, this.storeRevision);
  }

  appliedEnvironment(namespace: string): Promise<AppliedEnvironment | null> {
    return readAppliedEnvironment(this.sql, namespace);
  }

  recordEnvironment(namespace: string, environment: string | null): Promise<void> {
    return recordAppliedEnvironment(this.sql, namespace, environment, this.storeRevision);
  }

  unchangedSince(namespace: string, inputDigest: string): Promise<UnchangedSince | null> {
    return readUnchangedSince(this.sql, namespace, inputDigest);
  }

  recordInputs(namespace: string, inputs: AppliedInputs | null): Promise<void> {
    return recordAppliedInputs(this.sql, namespace, inputs, this.storeRevision);
  }
}
