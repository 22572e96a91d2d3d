/**
 * The wizard's mapping step (SPEC.md sections 2, 5 and 8): every destination field the field
 * picker shows is ignored, mapped from a source field or given a defined value, with its
 * transforms, its validation rules and whether the buckets show it for each record; a live
 * preview runs the sample rows through the engine's own transform functions.
 *
 * Saving puts the four parts it edits: mapping, transform, validation and summary-fields. Empty
 * transforms, rules or summary fields are saved as empty lists (never deleted), so what is saved
 * always says what the step showed.
 */
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import {
  Alert, Badge, Button, Checkbox, Fieldset, Group, List, NativeSelect, SimpleGrid, Stack, Table, Text, TextInput, Title,
} from '@mantine/core';
import { IconAlertTriangle, IconChecklist, IconFilter, IconLock, IconWand } from '@tabler/icons-react';
import type { FieldInfo } from '../../../domain/api/integrations.ts';
import { objectLabel } from '../../../domain/connectors/catalogue.ts';
import { FIELD_SELECTION_REQUIRED_ABOVE } from '../../../domain/formula/constants.ts';
import { mappedValue, transformRecord, type FieldValue } from '../../../domain/formula/transforms.ts';
import { TableSkeleton } from '../../../ui/Skeletons.tsx';
import { useSelector } from '@xstate/react';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import { hasMappingEnds, LOAD_MESSAGES, type MappingData } from '../../../machines/wizardSteps.ts';
import { StepActions, useStepAnnouncements, useStepRead, type StepProps } from '../step.tsx';
import { FieldPicker } from './mapping/FieldPicker.tsx';
import { MappingPreview, PREVIEW_ROWS } from './mapping/MappingPreview.tsx';
import {
  checkField, checkForm, droppedFields, normalSelection, previewParts, shownFields,
  type FieldDraft, type GiftDraft, type MappingForm, type MappingKind, type RuleDraft, type StepDraft,
} from '../../../domain/formula/mappingForm.ts';
import { GIFT_FIELD_LABELS, type Companion } from '../../../domain/formula/companion.ts';
import { RulesEditor } from './mapping/RulesEditor.tsx';
import { TransformEditor } from './mapping/TransformEditor.tsx';
import { useSample } from './mapping/useMappingData.ts';

export const NO_EDIT_PERMISSION = 'You do not have editing permission';
export const MAPPING_ERRORS_TITLE = 'Mapping Errors';

const KIND_OPTIONS: { value: MappingKind; label: string }[] = [
  { value: 'ignored', label: 'Ignore' },
  { value: 'source', label: 'From source field' },
  { value: 'defined', label: 'Defined value' },
];
const TABLE_COLUMNS = ['Destination field', 'Filled', 'Source field or value', 'Transforms', 'Validation', 'Show in buckets'];
const IGNORED: FieldDraft = { kind: 'ignored', source: '', value: '' };

export function MappingStep(props: StepProps) {
  if (!hasMappingEnds(props.formula)) {
    return (
      <Stack>
        <Alert color="yellow" icon={<IconAlertTriangle aria-hidden />} title="Choose the source and destination first">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">The mapping reads the fields of the formula's source and destination.</Text>
            <Button size="xs" variant="light" onClick={() => props.onGoTo('data-sources')}>Go to Data sources</Button>
          </Stack>
        </Alert>
        <StepActions onBack={props.onBack} onSave={() => {}} saving={false} disabled />
      </Stack>
    );
  }
  return props.editor ? <MappingRead step={props} editor={props.editor} /> : null;
}

/** The mapping as the step editor reads it; what could not be read says which service failed, with Try again. */
function MappingRead({ step: props, editor }: { step: StepProps; editor: StepEditorRef }) {
  useStepAnnouncements(editor);
  const { data, unread, error } = useStepRead<MappingData | null>(editor);
  if (unread) {
    return (
      <Stack>
        <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={LOAD_MESSAGES.title}>
          <Stack gap="xs" align="flex-start">
            {/* each reason is a line of the editor's error */}
            {(error ?? '').split('\n').map((m) => <Text key={m} size="sm">{m}</Text>)}
            <Button size="xs" variant="light" onClick={() => editor.send({ type: 'retry' })}>Try again</Button>
          </Stack>
        </Alert>
        <StepActions onBack={props.onBack} onSave={() => {}} saving={false} disabled />
      </Stack>
    );
  }
  if (!data) return <TableSkeleton columns={TABLE_COLUMNS} rows={4} caption="Loading the mapping…" />;
  return <MappingEditor step={props} editor={editor} data={data} />;
}

type Editing = { destination: string; editor: 'transforms' | 'rules' } | null;

/**
 * One row, two objects (src/domain/formula/companion.ts): whether each row also writes a gift,
 * and which source field gives each of its fields. The gift is written after the row's
 * constituent, linked to it; a row with none of these values writes the constituent alone.
 */
function GiftFields({ companion, draft, sourceFields, disabled, onChange }: {
  companion: Companion; draft: GiftDraft; sourceFields: MappingData['source']; disabled: boolean; onChange(gift: GiftDraft): void;
}) {
  const options = [{ value: '', label: 'Not written' }, ...sourceFields.map((f) => ({ value: f.name, label: f.label }))];
  return (
    <Fieldset legend={`Gift from each row`}>
      <Stack gap="sm">
        <Checkbox
          label={`Also write a ${companion.label} from each row`} checked={draft.on} disabled={disabled}
          description={`Each row that carries a ${companion.label} writes it to ${cap(companion.object)} after its ${companion.parentLabel}, linked to it. A row without these values writes the ${companion.parentLabel} alone.`}
          onChange={(e) => onChange({ ...draft, on: e.currentTarget.checked })}
        />
        {draft.on && (
          <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="sm" role="group" aria-label={`${cap(companion.label)} fields`}>
            {Object.keys(draft.sources).map((field) => (
              <NativeSelect
                key={field} label={`${cap(companion.label)} ${(GIFT_FIELD_LABELS[field] ?? field).toLowerCase()}`} required={companion.required.includes(field)} disabled={disabled}
                description="From source field" data={options} value={draft.sources[field]}
                onChange={(e) => onChange({ ...draft, sources: { ...draft.sources, [field]: e.currentTarget.value } })}
              />
            ))}
          </SimpleGrid>
        )}
      </Stack>
    </Fieldset>
  );
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function MappingEditor({ step: props, editor, data }: { step: StepProps; editor: StepEditorRef; data: MappingData }) {
  const { sample, retrySample: onRetrySample } = useSample(editor);
  // the form opens as the editor read it (with the mapping suggested from same-named fields, if any)
  const [form, setForm] = useState<MappingForm>(() => editor.getSnapshot().context.draft as MappingForm);
  const [suggested, setSuggested] = useState(data.suggested);
  const [attempted, setAttempted] = useState(false);
  const [editing, setEditing] = useState<Editing>(null);
  const [pickerOpen, setPickerOpen] = useState(false);
  const errorsRef = useRef<HTMLDivElement>(null);
  const saving = useSelector(editor, (s) => s.matches('saving'));
  const disabled = !props.canEdit || saving;

  // each change of the form is the editor's draft
  const opened = useRef(form);
  useEffect(() => {
    if (form !== opened.current) editor.send({ type: 'draft.change', draft: form });
  }, [form, editor]);
  // once saved, the suggestion is the mapping
  useEffect(() => {
    const sub = editor.on('step.announceSaved', () => setSuggested(0));
    return () => sub.unsubscribe();
  }, [editor]);

  const labels = useMemo(() => new Map(data.destination.map((f) => [f.name, f.label])), [data.destination]);
  const checked = useMemo(() => checkForm(form, data.destination, (n) => labels.get(n) ?? n, data.companion), [form, data.destination, labels, data.companion]);
  const shown = useMemo(() => shownFields(data.destination, form.selected), [data.destination, form.selected]);
  const dropped = useMemo(() => droppedFields([...data.destination, ...data.readOnly], data.saved), [data.destination, data.readOnly, data.saved]);
  // mappings saved before the destination said these fields are its own
  const readOnlyMapped = useMemo(() => droppedFields(data.destination, data.saved)
    .map((name) => data.readOnly.find((f) => f.name === name)?.label).filter((l): l is string => !!l), [data.destination, data.readOnly, data.saved]);
  const firstRow = sample.status === 'ready' ? sample.sample.rows[0] ?? null : null;
  const showErrors = attempted && checked.problems.length > 0;

  // the errors take the focus when a save is first tried, not again as each one is fixed
  useEffect(() => {
    if (attempted) errorsRef.current?.focus();
  }, [attempted]);

  // stable, so a row re-renders only when its own field changes (a picker may show hundreds)
  const setField = useCallback((name: string, change: Partial<FieldDraft>) =>
    setForm((f) => ({ ...f, fields: { ...f.fields, [name]: { ...(f.fields[name] ?? IGNORED), ...change } } })), []);
  const setSummary = useCallback((name: string, on: boolean) =>
    setForm((f) => ({ ...f, summary: on ? [...f.summary.filter((x) => x !== name), name] : f.summary.filter((x) => x !== name) })), []);
  const edit = useCallback((destination: string, editor: 'transforms' | 'rules') => setEditing({ destination, editor }), []);
  const setSteps = (name: string, steps: StepDraft[]) => setForm((f) => ({ ...f, steps: { ...f.steps, [name]: steps } }));
  const setRules = (name: string, rules: RuleDraft[]) => setForm((f) => ({ ...f, rules: { ...f.rules, [name]: rules } }));
  const setSelection = (names: Set<string>) => setForm((f) => ({ ...f, selected: normalSelection(data.destination, names) }));

  const save = () => {
    setAttempted(true);
    const bodies = checked.bodies;
    if (!bodies) {
      errorsRef.current?.focus();
      return;
    }
    editor.send({ type: 'step.save' });
  };

  const editingField = editing ? data.destination.find((f) => f.name === editing.destination) : undefined;
  const editingDraft = editingField ? form.fields[editingField.name] : undefined;
  // the transform editor shows the rows the preview table shows, each before and after the field's steps
  const transformSamples = editingField && editingDraft && editingDraft.kind !== 'ignored' && sample.status === 'ready'
    ? sample.sample.rows.slice(0, PREVIEW_ROWS).map((row) => ({ row, start: mappedValue(fieldMapping(editingField.name, editingDraft), row) }))
    : [];
  const sampleValue = (() => {
    if (!editingField || !firstRow) return undefined;
    const parts = previewParts(form, [editingField]);
    if (parts.incomplete[editingField.name]) return undefined;
    const r = transformRecord(parts.mapping, parts.transform, firstRow);
    const error = r.errors[editingField.name];
    return error !== undefined ? { error } : { value: r.values[editingField.name] ?? null };
  })();

  const requiredUnmapped = shown.filter((f) => f.required && (form.fields[f.name]?.kind ?? 'ignored') === 'ignored');
  const d = props.formula.firstDestinationDataSource!;
  const s = props.formula.sourceDataSource;

  return (
    <Stack gap="md">
      {!props.canEdit && (
        <Alert color="gray" icon={<IconLock aria-hidden />} title={NO_EDIT_PERMISSION}>
          <Text size="sm">You can look at the mapping; a role that edits formulas can change it.</Text>
        </Alert>
      )}
      <Text size="sm">
        How each field of {d.displayName} ({objectLabel(d.system, d.object)}) is filled from {props.formula.usesFileUpload ? 'the uploaded file' : s ? `${s.displayName} (${objectLabel(s.system, s.object)})` : 'the source'}:
        ignored, mapped from a source field, or given a defined value, then transformed and checked.
      </Text>

      {showErrors && (
        <Alert ref={errorsRef} tabIndex={-1} role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={MAPPING_ERRORS_TITLE} data-testid="mapping-errors">
          <List size="sm">{checked.problems.map((p, i) => <List.Item key={i}>{p}</List.Item>)}</List>
        </Alert>
      )}
      {suggested > 0 && (
        <Alert color="blue" icon={<IconWand aria-hidden />} data-testid="mapping-suggested">
          {suggested === 1 ? '1 field was' : `${suggested} fields were`} mapped from source fields with matching names. Check the mapping, then save it.
        </Alert>
      )}
      {dropped.length > 0 && (
        <Alert color="yellow" icon={<IconAlertTriangle aria-hidden />}>
          The destination no longer has {dropped.join(', ')}: {dropped.length === 1 ? 'its mapping is' : 'their mappings are'} left out when you save.
        </Alert>
      )}
      {readOnlyMapped.length > 0 && (
        <Alert color="yellow" icon={<IconAlertTriangle aria-hidden />}>
          The destination sets {readOnlyMapped.join(', ')} itself: {readOnlyMapped.length === 1 ? 'its mapping is' : 'their mappings are'} left out when you save.
        </Alert>
      )}

      <Group justify="space-between" align="flex-end">
        <Title order={3} size="h4">Destination fields</Title>
        {data.destination.length <= FIELD_SELECTION_REQUIRED_ABOVE && (
          <Button size="xs" variant="default" leftSection={<IconFilter size={14} aria-hidden />} aria-expanded={pickerOpen || checked.selectionProblem !== null}
            onClick={() => setPickerOpen((o) => !o)}>
            Choose fields ({shown.length} of {data.destination.length})
          </Button>
        )}
      </Group>
      {(pickerOpen || checked.selectionProblem !== null || data.destination.length > FIELD_SELECTION_REQUIRED_ABOVE) && (
        <FieldPicker fields={data.destination} selected={form.selected} onChange={setSelection} error={checked.selectionProblem} disabled={disabled} />
      )}
      {requiredUnmapped.length > 0 && (
        <Text size="sm" c="yellow.9">Required by the destination and not mapped yet: {requiredUnmapped.map((f) => f.label).join(', ')}.</Text>
      )}

      {shown.length > 0 && (
        // a narrow screen scrolls the table in its container, not the page
        <Table.ScrollContainer minWidth={760} type="native">
          <Table aria-label="Destination fields" verticalSpacing="xs" withTableBorder>
            <Table.Thead>
              <Table.Tr>
                {TABLE_COLUMNS.map((c) => <Table.Th key={c} scope="col">{c}</Table.Th>)}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {shown.map((f) => (
                <FieldRow
                  key={f.name}
                  field={f}
                  draft={form.fields[f.name] ?? IGNORED}
                  sourceFields={data.source}
                  steps={form.steps[f.name]?.length ?? 0}
                  rules={form.rules[f.name]?.length ?? 0}
                  summary={form.summary.includes(f.name)}
                  attempted={attempted}
                  disabled={disabled}
                  onChange={setField}
                  onSummary={setSummary}
                  onEdit={edit}
                />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}

      {data.companion && form.gift && (
        <GiftFields
          companion={data.companion} draft={form.gift} sourceFields={data.source} disabled={disabled}
          onChange={(gift) => setForm((f) => ({ ...f, gift }))}
        />
      )}

      <Title order={3} size="h4">Preview</Title>
      <Text size="sm" c="dimmed">The first {PREVIEW_ROWS} sample rows as the destination would receive them.</Text>
      <MappingPreview form={form} shown={shown} sample={sample} onRetry={onRetrySample} />

      {editingField && editing?.editor === 'transforms' && (
        <TransformEditor
          opened
          onClose={() => setEditing(null)}
          label={editingField.label}
          destination={editingField}
          steps={form.steps[editingField.name] ?? []}
          onChange={(steps) => setSteps(editingField.name, steps)}
          sourceFields={data.source}
          source={editingDraft?.kind === 'source' ? editingDraft.source : ''}
          samples={transformSamples}
          disabled={disabled}
        />
      )}
      {editingField && editing?.editor === 'rules' && (
        <RulesEditor
          opened
          onClose={() => setEditing(null)}
          destination={editingField.name}
          label={editingField.label}
          rules={form.rules[editingField.name] ?? []}
          onChange={(rules) => setRules(editingField.name, rules)}
          sampleValue={sampleValue}
          disabled={disabled}
        />
      )}

      {props.canEdit
        ? <StepActions onBack={props.onBack} onSave={save} saving={saving} />
        : <StepActions onBack={props.onBack} onSave={() => props.onSaved()} saving={false} label="Continue" />}
    </Stack>
  );
}

/** A draft as the mapping the engine reads (for the editors' sample line). */
const fieldMapping = (destination: string, d: FieldDraft) =>
  d.kind === 'source' ? { destination, kind: 'source' as const, source: d.source }
    : d.kind === 'defined' ? { destination, kind: 'defined' as const, value: d.value }
      : { destination, kind: 'ignored' as const };

const FieldRow = memo(function FieldRow({ field, draft, sourceFields, steps, rules, summary, attempted, disabled, onChange, onSummary, onEdit }: {
  field: FieldInfo;
  draft: FieldDraft;
  sourceFields: MappingData['source'];
  steps: number;
  rules: number;
  summary: boolean;
  attempted: boolean;
  disabled: boolean;
  onChange(name: string, change: Partial<FieldDraft>): void;
  onSummary(name: string, on: boolean): void;
  onEdit(name: string, editor: 'transforms' | 'rules'): void;
}) {
  const { errors } = checkField(field.name, draft);
  const error = Object.values(errors)[0];
  // a defined value is checked as it is typed; an empty choice only once a save was tried
  const shownError = draft.kind === 'defined' && draft.value !== '' ? error : attempted ? error : undefined;
  const ignored = draft.kind === 'ignored';
  const known = sourceFields.some((s) => s.name === draft.source);
  const sourceOptions = [
    { value: '', label: 'Choose a field' },
    ...sourceFields.map((s) => ({ value: s.name, label: s.label === s.name ? s.label : `${s.label} (${s.name})` })),
    ...(draft.source && !known ? [{ value: draft.source, label: `${draft.source} (not in the source)` }] : []),
  ];

  return (
    <Table.Tr data-testid={`mapping-row-${field.name}`}>
      <Table.Th scope="row" fw={500}>
        <Text size="sm" fw={500}>{field.label}</Text>
        <Group gap={4}>
          <Text size="xs" c="dimmed">{field.name}</Text>
          {field.required && <Badge size="xs" variant="light" color="orange">Required</Badge>}
        </Group>
      </Table.Th>
      <Table.Td>
        <NativeSelect aria-label={`How ${field.label} is filled`} data={KIND_OPTIONS} value={draft.kind} disabled={disabled}
          onChange={(e) => onChange(field.name, { kind: e.currentTarget.value as MappingKind })} size="xs" />
      </Table.Td>
      <Table.Td>
        {draft.kind === 'source' && (
          <NativeSelect aria-label={`Source field for ${field.label}`} data={sourceOptions} value={draft.source} disabled={disabled}
            error={shownError} onChange={(e) => onChange(field.name, { source: e.currentTarget.value })} size="xs" />
        )}
        {draft.kind === 'defined' && (
          <TextInput aria-label={`Defined value for ${field.label}`} value={draft.value} disabled={disabled} error={shownError} size="xs"
            description="Digits, periods and hyphens" inputMode="decimal" onChange={(e) => onChange(field.name, { value: e.currentTarget.value })} />
        )}
        {ignored && <Text size="xs" c="dimmed">Not sent</Text>}
      </Table.Td>
      <Table.Td>
        <Button size="xs" variant="light" leftSection={<IconWand size={14} aria-hidden />} disabled={ignored} onClick={() => onEdit(field.name, 'transforms')}
          aria-label={`Transforms of ${field.label}${steps ? ` (${steps})` : ''}`}>
          Transforms{steps ? ` (${steps})` : ''}
        </Button>
      </Table.Td>
      <Table.Td>
        <Button size="xs" variant="light" leftSection={<IconChecklist size={14} aria-hidden />} disabled={ignored} onClick={() => onEdit(field.name, 'rules')}
          aria-label={`Validation rules of ${field.label}${rules ? ` (${rules})` : ''}`}>
          Rules{rules ? ` (${rules})` : ''}
        </Button>
      </Table.Td>
      <Table.Td>
        <Checkbox aria-label={`Show ${field.label} in buckets`} checked={summary && !ignored} disabled={disabled || ignored}
          onChange={(e) => onSummary(field.name, e.currentTarget.checked)} />
      </Table.Td>
    </Table.Tr>
  );
});
