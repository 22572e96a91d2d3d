/** One custom routing rule: its action (omit the records, or route them to Ready or Needs Attention) and the conditions that must all hold. */
import { Button, Fieldset, Group, Select, Stack, Text } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { MAX_RULE_CONDITIONS, type SourceType } from '../../../../domain/formula/constants.ts';
import { OrderControls, removed, replaced, under, type FieldOption } from '../matching/stepForm.tsx';
import { ConditionRow } from './ConditionRow.tsx';
import { blankCondition, RULE_ACTIONS, type RuleAction, type RuleForm } from '../../../../domain/formula/customRoutingForm.ts';

export interface RuleCardProps {
  rule: RuleForm;
  index: number;
  count: number;
  fields: Record<SourceType, FieldOption[]>;
  /** the schema's messages under `rules.{index}`, by the rest of their path */
  errors: Record<string, string>;
  disabled: boolean;
  onChange(rule: RuleForm): void;
  onMove(from: number, to: number): void;
  onRemove(index: number): void;
}

export function RuleCard({ rule, index, count, fields, errors, disabled, onChange, onMove, onRemove }: RuleCardProps) {
  const set = (patch: Partial<RuleForm>) => onChange({ ...rule, ...patch });
  return (
    <Fieldset legend={`Rule ${index + 1}`} p="sm" data-testid="rule">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" wrap="wrap" gap="xs">
          <Select
            label="Action" data={RULE_ACTIONS} value={rule.action} allowDeselect={false} error={errors.target ?? errors.action}
            disabled={disabled} style={{ flex: '1 1 14rem', maxWidth: '32rem' }} onChange={(value) => value && set({ action: value as RuleAction })}
          />
          {!disabled && <OrderControls name={`rule ${index + 1}`} index={index} count={count} onMove={onMove} onRemove={onRemove} />}
        </Group>
        <Text size="sm" fw={500}>When all of these conditions hold</Text>
        {rule.conditions.map((c, j) => (
          <ConditionRow
            key={c.key} condition={c} index={j} fields={fields} errors={under(errors, `conditions.${j}`)} disabled={disabled}
            removable={rule.conditions.length > 1}
            onChange={(condition) => set({ conditions: replaced(rule.conditions, j, condition) })}
            onRemove={() => set({ conditions: removed(rule.conditions, j) })}
          />
        ))}
        {errors.conditions && <Text size="sm" c="red">{errors.conditions}</Text>}
        {!disabled && (
          <Button
            variant="subtle" size="xs" leftSection={<IconPlus size={14} aria-hidden />} style={{ alignSelf: 'flex-start' }}
            disabled={rule.conditions.length >= MAX_RULE_CONDITIONS} onClick={() => set({ conditions: [...rule.conditions, blankCondition()] })}
          >
            Add condition
          </Button>
        )}
      </Stack>
    </Fieldset>
  );
}
