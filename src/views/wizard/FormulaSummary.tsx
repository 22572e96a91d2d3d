/**
 * Every part of a formula in words: name, source and destination with their objects and
 * settings, mapping, transformations, validation rules, summary fields, matching, routing,
 * autosend and schedule. The review step shows it with a link back to each part's step; the
 * printable review (/{formulaId}/print-formula-review) shows it without.
 */
import type { ReactNode } from 'react';
import { Button, Group, List, Stack, Table, Text, Title } from '@mantine/core';
import { connectorFor } from '../../domain/connectors/catalogue.ts';
import { additionalSettingsFor } from '../../domain/connectors/types.ts';
import { fieldApplies, formFields } from '../../domain/connectors/fields.ts';
import {
  ROUTE_TARGETS, ROUTING_OPERATORS, SEPARATORS, SINGLE_MATCH_ROUTES, SOURCE_TYPES,
} from '../../domain/formula/constants.ts';
import { companionOf, GIFT_FIELD_LABELS } from '../../domain/formula/companion.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import {
  FORMULA_PART_NAMES, FORMULA_PARTS, type FormulaPartBody, type FormulaPartName, type RoutingCondition, type Schedule, type TransformStep,
  type ValidationRule,
} from '../../domain/formula/parts.ts';
import type { WizardStep } from '../../domain/formula/wizard.ts';
import type { FormulaView } from '../../domain/api/formulas.ts';

export type SummaryParts = { [P in FormulaPartName]?: FormulaPartBody[P] | null };

/** The step where each part is edited (routing's depends on the custom-routing flag). */
export function stepOfPart(part: FormulaPartName, customRouting: boolean): WizardStep {
  const routing: WizardStep = customRouting ? 'custom-routing' : 'routing';
  const steps: Record<FormulaPartName, WizardStep> = {
    // the mapping step edits transforms, validation rules and the fields shown in the buckets too
    mapping: 'mapping', transform: 'mapping', validation: 'mapping', 'summary-fields': 'mapping', gift: 'mapping',
    matching: 'matching',
    routing, autosend: routing,
    schedule: 'scheduling',
  };
  return steps[part];
}

// ------------------------------------------------------------------------------- in words

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function describeSchedule(s: Schedule): string {
  if (s.mode === 'continuous') return 'Continuously, checking for new records every few minutes';
  const when = s.frequency === 'daily' ? 'Daily' : `Weekly on ${cap(s.day)}`;
  return `${when} at ${s.time} (${s.timeZone})`;
}

export function describeTransformStep(t: TransformStep): string {
  switch (t.kind) {
    case 'concatenate': return `join ${t.fields.join(', ')} with ${t.separator === 'none' ? 'nothing' : `${t.separator} (${JSON.stringify(SEPARATORS[t.separator])})`} between`;
    case 'shorten': return `shorten to ${plural(t.limit, 'character')}`;
    case 'split': return `split at "${t.splitter}" and keep part ${t.position}`;
    case 'adjust-date': return `${t.direction} ${plural(t.amount, t.unit)}`;
    case 'round': return `round ${t.mode.replace('-', ' ')} to the ${t.place}`;
    case 'case': return `change to ${t.to} case`;
  }
}

export function describeRule(r: ValidationRule): string {
  const what = (() => {
    switch (r.rule) {
      case 'required': return 'is required';
      case 'email': return 'must be an e-mail address';
      case 'phone': return 'must be a phone number';
      case 'length': return r.min !== undefined && r.max !== undefined ? `has ${r.min} to ${r.max} characters` : r.min !== undefined ? `has at least ${plural(r.min, 'character')}` : `has at most ${plural(r.max!, 'character')}`;
      case 'one-of': return `is one of ${r.values.join(', ')}`;
    }
  })();
  return `${r.destination} ${what}; otherwise the record goes to ${r.bucket}`;
}

const describeCondition = (c: RoutingCondition) =>
  `${c.field} (${SOURCE_TYPES[c.sourceType]}) ${ROUTING_OPERATORS[c.operator]}${c.values.length ? ` ${c.values.join(', ')}` : ''}`;

// ------------------------------------------------------------------------------- rendering

function Section({ title, step, onGoTo, children, testId }: { title: string; step?: WizardStep; onGoTo?: (step: WizardStep) => void; children: ReactNode; testId: string }) {
  const id = `summary-${testId}`;
  return (
    <section aria-labelledby={id} data-summary={testId} className="formula-summary-section">
      <Group justify="space-between" wrap="nowrap" gap="xs" align="baseline">
        <Title order={3} size="h5" id={id}>{title}</Title>
        {onGoTo && step && (
          <Button variant="subtle" size="compact-sm" onClick={() => onGoTo(step)} aria-label={`Edit ${title}`} className="formula-summary-edit">
            Edit
          </Button>
        )}
      </Group>
      <Stack gap={4} mt={4}>{children}</Stack>
    </section>
  );
}

const NotSet = () => <Text size="sm" c="dimmed">Not set up yet</Text>;
const Line = ({ children }: { children: ReactNode }) => <Text size="sm" style={{ overflowWrap: 'anywhere' }}>{children}</Text>;

function EndSummary({ end, role, labels }: { end: FormulaView['sourceDataSource']; role: 'source' | 'destination'; labels: Record<string, string> }) {
  if (!end) return <NotSet />;
  const def = connectorFor(end.system);
  const label = labels[`${end.dataSourceId}/${end.object}`] ?? def.objects.find((o) => o.name === end.object)?.label ?? (end.object === '*' ? 'All files' : end.object);
  const objectName = end.system === 'file-upload' ? 'Sample file' : 'Object';
  return (
    <>
      <Line>Data source: {end.displayName} ({def.name})</Line>
      <Line>{objectName}: {label}</Line>
      {role === 'source' && end.settings.reportId && <Line>Salesforce report: {end.settings.reportId}</Line>}
    </>
  );
}

function SettingsSummary({ end, role }: { end: NonNullable<FormulaView['sourceDataSource']>; role: 'source' | 'destination' }) {
  const schema = additionalSettingsFor(connectorFor(end.system), role, end.object);
  if (!schema) return <NotSet />;
  const fields = formFields(schema).filter((f) => fieldApplies(f, end.settings) && end.settings[f.key]);
  if (!fields.length) return <Line>Defaults ({formFields(schema).map((f) => f.label).join(', ')} not set)</Line>;
  return (
    <>
      {fields.map((f) => (
        <Line key={f.key}>{f.label}: {f.options?.find((o) => o.value === end.settings[f.key])?.label ?? end.settings[f.key]}</Line>
      ))}
    </>
  );
}

export interface FormulaSummaryProps {
  formula: FormulaView;
  parts: SummaryParts;
  objectLabels?: Record<string, string>;
  /** the destination fields' labels by name (the mapping shows names where one is missing) */
  fieldLabels?: Record<string, string>;
  /** the source's fields' labels by name (a file's columns are their names) */
  sourceFieldLabels?: Record<string, string>;
  customRouting: boolean;
  /** with it, each part links back to its step */
  onGoTo?: (step: WizardStep) => void;
}

export function FormulaSummary({ formula, parts, objectLabels = {}, fieldLabels = {}, sourceFieldLabels = {}, customRouting, onGoTo }: FormulaSummaryProps) {
  // a destination field by its label wherever the summary names one
  const named = (field: string) => fieldLabels[field] ?? field;
  const sourceNamed = (field: string) => sourceFieldLabels[field] ?? field;
  const part = <P extends FormulaPartName>(p: P) => parts[p] ?? null;
  const goTo = onGoTo;
  const stepOf = (p: FormulaPartName) => stepOfPart(p, customRouting);
  const mapping = part('mapping');
  const transform = part('transform');
  const validation = part('validation');
  const summaryFields = part('summary-fields');
  const matching = part('matching');
  const routing = part('routing');
  const schedule = part('schedule');
  const autosend = part('autosend');
  const gift = part('gift');
  const source = formula.sourceDataSource;
  const destination = formula.firstDestinationDataSource;
  const companion = companionOf(destination?.system, destination?.object);

  return (
    <Stack gap="md" className="formula-summary" data-testid="formula-summary">
      <Section title="Formula name" step="data-sources" onGoTo={goTo} testId="name">
        <Line>{formulaDisplayName(formula)}{formula.isDraft ? ' (draft)' : ''}</Line>
      </Section>

      <Section title="Source" step={source ? 'formula-types' : 'data-sources'} onGoTo={goTo} testId="source">
        <EndSummary end={source} role="source" labels={objectLabels} />
      </Section>
      {source?.hasAdditionalSettings && (
        <Section title="Source settings" step="additional-settings-source" onGoTo={goTo} testId="source-settings">
          <SettingsSummary end={source} role="source" />
        </Section>
      )}

      <Section title="Destination" step={destination ? 'formula-types' : 'data-sources'} onGoTo={goTo} testId="destination">
        <EndSummary end={destination} role="destination" labels={objectLabels} />
      </Section>
      {destination?.hasAdditionalSettings && (
        <Section title="Destination settings" step="additional-settings-destination" onGoTo={goTo} testId="destination-settings">
          <SettingsSummary end={destination} role="destination" />
        </Section>
      )}

      <Section title={FORMULA_PARTS.mapping.label} step={stepOf('mapping')} onGoTo={goTo} testId="mapping">
        {!mapping ? <NotSet /> : (() => {
          const mapped = mapping.fields.filter((f) => f.kind !== 'ignored');
          return (
            <>
              <Line>{plural(mapped.length, 'field')} mapped</Line>
              <Table withTableBorder fz="sm" verticalSpacing={2} aria-label="Mapped fields" style={{ overflowWrap: 'anywhere' }}>
                <Table.Thead><Table.Tr><Table.Th>Destination field</Table.Th><Table.Th>From</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>
                  {mapped.map((f) => (
                    <Table.Tr key={f.destination}>
                      <Table.Td>{named(f.destination)}</Table.Td>
                      <Table.Td>{f.kind === 'source' ? sourceNamed(f.source) : f.kind === 'defined' ? `the value ${f.value}` : ''}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </>
          );
        })()}
      </Section>

      {(gift || companion) && (
        <Section title={FORMULA_PARTS.gift.label} step={stepOf('gift')} onGoTo={goTo} testId="gift">
          {!gift ? <Line>None: only the {companion?.parentLabel ?? 'record'} is written from each row</Line> : (
            <>
              <Line>Each row that carries a {companion?.label ?? 'gift'} also writes it, after its {companion?.parentLabel ?? 'record'} and linked to it</Line>
              <Table withTableBorder fz="sm" verticalSpacing={2} aria-label="Gift fields" style={{ overflowWrap: 'anywhere' }}>
                <Table.Thead><Table.Tr><Table.Th>Gift field</Table.Th><Table.Th>From</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>
                  {gift.fields.filter((f) => f.kind !== 'ignored').map((f) => (
                    <Table.Tr key={f.destination}>
                      <Table.Td>{GIFT_FIELD_LABELS[f.destination] ?? f.destination}</Table.Td>
                      <Table.Td>{f.kind === 'source' ? sourceNamed(f.source) : f.kind === 'defined' ? `the value ${f.value}` : ''}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </>
          )}
        </Section>
      )}

      <Section title={FORMULA_PARTS.transform.label} step={stepOf('transform')} onGoTo={goTo} testId="transform">
        {!transform || !transform.fields.some((f) => f.steps.length) ? <Line>None</Line> : (
          <>
            <Line>{plural(transform.fields.filter((f) => f.steps.length).length, 'field')} transformed</Line>
            <List size="sm">
              {transform.fields.filter((f) => f.steps.length).map((f) => (
                <List.Item key={f.destination}>{named(f.destination)}: {f.steps.map(describeTransformStep).join(', then ')}</List.Item>
              ))}
            </List>
          </>
        )}
      </Section>

      <Section title={FORMULA_PARTS.validation.label} step={stepOf('validation')} onGoTo={goTo} testId="validation">
        {!validation || !validation.rules.length ? <Line>None</Line> : (
          <>
            <Line>{plural(validation.rules.length, 'rule')}</Line>
            <List size="sm">{validation.rules.map((r, i) => <List.Item key={i}>{describeRule(r)}</List.Item>)}</List>
          </>
        )}
      </Section>

      <Section title={FORMULA_PARTS['summary-fields'].label} step={stepOf('summary-fields')} onGoTo={goTo} testId="summary-fields">
        {!summaryFields || !summaryFields.fields.length ? <Line>None</Line> : <Line>{summaryFields.fields.map(named).join(', ')}</Line>}
      </Section>

      <Section title={FORMULA_PARTS.matching.label} step={stepOf('matching')} onGoTo={goTo} testId="matching">
        {!matching ? <NotSet /> : (
          <>
            <Line>{plural(matching.scenarios.length, 'search scenario')}{matching.advanced ? ', with Advanced Matching Settings' : ''}</Line>
            <List size="sm">
              {matching.scenarios.map((s, i) => (
                <List.Item key={i}>
                  {s.name} ({s.isPrimary ? 'primary' : 'secondary'}): {s.criteria.map((c) => `${sourceNamed(c.source)} matches ${named(c.destination)}`).join(' and ')}; reason: {s.matchReason}
                </List.Item>
              ))}
            </List>
            {matching.autoPick.length > 0 && (
              <Line>Auto Pick when these fields match exactly: {matching.autoPick.map((a) => `${a.fields.map(named).join(' + ')}${a.minScore !== undefined ? ` (confidence at least ${a.minScore})` : ''}`).join('; ')}</Line>
            )}
          </>
        )}
      </Section>

      <Section title={FORMULA_PARTS.routing.label} step={stepOf('routing')} onGoTo={goTo} testId="routing">
        {!routing ? <NotSet /> : routing.kind === 'default' ? (
          <>
            <Line>Unmatched records: {routing.unmatched === 'ready' ? 'add to Ready' : 'review in Needs Attention'}</Line>
            <Line>
              A single match: {SINGLE_MATCH_ROUTES[routing.singleMatch]}
              {routing.singleMatch === 'ready-if-exact' && routing.exactFields.length ? ` (${routing.exactFields.map(named).join(', ')})` : ''}
            </Line>
            {routing.discardBelow !== null && <Line>Several matches: candidates scoring below {routing.discardBelow} are discarded</Line>}
            <Line>A difference in capitalisation {routing.capitalizationIsDifference ? 'counts' : 'does not count'} as a difference</Line>
          </>
        ) : (
          <>
            <List size="sm" type="ordered">
              {routing.rules.map((r, i) => (
                <List.Item key={i}>
                  {r.action === 'omit' ? 'Omit the record' : `Route to ${ROUTE_TARGETS[r.target]}`} when {r.conditions.map(describeCondition).join(' and ')}
                </List.Item>
              ))}
            </List>
            <Line>Any other record: {ROUTE_TARGETS[routing.otherwise]}</Line>
          </>
        )}
      </Section>

      <Section title={FORMULA_PARTS.autosend.label} step={stepOf('autosend')} onGoTo={goTo} testId="autosend">
        <Line>{autosend?.enabled ? 'Ready records are sent to the destination automatically' : 'Ready records are held for review'}</Line>
      </Section>

      {formula.usesFileUpload ? (
        <Section title={FORMULA_PARTS.schedule.label} testId="schedule">
          <Line>Runs each time a file is uploaded for it</Line>
        </Section>
      ) : (
        <Section title={FORMULA_PARTS.schedule.label} step={stepOf('schedule')} onGoTo={goTo} testId="schedule">
          {schedule ? <Line>{describeSchedule(schedule)}</Line> : <NotSet />}
        </Section>
      )}
    </Stack>
  );
}
