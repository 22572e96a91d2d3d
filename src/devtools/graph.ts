/**
 * What the Workflows viewer and `npm run paths` read from a machine (issue 7).
 *
 * - `statechartOf(machine)`: the state nodes (nesting, parallel regions, initial children) and the
 *   transitions (event, guard name, delay, target) as plain data (./statechart.ts).
 * - `pathsOf(machine)`: the shortest and simple paths @xstate/graph generates, as the model-based
 *   tests use them (`createTestModel(...).getShortestPaths()` / `.getSimplePaths()`, which drop paths
 *   that are the start of a longer one). Simple paths grow exponentially with the graph, so they
 *   are counted first under a bound and only generated in full when they fit.
 * - `definitionJson(machine)`: the machine's configuration as JSON, for Stately Studio.
 *
 * The viewer knows nothing of the payloads a machine's events carry, so paths use every event a
 * state accepts with no payload (invocation results with an empty output or error). A guard that
 * needs a payload is then false, or, when it throws, the event is taken as not handled. The
 * model-based tests give real payloads, so they may reach more (or other) states than shown here.
 */
import { TestModel, getAdjacencyMap, type AdjacencyMap } from '@xstate/graph';
import {
  __unsafe_getAllOwnEventDescriptors, createEmptyActor, fromCallback, setup, type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode,
} from 'xstate';
import {
  edgeLabel, type StateKind, type Statechart, type StatechartEdge, type StatechartNode, type TransitionKind,
} from './statechart.ts';

// ---------------------------------------------------------------------------------------------
// The statechart

type Named = { type?: unknown; name?: unknown; guards?: unknown[] };

/** A guard's name as written in the machine: `hasTarget`, `!isEmpty`, `isA && isB`, or `inline`. */
export function guardName(guard: unknown): string | null {
  if (guard == null) return null;
  if (typeof guard === 'string') return guard;
  const g = guard as Named & { check?: unknown };
  if (typeof g !== 'function' && typeof g !== 'object') return 'inline';
  if (Array.isArray(g.guards) && typeof g.check === 'function') {
    const inner = g.guards.map((x) => guardName(x) ?? '?');
    if (g.name === 'not') return `!${inner[0]}`;
    if (g.name === 'and') return inner.join(' && ');
    if (g.name === 'or') return inner.join(' || ');
  }
  if (typeof g.type === 'string') return g.type;
  if (typeof g.name === 'string' && g.name && g.name !== 'guard') return g.name;
  return 'inline';
}

function actionName(action: unknown): string | null {
  if (typeof action === 'string') return action;
  const a = action as Named | null;
  if (a && typeof a.type === 'string' && !a.type.startsWith('xstate.')) return a.type;
  return null;
}

function kindOf(node: AnyStateNode): StateKind {
  if (node.type === 'parallel') return 'parallel';
  if (node.type === 'final') return 'final';
  if (node.type === 'history') return 'history';
  return Object.keys(node.states).length ? 'compound' : 'atomic';
}

function transitionKind(eventType: string): TransitionKind {
  if (eventType === '') return 'always';
  if (eventType.startsWith('xstate.after.')) return 'after';
  if (eventType.startsWith('xstate.done.')) return 'done';
  if (eventType.startsWith('xstate.error.')) return 'error';
  return 'event';
}

/** The named delays of a machine that are fixed numbers (a delay given as a function has no number). */
export function delaysOf(machine: AnyStateMachine): Record<string, number | null> {
  const delays = (machine.implementations?.delays ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(delays).map(([name, value]) => [name, typeof value === 'number' ? value : null]));
}

type TransitionDef = { eventType: string; target?: AnyStateNode[] | undefined; guard?: unknown; actions?: unknown[]; delay?: unknown };

export function statechartOf(machine: AnyStateMachine): Statechart {
  const delays = delaysOf(machine);
  const nodes: StatechartNode[] = [];
  const edges: StatechartEdge[] = [];

  const visit = (node: AnyStateNode, parent: AnyStateNode | null) => {
    const parentInitial = parent?.initial?.target?.[0];
    const own: TransitionDef[] = [
      ...[...(node.transitions as unknown as Map<string, TransitionDef[]>).values()].flat(),
      ...((node.always ?? []) as unknown as TransitionDef[]),
    ];
    const afterDelays = new Map(((node.after ?? []) as unknown as TransitionDef[]).map((t) => [t.eventType, t.delay]));
    const internal: string[] = [];
    own.forEach((t, index) => {
      const kind = transitionKind(t.eventType);
      const delay = afterDelays.get(t.eventType);
      const delayName = kind === 'after' ? String(delay ?? /^xstate\.after\.([^.]+)\./.exec(t.eventType)?.[1] ?? '') : null;
      const delayMs = kind !== 'after' ? null : typeof delay === 'number' ? delay : (delays[delayName!] ?? null);
      const guard = guardName(t.guard);
      const base = { kind, event: t.eventType === '' ? 'always' : t.eventType, guard, delayName, delayMs };
      const label = edgeLabel(base);
      if (!t.target?.length) {
        const actions = (t.actions ?? []).map(actionName).filter((a): a is string => !!a);
        internal.push(actions.length ? `${label} / ${actions.join(', ')}` : label);
        return;
      }
      t.target.forEach((target, targetIndex) => {
        edges.push({ id: `${node.id}:${index}:${targetIndex}`, source: node.id, target: target.id, ...base, label });
      });
    });
    nodes.push({
      id: node.id,
      key: parent ? node.key : machine.id,
      parentId: parent?.id ?? null,
      kind: kindOf(node),
      initial: !!parent && parent.type !== 'parallel' && parentInitial === node,
      region: parent?.type === 'parallel',
      tags: [...(node.tags ?? [])],
      description: node.description ?? null,
      invokes: (node.invoke ?? []).map((i: { src: unknown }) => String(i.src)),
      internal,
    });
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child, node);
  };
  visit(machine.root, null);
  return { id: machine.id, rootId: machine.root.id, nodes, edges };
}

/** How many states (state nodes below the machine) and transitions (with a target or not) a machine defines. */
export function sizeOf(chart: Statechart): { states: number; transitions: number } {
  return {
    states: chart.nodes.length - 1,
    transitions: chart.edges.length + chart.nodes.reduce((n, node) => n + node.internal.length, 0),
  };
}

// ---------------------------------------------------------------------------------------------
// Paths

export interface PathBounds {
  /** traversal stops (and paths are not generated) past this many distinct state configurations */
  maxStates: number;
  /** simple paths are generated only when there are at most this many (before dropping prefixes) */
  maxSimplePaths: number;
}

export const DEFAULT_BOUNDS: PathBounds = { maxStates: 400, maxSimplePaths: 2000 };

/** One step of a path: the event, and the guard that held for it (null: no guard held). */
export interface PathStep {
  type: string;
  guard: string | null;
}

export interface PathSummary {
  /** the state the path reaches, e.g. `authenticated.ready` or `ready.idle` */
  target: string;
  steps: PathStep[];
}

export interface MachinePaths {
  /** distinct state configurations reached from the initial state */
  reachableStates: number;
  /** transitions between different configurations */
  reachableTransitions: number;
  shortest: PathSummary[];
  /** null when there were too many simple paths to generate them (see simpleSkipped) */
  simple: PathSummary[] | null;
  /** why simple paths were not generated, for the screen and the script */
  simpleSkipped: string | null;
  /** why no paths could be generated at all (the graph is too big, or the machine failed) */
  error: string | null;
}

/** `authenticated.ready`, `ready.idle`, or `a.x + b.y` for parallel regions. */
export function formatStateValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!value || typeof value !== 'object') return String(value);
  const entries = Object.entries(value as Record<string, unknown>);
  const parts = entries.map(([key, child]) => {
    const inner = formatStateValue(child);
    return inner ? `${key}.${inner}` : key;
  });
  return parts.length > 1 ? parts.join(' + ') : parts[0] ?? '';
}

/** the guard the viewer's traversal lets hold for an event */
const GUARD_KEY = '@@guard';

type Config = Record<string, unknown>;

/**
 * The machine's structure without its behaviour: the same states, ids, events, targets and
 * delays, no actions and no context, and every guard replaced by "holds when the event says so".
 * Traversing it with one event per guard outcome reaches every branch the machine has, without
 * knowing the payloads its real guards read.
 */
export function skeletonOf(machine: AnyStateMachine): { machine: AnyStateMachine; guards: string[] } {
  const names = new Set<string>();
  const sources = new Set<string>();
  const transition = (t: unknown): unknown => {
    if (t === undefined || typeof t === 'string') return t;
    if (Array.isArray(t)) return t.map(transition);
    const { target, guard, reenter, description } = t as Config;
    const name = guardName(guard);
    if (name) names.add(name);
    return { target, reenter, description, ...(name ? { guard: name } : {}) };
  };
  const transitions = (on: unknown) => (on && typeof on === 'object'
    ? Object.fromEntries(Object.entries(on as Config).map(([event, t]) => [event, transition(t)]))
    : on);
  const invoke = (i: unknown): unknown => {
    if (Array.isArray(i)) return i.map(invoke);
    if (!i || typeof i !== 'object') return i;
    const { id, src, onDone, onError, onSnapshot } = i as Config;
    const name = typeof src === 'string' ? src : 'inline';
    sources.add(name);
    return {
      id, src: name,
      onDone: transition(onDone), onError: transition(onError), onSnapshot: transition(onSnapshot),
    };
  };
  const node = (config: Config): Config => {
    const { entry: _entry, exit: _exit, context: _context, output: _output, on, after, always, onDone, invoke: inv, states, ...rest } = config;
    return {
      ...rest,
      ...(on ? { on: transitions(on) } : {}),
      ...(after ? { after: transitions(after) } : {}),
      ...(always ? { always: transition(always) } : {}),
      ...(onDone ? { onDone: transition(onDone) } : {}),
      ...(inv ? { invoke: invoke(inv) } : {}),
      ...(states ? { states: Object.fromEntries(Object.entries(states as Record<string, Config>).map(([k, v]) => [k, node(v)])) } : {}),
    };
  };
  const config = node(machine.config as Config);
  const guards = [...names];
  const delays = Object.fromEntries(Object.entries(delaysOf(machine)).map(([k, v]) => [k, v ?? 1]));
  const skeleton = setup({
    // invoked actors are never started (the traversal runs no actions), but they must exist
    actors: Object.fromEntries([...sources].map((name) => [name, fromCallback(() => undefined)])),
    guards: Object.fromEntries(guards.map((g) => [g, ({ event }: { event: AnyEventObject }) => event[GUARD_KEY] === g])),
    delays,
  }).createMachine(config as never);
  return { machine: skeleton as unknown as AnyStateMachine, guards };
}

const serializeState = (s: AnyMachineSnapshot) => JSON.stringify([s.value, s.status]);

/**
 * The events to try in a state: each event type the state accepts, once with no guard holding
 * and once for each guard that leads elsewhere (only variants that reach different states are kept).
 */
function eventsIn(logic: AnyStateMachine, guards: string[]) {
  const scope = createEmptyActor() as never;
  return (snapshot: AnyMachineSnapshot): AnyEventObject[] => {
    if (snapshot.status !== 'active') return [];
    const scopeOf = { self: scope, logger: () => {}, id: '', sessionId: '', defer: () => {}, system: (scope as { system: unknown }).system, stopChild: () => {}, emit: () => {}, actionExecutor: () => {} };
    return __unsafe_getAllOwnEventDescriptors(snapshot)
      .filter((type) => !type.includes('*'))
      .flatMap((type) => {
        const seen = new Set<string>();
        const kept: AnyEventObject[] = [];
        for (const guard of [null, ...guards]) {
          const event = { type, [GUARD_KEY]: guard };
          const next = serializeState(logic.transition(snapshot, event, scopeOf as never));
          if (seen.has(next)) continue;
          seen.add(next);
          kept.push(event);
        }
        return kept;
      });
  };
}

/** The machine with a transition that treats anything that throws as "not handled". */
function tolerant(machine: AnyStateMachine): AnyStateMachine {
  const transition = machine.transition.bind(machine);
  return Object.create(machine, {
    transition: {
      value: (snapshot: AnyMachineSnapshot, event: AnyEventObject, scope: unknown) => {
        try {
          const next = transition(snapshot, event, scope as never);
          return next.status === 'error' ? snapshot : next;
        } catch {
          return snapshot;
        }
      },
    },
  }) as AnyStateMachine;
}

class TooBig extends Error {}

/** Counts simple paths from the initial state (as getSimplePaths enumerates them), giving up past `cap`. */
function countSimplePaths(adjacency: AdjacencyMap<AnyMachineSnapshot, AnyEventObject>, from: string, cap: number): number {
  let count = 0;
  const onPath = new Set<string>();
  const walk = (vertex: string) => {
    if (++count > cap) throw new TooBig();
    onPath.add(vertex);
    for (const { state } of Object.values(adjacency[vertex as keyof typeof adjacency]?.transitions ?? {})) {
      const next = serializeState(state);
      if (!onPath.has(next)) walk(next);
    }
    onPath.delete(vertex);
  };
  try {
    walk(from);
    return count;
  } catch (error) {
    if (error instanceof TooBig) return Infinity;
    throw error;
  }
}

const stepKey = (p: PathSummary) => p.steps.map((s) => `${s.type}[${s.guard ?? ''}]`).join(' ');

function summaries(paths: { state: AnyMachineSnapshot; steps: { event: AnyEventObject }[] }[]): PathSummary[] {
  return paths
    .map((p) => ({
      target: formatStateValue(p.state.value),
      steps: p.steps
        .filter((s) => s.event.type !== 'xstate.init')
        .map((s) => ({ type: s.event.type, guard: (s.event[GUARD_KEY] as string | null | undefined) ?? null })),
    }))
    .sort((a, b) => a.steps.length - b.steps.length || a.target.localeCompare(b.target) || stepKey(a).localeCompare(stepKey(b)));
}

/**
 * The shortest and simple paths of a machine, generated by @xstate/graph's TestModel (as the
 * model-based tests do) over the machine's skeleton, bounded: no paths past `maxStates`
 * configurations, no simple paths past `maxSimplePaths`.
 */
export function pathsOf(machine: AnyStateMachine, bounds: PathBounds = DEFAULT_BOUNDS): MachinePaths {
  let logic: AnyStateMachine;
  let guards: string[];
  try {
    const skeleton = skeletonOf(machine);
    logic = tolerant(skeleton.machine);
    guards = skeleton.guards;
  } catch (error) {
    const message = `The machine could not be traversed: ${(error as Error).message}`;
    return { reachableStates: 0, reachableTransitions: 0, shortest: [], simple: null, simpleSkipped: message, error: message };
  }
  const options = {
    events: eventsIn(logic, guards),
    serializeState,
    // each configuration is taken from the queue once per edge into it; past this, give up
    limit: bounds.maxStates * 64,
  };
  let adjacency: AdjacencyMap<AnyMachineSnapshot, AnyEventObject>;
  try {
    adjacency = getAdjacencyMap(logic, options as never) as typeof adjacency;
  } catch (error) {
    const message = (error as Error).message === 'Traversal limit exceeded'
      ? `The state graph is too big to traverse (more than ${bounds.maxStates} configurations).`
      : `The machine could not be traversed: ${(error as Error).message}`;
    return { reachableStates: 0, reachableTransitions: 0, shortest: [], simple: null, simpleSkipped: message, error: message };
  }
  const vertices = Object.keys(adjacency);
  let reachableTransitions = 0;
  for (const vertex of vertices) {
    for (const { state } of Object.values(adjacency[vertex as keyof typeof adjacency]!.transitions)) {
      if (serializeState(state) !== vertex) reachableTransitions += 1;
    }
  }
  if (vertices.length > bounds.maxStates) {
    const message = `The state graph is too big to list paths (${vertices.length} configurations; the limit is ${bounds.maxStates}).`;
    return { reachableStates: vertices.length, reachableTransitions, shortest: [], simple: null, simpleSkipped: message, error: message };
  }
  const model = new TestModel(logic, options as never);
  const shortest = summaries(model.getShortestPaths() as never);
  const count = countSimplePaths(adjacency, vertices[0]!, bounds.maxSimplePaths);
  const simpleSkipped = Number.isFinite(count)
    ? null
    : `Simple paths are not listed: there are more than ${bounds.maxSimplePaths} of them. The shortest paths reach every reachable state.`;
  const simple = simpleSkipped ? null : summaries(model.getSimplePaths() as never);
  return { reachableStates: vertices.length, reachableTransitions, shortest, simple, simpleSkipped, error: null };
}

// ---------------------------------------------------------------------------------------------
// Stately Studio

/**
 * The machine's configuration as JSON. Stately Studio imports it as code: paste it into
 * `createMachine(...)` in Studio's Import dialog. Named guards, actions, actors and delays keep
 * their names; inline functions become their name (`xstate.assign` for inline assignments);
 * the context factory and invocation inputs are left out (they are code, not structure).
 */
export function definitionJson(machine: AnyStateMachine): string {
  return JSON.stringify(machine.config, (key, value: unknown) => {
    if (typeof value !== 'function') return value;
    if (key === 'context' || key === 'input' || key === 'output') return undefined;
    const f = value as Named;
    if (typeof f.type === 'string') return f.type;
    return typeof f.name === 'string' && f.name ? f.name : 'inline';
  }, 2);
}
