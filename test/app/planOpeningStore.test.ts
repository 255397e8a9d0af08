/**
 * `dqctl plan` and `apply` open the store while the repository's files are read and hashed (src/app/openStore.ts
 * withOpeningStore, src/app/planRepository.ts taking the store's opening): the plan is the one made on an open
 * store, a store that cannot open is reported as before, and the store is closed whatever happens.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/applyPlan.js';
import { withOpeningStore } from '../../src/app/openStore.js';
import { planRepository } from '../../src/app/planRepository.js';
import { DqError } from '../../src/model/index.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/store.js';
import { EXAMPLE } from '../helpers/cli.js';

describe('a plan made while its embedded store opens', () => {
  let dir: string;
  let repo: string;
  let stateDir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-opening-'));
    repo = join(dir, 'repo');
    stateDir = join(dir, 'state');
    await cp(EXAMPLE, repo, { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('plans, applies and plans again (answered by the store) with the store handed over still opening', { timeout: 300_000 }, async () => {
    const first = await withOpeningStore({ stateDir }, async (opening) => {
      const { plan } = await planRepository({ repository: repo, store: opening });
      await applyPlan(plan, await opening, { holder: 'test', appliedBy: 'test', lockTimeoutMs: 5_000 });
      return plan;
    });
    expect(first.changes.length).toBeGreaterThan(5);
    expect(first.changes.every((c) => c.action === 'create')).toBe(true);
    // closed by withOpeningStore: this process may open the folder again, and the plan is the open store's
    const again = await withOpeningStore({ stateDir }, (opening) => planRepository({ repository: repo, store: opening }));
    expect(again.desired).toBeNull(); // the store answered: nothing changed since the apply
    expect(again.plan.changes).toEqual([]);
    const store = await openStore({ stateDir });
    try {
      const onOpenStore = await planRepository({ repository: repo, store, shortcut: false });
      expect(again.plan.fingerprint).toEqual(onOpenStore.plan.fingerprint);
      expect(again.plan.inputDigest).toBe(onOpenStore.plan.inputDigest);
    } finally {
      await store.close();
    }
  });

  it('closes the store when the work fails before it awaited the store', { timeout: 120_000 }, async () => {
    await expect(
      withOpeningStore({ stateDir }, (opening) => planRepository({ repository: join(dir, 'no-such-folder'), store: opening })),
    ).rejects.toMatchObject({ code: 'REPOSITORY_UNREADABLE' });
    // the folder's lock was released: a second open in this process does not wait for it
    const store = await openStore({ stateDir, openTimeoutMs: 1_000 });
    await store.close();
  });

  it("reports a store that cannot open once the files are read, and the repository's own error first", async () => {
    const refused = new DqError('STORE_UNREACHABLE', 'cannot reach the store (test)');
    // an opening already refused when the plan starts: its rejection is handled by the plan before any file is read
    const failing = (): Promise<Store> => Promise.reject(refused);
    await expect(planRepository({ repository: repo, store: failing() })).rejects.toBe(refused);
    await expect(planRepository({ repository: join(dir, 'no-such-folder'), store: failing() })).rejects.toMatchObject({ code: 'REPOSITORY_UNREADABLE' });
    // the opening that failed while the work failed first is not an unhandled rejection (vitest fails the run on one)
  });
});
