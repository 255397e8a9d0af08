import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { contentHash } from '../../src/diff/contentHash.js';
import { normalizeSpec } from '../../src/diff/normalizeSpec.js';
import type { JsonObject, ObjectKind, ObjectWrite } from '../../src/model/index.js';
import type { Store } from '../../src/store/store.js';
import { EXAMPLE } from '../helpers/cli.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const apply = { holder: 'test', appliedBy: 'test', lockTimeoutMs: 5_000 };

/** What the REST facade will do: write an object through the store, outside git. */
async function apiWrite(store: Store, kind: ObjectKind, name: string, spec: JsonObject, keep?: { appliedHash: string | null; owner: string; managedBy: 'git' | 'api' }) {
  const normalized = normalizeSpec(kind, spec);
  const write: ObjectWrite = {
    kind,
    name,
    spec: normalized,
    attachments: {},
    contentHash: contentHash(normalized, {}),
    appliedHash: keep?.appliedHash ?? null,
    managedBy: keep?.managedBy ?? 'api',
    owner: keep?.owner ?? '',
    originFile: null,
    originCommit: null,
  };
  await store.withLock({ holder: 'api', operation: 'api write', timeoutMs: 5_000 }, (tx) => tx.upsertObjects([write]));
}

describe.each(STORE_ENGINES)('ownership, drift and deletion safety on $engine', ({ setup }) => {
  let fx: StoreFixture;
  let repo: string;
  let dir: string;

  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(() => fx.dispose());
  beforeEach(async () => {
    await fx.reset();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-own-'));
    repo = join(dir, 'repo');
    await cp(EXAMPLE, repo, { recursive: true });
    const { plan } = await planRepository({ repository: repo, store: fx.store });
    await applyPlan(plan, fx.store, apply);
    return () => rm(dir, { recursive: true, force: true });
  });

  it('round trip: a second plan has no changes, and apply wrote one audit record', async () => {
    const { plan } = await planRepository({ repository: repo, store: fx.store });
    expect(plan.changes).toEqual([]);
    expect(plan.drift).toEqual([]);
    const history = await fx.store.history();
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ appliedBy: 'test', summary: { add: 22, change: 0, destroy: 0 } });
    expect(history[0].planFingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('an API write to a git-managed object is drift: shown apart, restored by default, kept with keepDrift', async () => {
    const [live] = await fx.store.getObjects([{ kind: 'source', name: 'analytics_dwh' }]);
    await apiWrite(fx.store, 'source', 'analytics_dwh', { ...live.spec, parallel_jobs_limit: 99 }, {
      appliedHash: live.appliedHash,
      owner: live.owner,
      managedBy: 'git',
    });
    const restore = (await planRepository({ repository: repo, store: fx.store })).plan;
    expect(restore.drift).toEqual([expect.objectContaining({ key: { kind: 'source', name: 'analytics_dwh' }, restored: true })]);
    expect(restore.changes).toEqual([expect.objectContaining({ action: 'update', reason: 'restore_drift' })]);

    const keep = (await planRepository({ repository: repo, store: fx.store, keepDrift: true })).plan;
    expect(keep.changes).toEqual([]);
    // kept drift reads repository -> live
    expect(keep.drift[0].fields).toEqual([{ path: ['spec', 'parallel_jobs_limit'], before: live.spec.parallel_jobs_limit, after: 99, origin: 'api' }]);

    await applyPlan(restore, fx.store, apply);
    const after = (await planRepository({ repository: repo, store: fx.store })).plan;
    expect(after.changes).toEqual([]);
    expect(after.drift).toEqual([]);
  });

  it('API-created objects are kept, pruned only when asked, and adopted when the repository gains them', async () => {
    await apiWrite(fx.store, 'default_table_checks', 'made in the UI', { target: { table: 'x*' } });
    const keep = (await planRepository({ repository: repo, store: fx.store })).plan;
    expect(keep.changes).toEqual([]);
    expect(keep.kept).toEqual([expect.objectContaining({ reason: 'unmanaged' })]);

    const prune = (await planRepository({ repository: repo, store: fx.store, pruneUnmanaged: true })).plan;
    expect(prune.changes).toEqual([expect.objectContaining({ action: 'delete', reason: 'prune_unmanaged' })]);

    await writeFile(
      join(repo, 'patterns/made in the UI.dqotablepattern.yaml'),
      'apiVersion: dqo/v1\nkind: default_table_checks\nspec:\n  target:\n    table: "x*"\n',
    );
    const adopt = (await planRepository({ repository: repo, store: fx.store })).plan;
    expect(adopt.changes).toEqual([expect.objectContaining({ action: 'update', reason: 'adopt', fields: [] })]);
    await applyPlan(adopt, fx.store, apply);
    const [adopted] = await fx.store.getObjects([{ kind: 'default_table_checks', name: 'made in the UI' }]);
    expect(adopted).toMatchObject({ managedBy: 'git', owner: 'shop', originFile: 'patterns/made in the UI.dqotablepattern.yaml' });
  });

  it('objects of another namespace are never touched, and claiming one is refused', async () => {
    await apiWrite(fx.store, 'source', 'team_b_db', { provider_type: 'postgresql' }, { appliedHash: 'x', owner: 'team-b', managedBy: 'git' });
    const ignore = (await planRepository({ repository: repo, store: fx.store })).plan;
    expect(ignore.changes).toEqual([]);
    expect(ignore.kept).toEqual([]);

    await cp(join(repo, 'sources/shop_oltp'), join(repo, 'sources/team_b_db'), { recursive: true });
    const conflict = (await planRepository({ repository: repo, store: fx.store })).plan;
    expect(conflict.findings).toEqual([expect.objectContaining({ code: 'OWNERSHIP_CONFLICT', severity: 'error' })]);
    await expect(applyPlan(conflict, fx.store, apply)).rejects.toMatchObject({ code: 'OWNERSHIP_CONFLICT' });
  });

  it('a plan made before another write is refused as stale', async () => {
    await rm(join(repo, 'sources/shop_oltp/public.orders.dqotable.yaml'));
    const { plan } = await planRepository({ repository: repo, store: fx.store });
    await apiWrite(fx.store, 'rule', 'ui/rule', { type: 'python' });
    await expect(applyPlan(plan, fx.store, apply)).rejects.toMatchObject({ code: 'STALE_PLAN' });
    const [stillThere] = await fx.store.getObjects([{ kind: 'table', name: 'shop_oltp/public.orders' }]);
    expect(stillThere).toBeDefined();
  });
});
