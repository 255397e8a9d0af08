/**
 * The types of the services the CLI and the server hold and pass to the use cases of `app`: the store, the
 * cached live objects, the job service, the data-source pools, the reconcile loop, the deliverer. Only their
 * types: what they do is reached through the use cases, and they are made in `serverServices.ts` (or, in
 * tests and `serve`, by their own modules).
 */
export type { Store, CheckType, IncidentSortOrder, IncidentStatus } from '../store/store.js';
export type { JobRecord } from '../store/jobRows.js';
export type { LiveObjects, WriteContext } from '../inspect/liveObjects.js';
export type { JobEnded, JobService } from '../jobs/jobService.js';
export type { ConnectionSchedulesOptions } from '../jobs/connectionSchedules.js';
export type { DataSources } from '../datasource/index.js';
export type { Reconciler } from '../reconcile/reconciler.js';
export type { PassRecord } from '../reconcile/status.js';
export type { CheckResultRow } from '../store/store.js';
export type { Deliverer, DelivererOptions } from '../notify/index.js';
