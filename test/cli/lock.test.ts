import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLE, onTerminal, runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid!;

describe('dqctl lock list / lock release (real bin)', { timeout: 180_000 }, () => {
  let dir: string;
  const cli = (...args: string[]) => runCli(args, { cwd: dir });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-lock-cli-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('embedded store: lists the folder lock a killed process left, asks before releasing it, then the store opens again', async () => {
    const state = join(dir, 'state');
    expect((await cli('state', 'list', '--state-dir', state)).code).toBe(0);
    expect((await cli('lock', 'list', '--state-dir', state)).stdout).toContain('none held.');

    const pid = deadPid();
    await writeFile(join(state, 'lock'), JSON.stringify({ pid, host: hostname(), since: new Date(Date.now() - 90_000).toISOString(), operation: 'apply by alice@laptop', token: 'k' }));
    const listed = await cli('lock', 'list', '--state-dir', state);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`state-dir\\s+pid ${pid} on ${hostname()}\\s+apply by alice@laptop\\s+1m3\\ds\\s+${pid}\\s+${hostname()}\\s+dead`));
    expect(listed.stdout).toContain(`can be released: process ${pid} on this host is gone`);
    const json = JSON.parse((await cli('lock', 'list', '--state-dir', state, '--format', 'json')).stdout);
    expect(json.locks[0]).toMatchObject({ id: 'state-dir', pid, host: hostname(), operation: 'apply by alice@laptop', alive: false, releasable: true });
    expect(json.locks[0].age_ms).toBeGreaterThanOrEqual(90_000);

    const unconfirmed = await cli('lock', 'release', 'state-dir', '--state-dir', state);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toContain('lock release needs confirmation: run it in a terminal, or pass --yes');
    expect(existsSync(join(state, 'lock'))).toBe(true);

    const released = await cli('lock', 'release', 'state-dir', '--state-dir', state, '--yes');
    expect(released.code).toBe(0);
    expect(released.stdout).toContain(`Released the lock state-dir held by pid ${pid} on ${hostname()} (apply by alice@laptop).`);
    expect(existsSync(join(state, 'lock'))).toBe(false);
    expect((await cli('state', 'list', '--state-dir', state, '--format', 'json')).code).toBe(0);
    const unknown = await cli('lock', 'release', 'nope', '--state-dir', state, '--yes');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('the locks are "store" (PostgreSQL) and "state-dir" (embedded store)');
  });

  it('on a terminal, lock release asks and releases only on "yes"', async () => {
    const state = join(dir, 'state');
    expect((await cli('state', 'list', '--state-dir', state)).code).toBe(0);
    await writeFile(join(state, 'lock'), JSON.stringify({ pid: deadPid(), host: hostname(), since: new Date().toISOString(), operation: 'plan', token: 'k' }));
    const no = await onTerminal(['lock', 'release', 'state-dir', '--state-dir', state], 'no', dir);
    expect(no.output).toContain('Release it?');
    expect(no.output).toContain('Lock release cancelled.');
    expect(no.code).toBe(1);
    expect(existsSync(join(state, 'lock'))).toBe(true);
    const yes = await onTerminal(['lock', 'release', 'state-dir', '--state-dir', state], 'yes', dir);
    expect(yes.output).toContain('Released the lock state-dir');
    expect(yes.code).toBe(0);
    expect(existsSync(join(state, 'lock'))).toBe(false);
  });

  describe('PostgreSQL', () => {
    let database: TestDatabase;
    let ghost: pg.Client | undefined;
    beforeAll(async () => {
      database = await createTestDatabase();
      expect((await runCli(['apply', EXAMPLE, '--database', database.url, '--auto-approve'], { cwd: tmpdir() })).code).toBe(0);
    });
    afterAll(() => database.drop());
    afterEach(async () => {
      await ghost?.end().catch(() => {});
      ghost = undefined;
    });

    /** A session holding the store lock, as a frozen client would leave it. */
    const holdLock = async (pid: number, minutesAgo: number): Promise<pg.Client> => {
      const client = new pg.Client({ connectionString: database.url });
      client.on('error', () => {});
      await client.connect();
      await client.query('select pg_advisory_lock($1, $2)', [0x64716374, 1]);
      await client.query(
        `insert into dqctl.lock (id, holder, operation, since, pid, host, backend_pid)
         values (true, 'bob@ci', 'apply', now() - make_interval(mins => $1), $2, $3, pg_backend_pid())
         on conflict (id) do update set holder = excluded.holder, operation = excluded.operation, since = excluded.since,
           pid = excluded.pid, host = excluded.host, backend_pid = excluded.backend_pid`,
        [minutesAgo, pid, hostname()],
      );
      return client;
    };

    it('a live holder within the TTL is listed and not released (LOCK_HELD); apply waits for it and names it', async () => {
      ghost = await holdLock(process.pid, 0);
      const listed = await cli('lock', 'list', '--database', database.url);
      expect(listed.stdout).toMatch(/store\s+bob@ci\s+apply\s+\d+s\s+\d+\s+\S+\s+alive/);
      const refused = await cli('lock', 'release', 'store', '--database', database.url, '--yes');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('not releasing the lock store: held by bob@ci (apply)');
      const orders = join(dir, 'repo');
      await cp(EXAMPLE, orders, { recursive: true });
      await writeFile(join(orders, 'sources/shop_oltp/public.extra.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {stage: x}\n');
      const blocked = await cli('apply', orders, '--database', database.url, '--auto-approve', '--lock-timeout', '1s');
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain('the store is locked by bob@ci (apply');
    });

    it('a dead holder is released by lock release --yes (its session ended); a stale one older than --lock-ttl is reclaimed by apply itself', async () => {
      ghost = await holdLock(deadPid(), 0);
      const released = await cli('lock', 'release', 'store', '--database', database.url, '--yes');
      expect(released.code).toBe(0);
      expect(released.stdout).toContain('Released the lock store held by bob@ci (apply).');
      expect((await cli('lock', 'list', '--database', database.url)).stdout).toContain('none held.');
      await ghost.end();

      ghost = await holdLock(deadPid(), 3);
      const repo = join(dir, 'repo');
      await cp(EXAMPLE, repo, { recursive: true });
      await writeFile(join(repo, 'sources/shop_oltp/public.reclaimed.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec: {stage: x}\n');
      const applied = await cli('apply', repo, '--database', database.url, '--auto-approve', '--lock-timeout', '10s', '--lock-ttl', '2m');
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      expect(applied.stdout).toContain('Apply complete! Objects: 1 added');
    });
  });
});
