import { contentHash } from '../diff/contentHash.js';
import { normalizeSpec } from '../diff/normalizeSpec.js';
import { DqError, keyId, type JsonObject, type LiveObject, type ObjectKey, type ObjectKind, type ObjectWrite } from '../model/index.js';
import type { Store, StoreTransaction } from '../store/store.js';

/**
 * The live objects as the REST API reads and writes them.
 *
 * Writes go to the same store as apply, one object per transaction under the store lock, read-modify-write
 * inside it: two concurrent updates of one object never lose each other (the later one sees the earlier one).
 * Ownership: an object created through the API is `managed_by: api`; a write to a git-managed object keeps its
 * ownership and its applied hash, so the next plan shows it as changed outside git (drift); with
 * `readOnlyManaged` such writes are refused (409) naming the file that owns the object.
 *
 * Reads are cached: the cache is dropped whenever the store revision moves (checked at most every
 * `revisionCheckMs`), and updated at once by this process's own writes.
 */
export interface LiveObjectsOptions {
  readOnlyManaged?: boolean;
  /** How stale a read may be after a write by ANOTHER process (default 1000 ms). */
  revisionCheckMs?: number;
  lockTimeoutMs?: number;
}

export interface WriteContext {
  /** Who writes, for the lock holder (e.g. `api:alice`). */
  caller: string;
}

const CACHED_LIST_KINDS: ReadonlySet<ObjectKind> = new Set(['source', 'rule', 'sensor', 'check', 'dictionary', 'default_table_checks', 'default_column_checks']);

export class LiveObjects {
  private readonly objects = new Map<string, LiveObject | null>();
  private readonly lists = new Map<ObjectKind, LiveObject[]>();
  /** Values computed from many objects (the lineage index), dropped on any change. */
  private readonly derived = new Map<string, Promise<unknown>>();
  private knownRevision = -1;
  private readonly writeListeners: (() => void)[] = [];
  private lastCheck = 0;
  private checking: Promise<void> | undefined;

  constructor(
    readonly store: Store,
    private readonly options: LiveObjectsOptions = {},
  ) {}

  /** Called after each write of this instance commits (the reconcile loop compares again at once). */
  onWrite(listener: () => void): void {
    this.writeListeners.push(listener);
  }

  get readOnlyManaged(): boolean {
    return this.options.readOnlyManaged ?? false;
  }

  /** Drops the cache when another process wrote since the last check. */
  private async fresh(): Promise<void> {
    const now = Date.now();
    if (now - this.lastCheck < (this.options.revisionCheckMs ?? 1000)) return;
    this.checking ??= (async () => {
      try {
        const revision = await this.store.revision();
        if (revision !== this.knownRevision) {
          this.objects.clear();
          this.lists.clear();
          this.derived.clear();
          this.knownRevision = revision;
        }
        this.lastCheck = Date.now();
      } finally {
        this.checking = undefined;
      }
    })();
    await this.checking;
  }

  async get(kind: ObjectKind, name: string): Promise<LiveObject | undefined> {
    await this.fresh();
    const id = keyId({ kind, name });
    const cached = this.objects.get(id);
    if (cached !== undefined) return cached ?? undefined;
    const [found] = await this.store.getObjects([{ kind, name }]);
    if (this.objects.size > 50_000) this.objects.clear();
    this.objects.set(id, found ?? null);
    return found;
  }

  /** Many objects of a kind by name, in the order asked (missing ones left out): the cached ones and one read for the rest. */
  async getMany(kind: ObjectKind, names: readonly string[]): Promise<LiveObject[]> {
    await this.fresh();
    const known = new Map<string, LiveObject | null>();
    const missing: string[] = [];
    for (const name of names) {
      const cached = this.objects.get(keyId({ kind, name }));
      if (cached === undefined) missing.push(name);
      else known.set(name, cached);
    }
    if (missing.length > 0) {
      const found = new Map((await this.store.getObjects(missing.map((name) => ({ kind, name })))).map((o) => [o.name, o]));
      if (this.objects.size + missing.length > 50_000) this.objects.clear();
      for (const name of missing) {
        const object = found.get(name) ?? null;
        known.set(name, object);
        this.objects.set(keyId({ kind, name }), object);
      }
    }
    return names.flatMap((name) => known.get(name) ?? []);
  }

  /** The names of the objects of a kind (under a name prefix) whose spec says `disabled: true`, kept until any object changes. */
  async disabledNames(kind: ObjectKind, namePrefix?: string): Promise<ReadonlySet<string>> {
    return this.memo(`disabled\u0000${kind}\u0000${namePrefix ?? ''}`, async () => new Set(await this.store.listDisabledNames({ kind, namePrefix })));
  }

  async require(kind: ObjectKind, name: string, what: string = kind): Promise<LiveObject> {
    const found = await this.get(kind, name);
    if (!found) throw new DqError('NOT_FOUND', `${what} ${JSON.stringify(name)} not found`);
    return found;
  }

  /** Every object of a kind (tables: pass a prefix such as `conn/` or `conn/schema.` to read only some). */
  async list(kind: ObjectKind, namePrefix?: string): Promise<LiveObject[]> {
    await this.fresh();
    if (CACHED_LIST_KINDS.has(kind) && namePrefix === undefined) {
      const cached = this.lists.get(kind);
      if (cached) return cached;
      const all = await this.store.listObjects({ kind });
      this.lists.set(kind, all);
      return all;
    }
    return this.store.listObjects({ kind, namePrefix });
  }

  /**
   * A value computed from the live objects (e.g. every table's lineage edges), computed once and kept until
   * any object changes: a write through this instance, or another process's (seen within revisionCheckMs).
   */
  async memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
    await this.fresh();
    let value = this.derived.get(key) as Promise<T> | undefined;
    if (!value) {
      value = compute();
      this.derived.set(key, value);
      value.catch(() => this.derived.delete(key));
    }
    return value;
  }

  /** Creates an object; 409 when it exists. */
  async create(kind: ObjectKind, name: string, spec: JsonObject, context: WriteContext, attachments: JsonObject = {}): Promise<LiveObject> {
    return this.write(kind, name, context, (current) => {
      if (current) throw new DqError('ALREADY_EXISTS', `${kind} ${JSON.stringify(name)} already exists`);
      return { spec, attachments };
    });
  }

  /** Replaces an object from its current version; 404 when it does not exist. */
  async update(
    kind: ObjectKind,
    name: string,
    context: WriteContext,
    change: (current: LiveObject) => { spec: JsonObject; attachments?: JsonObject },
  ): Promise<LiveObject> {
    return this.write(kind, name, context, (current) => {
      if (!current) throw new DqError('NOT_FOUND', `${kind} ${JSON.stringify(name)} not found`);
      return change(current);
    });
  }

  /** Creates or replaces (PUT semantics of policies and their parts). */
  async upsert(
    kind: ObjectKind,
    name: string,
    context: WriteContext,
    change: (current: LiveObject | undefined) => { spec: JsonObject; attachments?: JsonObject },
  ): Promise<LiveObject> {
    return this.write(kind, name, context, change);
  }

  /** Many objects in one transaction (bulk check activation): each changed object is written, all or nothing. */
  async updateMany(
    keys: ObjectKey[],
    context: WriteContext,
    change: (current: LiveObject) => { spec: JsonObject } | undefined,
  ): Promise<number> {
    if (keys.length === 0) return 0;
    const written = await this.locked(context, async (tx) => {
      const currents = await tx.getObjects(keys);
      const writes: ObjectWrite[] = [];
      for (const current of currents) {
        const next = change(current);
        if (!next) continue;
        this.refuseManaged(current);
        const write = toWrite(current.kind, current.name, next.spec, current.attachments, current);
        if (write.contentHash !== current.contentHash) writes.push(write);
      }
      if (writes.length > 0) await tx.upsertObjects(writes);
      return writes;
    });
    this.forget(written);
    return written.length;
  }

  /**
   * Many objects deleted in one transaction (a connection with its tables), all or nothing: keys that do not
   * exist are skipped; one git-managed object under --read-only-managed refuses the whole delete. `children`
   * names prefixes (`{kind: 'table', namePrefix: 'conn/'}`) listed INSIDE the transaction, so an object created
   * just before the delete is deleted too, never orphaned. Returns how many objects were deleted.
   */
  async deleteMany(
    keys: ObjectKey[],
    context: WriteContext,
    options: { children?: { kind: ObjectKind; namePrefix: string }[] } = {},
  ): Promise<number> {
    const deleted = await this.locked(context, async (tx) => {
      const found = keys.length > 0 ? await tx.getObjects(keys) : [];
      for (const child of options.children ?? []) found.push(...(await tx.listObjects(child)));
      const unique = [...new Map(found.map((o) => [keyId(o), o])).values()];
      for (const current of unique) this.refuseManaged(current);
      const gone = unique.map((o) => ({ kind: o.kind, name: o.name }));
      if (gone.length > 0) await tx.deleteObjects(gone);
      return gone;
    });
    this.forget(deleted);
    return deleted.length;
  }

  async delete(kind: ObjectKind, name: string, context: WriteContext): Promise<void> {
    await this.locked(context, async (tx) => {
      const [current] = await tx.getObjects([{ kind, name }]);
      if (!current) throw new DqError('NOT_FOUND', `${kind} ${JSON.stringify(name)} not found`);
      this.refuseManaged(current);
      await tx.deleteObjects([{ kind, name }]);
    });
    this.forget([{ kind, name }]);
  }

  private async write(
    kind: ObjectKind,
    name: string,
    context: WriteContext,
    change: (current: LiveObject | undefined) => { spec: JsonObject; attachments?: JsonObject },
  ): Promise<LiveObject> {
    const result = await this.locked(context, async (tx) => {
      const [current] = await tx.getObjects([{ kind, name }]);
      const next = change(current);
      if (current) this.refuseManaged(current);
      const write = toWrite(kind, name, next.spec, next.attachments ?? current?.attachments ?? {}, current);
      if (!current || write.contentHash !== current.contentHash || current.managedBy !== write.managedBy) {
        await tx.upsertObjects([write]);
      }
      const [written] = await tx.getObjects([{ kind, name }]);
      return written;
    });
    this.forget([{ kind, name }]);
    return result;
  }

  private refuseManaged(current: LiveObject): void {
    if (this.readOnlyManaged && current.managedBy === 'git') {
      throw new DqError(
        'READ_ONLY_MANAGED',
        `${current.kind} ${JSON.stringify(current.name)} is managed by git (${current.originFile ?? 'unknown file'}); change it there, or run the server without --read-only-managed`,
        { file: current.originFile },
      );
    }
  }

  /**
   * Writes of this process queue here first (FIFO, handed over at once), so concurrent API writes do not all
   * poll the store lock; the store lock still orders them against other processes and apply.
   */
  private queue: Promise<unknown> = Promise.resolve();

  private locked<T>(context: WriteContext, work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    const run = this.queue.then(() => this.store.withLock(this.lock(context), work));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private lock(context: WriteContext) {
    return { holder: context.caller, operation: 'api write', timeoutMs: this.options.lockTimeoutMs ?? 15_000 };
  }

  private forget(keys: ObjectKey[]): void {
    for (const key of keys) {
      this.objects.delete(keyId(key));
      this.lists.delete(key.kind);
    }
    this.derived.clear();
    if (keys.length === 0) return;
    for (const listener of this.writeListeners) {
      try {
        listener();
      } catch {
        // a listener never fails the write that committed
      }
    }
  }
}

/** The row an API write produces: git ownership (and the applied hash) kept, so the change reads as drift. */
function toWrite(kind: ObjectKind, name: string, spec: JsonObject, attachments: JsonObject, current: LiveObject | undefined): ObjectWrite {
  const normalized = normalizeSpec(kind, spec);
  const hash = contentHash(normalized, attachments);
  if (current?.managedBy === 'git') {
    return {
      kind,
      name,
      spec: normalized,
      attachments,
      contentHash: hash,
      appliedHash: current.appliedHash,
      managedBy: 'git',
      owner: current.owner,
      originFile: current.originFile,
      originCommit: current.originCommit,
    };
  }
  return {
    kind,
    name,
    spec: normalized,
    attachments,
    contentHash: hash,
    appliedHash: null,
    managedBy: 'api',
    owner: current?.owner ?? '',
    originFile: null,
    originCommit: null,
  };
}
