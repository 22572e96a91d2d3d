/**
 * Step 11, processing (drafts only): activating the formula makes it run, and it stops being a
 * draft. A formula that is not complete is refused with what it still misses, each a link to the
 * step that sets it.
 */
import { useSelector } from '@xstate/react';
import { Alert, Anchor, List, Stack, Text } from '@mantine/core';
import { PROBLEM_TITLES } from '../../../domain/errors.ts';
import { FORMULA_PARTS, type FormulaPartName } from '../../../domain/formula/parts.ts';
import type { WizardStep } from '../../../domain/formula/wizard.ts';
import { stepOfPart } from '../FormulaSummary.tsx';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import { MISSING } from '../../../machines/wizardSteps.ts';
import { StepActions, useStepAnnouncements, type StepProps } from '../step.tsx';

/** What the server may name as missing, in words, with the step that sets it. */
export function missingItem(item: string, customRouting: boolean): { label: string; step: WizardStep } {
  switch (item) {
    case 'name': return { label: 'A name', step: 'data-sources' };
    case 'source': return { label: 'A source and its object', step: 'data-sources' };
    case 'destination': return { label: 'A destination and its object', step: 'data-sources' };
    default:
      if (item in FORMULA_PARTS) return { label: FORMULA_PARTS[item as FormulaPartName].label, step: stepOfPart(item as FormulaPartName, customRouting) };
      return { label: item, step: 'review' };
  }
}

/** Activates the formula through the step's editor (its save), which says what it misses. */
export function ProcessingStep(props: StepProps) {
  return props.editor ? <Processing step={props} editor={props.editor} /> : null;
}

const NOT_REFUSED = '\u0000';

function Processing({ step: props, editor }: { step: StepProps; editor: StepEditorRef }) {
  const { formula, customRouting, canEdit, onBack, onGoTo } = props;
  useStepAnnouncements(editor);
  const activating = useSelector(editor, (s) => s.matches('saving'));
  // one string, so the selection stays the same while nothing changes
  const refused = useSelector(editor, (s) => s.context.fieldErrors[MISSING] ?? NOT_REFUSED);
  const missing = refused === NOT_REFUSED ? null : refused === '' ? [] : refused.split('\n');
  const activate = () => editor.send({ type: 'step.save' });

  if (!formula.isDraft) {
    return <Text>This formula is active; there is nothing to process here.</Text>;
  }

  return (
    <Stack>
      <Text>
        Activating the formula makes it collect records {formula.usesFileUpload ? 'from each file uploaded for it' : 'on its schedule'} and
        route them into Ready and Needs Attention. It then stops being a draft; its steps can still be edited.
      </Text>
      {!canEdit && <Text size="sm" c="dimmed">Only someone who may edit formulas can activate it.</Text>}
      {missing && (
        <Alert color="red" role="alert" title={PROBLEM_TITLES['formula-incomplete']}>
          <Text size="sm">Complete these first:</Text>
          <List size="sm" mt={4} aria-label="Missing">
            {missing.map((m) => {
              const item = missingItem(m, customRouting);
              return (
                <List.Item key={m}>
                  <Anchor component="button" type="button" size="sm" onClick={() => onGoTo(item.step)}>{item.label}</Anchor>
                </List.Item>
              );
            })}
          </List>
        </Alert>
      )}
      <StepActions onBack={onBack} onSave={activate} saving={activating} disabled={!canEdit} label="Activate the formula" />
    </Stack>
  );
}
