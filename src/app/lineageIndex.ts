import type { LiveObjects } from '../inspect/liveObjects.js';
import { isJsonObject, parseTableKey, type JsonObject, type JsonValue, type LiveObject, type TableIdentity } from '../model/index.js';
import type { Store } from '../store/store.js';
import { indexFlows, lineageFlows, sourceTablesOf, tableRefKey, walkLineage, type FlowIndex } from './lineageGraph.js';
import { combineStatuses, tableQualityStatus, type TableQualityStatus } from './tableQualityStatus.js';

/**
 * Data lineage of a table as the API shows it. A flow is stored in its TARGET table, as an entry of the spec's
 * `source_tables` (as in the table file). The targets of a table and the lineage tree are found through an index
 * of every table's entries, built once and kept until an object changes. Quality statuses in the tree come from
 * each table's latest check results.
 */
export function entriesOf(spec: JsonObject): JsonValue[] {
  return Array.isArray(spec.source_tables) ? spec.source_tables : [];
}

export function entryNames(entry: JsonValue, source: TableIdentity): boolean {
  return (
    isJsonObject(entry) &&
    entry.source_connection === source.connection &&
    entry.source_schema === source.schema &&
    entry.source_table === source.table
  );
}

export function lineageListModel(target: TableIdentity, source: TableIdentity, canEdit: boolean, tool?: JsonValue): JsonObject {
  const model: JsonObject = {
    target_connection: target.connection,
    target_schema: target.schema,
    target_table: target.table,
    source_connection: source.connection,
    source_schema: source.schema,
    source_table: source.table,
    can_edit: canEdit,
  };
  if (typeof tool === 'string') model.data_lineage_source_tool = tool;
  return model;
}

function tableKeyModel(ref: TableIdentity): JsonObject {
  return {
    connection_name: ref.connection,
    physical_table_name: { schema_name: ref.schema, table_name: ref.table },
    compact_key: `${ref.connection}/${ref.schema}.${ref.table}`, // DQOps's compact key, the names as they read
  };
}

/**
 * The lineage edges of the whole store: every table that names source tables, with its entries, and the flows
 * between tables. Built by reading every table once, then kept until an object changes (LiveObjects.memo), so
 * the targets and tree routes cost a walk over edges, not a read of every table spec.
 */
interface LineageIndex {
  /** Tables with `source_tables`, with their entries. */
  targets: Array<{ live: LiveObject; ref: TableIdentity; entries: JsonValue[] }>;
  /** Every flow, indexed by source and target for the walks. */
  flowIndex: FlowIndex;
}

async function lineageIndex(objects: LiveObjects): Promise<LineageIndex> {
  return objects.memo('lineage', async () => {
    const tables = await objects.store.listObjects({ kind: 'table' });
    const withSources: Array<{ live: LiveObject; ref: TableIdentity; spec: JsonObject }> = [];
    for (const live of tables) {
      const path = parseTableKey(live.name);
      if (path && entriesOf(live.spec).length > 0) withSources.push({ live, ref: path, spec: live.spec });
    }
    return {
      targets: withSources.map((t) => ({ live: { ...t.live, spec: {} }, ref: t.ref, entries: entriesOf(t.spec) })),
      flowIndex: indexFlows(lineageFlows(withSources)),
    };
  });
}

/** The tables a table is loaded from (TableLineageTableListModel), with the tool that recorded each flow. */
export function lineageSources(live: LiveObject, target: TableIdentity, canEdit: boolean): JsonObject[] {
  const entries = entriesOf(live.spec);
  return sourceTablesOf(live.spec).map((source) =>
    lineageListModel(target, source, canEdit, (entries.find((e) => entryNames(e, source)) as JsonObject | undefined)?.data_lineage_source_tool),
  );
}

/** The tables loaded from `source` (TableLineageTableListModel); `canEdit` of each target table. */
export async function lineageTargets(objects: LiveObjects, source: TableIdentity, canEdit: (target: LiveObject) => boolean): Promise<JsonObject[]> {
  const out: JsonObject[] = [];
  for (const table of (await lineageIndex(objects)).targets) {
    const entry = table.entries.find((e) => entryNames(e, source));
    if (!entry) continue;
    out.push(lineageListModel(table.ref, source, canEdit(table.live), (entry as JsonObject).data_lineage_source_tool));
  }
  return out;
}

type CombinedStatus = Partial<NonNullable<ReturnType<typeof combineStatuses>>>;

/** DQOps's TableLineageModel. */
export interface LineageTreeModel {
  relative_table: JsonObject;
  relative_table_cumulative_quality_status: CombinedStatus | undefined;
  flows: Array<{
    source_table: JsonObject;
    target_table: JsonObject;
    source_table_quality_status: TableQualityStatus | undefined;
    target_table_quality_status: TableQualityStatus | undefined;
    upstream_combined_quality_status: CombinedStatus | undefined;
    row_count: null;
  }>;
  data_lineage_fully_loaded: boolean;
}

/**
 * The lineage tree of a table (TableLineageModel): every flow upstream and downstream of it, transitively, with
 * each table's current quality status (left out until it has results) and the combined status upstream.
 */
export async function lineageTree(objects: LiveObjects, store: Store, start: TableIdentity, query: { upstream: boolean; downstream: boolean }): Promise<LineageTreeModel> {
  const allFlows = (await lineageIndex(objects)).flowIndex;
  const flows = walkLineage(start, allFlows, { upstream: query.upstream, downstream: query.downstream });
  // each table's current status from its latest results; a flow's upstream status folds every table upstream of its source
  const statuses = new Map<string, Promise<TableQualityStatus>>();
  const statusOf = (table: TableIdentity) => {
    const key = tableRefKey(table);
    if (!statuses.has(key)) statuses.set(key, tableQualityStatus(store, table));
    return statuses.get(key)!;
  };
  // DQOps's clients parse a status only as a whole object whose severity is set: a table without results
  // has its status left out, and a combined status without any result drops its null fields
  const visible = (s: TableQualityStatus) => (s.last_check_executed_at === null ? undefined : s);
  // once per table: flows of a graph share sources (a 500-table graph has ~1,000 flows)
  const upstreamStatuses = new Map<string, ReturnType<typeof combineStatuses> | Promise<ReturnType<typeof combineStatuses>>>();
  const upstreamOf = async (table: TableIdentity) => {
    const key = tableRefKey(table);
    const known = upstreamStatuses.get(key);
    if (known !== undefined) return known;
    const computed = (async () => {
      const upstream = walkLineage(table, allFlows, { upstream: true, downstream: false });
      const tables = new Map<string, TableIdentity>([[key, table]]);
      for (const flow of upstream) tables.set(tableRefKey(flow.source), flow.source);
      return combineStatuses(await Promise.all([...tables.values()].map(statusOf)));
    })();
    upstreamStatuses.set(key, computed);
    return computed;
  };
  return {
    relative_table: tableKeyModel(start),
    relative_table_cumulative_quality_status: withoutNulls(await upstreamOf(start)),
    flows: await Promise.all(
      flows.map(async (flow) => ({
        source_table: tableKeyModel(flow.source),
        target_table: tableKeyModel(flow.target),
        source_table_quality_status: visible(await statusOf(flow.source)),
        target_table_quality_status: visible(await statusOf(flow.target)),
        upstream_combined_quality_status: withoutNulls(await upstreamOf(flow.source)),
        row_count: null,
      })),
    ),
    data_lineage_fully_loaded: true,
  };
}

/** A status with its unknown fields (no severity, no run yet) left out rather than null. */
function withoutNulls<T extends object>(status: T | null): Partial<T> | undefined {
  if (status === null) return undefined;
  return Object.fromEntries(Object.entries(status).filter(([, value]) => value !== null)) as Partial<T>;
}
