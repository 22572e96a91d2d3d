/**
 * A formula's run history (/{formulaId}/run-history): its runs, newest first, each with what
 * started it (schedule, upload, run now, reprocess), when it started and ended and how long it
 * took, its counts per stage (collected, per bucket, omitted, sent, refused), its status and, for
 * a failed or retrying run, the reason in words and its attempts. Older runs a page at a time.
 * Loading and paging are the run-history machine's (src/machines/runHistory.ts).
 */
import { Link, useParams } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Anchor, Badge, Button, Card, Group, Stack, Text, Title } from '@mantine/core';
import type { RunView } from '../../domain/api/formulas.ts';
import { MAX_RETRY_ATTEMPTS } from '../../domain/formula/constants.ts';
import { durationWords, runStageCounts } from '../../domain/formula/runCounts.ts';
import { RUN_TRIGGER_LABELS, type JobStatus } from '../../domain/formula/statuses.ts';
import { ROUTES } from '../../domain/screens.ts';
import { runHistoryMachine } from '../../machines/runHistory.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { NotFoundHere } from '../errors/NotFoundPage.tsx';

// dot badges: the colour is the dot's, the words keep the text colour (a coloured label on its tint falls short of 4.5:1)
const STATUS_COLOR: Partial<Record<JobStatus, string>> = { finished: 'green', errored: 'red', retrying: 'orange', paused: 'yellow' };
const statusWord = (s: JobStatus) => s.charAt(0).toUpperCase() + s.slice(1).replaceAll('-', ' ');
const pathOf = (route: string, formulaId: string) => route.replace(':formulaId', encodeURIComponent(formulaId));

export function RunHistoryRoute() {
  const { formulaId = '' } = useParams();
  return <RunHistoryPage key={formulaId} formulaId={formulaId} />;
}

export function RunHistoryPage({ formulaId, logic = runHistoryMachine }: { formulaId: string; logic?: typeof runHistoryMachine }) {
  const actor = useActorRef(logic, { input: { formulaId } });
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  if (state.matches('formulaMissing')) return <NotFoundHere />;
  return (
    <Stack>
      <Stack gap={4}>
        <Title order={1}>Run history</Title>
        <Text c="dimmed" size="sm">{c.formulaName ? `Formula: ${c.formulaName}` : 'Formula runs'}</Text>
        <Text size="sm">
          Each run of the formula, newest first. Failed attempts of a run are in the{' '}
          <Anchor component={Link} to={pathOf(ROUTES.formulaActivityHistory, formulaId)}>formula&apos;s activity history</Anchor>.
        </Text>
      </Stack>
      <Group gap="xs">
        <Anchor component={Link} to={pathOf(ROUTES.sentRecords, formulaId)} size="sm">Sent records</Anchor>
        <Anchor component={Link} to={pathOf(ROUTES.omittedRecords, formulaId)} size="sm">Omitted records</Anchor>
        <Anchor component={Link} to={pathOf(ROUTES.readyRecords, formulaId)} size="sm">Ready records</Anchor>
      </Group>
      {state.matches('loading') && <TableSkeleton columns={['Trigger', 'Started', 'Ended', 'Status', 'Counts']} caption="Loading runs" />}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The run history could not be loaded">
          <Button size="xs" mt="xs" onClick={() => actor.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {state.matches('empty') && (
        <Card withBorder><Text c="dimmed">This formula has not run yet.</Text></Card>
      )}
      {c.runs.length > 0 && (
        <Stack component="ol" aria-label="Runs" gap="sm" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
          {c.runs.map((run) => <RunCard key={run.id} run={run} />)}
        </Stack>
      )}
      {c.moreError && <Alert color="red" role="alert" title={c.moreError} />}
      {(state.matches('showing') || state.matches('loadingMore')) && c.nextCursor !== null && (
        <Group>
          <Button variant="default" loading={state.matches('loadingMore')} onClick={() => actor.send({ type: 'page.more' })}>Show older runs</Button>
        </Group>
      )}
    </Stack>
  );
}

const when = (at: string | null, none: string) => (at
  ? <time dateTime={at} title={at}>{new Date(at).toLocaleString()}</time>
  : <Text span size="sm" c="dimmed">{none}</Text>);

function Fact({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={0} miw={120}>
      <Text size="xs" c="dimmed">{label}</Text>
      <Text size="sm" component="div">{children}</Text>
    </Stack>
  );
}

/** One run: what started it, when, how long, its counts per stage, its status and why it failed or retries. */
export function RunCard({ run }: { run: RunView }) {
  const counts = runStageCounts(run.counts);
  const trigger = RUN_TRIGGER_LABELS[run.kind];
  const started = run.startedOn ?? null;
  const duration = started && run.finishedOn ? durationWords(Date.parse(run.finishedOn) - Date.parse(started)) : null;
  const failed = run.status === 'errored';
  const retrying = run.status === 'retrying';
  return (
    <Card withBorder component="li" aria-label={`${trigger} run of ${new Date(run.createdOn).toLocaleString()}`} data-testid="run">
      <Stack gap="xs">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="xs">
            <Badge variant="light" tt="none">{trigger}</Badge>
            <Badge variant="dot" color={STATUS_COLOR[run.status] ?? 'blue'} tt="none">{statusWord(run.status)}</Badge>
          </Group>
          <Text size="xs" c="dimmed">Asked for {new Date(run.createdOn).toLocaleString()}</Text>
        </Group>
        <Group gap="lg" wrap="wrap" align="flex-start">
          <Fact label="Started">{when(started, 'Waiting to start')}</Fact>
          <Fact label="Ended">{when(run.finishedOn, 'Not yet')}</Fact>
          <Fact label="Duration">{duration ?? <Text span size="sm" c="dimmed">Not over</Text>}</Fact>
          <Fact label="Attempts">{run.attempts}</Fact>
        </Group>
        <Group gap={6} wrap="wrap" aria-label="Counts per stage" role="list">
          <Badge role="listitem" variant="outline" tt="none">{counts.collected} collected</Badge>
          {counts.buckets.map((b) => <Badge role="listitem" key={`${b.bucket}/${b.customBucket ?? ''}`} variant="light" color="gray" tt="none">{b.label}: {b.count}</Badge>)}
          {counts.omitted > 0 && <Badge role="listitem" variant="light" color="gray" tt="none">Omitted: {counts.omitted}</Badge>}
          {counts.reprocessed > 0 && <Badge role="listitem" variant="light" color="gray" tt="none">{counts.reprocessed} reprocessed</Badge>}
          <Badge role="listitem" variant="dot" color="green" tt="none">
            {counts.sent} sent{counts.sentByHand ? ` (${counts.sentByHand} by hand)` : ''}
          </Badge>
          {counts.refused > 0 && <Badge role="listitem" variant="dot" color="red" tt="none">{counts.refused} refused</Badge>}
        </Group>
        {(failed || retrying) && run.error && (
          <Alert color={failed ? 'red' : 'orange'} title={failed ? 'Failed' : 'Retrying'} role={failed ? 'alert' : 'status'}>
            <Text size="sm">{run.error}</Text>
            {retrying && run.retry && (
              <Text size="sm">Attempt {run.retry.attempt} of {run.retry.of}; next try at {new Date(run.retry.nextTryAt).toLocaleTimeString()}.</Text>
            )}
            {failed && <Text size="sm">{run.attempts === 1 ? 'After 1 attempt.' : `After ${run.attempts} attempts (at most ${MAX_RETRY_ATTEMPTS} retries).`}</Text>}
          </Alert>
        )}
      </Stack>
    </Card>
  );
}
