import { objectIndex, type IndexedObject } from './objectIndex.js';
import { searchObjects } from './objectSearch.js';
import { connectionQualityOf, currentStatus, qualityLookup, syncLookup, type ObjectRow, type QualityLookup } from './objectsOverview.js';
import type { Paging } from './listPaging.js';
import type { LiveObjects, Reconciler } from './services.js';
import { DqError, isObjectKind, QUALITY_STATUSES, type ObjectKind, type QualityStatus } from '../model/index.js';
import { OBJECT_SYNC_STATUSES, type ObjectSyncStatus } from '../reconcile/status.js';

/**
 * GET /api/objects: the live objects with their owner, sync and quality status, sorted by kind then name, found
 * on the server so that the console never holds all of them: `search` (every word, ignoring case, in the name or
 * the file), `kind`, `connection`, `owner`, `sync_status`, `quality_status`, then one page (listPaging.ts: the
 * whole list when neither page nor limit is given, as before paging). `total` counts the objects that match,
 * `total_objects` all of them; `connections` names every connection (the console's filter offers them). The
 * severities of check results are read for the page's tables (a row each) and connections (one row each, folded
 * by the store), unless the quality filter needs every table's: a keystroke's cost does not grow with the
 * tables of the connections it shows.
 */
export interface ObjectListRequest {
  search?: string;
  kind?: string;
  connection?: string;
  owner?: string;
  sync_status?: string;
  quality_status?: string;
  paging?: Paging;
}

export interface ObjectList {
  generated_at: string;
  total: number;
  total_objects: number;
  page: number | null;
  limit: number | null;
  connections: string[];
  objects: ObjectRow[];
}

/** Up to this many rows, a page reads the severities of its own tables and connections only; more, all of them. */
const PAGE_READ_LIMIT = 500;
const OWNERS = new Set(['git', 'api']);
const SYNC_STATUSES = new Set<string>(OBJECT_SYNC_STATUSES);
const QUALITIES = new Set<string>(QUALITY_STATUSES);

function refuseUnknown(name: string, value: string | undefined, known: (value: string) => boolean): void {
  if (value !== undefined && value !== '' && !known(value)) throw new DqError('INVALID_ARGUMENT', `unknown ${name} ${JSON.stringify(value)}`);
}

export async function listObjectStatuses(objects: LiveObjects, reconciler: Reconciler | undefined, request: ObjectListRequest, now = new Date()): Promise<ObjectList> {
  refuseUnknown('kind', request.kind, isObjectKind);
  refuseUnknown('owner', request.owner, (v) => OWNERS.has(v));
  refuseUnknown('sync_status', request.sync_status, (v) => SYNC_STATUSES.has(v));
  refuseUnknown('quality_status', request.quality_status, (v) => QUALITIES.has(v));
  const wantedQuality = (request.quality_status || undefined) as QualityStatus | undefined;
  // with a quality filter every table's severity is read; without, only those of the page's tables and connections
  const [index, status, allSeverities] = await Promise.all([
    objectIndex(objects),
    currentStatus(objects, reconciler, now),
    wantedQuality ? objects.store.tableSeverities() : undefined,
  ]);
  const syncOf = syncLookup(status);
  const kind = (request.kind || undefined) as ObjectKind | undefined;
  const connection = request.connection || undefined;
  const owner = request.owner || undefined;
  const wantedSync = (request.sync_status || undefined) as ObjectSyncStatus | undefined;
  const qualityOf = (quality: QualityLookup, o: IndexedObject): QualityStatus =>
    o.kind === 'table' && o.connection !== null && o.schema !== null && o.table !== null
      ? quality.table(o.connection, o.schema, o.table)
      : o.kind === 'source'
        ? quality.connection(o.name)
        : 'not_run';
  const everyQuality = allSeverities ? qualityLookup(index, allSeverities) : undefined;
  // only the page's objects are kept; the others are counted
  const first = request.paging ? (request.paging.page - 1) * request.paging.limit : 0;
  const end = request.paging ? first + request.paging.limit : Infinity;
  const page: Array<{ o: IndexedObject; sync_status: ObjectSyncStatus }> = [];
  let total = 0;
  for (const o of searchObjects(index, request.search ?? '')) {
    if (kind && o.kind !== kind) continue;
    if (connection && o.connection !== connection) continue;
    if (owner && o.managed_by !== owner) continue;
    // the sync status is looked up for the sync filter and for the page's rows only
    const sync_status = wantedSync ? syncOf(o.kind, o.name, o.managed_by) : undefined;
    if (wantedSync && sync_status !== wantedSync) continue;
    if (everyQuality && qualityOf(everyQuality, o) !== wantedQuality) continue;
    if (total >= first && total < end) page.push({ o, sync_status: sync_status ?? syncOf(o.kind, o.name, o.managed_by) });
    total++;
  }
  // the page's own tables (one row each) and connections (one folded row each, however many tables they have)
  const pageTables = page.flatMap(({ o }) => (o.kind === 'table' && o.connection !== null && o.schema !== null && o.table !== null ? [{ connection: o.connection, schema: o.schema, table: o.table }] : []));
  const pageConnections = page.flatMap(({ o }) => (o.kind === 'source' ? [o.name] : []));
  const [tableRows, connectionRows] = everyQuality
    ? [undefined, undefined]
    : await Promise.all([
        pageTables.length === 0 ? [] : objects.store.tableSeverities(pageTables.length > PAGE_READ_LIMIT ? undefined : { tables: pageTables }),
        objects.store.connectionSeverities(pageConnections),
      ]);
  const pageQuality = tableRows ? qualityLookup(index, tableRows) : undefined;
  const connectionQuality = new Map((connectionRows ?? []).map((row) => [row.connectionName, connectionQualityOf(row)]));
  const quality: QualityLookup = everyQuality ?? {
    ...pageQuality!,
    connection: (name) => connectionQuality.get(name) ?? 'not_run',
  };
  const rows: ObjectRow[] = page.map(({ o, sync_status }) => ({
    kind: o.kind,
    name: o.name,
    connection: o.connection,
    schema: o.schema,
    table: o.table,
    managed_by: o.managed_by,
    origin_file: o.origin_file,
    sync_status,
    quality_status: qualityOf(quality, o),
  }));
  return {
    generated_at: now.toISOString(),
    total,
    total_objects: index.objects.length,
    page: request.paging?.page ?? null,
    limit: request.paging?.limit ?? null,
    connections: index.connections.map((c) => c.name),
    objects: rows,
  };
}
