import { SIGNATURE_HEADER, verifyWebhookSignature } from '../reconcile/webhookSignature.js';

/**
 * The push webhook of the reconcile loop (GitHub's format): a request is accepted when its signature header holds
 * sha256=HMAC-SHA256(body, secret), compared in constant time.
 */
export const WEBHOOK_SIGNATURE_HEADER = SIGNATURE_HEADER;

export function isSignedPush(secret: string, body: Buffer, header: string | string[] | undefined): boolean {
  return verifyWebhookSignature(secret, body, header);
}
