/**
 * The review step's dry run (issue 15 point 7): the whole pipeline over the source's first
 * records, sending and storing nothing, and what it would do: counts by outcome and by bucket,
 * a few records of each outcome, and whether Ready records would be sent or held. The dry-run
 * machine (src/machines/dryRun.ts, run by the review step's editor) owns the workflow; this
 * renders its states.
 */
import { useEffect, useId, useRef } from 'react';
import { useSelector } from '@xstate/react';
import { Alert, Anchor, Box, Button, Group, List, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconFlask, IconInbox } from '@tabler/icons-react';
import type { DryRunResult, DryRunSample } from '../../../../domain/api/formulas.ts';
import { sourcePosition } from '../../../../domain/formula/recordLabel.ts';
import { BUCKET_LABELS, BUCKETS, type Bucket } from '../../../../domain/formula/statuses.ts';
import type { WizardStep } from '../../../../domain/formula/wizard.ts';
import { DRY_RUN_LIMIT, type DryRunFailure, type DryRunRef } from '../../../../machines/dryRun.ts';
import type { FormulaView } from '../../../../domain/api/formulas.ts';
import { missingItem } from '../ProcessingStep.tsx';

type Outcome = DryRunSample['outcome'];

export const OUTCOMES: Outcome[] = ['create', 'update', 'hold', 'omit', 'exception'];
export const OUTCOME_LABELS: Record<Outcome, string> = {
  create: 'Would be created', update: 'Would be updated', hold: 'Held for review', omit: 'Omitted', exception: 'Exceptions',
};
export { BUCKET_LABELS };

/** A bucket as byBucket names it: one of ours, or `<bucket>/<name>` for a custom validation bucket, by its name. */
export function bucketLabel(key: string): string {
  const slash = key.indexOf('/');
  if (slash >= 0) return key.slice(slash + 1);
  return (BUCKET_LABELS as Record<string, string>)[key] ?? key;
}

/** Our buckets in their usual order, then the custom ones by name. */
function bucketRows(byBucket: Record<string, number>): [string, number][] {
  const rank = (key: string) => {
    const i = (BUCKETS as readonly string[]).indexOf(key);
    return i >= 0 ? i : BUCKETS.length;
  };
  return Object.entries(byBucket).sort(([a], [b]) => rank(a) - rank(b) || bucketLabel(a).localeCompare(bucketLabel(b)));
}

/** How many transformed fields a sample row shows. */
const SAMPLE_COLUMNS = 3;

/** The destination fields the samples show: the preferred ones the samples have, else the first they have. */
export function sampleColumns(samples: DryRunSample[], preferred: string[]): string[] {
  const present: string[] = [];
  for (const s of samples) for (const k of Object.keys(s.transformed)) if (!present.includes(k)) present.push(k);
  const chosen = preferred.filter((f) => present.includes(f));
  return [...chosen, ...present.filter((f) => !chosen.includes(f))].slice(0, SAMPLE_COLUMNS);
}

function valueText(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export interface DryRunPanelProps {
  formula: FormulaView;
  customRouting: boolean;
  onGoTo(step: WizardStep): void;
  /** destination fields to show first in the samples (the summary fields, else the mapped ones) */
  preferredFields?: string[];
  /** the formula's dry run (the review step's editor runs it) */
  dryRun: DryRunRef;
}

export function DryRunPanel({ formula, customRouting, onGoTo, preferredFields = [], dryRun: actor }: DryRunPanelProps) {
  const state = useSelector(actor, (s) => s);
  const { result, failure } = state.context;
  const running = state.matches('running');
  const settled = state.matches('shown') || state.matches('empty') || state.matches('failed');
  const source = formula.sourceDataSource?.displayName ?? 'the source';
  const destination = formula.firstDestinationDataSource?.displayName ?? 'the destination';
  // a file-upload formula's dry run reads its sample file
  const records = formula.usesFileUpload ? 'the rows of the sample file' : `the first ${DRY_RUN_LIMIT} records of ${source}`;
  const headingId = useId();

  // the button is busy while it runs and Hide goes away with the results: the keyboard's place
  // moves on to what came of the run, and back to the button once the results are hidden
  const panel = useRef<HTMLDivElement>(null);
  const outcome = useRef<HTMLDivElement>(null);
  const start = useRef<HTMLButtonElement>(null);
  const wasSettled = useRef(false);
  useEffect(() => {
    const active = document.activeElement;
    const ours = !active || active === document.body || !!panel.current?.contains(active);
    if (settled && ours) outcome.current?.focus();
    else if (!settled && !running && wasSettled.current && ours) start.current?.focus();
    wasSettled.current = settled;
  }, [settled, running, state.value]);

  return (
    <Stack gap="sm" ref={panel} data-testid="dry-run" data-state={String(state.value)} aria-labelledby={headingId} role="group">
      <Title order={3} size="h4" id={headingId}>Dry run</Title>
      <Text size="sm">
        Puts {records} through the whole formula (transform, validate, match and route) and shows
        what would happen to them. Nothing is sent to {destination} and nothing is kept: the buckets stay as they are.
      </Text>
      <Group gap="sm">
        <Button
          ref={start} variant="light" leftSection={<IconFlask size={16} aria-hidden />} loading={running}
          onClick={() => actor.send({ type: 'run.start' })}
        >
          {settled ? 'Run again' : 'Dry run'}
        </Button>
        {settled && <Button variant="default" onClick={() => actor.send({ type: 'run.dismiss' })}>Hide the dry run</Button>}
      </Group>

      {running && (
        <Group gap="xs" role="status" data-testid="dry-run-running">
          <Loader size="xs" aria-hidden />
          <Text size="sm">Running the formula over {records}… This can take a few seconds.</Text>
        </Group>
      )}

      {settled && (
        <Box ref={outcome} tabIndex={-1} data-testid="dry-run-outcome" style={{ outline: 'none' }}>
          {state.matches('failed') && failure && <DryRunFailed failure={failure} customRouting={customRouting} onGoTo={onGoTo} />}
          {state.matches('empty') && (
            <Alert color="gray" role="status" icon={<IconInbox aria-hidden />} title="No records to examine" data-testid="dry-run-empty">
              {formula.usesFileUpload
                ? 'The sample file has no rows, so there is nothing to put through the formula. Upload a sample with rows in the Formula type step.'
                : `${source} has no records to collect yet, so nothing would be created, updated or held.`}
            </Alert>
          )}
          {state.matches('shown') && result && <DryRunResults result={result} destination={destination} preferredFields={preferredFields} />}
        </Box>
      )}
    </Stack>
  );
}

function DryRunFailed({ failure, customRouting, onGoTo }: { failure: DryRunFailure; customRouting: boolean; onGoTo(step: WizardStep): void }) {
  return (
    <Alert color="red" role="alert" icon={<IconAlertTriangle aria-hidden />} title={failure.title} data-testid="dry-run-failed">
      {failure.detail && <Text size="sm">{failure.detail}</Text>}
      {failure.kind === 'incomplete' && failure.missing.length > 0 && (
        <>
          <Text size="sm" mt={4}>Complete these first:</Text>
          <List size="sm" mt={4} aria-label="Missing">
            {failure.missing.map((m) => {
              const item = missingItem(m, customRouting);
              return (
                <List.Item key={m}>
                  <Anchor component="button" type="button" size="sm" onClick={() => onGoTo(item.step)}>{item.label}</Anchor>
                </List.Item>
              );
            })}
          </List>
        </>
      )}
      {failure.kind === 'connection' && <Text size="xs" c="dimmed" mt={4}>Code: {failure.code}</Text>}
    </Alert>
  );
}

function CountTable({ caption, rows, testId }: { caption: string; rows: [string, number][]; testId: string }) {
  return (
    <Table withTableBorder captionSide="top" data-testid={testId} style={{ width: 'auto', minWidth: '16rem' }}>
      <Table.Caption style={{ textAlign: 'left', fontWeight: 600 }}>{caption}</Table.Caption>
      <Table.Tbody>
        {rows.map(([label, n]) => (
          <Table.Tr key={label}>
            <Table.Th scope="row" fw={400}>{label}</Table.Th>
            <Table.Td ta="right">{n}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function DryRunResults({ result, destination, preferredFields }: { result: DryRunResult; destination: string; preferredFields: string[] }) {
  const columns = sampleColumns(result.samples, preferredFields);
  return (
    <Stack gap="md" data-testid="dry-run-results">
      <Text fw={600} role="status" data-testid="dry-run-examined">
        {plural(result.examined, 'record')} examined. Nothing was sent or kept.
      </Text>
      <Text size="sm" data-testid="dry-run-autosend">
        {result.autosend
          ? `Ready records would be sent to ${destination} automatically.`
          : `Ready records would be held for review: nothing goes to ${destination} until someone sends it.`}
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" style={{ alignItems: 'start' }}>
        <CountTable caption="By outcome" testId="dry-run-by-outcome" rows={OUTCOMES.map((o) => [OUTCOME_LABELS[o], result.byOutcome[o]])} />
        <CountTable caption="By bucket" testId="dry-run-by-bucket" rows={bucketRows(result.byBucket).map(([key, n]) => [bucketLabel(key), n])} />
      </SimpleGrid>
      <Title order={4} size="h5">Sample records</Title>
      {OUTCOMES.map((o) => {
        const samples = result.samples.filter((s) => s.outcome === o);
        return samples.length > 0 && <SampleTable key={o} outcome={o} samples={samples} total={result.byOutcome[o]} columns={columns} />;
      })}
    </Stack>
  );
}

/** The best candidate's score and match reasons, or that nothing matched. */
function ScoreCell({ sample }: { sample: DryRunSample }) {
  const best = [...sample.candidates].sort((a, b) => b.score - a.score)[0];
  if (sample.score === null && !best) return <Text size="sm" c="dimmed">No match</Text>;
  return (
    <Stack gap={0}>
      <Text size="sm">{sample.score ?? best?.score}</Text>
      {best && best.reasons.length > 0 && <Text size="xs" c="dimmed">{best.reasons.join(', ')}</Text>}
      {sample.candidates.length > 1 && <Text size="xs" c="dimmed">{sample.candidates.length} candidates</Text>}
    </Stack>
  );
}

function SampleTable({ outcome, samples, total, columns }: { outcome: Outcome; samples: DryRunSample[]; total: number; columns: string[] }) {
  const caption = `${OUTCOME_LABELS[outcome]}: ${samples.length} of ${total}`;
  return (
    // wide tables scroll sideways; the keyboard can reach and scroll them
    <Box style={{ overflowX: 'auto' }} tabIndex={0} role="group" aria-label={`Sample: ${OUTCOME_LABELS[outcome]}`}>
      <Table withTableBorder striped layout="fixed" captionSide="top" data-testid={`dry-run-samples-${outcome}`} miw={720}>
        <Table.Caption style={{ textAlign: 'left', fontWeight: 600 }}>{caption}</Table.Caption>
        <Table.Thead>
          <Table.Tr>
            <Table.Th scope="col">Record</Table.Th>
            {columns.map((c) => <Table.Th key={c} scope="col">{c}</Table.Th>)}
            <Table.Th scope="col">Bucket</Table.Th>
            <Table.Th scope="col">Reason</Table.Th>
            <Table.Th scope="col">Best score</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {samples.map((s) => (
            <Table.Tr key={s.sourceKey}>
              {/* the file and line a person can find the row at; the key itself on hover */}
              <Table.Th scope="row" fw={400} style={{ overflowWrap: 'anywhere' }} title={s.sourceKey}>{sourcePosition(s.sourceKey)}</Table.Th>
              {columns.map((c) => <Table.Td key={c} style={{ overflowWrap: 'anywhere' }}>{valueText(s.transformed[c])}</Table.Td>)}
              <Table.Td>{s.customBucket ?? BUCKET_LABELS[s.bucket]}</Table.Td>
              <Table.Td>{s.reason ?? '—'}</Table.Td>
              <Table.Td><ScoreCell sample={s} /></Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Box>
  );
}
