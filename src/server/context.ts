import type { DataSources, Deliverer, JobService, LiveObjects, Reconciler, Store } from '../app/services.js';
import type { OpenStoreOptions } from '../app/types.js';
import type { ServerMetrics } from './metrics.js';
import { roleAtLeast, type Caller, type Role } from './tokens.js';
import type { Capabilities, Clock } from '../model/index.js';

/** What route files get: the live objects, the store, and the caller's capabilities. */
export interface ServerContext {
  objects: LiveObjects;
  store: Store;
  /** How `serve` opened the store (its URL or folder, its --lock-ttl), for GET /api/gitops/locks. */
  storeOpenOptions?: OpenStoreOptions;
  jobs: JobService;
  /** Pools of the monitored databases (connection tests, remote schemas and tables). */
  dataSources?: DataSources;
  /** Whether this server runs the connections' schedules (serve without --no-schedules). */
  schedulesRunning?: boolean;
  /** Body limit of POST /api/gitops/plan and /apply (decompressed bytes); default 100 MB. */
  gitopsBodyLimit?: number;
  /** The notification deliverer of `serve`; routes that write outbox messages nudge it. */
  deliverer?: Deliverer;
  /** The reconcile loop of `serve --repo | --git`, when one runs. */
  reconciler?: Reconciler;
  /** Prometheus metrics (GET /metrics); routes count what only they see, e.g. API applies. */
  metrics?: ServerMetrics;
  /** The time routes read as "now"; absent: the system clock. */
  clock?: Clock;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least role that may call the route (default: viewer for GET, editor otherwise). */
    role?: Role;
  }
  interface FastifyRequest {
    /** The authenticated caller; with authentication off, an anonymous admin. */
    caller: Caller;
  }
}

export const ANONYMOUS: Caller = { name: 'anonymous', role: 'admin' };

export type { Capabilities };

/** The capability flags every model carries, from the caller's role. */
export function capabilitiesOf(caller: Caller, options: { managedReadOnly?: boolean } = {}): Capabilities {
  return {
    can_edit: roleAtLeast(caller.role, 'editor') && !options.managedReadOnly,
    can_run_checks: roleAtLeast(caller.role, 'operator'),
    can_collect_statistics: roleAtLeast(caller.role, 'operator'),
    can_delete_data: roleAtLeast(caller.role, 'operator'),
  };
}

/**
 * Whether the caller may change definitions that are code or run as code (rules with their Python, sensors with
 * their SQL templates, check definitions, dictionaries): the admin role, and not a git-managed object of a server
 * run with --read-only-managed.
 */
export function canEditDefinitions(caller: Caller, options: { managedReadOnly?: boolean } = {}): boolean {
  return roleAtLeast(caller.role, DEFINITIONS_ROLE) && !options.managedReadOnly;
}

/** The least role that writes rules, sensors, check definitions and dictionaries. */
export const DEFINITIONS_ROLE: Role = 'admin';
