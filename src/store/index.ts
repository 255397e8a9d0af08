/** The store module's public surface: open a store, and the interfaces it implements. */
export { openStore } from './openStore.js';
export type { LockRequest, OpenStoreOptions, Store, StoreReader, StoreTransaction } from './store.js';
