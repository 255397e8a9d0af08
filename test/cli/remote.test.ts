import { spawn, type ChildProcess } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, workspace } from '../helpers/cli.js';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The real bin's `serve` on the embedded store, with tokens; resolves once it listens. */
async function serve(args: string[], cwd: string): Promise<{ child: ChildProcess; log: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd, env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '' } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 30_000);
    child.stderr!.on('data', (c) => {
      err += c;
      if (err.includes('is serving')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`serve exited: ${err}`)));
  });
  return { child, log: () => out };
}

/** The plan text without the one line naming the store (a different folder for the local twin). */
const withoutStoreLine = (text: string) => text.replace(/^Live store: .*$/m, 'Live store: …');

/**
 * plan|apply --server against a real `dqctl serve` child on PGlite: the CI job needs a URL and a token, no
 * database credentials; output and exit codes are those of the local commands.
 */
describe('plan and apply --server through a running dqctl serve (real bin, PGlite)', { timeout: 240_000 }, () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let server: { child: ChildProcess; log: () => string };
  let url: string;
  const served = () => join(ws.dir, 'served');
  const twin = () => join(ws.dir, 'twin');
  const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => runCli(args, { cwd: ws.dir, env: { DQCTL_SERVER_URL: '', DQCTL_TOKEN: '', ...env } });
  const asCi = ['--token', 'operator-token'];

  beforeAll(async () => {
    ws = await workspace();
    // two identical empty stores: one served, one planned locally for comparison
    const init = await runCli(['state', 'list', '--state-dir', served()], { cwd: ws.dir });
    expect(init.code).toBe(0);
    await cp(served(), twin(), { recursive: true });
    await writeFile(
      join(ws.dir, 'tokens.yaml'),
      '- {name: reader, role: viewer, token: viewer-token}\n- {name: ci, role: operator, token: operator-token}\n',
    );
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = await serve(['--port', String(port), '--state-dir', served(), '--tokens', join(ws.dir, 'tokens.yaml'), '--log-level', 'info'], ws.dir);
  }, 60_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await ws?.cleanup();
  });

  it('a local command on the served store fails at once, naming the server and suggesting --server', async () => {
    const started = Date.now();
    const local = await cli(['plan', ws.repo, '--state-dir', served()]);
    expect(local.code).toBe(1);
    expect(local.stderr).toContain('is open in `dqctl serve`');
    expect(local.stderr).toContain(`--server ${url}`);
    expect(Date.now() - started).toBeLessThan(15_000); // not the 30 s wait for a holder that will not leave
    const locks = await cli(['lock', 'list', '--state-dir', served(), '--format', 'json']);
    expect(JSON.parse(locks.stdout).locks[0]).toMatchObject({ id: 'state-dir', server: url, alive: true, releasable: false });
  });

  it('plan --server prints what a local plan prints, with the same exit codes', async () => {
    const remote = await cli(['plan', ws.repo, '--server', url, ...asCi, '--detailed-exitcode']);
    const local = await cli(['plan', ws.repo, '--state-dir', twin(), '--detailed-exitcode']);
    expect(remote.code).toBe(2);
    expect(local.code).toBe(2);
    expect(withoutStoreLine(remote.stdout)).toBe(withoutStoreLine(local.stdout));
    const remoteJson = JSON.parse((await cli(['plan', ws.repo, '--server', url, ...asCi, '--format', 'json'])).stdout);
    const localJson = JSON.parse((await cli(['plan', ws.repo, '--state-dir', twin(), '--format', 'json'])).stdout);
    for (const doc of [remoteJson, localJson]) {
      doc.created_at = 'x';
      doc.store.location = 'x';
    }
    expect(remoteJson).toEqual(localJson);
    const markdown = await cli(['plan', ws.repo, '--server', url, ...asCi, '--format', 'markdown']);
    expect(markdown.stdout).toContain('22 to add');
  });

  it('an invalid repository exits 3 and sends nothing', async () => {
    const broken = join(ws.dir, 'broken');
    await cp(ws.repo, broken, { recursive: true });
    await writeFile(join(broken, 'sources/shop_oltp/public.orders.dqotable.yaml'), 'apiVersion: dqo/v1\nkind: table\nspec:\n  stagee: x\n');
    const requestsBefore = server.log().split('\n').filter((l) => l.includes('/api/gitops/')).length;
    const result = await cli(['plan', broken, '--server', url, ...asCi]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('unknown_key');
    expect(server.log().split('\n').filter((l) => l.includes('/api/gitops/')).length).toBe(requestsBefore);
  });

  it('tokens: none is UNAUTHENTICATED with a hint, a viewer may plan but not apply; DQCTL_SERVER_URL and DQCTL_TOKEN work', async () => {
    const anonymous = await cli(['plan', ws.repo, '--server', url]);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toContain('pass --token, or set DQCTL_TOKEN');
    const viewerPlan = await cli(['plan', ws.repo], { DQCTL_SERVER_URL: url, DQCTL_TOKEN: 'viewer-token' });
    expect(viewerPlan.code).toBe(0);
    expect(viewerPlan.stdout).toContain('Plan: 22 to add');
    const viewerApply = await cli(['apply', ws.repo, '--auto-approve'], { DQCTL_SERVER_URL: url, DQCTL_TOKEN: 'viewer-token' });
    expect(viewerApply.code).toBe(1);
    expect(viewerApply.stderr).toContain('this operation needs operator or higher');
  });

  it('apply --server asks for confirmation like the local apply, applies with --auto-approve, then plans to no changes', async () => {
    const unconfirmed = await cli(['apply', ws.repo, '--server', url, ...asCi]);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stdout).toContain('Plan: 22 to add, 0 to change, 0 to destroy.');
    expect(unconfirmed.stderr).toContain('apply needs confirmation');

    const applied = await cli(['apply', ws.repo, '--server', url, ...asCi, '--auto-approve']);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Objects: 22 added, 0 changed, 0 destroyed. Store revision 1.');
    const local = await cli(['apply', ws.repo, '--state-dir', twin(), '--auto-approve']);
    expect(withoutStoreLine(applied.stdout)).toBe(withoutStoreLine(local.stdout));

    const again = await cli(['plan', ws.repo, '--server', url, ...asCi, '--detailed-exitcode']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes. The live state matches the repository.');
    const json = JSON.parse((await cli(['apply', ws.repo, '--server', url, ...asCi, '--auto-approve', '--format', 'json'])).stdout);
    expect(json).toMatchObject({ plan: { summary: { add: 0, change: 0, destroy: 0 } }, applied: null });
  });

  it('a saved plan is applied only while neither the repository nor the store moved (STALE_PLAN otherwise)', async () => {
    const orders = join(ws.repo, 'sources/shop_oltp/public.orders.dqotable.yaml');
    await writeFile(orders, (await readFile(orders, 'utf8')).replace('stage: source', 'stage: raw'));
    const saved = join(ws.dir, 'plan.json');
    const planned = await cli(['plan', ws.repo, '--server', url, ...asCi, '--out', saved]);
    expect(planned.code).toBe(0);
    expect(planned.stderr).toContain(`dqctl apply ${saved} --server ${url}`);
    expect(JSON.parse(await readFile(saved, 'utf8')).summary).toMatchObject({ change: 1 });
    // the shown plan as a local show renders it
    expect((await cli(['show', saved])).stdout).toBe(planned.stdout);

    const applied = await cli(['apply', saved, '--server', url, ...asCi]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete! Objects: 0 added, 1 changed, 0 destroyed.');
    const stale = await cli(['apply', saved, '--server', url, ...asCi]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/Error: stale plan: the live store changed since the plan was made \(revision 1 then, 2 now\)/);
  });

  it('refuses --server with a store flag, and reports an unreachable server', async () => {
    const both = await cli(['plan', ws.repo, '--server', url, '--state-dir', twin()]);
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('drop --state-dir');
    const nobody = await cli(['plan', ws.repo, '--server', `http://127.0.0.1:${await freePort()}`, ...asCi]);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/Error: cannot reach the dqctl server at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });
});
