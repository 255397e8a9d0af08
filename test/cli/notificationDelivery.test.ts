import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordResultsWithIncidents, type IncidentConfiguration } from '../../src/incidents/index.js';
import type { JsonObject } from '../../src/model/index.js';
import { openStore } from '../../src/store/openStore.js';
import type { CheckResultInput, OpenStoreOptions } from '../../src/store/store.js';
import { failedResult } from '../helpers/checkResults.js';
import { BIN, workspace } from '../helpers/cli.js';
import { freePort, startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * Delivery across processes, with the real bin: messages written by a run survive a SIGKILL of `serve` before
 * they went out, and are delivered after the restart; so does a message whose send was under way when `serve`
 * was killed (the receiver holding the request open): sent again with the same Idempotency-Key by the next
 * server once the dead one's lease ends, and marked delivered only after the receiver answered; two `serve` replicas on one PostgreSQL deliver every
 * message exactly once between them (FOR UPDATE SKIP LOCKED).
 */
const DQCTL_YAML = `apiVersion: dqctl/v1
kind: settings
spec:
  notifications:
    initial_backoff_seconds: 0.2
    max_backoff_seconds: 0.5
    send_timeout_seconds: 2
`;

function failures(count: number): CheckResultInput[] {
  const at = new Date().toISOString();
  return Array.from({ length: count }, (_, i) => failedResult({ tableName: `table_${i}`, executedAt: at }));
}

function opening(url: string): IncidentConfiguration {
  const spec: JsonObject = { incident_grouping: { incident_notification: { incident_opened_addresses: url } } };
  return { connectionSpec: () => spec, tableSpec: () => undefined, defaultNotifications: undefined };
}

/** Writes the incidents (and their messages) of `count` failing tables, as a check run does, then closes the store. */
async function run(options: OpenStoreOptions, url: string, count: number): Promise<void> {
  const store = await openStore({ ...options, operation: 'test run' });
  try {
    await recordResultsWithIncidents(store, failures(count), opening(url));
  } finally {
    await store.close();
  }
}

interface Served {
  child: ChildProcess;
  stderr: () => string;
  /** How many times the server's log holds `text`; its deliverer logs each send once the store has recorded it. */
  count(text: string): number;
  /** Calls `listener` on every chunk of log. */
  onLog(listener: () => void): void;
}

async function serve(args: string[], cwd: string): Promise<Served> {
  // info: the deliverer logs every settled send, which the tests wait on
  const child = spawn(process.execPath, [BIN, 'serve', '--no-schedules', '--log-level', 'info', '--log-format', 'json', ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', DQCTL_DATABASE_URL: '' },
  });
  let err = '';
  let log = '';
  const listeners: Array<() => void> = [];
  child.stdout!.on('data', (c) => {
    log += c;
    for (const listener of listeners) listener();
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    child.stderr!.on('data', (c) => {
      err += c;
      if (err.includes('is serving')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', () => reject(new Error(`serve exited: ${err}`)));
  });
  return { child, stderr: () => err, count: (text) => log.split(text).length - 1, onLog: (listener) => listeners.push(listener) };
}

/** Resolves once the servers' logs together hold `text` `times` times (an event of their output, not a poll). */
function logged(servers: Served[], text: string, times = 1): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (servers.reduce((n, s) => n + s.count(text), 0) >= times) resolve();
    };
    for (const server of servers) server.onLog(check);
    check();
  });
}

async function outbox(port: number): Promise<JsonObject[]> {
  return (await (await fetch(`http://127.0.0.1:${port}/api/notifications/outbox?limit=1000`)).json()) as JsonObject[];
}

describe('notification delivery across processes (real bin)', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  const children: ChildProcess[] = [];
  let receiver: HttpReceiver | undefined;
  let database: TestDatabase | undefined;
  beforeEach(async () => {
    ws = await workspace();
    await writeFile(join(ws.dir, 'dqctl.yaml'), DQCTL_YAML);
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await receiver?.close();
    receiver = undefined;
    await database?.drop();
    database = undefined;
    await ws.cleanup();
  });

  for (const engine of ['pglite', 'postgres'] as const) {
    it(`${engine}: a message written before a SIGKILL of serve is delivered after the restart, with its Idempotency-Key`, async () => {
      const storeArgs = engine === 'pglite' ? ['--state-dir', join(ws.dir, 'state')] : ['--database', (database = await createTestDatabase()).url];
      const options: OpenStoreOptions = engine === 'pglite' ? { stateDir: join(ws.dir, 'state') } : { databaseUrl: database!.url };
      const receiverPort = await freePort();
      await run(options, `http://127.0.0.1:${receiverPort}/hook`, 1);
      const port = await freePort();
      const first = await serve(['--port', String(port), ...storeArgs], ws.dir);
      children.push(first.child);
      // the receiver is down: the server tries, and keeps the message pending
      await logged([first], 'will be retried'); // the first attempt, recorded
      expect((await outbox(port))[0]).toMatchObject({ status: 'pending', event: 'open' });
      first.child.kill('SIGKILL');
      await new Promise((r) => first.child.once('exit', r));

      receiver = await startHttpReceiver({ port: receiverPort });
      const second = await serve(['--port', String(port), ...storeArgs], ws.dir);
      children.push(second.child);
      await receiver.arrival(0); // the delivery after the restart (the receiver's event)
      await logged([second], 'delivered to'); // and its delivered status, recorded
      const [message] = await outbox(port);
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0].headers['idempotency-key']).toBe(message.idempotencyKey);
      expect(receiver.received[0].body).toMatchObject({ connection: 'shop', table: 'table_0', status: 'open' });
    }, 180_000);
  }

  for (const engine of ['pglite', 'postgres'] as const) {
    it(`${engine}: a server killed while a message is being sent: delivered after the restart, same key, marked only once answered`, async () => {
      // a send may take 5 s, so the first claim's lease (3 × that + 5 s) ends 20 s after the claim
      await writeFile(join(ws.dir, 'dqctl.yaml'), DQCTL_YAML.replace('send_timeout_seconds: 2', 'send_timeout_seconds: 5'));
      const storeArgs = engine === 'pglite' ? ['--state-dir', join(ws.dir, 'state')] : ['--database', (database = await createTestDatabase()).url];
      const options: OpenStoreOptions = engine === 'pglite' ? { stateDir: join(ws.dir, 'state') } : { databaseUrl: database!.url };
      // the receiver holds every request open until the test answers it
      receiver = await startHttpReceiver({ respond: () => 'hang' });
      const held = receiver;
      await run(options, `${held.url}/hook`, 1);
      const port = await freePort();
      const first = await serve(['--port', String(port), ...storeArgs], ws.dir);
      children.push(first.child);

      const sent = await held.arrival(0);
      expect((await outbox(port))[0]).toMatchObject({ status: 'pending', attempts: 1, deliveredAt: null });
      const exited = new Promise((r) => first.child.once('exit', r));
      first.child.kill('SIGKILL');
      await exited;
      // killed mid-send: the message is still pending (claimed by the dead server until its lease ends)
      const store = await openStore({ ...options, operation: 'test check' });
      try {
        const [message] = await store.outbox.list({});
        expect(message).toMatchObject({ status: 'pending', attempts: 1, deliveredAt: null });
        expect(sent.headers['idempotency-key']).toBe(message.idempotencyKey);
      } finally {
        await store.close();
      }

      const second = await serve(['--port', String(port), ...storeArgs], ws.dir);
      children.push(second.child);
      const resent = await held.arrival(1);
      expect(resent.headers['idempotency-key']).toBe(sent.headers['idempotency-key']);
      expect(resent.body).toMatchObject({ connection: 'shop', table: 'table_0', status: 'open' });
      // the receiver has not answered yet: not delivered
      expect((await outbox(port))[0]).toMatchObject({ status: 'pending', attempts: 2, deliveredAt: null });
      const answeredAt = Date.now();
      held.answer(1, 200);
      await logged([second], 'delivered to'); // the delivered status, recorded
      const [message] = await outbox(port);
      expect(Date.parse(String(message.deliveredAt))).toBeGreaterThanOrEqual(answeredAt);
      expect(held.received).toHaveLength(2);
    }, 180_000);
  }

  it('postgres: two servers on one store deliver every message once between them', async () => {
    database = await createTestDatabase();
    // a slow receiver, so that both replicas have sends in flight at once
    receiver = await startHttpReceiver({ respond: () => 200 });
    const slow = receiver;
    const ports = [await freePort(), await freePort()];
    const servers: Served[] = [];
    for (const port of ports) servers.push(await serve(['--port', String(port), '--database', database.url], ws.dir));
    children.push(...servers.map((server) => server.child));
    const count = 120;
    await run({ databaseUrl: database.url }, `${slow.url}/hook`, count);
    await slow.arrival(count - 1); // the receiver's event for the last of them
    // a message is marked delivered only after its send returned: once every one is, no send is in flight and
    // any duplicate would already be at the receiver
    await logged(servers, 'delivered to', count); // every message marked delivered, by one server or the other
    const keys = slow.received.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(count);
    expect(new Set(keys).size).toBe(count);
    const messages = await outbox(ports[0]);
    expect(messages.filter((m) => m.status === 'delivered')).toHaveLength(count);
  }, 180_000);
});
