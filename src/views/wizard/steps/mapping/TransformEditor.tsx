/**
 * The transforms of one destination field: steps applied in order (added, removed, reordered),
 * each with its settings, SPEC.md section 5's limits and messages, and what the steps make of the
 * preview's sample rows (the rows the table below the fields shows), computed by the engine's own functions.
 */
import type { ReactNode } from 'react';
import { ActionIcon, Button, Fieldset, Group, Modal, NativeSelect, NumberInput, SimpleGrid, Stack, Table, Text, TextInput, Tooltip } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import {
  CASINGS, CONCATENATE_MAX_FIELDS, CONCATENATE_MIN_FIELDS, DATE_UNITS, PLACE_VALUE_NAMES, ROUNDING_MODES, SEPARATOR_NAMES,
  type Casing, type DateUnit, type PlaceValue, type RoundingMode, type Separator,
} from '../../../../domain/formula/constants.ts';
import { applySteps, valueText, type FieldValue } from '../../../../domain/formula/transforms.ts';
import { checkStep, newStep, STEP_LABELS, type StepDraft, type StepKind } from '../../../../domain/formula/mappingForm.ts';
import type { SourceField } from '../../../../machines/wizardSteps.ts';

const SEPARATOR_LABELS: Record<Separator, string> = {
  none: 'None', space: 'Space', comma: 'Comma (,)', dash: 'Dash (-)', period: 'Period (.)', underscore: 'Underscore (_)',
  'forward-slash': 'Forward slash (/)', semicolon: 'Semicolon (;)', colon: 'Colon (:)', crlf: 'Line break (CRLF)',
};
const MODE_LABELS: Record<RoundingMode, string> = { up: 'Up', down: 'Down', 'half-up': 'Half up' };
const PLACE_LABELS: Record<PlaceValue, string> = { ones: 'Ones', tenths: 'Tenths', hundredths: 'Hundredths', thousandths: 'Thousandths' };
const UNIT_LABELS: Record<DateUnit, string> = { year: 'Years', month: 'Months', week: 'Weeks', day: 'Days', hour: 'Hours', minute: 'Minutes' };
const CASE_LABELS: Record<Casing, string> = { upper: 'UPPER CASE', lower: 'lower case', title: 'Title Case', sentence: 'Sentence case' };
const STEP_KINDS = Object.keys(STEP_LABELS) as StepKind[];

const options = <K extends string>(keys: readonly K[], labels: Record<K, string>) => keys.map((k) => ({ value: k, label: labels[k] }));
/** a NumberInput's value as the draft keeps it: a number, or '' while it is not one */
const typed = (x: number | string): number | '' => (typeof x === 'number' && Number.isFinite(x) ? x : '');
const shown = (value: FieldValue) => (value === null || value === '' ? '(empty)' : `“${valueText(value)}”`);

export function TransformEditor({ opened, onClose, label, destination, steps, onChange, sourceFields, source, samples, disabled }: {
  opened: boolean;
  onClose(): void;
  label: string;
  /** the destination field the steps write: a new change of case suits it */
  destination: { name: string; type?: string };
  steps: StepDraft[];
  onChange(steps: StepDraft[]): void;
  sourceFields: SourceField[];
  /** the field's source field, which a new concatenation starts with */
  source: string;
  /** the preview's sample rows (the same rows as the table below the fields), each with the field's value before its steps */
  samples: { row: Record<string, unknown>; start: FieldValue }[];
  disabled: boolean;
}) {
  // a phone's screen is the editor's
  const small = useMediaQuery('(max-width: 36em)');
  const update = (i: number, change: Partial<StepDraft>) => onChange(steps.map((s, j) => (j === i ? { ...s, ...change } as StepDraft : s)));
  const move = (i: number, by: -1 | 1) => {
    const next = [...steps];
    [next[i], next[i + by]] = [next[i + by]!, next[i]!];
    onChange(next);
  };
  const checked = steps.map(checkStep);
  const complete = checked.every((c) => c.body);
  const bodies = complete ? checked.map((c) => c.body!) : null;
  const fieldOptions = [{ value: '', label: 'Choose a field' }, ...sourceFields.map((f) => ({ value: f.name, label: f.label }))];

  return (
    <Modal opened={opened} onClose={onClose} fullScreen={small} title={`Transforms of ${label}`} size="lg">
      <Stack>
        <Text size="sm" c="dimmed">Applied in order to the field's value before it is sent.</Text>
        {steps.length === 0 && <Text size="sm">No transforms yet.</Text>}
        {steps.map((step, i) => {
          const errors = checked[i]!.errors;
          const error = (key: string) => errors[key];
          let settings: ReactNode;
          switch (step.kind) {
            case 'concatenate':
              settings = (
                <Stack gap="xs">
                  {step.fields.map((f, k) => (
                    <Group key={k} gap="xs" align="flex-end" wrap="nowrap">
                      <NativeSelect
                        style={{ flex: 1 }} label={`Field ${k + 1}`} data={fieldOptions} value={f} disabled={disabled} error={error(`fields.${k}`)}
                        onChange={(e) => update(i, { fields: step.fields.map((x, m) => (m === k ? e.currentTarget.value : x)) })}
                      />
                      {step.fields.length > CONCATENATE_MIN_FIELDS && (
                        <Tooltip label="Remove field">
                          <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove field ${k + 1}`} disabled={disabled}
                            onClick={() => update(i, { fields: step.fields.filter((_, m) => m !== k) })}>
                            <IconTrash size={16} aria-hidden />
                          </ActionIcon>
                        </Tooltip>
                      )}
                    </Group>
                  ))}
                  {error('fields') && <Text size="sm" c="red">{error('fields')}</Text>}
                  <Group gap="xs" align="flex-end">
                    <Button size="xs" variant="default" leftSection={<IconPlus size={14} aria-hidden />}
                      disabled={disabled || step.fields.length >= CONCATENATE_MAX_FIELDS} onClick={() => update(i, { fields: [...step.fields, ''] })}>
                      Add field
                    </Button>
                    <NativeSelect label="Separator" data={options(SEPARATOR_NAMES, SEPARATOR_LABELS)} value={step.separator} disabled={disabled}
                      onChange={(e) => update(i, { separator: e.currentTarget.value as Separator })} />
                  </Group>
                  <Text size="xs" c="dimmed">{CONCATENATE_MIN_FIELDS} to {CONCATENATE_MAX_FIELDS} fields; empty values are skipped.</Text>
                </Stack>
              );
              break;
            case 'shorten':
              settings = (
                <NumberInput label="Character limit" min={1} allowDecimal={false} allowNegative={false} clampBehavior="none" value={step.limit} disabled={disabled}
                  error={error('limit')} onChange={(x) => update(i, { limit: typed(x) })} />
              );
              break;
            case 'split':
              settings = (
                <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
                  <TextInput label="Splitter" value={step.splitter} disabled={disabled} error={error('splitter')} onChange={(e) => update(i, { splitter: e.currentTarget.value })} />
                  <NumberInput label="Position" description="1 is the first part" min={1} allowDecimal={false} allowNegative={false} clampBehavior="none"
                    value={step.position} disabled={disabled} error={error('position')} onChange={(x) => update(i, { position: typed(x) })} />
                </SimpleGrid>
              );
              break;
            case 'adjust-date':
              settings = (
                <SimpleGrid cols={{ base: 1, xs: 3 }} spacing="xs">
                  <NativeSelect label="Direction" data={[{ value: 'add', label: 'Add' }, { value: 'subtract', label: 'Subtract' }]} value={step.direction} disabled={disabled}
                    onChange={(e) => update(i, { direction: e.currentTarget.value as 'add' | 'subtract' })} />
                  <NumberInput label="Amount" min={1} allowDecimal={false} allowNegative={false} clampBehavior="none" value={step.amount} disabled={disabled}
                    error={error('amount')} onChange={(x) => update(i, { amount: typed(x) })} />
                  <NativeSelect label="Unit" data={options(DATE_UNITS, UNIT_LABELS)} value={step.unit} disabled={disabled}
                    onChange={(e) => update(i, { unit: e.currentTarget.value as DateUnit })} />
                </SimpleGrid>
              );
              break;
            case 'round':
              settings = (
                <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
                  <NativeSelect label="Rounding" data={options(ROUNDING_MODES, MODE_LABELS)} value={step.mode} disabled={disabled}
                    onChange={(e) => update(i, { mode: e.currentTarget.value as RoundingMode })} />
                  <NativeSelect label="To the" data={options(PLACE_VALUE_NAMES, PLACE_LABELS)} value={step.place} disabled={disabled}
                    onChange={(e) => update(i, { place: e.currentTarget.value as PlaceValue })} />
                </SimpleGrid>
              );
              break;
            case 'case':
              settings = (
                <NativeSelect label="Case" data={options(CASINGS, CASE_LABELS)} value={step.to} disabled={disabled}
                  onChange={(e) => update(i, { to: e.currentTarget.value as Casing })} />
              );
              break;
          }
          return (
            <Fieldset key={step.id} legend={`Step ${i + 1}: ${STEP_LABELS[step.kind]}`} p="sm">
              <Stack gap="xs">
                {settings}
                <Group gap={4} justify="flex-end">
                  <Tooltip label="Move up">
                    <ActionIcon variant="subtle" aria-label={`Move step ${i + 1} up`} disabled={disabled || i === 0} onClick={() => move(i, -1)}>
                      <IconArrowUp size={16} aria-hidden />
                    </ActionIcon>
                  </Tooltip>
                  <Tooltip label="Move down">
                    <ActionIcon variant="subtle" aria-label={`Move step ${i + 1} down`} disabled={disabled || i === steps.length - 1} onClick={() => move(i, 1)}>
                      <IconArrowDown size={16} aria-hidden />
                    </ActionIcon>
                  </Tooltip>
                  <Tooltip label="Remove">
                    <ActionIcon variant="subtle" color="red" aria-label={`Remove step ${i + 1}`} disabled={disabled} onClick={() => onChange(steps.filter((_, j) => j !== i))}>
                      <IconTrash size={16} aria-hidden />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Stack>
            </Fieldset>
          );
        })}

        {!disabled && (
          <div role="group" aria-label="Add a transform">
            <Text size="sm" fw={500} mb={4}>Add a transform</Text>
            <Group gap="xs">
              {STEP_KINDS.map((kind) => (
                <Button key={kind} size="xs" variant="light" leftSection={<IconPlus size={14} aria-hidden />} onClick={() => onChange([...steps, newStep(kind, source, destination)])}>
                  {STEP_LABELS[kind]}
                </Button>
              ))}
            </Group>
          </div>
        )}

        {samples.length > 0 && <Text size="sm" fw={500}>The preview's sample rows, before and after these steps</Text>}
        {samples.length > 0 && (
          <Table aria-label="Sample rows before and after" withTableBorder verticalSpacing={4} fz="sm">
            <Table.Thead>
              <Table.Tr><Table.Th scope="col">Row</Table.Th><Table.Th scope="col">Before</Table.Th><Table.Th scope="col">After</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {samples.map(({ row, start }, i) => {
                const result = bodies ? applySteps(bodies, start, row) : null;
                return (
                  <Table.Tr key={i}>
                    <Table.Th scope="row">{i + 1}</Table.Th>
                    <Table.Td>{shown(start)}</Table.Td>
                    <Table.Td>{!result ? 'complete the steps to see the result' : result.ok ? shown(result.value) : <Text span size="sm" c="red">{result.error}</Text>}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        )}
        <Group justify="flex-end">
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
