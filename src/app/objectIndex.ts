import type { LiveObjects } from './services.js';
import { OBJECT_KINDS, parseTableKey, type LiveSummary, type ObjectKind } from '../model/index.js';

/**
 * The live objects as the console's lists and overview read them, built once from the store's summaries (never
 * from specs) and kept by the live objects until any object changes: each object's name parts, owner and file,
 * in the console's order (kind, then name), with the lower-cased text a search matches, and the counts the
 * overview shows. What changes without a store write (sync status, check results) is joined per request.
 */
export interface IndexedObject {
  kind: ObjectKind;
  name: string;
  /** The connection a source or table is part of; null for rules and policies. */
  connection: string | null;
  schema: string | null;
  table: string | null;
  managed_by: 'git' | 'api';
  origin_file: string | null;
  /** `name origin_file`, lower-cased: what a search matches. */
  text: string;
}

export interface IndexedConnection {
  name: string;
  managed_by: 'git' | 'api';
  tables: number;
}

export interface ObjectIndex {
  objects: readonly IndexedObject[];
  byKind: Record<ObjectKind, { git: number; api: number }>;
  byOwner: { git: number; api: number };
  /** Every connection, sorted by name. */
  connections: readonly IndexedConnection[];
  /** How many tables exist. */
  tableCount: number;
  /** Whether the table exists (nested maps: looked up with the strings of a result row, no key built). */
  hasTable(connection: string, schema: string, table: string): boolean;
}

function indexOf(summaries: readonly LiveSummary[]): ObjectIndex {
  const byKind = Object.fromEntries(OBJECT_KINDS.map((k) => [k, { git: 0, api: 0 }])) as ObjectIndex['byKind'];
  const byOwner = { git: 0, api: 0 };
  const connections = new Map<string, IndexedConnection>();
  const tables = new Map<string, Map<string, Set<string>>>();
  let tableCount = 0;
  const objects: IndexedObject[] = summaries.map((s) => {
    byKind[s.kind][s.managedBy]++;
    byOwner[s.managedBy]++;
    const table = s.kind === 'table' ? (parseTableKey(s.name) ?? null) : null;
    if (table) {
      let schemas = tables.get(table.connection);
      if (!schemas) tables.set(table.connection, (schemas = new Map()));
      let names = schemas.get(table.schema);
      if (!names) schemas.set(table.schema, (names = new Set()));
      names.add(table.table);
      tableCount++;
    }
    if (s.kind === 'source') connections.set(s.name, { name: s.name, managed_by: s.managedBy, tables: 0 });
    return {
      kind: s.kind,
      name: s.name,
      connection: s.kind === 'source' ? s.name : (table?.connection ?? null),
      schema: table?.schema ?? null,
      table: table?.table ?? null,
      managed_by: s.managedBy,
      origin_file: s.originFile,
      text: `${s.name} ${s.originFile ?? ''}`.toLowerCase(),
    };
  });
  for (const [connection, schemas] of tables) {
    const found = connections.get(connection);
    if (found) for (const names of schemas.values()) found.tables += names.size;
  }
  const kindOrder = (k: ObjectKind) => OBJECT_KINDS.indexOf(k);
  objects.sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const sortedConnections = [...connections.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const hasTable = (connection: string, schema: string, table: string) => tables.get(connection)?.get(schema)?.has(table) ?? false;
  return { objects, byKind, byOwner, connections: sortedConnections, tableCount, hasTable };
}

export function objectIndex(objects: LiveObjects): Promise<ObjectIndex> {
  return objects.memo('objectIndex', async () => indexOf(await objects.store.listSummaries()));
}
