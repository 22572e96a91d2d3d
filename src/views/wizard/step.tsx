/**
 * What every wizard step screen gets and uses: the formula, a way to say it has unsaved changes,
 * a way to say it saved, and the shared Back / Save and continue actions with SPEC's messages
 * ('{step} has been saved', 'An error occured while saving {step}').
 */
import { useEffect, type ReactNode } from 'react';
import { useSelector } from '@xstate/react';
import { Button, Group } from '@mantine/core';
import { notifications, type NotificationData } from '@mantine/notifications';
import { WIZARD_STEP_TITLES, type WizardStep } from '../../domain/formula/wizard.ts';
import type { StepEditorRef } from '../../machines/stepEditor.ts';
import type { FormulaView } from '../../domain/api/formulas.ts';

export interface StepProps {
  step: WizardStep;
  formula: FormulaView;
  /** the custom-routing flag for this formula */
  customRouting: boolean;
  /** the step's form differs from what is saved */
  onDirtyChange(dirty: boolean): void;
  /** the step saved; the wizard moves on (with the formula as the server now has it, when it changed) */
  onSaved(formula?: FormulaView): void;
  /** the formula changed on the server without finishing the step (for example after a confirmation) */
  onFormulaChange(formula: FormulaView): void;
  onBack?: () => void;
  /** go to another step (the review links back to each step) */
  onGoTo(step: WizardStep): void;
  /** the user may edit formulas; without it every step is read-only */
  canEdit: boolean;
  /** the open step's editor, for a step that loads and saves through one (src/machines/wizardSteps.ts) */
  editor?: StepEditorRef;
}

export const savedMessage = (step: WizardStep) => `${WIZARD_STEP_TITLES[step]} has been saved`;
/** SPEC.md section 8 spells it 'occured' */
export const saveFailedMessage = (step: WizardStep) => `An error occured while saving ${WIZARD_STEP_TITLES[step]}`;

/** Says what a step editor's save came to: '{step} has been saved', or 'An error occured while saving {step}'. */
/** What a step's editor has read: its data once read, and whether (and why) the first read failed. */
export function useStepRead<T>(editor: StepEditorRef) {
  const data = useSelector(editor, (s) => s.context.data as T | undefined);
  const unread = useSelector(editor, (s) => s.matches('failed') && s.context.data === undefined);
  const error = useSelector(editor, (s) => s.context.error);
  return { data, unread, error };
}

/** The wizard's save notices on screen: each new one takes the place of the last. */
const saveNotices = new Set<string>();

/**
 * Shows a step's save notice in place of the previous step's: a person stepping through quickly
 * would otherwise pile them up over the wizard.
 */
function announce(notice: NotificationData) {
  for (const id of [...saveNotices]) notifications.hide(id);
  const id: string = notifications.show({ ...notice, onClose: () => { saveNotices.delete(id); } });
  saveNotices.add(id);
}

export function useStepAnnouncements(editor: StepEditorRef) {
  useEffect(() => {
    const saved = editor.on('step.announceSaved', (e) => { announce({ color: 'green', message: savedMessage(e.step) }); });
    const failed = editor.on('step.announceSaveFailed', (e) => { announce({ color: 'red', title: saveFailedMessage(e.step), message: e.detail ?? 'Try again.' }); });
    return () => { saved.unsubscribe(); failed.unsubscribe(); };
  }, [editor]);
}

/** Back, and the step's main action (Save and continue by default). */
export function StepActions({ onBack, onSave, saving, disabled, label = 'Save and continue', extra }: {
  onBack?: () => void;
  onSave: () => void;
  saving: boolean;
  disabled?: boolean;
  label?: string;
  extra?: ReactNode;
}) {
  return (
    <Group justify="space-between" mt="lg">
      {onBack ? <Button variant="default" onClick={onBack} disabled={saving}>Back</Button> : <span />}
      <Group>
        {extra}
        <Button onClick={onSave} loading={saving} disabled={disabled}>{label}</Button>
      </Group>
    </Group>
  );
}
