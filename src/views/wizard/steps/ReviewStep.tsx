/**
 * Step 10, review: every part of the formula summarised, each with a link back to its step, a
 * printable copy at /{formulaId}/print-formula-review opened in a new tab, and a dry run.
 */
import { Alert, Anchor, Button, Divider, Group, Skeleton, Stack, Text } from '@mantine/core';
import { IconPrinter } from '@tabler/icons-react';
import { useSelector } from '@xstate/react';
import type { StepEditorChildren, StepEditorRef } from '../../../machines/stepEditor.ts';
import type { ReviewData } from '../../../machines/wizardSteps.ts';
import { FormulaSummary, type SummaryParts } from '../FormulaSummary.tsx';
import { StepActions, type StepProps } from '../step.tsx';
import { DryRunPanel } from './review/DryRunPanel.tsx';

export const printPath = (formulaId: string) => `/${encodeURIComponent(formulaId)}/print-formula-review`;

/** The review as its step editor read it (Try again reads it again). */
export function ReviewStep(props: StepProps) {
  return props.editor ? <Review props={props} editor={props.editor} /> : null;
}

const NO_LABELS: Record<string, string> = {};

function Review({ props, editor }: { props: StepProps; editor: StepEditorRef }) {
  const { formula, customRouting, onGoTo, onBack } = props;
  const data = useSelector(editor, (s) => s.context.data as ReviewData | undefined);
  const error = useSelector(editor, (s) => (s.matches('failed') && s.context.data === undefined ? s.context.error : null));
  const parts = (data?.parts ?? null) as SummaryParts | null;
  const objectLabels = data?.objectLabels ?? NO_LABELS;
  const fieldLabels = data?.fieldLabels ?? NO_LABELS;
  const sourceFieldLabels = data?.sourceFieldLabels ?? NO_LABELS;
  const dryRun = useSelector(editor, (s) => (s.children as StepEditorChildren).dryRun);
  const reload = () => editor.send({ type: 'retry' });
  // the samples show the fields the buckets show, else the mapped ones
  const preferredFields = parts?.['summary-fields']?.fields
    ?? parts?.mapping?.fields.filter((f) => f.kind !== 'ignored').map((f) => f.destination) ?? [];

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Text size="sm">Check the formula before it {formula.isDraft ? 'is activated' : 'runs again'}. Edit takes you back to that step.</Text>
        <Anchor href={printPath(formula.id)} target="_blank" rel="noopener" size="sm">
          <Group gap={4} component="span" wrap="nowrap"><IconPrinter size={16} aria-hidden />Print the review</Group>
        </Anchor>
      </Group>
      {error && (
        <Alert color="red" role="alert" title="The review could not be read">
          <Text size="sm">{error}</Text>
          <Button size="xs" mt="sm" onClick={reload}>Try again</Button>
        </Alert>
      )}
      {!parts && !error && <Stack aria-label="Loading the review"><Skeleton h={24} /><Skeleton h={160} /></Stack>}
      {parts && <FormulaSummary formula={formula} parts={parts} objectLabels={objectLabels} fieldLabels={fieldLabels} sourceFieldLabels={sourceFieldLabels} customRouting={customRouting} onGoTo={onGoTo} />}
      <Divider />
      {props.canEdit ? (
        dryRun && <DryRunPanel formula={formula} customRouting={customRouting} onGoTo={onGoTo} preferredFields={preferredFields} dryRun={dryRun} />
      ) : (
        // a dry run reads the source with the saved credentials: the server allows it to whoever may edit or run the formula
        <Text size="sm" c="dimmed">A dry run reads the source with its saved credentials, so it needs permission to edit or run the formula.</Text>
      )}
      {formula.isDraft ? (
        <StepActions onBack={onBack} onSave={() => props.onSaved()} saving={false} label="Continue" />
      ) : (
        // an active formula ends here: every change was saved by its own step
        onBack && <Group mt="lg"><Button variant="default" onClick={onBack}>Back</Button></Group>
      )}
    </Stack>
  );
}
