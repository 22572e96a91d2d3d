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
import { expect } from 'vitest';
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
  return new TestModel(machine as unknown as ActorLogic<SnapshotFrom<M>, E, InputFrom<M>>, {
    stateMatcher: (state, key) => (state as { matches(value: string): boolean }).matches(key),
    ...options,
  });
}

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

/** Renders the view with `machine` and runs the path on it: each state asserted, each event done by the user or a fake. */
export async function runPath<M extends AnyStateMachine, R>(path: ModelPath<SnapshotFrom<M>>, machine: M, view: ModelView<M, R>): Promise<void> {
  const rendered = await view.render(machine, path);
  try {
    await path.test(view.params(rendered) as never);
  } finally {
    view.stop?.(rendered);
  }
}

/** how long a test waits for what the screen should show (tests/support/jsdomSetup.ts) */
export const EXPECTED_WAIT_MS = 15_000;
/** how long a path run to fail waits: Testing Library's default, as before the longer wait above */
export const FAILING_WAIT_MS = 1_000;

/**
 * Runs paths expected to fail (a proof that the suite can fail): each wait gives up after
 * FAILING_WAIT_MS, so a proof of many paths does not wait EXPECTED_WAIT_MS for each of them.
 */
export async function expectingFailure<T>(run: () => Promise<T>): Promise<T> {
  const before = getConfig().asyncUtilTimeout;
  configure({ asyncUtilTimeout: FAILING_WAIT_MS });
  try {
    return await run();
  } finally {
    configure({ asyncUtilTimeout: before });
  }
}

/** The machine with one guard answering `holds` (false by default) whatever it is asked. */
export function withBrokenGuard<M extends AnyStateMachine>(machine: M, guard: string, holds = false): M {
  const guards = (machine.implementations.guards ?? {}) as Record<string, unknown>;
  if (!(guard in guards)) throw new Error(`${machine.id} has no guard named ${guard} (it has ${Object.keys(guards).join(', ') || 'none'})`);
  return machine.provide({ guards: { [guard]: () => holds } } as never) as M;
}

/**
 * Proves the suite can fail: runs the paths (the correct machine's, which say what should show)
 * on the view rendered with the machine whose `guard` is broken, and expects at least one to fail,
 * or with `every`, each of them. Answers the failures.
 */
export async function expectBrokenGuardToFail<M extends AnyStateMachine, R>(
  machine: M,
  guard: string,
  { paths, view, holds = false, every = false }: { paths: readonly ModelPath<SnapshotFrom<M>>[]; view: ModelView<M, R>; holds?: boolean; every?: boolean },
): Promise<unknown[]> {
  // an empty list, or a path that is not there, would fail for no reason of the guard's
  expect(paths.length, 'paths to run with the broken guard').toBeGreaterThan(0);
  expect(paths.every((p) => typeof p?.test === 'function'), 'every path to run exists').toBe(true);
  const broken = withBrokenGuard(machine, guard, holds);
  const failures: unknown[] = [];
  await expectingFailure(async () => {
    for (const path of paths) {
      await runPath(path, broken, view).catch((error: unknown) => failures.push(error));
      cleanup();
    }
  });
  if (every) expect(failures.length, `paths that fail with ${guard} broken`).toBe(paths.length);
  else expect(failures.length, `paths that fail with ${guard} broken`).toBeGreaterThan(0);
  return failures;
}
