import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recordResultsWithIncidents, type IncidentConfiguration } from '../../src/incidents/index.js';
import { int64Json, type JsonObject } from '../../src/model/index.js';
import { Deliverer, type DelivererOptions } from '../../src/notify/index.js';
import type { CheckResultInput } from '../../src/store/store.js';
import { failedResult } from '../helpers/checkResults.js';
import { freePort, startHttpReceiver, startSmtpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { STORE_ENGINES, type StoreFixture } from '../helpers/storeEngines.js';

/**
 * The deliverer against real receivers (a local HTTP server, a local SMTP server), on both engines, with an
 * injected clock: retries with backoff and the same Idempotency-Key, a receiver down then back, one that never
 * answers, an unset ${ENV}, hostile table names, an SMTP server that refuses. Nothing is silently dropped.
 */
const HOSTILE_TABLE = `o'r&d<er>s "ü" 表`;

function failure(table: string, at: Date): CheckResultInput {
  return failedResult({ tableName: table, actualValue: 10, executedAt: at.toISOString() });
}

function opening(addresses: string): IncidentConfiguration {
  const spec: JsonObject = { incident_grouping: { grouping_level: 'table', incident_notification: { incident_opened_addresses: addresses } } };
  return { connectionSpec: () => spec, tableSpec: () => undefined, defaultNotifications: undefined };
}

describe.each(STORE_ENGINES)('deliverer on $engine', (engine) => {
  let fx: StoreFixture;
  let now: number;
  let receiver: HttpReceiver | undefined;
  const logs: string[] = [];
  const deliverer = (options: Partial<DelivererOptions> = {}) =>
    new Deliverer({
      store: fx.store,
      clock: () => new Date(now),
      settings: { initialBackoffMs: 1_000, maxBackoffMs: 60_000, retryForMs: 10 * 60_000, sendTimeoutMs: 300 },
      baseUrl: 'http://dqctl.example:8888',
      log: (_level, message) => logs.push(message),
      env: {},
      ...options,
    });

  beforeAll(async () => {
    fx = await engine.setup();
  }, 60_000);
  afterAll(async () => fx?.dispose());
  beforeEach(async () => {
    await fx.reset();
    now = Date.parse('2026-11-20T10:00:00.000Z');
    logs.length = 0;
  });
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it('retries a 500 with backoff and the same Idempotency-Key, then delivers on the 200', async () => {
    receiver = await startHttpReceiver({ respond: (n) => (n === 0 ? 500 : 200) });
    await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now)), failure('customers', new Date(now))], opening(`${receiver.url}/hook`));
    const d = deliverer();
    expect(await d.deliverDue()).toEqual({ delivered: 1, retried: 1, failed: 0 });
    expect(await d.deliverDue()).toEqual({ delivered: 0, retried: 0, failed: 0 }); // not due before its backoff
    now += 1_000;
    expect(await d.deliverDue()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    const keys = receiver.received.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(keys[2]).toBe(keys[0]); // the retry of the first message
    expect(keys[1]).not.toBe(keys[0]);
    const messages = await fx.store.outbox.list({});
    expect(messages.every((m) => m.status === 'delivered')).toBe(true);
    expect(receiver.received[0].body).toMatchObject({ connection: 'shop', schema: 'public', status: 'open', highest_severity: 2, failed_checks_count: 1 });
  });

  it('counts an error while preparing a send as a failed attempt: retried with backoff, not left claimed until the lease ends', async () => {
    receiver = await startHttpReceiver();
    await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now))], opening(`${receiver.url}/hook`));
    let ready = false;
    const d = deliverer({
      baseUrl: () => {
        if (!ready) throw new Error('no address yet');
        return 'http://dqctl.example:8888';
      },
    });
    expect(await d.deliverDue()).toEqual({ delivered: 0, retried: 1, failed: 0 });
    const [pending] = await fx.store.outbox.list({});
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, claimedBy: null, nextAttemptAt: '2026-11-20T10:00:01.000Z' });
    expect(pending.lastError).toBe('could not send: no address yet');
    ready = true;
    now += 1_000; // the backoff, far shorter than the lease
    expect(await d.deliverDue()).toEqual({ delivered: 1, retried: 0, failed: 0 });
    expect(receiver.received).toHaveLength(1);
  });

  it('keeps retrying a receiver that is down, and delivers once it is back', async () => {
    const port = await freePort();
    await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now))], opening(`http://127.0.0.1:${port}/hook`));
    const d = deliverer();
    expect(await d.deliverDue()).toMatchObject({ retried: 1 });
    now += 1_000;
    expect(await d.deliverDue()).toMatchObject({ retried: 1 });
    const [pending] = await fx.store.outbox.list({});
    expect(pending).toMatchObject({ status: 'pending', attempts: 2 });
    expect(pending.lastError).toMatch(/ECONNREFUSED/);
    receiver = await startHttpReceiver({ port });
    now += 2_000;
    expect(await d.deliverDue()).toMatchObject({ delivered: 1 });
    expect(receiver.received).toHaveLength(1);
  });

  it('marks a message failed when a receiver never answers within the retry time, and says so', async () => {
    receiver = await startHttpReceiver({ respond: () => 'hang' });
    await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now))], opening(`${receiver.url}/hook`));
    const d = deliverer({ settings: { initialBackoffMs: 60_000, maxBackoffMs: 60_000, retryForMs: 120_000, sendTimeoutMs: 200 } });
    expect(await d.deliverDue()).toMatchObject({ retried: 1 });
    now += 60_000;
    expect(await d.deliverDue()).toMatchObject({ retried: 1 });
    now += 60_000;
    expect(await d.deliverDue()).toMatchObject({ failed: 1 });
    const [failed] = await fx.store.outbox.list({ status: 'failed' });
    expect(failed.lastError).toMatch(/not delivered after 3 attempts .*timed out/);
    expect(logs.some((l) => l.includes('failed') && l.includes('timed out'))).toBe(true);
  });

  it('resolves ${ENV} only when sending: an unset variable fails the message with its name, never a value', async () => {
    receiver = await startHttpReceiver();
    await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now))], opening('${HOOK_URL}, http://127.0.0.1:1/${HOOK_TOKEN}'));
    const secretUrl = `${receiver.url}/secret-path-123`;
    const d = deliverer({ env: { HOOK_URL: secretUrl } });
    expect(await d.deliverDue()).toMatchObject({ delivered: 1, failed: 1 });
    const messages = await fx.store.outbox.list({});
    expect(messages.map((m) => m.address).sort()).toEqual(['${HOOK_URL}', 'http://127.0.0.1:1/${HOOK_TOKEN}']);
    const failed = messages.find((m) => m.status === 'failed')!;
    expect(failed.lastError).toMatch(/HOOK_TOKEN .*not set/);
    expect(receiver.received[0].path).toBe('/secret-path-123');
    const everything = int64Json(messages) + logs.join('\n');
    expect(everything).not.toContain('secret-path-123');
  });

  it('writes a hostile table name literally in the text and the JSON', async () => {
    receiver = await startHttpReceiver();
    await recordResultsWithIncidents(fx.store, [failure(HOSTILE_TABLE, new Date(now))], opening(`${receiver.url}/hook`));
    await deliverer().deliverDue();
    const body = receiver.received[0].body;
    expect(body.table).toBe(HOSTILE_TABLE);
    expect(body.text).toContain(`public.${HOSTILE_TABLE} (connection shop)`);
    expect(body.text).toContain(`http://dqctl.example:8888/api/incidents/shop/2026/11/${body.incident_id}`);
    expect(receiver.received[0].headers['content-type']).toMatch(/application\/json/);
  });

  it('sends a 64-bit incident hash beyond 2^53 exactly, as the outbox keeps it', async () => {
    receiver = await startHttpReceiver();
    await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now))], opening(`${receiver.url}/hook`));
    // a DQOps-sized hash (imported incidents carry DQOps's farmhash values): a JS number would round it to …800
    await fx.sql.query(`update dqctl.notification_outbox set incident_hash = 9223372036854775806`);
    const [message] = await fx.store.outbox.list({});
    expect(message.incident.incidentHash).toBe(9223372036854775806n);
    expect(await deliverer().deliverDue()).toMatchObject({ delivered: 1 });
    expect(receiver.received[0].raw).toContain('"incident_hash":9223372036854775806,');
  });

  it('sends e-mail through SMTP, and marks the message failed when the SMTP server refuses it', async () => {
    const smtp = await startSmtpReceiver({ user: 'dq', password: 'smtp-secret' });
    const refusing = await startSmtpReceiver({ refuse: true });
    try {
      await recordResultsWithIncidents(fx.store, [failure(HOSTILE_TABLE, new Date(now))], opening('ops@example.com'));
      const smtpSettings = { host: '127.0.0.1', port: smtp.port, secure: false, user: 'dq', password: '${SMTP_PASSWORD}', from: 'dqctl@example.com' };
      expect(await deliverer({ env: { SMTP_PASSWORD: 'smtp-secret' }, settings: { smtp: smtpSettings, sendTimeoutMs: 5_000 } }).deliverDue()).toMatchObject({ delivered: 1 });
      expect(smtp.mails).toHaveLength(1);
      expect(smtp.mails[0].to).toEqual(['ops@example.com']);
      // the subject names the (unicode) table, so it is MIME-encoded; the idempotency key rides along
      expect(smtp.mails[0].data).toMatch(/^Subject: =\?UTF-8\?/m);
      const [sent] = await fx.store.outbox.list({ status: 'delivered' });
      expect(smtp.mails[0].data).toContain(`X-Idempotency-Key: ${sent.idempotencyKey}`);
      expect(smtp.mails[0].data).not.toContain('smtp-secret');

      await recordResultsWithIncidents(fx.store, [failure('orders', new Date(now))], opening('ops@example.com'));
      const refused = deliverer({ settings: { smtp: { ...smtpSettings, port: refusing.port, user: undefined, password: undefined }, sendTimeoutMs: 5_000 } });
      expect(await refused.deliverDue()).toMatchObject({ failed: 1 });
      const [failed] = await fx.store.outbox.list({ status: 'failed' });
      expect(failed.lastError).toMatch(/refused the message \(550\)/);
    } finally {
      await smtp.close();
      await refusing.close();
    }
  });
});
