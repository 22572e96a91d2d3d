/**
 * One condition of a routing rule: what it reads (matching data, transformed data or raw source),
 * which field, the operator, and the value input the operator takes: none for is blank / is not
 * blank, a list for is not one of / does not contain one of, one value otherwise.
 */
import { ActionIcon, Group, Select, Stack, TagsInput, Text, TextInput } from '@mantine/core';
import { IconX } from '@tabler/icons-react';
import { ROUTING_OPERATOR_NAMES, ROUTING_OPERATORS, SOURCE_TYPE_NAMES, SOURCE_TYPES, type RoutingOperator, type SourceType } from '../../../../domain/formula/constants.ts';
import { isMatchingField, MATCHING_FIELDS } from '../../../../domain/formula/routingFields.ts';
import type { FieldOption } from '../matching/stepForm.tsx';
import { valueShape, type ConditionForm } from '../../../../domain/formula/customRoutingForm.ts';

const SOURCE_TYPE_OPTIONS = SOURCE_TYPE_NAMES.map((t) => ({ value: t, label: SOURCE_TYPES[t][0]!.toUpperCase() + SOURCE_TYPES[t].slice(1) }));
const OPERATOR_OPTIONS = ROUTING_OPERATOR_NAMES.map((o) => ({ value: o, label: ROUTING_OPERATORS[o] }));

export interface ConditionRowProps {
  condition: ConditionForm;
  index: number;
  /** the fields each source type offers */
  fields: Record<SourceType, FieldOption[]>;
  /** the schema's messages under this condition, by the rest of their path */
  errors: Record<string, string>;
  disabled: boolean;
  removable: boolean;
  onChange(condition: ConditionForm): void;
  onRemove(): void;
}

const grow = { flex: '1 1 9rem', minWidth: 0 };

export function ConditionRow({ condition: c, index, fields, errors, disabled, removable, onChange, onRemove }: ConditionRowProps) {
  const set = (patch: Partial<ConditionForm>) => onChange({ ...c, ...patch });
  const shape = valueShape(c.operator);
  return (
    <Stack
      role="group" aria-label={`Condition ${index + 1}`} gap={4} p="xs" data-testid="condition"
      bd="1px solid var(--mantine-color-default-border)" style={{ borderRadius: 'var(--mantine-radius-sm)' }}
    >
      <Group justify="space-between" gap="xs" mih={28}>
        <Text size="xs" c="dimmed" aria-hidden>Condition {index + 1}</Text>
        {!disabled && (
          <ActionIcon variant="subtle" color="red" aria-label={`Remove condition ${index + 1}`} disabled={!removable} onClick={onRemove}>
            <IconX size={18} aria-hidden />
          </ActionIcon>
        )}
      </Group>
      <Group align="flex-start" gap="xs" wrap="wrap">
        <Select
          label="Data" data={SOURCE_TYPE_OPTIONS} value={c.sourceType} allowDeselect={false} error={errors.sourceType} disabled={disabled}
          // wide enough for 'Transformed data' on a phone
          style={{ flex: '1 1 10rem', minWidth: 0 }}
          // a field of one kind of data is not a field of another
          onChange={(value) => value && value !== c.sourceType && set({ sourceType: value as SourceType, field: '' })}
        />
        <Select
          label="Field" placeholder="Choose a field" data={fields[c.sourceType]} value={c.field || null} searchable
          error={errors.field} disabled={disabled} style={grow} onChange={(value) => set({ field: value ?? '' })}
        />
        <Select
          label="Operator" data={OPERATOR_OPTIONS} value={c.operator} allowDeselect={false} error={errors.operator} disabled={disabled} style={grow}
          onChange={(value) => value && set({ operator: value as RoutingOperator })}
        />
        {shape === 'one' && (
          <TextInput
            label="Value" value={c.values[0] ?? ''} error={errors.values} disabled={disabled} style={grow}
            onChange={(e) => set({ values: [e.currentTarget.value] })}
          />
        )}
        {shape === 'list' && (
          <TagsInput
            label="Values" description="Press Enter after each value" value={c.values.filter((x) => x !== '')} error={errors.values}
            disabled={disabled} style={{ flex: '2 1 14rem', minWidth: 0 }} onChange={(values) => set({ values })}
          />
        )}
      </Group>
      {c.sourceType === 'matching' && isMatchingField(c.field) && <Text size="xs" c="dimmed">{MATCHING_FIELDS[c.field].description}.</Text>}
    </Stack>
  );
}
