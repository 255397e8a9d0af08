import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResultsWithIncidents, type IncidentConfiguration } from '../../src/incidents/index.js';
import type { JsonObject } from '../../src/model/index.js';
import { openStore } from '../../src/store/openStore.js';
import type { CheckResultInput, OpenStoreOptions } from '../../src/store/store.js';
import { BIN, runCli, workspace } from '../helpers/cli.js';
import { failedResult } from '../helpers/checkResults.js';
import { freePort } from '../helpers/receivers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.js';

/**
 * `dqctl incidents list|acknowledge|resolve|mute|reopen` and `dqctl notifications list` with the real bin: on the
 * embedded store, and through a running server with --server (PostgreSQL store); a hostile table name prints
 * as text; an unknown id exits 1 naming it.
 */
const HOSTILE = `o'r&d<er>s "ü"`;

const failure = (table: string): CheckResultInput => failedResult({ tableName: table, executedAt: new Date().toISOString() });

async function seed(options: OpenStoreOptions): Promise<void> {
  const spec: JsonObject = { incident_grouping: { incident_notification: { incident_opened_addresses: 'http://127.0.0.1:1/${UNSET_HOOK_VAR}', incident_acknowledged_addresses: 'ops@example.com' } } };
  const config: IncidentConfiguration = { connectionSpec: () => spec, tableSpec: () => undefined, defaultNotifications: undefined };
  const store = await openStore({ ...options, operation: 'test' });
  try {
    await store.withLock({ holder: 'test', operation: 'seed', timeoutMs: 10_000 }, (tx) =>
      tx.upsertObjects([{ kind: 'source', name: 'shop', spec, attachments: {}, contentHash: 'x', appliedHash: null, managedBy: 'api', owner: 'default', originFile: null, originCommit: null }]),
    );
    await recordResultsWithIncidents(store, [failure('orders'), failure(HOSTILE)], config);
  } finally {
    await store.close();
  }
}

describe('dqctl incidents and notifications (real bin)', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let database: TestDatabase | undefined;
  let server: ChildProcess | undefined;
  beforeAll(async () => {
    ws = await workspace();
  });
  afterAll(async () => {
    server?.kill('SIGKILL');
    await database?.drop();
    await ws.cleanup();
  });

  it('lists, acknowledges and reports on the embedded store', async () => {
    const state = ['--state-dir', join(ws.dir, 'state')];
    await seed({ stateDir: join(ws.dir, 'state') });
    const list = await runCli(['incidents', 'list', ...state], { cwd: ws.dir });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+STATUS\s+SEVERITY/);
    expect(list.stdout).toContain(`shop/public.${HOSTILE}`);
    const json = JSON.parse((await runCli(['incidents', 'list', ...state, '--format', 'json'], { cwd: ws.dir })).stdout) as { incidents: JsonObject[] };
    expect(json.incidents).toHaveLength(2);
    const id = String(json.incidents.find((i) => i.table === 'orders')!.id);

    const ack = await runCli(['incidents', 'acknowledge', id, ...state], { cwd: ws.dir });
    expect(ack.code).toBe(0);
    expect(ack.stdout).toBe(`Incident ${id} is now acknowledged.\n`);
    expect((await runCli(['incidents', 'acknowledge', id, ...state], { cwd: ws.dir })).stdout).toContain('already acknowledged');
    const open = await runCli(['incidents', 'list', ...state, '--status', 'open', '--format', 'json'], { cwd: ws.dir });
    expect((JSON.parse(open.stdout) as { incidents: JsonObject[] }).incidents.map((i) => i.table)).toEqual([HOSTILE]);
    const unknown = await runCli(['incidents', 'resolve', 'no-such-id', ...state], { cwd: ws.dir });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no-such-id');

    const messages = JSON.parse((await runCli(['notifications', 'list', ...state, '--format', 'json'], { cwd: ws.dir })).stdout) as { messages: JsonObject[] };
    expect(messages.messages.map((m) => m.event).sort()).toEqual(['acknowledged', 'open', 'open']);
    expect(messages.messages.every((m) => m.status === 'pending')).toBe(true);
    expect(JSON.stringify(messages)).toContain('${UNSET_HOOK_VAR}');
    const failed = await runCli(['notifications', 'list', ...state, '--failed'], { cwd: ws.dir });
    expect(failed.stdout).toBe('No notification messages.\n');
  }, 400_000);

  it('takes a unique prefix of an incident id, as git does, and refuses an ambiguous one listing the matches', async () => {
    const dir = join(ws.dir, 'prefixes');
    const state = ['--state-dir', dir];
    // 17 incidents: two of them surely share their first hex digit
    const store = await openStore({ stateDir: dir, operation: 'test' });
    try {
      const config: IncidentConfiguration = { connectionSpec: () => ({}), tableSpec: () => undefined, defaultNotifications: undefined };
      await recordResultsWithIncidents(store, Array.from({ length: 17 }, (_, i) => failure(`t${i}`)), config);
    } finally {
      await store.close();
    }
    const incidents = (JSON.parse((await runCli(['incidents', 'list', ...state, '--format', 'json'], { cwd: ws.dir })).stdout) as { incidents: Array<{ id: string; table: string }> }).incidents;
    expect(incidents).toHaveLength(17);
    const shared = incidents.filter((i) => incidents.some((other) => other !== i && other.id[0] === i.id[0]));
    shared.splice(0, shared.length, ...shared.filter((i) => i.id[0] === shared[0].id[0]));
    const ambiguous = await runCli(['incidents', 'acknowledge', shared[0].id[0], ...state], { cwd: ws.dir });
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(`Error: incident id "${shared[0].id[0]}" is ambiguous: ${shared.length} incidents start with it; give more characters:\n`);
    for (const match of shared) expect(ambiguous.stderr).toContain(`  ${match.id}  shop/public.${match.table}  open\n`);
    // the shortest prefix that names one incident alone
    const target = shared[0];
    const prefix = target.id.slice(0, [...Array(target.id.length).keys()].find((n) => n > 0 && incidents.filter((i) => i.id.startsWith(target.id.slice(0, n))).length === 1)!);
    const ack = await runCli(['incidents', 'acknowledge', prefix, ...state], { cwd: ws.dir });
    expect([ack.code, ack.stdout]).toEqual([0, `Incident ${target.id} is now acknowledged.\n`]);
    const none = await runCli(['incidents', 'acknowledge', 'zz', ...state], { cwd: ws.dir });
    expect([none.code, none.stderr]).toEqual([1, 'Error: incident "zz" not found\n']);
  }, 200_000);

  it('works through a server with --server (PostgreSQL store), and shows failed messages', async () => {
    database = await createTestDatabase();
    await seed({ databaseUrl: database.url });
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve', '--no-schedules', '--port', String(port), '--database', database.url], { cwd: ws.dir, env: { ...process.env, DQCTL_DATABASE_URL: '' } });
    server = child;
    let err = '';
    await new Promise<void>((done, fail) => {
      child.stderr!.on('data', (c) => {
        err += c;
        if (err.includes('is serving')) done();
      });
      child.on('exit', () => fail(new Error(err)));
    });
    const remote = ['--server', `http://127.0.0.1:${port}`];
    const list = JSON.parse((await runCli(['incidents', 'list', ...remote, '--format', 'json'], { cwd: ws.dir })).stdout) as { incidents: JsonObject[] };
    expect(list.incidents.map((i) => i.table).sort()).toEqual([HOSTILE, 'orders'].sort());
    const id = String(list.incidents.find((i) => i.table === 'orders')!.id);
    const mute = await runCli(['incidents', 'mute', id.slice(0, 13), ...remote], { cwd: ws.dir }); // a prefix, as git takes
    expect(mute.code).toBe(0);
    expect(mute.stdout).toBe(`Incident ${id} is now muted.\n`);
    const muted = JSON.parse((await runCli(['incidents', 'list', ...remote, '--status', 'muted', '--format', 'json'], { cwd: ws.dir })).stdout) as { incidents: JsonObject[] };
    expect(muted.incidents.map((i) => i.id)).toEqual([id]);
    const badStatus = await runCli(['incidents', 'list', ...remote, '--status', 'closed'], { cwd: ws.dir });
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toContain('--status must be one of open, acknowledged, resolved, muted');
    // the server's deliverer tried the opened messages: the variable of their address is not set
    let failed = '';
    const deadline = Date.now() + 20_000;
    while (!failed.includes('UNSET_HOOK_VAR') && Date.now() < deadline) {
      failed = (await runCli(['notifications', 'list', ...remote, '--failed'], { cwd: ws.dir })).stdout;
    }
    expect(failed).toMatch(/failed\s+open\s+http:\/\/127\.0\.0\.1:1\/\$\{UNSET_HOOK_VAR\}/);
    expect(failed).toContain('the environment variable UNSET_HOOK_VAR of the notification address');
  }, 180_000);
});
