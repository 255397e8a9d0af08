import { byCodePoint, tableListModel } from './tableModels.js';
import { matchesSearchPattern, withoutQuotes } from './searchPattern.js';
import { pageOf, type Paging } from './listPaging.js';
import type { LiveObjects } from './services.js';
import { DqError, parseTableKey, tableKeyPrefix, type Capabilities, type JsonObject, type JsonValue, type LiveObject, type TableIdentity } from '../model/index.js';

/**
 * GET /api/connections/{c}/schemas/{s}/tables as DQOps answers it: the tables of the connection whose schema and
 * table names match `schema.filter` by DQOps's name patterns (searchPattern.ts: case ignored, `*` wildcards; no
 * filter is `schema.*`), carrying every `label` asked (each label, or label pattern, among the table's labels and
 * its connection's), disabled tables left out, sorted by schema then table name, one page of them when `page` or
 * `limit` is given (listPaging.ts). Only the page's tables are read in full (their list models need the spec),
 * unless labels are asked; the names and the disabled flags of a connection's tables are kept until any object
 * changes.
 */
export interface TableListRequest {
  connection: string;
  schema: string;
  /** DQOps's `filter`: a table name pattern. */
  filter?: string;
  /** DQOps's `label`: labels (or label patterns) the table or its connection must all carry. */
  labels?: readonly string[];
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
  let matching = inSchema.filter((entry) => !entry.disabled && matchesSearchPattern(entry.identity.table, tablePattern));
  const labels = (request.labels ?? []).filter((label) => label !== '');
  if (labels.length > 0) {
    const connection = await objects.get('source', request.connection);
    const connectionLabels = labelsOf(connection?.spec.labels);
    const candidates = new Map((await objects.getMany('table', matching.map((entry) => entry.name))).map((live) => [live.name, live]));
    matching = matching.filter((entry) => {
      const carried = [...labelsOf(candidates.get(entry.name)?.spec.labels), ...connectionLabels];
      return labels.every((label) => carried.includes(label) || carried.some((own) => matchesSearchPattern(own, label)));
    });
  }
  const page = pageOf(matching, request.paging);
  const lives = new Map((await objects.getMany('table', page.map((entry) => entry.name))).map((live) => [live.name, live]));
  return page.flatMap((entry) => {
    const live = lives.get(entry.name);
    return live ? [tableListModel(live, entry.identity, capabilitiesOf(live))] : [];
  });
}

function labelsOf(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((label): label is string => typeof label === 'string') : [];
}
