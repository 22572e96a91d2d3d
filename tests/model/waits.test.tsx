/**
 * How long the model tests wait for a screen (tests/support/jsdomSetup.ts): on a busy machine a
 * screen can take well over a second to show what it will show, and a test waits for it; a path
 * run to prove the suite can fail gives up after a second, as Testing Library does by default, or
 * sooner when the path's own run, on the correct machine, showed each thing in far less.
 */
import { useEffect, useState } from 'react';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import {
  EXPECTED_WAIT_MS, expectingFailure, FAILING_WAIT_MS, PROOF_WAIT_FACTOR, PROOF_WAIT_MIN_MS, proofWait, proofWaitOf, runPath, testModel, type ModelView,
} from '../support/modelPaths.ts';

afterEach(() => cleanup());

/** a screen that shows its text after `ms`, as a slow machine would */
function Late({ ms }: { ms: number }) {
  const [shown, setShown] = useState(false);
  useEffect(() => { const t = setTimeout(() => setShown(true), ms); return () => clearTimeout(t); }, [ms]);
  return shown ? <p>Ready</p> : <p>Loading</p>;
}

describe('waiting for a screen', () => {
  it('waits for a screen slower than Testing Library\'s default second', async () => {
    render(<Late ms={2_500} />);
    expect(await screen.findByText('Ready')).toBeTruthy();
    await waitFor(() => expect(screen.queryByText('Loading')).toBeNull());
  });

  it('gives up after a second on a path run to fail, and waits as long as before afterwards', async () => {
    expect(EXPECTED_WAIT_MS).toBeGreaterThan(FAILING_WAIT_MS);
    render(<Late ms={60_000} />);
    const started = Date.now();
    await expectingFailure(() => expect(screen.findByText('Ready')).rejects.toThrow());
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(FAILING_WAIT_MS);
    expect(waited).toBeLessThan(EXPECTED_WAIT_MS);
    cleanup();
    render(<Late ms={2_500} />);
    expect(await screen.findByText('Ready')).toBeTruthy();
  });
});

describe('how long a proof waits on a path', () => {
  const lateMachine = createMachine({ id: 'late', initial: 'loading', states: { loading: { on: { shown: 'ready' } }, ready: {} } });
  const [toReady] = testModel(lateMachine, { events: [{ type: 'shown' }] }).getShortestPaths().filter((p) => p.state.matches('ready'));
  /** the late screen, showing its text after `ms`; the path waits for it */
  const late = (ms: number): ModelView<typeof lateMachine, void> => ({
    render: () => { render(<Late ms={ms} />); },
    params: () => ({ states: { ready: async () => { await screen.findByText('Ready'); } } }),
  });

  it('is ten times the longest wait of the path\'s own passing run, at least a quarter second and at most a second', () => {
    expect(proofWait(undefined)).toBe(FAILING_WAIT_MS);
    expect(proofWait(0)).toBe(PROOF_WAIT_MIN_MS);
    expect(proofWait(40)).toBe(40 * PROOF_WAIT_FACTOR);
    expect(proofWait(FAILING_WAIT_MS / 2)).toBe(FAILING_WAIT_MS);
  });

  it('counts only a run that passed outside a proof, and its longest wait', async () => {
    expect(proofWaitOf(toReady!)).toBe(FAILING_WAIT_MS);
    // a run expected to fail says nothing of what the correct machine needs, even when it passes
    await expectingFailure(() => runPath(toReady!, lateMachine, late(0)));
    cleanup();
    expect(proofWaitOf(toReady!)).toBe(FAILING_WAIT_MS);
    // a run that fails says nothing either
    await expect(expectingFailure(() => runPath(toReady!, lateMachine, late(60_000)), 100)).rejects.toThrow();
    cleanup();
    expect(proofWaitOf(toReady!)).toBe(FAILING_WAIT_MS);
    await runPath(toReady!, lateMachine, late(0));
    cleanup();
    const quick = proofWaitOf(toReady!);
    expect(quick).toBeGreaterThanOrEqual(PROOF_WAIT_MIN_MS);
    // a slower run of the same path raises it: the longest of its passing runs counts
    await runPath(toReady!, lateMachine, late(FAILING_WAIT_MS / PROOF_WAIT_FACTOR + 50));
    expect(proofWaitOf(toReady!)).toBe(FAILING_WAIT_MS);
  });
});
