/**
 * All Formulas (SPEC.md section 2): the tenant's formulas with their source, destination, status
 * and last edit; Edit opens the wizard at its review. 'Create a formula' makes a draft and opens
 * the wizard, for roles that may create formulas; 'Go to Connections' when the tenant has no data
 * source that can be a formula's source. Roles that may delete formulas delete a draft, archive a
 * live formula (it stops and keeps its records), unarchive an archived one or delete it, each
 * change of state after a confirmation (deleting an archived formula says how many records go);
 * roles that may create formulas copy one as a new draft, which opens in the wizard. A draft made
 * for the wizard and closed with nothing saved goes by itself. The list's loading and these
 * changes are the formula-list machine's (src/machines/formulaList.ts).
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
import { Alert, Anchor, Button, Card, Group, Modal, Paper, Skeleton, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconPlus } from '@tabler/icons-react';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { NoSourceNotice } from './NoSourceNotice.tsx';
import { formulaListMachine, hasSourceFor, isArchivable, isArchived, isDeletable } from '../../machines/formulaList.ts';
import { jobStatusMachine, type JobStatusState } from '../../machines/jobStatus.ts';
import { editStepOf } from '../../domain/formula/wizard.ts';
import type { Deletion, FormulaView } from '../../domain/api/formulas.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import { useAppActors } from '../shell/actors.tsx';
import { wizardSearch } from '../wizard/wizardSearch.ts';
import { CommandButton, CommandDialogs, ConnectionLine, endOf, formulaLive, JobLines, LastRun, StatusBadges, UploadFileAction, type JobActor } from './FormulaLive.tsx';

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
  const mayDelete = can(policies, 'formula', 'delete');
  const list = useActorRef(logic, { input: { maySeeSources: can(policies, 'datasource', 'view') } });
  const state = useSelector(list, (s) => s);
  const job = useActorRef(jobs, { input: { policies } });
  const jobState = useSelector(job, (s) => s);
  const navigate = useNavigate();
  const location = useLocation();
  const wizardOpen = new URLSearchParams(location.search).has('wizardFormulaId');
  // at a phone's width each formula is a card (name, status, job, actions one above the other), so
  // its status and actions are in sight without scrolling the table sideways
  const narrow = useMediaQuery('(max-width: 36em)');
  const { formulas, sources, created, toDelete, deletion, toArchive, acting, notice } = state.context;
  const ready = (['ready', 'creating', 'countingDeletion', 'confirmingDelete', 'deleting', 'confirmingArchive', 'archiving', 'unarchiving', 'copying'] as const).some((s) => state.matches(s));
  const hasSource = ready && hasSourceFor(sources);

  // a new draft opens the wizard at its first step, a copy at its first step not set up
  useEffect(() => {
    if (created) navigate({ pathname: location.pathname, search: wizardSearch(location.search, created.id, editStepOf(created)) });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [created]);
  // what the wizard changed shows once it closes
  const wasOpen = useRef(wizardOpen);
  useEffect(() => {
    if (wasOpen.current && !wizardOpen) list.send({ type: 'wizard.closed' });
    wasOpen.current = wizardOpen;
  }, [wizardOpen, list]);

  const rowOf = (f: FormulaView) => (
    <FormulaRow
      key={f.id} card={narrow} formula={f} jobState={jobState} job={job} policies={policies} mayEdit={mayEdit && !isArchived(f)}
      editTo={{ pathname: location.pathname, search: wizardSearch(location.search, f.id, editStepOf(f)) }}
      onDelete={mayDelete && isDeletable(f) ? () => list.send({ type: 'formula.delete', id: f.id }) : undefined}
      onArchive={mayDelete && isArchivable(f) ? () => list.send({ type: 'formula.archive', id: f.id }) : undefined}
      onUnarchive={mayDelete && isArchived(f) ? () => list.send({ type: 'formula.unarchive', id: f.id }) : undefined}
      onCopy={mayCreate ? () => list.send({ type: 'formula.copy', id: f.id }) : undefined}
      busy={acting?.id === f.id ? (state.matches('copying') ? 'copy' : 'unarchive') : state.matches('countingDeletion') && toDelete?.id === f.id ? 'delete' : null}
    />
  );

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
      {(state.matches('loading') || state.matches('discarding')) && <Stack aria-label="Loading formulas"><Skeleton h={36} /><Skeleton h={36} /><Skeleton h={36} /></Stack>}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The formulas could not be loaded">
          <Button size="xs" mt="xs" onClick={() => list.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {ready && state.context.error && <Alert color="red" role="alert">{state.context.error}</Alert>}
      {ready && notice && <Alert color="green" role="status">{notice}</Alert>}
      <Modal
        opened={state.matches('confirmingDelete') || state.matches('deleting')}
        onClose={() => list.send({ type: 'delete.cancel' })}
        title={toDelete && !toDelete.isDraft ? 'Delete formula' : 'Delete draft formula'}
      >
        {toDelete && !toDelete.isDraft ? (
          <Text>
            Delete the formula {formulaDisplayName(toDelete)}? {deletion ? deletionWords(deletion) : ''} go with it, and it cannot be undone.
            Its activity history stays.
          </Text>
        ) : (
          <Text>Delete the draft {toDelete ? formulaDisplayName(toDelete) : ''}? What was saved of it goes, and it cannot be undone.</Text>
        )}
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => list.send({ type: 'delete.cancel' })} disabled={state.matches('deleting')}>Keep it</Button>
          <Button color="red" loading={state.matches('deleting')} onClick={() => list.send({ type: 'delete.confirm' })}>Delete</Button>
        </Group>
      </Modal>
      <Modal
        opened={state.matches('confirmingArchive') || state.matches('archiving')}
        onClose={() => list.send({ type: 'archive.cancel' })}
        title="Archive formula"
      >
        <Text>
          Archive {toArchive ? formulaDisplayName(toArchive) : ''}? It stops: no schedule, no runs and no uploads, and runs waiting to start are cancelled.
          Its records and activity history stay; you can unarchive it, or delete it.
        </Text>
        <Group justify="flex-end" mt="md">
          <Button variant="default" onClick={() => list.send({ type: 'archive.cancel' })} disabled={state.matches('archiving')}>Keep it running</Button>
          <Button loading={state.matches('archiving')} onClick={() => list.send({ type: 'archive.confirm' })}>Archive</Button>
        </Group>
      </Modal>
      {ready && !hasSource && (
        <NoSourceNotice policies={policies} />
      )}
      {ready && formulas.length === 0 && hasSource && (
        <Card withBorder>
          <Text c="dimmed">{mayCreate ? 'No formulas yet. Create one to start moving records.' : 'No formulas yet. A colleague whose role may create formulas starts them.'}</Text>
        </Card>
      )}
      <CommandDialogs jobState={jobState} job={job} />
      {ready && formulas.length > 0 && (
        <>
          <ConnectionLine jobState={jobState} />
          {narrow ? (
            <Stack gap="xs" role="list" aria-label="Formulas">{formulas.map(rowOf)}</Stack>
          ) : (
            <Table.ScrollContainer minWidth={960}>
              <Table striped highlightOnHover aria-label="Formulas">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Name</Table.Th><Table.Th>Source</Table.Th><Table.Th>Destination</Table.Th><Table.Th>Status</Table.Th><Table.Th>Job</Table.Th><Table.Th>Last run</Table.Th>
                    <Table.Th>Last edited</Table.Th><Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {formulas.map(rowOf)}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </>
      )}
    </Stack>
  );
}

/** One formula: what it is, its live status, and the commands it offers the user. */
function FormulaRow({ card, formula: f, jobState, job, policies, mayEdit, editTo, onDelete, onArchive, onUnarchive, onCopy, busy }: {
  /** a card of its own (a phone's width) rather than a row of the table */
  card: boolean;
  formula: FormulaView;
  jobState: JobStatusState;
  job: JobActor;
  policies: Policies;
  mayEdit: boolean;
  editTo: { pathname: string; search: string };
  /** a draft or an archived formula, for a role that may delete it */
  onDelete?: (() => void) | undefined;
  /** a live formula, for a role that may delete it */
  onArchive?: (() => void) | undefined;
  onUnarchive?: (() => void) | undefined;
  /** for a role that may create formulas */
  onCopy?: (() => void) | undefined;
  /** the lifecycle command under way for this formula */
  busy: 'copy' | 'unarchive' | 'delete' | null;
}) {
  const view = formulaLive(f, jobState, policies);
  const { name } = view;
  const actions = (
    <Group gap={4} wrap="wrap" role="group" aria-label={`Actions for ${name}`}>
      <Anchor component={Link} to={editTo} aria-label={`${mayEdit ? 'Edit' : 'Open'} ${name}`} mr="xs">{mayEdit ? 'Edit' : 'Open'}</Anchor>
      {view.actions.map((c) => <CommandButton key={c.name} command={c} formula={f} jobState={jobState} job={job} />)}
      <UploadFileAction formula={f} policies={policies} />
      {onCopy && <Button size="compact-sm" variant="subtle" loading={busy === 'copy'} onClick={onCopy} aria-label={`Copy ${name}`}>Copy</Button>}
      {onArchive && <Button size="compact-sm" variant="subtle" color="gray" onClick={onArchive} aria-label={`Archive ${name}`}>Archive</Button>}
      {onUnarchive && <Button size="compact-sm" variant="subtle" loading={busy === 'unarchive'} onClick={onUnarchive} aria-label={`Unarchive ${name}`}>Unarchive</Button>}
      {onDelete && <Button size="compact-sm" variant="subtle" color="red" loading={busy === 'delete'} onClick={onDelete} aria-label={`Delete ${name}`}>Delete</Button>}
    </Group>
  );
  if (card) {
    return (
      <Paper role="listitem" withBorder p="sm" aria-label={name}>
        <Stack gap={6}>
          <Text fw={600}>{name}</Text>
          <Text size="sm" c="dimmed">{endOf(f.sourceDataSource)} → {endOf(f.firstDestinationDataSource)}</Text>
          <StatusBadges formula={f} view={view} />
          <JobLines formula={f} view={view} jobState={jobState} job={job} />
          <LastRun formula={f} view={view} label={false} />
          <Text size="xs" c="dimmed">Last edited {new Date(f.modifiedOn).toLocaleString()}</Text>
          {actions}
        </Stack>
      </Paper>
    );
  }
  return (
    <Table.Tr>
      <Table.Td>{name}</Table.Td>
      <Table.Td>{endOf(f.sourceDataSource)}</Table.Td>
      <Table.Td>{endOf(f.firstDestinationDataSource)}</Table.Td>
      <Table.Td><StatusBadges formula={f} view={view} /></Table.Td>
      <Table.Td><JobLines formula={f} view={view} jobState={jobState} job={job} /></Table.Td>
      <Table.Td><LastRun formula={f} view={view} label={false} /></Table.Td>
      <Table.Td>{new Date(f.modifiedOn).toLocaleString()}</Table.Td>
      <Table.Td>
        {actions}
      </Table.Td>
    </Table.Tr>
  );
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
/** 'Its 3 records and 1 run': what the confirmation says goes */
export const deletionWords = (d: Deletion) => `Its ${plural(d.records, 'record')} and ${plural(d.runs, 'run')}`;

export function AllFormulasPage() {
  return <FormulaList title="All Formulas" />;
}
