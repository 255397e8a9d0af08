import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';

/**
 * `dqctl serve` as an operator runs it: --log-format json gives one JSON object per line on stdout (requests,
 * jobs, reconcile passes), --log-format text the same events as text; --metrics-port serves /metrics on its own
 * listener without a token while the API keeps its tokens.
 */
function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

interface Served {
  child: ChildProcess;
  stdout: () => string;
  url: string;
}

async function serve(dir: string, args: string[]): Promise<Served> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port), '--state-dir', join(dir, 'state'), '--no-schedules', ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '' },
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`serve did not start: ${err}`)), 150_000);
    child.stderr!.on('data', (chunk) => {
      err += chunk;
      if (err.includes('is serving')) {
        clearTimeout(timer);
        done();
      }
    });
    child.on('exit', () => fail(new Error(`serve exited: ${err}`)));
  });
  return { child, stdout: () => out, url: `http://127.0.0.1:${port}` };
}

async function stop(served: Served): Promise<void> {
  const exited = new Promise((done) => served.child.once('exit', done));
  served.child.kill('SIGTERM');
  await exited;
}

describe('serve: logs and the metrics listener (real bin, PGlite)', { timeout: 300_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dqctl-serve-obs-'));
    await writeFile(join(dir, 'tokens.yaml'), '- {name: grafana, role: viewer, token: viewer-token}\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('--log-format json: every line is one JSON event; --metrics-port: /metrics without a token there, the API still needs one', async () => {
    const metricsPort = await freePort();
    const served = await serve(dir, ['--tokens', join(dir, 'tokens.yaml'), '--log-format', 'json', '--metrics-port', String(metricsPort), '--metrics-host', '127.0.0.1']);
    try {
      expect((await fetch(`${served.url}/api/connections`)).status).toBe(401);
      expect((await fetch(`${served.url}/api/connections`, { headers: { authorization: 'Bearer viewer-token' } })).status).toBe(200);
      expect((await fetch(`${served.url}/metrics`, { headers: { authorization: 'Bearer viewer-token' } })).status).toBe(404);
      const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toMatch(/^dqctl_http_request_duration_seconds_count\{method="GET",route="\/api\/connections",status="200"\} 1$/m);
      expect(text).toMatch(/^dqctl_jobs\{status="queued"\} 0$/m);
    } finally {
      await stop(served);
    }
    const lines = served.stdout().trim().split('\n');
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = events.filter((e) => e.msg === 'request');
    expect(requests).toContainEqual(expect.objectContaining({ level: 30, method: 'GET', path: '/api/connections', status: 200, caller: 'grafana', time: expect.any(Number) }));
    expect(requests).toContainEqual(expect.objectContaining({ path: '/api/connections', status: 401, caller: 'anonymous' }));
    expect(served.stdout()).not.toContain('viewer-token');
  });

  it('--log-format text: the same events as one line of text each', async () => {
    const served = await serve(dir, ['--log-format', 'text']);
    try {
      expect((await fetch(`${served.url}/metrics`)).status).toBe(200); // no tokens: /metrics is open on loopback, like the API
      await fetch(`${served.url}/api/healthcheck`);
    } finally {
      await stop(served);
    }
    const line = served.stdout().split('\n').find((l) => l.includes('/api/healthcheck'))!;
    expect(line).toBeDefined();
    expect(() => JSON.parse(line)).toThrow();
    // pino-pretty shows the caller in angle brackets, the other fields after the message
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO <anonymous>: request \{.*"path":"\/api\/healthcheck".*"status":200/);
  });
});
