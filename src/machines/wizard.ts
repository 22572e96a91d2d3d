/**
 * The Formula Wizard (SPEC.md section 2): it loads the formula, owns which step is open, and moves
 * between the steps that this formula has (src/domain/formula/wizard.ts decides them from the
 * source's and destination's additional settings, the custom-routing flag, file upload and draft).
 * The open step's editor (./stepEditor.ts, invoked as `step` while the step is open) loads and
 * saves the step's own part and says so (`step.saved`, `step.dirty`); a screen with nothing to save
 * (read only) says it is done itself. Leaving a step or the wizard with unsaved changes asks first.
 */
import { and, assign, fromPromise, setup, stateIn } from 'xstate';
import { isWizardStep, nextStep, WIZARD_STEPS, wizardSteps, type WizardConditions, type WizardStep } from '../domain/formula/wizard.ts';
import { formulas, type FormulaView } from '../services/formulas.ts';
import { stepEditorMachine, stepEditorOver } from './stepEditor.ts';
import type { StepCalls } from './wizardSteps.ts';

export interface WizardInput {
  formulaId: string;
  /** the step the address names; the first step when it is not one this formula has */
  step: string | null;
  /** whether the custom-routing flag is on for this formula (SPEC.md section 1) */
  customRouting: boolean;
  /** the user may read objects from the systems (edit data sources); true when not said */
  mayReadObjects?: boolean;
}

export interface WizardContext {
  formulaId: string;
  requestedStep: string | null;
  formula: FormulaView | null;
  customRouting: boolean;
  mayReadObjects: boolean;
  step: WizardStep;
  /** the open step has changes that are not saved */
  dirty: boolean;
  /** where to go once leaving a step with unsaved changes is confirmed: a step, or out of the wizard */
  pending: WizardStep | 'close' | null;
  error: string | null;
}

export type WizardEvent =
  | { type: 'step.next' }
  | { type: 'step.back' }
  | { type: 'step.goto'; step: string }
  | { type: 'step.dirty'; dirty: boolean }
  | { type: 'step.saved'; formula?: FormulaView }
  | { type: 'formula.changed'; formula: FormulaView }
  | { type: 'flags.changed'; customRouting: boolean }
  | { type: 'wizard.close' }
  | { type: 'leave.confirm' }
  | { type: 'leave.cancel' }
  | { type: 'retry' };

export function conditionsOf(formula: FormulaView | null, customRouting: boolean): WizardConditions {
  return {
    sourceHasSettings: formula?.sourceDataSource?.hasAdditionalSettings ?? false,
    destinationHasSettings: formula?.firstDestinationDataSource?.hasAdditionalSettings ?? false,
    customRouting,
    usesFileUpload: formula?.usesFileUpload ?? false,
    isDraft: formula?.isDraft ?? true,
  };
}

export const stepsOf = (context: Pick<WizardContext, 'formula' | 'customRouting'>) => wizardSteps(conditionsOf(context.formula, context.customRouting));

/**
 * The requested step when this formula has it; else the nearest one after it in SPEC's order,
 * else (a step past the formula's last, such as processing once it is active) its last step;
 * the first step when nothing is requested.
 */
export function resolveStep(context: Pick<WizardContext, 'formula' | 'customRouting'>, requested: string | null): WizardStep {
  const steps = stepsOf(context);
  if (isWizardStep(requested)) {
    if (steps.includes(requested)) return requested;
    const after = steps.find((s) => WIZARD_STEPS.indexOf(s) > WIZARD_STEPS.indexOf(requested));
    return after ?? steps.at(-1)!;
  }
  return steps[0]!;
}

const neighbour = (context: WizardContext, direction: 1 | -1) => nextStep(conditionsOf(context.formula, context.customRouting), context.step, direction);

const loadFormulaOver = (f: Pick<StepCalls['formulas'], 'get'>) =>
  fromPromise<FormulaView, { formulaId: string }>(({ input }) => f.get(input.formulaId, { silent: true }));

export const wizardMachine = setup({
  types: {
    context: {} as WizardContext,
    input: {} as WizardInput,
    events: {} as WizardEvent,
  },
  actors: {
    loadFormula: loadFormulaOver(formulas),
    stepEditor: stepEditorMachine,
  },
  guards: {
    hasNext: ({ context }) => neighbour(context, 1) !== null,
    hasPrevious: ({ context }) => neighbour(context, -1) !== null,
    isDirty: ({ context }) => context.dirty,
    /** a step this formula has, other than the open one */
    isOtherStep: ({ context, event }) => event.type === 'step.goto' && isWizardStep(event.step) && event.step !== context.step && stepsOf(context).includes(event.step),
    isLeavingWizard: ({ context }) => context.pending === 'close',
    /** the changed formula, or flag, no longer has the open step: another one opens */
    formulaMovesStep: ({ context, event }) => event.type === 'formula.changed' && resolveStep({ ...context, formula: event.formula }, context.step) !== context.step,
    /** the unsaved-changes question is open */
    isAsking: stateIn('#wizard.open.confirmingLeave'),
    flagsMoveStep: ({ context, event }) => event.type === 'flags.changed' && resolveStep({ ...context, customRouting: event.customRouting }, context.step) !== context.step,
  },
  actions: {
    goNext: assign({ step: ({ context }) => neighbour(context, 1) ?? context.step, dirty: false }),
    goBack: assign({ step: ({ context }) => neighbour(context, -1) ?? context.step, dirty: false }),
    goTo: assign({ step: ({ context, event }) => (event.type === 'step.goto' && isWizardStep(event.step) ? event.step : context.step), dirty: false }),
    goPending: assign({ step: ({ context }) => (context.pending && context.pending !== 'close' ? context.pending : context.step), dirty: false, pending: null }),
    markDirty: assign({ dirty: ({ event }) => event.type === 'step.dirty' && event.dirty }),
    keepSaved: assign({
      formula: ({ context, event }) => (event.type === 'step.saved' && event.formula ? event.formula : context.formula),
      dirty: false,
    }),
    // a save can take the open step away (activating a draft ends its processing step)
    keepOpenStep: assign({ step: ({ context }) => resolveStep(context, context.step) }),
    keepFormula: assign({
      formula: ({ context, event }) => (event.type === 'formula.changed' ? event.formula : context.formula),
      // the open step stays where it is while the formula still has it
      step: ({ context, event }) => (event.type === 'formula.changed' ? resolveStep({ ...context, formula: event.formula }, context.step) : context.step),
    }),
    keepFlags: assign({
      customRouting: ({ context, event }) => (event.type === 'flags.changed' ? event.customRouting : context.customRouting),
      step: ({ context, event }) => (event.type === 'flags.changed' ? resolveStep({ ...context, customRouting: event.customRouting }, context.step) : context.step),
    }),
    pendStep: assign({ pending: ({ context, event }) => (event.type === 'step.goto' && isWizardStep(event.step) ? event.step : event.type === 'step.back' ? neighbour(context, -1) : null) }),
    pendClose: assign({ pending: 'close' as const }),
    forgetPending: assign({ pending: null }),
  },
}).createMachine({
  id: 'wizard',
  initial: 'loading',
  context: ({ input }) => ({
    formulaId: input.formulaId, requestedStep: input.step, formula: null, customRouting: input.customRouting, mayReadObjects: input.mayReadObjects ?? true,
    step: 'data-sources', dirty: false, pending: null, error: null,
  }),
  on: {
    'flags.changed': { actions: 'keepFlags' },
  },
  states: {
    loading: {
      invoke: {
        id: 'loadFormula',
        src: 'loadFormula',
        input: ({ context }) => ({ formulaId: context.formulaId }),
        onDone: {
          target: 'open',
          actions: assign({
            formula: ({ event }) => event.output,
            step: ({ context, event }) => resolveStep({ formula: event.output, customRouting: context.customRouting }, context.requestedStep),
            error: null,
          }),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => ((event.error as { status?: number }).status === 404 ? 'This formula does not exist, or belongs to another tenant.' : 'The formula could not be loaded.') }) },
      },
    },
    failed: {
      on: { retry: 'loading', 'wizard.close': 'closed' },
    },
    /**
     * A step is open, and its editor runs for as long as it stays open: another step, or a save
     * that keeps the last step open, enters `open` again, which starts a fresh editor. Asking about
     * unsaved changes happens inside, so staying keeps the draft in the running editor.
     */
    open: {
      invoke: {
        id: 'step',
        src: 'stepEditor',
        input: ({ context, self }) => ({ step: context.step, formula: context.formula!, parent: self, mayReadObjects: context.mayReadObjects }),
      },
      initial: 'idle',
      on: {
        'flags.changed': [
          // a flag that takes the open step away opens another one; a question being asked stays
          { guard: and(['flagsMoveStep', 'isAsking']), target: '.confirmingLeave', reenter: true, actions: 'keepFlags' },
          { guard: 'flagsMoveStep', target: '#wizard.open', reenter: true, actions: 'keepFlags' },
          { actions: 'keepFlags' },
        ],
      },
      states: {
        idle: {
          on: {
            'step.next': { guard: 'hasNext', target: '#wizard.open', reenter: true, actions: 'goNext' },
            'step.back': [
              { guard: and(['hasPrevious', 'isDirty']), target: 'confirmingLeave', actions: 'pendStep' },
              { guard: 'hasPrevious', target: '#wizard.open', reenter: true, actions: 'goBack' },
            ],
            'step.goto': [
              { guard: and(['isOtherStep', 'isDirty']), target: 'confirmingLeave', actions: 'pendStep' },
              { guard: 'isOtherStep', target: '#wizard.open', reenter: true, actions: 'goTo' },
            ],
            'step.dirty': { actions: 'markDirty' },
            'step.saved': [
              { guard: 'hasNext', target: '#wizard.open', reenter: true, actions: ['keepSaved', 'goNext'] },
              // the last step (or the one the saved formula leaves open) again, with a fresh editor: the save may have changed the formula
              { target: '#wizard.open', reenter: true, actions: ['keepSaved', 'keepOpenStep'] },
            ],
            // the formula changed under the open step (a confirmation on the server): the draft stays unless the step goes
            'formula.changed': [
              { guard: 'formulaMovesStep', target: '#wizard.open', reenter: true, actions: 'keepFormula' },
              { actions: 'keepFormula' },
            ],
            'wizard.close': [
              { guard: 'isDirty', target: 'confirmingLeave', actions: 'pendClose' },
              { target: '#wizard.closed' },
            ],
          },
        },
        /** 'You have unsaved changes': leave them, or stay */
        confirmingLeave: {
          on: {
            'leave.confirm': [
              { guard: 'isLeavingWizard', target: '#wizard.closed' },
              { target: '#wizard.open', reenter: true, actions: 'goPending' },
            ],
            'leave.cancel': { target: 'idle', actions: 'forgetPending' },
          },
        },
      },
    },
    closed: { type: 'final' },
  },
});

/** The wizard whose formula, and whose open step's editor, go through these calls (fakes, in tests). */
export const wizardOver = (calls: StepCalls) => wizardMachine.provide({
  actors: { loadFormula: loadFormulaOver(calls.formulas), stepEditor: stepEditorOver(calls) },
});
