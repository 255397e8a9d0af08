import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../model/index.js';
import type { DataSource, DataSourceOptions } from './dataSource.js';
import { DuckdbDataSource } from './duckdb/duckdbDataSource.js';
import { MysqlDataSource } from './mysql/mysqlDataSource.js';
import { PostgresDataSource } from './postgresDataSource.js';
import type { SecretContext } from './secretReferences.js';

/**
 * The data sources of a process: one DataSource (one pool; a DuckDB database for `provider_type: duckdb`, a MySQL pool for `mysql` and `mariadb`, else
 * PostgreSQL) per connection name, created on first use and
 * replaced when the connection's spec changes (the old pool closes once its running sessions end). `close()`
 * on shutdown closes every pool. The parallel_jobs_limit bounds the connections of THIS process; servers
 * sharing one store each have their own pools.
 */
export interface DataSourcesOptions extends DataSourceOptions {
  /** Where `${ENV_VAR}` references are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Folder of `${credential://name}` files (a DQOps user home's `.credentials`). */
  credentialsDir?: string;
}

export class DataSources {
  private readonly sources = new Map<string, { fingerprint: string; source: DataSource }>();
  private readonly retiring = new Set<Promise<void>>();
  private readonly secretContext: SecretContext;

  constructor(private readonly options: DataSourcesOptions = {}) {
    this.secretContext = { env: options.env ?? process.env, credentialsDir: options.credentialsDir };
  }

  /** The data source of a connection, given its spec as the live store holds it (references unresolved). */
  get(connectionName: string, spec: JsonObject): DataSource {
    const fingerprint = fingerprintOf(spec);
    const existing = this.sources.get(connectionName);
    if (existing && existing.fingerprint === fingerprint) return existing.source;
    if (existing) this.retire(existing.source);
    const source: DataSource =
      spec.provider_type === 'duckdb'
        ? new DuckdbDataSource(connectionName, spec, this.secretContext, this.options)
        : spec.provider_type === 'mysql' || spec.provider_type === 'mariadb'
          ? new MysqlDataSource(connectionName, spec, this.secretContext, this.options)
          : new PostgresDataSource(connectionName, spec, this.secretContext, this.options);
    this.sources.set(connectionName, { fingerprint, source });
    return source;
  }

  async close(): Promise<void> {
    const all = [...this.sources.values()].map(({ source }) => source.close());
    this.sources.clear();
    await Promise.allSettled([...all, ...this.retiring]);
  }

  private retire(source: DataSource): void {
    const closing = source.close().finally(() => this.retiring.delete(closing));
    this.retiring.add(closing);
  }
}

/** What a pool depends on: the provider block and the limit (not labels, schedules, comments …). */
function fingerprintOf(spec: JsonObject): string {
  const relevant: JsonObject = {
    provider_type: spec.provider_type ?? null,
    postgresql: spec.postgresql ?? null,
    duckdb: spec.duckdb ?? null,
    mysql: spec.mysql ?? null,
    mariadb: spec.mariadb ?? null,
    parallel_jobs_limit: spec.parallel_jobs_limit ?? null,
  };
  return createHash('sha256').update(canonical(relevant)).digest('hex');
}

function canonical(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key] as JsonValue)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
