/**
 * Model-based tests, the common part (DESIGN.md section 3): the test model of a machine, the
 * states its paths reach, one path run against the rendered view, and the proof that a suite can
 * fail (a guard broken on purpose makes paths fail).
 *
 * A test file describes its view once (`ModelView`: render it with a machine, and the assertions
 * per state and user actions per event for what was rendered), then runs each path with
 * `runPath(path, machine, view)`, and the same paths with a broken guard with
 * `expectBrokenGuardToFail(machine, guard, { paths, view })`.
 *
 * tests/unit/machineCoverage.test.ts counts `testModel(<machine export>` as a model built from
 * that machine.
 */
import { cleanup, configure, getConfig } from '@testing-library/react';
import { TestModel, type TestModelOptions, type TestParam } from '@xstate/graph';
import { expect, vi } from 'vitest';
import { initialTransition, transition } from 'xstate';
import type { ActorLogic, AnyEventObject, AnyStateMachine, EventFromLogic, EventObject, InputFrom, SnapshotFrom } from 'xstate';

/** the paths a model generates, as far as these helpers read them */
export interface ModelPath<S> {
  state: S;
  steps: { state: S; event: EventObject }[];
  description: string;
  test(params: never): Promise<unknown>;
}

/**
 * `new TestModel(machine, options)`, matching states with the machine's own `matches` (keys such
 * as `authenticated.ready`). createTestModel refuses machines that invoke actors; the traversal
 * never starts them (it computes snapshots only), so TestModel is built directly. `E` names the
 * model's events when they go beyond the machine's own (the answers of invoked actors).
 */
export function testModel<M extends AnyStateMachine, E extends EventObject = EventFromLogic<M>>(
  machine: M,
  options: Partial<TestModelOptions<SnapshotFrom<M>, E, InputFrom<M>>> = {},
): TestModel<SnapshotFrom<M>, E, InputFrom<M>> {
  const model = new TestModel(machine as unknown as ActorLogic<SnapshotFrom<M>, E, InputFrom<M>>, {
    stateMatcher: (state, key) => (state as { matches(value: string): boolean }).matches(key),
    ...options,
  });
  // each path the model makes remembers the input its machine starts from, so that a proof can
  // tell whether a broken machine starts otherwise (firstStepChangedBy)
  const internals = model as unknown as { _toTestPath: (path: unknown) => object };
  const toTestPath = internals._toTestPath;
  internals._toTestPath = (path) => {
    const testPath = toTestPath(path);
    startOf.set(testPath, { input: options.input });
    return testPath;
  };
  return model;
}

/** the input of the machine each path of `testModel` starts from */
const startOf = new WeakMap<object, { input: unknown }>();

/**
 * Every state the paths pass through, serialized (`JSON.stringify` of the value by default). A
 * path that is the start of a longer one is left out of the generated paths, so the states on the
 * way count, not only where each path ends.
 */
export function reachedStates<S>(paths: readonly { state: S; steps: readonly { state: S }[] }[], serialize: (state: S) => string = (s) => JSON.stringify((s as { value: unknown }).value)): Set<string> {
  return new Set(paths.flatMap((p) => [...p.steps.map((step) => step.state), p.state]).map(serialize));
}

/** `[name, path]` pairs for `it.each`: the path's description, or a shorter name. */
export function named<P extends { description: string }>(paths: readonly P[], nameOf: (path: P) => string = (p) => p.description): [string, P][] {
  return paths.map((p) => [nameOf(p), p]);
}

/** The rendered view a machine's paths run on. */
export interface ModelView<M extends AnyStateMachine, R> {
  /** renders the view with this machine (fakes provided), for this path */
  render(machine: M, path: ModelPath<SnapshotFrom<M>>): R | Promise<R>;
  /** what each state shows and what each event does, on what was rendered */
  params(rendered: R): TestParam<SnapshotFrom<M>, AnyEventObject>;
  /** stops what the render started beyond React (actors, timers) */
  stop?(rendered: R): void;
}

/**
 * Renders the view with `machine` and runs the path on it: each state asserted, each event done by
 * the user or a fake. A run that passes, outside a proof, remembers its longest wait (proofWaitOf).
 */
export async function runPath<M extends AnyStateMachine, R>(path: ModelPath<SnapshotFrom<M>>, machine: M, view: ModelView<M, R>): Promise<void> {
  const longest = await timingWaits(async () => {
    const rendered = await view.render(machine, path);
    try {
      await path.test(view.params(rendered) as never);
    } finally {
      view.stop?.(rendered);
    }
  });
  if (!failing) longestWaitOf.set(path, Math.max(longest, longestWaitOf.get(path) ?? 0));
}

/** the longest wait (findBy…, waitFor) of each path's passing run in this file, in ms */
const longestWaitOf = new WeakMap<object, number>();
/** the clock as it is before a test fakes timers (vi.useFakeTimers can fake `performance` too) */
const now = performance.now.bind(performance);

/** Runs `run` and answers how long its longest wait (findBy…, waitFor) took, in ms. */
async function timingWaits(run: () => Promise<void>): Promise<number> {
  const { asyncWrapper } = getConfig();
  let longest = 0;
  configure({
    asyncWrapper: async (cb) => {
      // user-event wraps its actions here too: they wait for nothing and take no timeout
      if (new Error().stack?.includes('user-event')) return asyncWrapper(cb);
      const started = now();
      try {
        return await asyncWrapper(cb);
      } finally {
        longest = Math.max(longest, now() - started);
      }
    },
  });
  try {
    await run();
  } finally {
    configure({ asyncWrapper });
  }
  return longest;
}

/** how long a test waits for what the screen should show (tests/support/jsdomSetup.ts) */
export const EXPECTED_WAIT_MS = 15_000;
/**
 * how long a path run to fail waits: Testing Library's default, as before the longer wait above.
 * A shorter wait proves nothing alone (a screen slow to show what it will show fails it too); to
 * count, the correct machine has to pass the same steps under it: a second render of each path
 * costs about what the shorter wait saves (measured on the proofs of sandboxImport, userForm and
 * connectionForm), but the path's own test has run them already (proofWaitOf).
 */
export const FAILING_WAIT_MS = 1_000;
/**
 * A proof's path that ran and passed on the correct machine earlier in the file (its own test)
 * waits PROOF_WAIT_FACTOR times that run's longest wait instead, at least PROOF_WAIT_MIN_MS and at
 * most FAILING_WAIT_MS: the correct machine met every wait of the same steps in that time, in the
 * same run on the same machine, so a broken one that does not show it by then fails for what was
 * broken. A proof's failing paths spent most of its time waiting their second each (81 s of the
 * model project's waiting, measured on a busy machine).
 */
export const PROOF_WAIT_FACTOR = 10;
export const PROOF_WAIT_MIN_MS = 250;

/** how long a proof waits on a path whose passing run waited `longest` ms at most (undefined: none passed) */
export function proofWait(longest: number | undefined): number {
  return longest === undefined ? FAILING_WAIT_MS : Math.min(FAILING_WAIT_MS, Math.max(PROOF_WAIT_MIN_MS, PROOF_WAIT_FACTOR * longest));
}

/** how long a proof's run of `path` waits (proofWait of its passing runs in this file) */
export function proofWaitOf(path: object): number {
  // under fake timers a wait's timeout is counted in the time the test lets pass, not in what the run took
  return proofWait(vi.isFakeTimers() ? undefined : longestWaitOf.get(path));
}

/** whether paths run now are expected to fail (expectingFailure): their waits say nothing of the correct machine */
let failing = false;

/**
 * Runs paths expected to fail (a proof that the suite can fail): each wait gives up after `waitMs`
 * (FAILING_WAIT_MS by default), so a proof of many paths does not wait EXPECTED_WAIT_MS for each of them.
 */
export async function expectingFailure<T>(run: () => Promise<T>, waitMs = FAILING_WAIT_MS): Promise<T> {
  const before = getConfig().asyncUtilTimeout;
  const wasFailing = failing;
  configure({ asyncUtilTimeout: waitMs });
  failing = true;
  try {
    return await run();
  } finally {
    configure({ asyncUtilTimeout: before });
    failing = wasFailing;
  }
}

/** The machine with one guard answering `holds` (false by default) whatever it is asked. */
export function withBrokenGuard<M extends AnyStateMachine>(machine: M, guard: string, holds = false): M {
  const guards = (machine.implementations.guards ?? {}) as Record<string, unknown>;
  if (!(guard in guards)) throw new Error(`${machine.id} has no guard named ${guard} (it has ${Object.keys(guards).join(', ') || 'none'})`);
  return machine.provide({ guards: { [guard]: () => holds } } as never) as M;
}

/** Two snapshots' data alike: functions count as alike (they are not compared), actors by their id. */
function alike(a: unknown, b: unknown, seen = new Map<object, object>()): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a === 'function' && typeof b === 'function') return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if ('sessionId' in a && 'sessionId' in b) return (a as unknown as { id: unknown }).id === (b as unknown as { id: unknown }).id;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && alike((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], seen));
}
type AnySnapshot = { status: string; value: unknown; context: unknown; output?: unknown };
/** a transition's outcome: the snapshot it leads to and the actions it does beyond the snapshot (sending, emitting, …) */
type Outcome = [AnySnapshot, { type: string; params?: unknown }[]];
const sameOutcome = ([a, aDoes]: Outcome, [b, bDoes]: Outcome) => a.status === b.status && alike(a.value, b.value) && alike(a.context, b.context)
  && alike(a.output, b.output) && alike(aDoes.map((x) => [x.type, x.params]), bDoes.map((x) => [x.type, x.params]));

/**
 * Where a path crosses what `broken` changes: the index in `path.steps` of the first step that
 * `broken` decides otherwise than `machine` (0: it starts otherwise), or undefined when no step
 * does. A step is decided otherwise when it ends in another snapshot or does other actions beyond
 * it (sending, emitting, …), or, for a broken `guard`, when the guard answered the step otherwise
 * than the broken one does (it chose another transition, whose difference may show only where the
 * rendered view gives the machine more, a parent to tell, than the model does). Each step is
 * replayed from the correct machine's snapshot on both machines (xstate's `transition`: nothing is
 * started, no action is done). A path that did not come from `testModel` may start otherwise for
 * all the helper knows (0).
 */
export function firstStepChangedBy<M extends AnyStateMachine>(machine: M, broken: M, path: ModelPath<SnapshotFrom<M>>, guard?: { name: string; holds: boolean }): number | undefined {
  const start = startOf.get(path);
  if (!start) return 0;
  let decided = false;
  const answer = guard && (machine.implementations.guards as Record<string, unknown> | undefined)?.[guard.name];
  const watched: AnyStateMachine = guard && typeof answer === 'function' ? machine.provide({
    guards: { [guard.name]: (...args: unknown[]) => { const holds = answer(...args) as unknown; if (!!holds !== guard.holds) decided = true; return holds; } },
  } as never) : machine;
  const startOn = (logic: AnyStateMachine) => initialTransition(logic, start.input as never) as unknown as Outcome;
  if (!sameOutcome(startOn(watched), startOn(broken)) || decided) return 0;
  for (let i = 1; i < path.steps.length; i++) {
    // the same state on each machine (a snapshot answers to the machine that made it: its guards, its actions)
    const { value, context, status, output } = path.steps[i - 1]!.state as AnySnapshot;
    const before = { value, context, status, output } as never;
    const event = path.steps[i]!.event as never;
    const next = (logic: AnyStateMachine) => transition(logic, logic.resolveState(before) as never, event) as unknown as Outcome;
    if (!sameOutcome(next(watched), next(broken)) || decided) return i;
  }
  return undefined;
}

/**
 * Proves the suite can fail: runs the paths (the correct machine's, which say what should show)
 * on the view rendered with `broken` (the machine with something broken on purpose, `what`), and
 * expects at least one to fail, or with `every`, each of them. Only a path that crosses what was
 * broken (firstStepChangedBy) can fail because of it: with `every`, each path given must cross it;
 * without, the paths that cross it run until one fails. `guard`: the guard broken, whose answers
 * count (firstStepChangedBy). Answers the failures.
 */
export async function expectBrokenMachineToFail<M extends AnyStateMachine, R>(
  machine: M,
  broken: M,
  what: string,
  { paths, view, every = false, guard }: { paths: readonly ModelPath<SnapshotFrom<M>>[]; view: ModelView<M, R>; every?: boolean; guard?: { name: string; holds: boolean } },
): Promise<unknown[]> {
  // an empty list, or a path that is not there, would fail for no reason of what was broken
  expect(paths.length, 'paths to run with the broken machine').toBeGreaterThan(0);
  expect(paths.every((p) => typeof p?.test === 'function'), 'every path to run exists').toBe(true);
  const crossing = paths.filter((p) => firstStepChangedBy(machine, broken, p, guard) !== undefined);
  if (every) expect(paths.filter((p) => !crossing.includes(p)).map((p) => p.description), `paths that do not cross ${what}`).toEqual([]);
  else expect(crossing.length, `paths that cross ${what}`).toBeGreaterThan(0);
  const failures: unknown[] = [];
  for (const path of crossing) {
    await expectingFailure(() => runPath(path, broken, view), proofWaitOf(path)).catch((error: unknown) => failures.push(error));
    cleanup();
    if (failures.length && !every) break;
  }
  if (every) expect(failures.length, `paths that fail with ${what}`).toBe(paths.length);
  else expect(failures.length, `paths that fail with ${what}`).toBeGreaterThan(0);
  return failures;
}

/** expectBrokenMachineToFail with one guard broken (withBrokenGuard). */
export async function expectBrokenGuardToFail<M extends AnyStateMachine, R>(
  machine: M,
  guard: string,
  { paths, view, holds = false, every = false }: { paths: readonly ModelPath<SnapshotFrom<M>>[]; view: ModelView<M, R>; holds?: boolean; every?: boolean },
): Promise<unknown[]> {
  return expectBrokenMachineToFail(machine, withBrokenGuard(machine, guard, holds), `${guard} broken`, { paths, view, every, guard: { name: guard, holds } });
}
