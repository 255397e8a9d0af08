import { DqError, isJsonObject, type Capabilities, type JsonObject, type LiveObject } from '../model/index.js';
import { redactPart } from './connectionSecrets.js';
import { ALL_STORED_DATA } from './storedDataCleanup.js';

/**
 * DQOps's models of a connection (ConnectionModel, its job templates) from a connection spec, with secrets
 * redacted, and the spec keys a ConnectionModel body sets.
 */

/** The provider blocks a connection spec may hold, one per DQOps provider (we run checks on PostgreSQL only). */
const PROVIDERS = [
  'bigquery', 'clickhouse', 'databricks', 'db2', 'duckdb', 'hana', 'mariadb', 'mysql', 'oracle', 'postgresql',
  'presto', 'questdb', 'redshift', 'snowflake', 'spark', 'sqlserver', 'teradata', 'trino',
] as const;

/** The job templates of a connection (or of a part of it, `fullTableName` = `schema.*`), as DQOps hands them out. */
export function jobTemplates(connection: string, fullTableName?: string): JsonObject {
  const scope: JsonObject = fullTableName === undefined ? { connection } : { connection, fullTableName };
  return {
    run_checks_job_template: { ...scope, enabled: true },
    run_profiling_checks_job_template: { ...scope, enabled: true, checkType: 'profiling' },
    run_monitoring_checks_job_template: { ...scope, enabled: true, checkType: 'monitoring' },
    run_partition_checks_job_template: { ...scope, enabled: true, checkType: 'partitioned' },
    collect_statistics_job_template: { ...scope, enabled: true },
    data_clean_job_template: { ...scope, ...ALL_STORED_DATA, deleteChecksConfiguration: false },
  };
}

/** ConnectionModel: the basic information, with secrets redacted, job templates and the caller's capabilities. */
export function connectionModel(live: LiveObject, caps: Capabilities): JsonObject {
  const spec = live.spec;
  const model: JsonObject = { connection_name: live.name };
  if (spec.parallel_jobs_limit !== undefined) model.parallel_jobs_limit = spec.parallel_jobs_limit;
  if (spec.provider_type !== undefined) model.provider_type = spec.provider_type;
  for (const provider of PROVIDERS) {
    if (isJsonObject(spec[provider])) model[provider] = redactPart(provider, spec[provider]);
  }
  Object.assign(model, jobTemplates(live.name));
  if (isJsonObject(spec.advanced_properties)) model.advanced_properties = redactPart('advanced_properties', spec.advanced_properties);
  return { ...model, ...caps };
}

/** The parts of a connection spec a ConnectionModel carries. */
const BASIC_KEYS = ['provider_type', ...PROVIDERS, 'parallel_jobs_limit', 'advanced_properties'] as const;

/** A ConnectionModel body → the spec keys it sets (the templates and flags are derived, so ignored). */
export function fromBasicModel(body: JsonObject, name: string): JsonObject {
  if (typeof body.connection_name === 'string' && body.connection_name !== name) {
    throw new DqError('INVALID_ARGUMENT', `the body names the connection ${JSON.stringify(body.connection_name)}, the path ${JSON.stringify(name)}`);
  }
  const spec: JsonObject = {};
  for (const key of BASIC_KEYS) if (body[key] !== undefined) spec[key] = body[key];
  return spec;
}

/** A stable number for a connection's content (DQOps's connection_hash is a long). */
export function hashNumber(contentHash: string): number {
  return Number.parseInt(contentHash.slice(0, 13), 16);
}

