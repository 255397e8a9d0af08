import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { DqError } from '../model/index.js';
import { incidentLink, messageText, outboxPayload, resolveAddress } from '../incidents/index.js';
import type { OutboxMessage, Store } from '../store/store.js';
import { DEFAULT_DELIVERY, type DeliverySettings } from './deliverySettings.js';
import type { SendOutcome } from './sendAttempt.js';
import { sendEmail } from './sendEmail.js';
import { sendWebhook } from './sendWebhook.js';

/**
 * The deliverer: sends the outbox's due messages, at least once. Each pass claims due messages (FOR UPDATE SKIP
 * LOCKED, with a lease), sends them in parallel, and settles each: delivered; retried later with exponential
 * backoff on a transient failure; failed — shown by the API, the CLI and the log — on a permanent one or when
 * it was not delivered within `retryForMs` of its creation. Nothing is dropped silently. Several deliverers (one
 * per `serve` replica) share the outbox; a deliverer that dies mid-send leaves its claim to expire and the message
 * is sent again (receivers drop the repeat by its Idempotency-Key). `${ENV}` references in addresses are resolved
 * only here, just before sending, and appear nowhere else: not in the store, the log or an API answer.
 */
export interface DelivererOptions {
  store: Store;
  settings?: Partial<DeliverySettings>;
  /** Base URL of the incident links (default: settings.publicUrl, else http://127.0.0.1:8888); a function when known only later. */
  baseUrl?: string | (() => string);
  env?: NodeJS.ProcessEnv;
  /** The clock of due times, leases and backoff (tests drive it). */
  clock?: () => Date;
  /** How often to look for due messages when not nudged (default 250 ms). */
  pollMs?: number;
  /** Messages claimed per pass (default 50). */
  batchSize?: number;
  log?: (level: 'info' | 'warn' | 'error', message: string, fields: Record<string, unknown>) => void;
  /** Names this deliverer in claims (default host:pid:random). */
  worker?: string;
  /** Told how each delivery attempt ended (the server counts them in its metrics). */
  onSettled?: (outcome: keyof PassResult) => void;
}

export interface PassResult {
  delivered: number;
  retried: number;
  failed: number;
}

export class Deliverer {
  readonly worker: string;
  private readonly settings: DeliverySettings;
  private readonly clock: () => Date;
  private readonly env: NodeJS.ProcessEnv;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;

  constructor(private readonly options: DelivererOptions) {
    this.settings = { ...DEFAULT_DELIVERY, ...options.settings };
    this.clock = options.clock ?? (() => new Date());
    this.env = options.env ?? process.env;
    this.worker = options.worker ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  /** Polls until stop(). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.nudge();
  }

  /** Look for due messages now (after a run or a status change wrote some). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (!this.stopped) this.timer = setTimeout(() => this.nudge(), this.again ? 0 : (this.options.pollMs ?? 250));
      this.again = false;
    });
  }

  /** Stops polling and waits for the pass in flight (its sends finish and are settled). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async loop(): Promise<void> {
    try {
      // keep going while passes find work: a burst drains without waiting for the poll interval
      while (!this.stopped) {
        const pass = await this.deliverDue();
        if (pass.delivered + pass.retried + pass.failed === 0) break;
      }
    } catch (error) {
      // the store is unreachable or closing: the next poll tries again, messages stay in the outbox
      this.options.log?.('warn', `notification delivery pass failed: ${(error as Error).message}`, {});
    }
  }

  /** One pass: claims the due messages and settles each. */
  async deliverDue(): Promise<PassResult> {
    const now = this.clock();
    const leaseUntil = new Date(now.getTime() + this.settings.sendTimeoutMs * 3 + 5_000);
    const claimed = await this.options.store.outbox.claim({
      worker: this.worker,
      now: now.toISOString(),
      leaseUntil: leaseUntil.toISOString(),
      limit: this.options.batchSize ?? 50,
    });
    const result: PassResult = { delivered: 0, retried: 0, failed: 0 };
    await Promise.all(
      claimed.map(async (message) => {
        // an unexpected error while preparing or sending is a failed attempt like any other (retried with
        // backoff), so that the message is not left claimed, untried, until its lease ends
        const outcome = await this.send(message).catch((error: unknown): SendOutcome => ({ kind: 'transient', reason: `could not send: ${(error as Error).message ?? String(error)}` }));
        const kind = await this.settle(message, outcome);
        result[kind]++;
      }),
    );
    return result;
  }

  private async send(message: OutboxMessage): Promise<SendOutcome> {
    let destination: { address: string; kind: 'webhook' | 'email' };
    try {
      destination = resolveAddress(message.address, this.env);
    } catch (error) {
      return { kind: 'permanent', reason: error instanceof DqError ? error.message : String(error) };
    }
    const given = typeof this.options.baseUrl === 'function' ? this.options.baseUrl() : this.options.baseUrl;
    const baseUrl = given ?? this.settings.publicUrl ?? 'http://127.0.0.1:8888';
    const payload = outboxPayload(message);
    const body = { ...payload, text: messageText(payload, incidentLink(baseUrl, payload)) };
    const outcome =
      destination.kind === 'webhook'
        ? await sendWebhook(destination.address, body, message.idempotencyKey, this.settings.sendTimeoutMs)
        : await sendEmail(destination.address, body, message.idempotencyKey, this.settings.smtp, this.env, this.settings.sendTimeoutMs);
    // a reason never carries the resolved address (a secret may be in it)
    if (outcome.kind !== 'delivered' && destination.address !== message.address) {
      return { ...outcome, reason: outcome.reason.split(destination.address).join(message.address) };
    }
    return outcome;
  }

  private async settle(message: OutboxMessage, outcome: SendOutcome): Promise<keyof PassResult> {
    const settled = await this.settleMessage(message, outcome);
    this.options.onSettled?.(settled);
    return settled;
  }

  private async settleMessage(message: OutboxMessage, outcome: SendOutcome): Promise<keyof PassResult> {
    const now = this.clock();
    const fields = { message: message.id, incident: message.incidentId, event: message.event, address: message.address, attempts: message.attempts };
    if (outcome.kind === 'delivered') {
      await this.options.store.outbox.settle(message.id, this.worker, { kind: 'delivered', at: now.toISOString() });
      this.options.log?.('info', `notification ${message.id} delivered to ${message.address}`, fields);
      return 'delivered';
    }
    const backoff = Math.min(this.settings.maxBackoffMs, this.settings.initialBackoffMs * 2 ** Math.max(0, message.attempts - 1));
    const next = now.getTime() + backoff;
    const deadline = Date.parse(message.createdAt) + this.settings.retryForMs;
    if (outcome.kind === 'permanent' || next > deadline) {
      const error =
        outcome.kind === 'permanent'
          ? outcome.reason
          : `not delivered after ${message.attempts} attempt${message.attempts === 1 ? '' : 's'} in ${Math.round((now.getTime() - Date.parse(message.createdAt)) / 1000)} s: ${outcome.reason}`;
      await this.options.store.outbox.settle(message.id, this.worker, { kind: 'failed', at: now.toISOString(), error });
      this.options.log?.('error', `notification ${message.id} to ${message.address} failed: ${error}`, fields);
      return 'failed';
    }
    await this.options.store.outbox.settle(message.id, this.worker, { kind: 'retry', nextAttemptAt: new Date(next).toISOString(), error: outcome.reason });
    this.options.log?.('warn', `notification ${message.id} to ${message.address} will be retried in ${backoff} ms: ${outcome.reason}`, fields);
    return 'retried';
  }
}
