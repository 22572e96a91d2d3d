/**
 * A statechart as the Workflows viewer draws it (issue 7): state nodes with their nesting
 * (compound and parallel states, the initial child) and transitions labelled with their event,
 * guard and delay. Pure data: ./graph.ts reads it from an xstate machine, ./layout.ts lays it
 * out, ./views/StatechartDiagram.tsx draws it.
 */

export type StateKind = 'atomic' | 'compound' | 'parallel' | 'final' | 'history';

export interface StatechartNode {
  /** the state node's id, unique in the machine (e.g. `auth.authenticated.ready`) */
  id: string;
  /** its key within its parent (e.g. `ready`); the root's key is the machine id */
  key: string;
  parentId: string | null;
  kind: StateKind;
  /** the initial child of a compound parent */
  initial: boolean;
  /** a region of a parallel parent */
  region: boolean;
  tags: string[];
  description: string | null;
  /** actors invoked while in this state */
  invokes: string[];
  /** transitions without a target (actions only), drawn inside the state as labels */
  internal: string[];
}

export type TransitionKind = 'event' | 'after' | 'always' | 'done' | 'error';

export interface StatechartEdge {
  id: string;
  source: string;
  target: string;
  kind: TransitionKind;
  /** the event type as the machine receives it (`test.start`, `xstate.after.refreshInterval.flags.ready.idle`) */
  event: string;
  guard: string | null;
  /** for delayed transitions: the delay's name (a named delay) or null */
  delayName: string | null;
  /** for delayed transitions: the delay in milliseconds, when known */
  delayMs: number | null;
  /** what the diagram writes on the edge: `event [guard]`, `after 5m`, `always [guard]` */
  label: string;
}

export interface Statechart {
  /** the machine's id */
  id: string;
  /** the root node's id (the machine itself) */
  rootId: string;
  nodes: StatechartNode[];
  edges: StatechartEdge[];
}

// ---------------------------------------------------------------------------------------------
// A laid-out statechart (./layout.ts lays it out; the view draws it), absolute coordinates.

export interface Box { x: number; y: number; width: number; height: number }

export interface LaidOutNode extends Box {
  node: StatechartNode;
  depth: number;
}

export interface LaidOutEdge {
  edge: StatechartEdge;
  /** the polyline from the source to the target */
  points: { x: number; y: number }[];
  label: Box & { text: string };
}

export interface InitialMarker {
  /** the compound state whose initial child this marker points at */
  parentId: string;
  targetId: string;
  x: number; y: number; r: number;
  points: { x: number; y: number }[];
}

export interface LaidOutChart {
  width: number;
  height: number;
  nodes: LaidOutNode[];
  edges: LaidOutEdge[];
  initials: InitialMarker[];
}

/** Text sizes used by the view (a monospace-ish estimate: there is no text measuring in tests or Node). */
export const TEXT = { charWidth: 7, labelHeight: 16, headerHeight: 26, lineHeight: 15, padding: 10 };

export const textWidth = (text: string) => Math.ceil(text.length * TEXT.charWidth) + 8;

/** The lines an atomic state shows under its name: tags, invoked actors, targetless transitions. */
export function detailLines(node: StatechartNode): string[] {
  return [
    ...node.invokes.map((src) => `invoke ${src}`),
    ...node.internal,
    ...(node.tags.length ? [`tags: ${node.tags.join(', ')}`] : []),
  ];
}

export const INITIAL_MARKER_RADIUS = 6;

// ---------------------------------------------------------------------------------------------

/** `5m`, `1h 30m`, `5s`, `250ms`: a delay as a person reads it. */
export function formatDelay(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return String(ms);
  if (ms < 1000 || ms % 1000 !== 0) return `${ms}ms`;
  let rest = ms / 1000;
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join(' ');
}

/** The label of an edge: `event [guard]`, `after 5m [guard]`, `always [guard]`, `done: actor`. */
export function edgeLabel(edge: Pick<StatechartEdge, 'kind' | 'event' | 'guard' | 'delayName' | 'delayMs'>): string {
  const guard = edge.guard ? ` [${edge.guard}]` : '';
  switch (edge.kind) {
    case 'after': return `after ${edge.delayMs !== null ? formatDelay(edge.delayMs) : edge.delayName ?? '?'}${guard}`;
    case 'always': return `always${guard}`;
    case 'done': return `${eventName(edge.event)}${guard}`;
    case 'error': return `${eventName(edge.event)}${guard}`;
    default: return `${edge.event}${guard}`;
  }
}

/**
 * An event type as the diagram and the paths panel write it: xstate's own events are shortened
 * (`xstate.done.actor.snapshot` -> `done: snapshot`, `xstate.error.actor.x` -> `error: x`,
 * `xstate.after.<delay>.<state>` -> `after <delay>`); other events stay as they are.
 */
export function eventName(type: string, delays: Record<string, number | null> = {}): string {
  let m = /^xstate\.done\.actor\.(.+)$/.exec(type);
  if (m) return `done: ${m[1]}`;
  m = /^xstate\.error\.actor\.(.+)$/.exec(type);
  if (m) return `error: ${m[1]}`;
  m = /^xstate\.done\.state\.(.+)$/.exec(type);
  if (m) return `done: ${m[1]}`;
  m = /^xstate\.after\.([^.]+)\./.exec(type);
  if (m) {
    const delay = m[1]!;
    const ms = /^\d+$/.test(delay) ? Number(delay) : delays[delay] ?? null;
    return `after ${ms !== null ? formatDelay(ms) : delay}`;
  }
  return type;
}

/** Outgoing transitions of a state: its own edges and its targetless transitions, for the details panel. */
export function outgoing(chart: Statechart, stateId: string): { edges: StatechartEdge[]; internal: string[] } {
  const node = chart.nodes.find((n) => n.id === stateId);
  return { edges: chart.edges.filter((e) => e.source === stateId), internal: node?.internal ?? [] };
}

/** The state node ids from the root down to `stateId` (the states a transition from an ancestor also leaves). */
export function ancestry(chart: Statechart, stateId: string): string[] {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const chain: string[] = [];
  for (let n = byId.get(stateId); n; n = n.parentId ? byId.get(n.parentId) : undefined) chain.unshift(n.id);
  return chain;
}
