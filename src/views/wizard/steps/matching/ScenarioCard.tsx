/** One search scenario: its name, its criteria (source field matches destination field), its match reason and, in tiers, primary or secondary. */
import { ActionIcon, Button, Fieldset, Group, Radio, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconPlus, IconX } from '@tabler/icons-react';
import { MAX_SCENARIO_CRITERIA } from '../../../../domain/formula/constants.ts';
import { blankCriterion, type CriterionForm, type ScenarioForm } from '../../../../domain/formula/matchingForm.ts';
import { OrderControls, removed, replaced, type FieldOption } from './stepForm.tsx';

export interface ScenarioCardProps {
  scenario: ScenarioForm;
  index: number;
  count: number;
  /** Advanced Matching Settings: the scenario is primary or secondary */
  tiers: boolean;
  sourceOptions: FieldOption[];
  /** the destination fields a scenario can search by */
  destinationOptions: FieldOption[];
  /** the schema's messages under `scenarios.{index}`, by the rest of their path */
  errors: Record<string, string>;
  disabled: boolean;
  onChange(scenario: ScenarioForm): void;
  onMove(from: number, to: number): void;
  onRemove(index: number): void;
}

export function ScenarioCard({ scenario, index, count, tiers, sourceOptions, destinationOptions, errors, disabled, onChange, onMove, onRemove }: ScenarioCardProps) {
  const title = `Scenario ${index + 1}`;
  const set = (patch: Partial<ScenarioForm>) => onChange({ ...scenario, ...patch });
  const setCriterion = (j: number, patch: Partial<CriterionForm>) => set({ criteria: replaced(scenario.criteria, j, { ...scenario.criteria[j]!, ...patch }) });
  return (
    <Fieldset legend={title} data-testid="scenario" p="sm">
      <Stack gap="sm">
        <Group justify="space-between" align="flex-end" wrap="wrap" gap="xs">
          <TextInput
            label="Scenario name" value={scenario.name} error={errors.name} disabled={disabled} style={{ flex: '1 1 14rem', maxWidth: '32rem' }}
            onChange={(e) => set({ name: e.currentTarget.value })}
          />
          {!disabled && <OrderControls name={`scenario ${index + 1}`} index={index} count={count} onMove={onMove} onRemove={onRemove} />}
        </Group>

        <Stack gap="xs">
          <Text size="sm" fw={500}>Criteria: all must match</Text>
          {scenario.criteria.map((c, j) => (
            <Group
              key={c.key} role="group" aria-label={`Criterion ${j + 1}`} align="flex-start" gap="xs" wrap="wrap"
              p="xs" bd="1px solid var(--mantine-color-default-border)" style={{ borderRadius: 'var(--mantine-radius-sm)' }}
            >
              <Select
                label="Source field" placeholder="Choose a field" data={sourceOptions} value={c.source || null} searchable
                error={errors[`criteria.${j}.source`]} disabled={disabled} style={{ flex: '1 1 10rem' }}
                onChange={(value) => setCriterion(j, { source: value ?? '' })}
              />
              <Text size="sm" mt={30} aria-hidden>matches</Text>
              <Select
                label="Destination field" placeholder="Choose a field" data={destinationOptions} value={c.destination || null} searchable
                error={errors[`criteria.${j}.destination`]} disabled={disabled} style={{ flex: '1 1 10rem' }}
                onChange={(value) => setCriterion(j, { destination: value ?? '' })}
              />
              {!disabled && (
                <ActionIcon
                  variant="subtle" color="red" mt={28} aria-label={`Remove criterion ${j + 1}`} disabled={scenario.criteria.length === 1}
                  onClick={() => set({ criteria: removed(scenario.criteria, j) })}
                >
                  <IconX size={18} aria-hidden />
                </ActionIcon>
              )}
            </Group>
          ))}
          {errors.criteria && <Text size="sm" c="red">{errors.criteria}</Text>}
          {!disabled && (
            <Button
              variant="subtle" size="xs" leftSection={<IconPlus size={14} aria-hidden />} style={{ alignSelf: 'flex-start' }}
              disabled={scenario.criteria.length >= MAX_SCENARIO_CRITERIA}
              onClick={() => set({ criteria: [...scenario.criteria, blankCriterion()] })}
            >
              Add criterion
            </Button>
          )}
        </Stack>

        <TextInput
          label="Match reason" description="Shown with each record this scenario finds." value={scenario.matchReason}
          error={errors.matchReason} disabled={disabled} onChange={(e) => set({ matchReason: e.currentTarget.value })}
        />
        {tiers && (
          <Radio.Group
            label="Search tier" value={scenario.isPrimary ? 'primary' : 'secondary'} error={errors.isPrimary}
            onChange={(value) => set({ isPrimary: value === 'primary' })}
          >
            <Group gap="lg" mt={4}>
              <Radio value="primary" label="Primary" disabled={disabled} />
              <Radio value="secondary" label="Secondary" disabled={disabled} />
            </Group>
          </Radio.Group>
        )}
      </Stack>
    </Fieldset>
  );
}
