/**
 * A formula's dry run from the wizard's review step (issue 15 point 7): idle until asked, running
 * while the server puts the source's first records through the whole pipeline, then the result
 * (shown), a source with no records (empty), or why it could not run (failed). Nothing is sent or
 * stored, so it may run again at any time.
 */
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import type { DryRunResult } from '../domain/api/formulas.ts';
import { CONNECTION_ERRORS, isConnectionErrorCode } from '../domain/connectionErrors.ts';
import { messageForProblem, PROBLEM_TITLES } from '../domain/errors.ts';
import { formulas, type Formulas } from '../services/formulas.ts';

/** how many of the source's first records a dry run examines (the API's default) */
export const DRY_RUN_LIMIT = 100;

export interface DryRunInput { formulaId: string; limit?: number }

export interface DryRunFailure {
  /** incomplete: a part is missing; connection: the source could not be read; other: anything else */
  kind: 'incomplete' | 'connection' | 'other';
  /** the catalogue's message for the problem */
  title: string;
  detail: string | null;
  /** a connection error's code */
  code: string | null;
  /** what the formula still misses, when the server names it */
  missing: string[];
}

export interface DryRunContext {
  formulaId: string;
  limit: number;
  result: DryRunResult | null;
  failure: DryRunFailure | null;
}

export type DryRunEvent =
  | { type: 'run.start' }
  | { type: 'run.dismiss' };

/** What a refused dry run means for the user, in the catalogue's words. */
export function dryRunFailureOf(error: unknown): DryRunFailure {
  const e = (error ?? {}) as { status?: number; problem?: { title?: string; detail?: string; code?: string; missing?: unknown } };
  const p = e.problem ?? {};
  const detail = typeof p.detail === 'string' ? p.detail : null;
  if (p.title === 'formula-incomplete') {
    return { kind: 'incomplete', title: PROBLEM_TITLES['formula-incomplete'], detail, code: null, missing: Array.isArray(p.missing) ? p.missing.map(String) : [] };
  }
  if (p.title === 'connection-failed' || p.title === 'connection-error') {
    const code = isConnectionErrorCode(p.code) ? p.code : 'unknown';
    return { kind: 'connection', title: PROBLEM_TITLES[p.title], detail: detail ?? CONNECTION_ERRORS[code].hint, code, missing: [] };
  }
  if (e.status === 0) {
    return { kind: 'other', title: PROBLEM_TITLES['server-error'], detail: 'The Tributary server could not be reached. Check your connection and try again.', code: null, missing: [] };
  }
  return { kind: 'other', title: messageForProblem(p), detail, code: null, missing: [] };
}

/** The dry run's actor over these formulas (the wizard's services, or a test's fakes). */
export const runDryRunWith = (through: Pick<Formulas, 'dryRun'>) =>
  fromPromise<DryRunResult, DryRunInput>(({ input }) => through.dryRun(input.formulaId, { limit: input.limit ?? DRY_RUN_LIMIT }, { silent: true }));

const outputOf = ({ event }: { event: { output: DryRunResult } }) => event.output;
const errorOf = ({ event }: { event: { error: unknown } }) => event.error;

export const dryRunMachine = setup({
  types: {
    context: {} as DryRunContext,
    events: {} as DryRunEvent,
    input: {} as DryRunInput,
  },
  actors: {
    runDryRun: runDryRunWith(formulas),
  },
  guards: {
    /** the source had records to put through the pipeline */
    hasExaminedRecords: (_, result: DryRunResult) => result.examined > 0,
  },
  actions: {
    forget: assign({ result: null, failure: null }),
    keepResult: assign((_, result: DryRunResult) => ({ result })),
    keepFailure: assign((_, error: unknown) => ({ failure: dryRunFailureOf(error) })),
  },
}).createMachine({
  id: 'dryRun',
  initial: 'idle',
  context: ({ input }) => ({ formulaId: input.formulaId, limit: input.limit ?? DRY_RUN_LIMIT, result: null, failure: null }),
  states: {
    idle: {
      on: { 'run.start': { target: 'running', actions: 'forget' } },
    },
    running: {
      invoke: {
        id: 'runDryRun',
        src: 'runDryRun',
        input: ({ context }) => ({ formulaId: context.formulaId, limit: context.limit }),
        onDone: [
          { guard: { type: 'hasExaminedRecords', params: outputOf }, target: 'shown', actions: { type: 'keepResult', params: outputOf } },
          { target: 'empty', actions: { type: 'keepResult', params: outputOf } },
        ],
        onError: { target: 'failed', actions: { type: 'keepFailure', params: errorOf } },
      },
    },
    shown: {
      on: { 'run.start': { target: 'running', actions: 'forget' }, 'run.dismiss': { target: 'idle', actions: 'forget' } },
    },
    empty: {
      on: { 'run.start': { target: 'running', actions: 'forget' }, 'run.dismiss': { target: 'idle', actions: 'forget' } },
    },
    failed: {
      on: { 'run.start': { target: 'running', actions: 'forget' }, 'run.dismiss': { target: 'idle', actions: 'forget' } },
    },
  },
});

export type DryRunRef = ActorRefFrom<typeof dryRunMachine>;
