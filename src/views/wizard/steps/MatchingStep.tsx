/**
 * The matching step (Record Match Search): the search scenarios that find the destination records
 * an incoming record may be, with Advanced Matching Settings (primary and secondary tiers) and Auto
 * Pick conditions. A formula without a saved matching part starts from the scenarios recommended
 * for its destination (src/domain/formula/recommendedScenarios.ts).
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSelector } from '@xstate/react';
import { Button, Divider, Group, Stack, Switch, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { connectorFor, objectLabel } from '../../../domain/connectors/catalogue.ts';
import { ADVANCED_MATCHING_MIN_SCENARIOS, MAX_SEARCH_SCENARIOS } from '../../../domain/formula/constants.ts';
import { MatchingSchema, PART_MESSAGES } from '../../../domain/formula/parts.ts';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import type { MatchingData } from '../../../machines/wizardSteps.ts';
import { StepActions, type StepProps } from '../step.tsx';
import { AutoPickConditions } from './matching/AutoPickConditions.tsx';
import { blankScenario, matchingBody, matchingForm, type MatchingForm } from '../../../domain/formula/matchingForm.ts';
import { ScenarioCard } from './matching/ScenarioCard.tsx';
import {
  fieldOptions, moved, ReadOnlyNote, removed, replaced, SaveRefused, StepRead, under, verdict,
} from './matching/stepForm.tsx';

/** SPEC.md section 4's rule, said where the tiers are chosen. */
export const TIER_RULE = 'Primary scenarios search first: if a primary search finds a record, secondary searches are skipped.';

type Loaded = MatchingData;

/** The step once its editor has read what it needs (the part and the fields). */
export function MatchingStep(props: StepProps) {
  const { editor } = props;
  if (!editor) return null;
  return (
    <StepRead<Loaded> editor={editor} loading="Loading the search scenarios" onBack={props.onBack}>
      {(data) => <MatchingEditor {...props} editor={editor} loaded={data} />}
    </StepRead>
  );
}

function MatchingEditor({ loaded, editor, ...props }: StepProps & { editor: StepEditorRef; loaded: Loaded }) {
  const { canEdit } = props;
  const disabled = !canEdit;
  const [form, setForm] = useState<MatchingForm>(() => matchingForm(loaded.part));
  const [submitted, setSubmitted] = useState(false);
  const saving = useSelector(editor, (s) => s.matches('saving'));

  const body = useMemo(() => matchingBody(form), [form]);
  const check = useMemo(() => verdict(MatchingSchema, body), [body]);
  const at = submitted ? check.at : {};
  // each change of the form is the editor's draft
  const opened = useRef(body);
  useEffect(() => {
    if (body !== opened.current) editor.send({ type: 'draft.change', draft: body });
  }, [body, editor]);

  // saved choices stay offered even when the system no longer lists them
  const [options] = useState(() => {
    const { source, destination } = loaded.fields;
    return {
      source: fieldOptions(source, form.scenarios.flatMap((s) => s.criteria.map((c) => c.source))),
      destination: fieldOptions(destination.filter((f) => f.searchable), form.scenarios.flatMap((s) => s.criteria.map((c) => c.destination))),
      autoPick: fieldOptions(destination, form.autoPick.flatMap((a) => a.fields)),
    };
  });

  const set = (patch: Partial<MatchingForm>) => setForm((f) => ({ ...f, ...patch }));
  const save = () => {
    setSubmitted(true);
    if (!check.ok) return;
    editor.send({ type: 'step.save' });
  };

  const { formula } = props;
  const destination = formula.firstDestinationDataSource;
  return (
    <Stack gap="md" data-testid="matching-step">
      <Text size="sm">
        Search scenarios find the records in {destination ? destination.displayName : 'the destination'} that an incoming record may be. A scenario
        finds the records whose fields match all of its criteria.
      </Text>
      {destination && connectorFor(destination.system).enrichment && (
        <Text size="sm" data-testid="enrichment-note">{connectorFor(destination.system).enrichment}</Text>
      )}
      {loaded.recommended && (
        <Text size="sm" c="dimmed" data-testid="recommended-note">
          These are the scenarios we recommend for {destination?.displayName ?? 'this destination'}{destination ? ` (${objectLabel(destination.system, destination.object)})` : ''}. Check them, then save.
        </Text>
      )}
      {disabled && <ReadOnlyNote />}

      <Switch
        label="Advanced Matching Settings"
        description={`Search in two tiers, primary and secondary. Needs at least ${ADVANCED_MATCHING_MIN_SCENARIOS} scenarios.`}
        checked={form.advanced} error={at.advanced} disabled={disabled}
        onChange={(e) => set({ advanced: e.currentTarget.checked })}
      />
      <Text size="sm" data-testid="tier-rule">
        {form.advanced ? TIER_RULE : 'Every scenario is primary: all of them search, and the records they find are pooled.'}
      </Text>

      <Stack gap="sm" aria-label="Search scenarios" role="list">
        {form.scenarios.map((s, i) => (
          <div role="listitem" key={s.key}>
            <ScenarioCard
              scenario={s} index={i} count={form.scenarios.length} tiers={form.advanced}
              sourceOptions={options.source} destinationOptions={options.destination}
              errors={under(at, `scenarios.${i}`)} disabled={disabled}
              onChange={(scenario) => set({ scenarios: replaced(form.scenarios, i, scenario) })}
              onMove={(from, to) => set({ scenarios: moved(form.scenarios, from, to) })}
              onRemove={(index) => set({ scenarios: removed(form.scenarios, index) })}
            />
          </div>
        ))}
      </Stack>
      {form.scenarios.length === 0 && <Text size="sm">No search scenarios.</Text>}
      {at.scenarios && <Text size="sm" c="red" data-testid="scenarios-error">{at.scenarios}</Text>}
      {!disabled && (
        <Group gap="sm">
          <Button
            variant="light" leftSection={<IconPlus size={16} aria-hidden />} disabled={form.scenarios.length >= MAX_SEARCH_SCENARIOS}
            onClick={() => set({ scenarios: [...form.scenarios, blankScenario(!form.advanced)] })}
          >
            Add scenario
          </Button>
          <Text size="xs" c="dimmed">{PART_MESSAGES.tooManyScenarios}.</Text>
        </Group>
      )}

      <Divider />
      <AutoPickConditions
        conditions={form.autoPick} fieldOptions={options.autoPick} errors={under(at, 'autoPick')} disabled={disabled}
        onChange={(autoPick) => set({ autoPick })}
      />

      {submitted && <SaveRefused step={props.step} messages={check.messages} />}
      {canEdit
        ? <StepActions onBack={props.onBack} onSave={save} saving={saving} />
        : <StepActions onBack={props.onBack} onSave={() => props.onSaved()} saving={false} label="Next" />}
    </Stack>
  );
}

