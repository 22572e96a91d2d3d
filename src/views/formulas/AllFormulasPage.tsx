/**
 * All Formulas (SPEC.md section 2): the tenant's formulas with their source, destination, status
 * and last edit; Edit opens the wizard at its review. 'Create a formula' makes a draft and opens
 * the wizard, for roles that may create formulas; 'Go to Connections' when the tenant has no data
 * source that can be a formula's source. The list's loading and the draft's creation are the
 * formula-list machine's (src/machines/formulaList.ts).
 *
 * Each live formula shows its status as it changes (SPEC.md section 4): list status and job
 * status, the last run's counts, 'Needs reprocess', the retry countdown, an error to dismiss (or
 * dismiss and retry), and the commands the user's role may use; clearing data and deactivating
 * are confirmed first. The statuses and commands are the job-status machine's
 * (src/machines/jobStatus.ts).
 */
import { useEffect, useRef } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Anchor, Badge, Button, Card, Group, Modal, Skeleton, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { FormulaStatus } from '../../domain/api/formulas.ts';
import { STATUS_POLL_INTERVAL_MS } from '../../domain/api/formulaStatusStream.ts';
import { connectorFor } from '../../domain/connectors/catalogue.ts';
import { COMMAND_LABELS, commandsFor, needsConfirmation, type FormulaCommandName, type OfferedCommand } from '../../domain/formula/commands.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import type { FormulaListStatus, JobStatus } from '../../domain/formula/statuses.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { formulaListMachine, hasSourceFor } from '../../machines/formulaList.ts';
import { connectionOf, jobStatusMachine, lastRunCounts, pendingCommand, retryLine, type JobStatusState } from '../../machines/jobStatus.ts';
import type { FormulaView } from '../../services/formulas.ts';
import { useAppActors } from '../shell/actors.tsx';
import { wizardSearch } from '../wizard/wizardSearch.ts';

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
const CONFIRMATIONS: Partial<Record<FormulaCommandName, { title: string; text: (name: string) => string }>> = {
  clear: { title: 'Clear data', text: (name) => `Clear the data of ${name}? Its records leave every bucket, and this cannot be undone.` },
  deactivate: { title: 'Deactivate formula', text: (name) => `Deactivate ${name}? Its schedule stops; the records it has collected stay.` },
};
/** An end in words, its object by its label; a file-upload formula reads every file uploaded for it, so its sample's id is no name for it. */
function endOf(end: FormulaView['sourceDataSource']): string {
  if (!end) return 'Not chosen yet';
  const object = end.system === 'file-upload' ? 'uploaded files'
    : connectorFor(end.system).objects.find((o) => o.name === end.object)?.label ?? (end.object === '*' ? 'all files' : end.object);
  return `${end.displayName} (${object})`;
}

const NO_POLICIES: Policies = {};

export function FormulaList({ title, logic = formulaListMachine, jobs = jobStatusMachine }: {
  title: string;
  logic?: typeof formulaListMachine;
  jobs?: typeof jobStatusMachine;
}) {
  const { auth } = useAppActors();
  const policies = useSelector(auth, (s) => s.context.user?.policies ?? NO_POLICIES);
  const mayCreate = can(policies, 'formula', 'create');
  const mayEdit = can(policies, 'formula', 'edit');
  const list = useActorRef(logic);
  const state = useSelector(list, (s) => s);
  const job = useActorRef(jobs, { input: { policies } });
  const jobState = useSelector(job, (s) => s);
  const pending = pendingCommand(jobState);
  const confirmation = pending && needsConfirmation(pending.command.name) && (pending.confirming || pending.sending) ? pending : null;
  const failure = jobState.context.failure;
  const navigate = useNavigate();
  const location = useLocation();
  const wizardOpen = new URLSearchParams(location.search).has('wizardFormulaId');
  const { formulas, sources, created } = state.context;
  const ready = state.matches('ready') || state.matches('creating');
  const hasSource = ready && hasSourceFor(sources);

  // a new draft opens the wizard at its first step
  useEffect(() => {
    if (created) navigate({ pathname: location.pathname, search: wizardSearch(location.search, created.id, 'data-sources') });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [created]);
  // what the wizard changed shows once it closes
  const wasOpen = useRef(wizardOpen);
  useEffect(() => {
    if (wasOpen.current && !wizardOpen) list.send({ type: 'list.reload' });
    wasOpen.current = wizardOpen;
  }, [wizardOpen, list]);

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={1}>{title}</Title>
        {mayCreate && hasSource && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} loading={state.matches('creating')} onClick={() => list.send({ type: 'formula.create' })}>
            Create a formula
          </Button>
        )}
      </Group>
      {state.matches('loading') && <Stack aria-label="Loading formulas"><Skeleton h={36} /><Skeleton h={36} /><Skeleton h={36} /></Stack>}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The formulas could not be loaded">
          <Button size="xs" mt="xs" onClick={() => list.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {ready && state.context.error && <Alert color="red" role="alert">{state.context.error}</Alert>}
      {ready && !hasSource && (
        <Card withBorder>
          <Text>A formula reads from a data source. {can(policies, 'datasource', 'create') ? 'Add one first.' : 'A colleague who manages connections adds one first.'}</Text>
          {can(policies, 'datasource', 'view') && <Button component={Link} to={ROUTES.connections} mt="sm" w="fit-content">Go to Connections</Button>}
        </Card>
      )}
      {ready && formulas.length === 0 && hasSource && (
        <Card withBorder>
          <Text c="dimmed">{mayCreate ? 'No formulas yet. Create one to start moving records.' : 'No formulas yet. A colleague whose role may create formulas starts them.'}</Text>
        </Card>
      )}
      {failure && (
        <Alert color="red" role="alert" title={failure.message} withCloseButton closeButtonLabel="Close message" onClose={() => job.send({ type: 'failure.close' })}>
          {COMMAND_LABELS[failure.command.name]}, {failure.command.label}{failure.detail ? `: ${failure.detail}` : ''}
        </Alert>
      )}
      {ready && formulas.length > 0 && (
        <>
          <Text size="sm" c="dimmed" aria-live="polite">{CONNECTION_WORDS[connectionOf(jobState)]}</Text>
          <Table.ScrollContainer minWidth={960}>
            <Table striped highlightOnHover aria-label="Formulas">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Name</Table.Th><Table.Th>Source</Table.Th><Table.Th>Destination</Table.Th><Table.Th>Status</Table.Th><Table.Th>Job</Table.Th><Table.Th>Last run</Table.Th>
                  <Table.Th>Last edited</Table.Th><Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {formulas.map((f) => (
                  <FormulaRow
                    key={f.id} formula={f} live={jobState.context.statuses[f.id]} jobState={jobState} policies={policies} mayEdit={mayEdit}
                    send={(name) => job.send({ type: `formula.${name}`, formulaId: f.id, label: formulaDisplayName(f) })}
                    editTo={{ pathname: location.pathname, search: wizardSearch(location.search, f.id, 'review') }}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </>
      )}
      <Modal
        opened={!!confirmation}
        onClose={() => job.send({ type: 'command.cancel' })}
        title={confirmation ? CONFIRMATIONS[confirmation.command.name]?.title : undefined}
        centered
      >
        {confirmation && (
          <Stack>
            <Text>{CONFIRMATIONS[confirmation.command.name]?.text(confirmation.command.label)}</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => job.send({ type: 'command.cancel' })} disabled={confirmation.sending}>Cancel</Button>
              <Button color="red" loading={confirmation.sending} onClick={() => job.send({ type: 'command.confirm' })}>{COMMAND_LABELS[confirmation.command.name]}</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}

/** One formula: what it is, its live status, and the commands it offers the user. */
function FormulaRow({ formula: f, live, jobState, policies, mayEdit, send, editTo }: {
  formula: FormulaView;
  /** its live status, once the stream or a poll has given it */
  live: FormulaStatus | undefined;
  jobState: JobStatusState;
  policies: Policies;
  mayEdit: boolean;
  send(command: FormulaCommandName): void;
  editTo: { pathname: string; search: string };
}) {
  const name = formulaDisplayName(f);
  const status = live?.status ?? f.status;
  const jobStatus = live ? live.jobStatus : f.jobStatus;
  const needsReprocess = live?.needsReprocess ?? f.needsReprocess;
  const retry = retryLine(live, jobState.context.now);
  const counts = lastRunCounts(live);
  const pending = pendingCommand(jobState);
  // commands wait for the live status: the saved one may be out of date
  const offered: OfferedCommand[] = live ? commandsFor({
    isDraft: f.isDraft, usesFileUpload: f.usesFileUpload, status: live.status, enabled: live.enabled, paused: live.paused,
    needsReprocess: live.needsReprocess, lastError: live.lastError,
  }, policies) : [];
  const button = ({ name: command, enabled }: OfferedCommand) => (
    <Button
      key={command} size="compact-xs" variant={command === 'retry' || command === 'run' ? 'filled' : 'light'}
      color={command === 'clear' || command === 'deactivate' ? 'red' : undefined}
      aria-label={`${COMMAND_LABELS[command]}: ${name}`} disabled={!enabled || !!pending}
      loading={pending?.sending === true && pending.command.formulaId === f.id && pending.command.name === command}
      onClick={() => send(command)}
    >
      {COMMAND_LABELS[command]}
    </Button>
  );
  const onError = offered.filter((c) => c.name === 'dismiss' || c.name === 'retry');
  const actions = offered.filter((c) => c.name !== 'dismiss' && c.name !== 'retry');
  return (
    <Table.Tr>
      <Table.Td>{name}</Table.Td>
      <Table.Td>{endOf(f.sourceDataSource)}</Table.Td>
      <Table.Td>{endOf(f.firstDestinationDataSource)}</Table.Td>
      <Table.Td>
        <Group gap={4} role="group" aria-label={`Status of ${name}`}>
          <Badge variant="light" color={f.isDraft ? 'gray' : LIST_STATUS_COLOR[status]}>{f.isDraft ? 'Draft' : listStatusWord(status)}</Badge>
          {needsReprocess && <Badge variant="light" color="orange">Needs reprocess</Badge>}
        </Group>
      </Table.Td>
      <Table.Td>
        <Stack gap={4} role="group" aria-label={`Job of ${name}`}>
          {!f.isDraft && jobStatus && <Badge variant="outline" color="gray" w="fit-content">{jobStatusWord(jobStatus)}</Badge>}
          {retry && <Text size="sm" c="orange.8">{retry}</Text>}
          {live?.lastError && (
            <>
              <Text size="sm" c="red.8">{live.lastError}</Text>
              {onError.length > 0 && <Group gap={4}>{onError.map(button)}</Group>}
            </>
          )}
        </Stack>
      </Table.Td>
      <Table.Td>{counts ? `${counts.collected} collected, ${counts.sent} sent` : <Text span size="sm" c="dimmed">No run yet</Text>}</Table.Td>
      <Table.Td>{new Date(f.modifiedOn).toLocaleString()}</Table.Td>
      <Table.Td>
        <Group gap={4} wrap="wrap" role="group" aria-label={`Actions for ${name}`}>
          <Anchor component={Link} to={editTo} aria-label={`${mayEdit ? 'Edit' : 'Open'} ${name}`} mr="xs">{mayEdit ? 'Edit' : 'Open'}</Anchor>
          {actions.map(button)}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

export function AllFormulasPage() {
  return <FormulaList title="All Formulas" />;
}
