import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

/** Starts the real bin's `serve` and waits for its "serving" line. */
async function serve(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; stdout: () => string; stderr: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { cwd, env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '', ...env } });
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
  return { child, stdout: () => out, stderr: () => err };
}

describe('dqctl serve (real bin, real HTTP)', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let running: ChildProcess | undefined;
  beforeEach(async () => {
    ws = await workspace();
    await runCli(['apply', ws.repo, '--auto-approve', '--state-dir', join(ws.dir, 'state')], { cwd: ws.dir });
  });
  afterEach(async () => {
    running?.kill('SIGKILL');
    await ws.cleanup();
  });

  it('serves the store, logs one line per request without secrets, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const server = await serve(['--port', String(port), '--state-dir', join(ws.dir, 'state')], ws.dir);
    running = server.child;
    expect(server.stderr()).toContain(`http://127.0.0.1:${port}/api/docs`);
    const rules = await fetch(`http://127.0.0.1:${port}/api/rules`);
    expect(rules.status).toBe(200);
    const openapi = (await (await fetch(`http://127.0.0.1:${port}/api/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    expect(openapi.openapi).toBe('3.0.3');
    expect(Object.keys(openapi.paths)).toContain('/api/rules');
    const docs = await fetch(`http://127.0.0.1:${port}/api/docs/`);
    expect(docs.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', resolve));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const lines = server.stdout().trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.find((l) => l.path === '/api/rules')).toMatchObject({ method: 'GET', status: 200, caller: 'anonymous', duration_ms: expect.any(Number) });
  });

  it('with tokens: 401 without or with a wrong token, 403 for a role too low, and never logs the token', async () => {
    const tokensFile = join(ws.dir, 'tokens.yaml');
    await writeFile(
      tokensFile,
      '- {name: reader, role: viewer, token: viewer-token-123}\n- {name: ci, role: editor, token_sha256: ' +
        (await import('node:crypto')).createHash('sha256').update('editor-token-456').digest('hex') +
        '}\n- {name: owner, role: admin, token: admin-token-789}\n',
    );
    const port = await freePort();
    const server = await serve(['--port', String(port), '--state-dir', join(ws.dir, 'state'), '--tokens', tokensFile], ws.dir);
    running = server.child;
    const url = `http://127.0.0.1:${port}/api/rules/custom%2Fx`;
    const body = JSON.stringify({ type: 'python', mode: 'current_value' });
    const headers = (token?: string) => ({ 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) });
    expect((await fetch(url, { method: 'POST', body, headers: headers() })).status).toBe(401);
    const wrong = await fetch(url, { method: 'POST', body, headers: headers('nope-nope-nope') });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect((await fetch(`http://127.0.0.1:${port}/api/rules`, { headers: headers('viewer-token-123') })).status).toBe(200);
    const forbidden = await fetch(url, { method: 'POST', body, headers: headers('viewer-token-123') });
    expect(forbidden.status).toBe(403);
    expect(((await forbidden.json()) as { message: string }).message).toContain('needs admin');
    // a rule is code: an editor may not write it either (docs/custom-code.md), an admin may
    expect((await fetch(url, { method: 'POST', body, headers: headers('editor-token-456') })).status).toBe(403);
    expect((await fetch(url, { method: 'POST', body, headers: headers('admin-token-789') })).status).toBe(201);
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.on('exit', resolve));
    expect(server.stdout()).not.toContain('viewer-token-123');
    expect(server.stdout()).not.toContain('editor-token-456');
    expect(server.stdout()).not.toContain('admin-token-789');
    expect(server.stdout()).toContain('"caller":"ci"');
  });

  it('refuses to serve without tokens beyond loopback, unless --insecure', async () => {
    const run = await runCli(['serve', '--host', '0.0.0.0', '--port', '0', '--state-dir', join(ws.dir, 'state')], { cwd: ws.dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('refusing to serve an API without tokens on 0.0.0.0');
    const badTokens = await runCli(['serve', '--port', '0', '--state-dir', join(ws.dir, 'state')], { cwd: ws.dir, env: { DQCTL_TOKENS: '- {name: x, role: god, token: abcdefghij}' } });
    expect(badTokens.code).toBe(1);
    expect(badTokens.stderr).toContain('role must be one of viewer, editor, operator, admin');
  });
});
