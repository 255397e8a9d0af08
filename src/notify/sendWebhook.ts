import { int64Json, type JsonObject } from '../model/index.js';
import { slackText } from '../incidents/index.js';
import { networkReason, type SendOutcome } from './sendAttempt.js';

/**
 * A webhook message: a JSON POST of the payload with `text`, and an `Idempotency-Key` header that is the same on
 * every retry of one message (receivers drop the repeats of at-least-once delivery). Slack's incoming webhooks
 * get `text` with Slack's escapes; Microsoft Teams and generic receivers get it as it is.
 */
export async function sendWebhook(url: string, body: JsonObject, idempotencyKey: string, timeoutMs: number): Promise<SendOutcome> {
  const isSlack = /(^|\.)slack\.com$/i.test(new URL(url).hostname);
  const payload = isSlack && typeof body.text === 'string' ? { ...body, text: slackText(body.text) } : body;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotency-key': idempotencyKey, 'user-agent': 'dqctl-notifications' },
      // int64Json: the incident hash is a bigint beyond 2^53 (DQOps's hashes), written digit for digit
      body: int64Json(payload),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    // the body is read (and dropped) so that the connection is released
    await response.arrayBuffer().catch(() => undefined);
  } catch (error) {
    return { kind: 'transient', reason: networkReason(error) };
  }
  if (response.status >= 200 && response.status < 300) return { kind: 'delivered' };
  const reason = `the receiver answered HTTP ${response.status}`;
  if (response.status >= 500 || response.status === 408 || response.status === 429) return { kind: 'transient', reason };
  return { kind: 'permanent', reason };
}
