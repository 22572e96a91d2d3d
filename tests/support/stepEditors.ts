/**
 * A wizard step's editor on its own, for tests that render one step screen without the wizard:
 * the step editor machine with its loads and saves over fake calls (src/machines/wizardSteps.ts's
 * `stepIO`), whose `step.saved` and `step.dirty` reach the step's props as the wizard would take them.
 */
import { createActor, setup } from 'xstate';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import { stepEditorOver, type StepEditorRef } from '../../src/machines/stepEditor.ts';
import { hasStepEditor, type StepCalls } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';

export { stepEditorOver };

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
