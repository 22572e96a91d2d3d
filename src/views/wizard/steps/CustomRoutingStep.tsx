/**
 * The custom-routing step (when the custom-routing flag is on for the formula): rules applied in
 * order, the first whose conditions all hold deciding; each omits the records or routes them to
 * Ready or Needs Attention. A condition reads the record's matching data, transformed data or raw
 * source with the operators of SPEC.md section 9. Saves the routing part (kind custom) and the
 * autosend part.
 */
import { useState } from 'react';
import { Button, Divider, Radio, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { MAX_ROUTING_RULES, ROUTE_TARGET_NAMES, ROUTE_TARGETS, type RouteTarget, type SourceType } from '../../../domain/formula/constants.ts';
import type { CustomRouting } from '../../../domain/formula/parts.ts';
import { MATCHING_FIELD_NAMES, MATCHING_FIELDS } from '../../../domain/formula/routingFields.ts';
import { useRoutingSave } from './routing/useRoutingSave.ts';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import type { RoutingData } from '../../../machines/wizardSteps.ts';
import { StepActions, type StepProps } from '../step.tsx';
import {
  fieldOptions, moved, ReadOnlyNote, removed, replaced, SaveRefused, StepRead, under, type FieldOption,
} from './matching/stepForm.tsx';
import {
  blankRule, customRoutingBodies, customRoutingForm, DEFAULT_CUSTOM_ROUTING, type CustomRoutingForm,
} from '../../../domain/formula/customRoutingForm.ts';
import { ReadyRecords } from './routing/ReadyRecords.tsx';
import { RuleCard } from './routing/RuleCard.tsx';

export { DEFAULT_CUSTOM_ROUTING };

const MATCHING_OPTIONS: FieldOption[] = MATCHING_FIELD_NAMES.map((name) => ({ value: name, label: MATCHING_FIELDS[name].label }));

type Loaded = RoutingData<CustomRouting>;

/** The step once its editor has read what it needs (the part and the fields). */
export function CustomRoutingStep(props: StepProps) {
  const { editor } = props;
  if (!editor) return null;
  return (
    <StepRead<Loaded> editor={editor} loading="Loading the routing rules" onBack={props.onBack}>
      {(data) => <RulesEditor {...props} editor={editor} loaded={data} />}
    </StepRead>
  );
}

function RulesEditor({ loaded, editor, ...props }: StepProps & { editor: StepEditorRef; loaded: Loaded }) {
  const { formula, canEdit } = props;
  const disabled = !canEdit;
  const [form, setForm] = useState<CustomRoutingForm>(() => customRoutingForm(loaded.routing, loaded.autosend));
  // saved choices stay offered even when the system no longer lists them
  const [fields] = useState<Record<SourceType, FieldOption[]>>(() => {
    const savedFields = (type: SourceType) => form.rules.flatMap((r) => r.conditions.filter((c) => c.sourceType === type).map((c) => c.field));
    return {
      matching: MATCHING_OPTIONS,
      transformed: fieldOptions(loaded.fields.destination, savedFields('transformed')),
      raw: fieldOptions(loaded.fields.source, savedFields('raw')),
    };
  });
  const { check, autosendCheck, at, submitted, saving, save } = useRoutingSave(editor, form, customRoutingBodies);

  const set = (patch: Partial<CustomRoutingForm>) => setForm((f) => ({ ...f, ...patch }));

  const destination = formula.firstDestinationDataSource?.displayName ?? 'the destination';
  return (
    <Stack gap="md" data-testid="custom-routing-step">
      <Text size="sm">
        Rules apply in order: the first rule whose conditions all hold decides what happens to a record. A condition reads the record&apos;s
        matching data (what the search found), its transformed data (destination fields) or its raw source.
      </Text>
      {disabled && <ReadOnlyNote />}

      <Stack gap="sm" role="list" aria-label="Routing rules">
        {form.rules.map((r, i) => (
          <div role="listitem" key={r.key}>
            <RuleCard
              rule={r} index={i} count={form.rules.length} fields={fields} errors={under(at, `rules.${i}`)} disabled={disabled}
              onChange={(rule) => set({ rules: replaced(form.rules, i, rule) })}
              onMove={(from, to) => set({ rules: moved(form.rules, from, to) })}
              onRemove={(index) => set({ rules: removed(form.rules, index) })}
            />
          </div>
        ))}
      </Stack>
      {form.rules.length === 0 && <Text size="sm">No rules yet: every record goes to {ROUTE_TARGETS[form.otherwise]}.</Text>}
      {at.rules && <Text size="sm" c="red">{at.rules}</Text>}
      {!disabled && (
        <Button
          variant="light" leftSection={<IconPlus size={16} aria-hidden />} style={{ alignSelf: 'flex-start' }}
          disabled={form.rules.length >= MAX_ROUTING_RULES} onClick={() => set({ rules: [...form.rules, blankRule()] })}
        >
          Add rule
        </Button>
      )}

      <Radio.Group label="Records no rule applies to" value={form.otherwise} error={at.otherwise} onChange={(value) => set({ otherwise: value as RouteTarget })}>
        <Stack gap="xs" mt={6}>
          {ROUTE_TARGET_NAMES.map((t) => <Radio key={t} value={t} label={`Route to ${ROUTE_TARGETS[t]}`} disabled={disabled} />)}
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
