import { useMemo } from 'preact/hooks';
import { get, tablePath, type LineageTree, type ObjectStatusList, type QualityStatusModel, type TableKey } from '../api';
import { Empty, Name, Section, Show, useLoad } from '../components/common';
import { LineageGraph, type GraphEdge, type GraphNode } from '../components/LineageGraph';
import { links, navigate, setQueryParam, type Location } from '../router';
import { QUALITY_ORDER, QUALITY_WORDS, toneOfQuality, type QualityStatus } from '../words';

const DEPTHS = [1, 2, 3, 5, 10, 100];

function keyOf(t: TableKey): string {
  return t.compact_key ?? `${t.connection_name}/${t.physical_table_name.schema_name}.${t.physical_table_name.table_name}`;
}

function statusOf(s: QualityStatusModel | undefined): QualityStatus {
  return s?.current_severity ?? 'not_run';
}

/** Keeps the flows within `depth` steps of the table, upstream and downstream. */
export function graphWithin(tree: LineageTree, depth: number): { nodes: GraphNode[]; edges: GraphEdge[] } {
  const start = keyOf(tree.relative_table);
  const nodes = new Map<string, GraphNode>();
  const add = (t: TableKey, s: QualityStatusModel | undefined) => {
    const id = keyOf(t);
    if (!nodes.has(id)) nodes.set(id, { id, connection: t.connection_name, schema: t.physical_table_name.schema_name, table: t.physical_table_name.table_name, status: statusOf(s), focus: id === start });
  };
  const up = new Map<string, typeof tree.flows>();
  const down = new Map<string, typeof tree.flows>();
  for (const f of tree.flows) {
    const s = keyOf(f.source_table);
    const t = keyOf(f.target_table);
    (down.get(s) ?? down.set(s, []).get(s)!).push(f);
    (up.get(t) ?? up.set(t, []).get(t)!).push(f);
  }
  const kept = new Set<(typeof tree.flows)[number]>();
  for (const [index, next] of [
    [up, (f: (typeof tree.flows)[number]) => keyOf(f.source_table)],
    [down, (f: (typeof tree.flows)[number]) => keyOf(f.target_table)],
  ] as const) {
    let frontier = [start];
    const seen = new Set(frontier);
    for (let level = 0; level < depth && frontier.length; level++) {
      const following: string[] = [];
      for (const id of frontier) {
        for (const f of index.get(id) ?? []) {
          kept.add(f);
          const n = next(f);
          if (!seen.has(n)) {
            seen.add(n);
            following.push(n);
          }
        }
      }
      frontier = following;
    }
  }
  add(tree.relative_table, tree.relative_table_cumulative_quality_status);
  for (const f of kept) {
    add(f.source_table, f.source_table_quality_status);
    add(f.target_table, f.target_table_quality_status);
  }
  // the focus table's own status, not the cumulative one, when a flow names it
  for (const f of kept) {
    if (keyOf(f.source_table) === start) nodes.get(start)!.status = statusOf(f.source_table_quality_status);
    if (keyOf(f.target_table) === start) nodes.get(start)!.status = statusOf(f.target_table_quality_status);
  }
  return { nodes: [...nodes.values()], edges: [...kept].map((f) => ({ from: keyOf(f.source_table), to: keyOf(f.target_table) })) };
}

/** Tables the picker lists at most (the API is asked for as many, matching the search). */
const PICKS = 50;

/**
 * A table picker: a search box (its text in the URL, `q`) and the matching tables, each a link to its lineage
 * graph. The server searches (`search`: every word in the name, case ignored) and sends one page of `PICKS`.
 */
export function LineagePicker({ location, current }: { location: Location; current?: string }) {
  const q = location.query.get('q') ?? '';
  const depth = Number(location.query.get('depth')) || undefined;
  const tables = useLoad(`lineage-tables:${q}`, (signal) => get<ObjectStatusList>(`/api/objects?kind=table&search=${encodeURIComponent(q)}&limit=${PICKS}`, { signal }));
  return (
    <section class="card picker" aria-labelledby="h-lineage-picker">
      <h2 id="h-lineage-picker">{current ? 'Another table' : 'Choose a table'}</h2>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Find a table
          <input type="search" value={q} placeholder="connection, schema or table name" onInput={(e) => setQueryParam('q', (e.currentTarget as HTMLInputElement).value)} />
        </label>
      </form>
      {current && q === '' ? null : (
        <Show loaded={tables} what="the tables">
          {(list) => {
            const matching = list.objects;
            if (matching.length === 0) return <Empty>{q ? `No table matches “${q}”.` : 'No table in the live store yet: apply a repository first.'}</Empty>;
            return (
              <>
                <ul class="picks" data-testid="lineage-picker">
                  {matching.map((t) => (
                    <li key={t.name}>
                      <a href={links.lineage(t.connection!, t.schema!, t.table!, depth)} aria-current={t.name === current ? 'page' : undefined}>
                        <Name text={t.name} />
                      </a>
                    </li>
                  ))}
                </ul>
                {matching.length === PICKS ? <p class="note">The first {PICKS} tables that match; type to narrow.</p> : null}
              </>
            );
          }}
        </Show>
      )}
    </section>
  );
}

/** GET /lineage: the picker alone, until a table is chosen. */
export function LineageIndex({ location }: { location: Location }) {
  return (
    <>
      <h1>Lineage</h1>
      <p>Choose a table to see the tables it is loaded from and the tables loaded from it, coloured by their data quality status.</p>
      <LineagePicker location={location} />
    </>
  );
}

export function Lineage({ location, connection, schema, table }: { location: Location; connection: string; schema: string; table: string }) {
  const depth = Math.max(1, Number(location.query.get('depth')) || 2);
  const url = `${tablePath(connection, schema, table)}/lineage/tree`;
  const loaded = useLoad(url, () => get<LineageTree>(url));
  return (
    <>
      <h1>
        Lineage of <Name text={`${connection}/${schema}.${table}`} />
      </h1>
      <p>
        <a href={links.table(connection, schema, table)}>← the table</a>
      </p>
      <LineagePicker location={location} current={`${connection}/${schema}.${table}`} />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Depth
          <select value={String(depth)} onChange={(e) => navigate(links.lineage(connection, schema, table, Number((e.currentTarget as HTMLSelectElement).value)), { replace: true })}>
            {DEPTHS.map((d) => (
              <option key={d} value={String(d)}>
                {d === 100 ? 'all' : `${d} step${d === 1 ? '' : 's'}`}
              </option>
            ))}
          </select>
        </label>
        <span class="legend" aria-label="colours">
          {QUALITY_ORDER.map((q) => (
            <span key={q} class={`status ${toneOfQuality(q)}`}>
              {QUALITY_WORDS[q]}
            </span>
          ))}
        </span>
      </form>
      <Show loaded={loaded} what="the lineage">
        {(tree) => <Graph tree={tree} depth={depth} />}
      </Show>
    </>
  );
}

function Graph({ tree, depth }: { tree: LineageTree; depth: number }) {
  const graph = useMemo(() => graphWithin(tree, depth), [tree, depth]);
  if (graph.edges.length === 0)
    return (
      <Section title="No lineage">
        <Empty>This table has no lineage: no table lists it as a source, and it lists none (a table’s file lists its sources under source_tables).</Empty>
      </Section>
    );
  return (
    <>
      <p role="status">
        {graph.nodes.length} tables, {graph.edges.length} flows. Click a table to open it.
      </p>
      <LineageGraph nodes={graph.nodes} edges={graph.edges} />
    </>
  );
}
