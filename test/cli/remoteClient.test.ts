import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { callServer, remoteTargetOf, type RemoteTarget } from '../../src/cli/remoteClient.js';
import { runCli } from '../helpers/cli.js';

/**
 * The --server client against real sockets: a server that accepts and never answers, one that is not there,
 * one that answers 503 twice before it is up, and an HTTP proxy that records what went through it.
 */
const servers: { close(): void }[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

async function listen(server: Server | ReturnType<typeof createTcpServer>): Promise<number> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

/** Accepts connections and reads the request, but never answers. */
async function silentServer(): Promise<number> {
  const server = createTcpServer((socket) => {
    sockets.push(socket);
    socket.on('data', () => undefined);
  });
  return listen(server);
}

async function httpServer(handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<number> {
  return listen(createServer(handler));
}

async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

const target = (port: number, extra: Partial<RemoteTarget> = {}): RemoteTarget => ({ url: `http://127.0.0.1:${port}`, env: {}, ...extra });

describe('the --server client', () => {
  it('a server that accepts and never answers: SERVER_UNREACHABLE after --timeout, not a hang', async () => {
    const port = await silentServer();
    const started = Date.now();
    const error = await callServer(target(port, { timeoutMs: 400 }), 'POST', '/api/gitops/apply', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERVER_UNREACHABLE' });
    expect((error as Error).message).toBe(`the dqctl server at http://127.0.0.1:${port} did not answer POST /api/gitops/apply within 400 ms (--timeout sets the limit)`);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('the real bin: `status --server` of a silent server ends with one line and exit 1 after --timeout', async () => {
    const port = await silentServer();
    const run = await runCli(['status', '--server', `http://127.0.0.1:${port}`, '--timeout', '1s'], { cwd: process.cwd(), timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`Error: the dqctl server at http://127.0.0.1:${port} did not answer GET /api/gitops/status within 1 s (--timeout sets the limit)\n`);
  });

  it('nothing listening: one clear line, after the retries of a read', async () => {
    const port = await closedPort();
    const error = (await callServer(target(port), 'GET', '/api/gitops/status').catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`cannot reach the dqctl server at http://127.0.0.1:${port}: ECONNREFUSED (3 attempts)`);
  });

  it('retries idempotent requests on 503 (a server restarting behind a proxy), never an apply', async () => {
    let calls = 0;
    const port = await httpServer((request, response) => {
      calls++;
      if (calls <= 2) {
        response.writeHead(503, { 'content-type': 'text/plain' }).end('starting');
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, method: request.method }));
    });
    expect(await callServer(target(port), 'GET', '/api/gitops/status')).toEqual({ ok: true, method: 'GET' });
    expect(calls).toBe(3);

    calls = 0;
    const refused = (await callServer(target(port), 'POST', '/api/gitops/apply', {}).catch((e: unknown) => e)) as Error;
    expect(calls).toBe(1);
    expect(refused).toMatchObject({ code: 'SERVER_UNREACHABLE' });
    expect(refused.message).toContain('answered HTTP 503');
  });

  it('HTTP_PROXY is used (a CONNECT tunnel through it), NO_PROXY bypasses it', async () => {
    const seen: string[] = [];
    const proxyServer = createServer((_request, response) => response.writeHead(405).end());
    proxyServer.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
      seen.push(`CONNECT ${request.url}`);
      const [host, port] = String(request.url).split(':');
      const upstream = connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.push(client, upstream);
    });
    const proxy = await listen(proxyServer);
    const direct = await httpServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    const env = { HTTP_PROXY: `http://127.0.0.1:${proxy}` };
    expect(await callServer(target(direct, { env }), 'GET', '/api/gitops/status')).toEqual({ ok: true });
    expect(seen).toEqual([`CONNECT 127.0.0.1:${direct}`]);
    expect(await callServer(target(direct, { env: { ...env, NO_PROXY: '127.0.0.1' } }), 'GET', '/api/gitops/status')).toEqual({ ok: true });
    expect(seen).toHaveLength(1);
  });

  it('--timeout and $DQCTL_TIMEOUT are durations; the default is 2 minutes', () => {
    const io = { env: {} as NodeJS.ProcessEnv } as Parameters<typeof remoteTargetOf>[1];
    expect(remoteTargetOf({ server: 'http://127.0.0.1:1' }, io)?.timeoutMs).toBe(120_000);
    expect(remoteTargetOf({ server: 'http://127.0.0.1:1', timeout: '30s' }, io)?.timeoutMs).toBe(30_000);
    expect(remoteTargetOf({ server: 'http://127.0.0.1:1' }, { ...io, env: { DQCTL_TIMEOUT: '5m' } })?.timeoutMs).toBe(300_000);
    expect(() => remoteTargetOf({ server: 'http://127.0.0.1:1', timeout: 'soon' }, io)).toThrow(/--timeout must be a duration/);
  });
});
