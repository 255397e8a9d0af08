import { resolve } from 'node:path';
import { DqError } from '../model/index.js';
import { DEFAULT_LOCK_TTL_MS, openStore, withOpenStore, withOpeningStore } from '../app/openStore.js';
import type { OpenStoreOptions, Store } from '../app/types.js';
import { parseDuration } from './duration.js';
import type { CliIo } from './io.js';

/** `--database URL` / DQCTL_DATABASE_URL picks PostgreSQL; otherwise the embedded store in `--state-dir`. */
export interface StoreFlags {
  database?: string;
  stateDir?: string;
  /** `--lock-ttl`: locks older than this whose holder is dead are reclaimed (default 15m). */
  lockTtl?: string;
}

/** How the command opens the store: what for, and how long to wait while another process has the embedded one. */
export interface OpenPurpose {
  operation: string;
  waitMs?: number;
}

export async function openStoreFromFlags(flags: StoreFlags, io: CliIo, purpose: OpenPurpose): Promise<Store> {
  return openStore(openOptionsFromFlags(flags, io, purpose));
}

/** The store the flags select, without opening it (lock list reads the locks without taking one). */
export function openOptionsFromFlags(flags: StoreFlags, io: CliIo, purpose: OpenPurpose): OpenStoreOptions {
  const databaseUrl = flags.database || io.env.DQCTL_DATABASE_URL || undefined;
  const stateDir = stateDirOf(flags, io);
  const lockTtlMs = lockTtlOf(flags, io);
  return databaseUrl
    ? { databaseUrl, operation: purpose.operation, lockTtlMs }
    : { stateDir, operation: purpose.operation, openTimeoutMs: purpose.waitMs, lockTtlMs };
}

/** The state folder: `--state-dir`, else DQCTL_STATE_DIR, else `.dqctl` of the current folder. */
export function stateDirOf(flags: StoreFlags, io: CliIo): string {
  return resolve(io.cwd, flags.stateDir || io.env.DQCTL_STATE_DIR || '.dqctl');
}

/** `--lock-ttl`, else DQCTL_LOCK_TTL, else 15 minutes. */
export function lockTtlOf(flags: StoreFlags, io: CliIo): number {
  const text = flags.lockTtl || io.env.DQCTL_LOCK_TTL;
  if (!text) return DEFAULT_LOCK_TTL_MS;
  const ms = parseDuration(text, flags.lockTtl ? '--lock-ttl' : 'DQCTL_LOCK_TTL');
  if (ms < 1000) throw new DqError('INVALID_ARGUMENT', '--lock-ttl must be at least 1s');
  return ms;
}

export async function withStore<T>(flags: StoreFlags, io: CliIo, purpose: OpenPurpose, work: (store: Store) => Promise<T>): Promise<T> {
  return withOpenStore(openOptionsFromFlags(flags, io, purpose), work);
}

/** `withStore` for work that starts before it needs the store (plan, apply): it gets the store's opening. */
export async function withOpeningStoreFromFlags<T>(flags: StoreFlags, io: CliIo, purpose: OpenPurpose, work: (store: Promise<Store>) => Promise<T>): Promise<T> {
  return withOpeningStore(openOptionsFromFlags(flags, io, purpose), work);
}
