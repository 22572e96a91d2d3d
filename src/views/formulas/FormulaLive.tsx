/**
 * A formula's live status and commands, as every formula list shows them (All Formulas' rows,
 * the Data Queue's cards): its status and job status badges, 'Needs reprocess', the retry
 * countdown, its error with dismiss and retry, the commands the role may use, the confirmation of
 * clearing and deactivating, a refused command, and how statuses arrive. The statuses and
 * commands are the job-status machine's (src/machines/jobStatus.ts). A live file-upload formula
 * also takes a file to process ('Upload a file').
 */
import { useState } from 'react';
import type { ActorRefFrom } from 'xstate';
import { Link } from 'react-router';
import { Alert, Anchor, Badge, Button, Group, Stack, Text } from '@mantine/core';
import { LazyModal } from '../../ui/LazyModal.tsx';
import type { FormulaStatus } from '../../domain/api/formulas.ts';
import { STATUS_POLL_INTERVAL_MS } from '../../domain/api/formulaStatusStream.ts';
import { objectLabel } from '../../domain/connectors/catalogue.ts';
import { COMMAND_LABELS, commandsFor, needsConfirmation, type FormulaCommandName, type OfferedCommand } from '../../domain/formula/commands.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import { runTimeWords } from '../../domain/formula/scheduleTimes.ts';
import type { FormulaListStatus, JobStatus } from '../../domain/formula/statuses.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { connectionOf, lastRunCounts, pendingCommand, retryLine, type jobStatusMachine, type JobStatusState } from '../../machines/jobStatus.ts';
import type { FormulaView } from '../../domain/api/formulas.ts';
import { UploadToFormulaDialog } from './UploadToFormulaDialog.tsx';

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** SPEC.md section 4's words, capitalised: 'Processing'; a job's 'finished-pulling' as 'Finished pulling' */
const listStatusWord = (status: FormulaListStatus) => capitalised(status);
const jobStatusWord = (status: JobStatus) => capitalised(status.replaceAll('-', ' '));
const LIST_STATUS_COLOR: Record<FormulaListStatus, string> = {
  error: 'red', inactive: 'gray', paused: 'yellow', active: 'green', toggling: 'blue', clearing: 'blue', processing: 'blue',
};
const CONNECTION_WORDS = {
  connecting: 'Connecting to live statuses…',
  streaming: 'Statuses are live',
  polling: `Statuses refresh every ${STATUS_POLL_INTERVAL_MS / 1000} seconds`,
} as const;
const recordsWord = (n: number) => (n === 1 ? '1 record' : `${n} records`);
/** what each confirmation says will happen; `records`: how many the formula holds, when its status is known */
export const CONFIRMATIONS: Partial<Record<FormulaCommandName, { title: string; text: (name: string, records: number | null) => string; keeps?: string }>> = {
  clear: {
    title: 'Clear data',
    text: (name, n) => `Clear the data of ${name}? ${n === null ? 'Its records leave' : n === 1 ? 'Its 1 record leaves' : `Its ${n} records leave`} every bucket, and this cannot be undone.`,
  },
  deactivate: {
    title: 'Deactivate formula',
    text: (name, n) => `Deactivate ${name}? Its schedule stops; ${n === null ? 'the records' : `the ${recordsWord(n)}`} it has collected stay.`,
  },
  reprocess: {
    title: 'Reprocess formula',
    text: (name) => `Reprocess ${name}? Incoming data pauses while the records not yet sent that no one has acted on are transformed, `
      + 'validated, matched and routed again with the formula as it is now.',
    keeps: 'Records people have acted on (a picked match, Create new, Add to Ready, a corrected value) keep their bucket, match and values. '
      + 'Sent records and records being sent are not changed, and no record is added or deleted.',
  },
};
/** the second way to confirm reprocessing: people's decisions are routed again too, their corrections stay */
export const REPROCESS_ALL_LABEL = 'Reprocess, routing acted-on records again too';

/** An end in words, its object by its label; a file-upload formula reads every file uploaded for it, so its sample's id is no name for it. */
export function endOf(end: FormulaView['sourceDataSource']): string {
  if (!end) return 'Not chosen yet';
  const object = end.system === 'file-upload' ? 'uploaded files'
    : end.object === '*' ? 'all files' : objectLabel(end.system, end.object);
  return `${end.displayName} (${object})`;
}

export type JobActor = ActorRefFrom<typeof jobStatusMachine>;

/** One formula as its live status shows it, and the commands it offers the user. */
export function formulaLive(f: FormulaView, jobState: JobStatusState, policies: Policies) {
  const live: FormulaStatus | undefined = jobState.context.statuses[f.id];
  // commands wait for the live status: the saved one may be out of date
  const offered: OfferedCommand[] = live ? commandsFor({
    isDraft: f.isDraft, archived: f.archivedOn !== null, usesFileUpload: f.usesFileUpload, status: live.status, enabled: live.enabled, paused: live.paused,
    needsReprocess: live.needsReprocess, lastError: live.lastError, jobStatus: live.jobStatus,
  }, policies) : [];
  return {
    name: formulaDisplayName(f),
    live,
    status: live?.status ?? f.status,
    jobStatus: live ? live.jobStatus : f.jobStatus,
    needsReprocess: live?.needsReprocess ?? f.needsReprocess,
    retry: retryLine(live, jobState.context.now),
    // the server gives a time only to a live formula that will run by its schedule (not paused, errored or inactive)
    nextRunAt: f.isDraft || f.usesFileUpload || f.archivedOn ? null : live?.nextRunAt ?? null,
    counts: lastRunCounts(live),
    onError: offered.filter((c) => c.name === 'dismiss' || c.name === 'retry'),
    actions: offered.filter((c) => c.name !== 'dismiss' && c.name !== 'retry'),
  };
}
export type FormulaLiveView = ReturnType<typeof formulaLive>;

/** A command's button, busy while that command is sent. */
export function CommandButton({ command: { name: command, enabled }, formula, jobState, job }: {
  command: OfferedCommand; formula: FormulaView; jobState: JobStatusState; job: JobActor;
}) {
  const pending = pendingCommand(jobState);
  const name = formulaDisplayName(formula);
  return (
    <Button
      size="compact-xs" variant={command === 'retry' || command === 'run' ? 'filled' : 'light'}
      color={command === 'clear' || command === 'deactivate' ? 'red' : undefined}
      aria-label={`${COMMAND_LABELS[command]}: ${name}`} disabled={!enabled || !!pending}
      loading={pending?.sending === true && pending.command.formulaId === formula.id && pending.command.name === command}
      onClick={() => job.send({ type: `formula.${command}`, formulaId: formula.id, label: name })}
    >
      {COMMAND_LABELS[command]}
    </Button>
  );
}

/**
 * Whether a file can be uploaded to the formula: a file-upload formula that is live (the engine
 * runs no draft, nor an archived formula), for a role the upload endpoint lets upload (src/domain/api/flatFile.ts).
 */
export const mayUploadTo = (f: Pick<FormulaView, 'isDraft' | 'usesFileUpload' | 'archivedOn'>, policies: Policies): boolean =>
  f.usesFileUpload && !f.isDraft && !f.archivedOn && can(policies, 'formula', 'create');

/** 'Upload a file' and its dialog, for a formula that may take one (mayUploadTo); nothing otherwise. */
export function UploadFileAction({ formula, policies }: { formula: FormulaView; policies: Policies }) {
  const [opened, setOpened] = useState(false);
  if (!mayUploadTo(formula, policies)) return null;
  const name = formulaDisplayName(formula);
  return (
    <>
      <Button size="compact-xs" variant="light" aria-label={`Upload a file: ${name}`} aria-haspopup="dialog" onClick={() => setOpened(true)}>
        Upload a file
      </Button>
      <UploadToFormulaDialog formula={{ id: formula.id, name }} opened={opened} onClose={() => setOpened(false)} />
    </>
  );
}

/** The formula's status, draft or 'Needs reprocess'. */
export function StatusBadges({ formula: f, view }: { formula: FormulaView; view: FormulaLiveView }) {
  return (
    <Group gap={4} role="group" aria-label={`Status of ${view.name}`}>
      {f.archivedOn
        ? <Badge variant="outline" color="dark">Archived</Badge>
        : <Badge variant="light" color={f.isDraft ? 'gray' : LIST_STATUS_COLOR[view.status]}>{f.isDraft ? 'Draft' : listStatusWord(view.status)}</Badge>}
      {view.needsReprocess && <Badge variant="light" color="orange">Needs reprocess</Badge>}
    </Group>
  );
}

/** The job's status, the retry countdown, when the schedule runs it next, and an error with dismiss and retry. */
export function JobLines({ formula: f, view, jobState, job }: { formula: FormulaView; view: FormulaLiveView; jobState: JobStatusState; job: JobActor }) {
  return (
    <Stack gap={4} role="group" aria-label={`Job of ${view.name}`}>
      {!f.isDraft && view.jobStatus && <Badge variant="outline" color="gray" w="fit-content">{jobStatusWord(view.jobStatus)}</Badge>}
      {view.retry && <Text size="sm" c="orange.8">{view.retry}</Text>}
      {view.nextRunAt && <Text size="sm">Next run: <time dateTime={view.nextRunAt} title={view.nextRunAt}>{runTimeWords(view.nextRunAt)}</time></Text>}
      {view.live?.lastError && (
        <>
          <Text size="sm" c="red.8">{view.live.lastError}</Text>
          {view.onError.length > 0 && (
            <Group gap={4}>{view.onError.map((c) => <CommandButton key={c.name} command={c} formula={f} jobState={jobState} job={job} />)}</Group>
          )}
        </>
      )}
    </Stack>
  );
}

/**
 * The last run in counts ('Last run: 200 collected, 150 sent': sends by hand of what it collected
 * count too), and the way to the formula's run history. A draft has neither.
 */
export function LastRun({ formula: f, view, label = true }: { formula: FormulaView; view: FormulaLiveView; label?: boolean }) {
  if (f.isDraft) return <Text span size="sm" c="dimmed">No run yet</Text>;
  const { counts } = view;
  return (
    <Stack gap={0} align="flex-start">
      <Text size="sm">
        {label && 'Last run: '}
        {counts ? `${counts.collected} collected, ${counts.sent} sent` : <Text span size="sm" c="dimmed">{label ? 'none yet' : 'No run yet'}</Text>}
      </Text>
      <Anchor component={Link} to={ROUTES.runHistory.replace(':formulaId', encodeURIComponent(f.id))} size="sm" aria-label={`Run history of ${view.name}`}>
        Run history
      </Anchor>
    </Stack>
  );
}

/** How statuses arrive: live, or polled. */
export function ConnectionLine({ jobState }: { jobState: JobStatusState }) {
  return <Text size="sm" c="dimmed" aria-live="polite">{CONNECTION_WORDS[connectionOf(jobState)]}</Text>;
}

/** How many records a formula holds across its buckets, when its status is known. */
const recordsOf = (status: { buckets: Record<string, number> } | undefined) =>
  (status ? Object.values(status.buckets).reduce((a, b) => a + b, 0) : null);

/** A refused command, and the confirmation of clearing data, deactivating and reprocessing. */
export function CommandDialogs({ jobState, job }: { jobState: JobStatusState; job: JobActor }) {
  const pending = pendingCommand(jobState);
  const confirmation = pending && needsConfirmation(pending.command.name) && (pending.confirming || pending.sending) ? pending : null;
  const failure = jobState.context.failure;
  return (
    <>
      {failure && (
        <Alert color="red" role="alert" title={failure.message} withCloseButton closeButtonLabel="Close message" onClose={() => job.send({ type: 'failure.close' })}>
          {COMMAND_LABELS[failure.command.name]}, {failure.command.label}{failure.detail ? `: ${failure.detail}` : ''}
        </Alert>
      )}
      <LazyModal
        opened={!!confirmation}
        onClose={() => job.send({ type: 'command.cancel' })}
        title={confirmation ? CONFIRMATIONS[confirmation.command.name]?.title : undefined}
        centered
      >
        {confirmation && (
          <Stack>
            <Text>{CONFIRMATIONS[confirmation.command.name]?.text(confirmation.command.label, recordsOf(jobState.context.statuses[confirmation.command.formulaId]))}</Text>
            {CONFIRMATIONS[confirmation.command.name]?.keeps && <Text>{CONFIRMATIONS[confirmation.command.name]!.keeps}</Text>}
            {confirmation.command.name === 'reprocess' && (
              <Text size="sm" c="dimmed">
                {REPROCESS_ALL_LABEL}: the records people acted on are matched and routed again as well; their corrected values stay.
              </Text>
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => job.send({ type: 'command.cancel' })} disabled={confirmation.sending}>Cancel</Button>
              {confirmation.command.name === 'reprocess' && (
                <Button
                  variant="light" loading={confirmation.sending && confirmation.command.includeReviewed === true} disabled={confirmation.sending}
                  onClick={() => job.send({ type: 'command.confirm', includeReviewed: true })}
                >
                  {REPROCESS_ALL_LABEL}
                </Button>
              )}
              <Button
                color={confirmation.command.name === 'reprocess' ? undefined : 'red'}
                loading={confirmation.sending && confirmation.command.includeReviewed !== true}
                disabled={confirmation.sending && confirmation.command.includeReviewed === true}
                onClick={() => job.send({ type: 'command.confirm' })}
              >
                {COMMAND_LABELS[confirmation.command.name]}
              </Button>
            </Group>
          </Stack>
        )}
      </LazyModal>
    </>
  );
}
