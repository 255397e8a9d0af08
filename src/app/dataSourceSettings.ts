import { DataSources } from '../datasource/index.js';
import type { ExecutorDependencies } from '../jobs/executors/executorDependencies.js';
import { LiveObjects } from '../inspect/liveObjects.js';
import type { Store } from '../store/store.js';

/**
 * How a process other than the server (the CLI) reaches the monitored databases: where `${ENV_VAR}` and
 * `${credential://name}` secrets are read, and how long a statement may run. The use cases that query data
 * sources take these settings, open the pools for their work and close them afterwards.
 */
export interface DataSourceSettings {
  env: Readonly<Record<string, string | undefined>>;
  /** Folder of `${credential://name}` files (a DQOps user home's `.credentials`). */
  credentialsDir: string;
  statementTimeoutMs?: number;
}

/**
 * Runs `work` with the store's live objects (read fresh: another process may have written the store) and the
 * data sources' pools, closing the pools afterwards whatever happens.
 */
export async function withDataSources<T>(store: Store, settings: DataSourceSettings, work: (deps: ExecutorDependencies) => Promise<T>): Promise<T> {
  const dataSources = new DataSources({ env: settings.env, credentialsDir: settings.credentialsDir, statementTimeoutMs: settings.statementTimeoutMs });
  try {
    return await work({ store, objects: new LiveObjects(store, { revisionCheckMs: 0 }), dataSources });
  } finally {
    await dataSources.close();
  }
}
