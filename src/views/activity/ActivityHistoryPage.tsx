/**
 * Activity History (SPEC.md sections 2, 3 and 5): the tenant's events, or one formula's, with the
 * columns of section 3, a column picker that keeps at least one column, a date range (the last 7
 * days at first) and filters by type, actor and text, and a page at a time. Loading, filtering and
 * paging are the activity-history machine's (src/machines/activityHistory.ts); the columns are the
 * column-picker machine's (src/machines/columnPicker.ts).
 */
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Anchor, Button, Card, Checkbox, Code, Group, MultiSelect, NativeSelect, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { ACTIVITY_HISTORY_COLUMNS, activityTypeLabel, type ActivityHistoryColumn, type ActivityHistoryFilters } from '../../domain/activityHistory.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { activityHistoryMachine } from '../../machines/activityHistory.ts';
import { columnPickerMachine, LAST_COLUMN_MESSAGE } from '../../machines/columnPicker.ts';
import type { ActivityEvent } from '../../domain/api/eventsReporter.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { useAppActors } from '../shell/actors.tsx';
import { wizardSearch } from '../wizard/wizardSearch.ts';

export const COLUMN_LABELS: Record<ActivityHistoryColumn, string> = {
  time: 'Time', actor: 'Actor', type: 'Type', description: 'Description', details: 'Details', correlationId: 'Correlation id',
};
const NO_POLICIES: Policies = {};
/** the actor filter's choice of a user, apart from the id typed for it */
const A_USER = 'user';

/** The route's element: one formula's history under /activity-history/{formulaId}, else the tenant's. */
export function ActivityHistoryRoute() {
  const { formulaId } = useParams();
  // another formula is another history: its own machines
  return <ActivityHistory key={formulaId ?? ''} formulaId={formulaId ?? null} />;
}

export function ActivityHistory({ formulaId, logic = activityHistoryMachine, columnLogic = columnPickerMachine, now }: {
  formulaId: string | null;
  logic?: typeof activityHistoryMachine;
  columnLogic?: typeof columnPickerMachine;
  now?: Date;
}) {
  const { auth } = useAppActors();
  const policies = useSelector(auth, (s) => s.context.user?.policies ?? NO_POLICIES);
  const userId = useSelector(auth, (s) => s.context.user?.auth0Id ?? null);
  const history = useActorRef(logic, { input: { formulaId, now: now ?? new Date() } });
  const state = useSelector(history, (s) => s);
  const columns = useActorRef(columnLogic, { input: { storageKey: `activityHistory.${userId ?? 'anyone'}` } });
  const columnState = useSelector(columns, (s) => s);
  const { events, nextCursor, formulaName, moreError, filters } = state.context;
  const visible = columnState.matches('ready') ? columnState.context.visible : [...ACTIVITY_HISTORY_COLUMNS];
  const shown = state.matches('loaded') || state.matches('loadingMore');
  const filtered = filters.types.length > 0 || filters.actor !== '' || filters.q.trim() !== '';

  return (
    <Stack>
      <Stack gap={4}>
        <Title order={1}>{formulaId ? `Activity History: ${formulaName ?? 'formula'}` : 'Activity History'}</Title>
        {formulaId && <Anchor component={Link} to={ROUTES.activityHistory} w="fit-content">All activity</Anchor>}
      </Stack>
      <FiltersForm
        key={JSON.stringify(filters)} applied={filters} types={state.context.types} problems={state.context.problems}
        onApply={(next) => history.send({ type: 'filters.apply', filters: next })}
      />
      <ColumnPicker
        visible={visible} refused={columnState.context.refused} disabled={!columnState.matches('ready')}
        onToggle={(column) => columns.send({ type: 'column.toggle', column })}
      />
      {(state.matches('preparing') || state.matches('loading')) && <TableSkeleton columns={visible.map((c) => COLUMN_LABELS[c])} caption="Loading activity" />}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The activity could not be loaded">
          <Button size="xs" mt="xs" onClick={() => history.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {shown && events.length === 0 && (
        <Card withBorder>
          <Text c="dimmed">{filtered ? 'No activity matches these filters in these dates.' : 'No activity in these dates.'}</Text>
        </Card>
      )}
      {shown && events.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table striped aria-label="Activity">
            <Table.Thead>
              <Table.Tr>{visible.map((c) => <Table.Th key={c}>{COLUMN_LABELS[c]}</Table.Th>)}</Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {events.map((e) => (
                <Table.Tr key={e.id}>
                  {visible.map((c) => <Table.Td key={c}><Cell column={c} event={e} policies={policies} inFormula={!!formulaId} /></Table.Td>)}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {moreError && <Alert color="red" role="alert">{moreError}</Alert>}
      {shown && nextCursor !== null && (
        <Button variant="default" w="fit-content" loading={state.matches('loadingMore')} onClick={() => history.send({ type: 'page.more' })}>Load more</Button>
      )}
      {shown && events.length > 0 && nextCursor === null && <Text size="sm" c="dimmed">{events.length === 1 ? 'The one event in these dates is shown.' : `All ${events.length} events in these dates are shown.`}</Text>}
    </Stack>
  );
}

/** The filters as the user edits them; applied (and checked by the machine) on submit. */
function FiltersForm({ applied, types, problems, onApply }: {
  applied: ActivityHistoryFilters;
  types: string[];
  problems: Partial<Record<'fromDay' | 'toDay' | 'actor' | 'q', string>>;
  onApply(filters: ActivityHistoryFilters): void;
}) {
  const [draft, setDraft] = useState(applied);
  const [actorKind, setActorKind] = useState(applied.actor === '' || applied.actor === 'system' ? applied.actor : A_USER);
  const set = (patch: Partial<ActivityHistoryFilters>) => setDraft((d) => ({ ...d, ...patch }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({ ...draft, actor: actorKind === A_USER ? draft.actor.trim() : actorKind });
  };
  return (
    <form onSubmit={submit} aria-label="Filters" noValidate>
      <Group align="flex-start" wrap="wrap">
        <TextInput type="date" label="From" required value={draft.fromDay} error={problems.fromDay} onChange={(e) => set({ fromDay: e.currentTarget.value })} />
        <TextInput type="date" label="To" required value={draft.toDay} error={problems.toDay} onChange={(e) => set({ toDay: e.currentTarget.value })} />
        <MultiSelect
          label="Types" placeholder={draft.types.length ? undefined : 'All types'} data={[...new Set([...types, ...draft.types])].map((t) => ({ value: t, label: activityTypeLabel(t) }))} value={draft.types}
          onChange={(value) => set({ types: value })} searchable clearable miw={200}
        />
        <NativeSelect
          label="Actor" value={actorKind}
          data={[{ value: '', label: 'Anyone' }, { value: 'system', label: 'System' }, { value: A_USER, label: 'A user (by id)' }]}
          onChange={(e) => { const kind = e.currentTarget.value; setActorKind(kind); set({ actor: kind === A_USER ? '' : kind }); }}
        />
        {actorKind === A_USER && (
          <TextInput label="User id" value={draft.actor} error={problems.actor} onChange={(e) => set({ actor: e.currentTarget.value })} />
        )}
        <TextInput
          label="Description contains" description="At least 3 characters" value={draft.q} error={problems.q}
          onChange={(e) => set({ q: e.currentTarget.value })}
        />
      </Group>
      <Button type="submit" mt="sm">Apply</Button>
    </form>
  );
}

/** One checkbox per column; the last one shown stays, and says why. */
function ColumnPicker({ visible, refused, disabled, onToggle }: {
  visible: readonly ActivityHistoryColumn[];
  refused: ActivityHistoryColumn | null;
  disabled: boolean;
  onToggle(column: ActivityHistoryColumn): void;
}) {
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
      <Text component="legend" size="sm" fw={500}>Columns</Text>
      <Group gap="md" mt={4}>
        {ACTIVITY_HISTORY_COLUMNS.map((c) => (
          <Checkbox key={c} label={COLUMN_LABELS[c]} checked={visible.includes(c)} disabled={disabled} onChange={() => onToggle(c)} />
        ))}
      </Group>
      {refused && (
        <Text size="sm" c="orange.8" role="status" mt={4}>
          {LAST_COLUMN_MESSAGE}: {COLUMN_LABELS[refused]} is the only column shown.
        </Text>
      )}
    </fieldset>
  );
}

function Cell({ column, event: e, policies, inFormula }: { column: ActivityHistoryColumn; event: ActivityEvent; policies: Policies; inFormula: boolean }) {
  const location = useLocation();
  switch (column) {
    case 'time': return <time dateTime={e.at} title={e.at}>{new Date(e.at).toLocaleString()}</time>;
    case 'actor':
      if (e.actor.userId === null) return <Text span size="sm">{e.actor.name}</Text>;
      return can(policies, 'usermanagement', 'view')
        ? <Anchor component={Link} to={ROUTES.userManagement} size="sm" aria-label={`${e.actor.name} in User Management`}>{e.actor.name}</Anchor>
        : <Text span size="sm">{e.actor.name}</Text>;
    // in words, with the type itself for whoever reads the API or the logs
    case 'type': return <Text span size="sm" title={e.type}>{activityTypeLabel(e.type)}</Text>;
    case 'description':
      return (
        <Stack gap={2}>
          <Text size="sm">{e.description}</Text>
          {e.formulaId && (
            <Group gap="xs">
              {!inFormula && <Anchor component={Link} size="xs" to={`${ROUTES.activityHistory}/${e.formulaId}`}>Formula activity</Anchor>}
              {can(policies, 'formula', 'view') && (
                <Anchor component={Link} size="xs" to={{ pathname: location.pathname, search: wizardSearch(location.search, e.formulaId, 'review') }}>Open formula</Anchor>
              )}
            </Group>
          )}
          {e.recordId && <Text size="xs" c="dimmed">Record {e.recordId}</Text>}
        </Stack>
      );
    case 'details': return <Details details={e.details} />;
    case 'correlationId': return <Code>{e.correlationId}</Code>;
  }
}

/** The details as a key: value list behind a summary, so a row stays one line until opened. */
function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (!entries.length) return <Text span size="sm" c="dimmed">None</Text>;
  return (
    <details>
      <summary style={{ cursor: 'pointer' }}>{entries.length === 1 ? '1 detail' : `${entries.length} details`}</summary>
      <dl style={{ margin: 0 }}>
        {entries.map(([k, v]) => (
          <div key={k} style={{ display: 'flex', gap: 4 }}>
            <dt style={{ fontWeight: 500 }}>{k}:</dt>
            <dd style={{ margin: 0, whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>{typeof v === 'string' ? v : JSON.stringify(v, null, 1)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
