/**
 * Model-based tests of a formula's run history (src/machines/runHistory.ts) on the rendered screen:
 * the loading skeleton, the runs newest first (trigger, start, end, duration, attempts, counts per
 * stage, and the reason in words of a failed or retrying run), the empty state, a failure and its
 * retry, 'Show older runs' with the cursor (and its failure), and the not-found page.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { RunHistory, RunView } from '../../src/domain/api/formulas.ts';
import { runHistoryMachine, MORE_RUNS_ERROR, type RunPageRequest } from '../../src/machines/runHistory.ts';
import { RunHistoryPage } from '../../src/views/formulas/RunHistoryPage.tsx';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof runHistoryMachine>;

const FORMULA = '5b0c8a52-27a4-4c3e-9d0e-7a0f3d1b2c4e';
const run = (id: string, extra: Partial<RunView> = {}): RunView => ({
  id, kind: 'scheduled', status: 'finished', params: {}, error: null, retry: null, progress: null,
  counts: { collected: 200, 'bucket:new': 120, 'bucket:one-to-one-match': 75, 'bucket:validation-exception/Bad e-mail': 5, 'state:omitted': 3, created: 110, updated: 40, sentByHand: 30, refused: 2 },
  createdOn: '2026-11-20T06:30:00.000Z', startedOn: '2026-11-20T06:30:02.000Z', finishedOn: '2026-11-20T06:32:07.000Z', attempts: 1, ...extra,
});
const REASON = "Raiser's Edge NXT answered 503 Service Unavailable";
const PAGES: Record<string, RunHistory> = {
  runs: {
    runs: [
      run('r3', { kind: 'on-demand', status: 'retrying', error: REASON, finishedOn: null, attempts: 2, retry: { attempt: 2, of: 10, nextTryAt: '2026-11-20T09:04:00.000Z' }, counts: {} }),
      run('r2', { kind: 'file', status: 'errored', error: `${REASON} (gave up after 11 attempts)`, attempts: 11, counts: { collected: 4, 'bucket:new': 4 } }),
    ],
    nextCursor: 'cursor-2',
  },
  none: { runs: [], nextCursor: null },
};
const OLDER: RunHistory = { runs: [run('r1')], nextCursor: null };
const missing = Object.assign(new Error('not found'), { status: 404 });

const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.runs.length, s.context.nextCursor, s.context.moreError]);

const model = testModel(runHistoryMachine, {
  input: { formulaId: FORMULA },
  serializeState: serializeState as never,
  events: (s) => {
    const snap = s as Snap;
    if (snap.matches('loading')) {
      return [
        ...Object.values(PAGES).map((output) => ({ type: 'xstate.done.actor.loadPage', output })),
        { type: 'xstate.error.actor.loadPage', error: new Error('offline') },
        { type: 'xstate.error.actor.loadPage', error: missing },
      ] as never;
    }
    if (snap.matches('loadingMore')) return [{ type: 'xstate.done.actor.loadMore', output: OLDER }, { type: 'xstate.error.actor.loadMore', error: new Error('offline') }] as never;
    if (snap.matches('showing')) return [{ type: 'page.more' }] as never;
    if (snap.matches('failed')) return [{ type: 'list.reload' }] as never;
    return [];
  },
});

function renderHistory(machine: typeof runHistoryMachine) {
  const page = fakeCall<RunPageRequest, RunHistory>('load a page of runs');
  const formula = answeredCall(() => 'Spring appeal');
  const router = createMemoryRouter([
    { path: '/:formulaId/run-history', element: <RunHistoryPage formulaId={FORMULA} logic={machine.provide({ actors: { loadPage: page.logic, loadFormula: formula.logic } as never })} /> },
    { path: '*', element: <p>elsewhere</p> },
  ], { initialEntries: [`/${FORMULA}/run-history`] });
  render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
  return { page, router };
}

const view: ModelView<typeof runHistoryMachine, ReturnType<typeof renderHistory>> = {
  render: (machine) => renderHistory(machine),
  params: (r) => ({
    states: {
      loading: async () => { await screen.findByRole('status', { name: 'Loading runs' }); },
      failed: async () => { await screen.findByText('The run history could not be loaded'); },
      empty: async () => {
        await screen.findByText('This formula has not run yet.');
        expect(screen.queryByRole('list', { name: 'Runs' })).toBeNull();
      },
      formulaMissing: async () => { await screen.findByText("We can't find what you're looking for."); },
      showing: async (s) => {
        const { runs, nextCursor, moreError } = (s as Snap).context;
        await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading runs' })).toBeNull());
        expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Run history');
        await screen.findByText('Formula: Spring appeal');
        const cards = within(screen.getByRole('list', { name: 'Runs' })).getAllByTestId('run');
        // newest first, each by its trigger
        expect(cards.map((c) => within(c).getAllByText(/^(Schedule|Run now|Upload|Reprocess|Run once)$/)[0]!.textContent)).toEqual(
          runs.map((x) => ({ scheduled: 'Schedule', 'on-demand': 'Run now', file: 'Upload', reprocess: 'Reprocess', 'run-once': 'Run once' })[x.kind]),
        );
        const retrying = cards[0]!;
        expect(within(retrying).getByText('Retrying', { selector: '.mantine-Badge-label' })).toBeTruthy();
        expect(within(retrying).getByText(REASON)).toBeTruthy();
        expect(within(retrying).getByText(/^Attempt 2 of 10; next try at/)).toBeTruthy();
        expect(within(retrying).getByText('Not yet')).toBeTruthy();
        const failed = cards[1]!;
        expect(within(failed).getByRole('alert').textContent).toContain(`${REASON} (gave up after 11 attempts)`);
        expect(within(failed).getByText(/After 11 attempts/)).toBeTruthy();
        expect(within(failed).getByText('2 min 5 s')).toBeTruthy();
        if (runs.length > 2) {
          // the older run's counts per stage: collected, each bucket, omitted, sent (of which by hand), refused
          const counts = within(cards[2]!).getByRole('list', { name: 'Counts per stage' });
          expect(within(counts).getAllByRole('listitem').map((b) => b.textContent)).toEqual([
            '200 collected', 'New: 120', 'One-to-one match: 75', 'Validation: Bad e-mail: 5', 'Omitted: 3', '150 sent (30 by hand)', '2 refused',
          ]);
        }
        expect(!!screen.queryByRole('button', { name: 'Show older runs' })).toBe(nextCursor !== null);
        expect(!!screen.queryByText(MORE_RUNS_ERROR)).toBe(moreError !== null);
      },
      loadingMore: async () => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Show older runs' }).getAttribute('data-loading')).toBe('true'));
      },
    },
    events: {
      'xstate.done.actor.loadPage': async (step) => {
        expect((await r.page.called())).toEqual({ formulaId: FORMULA, cursor: null });
        await r.page.answer(step.event);
      },
      'xstate.error.actor.loadPage': (step) => r.page.answer(step.event),
      'xstate.done.actor.loadMore': async (step) => {
        // older runs are asked for with the cursor of the last page
        expect((await r.page.called()).cursor).toBe('cursor-2');
        await r.page.answer(step.event);
      },
      'xstate.error.actor.loadMore': (step) => r.page.answer(step.event),
      'list.reload': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Try again' })); },
      'page.more': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Show older runs' })); },
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const stepName = (e: { type: string }) => e.type.replace('xstate.', '');

describe('Run history (run-history shortest paths on the rendered screen)', () => {
  it.each(named(paths, (p) => p.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => stepName(s.event)).join(' → ')))('%s', async (_name, path) => {
    await runPath(path, runHistoryMachine, view);
  });
});

describe('the suite can fail', () => {
  it('notices older runs offered but never loaded when the guard is broken', async () => {
    const more = paths.filter((p) => p.steps.some((st) => st.event.type === 'page.more'));
    await expectBrokenGuardToFail(runHistoryMachine, 'hasMorePages', { paths: more, view, every: true });
  });
  it('notices an empty history shown as runs when the guard is broken', async () => {
    const empty = paths.filter((p) => p.steps.some((st) => (st.event as { output?: RunHistory }).output === PAGES.none));
    await expectBrokenGuardToFail(runHistoryMachine, 'hasRuns', { paths: empty, view, holds: true, every: true });
  });
});
