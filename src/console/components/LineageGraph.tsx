import dagre from '@dagrejs/dagre';
import { useEffect, useMemo } from 'preact/hooks';
import { links } from '../router';
import { QUALITY_WORDS, type QualityStatus } from '../words';

export interface GraphNode {
  id: string;
  connection: string;
  schema: string;
  table: string;
  status: QualityStatus;
  focus: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
}

const NODE_WIDTH = 220;
const NODE_HEIGHT = 46;
/**
 * Up to this many tables dagre sweeps the layers to minimise crossings; above, the tables keep the order of its
 * first pass (a depth-first walk from the sources): the sweeps took most of the layout of 500 tables (seconds),
 * and on wide layered graphs they also stretched the drawing to several times its height.
 */
const ORDER_SWEEPS_UP_TO = 150;

/** Lays the graph out with dagre (left to right: sources before targets) and draws it as SVG; each node is a link to its table. */
export function layoutGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]) {
  const g = new dagre.graphlib.Graph();
  // longest-path ranking: network-simplex (the default) takes tens of times longer on wide graphs (500 tables: seconds)
  g.setGraph({ rankdir: 'LR', nodesep: 14, ranksep: 60, marginx: 10, marginy: 10, ranker: 'longest-path' });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) g.setEdge(e.from, e.to);
  dagre.layout(g, { disableOptimalOrderHeuristic: nodes.length > ORDER_SWEEPS_UP_TO });
  const graph = g.graph();
  return {
    width: Math.max(1, graph.width ?? 0),
    height: Math.max(1, graph.height ?? 0),
    nodes: nodes.map((n) => ({ node: n, x: g.node(n.id).x, y: g.node(n.id).y })),
    edges: edges.map((e) => ({ edge: e, points: g.edge(e.from, e.to).points as Array<{ x: number; y: number }> })),
  };
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function LineageGraph({ nodes, edges }: { nodes: readonly GraphNode[]; edges: readonly GraphEdge[] }) {
  const layout = useMemo(() => {
    // marks for the benchmark (bench/console.ts): layout start, and the graph in the DOM below
    performance.mark('lineage-layout-start');
    return layoutGraph(nodes, edges);
  }, [nodes, edges]);
  useEffect(() => {
    performance.mark('lineage-drawn');
  }, [layout]);
  return (
    <div class="graph-scroll" tabIndex={0} role="region" aria-label="lineage graph">
      <svg width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`} data-testid="lineage-graph" role="group" aria-label={`${nodes.length} tables, ${edges.length} flows`}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead" />
          </marker>
        </defs>
        {layout.edges.map(({ edge, points }) => (
          <path key={`${edge.from}->${edge.to}`} class="edge" marker-end="url(#arrow)" d={points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' ')} />
        ))}
        {layout.nodes.map(({ node, x, y }) => (
          <a key={node.id} href={links.table(node.connection, node.schema, node.table)} class={`node node-${node.status}${node.focus ? ' focus' : ''}`} aria-label={`${node.id}: ${QUALITY_WORDS[node.status]}`}>
            <rect x={x - NODE_WIDTH / 2} y={y - NODE_HEIGHT / 2} width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} />
            <text x={x - NODE_WIDTH / 2 + 8} y={y - 5}>
              {shorten(`${node.schema}.${node.table}`, 30)}
            </text>
            <text x={x - NODE_WIDTH / 2 + 8} y={y + 13} class="sub">
              {shorten(node.connection, 16)} · {QUALITY_WORDS[node.status]}
            </text>
            <title>{`${node.id}: ${QUALITY_WORDS[node.status]}`}</title>
          </a>
        ))}
      </svg>
    </div>
  );
}
