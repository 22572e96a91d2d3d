/**
 * The validation rules of one destination field: each rule (required, e-mail, phone, length, one
 * of) names the custom validation-exceptions bucket a record failing it goes to, and says what it
 * makes of the first sample row.
 */
import type { ReactNode } from 'react';
import { ActionIcon, Button, Fieldset, Group, Modal, NativeSelect, NumberInput, SimpleGrid, Stack, Text, Textarea, TextInput, Tooltip } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import type { FieldValue } from '../../../../domain/formula/transforms.ts';
import { RULE_LABELS, validateValue } from '../../../../domain/formula/validationRules.ts';
import { checkRule, newRule, type RuleDraft, type RuleName } from '../../../../domain/formula/mappingForm.ts';

const RULE_NAMES = Object.keys(RULE_LABELS) as RuleName[];
const typed = (x: number | string): number | '' => (typeof x === 'number' && Number.isFinite(x) ? x : '');

export function RulesEditor({ opened, onClose, destination, label, rules, onChange, sampleValue, disabled }: {
  opened: boolean;
  onClose(): void;
  destination: string;
  label: string;
  rules: RuleDraft[];
  onChange(rules: RuleDraft[]): void;
  /** the field's transformed value in the first sample row; undefined when there is none to show */
  sampleValue: { value: FieldValue } | { error: string } | undefined;
  disabled: boolean;
}) {
  // a phone's screen is the editor's
  const small = useMediaQuery('(max-width: 36em)');
  const update = (i: number, change: Partial<RuleDraft>) => onChange(rules.map((r, j) => (j === i ? { ...r, ...change } : r)));

  return (
    <Modal opened={opened} onClose={onClose} fullScreen={small} title={`Validation rules of ${label}`} size="lg">
      <Stack>
        <Text size="sm" c="dimmed">A record whose value breaks a rule goes to the rule's validation-exceptions bucket instead of on.</Text>
        {rules.length === 0 && <Text size="sm">No validation rules yet.</Text>}
        {rules.map((rule, i) => {
          const { body, errors } = checkRule(destination, rule);
          const whole = errors[''];
          let settings: ReactNode = null;
          if (rule.rule === 'length') {
            settings = (
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="xs">
                <NumberInput label="Minimum length" min={0} allowDecimal={false} allowNegative={false} clampBehavior="none" value={rule.min} disabled={disabled}
                  error={errors.min} onChange={(x) => update(i, { min: typed(x) })} />
                <NumberInput label="Maximum length" min={1} allowDecimal={false} allowNegative={false} clampBehavior="none" value={rule.max} disabled={disabled}
                  error={errors.max} onChange={(x) => update(i, { max: typed(x) })} />
              </SimpleGrid>
            );
          } else if (rule.rule === 'one-of') {
            settings = (
              <Textarea label="Allowed values" description="One a line; capitalisation does not matter" autosize minRows={2} maxRows={8} value={rule.values}
                disabled={disabled} error={errors.values} onChange={(e) => update(i, { values: e.currentTarget.value })} />
            );
          }
          const verdict = body && sampleValue
            ? 'error' in sampleValue ? null : validateValue(body, sampleValue.value)
            : undefined;
          return (
            <Fieldset key={rule.id} legend={`Rule ${i + 1}: ${RULE_LABELS[rule.rule]}`} p="sm">
              <Stack gap="xs">
                <NativeSelect label="Rule" data={RULE_NAMES.map((r) => ({ value: r, label: RULE_LABELS[r] }))} value={rule.rule} disabled={disabled}
                  onChange={(e) => update(i, { rule: e.currentTarget.value as RuleName })} />
                {settings}
                {whole && <Text size="sm" c="red">{whole}</Text>}
                <TextInput label="Bucket for failing records" description="The validation-exceptions bucket these records go to" value={rule.bucket}
                  disabled={disabled} error={errors.bucket} onChange={(e) => update(i, { bucket: e.currentTarget.value })} />
                <Group justify="space-between" wrap="nowrap">
                  <Text size="xs" c="dimmed">
                    {verdict === undefined ? '' : verdict === null ? 'The first sample row passes.' : `The first sample row fails: ${verdict}`}
                  </Text>
                  <Tooltip label="Remove">
                    <ActionIcon variant="subtle" color="red" aria-label={`Remove rule ${i + 1}`} disabled={disabled} onClick={() => onChange(rules.filter((_, j) => j !== i))}>
                      <IconTrash size={16} aria-hidden />
                    </ActionIcon>
                  </Tooltip>
                </Group>
              </Stack>
            </Fieldset>
          );
        })}
        <Group justify="space-between">
          {!disabled
            ? <Button variant="light" leftSection={<IconPlus size={14} aria-hidden />} onClick={() => onChange([...rules, newRule(label)])}>Add rule</Button>
            : <span />}
          <Button onClick={onClose}>Done</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
