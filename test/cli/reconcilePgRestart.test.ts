import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleCopy, setOrdersPriority, waitFor } from '../reconcile/helpers.js';
import { freePort, getJson, livePriorityIn, query, serve } from './reconcileSupport.js';

const execFileAsync = promisify(execFile);

/**
 * PostgreSQL restarted under a running loop. Never the shared server on 5432: a private throwaway cluster
 * (initdb as the postgres user in a temp folder, its own port), stopped and started by the test.
 */
const PG_BIN = (() => {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return undefined;
  const version = readdirSync(base).sort().pop();
  const bin = version ? join(base, version, 'bin') : undefined;
  return bin && existsSync(join(bin, 'initdb')) ? bin : undefined;
})();
const canRun = PG_BIN !== undefined && process.getuid?.() === 0;

async function asPostgres(command: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('runuser', ['-u', 'postgres', '--', join(PG_BIN!, command), ...args], { timeout: 60_000 });
  return stdout;
}

describe.skipIf(!canRun)('PostgreSQL restarted under the reconcile loop (a private cluster)', () => {
  let dir: string;
  let data: string;
  let port: number;
  let url: string;
  let repo: Awaited<ReturnType<typeof exampleCopy>>;
  let server: ChildProcess | undefined;
  const pgctl = (action: 'start' | 'stop') =>
    action === 'start'
      ? asPostgres('pg_ctl', '-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start')
      : asPostgres('pg_ctl', '-D', data, '-w', '-m', 'fast', 'stop');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-pgrestart-'));
    await chown(dir, Number((await execFileAsync('id', ['-u', 'postgres'])).stdout), Number((await execFileAsync('id', ['-g', 'postgres'])).stdout));
    data = join(dir, 'data');
    port = await freePort();
    await asPostgres('initdb', '-D', data, '--no-sync', '-A', 'trust', '-U', 'postgres');
    await pgctl('start');
    url = `postgres://postgres@127.0.0.1:${port}/dqctl`;
    await query(`postgres://postgres@127.0.0.1:${port}/postgres`, 'create database dqctl');
    repo = await exampleCopy('dqctl-pgrestart-repo-');
  });
  afterAll(async () => {
    server?.kill('SIGKILL');
    await pgctl('stop').catch(() => undefined);
    await repo?.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('passes fail (Degraded, nothing half-applied) while the server is down and recover by themselves when it is back', async () => {
    const served = await serve(['--repo', repo.dir, '--auto-apply', '--database', url, '--interval', '500ms'], repo.dir);
    server = served.child;
    const status = async () => (await getJson(`${served.url}/api/gitops/status`)).body;
    await waitFor(async () => (await livePriorityIn(url)) === 1, 20_000, 'the first apply');

    await pgctl('stop');
    await setOrdersPriority(repo.dir, 2);
    await waitFor(async () => (await status()).health === 'Degraded', 10_000, 'Degraded while PostgreSQL is down');
    const down = await status();
    expect(down.last_pass.result).toBe('error');
    expect(down.last_pass.error).toMatch(/store|connect|terminat/i);
    // Unknown when the pass could not read the live store; OutOfSync when it planned from live objects read just
    // before (LiveObjects' revision check is recent) and then failed to apply: never Synced with the edit unapplied
    expect(['Unknown', 'OutOfSync']).toContain(down.sync);

    await pgctl('start');
    await waitFor(async () => (await livePriorityIn(url)) === 2, 20_000, 'the edit applied after PostgreSQL came back');
    await waitFor(async () => {
      const s = await status();
      return s.health === 'Healthy' && s.sync === 'Synced' && s.replica.leader === true;
    }, 10_000, 'Healthy, Synced and leading again');
    // the same process: no restart of dqctl
    expect(served.child.exitCode).toBeNull();
    const objects = await query<{ n: string }>(url, 'select count(*) as n from dqctl.objects');
    expect(Number(objects[0].n)).toBe(22);
  });
});
