/**
 * The routing step: Omatic's triage, where each record goes once it is matched (SPEC.md section 4).
 * An unmatched record goes to Ready or Needs Attention; a single match to Ready, to Ready when the
 * chosen fields match exactly, or to review; among multiple matches, candidates below a score are
 * discarded; capitalization may or may not count as a data difference; and Ready records are held
 * for review or sent automatically. Saves the routing part (kind default) and the autosend part.
 */
import { useState } from 'react';
import { Divider, MultiSelect, NumberInput, Radio, Stack, Text } from '@mantine/core';
import {
  MAX_CONFIDENCE_SCORE, ROUTE_TARGET_NAMES, ROUTE_TARGETS, SINGLE_MATCH_ROUTE_NAMES, SINGLE_MATCH_ROUTES, type RouteTarget, type SingleMatchRoute,
} from '../../../domain/formula/constants.ts';
import { RECOMMENDED_DISCARD_BELOW } from '../../../domain/formula/matchScore.ts';
import type { DefaultRouting } from '../../../domain/formula/parts.ts';
import { DEFAULT_TRIAGE, triageBodies, triageForm, type TriageForm } from '../../../domain/formula/triageForm.ts';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import type { RoutingData } from '../../../machines/wizardSteps.ts';
import { useRoutingSave } from './routing/useRoutingSave.ts';
import { StepActions, type StepProps } from '../step.tsx';
import { fieldOptions, ReadOnlyNote, SaveRefused, SectionIntro, StepRead } from './matching/stepForm.tsx';
import { ReadyRecords } from './routing/ReadyRecords.tsx';

export { DEFAULT_TRIAGE };

type Loaded = RoutingData<DefaultRouting>;

/** The step once its editor has read what it needs (the part and the fields). */
export function RoutingStep(props: StepProps) {
  const { editor } = props;
  if (!editor) return null;
  return (
    <StepRead<Loaded> editor={editor} loading="Loading the routing" onBack={props.onBack}>
      {(data) => <TriageEditor {...props} editor={editor} loaded={data} />}
    </StepRead>
  );
}

function TriageEditor({ loaded, editor, ...props }: StepProps & { editor: StepEditorRef; loaded: Loaded }) {
  const { formula, canEdit } = props;
  const disabled = !canEdit;
  const [form, setForm] = useState<TriageForm>(() => triageForm(loaded.routing, loaded.autosend));
  const [options] = useState(() => fieldOptions(loaded.fields.destination, form.exactFields));
  const { check, autosendCheck, at, submitted, saving, save } = useRoutingSave(editor, form, triageBodies);

  const set = (patch: Partial<TriageForm>) => setForm((f) => ({ ...f, ...patch }));

  const destination = formula.firstDestinationDataSource?.displayName ?? 'the destination';
  return (
    <Stack gap="md" data-testid="routing-step">
      <Text size="sm">Choose where each record goes once it is matched: to Ready, or to Needs Attention for review.</Text>
      {disabled && <ReadOnlyNote />}

      <Radio.Group label="Records with no match" value={form.unmatched} onChange={(value) => set({ unmatched: value as RouteTarget })}>
        <Stack gap="xs" mt={6}>
          {ROUTE_TARGET_NAMES.map((t) => (
            <Radio key={t} value={t} disabled={disabled} label={t === 'ready' ? `Add to ${ROUTE_TARGETS[t]} as new records` : `Review in ${ROUTE_TARGETS[t]}`} />
          ))}
        </Stack>
      </Radio.Group>

      <Divider />
      <SectionIntro title="Single match">A record with one match, or with one picked by Auto Pick.</SectionIntro>
      <Radio.Group label="Records with a single match" value={form.singleMatch} onChange={(value) => set({ singleMatch: value as SingleMatchRoute })}>
        <Stack gap="xs" mt={6}>
          {SINGLE_MATCH_ROUTE_NAMES.map((r) => <Radio key={r} value={r} label={SINGLE_MATCH_ROUTES[r]} disabled={disabled} />)}
        </Stack>
      </Radio.Group>
      {form.singleMatch === 'ready-if-exact' && (
        <MultiSelect
          label="Fields that must match exactly" description="A single match whose fields all equal the incoming record's goes to Ready; any other goes to review."
          placeholder={form.exactFields.length ? undefined : 'Choose fields'} data={options} value={form.exactFields} searchable
          error={at.exactFields} disabled={disabled} onChange={(exactFields) => set({ exactFields })}
        />
      )}

      <Divider />
      <SectionIntro title="Multiple matches">Records with several matches go to Needs Attention, where you choose the right one.</SectionIntro>
      <NumberInput
        label="Discard candidates scoring below"
        description={`Drops candidates scoring below this (0 to ${MAX_CONFIDENCE_SCORE}) from a record's matches, so weak look-alikes do not hold back a confident match. ${RECOMMENDED_DISCARD_BELOW} is recommended; leave empty to keep every candidate. A record whose candidates all score below it keeps its best one.`}
        min={0} max={MAX_CONFIDENCE_SCORE} allowDecimal={false} value={form.discardBelow} error={at.discardBelow} disabled={disabled}
        onChange={(value) => set({ discardBelow: value === '' ? '' : Number(value) })}
      />

      <Divider />
      <SectionIntro title="Data differences">For matched records only.</SectionIntro>
      <Radio.Group
        label="Capitalization counts as a data difference" value={form.capitalizationIsDifference ? 'yes' : 'no'}
        onChange={(value) => set({ capitalizationIsDifference: value === 'yes' })}
      >
        <Stack gap="xs" mt={6}>
          <Radio value="yes" label="Yes" description="A record that differs only in capitalization stops for review." disabled={disabled} />
          <Radio value="no" label="No" description="A difference only in capitalization does not hold a record back." disabled={disabled} />
        </Stack>
      </Radio.Group>

      <Divider />
      <ReadyRecords autosend={form.autosend} destination={destination} disabled={disabled} onChange={(autosend) => set({ autosend })} />

      {submitted && <SaveRefused step={props.step} messages={[...check.messages, ...autosendCheck.messages]} />}
      {canEdit
        ? <StepActions onBack={props.onBack} onSave={save} saving={saving} />
        : <StepActions onBack={props.onBack} onSave={() => props.onSaved()} saving={false} label="Next" />}
    </Stack>
  );
}
