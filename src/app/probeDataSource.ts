import { listSchemas, listTables, type DataSources } from '../datasource/index.js';
import { parseTableKey, tableKey, tableKeyPrefix, type JsonObject } from '../model/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';

/**
 * What DQOps's `data_sources` operations ask of a data source, answered from the live database: can it be
 * reached with these settings, which schemas and which tables does it hold (and which of them are imported).
 * PostgreSQL, MySQL and MariaDB servers are reached with `select 1`; a DuckDB connection opens its engine and
 * reads the folders of its schemas. Other providers answer a failure that says so, as an unreachable source does.
 */
const REACHABLE_PROVIDERS = ['postgresql', 'duckdb', 'mysql', 'mariadb'];

export interface ConnectionTest {
  connectionTestResult: 'SUCCESS' | 'FAILURE' | 'CONNECTION_ALREADY_EXISTS';
  errorMessage?: string;
}

export async function testConnection(
  deps: { objects: LiveObjects; dataSources: DataSources },
  name: string | undefined,
  spec: JsonObject,
  options: { verifyNameUniqueness?: boolean } = {},
): Promise<ConnectionTest> {
  if (options.verifyNameUniqueness && name !== undefined && (await deps.objects.get('source', name))) {
    return { connectionTestResult: 'CONNECTION_ALREADY_EXISTS', errorMessage: `a connection named ${JSON.stringify(name)} exists` };
  }
  if (!REACHABLE_PROVIDERS.includes(String(spec.provider_type))) {
    return { connectionTestResult: 'FAILURE', errorMessage: `dqctl reaches ${REACHABLE_PROVIDERS.join(', ')} data sources, not ${String(spec.provider_type ?? 'an unnamed provider')}` };
  }
  // a probe of its own (not the shared pool of a connection of that name): the settings under test may differ
  const probeName = `connection test ${name ?? ''}`.trim();
  const source = deps.dataSources.get(probeName, spec);
  try {
    await source.query('select 1');
    // a DuckDB connection reaches its files: every schema's folder must be readable
    if (spec.provider_type === 'duckdb') await listTables(source);
    return { connectionTestResult: 'SUCCESS' };
  } catch (error) {
    // data source errors name the host and the reason, never a secret (dataSourceErrors.ts)
    return { connectionTestResult: 'FAILURE', errorMessage: (error as Error).message };
  }
}

export interface RemoteSchema {
  connectionName: string;
  schemaName: string;
  alreadyImported: boolean;
}

export async function remoteSchemas(deps: { objects: LiveObjects; dataSources: DataSources }, connection: string): Promise<RemoteSchema[]> {
  const live = await deps.objects.require('source', connection, 'connection');
  const schemas = await listSchemas(deps.dataSources.get(connection, live.spec));
  const imported = new Set((await deps.objects.list('table', tableKeyPrefix(connection))).map((t) => parseTableKey(t.name)?.schema));
  return schemas.map((schemaName) => ({ connectionName: connection, schemaName, alreadyImported: imported.has(schemaName) }));
}

export interface RemoteTable {
  connectionName: string;
  schemaName: string;
  tableName: string;
  alreadyImported: boolean;
}

export async function remoteTables(
  deps: { objects: LiveObjects; dataSources: DataSources },
  connection: string,
  schema: string,
  tableContains?: string,
): Promise<RemoteTable[]> {
  const live = await deps.objects.require('source', connection, 'connection');
  const tables = await listTables(deps.dataSources.get(connection, live.spec), { schema, tableContains });
  const imported = new Set((await deps.objects.list('table', tableKeyPrefix(connection))).map((t) => t.name));
  return tables.map((t) => ({ connectionName: connection, schemaName: t.schema, tableName: t.table, alreadyImported: imported.has(tableKey({ connection, schema: t.schema, table: t.table })) }));
}
