/** The store module's public surface: open a store, and the interfaces it implements. */
export { openStore } from './openStore.js';
export type { LockRequest, OpenStoreOptions, Store, StoreReader, StoreTransaction } from './store.js';
export { listLocks, releaseLock, type LockEntry, type LockId, type LockListing } from './lockAdmin.js';
export { DEFAULT_LOCK_TTL_MS } from './storeLock.js';
export { recordStateDirOperation } from './sql/stateDirLock.js';
export { DQOPS_KINDS, IMPORT_ORDER, stagedColumns, type DqopsDataImport, type DqopsKind, type DqopsPartition, type DqopsRow } from './dqopsDataRows.js';
