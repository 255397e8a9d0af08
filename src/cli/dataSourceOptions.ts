import { resolve } from 'node:path';
import { DataSources } from '../datasource/index.js';
import { parseDuration } from './duration.js';
import type { CliIo } from './io.js';

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

export function dataSourcesFromFlags(flags: DataSourceFlags, io: CliIo): DataSources {
  return new DataSources({
    env: io.env,
    credentialsDir: credentialsDirOf(flags, io),
    statementTimeoutMs: flags.statementTimeout ? parseDuration(flags.statementTimeout, '--statement-timeout') : undefined,
  });
}
