import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The webhook's authentication, GitHub's format: `X-Hub-Signature-256: sha256=<hex>` where hex is the
 * HMAC-SHA256 of the raw request body with the shared secret. Compared in constant time, so the answer time says
 * nothing about how much of a guess was right. (GitLab's and Gitea's push hooks can send the same header.)
 */
export const SIGNATURE_HEADER = 'x-hub-signature-256';

export function signWebhookBody(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function verifyWebhookSignature(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(Buffer.from(match[1], 'hex'), expected);
}
