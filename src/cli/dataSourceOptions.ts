import { resolve } from 'node:path';
import type { DataSourceSettings } from '../app/dataSourceSettings.js';
import type { CheckSearchFilters, Store } from '../app/types.js';
import { parseDuration } from './duration.js';
import type { CliIo } from './io.js';
import { withStore, type StoreFlags } from './storeOptions.js';

/**
 * How CLI commands that query data sources find secrets: `${ENV_VAR}` from the environment, and
 * `${credential://name}` from `--credentials-dir`, else `<--repository>/.credentials` (the DQOps user home's
 * folder), else $DQCTL_CREDENTIALS_DIR, else `.credentials` in the current folder.
 */
export interface DataSourceFlags {
  repository?: string;
  credentialsDir?: string;
  statementTimeout?: string;
}

export function credentialsDirOf(flags: DataSourceFlags, io: CliIo): string {
  if (flags.credentialsDir) return resolve(io.cwd, flags.credentialsDir);
  if (flags.repository) return resolve(io.cwd, flags.repository, '.credentials');
  if (io.env.DQCTL_CREDENTIALS_DIR) return resolve(io.cwd, io.env.DQCTL_CREDENTIALS_DIR);
  return resolve(io.cwd, '.credentials');
}

export function dataSourceSettingsOf(flags: DataSourceFlags, io: CliIo): DataSourceSettings {
  return {
    env: io.env,
    credentialsDir: credentialsDirOf(flags, io),
    statementTimeoutMs: flags.statementTimeout ? parseDuration(flags.statementTimeout, '--statement-timeout') : undefined,
  };
}

/** What a command that works on the data sources gets: the store, how to reach the data sources, a Ctrl-C signal. */
export interface DataSourceRun {
  store: Store;
  dataSources: DataSourceSettings;
  /** Aborted by Ctrl-C: the running statements are cancelled on the sources. */
  signal: AbortSignal;
}

/**
 * Runs `work` with the live store open and the data-source settings of the flags, cancelling on Ctrl-C
 * (SIGINT). The use case `work` calls opens the data sources' pools and closes them.
 */
export async function withDataSources<T>(
  flags: DataSourceFlags & StoreFlags,
  io: CliIo,
  operation: string,
  work: (run: DataSourceRun) => Promise<T>,
): Promise<T> {
  const dataSources = dataSourceSettingsOf(flags, io);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    return await withStore(flags, io, { operation }, (store) => work({ store, dataSources, signal: controller.signal }));
  } finally {
    process.off('SIGINT', stop);
  }
}

/** The CheckSearchFilters of the check-selecting flags that `run checks` and `collect error-samples` share. */
export function checkFiltersOf(options: {
  connection?: string;
  table?: string;
  column?: string;
  checkType?: CheckSearchFilters['checkType'];
  timeScale?: CheckSearchFilters['timeScale'];
  category?: string;
  check?: string;
}): CheckSearchFilters {
  const filters: CheckSearchFilters = {};
  if (options.connection) filters.connection = options.connection;
  if (options.table) filters.fullTableName = options.table;
  if (options.column) filters.column = options.column;
  if (options.checkType) filters.checkType = options.checkType;
  if (options.timeScale) filters.timeScale = options.timeScale;
  if (options.category) filters.checkCategory = options.category;
  if (options.check) filters.checkName = options.check;
  return filters;
}
