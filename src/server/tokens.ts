import { createHash, timingSafeEqual } from 'node:crypto';
import { parse } from 'yaml';
import { DqError } from '../model/index.js';

/**
 * API tokens and roles. A token file (or DQCTL_TOKENS) is a YAML list of `{name, role, token}` or
 * `{name, role, token_sha256}`; only hashes are kept in memory, compared in constant time.
 * Roles are ordered: viewer < editor < operator < admin.
 */
export const ROLES = ['viewer', 'editor', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export interface Caller {
  name: string;
  role: Role;
}

export interface TokenSet {
  /** The caller a bearer token belongs to, or undefined. */
  resolve(token: string): Caller | undefined;
  readonly size: number;
}

export function roleAtLeast(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function parseTokens(text: string, source: string): TokenSet {
  let entries: unknown;
  try {
    entries = parse(text);
  } catch (error) {
    throw new DqError('INVALID_ARGUMENT', `${source} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(entries)) throw new DqError('INVALID_ARGUMENT', `${source} must be a YAML list of {name, role, token | token_sha256}`);
  const parsed = entries.map((entry, index) => {
    const where = `${source}, entry ${index + 1}`;
    if (typeof entry !== 'object' || entry === null) throw new DqError('INVALID_ARGUMENT', `${where} must be a mapping`);
    const { name, role, token, token_sha256: tokenSha256 } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw new DqError('INVALID_ARGUMENT', `${where}: name is required`);
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
      throw new DqError('INVALID_ARGUMENT', `${where}: role must be one of ${ROLES.join(', ')}`);
    }
    let hash: Buffer;
    if (typeof token === 'string' && token.length >= 8) hash = sha256(token);
    else if (typeof tokenSha256 === 'string' && /^[0-9a-f]{64}$/i.test(tokenSha256)) hash = Buffer.from(tokenSha256, 'hex');
    else throw new DqError('INVALID_ARGUMENT', `${where}: give token (at least 8 characters) or token_sha256 (64 hex digits)`);
    return { caller: { name, role: role as Role }, hash };
  });
  return {
    size: parsed.length,
    resolve(token: string): Caller | undefined {
      const presented = sha256(token);
      let found: Caller | undefined;
      for (const entry of parsed) if (timingSafeEqual(entry.hash, presented)) found = entry.caller;
      return found;
    },
  };
}
