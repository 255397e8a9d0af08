import { resolve } from 'node:path';
import { DataSources } from '../datasource/index.js';
import { LiveObjects } from '../inspect/liveObjects.js';
import { ConnectionSchedules, type ConnectionSchedulesOptions } from '../jobs/connectionSchedules.js';
import { defaultExecutors, jobServiceOptionsOf } from '../jobs/executors/index.js';
import { JobService } from '../jobs/jobService.js';
import { Deliverer, type DelivererOptions } from '../notify/index.js';
import type { Store } from '../store/store.js';

/**
 * The services a server runs beside its routes: the cached live objects, the data-source pools, the job service
 * with this version's executors, and (when asked) the notification deliverer, wired so that a check run that
 * wrote outbox messages nudges the deliverer at once instead of waiting for its next poll. What the caller
 * passes in (jobs, pools) it keeps owning; what is made here the server starts and stops (`owns`).
 */
export interface ServerServicesOptions {
  store: Store;
  /** Refuse API writes to git-managed objects (409) instead of recording them as drift. */
  readOnlyManaged?: boolean;
  /** How stale a cached read may be after another process wrote. */
  revisionCheckMs?: number;
  jobs?: JobService;
  /** Default: pools resolving `${credential://…}` from $DQCTL_CREDENTIALS_DIR or `.credentials` here. */
  dataSources?: DataSources;
  notifications?: Omit<DelivererOptions, 'store'>;
}

export interface ServerServices {
  objects: LiveObjects;
  dataSources: DataSources;
  jobs: JobService;
  deliverer?: Deliverer;
  /** Which of them were made here (the server starts and stops those). */
  owns: { jobs: boolean; dataSources: boolean };
}

export function createServerServices(options: ServerServicesOptions): ServerServices {
  const objects = new LiveObjects(options.store, { readOnlyManaged: options.readOnlyManaged, revisionCheckMs: options.revisionCheckMs });
  const dataSources = options.dataSources ?? new DataSources({ credentialsDir: process.env.DQCTL_CREDENTIALS_DIR ?? resolve('.credentials') });
  let deliverer: Deliverer | undefined;
  const onMessages = () => deliverer?.nudge();
  const deps = { store: options.store, objects, dataSources, onMessages };
  const jobs = options.jobs ?? new JobService(options.store, defaultExecutors(deps, { splitByTable: true }), jobServiceOptionsOf(deps));
  if (options.notifications) deliverer = new Deliverer({ store: options.store, ...options.notifications });
  return { objects, dataSources, jobs, deliverer, owns: { jobs: !options.jobs, dataSources: !options.dataSources } };
}

/** Runs the connections' schedules (check runs, the auto import of tables) as jobs at their cron times until stopped. */
export async function startConnectionSchedules(services: Pick<ServerServices, 'jobs' | 'objects'>, options: ConnectionSchedulesOptions = {}): Promise<{ stop(): Promise<void> }> {
  const schedules = new ConnectionSchedules(services.jobs, services.objects, options);
  await schedules.start();
  return { stop: async () => schedules.stop() };
}
