import { DqError, type JsonObject } from '../model/index.js';
import { parallelJobsLimitOf } from './connectionConfig.js';
import type { DataSource, DataSourceOptions, DataSourceSession, SessionOptions, SqlTarget } from './dataSource.js';
import { dataSourceFailure, type DataSourceFailure } from './dataSourceErrors.js';
import type { SqlDialect } from './dialects/dialect.js';
import type { SecretContext } from './secretReferences.js';
import { Slots } from './slots.js';

/**
 * What every kind of data source shares: at most `parallel_jobs_limit` sessions at once (a slot each, waited for
 * in order, given up when the run is cancelled), refused once closed, and one statement as a session of its own.
 * A kind says how it opens and runs a session (`runSession`) and what its queries read (`sqlTarget`).
 */
export abstract class SlottedDataSource implements DataSource {
  abstract readonly dialect: SqlDialect;
  readonly maxConnections: number;
  private readonly slots: Slots;
  protected closed = false;

  constructor(
    readonly connectionName: string,
    protected readonly spec: JsonObject,
    protected readonly secretContext: SecretContext,
    protected readonly options: DataSourceOptions = {},
  ) {
    this.maxConnections = parallelJobsLimitOf(spec);
    this.slots = new Slots(this.maxConnections);
  }

  get activeSessions(): number {
    return this.slots.inUse;
  }

  abstract sqlTarget(schema: string, table: string, tableSpec?: JsonObject): Promise<SqlTarget>;
  abstract close(): Promise<void>;

  /** Starts opening (see DataSource.prepare); a failure is left to the first session, which opens again. */
  prepare(): void {
    if (!this.closed) this.open().catch(() => undefined);
  }

  /** Opens what sessions share (a pool, a database), once; a failed opening is forgotten so the next one retries. */
  protected abstract open(): Promise<unknown>;

  /** Opens a session of this kind (the slot is held) and runs `work` in it. */
  protected abstract runSession<T>(work: (session: DataSourceSession) => Promise<T>, options: SessionOptions): Promise<T>;

  /** One statement in its own read-only session. */
  async query<R extends object = Record<string, unknown>>(text: string, params: readonly unknown[] = [], options: SessionOptions = {}): Promise<R[]> {
    return this.session((session) => session.query<R>(text, params), options);
  }

  /** Several statements in one read-only session, once a slot is free (one snapshot with `snapshot: true`). */
  async session<T>(work: (session: DataSourceSession) => Promise<T>, options: SessionOptions = {}): Promise<T> {
    const { signal } = options;
    if (this.closed) throw new DqError('INTERNAL', `the data source of connection ${JSON.stringify(this.connectionName)} is closed`);
    if (signal?.aborted) throw this.failure('cancelled');
    try {
      await this.slots.acquire(signal);
    } catch {
      throw this.failure('cancelled');
    }
    try {
      return await this.runSession(work, options);
    } finally {
      this.slots.release();
    }
  }

  /**
   * `work` in a session of its own on a slot that is free now, or undefined (nothing run) when every slot is held
   * or waited for: extra parallelism for a caller that already holds a session, which must never wait for a
   * second one (two callers each holding one and waiting for another would wait forever).
   */
  spareSession<T>(work: (session: DataSourceSession) => Promise<T>, options: SessionOptions = {}): Promise<T> | undefined {
    if (this.closed || options.signal?.aborted || !this.slots.tryAcquire()) return undefined;
    return (async () => {
      try {
        return await this.runSession(work, options);
      } finally {
        this.slots.release();
      }
    })();
  }

  protected failure(reason: DataSourceFailure, detail?: string): DqError {
    return dataSourceFailure(this.connectionName, reason, detail);
  }
}
