import { describeTablesOrFailures, listTables, schemaTableKey, type DataSources, type SourceColumn, type TableFilter } from '../datasource/index.js';
import { isJsonObject, tableKey, tableKeyPrefix, type JsonObject } from '../model/index.js';
import type { LiveObjects } from '../inspect/liveObjects.js';

/**
 * `import tables`: the tables of a connection's data source, written into the live store as tables with their
 * columns' `type_snapshot {column_type, nullable, length, precision, scale}` (what `data_type` and
 * `data_type_category` policy targets match). A new table is created through LiveObjects (managed_by api, kept
 * by apply); a table that exists keeps everything it has (checks, labels, column settings) and only gets its
 * snapshots refreshed and new columns added; columns no longer in the source are kept (their checks would
 * report it). One transaction per table; a table whose content does not change is not written.
 *
 * Tables whose schema name holds a dot are skipped: a table name `schema.table` is split on its first dot.
 *
 * The auto import (`auto_import_tables {schema_filter, table_name_contains}` of the connection) only creates
 * tables that are not in the store yet, so a reconcile loop calling it never rewrites git-managed tables.
 */
export interface ImportTablesRequest {
  connection: string;
  /** Schema name, `*` wildcards. */
  schema?: string;
  tableContains?: string;
  /** Only these tables (names without the schema). */
  tableNames?: string[];
  /** Only create tables missing from the store (the auto import). */
  onlyNew?: boolean;
  /** Who writes (lock holder), e.g. `cli:alice`. */
  caller: string;
  signal?: AbortSignal;
}

export interface ImportTablesResult {
  connection: string;
  created: string[];
  updated: string[];
  unchanged: string[];
  /** Tables found but not imported, with why. */
  skipped: { table: string; reason: string }[];
}

export interface ImportDependencies {
  objects: LiveObjects;
  dataSources: DataSources;
}

export async function importTables(deps: ImportDependencies, request: ImportTablesRequest): Promise<ImportTablesResult> {
  const connection = await deps.objects.require('source', request.connection, 'connection');
  const source = deps.dataSources.get(request.connection, connection.spec);
  const filter: TableFilter = { schema: request.schema, tableContains: request.tableContains };
  const [tables, columns] = await source.session(
    // one after the other: a session runs one statement at a time
    async (session) => [await listTables(session, filter), await describeTablesOrFailures(session, filter)] as const,
    { signal: request.signal, snapshot: true },
  );
  const result: ImportTablesResult = { connection: request.connection, created: [], updated: [], unchanged: [], skipped: [] };
  const existing = new Set((await deps.objects.list('table', tableKeyPrefix(request.connection))).map((t) => t.name));
  const wanted = request.tableNames && request.tableNames.length > 0 ? new Set(request.tableNames) : undefined;
  for (const table of tables) {
    request.signal?.throwIfAborted();
    if (wanted && !wanted.has(table.table)) continue;
    const name = tableKey({ connection: request.connection, schema: table.schema, table: table.table });
    if (table.schema.includes('.')) {
      result.skipped.push({ table: `${table.schema}.${table.table}`, reason: 'the schema name holds a dot, which a table name cannot carry' });
      continue;
    }
    if (request.onlyNew && existing.has(name)) continue;
    const described = columns.get(schemaTableKey(table.schema, table.table)) ?? [];
    if (!Array.isArray(described)) {
      // a DuckDB table whose files cannot be read: not imported, with DuckDB's reason
      result.skipped.push({ table: `${table.schema}.${table.table}`, reason: described.error });
      continue;
    }
    const sourceColumns = described;
    let before: string | undefined;
    const written = await deps.objects.upsert('table', name, { caller: request.caller }, (current) => {
      before = current?.contentHash;
      if (!current) return { spec: { columns: columnsSpec({}, sourceColumns) } };
      if (request.onlyNew) return { spec: current.spec, attachments: current.attachments };
      const spec: JsonObject = { ...current.spec, columns: columnsSpec(isJsonObject(current.spec.columns) ? current.spec.columns : {}, sourceColumns) };
      return { spec, attachments: current.attachments };
    });
    const outcome = before === undefined ? 'created' : before === written.contentHash ? 'unchanged' : 'updated';
    result[outcome].push(name);
  }
  return result;
}

/** The auto import of a connection, as its `auto_import_tables` says; null when the connection has none. */
export async function autoImportTables(deps: ImportDependencies, connectionName: string, options: { caller: string; signal?: AbortSignal }): Promise<ImportTablesResult | null> {
  const connection = await deps.objects.require('source', connectionName, 'connection');
  const settings = connection.spec.auto_import_tables;
  if (!isJsonObject(settings)) return null;
  const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
  return importTables(deps, {
    connection: connectionName,
    schema: text(settings.schema_filter),
    tableContains: text(settings.table_name_contains),
    onlyNew: true,
    caller: options.caller,
    signal: options.signal,
  });
}

/** The columns part of a table spec: existing column specs kept, snapshots replaced, new columns added in source order. */
function columnsSpec(existing: JsonObject, columns: readonly SourceColumn[]): JsonObject {
  const out: JsonObject = {};
  for (const column of columns) {
    const current = isJsonObject(existing[column.name]) ? (existing[column.name] as JsonObject) : {};
    out[column.name] = { ...current, type_snapshot: typeSnapshot(column) };
  }
  for (const [name, spec] of Object.entries(existing)) if (!(name in out)) out[name] = spec;
  return out;
}

export function typeSnapshot(column: SourceColumn): JsonObject {
  const snapshot: JsonObject = { column_type: column.columnType, nullable: column.nullable };
  if (column.length !== null) snapshot.length = column.length;
  if (column.precision !== null) snapshot.precision = column.precision;
  if (column.scale !== null) snapshot.scale = column.scale;
  return snapshot;
}
