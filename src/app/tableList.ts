import { byCodePoint, tableListModel } from './tableModels.js';
import { matchesSearchPattern, withoutQuotes } from './searchPattern.js';
import { pageOf, type Paging } from './listPaging.js';
import type { LiveObjects } from './services.js';
import { DqError, parseTableKey, tableKeyPrefix, type Capabilities, type JsonObject, type LiveObject, type TableIdentity } from '../model/index.js';

/**
 * GET /api/connections/{c}/schemas/{s}/tables as DQOps answers it: the tables of the connection whose schema and
 * table names match `schema.filter` by DQOps's name patterns (searchPattern.ts: case ignored, `*` wildcards; no
 * filter is `schema.*`), disabled tables left out, sorted by schema then table name, one page of them when
 * `page` or `limit` is given (listPaging.ts). Only the page's tables are read in full (their list models need
 * the spec); the names and the disabled flags of a connection's tables are kept until any object changes.
 */
export interface TableListRequest {
  connection: string;
  schema: string;
  /** DQOps's `filter`: a table name pattern. */
  filter?: string;
  paging?: Paging;
}

interface TableEntry {
  name: string;
  identity: TableIdentity;
  disabled: boolean;
}

/** Every table of a connection with its disabled flag, sorted by schema then table name. */
function connectionTables(objects: LiveObjects, connection: string): Promise<TableEntry[]> {
  return objects.memo(`tableEntries\u0000${connection}`, async () => {
    const prefix = tableKeyPrefix(connection);
    const [summaries, disabled] = await Promise.all([objects.store.listSummaries({ kind: 'table' }), objects.disabledNames('table', prefix)]);
    const entries: TableEntry[] = [];
    for (const summary of summaries) {
      if (!summary.name.startsWith(prefix)) continue;
      const identity = parseTableKey(summary.name);
      if (identity) entries.push({ name: summary.name, identity, disabled: disabled.has(summary.name) });
    }
    return entries.sort((a, b) => byCodePoint(a.identity.schema, b.identity.schema) || byCodePoint(a.identity.table, b.identity.table));
  });
}

/** The list models of one page of a schema's tables; 404 when the connection has no table in that schema. */
export async function listTables(objects: LiveObjects, request: TableListRequest, capabilitiesOf: (live: LiveObject) => Capabilities): Promise<JsonObject[]> {
  const schemaPattern = withoutQuotes(request.schema);
  const tablePattern = request.filter ? withoutQuotes(request.filter) : '*';
  const inSchema = (await connectionTables(objects, request.connection)).filter((entry) => matchesSearchPattern(entry.identity.schema, schemaPattern));
  if (inSchema.length === 0) throw new DqError('NOT_FOUND', `schema ${JSON.stringify(request.schema)} not found in connection ${JSON.stringify(request.connection)}`);
  const matching = inSchema.filter((entry) => !entry.disabled && matchesSearchPattern(entry.identity.table, tablePattern));
  const page = pageOf(matching, request.paging);
  const lives = new Map((await objects.getMany('table', page.map((entry) => entry.name))).map((live) => [live.name, live]));
  return page.flatMap((entry) => {
    const live = lives.get(entry.name);
    return live ? [tableListModel(live, entry.identity, capabilitiesOf(live))] : [];
  });
}
