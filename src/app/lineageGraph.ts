import { isJsonObject, type JsonObject, type TableIdentity } from '../model/index.js';

/**
 * Data lineage as a graph of tables: each table spec's `source_tables` entries are edges source → target.
 * The walk around one table follows sources (upstream) and the tables naming it (downstream) transitively,
 * cycle-safe (a visited set per direction) and reporting every flow once, so a lineage that loops back
 * (a → b → a, or a table naming itself) ends instead of running forever. Pure: the caller reads the specs.
 */
export interface LineageFlow {
  source: TableIdentity;
  target: TableIdentity;
}

export interface LineageWalkOptions {
  /** Follow source tables (default true). */
  upstream?: boolean;
  /** Follow tables that name this one as a source (default true). */
  downstream?: boolean;
}

/** An unambiguous identity of a table reference (names may hold `/`, `.` and anything else). */
export function tableRefKey(ref: TableIdentity): string {
  return JSON.stringify([ref.connection, ref.schema, ref.table]);
}

/** The source tables a table spec names (entries without the three names are skipped). */
export function sourceTablesOf(spec: JsonObject): TableIdentity[] {
  const entries = spec.source_tables;
  if (!Array.isArray(entries)) return [];
  const refs: TableIdentity[] = [];
  for (const entry of entries) {
    if (!isJsonObject(entry)) continue;
    const { source_connection: connection, source_schema: schema, source_table: table } = entry;
    if (typeof connection === 'string' && typeof schema === 'string' && typeof table === 'string') refs.push({ connection, schema, table });
  }
  return refs;
}

/** Every flow of a set of tables, each once, in the order of the tables and their entries. */
export function lineageFlows(tables: Iterable<{ ref: TableIdentity; spec: JsonObject }>): LineageFlow[] {
  const flows: LineageFlow[] = [];
  const seen = new Set<string>();
  for (const { ref, spec } of tables) {
    for (const source of sourceTablesOf(spec)) {
      const key = flowKey({ source, target: ref });
      if (seen.has(key)) continue;
      seen.add(key);
      flows.push({ source, target: ref });
    }
  }
  return flows;
}

/** The flows by source and by target table: built once, it serves many walks over the same flows. */
export interface FlowIndex {
  bySource: Map<string, LineageFlow[]>;
  byTarget: Map<string, LineageFlow[]>;
}

export function indexFlows(flows: readonly LineageFlow[]): FlowIndex {
  const bySource = new Map<string, LineageFlow[]>();
  const byTarget = new Map<string, LineageFlow[]>();
  for (const flow of flows) {
    push(bySource, tableRefKey(flow.source), flow);
    push(byTarget, tableRefKey(flow.target), flow);
  }
  return { bySource, byTarget };
}

/**
 * The flows reachable from `start`: upstream (breadth first through sources), then downstream (through
 * targets). A flow found by both walks (a cycle through `start`) is listed once, where it was first found.
 */
export function walkLineage(start: TableIdentity, flows: readonly LineageFlow[] | FlowIndex, options: LineageWalkOptions = {}): LineageFlow[] {
  const { bySource, byTarget } = 'bySource' in flows ? flows : indexFlows(flows);
  const result: LineageFlow[] = [];
  const reported = new Set<string>();
  const walk = (edges: Map<string, LineageFlow[]>, next: (flow: LineageFlow) => TableIdentity): void => {
    const visited = new Set<string>([tableRefKey(start)]);
    let frontier: TableIdentity[] = [start];
    while (frontier.length > 0) {
      const following: TableIdentity[] = [];
      for (const table of frontier) {
        for (const flow of edges.get(tableRefKey(table)) ?? []) {
          const key = flowKey(flow);
          if (!reported.has(key)) {
            reported.add(key);
            result.push(flow);
          }
          const other = next(flow);
          const otherKey = tableRefKey(other);
          if (visited.has(otherKey)) continue;
          visited.add(otherKey);
          following.push(other);
        }
      }
      frontier = following;
    }
  };
  if (options.upstream !== false) walk(byTarget, (flow) => flow.source);
  if (options.downstream !== false) walk(bySource, (flow) => flow.target);
  return result;
}

function flowKey(flow: LineageFlow): string {
  return `${tableRefKey(flow.source)}>${tableRefKey(flow.target)}`;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
