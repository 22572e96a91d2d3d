/**
 * Lays a statechart out with ELK (elkjs, the Eclipse Layout Kernel; its bundled build runs in
 * the browser and in Node without a worker). States are ELK nodes, compound and parallel states
 * hold their children (hierarchy handled by ELK's layered algorithm across levels), each
 * compound state gets a small initial-state marker node with an edge to its initial child, and
 * each transition is an edge carrying its label ("event [guard]", "after 5m"). The answer is in
 * absolute coordinates, ready to draw as SVG.
 */
import ELK, { type ElkExtendedEdge, type ElkNode } from 'elkjs/lib/elk.bundled.js';
import {
  INITIAL_MARKER_RADIUS as INITIAL_R, TEXT, detailLines, textWidth,
  type Box, type InitialMarker, type LaidOutChart, type LaidOutEdge, type LaidOutNode, type Statechart, type StatechartNode,
} from './statechart.ts';

const initialId = (parentId: string) => `${parentId}::initial`;

/** The ELK graph for a statechart (exported for tests and for anyone who wants ELK's own input). */
export function elkGraphOf(chart: Statechart): ElkNode {
  const children = new Map<string, StatechartNode[]>();
  for (const n of chart.nodes) if (n.parentId) children.set(n.parentId, [...(children.get(n.parentId) ?? []), n]);

  const edges: ElkExtendedEdge[] = chart.edges.map((e) => ({
    id: e.id,
    sources: [e.source],
    targets: [e.target],
    labels: [{ id: `${e.id}::label`, text: e.label, width: textWidth(e.label), height: TEXT.labelHeight }],
  }));

  const toElk = (n: StatechartNode): ElkNode => {
    const kids = children.get(n.id) ?? [];
    const lines = detailLines(n);
    const headerWidth = Math.max(textWidth(n.key) + 2 * TEXT.padding, ...lines.map((l) => textWidth(l) + 2 * TEXT.padding), 60);
    if (!kids.length) {
      return { id: n.id, width: headerWidth, height: TEXT.headerHeight + lines.length * TEXT.lineHeight + (lines.length ? 6 : 0) };
    }
    const initial = kids.find((k) => k.initial);
    const marker: ElkNode[] = initial ? [{ id: initialId(n.id), width: 2 * INITIAL_R, height: 2 * INITIAL_R }] : [];
    if (initial) edges.push({ id: `${initialId(n.id)}::edge`, sources: [initialId(n.id)], targets: [initial.id] });
    const top = TEXT.headerHeight + lines.length * TEXT.lineHeight + 8;
    return {
      id: n.id,
      layoutOptions: {
        'elk.padding': `[top=${top},left=14,bottom=14,right=14]`,
        'elk.nodeSize.constraints': 'MINIMUM_SIZE',
        'elk.nodeSize.minimum': `(${headerWidth}, ${top + 20})`,
        // the regions of a parallel state sit side by side
        ...(n.kind === 'parallel' ? { 'elk.direction': 'DOWN' } : {}),
      },
      children: [...marker, ...kids.map(toElk)],
    };
  };

  const root = chart.nodes.find((n) => n.id === chart.rootId)!;
  return {
    id: '::graph',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.edgeRouting': 'POLYLINE',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.spacing.nodeNodeBetweenLayers': '48',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeLabel': '4',
      'elk.spacing.edgeNode': '16',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.padding': '[top=12,left=12,bottom=12,right=12]',
    },
    children: [toElk(root)],
    edges,
  };
}

let elk: InstanceType<typeof ELK> | null = null;

/** Lays the statechart out (asynchronous: ELK's API is). */
export async function layoutStatechart(chart: Statechart): Promise<LaidOutChart> {
  elk ??= new ELK();
  const graph = elkGraphOf(chart);
  const laid = await elk.layout(graph);

  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const origin = new Map<string, { x: number; y: number }>([['::graph', { x: 0, y: 0 }]]);
  const nodes: LaidOutNode[] = [];
  const markers = new Map<string, Box>();
  const walk = (n: ElkNode, ox: number, oy: number, depth: number) => {
    for (const c of n.children ?? []) {
      const x = ox + (c.x ?? 0);
      const y = oy + (c.y ?? 0);
      origin.set(c.id, { x, y });
      const state = byId.get(c.id);
      if (state) nodes.push({ node: state, x, y, width: c.width ?? 0, height: c.height ?? 0, depth });
      else markers.set(c.id, { x, y, width: c.width ?? 0, height: c.height ?? 0 });
      walk(c, x, y, depth + 1);
    }
  };
  walk(laid, 0, 0, 0);

  const edgesById = new Map(chart.edges.map((e) => [e.id, e]));
  const edges: LaidOutEdge[] = [];
  const initials: InitialMarker[] = [];
  const collect = (n: ElkNode) => {
    for (const e of n.edges ?? []) {
      // coordinates of an edge are relative to its container (ELK sets it on hierarchy-crossing edges)
      const o = origin.get(e.container ?? n.id) ?? { x: 0, y: 0 };
      const points = (e.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint])
        .map((p) => ({ x: p.x + o.x, y: p.y + o.y }));
      const edge = edgesById.get(e.id);
      if (edge) {
        const l = e.labels?.[0];
        const label = l
          ? { text: edge.label, x: (l.x ?? 0) + o.x, y: (l.y ?? 0) + o.y, width: l.width ?? 0, height: l.height ?? 0 }
          : { text: edge.label, ...midpoint(points), width: textWidth(edge.label), height: TEXT.labelHeight };
        edges.push({ edge, points, label });
      } else if (e.id.endsWith('::initial::edge')) {
        const parentId = e.id.slice(0, -'::initial::edge'.length);
        const m = markers.get(initialId(parentId))!;
        initials.push({ parentId, targetId: e.targets[0]!, x: m.x + m.width / 2, y: m.y + m.height / 2, r: INITIAL_R, points });
      }
    }
    for (const c of n.children ?? []) collect(c);
  };
  collect(laid);
  return { width: laid.width ?? 0, height: laid.height ?? 0, nodes, edges, initials };
}

function midpoint(points: { x: number; y: number }[]) {
  const p = points[Math.floor(points.length / 2)] ?? { x: 0, y: 0 };
  return { x: p.x, y: p.y };
}
