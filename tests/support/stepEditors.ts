/**
 * A wizard step's editor on its own, for tests that render one step screen without the wizard:
 * the step editor machine with its loads and saves over fake calls (src/machines/wizardSteps.ts's
 * `stepIO`), whose `step.saved` and `step.dirty` reach the step's props as the wizard would take them.
 */
import { createActor, fromPromise, setup } from 'xstate';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import { stepEditorMachine, type LoadInput, type SaveInput, type StepEditorRef } from '../../src/machines/stepEditor.ts';
import { hasStepEditor, stepIO, type StepCalls, type StepLoad } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';

/** the step editor machine whose loads and saves go through these calls */
export function stepEditorOver(calls: StepCalls) {
  const io = stepIO(calls);
  return stepEditorMachine.provide({
    actors: {
      loadStep: fromPromise<StepLoad, LoadInput>(({ input }) => io[input.step]!.load(input.formula)),
      saveStep: fromPromise<FormulaView | undefined, SaveInput>(({ input }) => io[input.step]!.save(input.formula, input.draft, input)),
    },
  });
}

/** A running editor of the step, when the step has one; its news goes to the callbacks. */
export function startStepEditor(
  step: WizardStep,
  formula: FormulaView,
  calls: StepCalls,
  props: { onSaved(formula?: FormulaView): void; onDirtyChange(dirty: boolean): void },
): StepEditorRef | undefined {
  if (!hasStepEditor(step)) return undefined;
  const wizard = createActor(setup({ types: { events: {} as { type: 'step.saved'; formula?: FormulaView } | { type: 'step.dirty'; dirty: boolean } } }).createMachine({
    on: {
      'step.saved': { actions: ({ event }) => props.onSaved(event.formula) },
      'step.dirty': { actions: ({ event }) => props.onDirtyChange(event.dirty) },
    },
  })).start();
  return createActor(stepEditorOver(calls), { input: { step, formula, parent: wizard } }).start();
}
