/**
 * How long the model tests wait for a screen (tests/support/jsdomSetup.ts): on a busy machine a
 * screen can take well over a second to show what it will show, and a test waits for it; a path
 * run to prove the suite can fail gives up after a second, as Testing Library does by default.
 */
import { useEffect, useState } from 'react';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { EXPECTED_WAIT_MS, expectingFailure, FAILING_WAIT_MS } from '../support/modelPaths.ts';

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
