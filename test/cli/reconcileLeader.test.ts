import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { exampleCopy, setOrdersPriority, waitFor } from '../reconcile/helpers.js';
import { getJson, killAll, livePriorityIn, query, serve } from './reconcileSupport.js';

/**
 * Two `dqctl serve` replicas on one PostgreSQL database: one leads the reconcile loop (a session advisory lock),
 * both serve the API. The leader is killed with SIGKILL in the middle of a pass, inside its apply transaction;
 * the other takes over within an interval, and the store is never half-applied.
 */
describe('dqctl serve replicas on one PostgreSQL: leader election', () => {
  let database: TestDatabase;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    repo = await exampleCopy('dqctl-cli-leader-');
  });
  afterEach(async () => {
    await killAll(children);
    await database.drop();
    await repo.cleanup();
  });

  it('only the leader applies; when it is killed mid-pass the other replica takes over and the store is whole', async () => {
    const objectsIn = async () => Number((await query<{ n: string }>(database.url, 'select count(*) as n from dqctl.objects'))[0].n);
    const common = ['--repo', repo.dir, '--auto-apply', '--database', database.url, '--interval', '1s'];

    // A leads, and its first apply stops inside the transaction, after the writes, before the commit.
    const a = await serve(common, repo.dir, {
      env: { DQCTL_FAULT_INJECTION: 'pause-after-writes', DQCTL_FAULT_PAUSE_MS: '120000' },
      readyText: 'fault injection: pausing inside the apply transaction',
    });
    children.push(a.child);
    const b = await serve(common, repo.dir);
    children.push(b.child);

    // Both serve the API; A leads, B follows and only reports what is pending.
    const statusOf = async (url: string) => (await getJson(`${url}/api/gitops/status`)).body;
    await waitFor(async () => (await statusOf(b.url)).last_pass !== null, 10_000, "B's first pass");
    const follower = await statusOf(b.url);
    expect(follower).toMatchObject({ replica: { leader: false }, sync: 'OutOfSync', last_pass: { result: 'out_of_sync' } });
    expect(follower.message).toContain('another replica leads the loop and applies them');
    expect((await getJson(`${a.url}/api/gitops/status`)).status).toBe(200);
    expect((await getJson(`${b.url}/api/rules`)).status).toBe(200);
    expect(await objectsIn()).toBe(0); // A's writes are not committed
    expect((await statusOf(b.url)).lock).toMatchObject({ operation: 'apply', pid: a.child.pid });

    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    await a.exited;
    await waitFor(async () => (await statusOf(b.url)).replica.leader === true, 10_000, 'B to lead');
    const takeover = Date.now() - killedAt;
    await waitFor(async () => (await livePriorityIn(database.url)) === 1, 10_000, "B's apply");
    await waitFor(async () => {
      const status = await statusOf(b.url);
      return status.last_pass?.result === 'applied' || (status.last_pass?.result === 'no_changes' && status.sync === 'Synced');
    }, 10_000, 'B synced');

    // whole: every object once, one apply in the audit log (B's), no lock left behind
    expect(await objectsIn()).toBe(22);
    const history = await query<{ applied_by: string }>(database.url, 'select applied_by from dqctl.apply_history');
    expect(history).toHaveLength(1);
    expect(await query(database.url, 'select holder from dqctl.lock')).toEqual([]);
    expect(takeover).toBeLessThan(5_000); // one interval (1 s) plus the probe, with room for a busy machine

    // and B now follows edits as the leader
    await setOrdersPriority(repo.dir, 9);
    await waitFor(async () => (await livePriorityIn(database.url)) === 9, 10_000, 'the edit applied by the new leader');
  });
});
