/**
 * What one attempt to send came to: delivered; a transient failure worth retrying (a 5xx, 408 or 429 answer,
 * a timeout, a refused or dropped connection, an SMTP 4xx); or a permanent one (another 4xx answer, an SMTP
 * 5xx refusal, an unset `${ENV}` variable, an address that is not one). Reasons never hold a resolved secret.
 */
export type SendOutcome = { kind: 'delivered' } | { kind: 'transient'; reason: string } | { kind: 'permanent'; reason: string };

/** The reason of a network error (`ECONNREFUSED`, `timeout`, …), from fetch's or nodemailer's error. */
export function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return 'timed out';
  const cause = (error as { cause?: unknown }).cause;
  const inner = cause instanceof AggregateError && cause.errors.length > 0 ? cause.errors[0] : cause;
  const code = (inner as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') return `timed out (${code})`;
    return `connection failed (${code})`;
  }
  return error.message;
}
