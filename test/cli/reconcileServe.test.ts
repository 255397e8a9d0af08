import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';
import { exampleCopy, setOrdersPriority, waitFor } from '../reconcile/helpers.js';
import { getJson, killAll, livePriorityIn, query, serve } from './reconcileSupport.js';

/** `dqctl serve --repo` and `dqctl status` as a user runs them: the real bin, real HTTP, PostgreSQL. */
describe('dqctl serve --repo and dqctl status (real bin)', () => {
  let database: TestDatabase;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  const children: ChildProcess[] = [];

  beforeEach(async () => {
    database = await createTestDatabase();
    repo = await exampleCopy('dqctl-cli-reconcile-');
  });
  afterEach(async () => {
    await killAll(children);
    await database.drop();
    await repo.cleanup();
  });

  it('applies the folder, follows saved edits, reports through status --server and status --repo, and stops on SIGTERM', async () => {
    const server = await serve(['--repo', repo.dir, '--auto-apply', '--database', database.url, '--interval', '2s'], repo.dir);
    children.push(server.child);
    expect(server.stderr()).toContain(`dqctl is reconciling the folder ${repo.dir} (watched) every 2s, applying`);
    await waitFor(async () => (await livePriorityIn(database.url)) === 1, 20_000, 'the first apply');
    await setOrdersPriority(repo.dir, 4);
    await waitFor(async () => (await livePriorityIn(database.url)) === 4, 5_000, 'the saved edit');

    await waitFor(async () => (await getJson(`${server.url}/api/gitops/status`)).body.pass_running === false, 5_000, 'an idle loop');
    const json = await runCli(['status', '--server', server.url, '--format', 'json'], { cwd: repo.dir });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ sync: 'Synced', health: 'Healthy', replica: { leader: true }, repository: { type: 'folder', location: repo.dir } });
    const text = await runCli(['status', '--server', server.url], { cwd: repo.dir });
    expect(text.stdout).toMatch(/^Repository: +.* \(folder\)$/m);
    expect(text.stdout).toMatch(/^Sync: +Synced \(22 Synced/m);
    expect(text.stdout).toMatch(/^Loop: +auto-apply, no self-heal, every 2s, leader/m);
    expect(text.stdout).toMatch(/^Lock: +free$/m);

    // the loop logs its passes as JSON lines with the request log
    const logged = server.stdout().trim().split('\n').map((line) => JSON.parse(line));
    // (on a loaded machine the 2 s timer may reach the edit before the watcher's debounce: either applies it)
    expect(logged.find((l) => l.reconcile && l.result === 'applied' && (l.triggers?.includes('watch') || l.triggers?.includes('timer')))).toBeTruthy();

    // without --server: the store read directly, compared with a folder
    await setOrdersPriority(repo.dir, 4); // unchanged
    const drift = await query(database.url, `update dqctl.objects set content_hash = 'x' where kind = 'table' and name = 'shop_oltp/public.customers'`);
    expect(drift).toEqual([]);
    const local = await runCli(['status', '--database', database.url, '--format', 'json'], { cwd: repo.dir });
    expect(local.code).toBe(0);
    const localStatus = JSON.parse(local.stdout);
    expect(localStatus).toMatchObject({ repository: null, sync: 'OutOfSync', last_applied: { applied_by: expect.stringContaining('(serve)') }, last_pass: null });
    expect(localStatus.objects).toEqual([expect.objectContaining({ name: 'shop_oltp/public.customers', status: 'Drifted' })]);

    const exited = server.exited;
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(server.stderr()).toContain('dqctl: shutting down');

    await setOrdersPriority(repo.dir, 5);
    const compared = await runCli(['status', '--database', database.url, '--repo', repo.dir], { cwd: repo.dir });
    expect(compared.code).toBe(0);
    expect(compared.stdout).toMatch(/^Sync: +OutOfSync/m);
    expect(compared.stdout).toMatch(/~ table "shop_oltp\/public\.orders" +OutOfSync +the repository changed it: spec\.priority/);
  });

  it('refuses flag combinations that would do nothing or contradict each other', async () => {
    const cases: Array<[string[], string]> = [
      [['--auto-apply'], '--auto-apply configures the reconcile loop: add --repo DIR or --git URL'],
      [['--repo', '.', '--git', 'file:///x'], '--repo and --git exclude each other'],
      [['--repo', '.', '--self-heal'], '--self-heal restores drift by applying: it needs --auto-apply'],
      [['--repo', '.', '--branch', 'x'], '--branch goes with --git URL'],
      [['--repo', '.', '--interval', 'soon'], '--interval must be a duration'],
      [['--git=--upload-pack=evil', '--database', 'postgres://nobody@127.0.0.1:1/none'], '--git must be a git URL'],
      [['--git', 'file:///x', '--branch', '-evil', '--database', 'postgres://nobody@127.0.0.1:1/none'], 'is not a valid branch name'],
      [['--repo', 'no-such-folder', '--database', 'postgres://nobody@127.0.0.1:1/none'], 'cannot read the repository folder'],
    ];
    for (const [args, message] of cases) {
      const run = await runCli(['serve', '--port', '0', ...args], { cwd: repo.dir, timeoutMs: 20_000 });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(message);
    }
  });
});
