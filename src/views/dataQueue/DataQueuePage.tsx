/**
 * The Data Queue (SPEC.md section 2): the user's tabs beside All Formulas, each showing formula
 * cards with their records per bucket and live statuses; cards placed on tabs and reordered by drag
 * or keyboard; 'Create a formula', or 'Go to Connections' when no data source can be a source.
 *
 * Three machines: the formula list (src/machines/formulaList.ts: the formulas, the data sources
 * and a new draft), job status (src/machines/jobStatus.ts: live statuses and commands) and the
 * tabs (src/machines/dataQueueTabs.ts).
 */
import { useEffect, useRef } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Button, Card, Group, Notification, Skeleton, Stack, Tabs, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { LazyModal } from '../../ui/LazyModal.tsx';
import { IconPlus } from '@tabler/icons-react';
import type { Tab } from '../../domain/api/dataQueue.ts';
import { DATA_QUEUE_MESSAGES, MAX_TABS, mayAddTab, TAB_NAME_MAX_LENGTH } from '../../domain/dataQueue.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { NoSourceNotice } from '../formulas/NoSourceNotice.tsx';
import { ALL_FORMULAS, dataQueueTabsMachine, orderNotice, type DataQueueTabsEvent, type DataQueueTabsState } from '../../machines/dataQueueTabs.ts';
import { formulaListMachine, hasSourceFor } from '../../machines/formulaList.ts';
import { editStepOf } from '../../domain/formula/wizard.ts';
import { jobStatusMachine, type JobStatusState } from '../../machines/jobStatus.ts';
import type { FormulaView } from '../../domain/api/formulas.ts';
import { CommandDialogs, ConnectionLine, type JobActor } from '../formulas/FormulaLive.tsx';
import { useAppActors } from '../shell/actors.tsx';
import { wizardSearch } from '../wizard/wizardSearch.ts';
import classes from './DataQueue.module.css';
import { FormulaCard } from './FormulaCard.tsx';
import { useCardMover } from './useCardMover.ts';

const NO_POLICIES: Policies = {};
const NO_COUNTS: Record<string, number> = {};

export interface DataQueueMachines {
  tabs?: typeof dataQueueTabsMachine;
  list?: typeof formulaListMachine;
  jobs?: typeof jobStatusMachine;
}

export function DataQueuePage({ machines = {} }: { machines?: DataQueueMachines }) {
  const { auth } = useAppActors();
  const policies = useSelector(auth, (s) => s.context.user?.policies ?? NO_POLICIES);
  const mayCreate = can(policies, 'formula', 'create');
  const list = useActorRef(machines.list ?? formulaListMachine, { input: { maySeeSources: can(policies, 'datasource', 'view') } });
  const listState = useSelector(list, (s) => s);
  const job = useActorRef(machines.jobs ?? jobStatusMachine, { input: { policies } });
  const jobState = useSelector(job, (s) => s);
  const tabs = useActorRef(machines.tabs ?? dataQueueTabsMachine);
  const tabsState = useSelector(tabs, (s) => s);
  const navigate = useNavigate();
  const location = useLocation();
  const wizardOpen = new URLSearchParams(location.search).has('wizardFormulaId');
  const { formulas, sources, created } = listState.context;
  const listed = listState.matches('ready') || listState.matches('creating');
  const hasSource = listed && hasSourceFor(sources);

  // a new draft opens the wizard at its first step
  useEffect(() => {
    if (created) navigate({ pathname: location.pathname, search: wizardSearch(location.search, created.id, 'data-sources') });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [created]);
  // what the wizard changed shows once it closes
  const wasOpen = useRef(wizardOpen);
  useEffect(() => {
    if (wasOpen.current && !wizardOpen) {
      // a draft made here and closed with nothing saved goes (src/machines/formulaList.ts)
      list.send({ type: 'wizard.closed' });
      tabs.send({ type: 'tabs.reload' });
    }
    wasOpen.current = wizardOpen;
  }, [wizardOpen, list, tabs]);

  const loading = listState.matches('loading') || listState.matches('discarding') || tabsState.matches('loading');
  const failed = listState.matches('failed') || tabsState.matches('failed');
  // a draft opens at its first step not set up, a live formula at its review
  const editTo = (id: string) => {
    const f = formulas.find((x) => x.id === id);
    return { pathname: location.pathname, search: wizardSearch(location.search, id, f ? editStepOf(f) : 'review') };
  };

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={1}>Data Queue</Title>
        {mayCreate && hasSource && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} loading={listState.matches('creating')} onClick={() => list.send({ type: 'formula.create' })}>
            Create a formula
          </Button>
        )}
      </Group>
      {loading && !failed && <Stack aria-label="Loading the Data Queue"><Skeleton h={36} w={320} /><Skeleton h={160} /><Skeleton h={160} /></Stack>}
      {failed && (
        <Alert color="red" role="alert" title="The Data Queue could not be loaded">
          <Button size="xs" mt="xs" onClick={() => {
            if (listState.matches('failed')) list.send({ type: 'list.reload' });
            if (tabsState.matches('failed')) tabs.send({ type: 'tabs.reload' });
          }}>Try again</Button>
        </Alert>
      )}
      {listed && listState.context.error && <Alert color="red" role="alert">{listState.context.error}</Alert>}
      {listed && !hasSource && (
        <NoSourceNotice policies={policies} />
      )}
      <CommandDialogs jobState={jobState} job={job} />
      {listed && !loading && !failed && (
        <TabsView
          state={tabsState} send={tabs.send} formulas={formulas} jobState={jobState} job={job} policies={policies}
          mayCreate={mayCreate} editTo={editTo}
        />
      )}
    </Stack>
  );
}

type Send = (event: DataQueueTabsEvent) => void;

function TabsView({ state, send, formulas, jobState, job, policies, mayCreate, editTo }: {
  state: DataQueueTabsState;
  send: Send;
  formulas: FormulaView[];
  jobState: JobStatusState;
  job: JobActor;
  policies: Policies;
  mayCreate: boolean;
  editTo(id: string): { pathname: string; search: string };
}) {
  const { tabs, selected, counts, error } = state.context;
  const canAdd = mayAddTab(tabs.length);
  const busy = !state.matches({ ready: 'browsing' });
  const notice = orderNotice(state);
  const saved = state.matches({ ready: { browsing: 'saved' } });
  return (
    <>
      <Group gap="xs" justify="space-between" wrap="wrap">
        <Text size="sm" c="dimmed">{tabs.length} of {MAX_TABS} tabs</Text>
        <Button
          size="xs" variant="light" leftSection={<IconPlus size={14} aria-hidden />} disabled={!canAdd || busy}
          onClick={() => send({ type: 'tab.add' })} aria-describedby={canAdd ? undefined : 'data-queue-tab-limit'}
        >
          Add a tab
        </Button>
      </Group>
      {!canAdd && <Text id="data-queue-tab-limit" size="sm" c="dimmed">{DATA_QUEUE_MESSAGES.tabLimit}</Text>}
      {error && <Alert color="red" role="alert" withCloseButton closeButtonLabel="Close message" onClose={() => send({ type: 'error.close' })}>{error}</Alert>}
      <Tabs value={selected} onChange={(v) => v && send({ type: 'tab.select', tabId: v })} keepMounted={false}>
        <Tabs.List aria-label="Data Queue tabs">
          <Tabs.Tab value={ALL_FORMULAS}>All Formulas</Tabs.Tab>
          {tabs.map((t) => <Tabs.Tab key={t.id} value={t.id}>{t.name}</Tabs.Tab>)}
        </Tabs.List>
        <Tabs.Panel value={ALL_FORMULAS} pt="md">
          <Stack>
            {formulas.length > 0 && <ConnectionLine jobState={jobState} />}
            <CardList
              tab={null} ids={formulas.map((f) => f.id)} formulas={formulas} tabs={tabs} counts={counts} jobState={jobState} job={job}
              policies={policies} send={send} busy={busy} editTo={editTo}
              empty={mayCreate ? 'No formulas yet. Create one to start moving records.' : 'No formulas yet. A colleague whose role may create formulas starts them.'}
            />
          </Stack>
        </Tabs.Panel>
        {tabs.map((t) => (
          <Tabs.Panel key={t.id} value={t.id} pt="md">
            <Stack>
              <Group gap="xs" wrap="wrap">
                <Button size="compact-sm" variant="default" disabled={busy} onClick={() => send({ type: 'tab.rename', tabId: t.id })}>Rename tab</Button>
                <Button size="compact-sm" variant="default" color="red" disabled={busy} onClick={() => send({ type: 'tab.delete', tabId: t.id })}>Delete tab</Button>
                {state.matches({ ready: 'savingOrder' }) && <Text size="sm" c="dimmed">Saving the order…</Text>}
              </Group>
              {t.formulaIds.length > 1 && (
                <Text id="data-queue-move-help" size="sm" c="dimmed">
                  Drag a card to move it, or focus its handle, press Space to lift it, the arrow keys to move it and Space to drop it.
                </Text>
              )}
              <CardList
                tab={t} ids={t.formulaIds} formulas={formulas} tabs={tabs} counts={counts} jobState={jobState} job={job}
                policies={policies} send={send} busy={busy} editTo={editTo}
                empty="No cards on this tab yet. Add formulas to it from All Formulas with 'Add to tab'."
              />
            </Stack>
          </Tabs.Panel>
        ))}
      </Tabs>
      <VisuallyHidden role="status" aria-live="polite">{saved ? 'The order of the cards is saved.' : ''}</VisuallyHidden>
      {notice && (
        <div className={classes.notice}>
          <Notification color="red" role="alert" withCloseButton closeButtonProps={{ 'aria-label': 'Close notification' }} onClose={() => send({ type: 'notice.close' })}>
            {notice}
          </Notification>
        </div>
      )}
      <TabNameDialog state={state} send={send} />
      <DeleteTabDialog state={state} send={send} />
    </>
  );
}

function CardList({ tab, ids, formulas, tabs, counts, jobState, job, policies, send, busy, editTo, empty }: {
  tab: Tab | null;
  ids: string[];
  formulas: FormulaView[];
  tabs: Tab[];
  /** the counts the tabs were loaded with; a formula's live status (pushed as records move) has newer ones */
  counts: Record<string, Record<string, number>>;
  jobState: JobStatusState;
  job: JobActor;
  policies: Policies;
  send: Send;
  busy: boolean;
  editTo(id: string): { pathname: string; search: string };
  empty: string;
}) {
  const byId = new Map(formulas.map((f) => [f.id, f]));
  // a card whose formula is gone (deleted meanwhile) is not shown
  const known = ids.filter((id) => byId.has(id));
  const nameOf = (id: string) => formulaDisplayName(byId.get(id)!);
  const mover = useCardMover(known, nameOf, (order) => {
    if (!tab) return;
    // cards of formulas this list does not know keep their places at the end
    send({ type: 'cards.reorder', tabId: tab.id, formulaIds: [...order, ...ids.filter((id) => !byId.has(id))] });
  });
  const label = tab ? `Cards on ${tab.name}` : 'All formulas';
  return (
    <>
      {known.length === 0 ? <Card withBorder><Text c="dimmed">{empty}</Text></Card> : (
        <ul className={classes.cards} aria-label={label}>
          {mover.order.map((id) => {
            const f = byId.get(id)!;
            return (
              <FormulaCard
                key={id} formula={f} counts={jobState.context.statuses[id]?.counts ?? counts[id] ?? NO_COUNTS} jobState={jobState} job={job} policies={policies} editTo={editTo(id)}
                mayEdit={!f.archivedOn && can(policies, 'formula', 'edit')}
                arrangement={{
                  tab, busy,
                  otherTabs: tabs.filter((t) => !t.formulaIds.includes(id)),
                  place: (tabId) => send({ type: 'card.place', tabId, formulaId: id }),
                  remove: () => tab && send({ type: 'card.remove', tabId: tab.id, formulaId: id }),
                  ...(tab && known.length > 1 ? {
                    handleKeyDown: (e) => mover.keyDown(id, e), drag: mover.drag(id), lifted: mover.lifted === id, handleRef: mover.handleRef(id),
                  } : {}),
                }}
              />
            );
          })}
        </ul>
      )}
      <VisuallyHidden aria-live="assertive">{mover.announcement}</VisuallyHidden>
    </>
  );
}

function TabNameDialog({ state, send }: { state: DataQueueTabsState; send: Send }) {
  const naming = state.matches({ ready: 'naming' }) || state.matches({ ready: 'savingName' });
  const saving = state.matches({ ready: 'savingName' });
  const { editing, name, nameError } = state.context;
  return (
    <LazyModal opened={naming} onClose={() => !saving && send({ type: 'name.cancel' })} title={editing ? 'Rename tab' : 'Add a tab'} centered>
      <form onSubmit={(e) => { e.preventDefault(); send({ type: 'name.submit' }); }} noValidate>
        <Stack>
          <TextInput
            label="Tab name" data-autofocus value={name} error={nameError} maxLength={TAB_NAME_MAX_LENGTH * 2}
            description={`At most ${TAB_NAME_MAX_LENGTH} letters, digits, spaces and dashes.`}
            onChange={(e) => send({ type: 'name.change', name: e.currentTarget.value })} disabled={saving}
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => send({ type: 'name.cancel' })} disabled={saving}>Cancel</Button>
            <Button type="submit" loading={saving}>{editing ? 'Rename' : 'Add tab'}</Button>
          </Group>
        </Stack>
      </form>
    </LazyModal>
  );
}

function DeleteTabDialog({ state, send }: { state: DataQueueTabsState; send: Send }) {
  const open = state.matches({ ready: 'confirmingDelete' }) || state.matches({ ready: 'deleting' });
  const deleting = state.matches({ ready: 'deleting' });
  const tab = state.context.tabs.find((t) => t.id === state.context.deleting);
  return (
    <LazyModal opened={open} onClose={() => !deleting && send({ type: 'delete.cancel' })} title="Delete tab" centered>
      <Stack>
        <Text>Delete the tab {tab?.name}? Its formulas stay in All Formulas.</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => send({ type: 'delete.cancel' })} disabled={deleting}>Cancel</Button>
          <Button color="red" loading={deleting} onClick={() => send({ type: 'delete.confirm' })}>Delete</Button>
        </Group>
      </Stack>
    </LazyModal>
  );
}
