/**
 * The types of lower modules that the CLI and the server name in what they pass to and get from the use cases
 * of `app`. Types only: what they call is a use case of `app`, never a function of the modules below it.
 */
export type { OpenStoreOptions, Store, StatisticsRow, CheckResultRow, IncidentRecord } from '../store/store.js';
export type { LockEntry, LockListing } from '../store/lockAdmin.js';
