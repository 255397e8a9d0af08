import { DqError } from '../model/index.js';
import { ENV_REFERENCE, kindOf, type AddressKind } from '../manifest/notificationAddresses.js';

/**
 * Resolving an address for sending: the deliverer's one call, just before it sends. Nothing else resolves
 * addresses, so a resolved one is never stored, logged or answered.
 */
export { checkAddress, kindOf, splitAddresses, type AddressKind } from '../manifest/notificationAddresses.js';

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
