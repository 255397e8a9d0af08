/**
 * The syntax of notification addresses, shared by validation (semanticChecks.ts, with file:line:column) and by
 * the deliverer (src/incidents, src/notify). Each address field of DQOps is a comma-separated list; an address is
 * an http(s) URL (a webhook: generic JSON, Slack or Microsoft Teams incoming webhooks) or an e-mail address, and
 * may hold `${ENV}` references, which stay unresolved everywhere but at the moment of sending.
 */
export type AddressKind = 'webhook' | 'email';

export const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const EMAIL = /^[^\s@,<>()"';]+@[^\s@,<>()"';]+\.[^\s@,<>()"';]+$/;

export function splitAddresses(list: unknown): string[] {
  if (typeof list !== 'string') return [];
  return list
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
}

/** The kind of an address, or a reason it is neither (for validation). A bare `${ENV}` is known only when sent. */
export function checkAddress(address: string): { kind: AddressKind | 'reference' } | { invalid: string } {
  if (/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(address)) return { kind: 'reference' };
  const probe = address.replace(ENV_REFERENCE, 'x');
  if (/\$\{/.test(probe)) return { invalid: `${JSON.stringify(address)} has a malformed \${…} reference (write \${ENV_VAR_NAME})` };
  const kind = kindOf(probe);
  return kind ? { kind } : { invalid: `${JSON.stringify(address)} is neither an http(s) URL nor an e-mail address` };
}

export function kindOf(resolved: string): AddressKind | undefined {
  if (/^https?:\/\//i.test(resolved)) {
    try {
      const url = new URL(resolved);
      return url.hostname ? 'webhook' : undefined;
    } catch {
      return undefined;
    }
  }
  return EMAIL.test(resolved) ? 'email' : undefined;
}
