/**
 * The printed formula review (/{formulaId}/print-formula-review, SPEC.md section 2): it loads the
 * formula, then reads its review as the review step does (./wizardSteps.ts `readReview`: the parts
 * and the objects' labels), and shows it. A formula that cannot be loaded ends there
 * (`unavailable`); a review that cannot be read can be read again (`failed`, Try again).
 */
import { assign, fromPromise, setup } from 'xstate';
import type { FormulaView } from '../domain/api/formulas.ts';
import { formulas } from '../services/formulas.ts';
import { integrations } from '../services/integrations.ts';
import { readReview, type ReviewData, type StepCalls } from './wizardSteps.ts';

export interface PrintReviewInput { formulaId: string }

export interface PrintReviewContext {
  formulaId: string;
  formula: FormulaView | null;
  review: ReviewData | null;
  /** why the formula or its review could not be read */
  error: string | null;
}

export type PrintReviewEvent = { type: 'retry' };

/** The calls the printout reads through; tests hand in fakes of the same shape. */
export interface PrintReviewCalls {
  formulas: Pick<StepCalls['formulas'], 'get' | 'getPart'>;
  integrations: Pick<StepCalls['integrations'], 'objects'> & Partial<Pick<StepCalls['integrations'], 'fields'>>;
}

const loadFormulaOver = (calls: PrintReviewCalls) =>
  fromPromise<FormulaView, { formulaId: string }>(({ input }) => calls.formulas.get(input.formulaId, { silent: true }));
const readReviewOver = (calls: PrintReviewCalls) =>
  fromPromise<ReviewData, { formula: FormulaView }>(({ input }) => readReview(calls, input.formula));

export const NOT_FOUND = 'This formula does not exist, or belongs to another tenant.';
export const NOT_LOADED = 'The formula could not be loaded.';

const detailOf = (error: unknown) => (error as { problem?: { detail?: unknown } } | null)?.problem?.detail;

export const printReviewMachine = setup({
  types: {
    context: {} as PrintReviewContext,
    events: {} as PrintReviewEvent,
    input: {} as PrintReviewInput,
  },
  actors: {
    loadFormula: loadFormulaOver({ formulas, integrations }),
    readReview: readReviewOver({ formulas, integrations }),
  },
  guards: {
    /** no such formula for this tenant (404), as against a formula that could not be read now */
    isNotFound: ({ event }) => (event as { error?: { status?: number } }).error?.status === 404,
  },
}).createMachine({
  id: 'printReview',
  initial: 'loading',
  context: ({ input }) => ({ formulaId: input.formulaId, formula: null, review: null, error: null }),
  states: {
    loading: {
      invoke: {
        id: 'loadFormula',
        src: 'loadFormula',
        input: ({ context }) => ({ formulaId: context.formulaId }),
        onDone: { target: 'reading', actions: assign({ formula: ({ event }) => event.output }) },
        onError: [
          { guard: 'isNotFound', target: 'unavailable', actions: assign({ error: NOT_FOUND }) },
          { target: 'unavailable', actions: assign({ error: NOT_LOADED }) },
        ],
      },
    },
    reading: {
      entry: assign({ error: null }),
      invoke: {
        id: 'readReview',
        src: 'readReview',
        input: ({ context }) => ({ formula: context.formula! }),
        onDone: { target: 'shown', actions: assign({ review: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => String(detailOf(event.error) ?? 'The formula\'s parts could not be read.') }) },
      },
    },
    shown: {},
    /** the review could not be read: Try again reads it again */
    failed: {
      on: { retry: 'reading' },
    },
    /** no formula to print */
    unavailable: {},
  },
});

/** The printout over these calls (fakes, in tests). */
export const printReviewOver = (calls: PrintReviewCalls) => printReviewMachine.provide({
  actors: { loadFormula: loadFormulaOver(calls), readReview: readReviewOver(calls) },
});
