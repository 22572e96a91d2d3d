/**
 * Auto Pick conditions: among several candidates, the one whose chosen fields all match the
 * record exactly (scoring at least the minimum, when one is given) is picked. Two conditions on the
 * same fields are warned of, not refused.
 */
import { Alert, Button, Fieldset, Group, MultiSelect, NumberInput, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconPlus } from '@tabler/icons-react';
import { MAX_AUTO_PICK_CONDITIONS, MAX_CONFIDENCE_SCORE } from '../../../../domain/formula/constants.ts';
import { duplicateAutoPicks, PART_MESSAGES } from '../../../../domain/formula/parts.ts';
import { blankAutoPick, type AutoPickForm } from '../../../../domain/formula/matchingForm.ts';
import { moved, OrderControls, removed, replaced, SectionIntro, type FieldOption } from './stepForm.tsx';

export interface AutoPickConditionsProps {
  conditions: AutoPickForm[];
  fieldOptions: FieldOption[];
  /** the schema's messages under `autoPick`, by the rest of their path ('' for the list) */
  errors: Record<string, string>;
  disabled: boolean;
  onChange(conditions: AutoPickForm[]): void;
}

export function AutoPickConditions({ conditions, fieldOptions, errors, disabled, onChange }: AutoPickConditionsProps) {
  const duplicates = new Set(duplicateAutoPicks(conditions));
  const set = (k: number, patch: Partial<AutoPickForm>) => onChange(replaced(conditions, k, { ...conditions[k]!, ...patch }));
  return (
    <Stack gap="sm">
      <SectionIntro title="Auto Pick">
        When a search finds several records, Auto Pick picks the one whose chosen fields all match the incoming record exactly, and the
        record goes on as a single match. Conditions are tried in order; the first that picks a record decides.
      </SectionIntro>
      {conditions.length === 0 && <Text size="sm">No Auto Pick conditions: records with several matches are reviewed.</Text>}
      {conditions.map((c, k) => (
        <Fieldset key={c.key} legend={`Auto Pick condition ${k + 1}`} p="sm" data-testid="auto-pick">
          <Stack gap="xs">
            <Group align="flex-start" gap="xs" wrap="wrap">
              <MultiSelect
                label="Fields that must match exactly" placeholder={c.fields.length ? undefined : 'Choose fields'} data={fieldOptions} value={c.fields}
                searchable error={errors[`${k}.fields`]} disabled={disabled} style={{ flex: '2 1 14rem' }}
                onChange={(fields) => set(k, { fields })}
              />
              <NumberInput
                label="Minimum confidence score" description="Optional, 0 to 100" min={0} max={MAX_CONFIDENCE_SCORE} allowDecimal={false}
                value={c.minScore} error={errors[`${k}.minScore`]} disabled={disabled} style={{ flex: '1 1 9rem' }}
                onChange={(value) => set(k, { minScore: value === '' ? '' : Number(value) })}
              />
              {!disabled && (
                <Group mt={28}>
                  <OrderControls
                    name={`Auto Pick condition ${k + 1}`} index={k} count={conditions.length}
                    onMove={(from, to) => onChange(moved(conditions, from, to))} onRemove={(i) => onChange(removed(conditions, i))}
                  />
                </Group>
              )}
            </Group>
            {duplicates.has(k) && (
              <Alert color="yellow" icon={<IconAlertTriangle aria-hidden />} p="xs" role="status">
                {PART_MESSAGES.duplicateAutoPick}: this condition repeats an earlier one.
              </Alert>
            )}
          </Stack>
        </Fieldset>
      ))}
      {errors[''] && <Text size="sm" c="red">{errors['']}</Text>}
      {!disabled && (
        <Button
          variant="light" leftSection={<IconPlus size={16} aria-hidden />} style={{ alignSelf: 'flex-start' }}
          disabled={conditions.length >= MAX_AUTO_PICK_CONDITIONS} onClick={() => onChange([...conditions, blankAutoPick()])}
        >
          Add Auto Pick condition
        </Button>
      )}
    </Stack>
  );
}
