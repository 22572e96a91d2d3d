/**
 * A formula's run history: its runs, newest first, a page at a time by the runs API's cursor
 * ("Show older runs"), each with its trigger, start, end, counts, status and, for a failed or
 * retrying run, the reason and attempts. A page of older runs that fails to load keeps those shown.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { RunHistory, RunView } from '../domain/api/formulas.ts';
import { formulaDisplayName } from '../domain/formula/formula.ts';
import { formulas } from '../services/formulas.ts';

export interface RunHistoryInput { formulaId: string }

export interface RunHistoryContext {
  formulaId: string;
  formulaName: string | null;
  runs: RunView[];
  nextCursor: string | null;
  /** older runs that could not be loaded */
  moreError: string | null;
}

export type RunHistoryEvent = { type: 'page.more' } | { type: 'list.reload' };

export interface RunPageRequest { formulaId: string; cursor: string | null }

export const MORE_RUNS_ERROR = 'Older runs could not be loaded.';

export const runHistoryMachine = setup({
  types: { context: {} as RunHistoryContext, events: {} as RunHistoryEvent, input: {} as RunHistoryInput },
  actors: {
    /** the formula's name for the header: the runs show without it */
    loadFormula: fromPromise<string | null, { formulaId: string }>(async ({ input }) => {
      const formula = await formulas.get(input.formulaId, { silent: true }).catch(() => null);
      return formula ? formulaDisplayName(formula) : null;
    }),
    loadPage: fromPromise<RunHistory, RunPageRequest>(async ({ input }) => formulas.runs(input.formulaId, input.cursor, { silent: true })),
  },
  guards: {
    hasMorePages: ({ context }) => context.nextCursor !== null,
    hasRuns: ({ event }) => ((event as { output?: RunHistory }).output?.runs.length ?? 0) > 0,
    /** the runs API answers 404 only for a formula this tenant does not have */
    isFormulaMissing: ({ event }) => (event as { error?: { status?: number } }).error?.status === 404,
  },
}).createMachine({
  id: 'runHistory',
  initial: 'loading',
  context: ({ input }) => ({ formulaId: input.formulaId, formulaName: null, runs: [], nextCursor: null, moreError: null }),
  invoke: {
    id: 'loadFormula',
    src: 'loadFormula',
    input: ({ context }) => ({ formulaId: context.formulaId }),
    onDone: { actions: assign(({ event }) => ({ formulaName: event.output })) },
  },
  states: {
    loading: {
      entry: assign({ runs: [], nextCursor: null, moreError: null }),
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => ({ formulaId: context.formulaId, cursor: null }),
        onDone: [
          { guard: 'hasRuns', target: 'showing', actions: assign(({ event }) => ({ runs: event.output.runs, nextCursor: event.output.nextCursor })) },
          { target: 'empty' },
        ],
        onError: [{ guard: 'isFormulaMissing', target: 'formulaMissing' }, { target: 'failed' }],
      },
    },
    /** the formula has not run yet */
    empty: {},
    showing: { on: { 'page.more': { guard: 'hasMorePages', target: 'loadingMore' } } },
    loadingMore: {
      entry: assign({ moreError: null }),
      invoke: {
        id: 'loadMore',
        src: 'loadPage',
        input: ({ context }) => ({ formulaId: context.formulaId, cursor: context.nextCursor }),
        onDone: {
          target: 'showing',
          actions: assign(({ context, event }) => ({ runs: [...context.runs, ...event.output.runs], nextCursor: event.output.nextCursor })),
        },
        onError: { target: 'showing', actions: assign({ moreError: MORE_RUNS_ERROR }) },
      },
    },
    failed: { on: { 'list.reload': 'loading' } },
    /** no such formula: the screen is the not-found page */
    formulaMissing: { type: 'final' },
  },
});
