import { DqError } from '../model/index.js';

/**
 * Notification addresses: each address field of DQOps is a comma-separated list, and an address is an http(s)
 * URL (a webhook: generic JSON, Slack or Microsoft Teams incoming webhooks) or an e-mail address. Addresses may
 * hold `${ENV}` references; they are kept as written everywhere (store, API, logs) and resolved only by the
 * deliverer, at the moment of sending (`resolveAddress`).
 */
export type AddressKind = 'webhook' | 'email';

const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
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
  return kindOf(probe) ? { kind: kindOf(probe)! } : { invalid: `${JSON.stringify(address)} is neither an http(s) URL nor an e-mail address` };
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

/** The address with its `${ENV}` references replaced; SECRET_UNRESOLVED naming the variable (never a value) when unset. */
export function resolveAddress(address: string, env: NodeJS.ProcessEnv): { address: string; kind: AddressKind } {
  const missing: string[] = [];
  const resolved = address.replace(ENV_REFERENCE, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === '') missing.push(name);
    return value ?? '';
  });
  if (missing.length > 0) {
    throw new DqError('SECRET_UNRESOLVED', `the environment variable ${missing.join(', ')} of the notification address ${address} is not set`, { variables: missing });
  }
  const kind = kindOf(resolved);
  if (!kind) throw new DqError('INVALID_ARGUMENT', `the notification address ${address} is, once resolved, neither an http(s) URL nor an e-mail address`);
  return { address: resolved, kind };
}
