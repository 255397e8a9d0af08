/**
 * The store saying "nothing changed since revision N" (src/store/appliedInputs.ts, src/app/planRepository.ts): a
 * plan of the very files of the namespace's last apply, against a store nobody wrote to since, is answered without
 * loading the repository or listing the live objects. Every other case loads and compares as always, and every
 * answer equals the one of a full plan (`shortcut: false`).
 */
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { planRepository } from '../../src/app/planRepository.js';
import { contentHash } from '../../src/diff/contentHash.js';
import { normalizeSpec } from '../../src/diff/normalizeSpec.js';
import { readRepositoryInputs } from '../../src/manifest/repositoryInputs.js';
import type { ObjectWrite } from '../../src/model/index.js';
import type { Plan } from '../../src/plan/plan.js';
import { EXAMPLE } from '../helpers/cli.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

const identity = { holder: 'test', appliedBy: 'test', lockTimeoutMs: 5_000 };
const PAYMENTS = 'sources/shop_oltp/public.payments.dqotable.yaml';
const RULE_MODULE = 'rules/volume/order_volume_band.py';

describe.each(STORE_ENGINES)('a plan of unchanged files against an unchanged store, on $engine', ({ setup }) => {
  let fx: StoreFixture;
  let dir: string;
  let repo: string;

  beforeAll(async () => {
    fx = await setup();
  });
  afterAll(() => fx.dispose());
  beforeEach(async () => {
    await fx.reset();
    dir = await mkdtemp(join(tmpdir(), 'dqctl-unchanged-'));
    repo = join(dir, 'repo');
    await cp(EXAMPLE, repo, { recursive: true });
    await apply();
    return () => rm(dir, { recursive: true, force: true });
  });

  /** Plans with the shortcut and without; both must be the same plan. `answered`: the store answered (nothing loaded). */
  async function plan(options: { environment?: string | null; pruneUnmanaged?: boolean; keepDrift?: boolean } = {}): Promise<{ plan: Plan; answered: boolean }> {
    const fast = await planRepository({ repository: repo, store: fx.store, ...options });
    const full = await planRepository({ repository: repo, store: fx.store, ...options, shortcut: false });
    expect(fast.plan.fingerprint).toEqual(full.plan.fingerprint);
    expect(fast.plan.changes).toEqual(full.plan.changes);
    expect(fast.plan.kept).toEqual(full.plan.kept);
    expect(fast.plan.drift).toEqual(full.plan.drift);
    expect(fast.plan.resynced).toEqual(full.plan.resynced);
    expect(fast.plan.environment).toEqual(full.plan.environment);
    expect(fast.plan.summary).toEqual(full.plan.summary);
    expect(fast.plan.findings).toEqual(full.plan.findings);
    expect(fast.plan.repository).toEqual(full.plan.repository);
    expect(fast.plan.inputDigest).toBe(full.plan.inputDigest);
    return { plan: fast.plan, answered: fast.desired === null };
  }

  async function apply(options: { environment?: string | null; keepDrift?: boolean } = {}): Promise<void> {
    const { plan: p } = await planRepository({ repository: repo, store: fx.store, ...options });
    await applyPlan(p, fx.store, identity);
  }

  const edit = async (path: string, change: (text: string) => string): Promise<void> => {
    const file = join(repo, path);
    await writeFile(file, change(await readFile(file, 'utf8')));
  };
  const changes = (p: Plan) => p.changes.map((c) => `${c.action} ${c.key.kind} ${c.key.name}`);

  it('the files of the last apply against an untouched store: answered by the store, no change', async () => {
    const { plan: p, answered } = await plan();
    expect(answered).toBe(true);
    expect(p.changes).toEqual([]);
    expect(p.inputDigest).toMatch(/^[0-9a-f]{64}$/);
    // whatever the options: nothing is kept, drifted or unmanaged after that apply
    expect((await plan({ pruneUnmanaged: true })).answered).toBe(true);
    expect((await plan({ keepDrift: true })).answered).toBe(true);
  });

  it('an edited file is loaded and planned; changed back, the change back is planned', async () => {
    const before = await readFile(join(repo, PAYMENTS), 'utf8');
    await edit(PAYMENTS, (t) => t.replace('min_count: 20000', 'min_count: 25000'));
    const edited = await plan();
    expect(edited.answered).toBe(false);
    expect(changes(edited.plan)).toEqual(['update table shop_oltp/public.payments']);
    await applyPlan(edited.plan, fx.store, identity);
    expect((await plan()).answered).toBe(true);

    await writeFile(join(repo, PAYMENTS), before);
    const back = await plan();
    expect(back.answered).toBe(false);
    expect(changes(back.plan)).toEqual(['update table shop_oltp/public.payments']);
  });

  it('a change of bytes that changes no object (a comment) is loaded, and plans nothing', async () => {
    await edit(PAYMENTS, (t) => `${t}# a comment\n`);
    const p = await plan();
    expect(p.answered).toBe(false);
    expect(p.plan.changes).toEqual([]);
  });

  it('a renamed, a deleted and a new file are each seen', async () => {
    await rename(join(repo, PAYMENTS), join(repo, 'sources/shop_oltp/public.payments2.dqotable.yaml'));
    const renamed = await plan();
    expect(renamed.answered).toBe(false);
    expect(changes(renamed.plan)).toEqual(['create table shop_oltp/public.payments2', 'delete table shop_oltp/public.payments']);

    await rm(join(repo, 'sources/shop_oltp/public.payments2.dqotable.yaml'));
    const deleted = await plan();
    expect(deleted.answered).toBe(false);
    expect(changes(deleted.plan)).toEqual(['delete table shop_oltp/public.payments']);

    await cp(join(EXAMPLE, PAYMENTS), join(repo, PAYMENTS));
    await cp(join(EXAMPLE, PAYMENTS), join(repo, 'sources/shop_oltp/public.refunds.dqotable.yaml'));
    const added = await plan();
    expect(added.answered).toBe(false);
    expect(changes(added.plan)).toEqual(['create table shop_oltp/public.refunds']);
  });

  it('a file that is not YAML (a rule module) is an input too', async () => {
    await edit(RULE_MODULE, (t) => `${t}\n# changed\n`);
    const p = await plan();
    expect(p.answered).toBe(false);
    expect(changes(p.plan)).toEqual(['update rule volume/order_volume_band']);
  });

  it('an API write since the apply is seen (the store revision moved), and restored', async () => {
    const spec = normalizeSpec('table', { stage: 'api', columns: {} });
    const [live] = await fx.store.getObjects([{ kind: 'table', name: 'shop_oltp/public.payments' }]);
    const write: ObjectWrite = {
      kind: 'table',
      name: 'shop_oltp/public.payments',
      spec,
      attachments: {},
      contentHash: contentHash(spec, {}),
      appliedHash: live.appliedHash,
      managedBy: 'git',
      owner: 'shop',
      originFile: PAYMENTS,
      originCommit: null,
    };
    await fx.store.withLock({ holder: 'api', operation: 'api write', timeoutMs: 5_000 }, (tx) => tx.upsertObjects([write]));
    const p = await plan();
    expect(p.answered).toBe(false);
    expect(p.plan.changes.map((c) => (c.action === 'update' ? c.reason : c.action))).toEqual(['restore_drift']);
    await applyPlan(p.plan, fx.store, identity);
    expect((await plan()).answered).toBe(true);
  });

  it('an object created through the API is kept by the next apply: that apply records nothing, every later plan compares', async () => {
    const spec = normalizeSpec('table', { columns: {} });
    const write: ObjectWrite = {
      kind: 'table',
      name: 'shop_oltp/public.from_api',
      spec,
      attachments: {},
      contentHash: contentHash(spec, {}),
      appliedHash: null,
      managedBy: 'api',
      owner: '',
      originFile: null,
      originCommit: null,
    };
    await fx.store.withLock({ holder: 'api', operation: 'api write', timeoutMs: 5_000 }, (tx) => tx.upsertObjects([write]));
    await edit(PAYMENTS, (t) => t.replace('min_count: 20000', 'min_count: 25000'));
    await apply();
    const kept = await plan();
    expect(kept.answered).toBe(false);
    expect(kept.plan.kept.map((k) => `${k.reason} ${k.key.name}`)).toEqual(['unmanaged shop_oltp/public.from_api']);
    const pruning = await plan({ pruneUnmanaged: true });
    expect(pruning.answered).toBe(false);
    expect(changes(pruning.plan)).toEqual(['delete table shop_oltp/public.from_api']);
  });

  it('an apply that keeps drift (--keep-drift) records nothing: the drift is planned again', async () => {
    const spec = normalizeSpec('table', { stage: 'api', columns: {} });
    const [live] = await fx.store.getObjects([{ kind: 'table', name: 'shop_oltp/public.payments' }]);
    await fx.store.withLock({ holder: 'api', operation: 'api write', timeoutMs: 5_000 }, (tx) =>
      tx.upsertObjects([{ ...live, spec, attachments: {}, contentHash: contentHash(spec, {}), originCommit: null }]),
    );
    await edit('sources/shop_oltp/public.orders.dqotable.yaml', (t) => `${t.replace('priority: 1', 'priority: 2')}`);
    const before = await plan({ keepDrift: true });
    expect(before.plan.drift.map((d) => [d.key.name, d.restored])).toEqual([['shop_oltp/public.payments', false]]);
    await applyPlan(before.plan, fx.store, identity);
    const after = await plan({ keepDrift: true });
    expect(after.answered).toBe(false);
    expect(after.plan.drift.map((d) => d.key.name)).toEqual(['shop_oltp/public.payments']);
  });

  it('another namespace applying to the store moves the revision: compared again', async () => {
    const other = join(dir, 'other');
    await cp(EXAMPLE, other, { recursive: true });
    await writeFile(join(other, 'dqctl.yaml'), 'apiVersion: dqctl/v1\nkind: settings\nspec:\n  namespace: other\n');
    await rm(join(other, 'sources'), { recursive: true });
    await rm(join(other, 'patterns'), { recursive: true });
    await writeFile(join(other, 'rules/volume/order_volume_band.py'), '# other\n' + (await readFile(join(repo, RULE_MODULE), 'utf8')));
    await rename(join(other, 'rules/volume'), join(other, 'rules/volume_other'));
    await rm(join(other, 'rules/trend'), { recursive: true });
    const { plan: p } = await planRepository({ repository: other, store: fx.store });
    await applyPlan(p, fx.store, identity);
    const mine = await plan();
    expect(mine.answered).toBe(false);
    expect(mine.plan.changes).toEqual([]);
  });

  it('a settings change (dqctl.yaml) and another environment are other inputs', async () => {
    await edit('dqctl.yaml', (t) => t.replace('mass_delete_threshold: 0.5', 'mass_delete_threshold: 0.6'));
    const settings = await plan();
    expect(settings.answered).toBe(false);
    expect(settings.plan.options.massDeleteThreshold).toBe(0.6);
    await edit('dqctl.yaml', (t) => `${t}  environments:\n    prod:\n      vars: {}\n`);
    await apply({ environment: 'prod' });
    expect((await plan({ environment: 'prod' })).answered).toBe(true);
    const none = await plan({ environment: null });
    expect(none.answered).toBe(false);
    expect(none.plan.environment).toEqual({ name: null, live: 'prod', switching: true });
  });

  it('the store schema or the objects table replaced since the apply: compared again', async () => {
    await fx.sql.query(`insert into dqctl.schema_migrations (version, name) values (9999, 'a later dqctl')`);
    try {
      expect((await plan()).answered).toBe(false);
    } finally {
      await fx.sql.query('delete from dqctl.schema_migrations where version = 9999');
    }
    expect((await plan()).answered).toBe(true);
    // a restore or a TRUNCATE gives the objects table a new file; the revision may come back to the same number
    const [{ revision }] = await fx.sql.query<{ revision: number }>('select revision from dqctl.store_state');
    await fx.sql.exec('truncate dqctl.objects');
    await fx.sql.query('update dqctl.store_state set revision = $1', [revision]);
    const emptied = await plan();
    expect(emptied.answered).toBe(false);
    expect(emptied.plan.summary.add).toBe(22);
  });

  it('an apply from a plan without a digest (a remote plan, the loop) forgets the namespace record', async () => {
    await edit(PAYMENTS, (t) => t.replace('min_count: 20000', 'min_count: 25000'));
    const { plan: p } = await planRepository({ repository: repo, store: fx.store });
    await applyPlan({ ...p, inputDigest: undefined }, fx.store, identity);
    const [{ count }] = await fx.sql.query<{ count: number }>('select count(*)::int as count from dqctl.applied_inputs');
    expect(count).toBe(0);
    expect((await plan()).answered).toBe(false);
  });
});

describe('the digest of the inputs', () => {
  it('changes with the code that loads them, the environment and a file; not with a touch', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dqctl-inputs-'));
    try {
      await cp(EXAMPLE, dir, { recursive: true });
      const digest = async (options: { codeKey?: string; environment?: string | null } = {}) => (await readRepositoryInputs(dir, options)).digest;
      const base = await digest();
      expect(base).toMatch(/^[0-9a-f]{64}$/);
      expect(await digest()).toBe(base);
      expect(await digest({ codeKey: 'another dqctl' })).not.toBe(base);
      expect(await digest({ environment: 'prod' })).not.toBe(base);
      const text = await readFile(join(dir, PAYMENTS), 'utf8');
      await writeFile(join(dir, PAYMENTS), text); // same bytes, new mtime
      expect(await digest()).toBe(base);
      await writeFile(join(dir, 'README.md'), 'not read by dqctl');
      expect(await digest()).toBe(base);
      await writeFile(join(dir, 'sources/notes.txt'), 'listed, not an object');
      expect(await digest()).not.toBe(base);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
