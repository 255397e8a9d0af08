import type { Change } from '../diff/change.js';
import { blockingFindings, leavesNothingToPlan, nothingToApply, type Plan } from '../plan/plan.js';
import { DqError, knownSpecJson, withSpecJson, type ApplyRecord, type DesiredObject, type ObjectKey, type ObjectWrite, type ProgressReporter } from '../model/index.js';
import type { Store, StoreTransaction } from '../store/store.js';

/**
 * Applies a plan: all of it in one transaction under the store lock, or nothing. The plan must still describe
 * the live store: if anything wrote to the store since the plan was made (its revision moved), the plan is
 * stale and refused. Writes the audit record in the same transaction.
 */
export interface ApplyOptions {
  /** Lock holder shown to others, e.g. `alice@laptop`. */
  holder: string;
  /** Recorded in the audit log. */
  appliedBy: string;
  lockTimeoutMs: number;
  /** Told of the objects written so far (a terminal's progress bar); the writes are then made in chunks. */
  progress?: ProgressReporter;
  /** Apply a plan for another environment than the store's (`--switch-env`); refused otherwise. */
  switchEnvironment?: boolean;
}

/** Updates per write when progress is reported: small enough to move the bar, large enough to stay a bulk write. */
const PROGRESS_CHUNK = 250;

export interface ApplyResult {
  applied: { add: number; change: number; destroy: number };
  /** Objects recorded as in sync again (their API change now matches the repository). */
  resynced: number;
  record: ApplyRecord | null;
  storeRevision: number;
}

export async function applyPlan(plan: Plan, store: Store, options: ApplyOptions): Promise<ApplyResult> {
  const blocking = blockingFindings(plan);
  if (blocking.length > 0) {
    const first = blocking[0];
    throw new DqError(first.code === 'MASS_DELETE' ? 'MASS_DELETE_REFUSED' : 'OWNERSHIP_CONFLICT', first.message, {
      objects: first.objects.slice(0, 20),
    });
  }
  if (plan.environment.switching && !options.switchEnvironment) throw environmentSwitchRefused(plan);
  if (nothingToApply(plan)) {
    return { applied: { add: 0, change: 0, destroy: 0 }, resynced: 0, record: null, storeRevision: plan.store.revision };
  }
  return store.withLock({ holder: options.holder, operation: 'apply', timeoutMs: options.lockTimeoutMs }, async (tx) => {
    const before = await revisionBeforeThisTransaction(tx);
    if (before !== plan.fingerprint.liveRevision) {
      throw new DqError(
        'STALE_PLAN',
        `the live store changed since the plan was made (revision ${plan.fingerprint.liveRevision} then, ${before} now); run plan again`,
      );
    }
    const commit = plan.repository.commit;
    const deletes: ObjectKey[] = [];
    const updates: ObjectWrite[] = [];
    let creates = 0;
    for (const change of plan.changes) {
      if (change.action === 'create') creates += 1;
      else if (change.action === 'delete') deletes.push(change.key);
      else updates.push(updateWrite(change, plan.namespace, commit));
    }
    for (const desired of plan.resynced) updates.push(gitWrite(desired, plan.namespace, commit));
    const total = deletes.length + creates + updates.length;
    const progress = options.progress;
    progress?.({ phase: 'apply', done: 0, total });
    if (deletes.length > 0) await tx.deleteObjects(deletes);
    // the creates in one bulk load, each write made as the store takes it (no array of every object, nor its text)
    if (creates > 0) {
      await tx.insertObjects(createdObjects(plan, commit), progress && ((written) => progress({ phase: 'apply', done: deletes.length + written, total })));
    }
    const doneBefore = deletes.length + creates;
    if (!progress) {
      if (updates.length > 0) await tx.upsertObjects(updates);
    } else {
      for (let at = 0; at < updates.length; at += PROGRESS_CHUNK) {
        await tx.upsertObjects(updates.slice(at, at + PROGRESS_CHUNK));
        progress({ phase: 'apply', done: doneBefore + Math.min(at + PROGRESS_CHUNK, updates.length), total });
      }
    }
    await tx.recordEnvironment(plan.namespace, plan.environment.name);
    // what the next plan of the same files may take as "nothing changed" while nobody writes (store/appliedInputs.ts)
    await tx.recordInputs(
      plan.namespace,
      plan.inputDigest && leavesNothingToPlan(plan) ? { inputDigest: plan.inputDigest, desiredFingerprint: plan.fingerprint.desired } : null,
    );
    await faultInjection('after-writes');
    const record = await tx.recordApply({
      appliedBy: options.appliedBy,
      commit,
      environment: plan.environment.name,
      dirtyFiles: plan.repository.dirtyFiles && plan.repository.dirtyFiles.length > 0 ? plan.repository.dirtyFiles : null,
      repository: plan.repository.description,
      planFingerprint: plan.fingerprint.plan,
      summary: { ...plan.summary, objects: plan.changes.map((c) => `${c.action} ${c.key.kind} ${c.key.name}`).slice(0, 1000) },
    });
    return { applied: { ...plan.summary }, resynced: plan.resynced.length, record, storeRevision: record.storeRevision };
  });
}

/** ENVIRONMENT_SWITCH_REFUSED, naming both environments and the way out. */
export function environmentSwitchRefused(plan: Pick<Plan, 'environment' | 'namespace'>): DqError {
  const { name, live } = plan.environment;
  return new DqError(
    'ENVIRONMENT_SWITCH_REFUSED',
    `the live store was applied with the environment ${live} (namespace ${plan.namespace}); this plan is for ${name === null ? 'no environment' : `the environment ${name}`}. ` +
      `Check --env and the store (--database / --state-dir / --server); pass --switch-env to apply it to this store anyway`,
    { live_environment: live, environment: name, namespace: plan.namespace },
  );
}

/**
 * The creates in the order of their files (the order of the rows of one COPY does not matter): a spec the parse
 * cache left in its shard (one per connection) is then read shard by shard, each shard once.
 */
function* createdObjects(plan: Plan, commit: string | null): Generator<ObjectWrite> {
  const creates: Extract<Change, { action: 'create' }>[] = [];
  for (const change of plan.changes) if (change.action === 'create') creates.push(change);
  creates.sort((a, b) => (a.desired.origin.file < b.desired.origin.file ? -1 : a.desired.origin.file > b.desired.origin.file ? 1 : 0));
  for (const change of creates) yield createWrite(change.desired, plan.namespace, commit);
}

/**
 * gitWrite of a create, whose spec is read only when the store asks for it: as the text its parse cache shard holds
 * (knownSpecJson) when it does, so the COPY sends that text with no spec object made (model/specJson.ts).
 */
function createWrite(desired: DesiredObject, namespace: string, commit: string | null): ObjectWrite {
  const write = { kind: desired.kind, name: desired.name } as ObjectWrite;
  Object.defineProperty(write, 'spec', { enumerable: true, configurable: true, get: () => desired.spec });
  Object.assign(write, gitWriteRest(desired, namespace, commit));
  return withSpecJson(write, () => knownSpecJson(desired));
}

function updateWrite(change: Extract<Change, { action: 'update' }>, namespace: string, commit: string | null): ObjectWrite {
  if (!change.write) return gitWrite(change.desired, namespace, commit);
  // a keep-drift merge: the merged content is written, the repository's version recorded as the one applied
  return {
    ...gitWrite(change.desired, namespace, commit),
    spec: change.write.spec,
    attachments: change.write.attachments,
    contentHash: change.write.hash,
    appliedContent: { spec: change.desired.spec, attachments: change.desired.attachments },
  };
}

function gitWrite(desired: DesiredObject, namespace: string, commit: string | null): ObjectWrite {
  return { kind: desired.kind, name: desired.name, spec: desired.spec, ...gitWriteRest(desired, namespace, commit) };
}

function gitWriteRest(desired: DesiredObject, namespace: string, commit: string | null): Omit<ObjectWrite, 'kind' | 'name' | 'spec'> {
  return {
    attachments: desired.attachments,
    contentHash: desired.hash,
    appliedHash: desired.hash,
    managedBy: 'git',
    owner: namespace,
    originFile: desired.origin.file,
    originCommit: commit,
  };
}

/** withLock bumps the revision once when the transaction starts; the plan was made against the one before. */
async function revisionBeforeThisTransaction(tx: StoreTransaction): Promise<number> {
  return (await tx.revision()) - 1;
}

/**
 * Crash and concurrency testing, off unless the variable is set:
 * `DQCTL_FAULT_INJECTION=kill-after-writes` kills the process after the writes and before the commit, the way
 * a power cut or `kill -9` would, so tests can prove the old state survives whole;
 * `DQCTL_FAULT_INJECTION=pause-after-writes` holds the lock (and the open transaction) for
 * DQCTL_FAULT_PAUSE_MS (default 5000), or until the process gets SIGUSR2, so tests can run a second apply
 * against it and then let it go at once rather than wait out a delay.
 */
async function faultInjection(point: 'after-writes'): Promise<void> {
  const mode = process.env.DQCTL_FAULT_INJECTION;
  if (mode === `kill-${point}`) process.kill(process.pid, 'SIGKILL');
  if (mode === `pause-${point}`) {
    process.stderr.write('dqctl: fault injection: pausing inside the apply transaction\n');
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        process.off('SIGUSR2', done);
        resolve();
      };
      const timer = setTimeout(done, Number(process.env.DQCTL_FAULT_PAUSE_MS ?? 5000));
      process.on('SIGUSR2', done);
    });
  }
}
