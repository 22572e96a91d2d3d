/**
 * A bucket screen (SPEC.md sections 2 and 3): one view of a formula's records with the summary
 * fields the formula chose and the record fields of section 3, paged, sorted and filtered on the
 * server, with a selection (some records, or every record the filter matches) for the bulk
 * actions add to Ready, send now, create new and delete. A row opens the record's review. Loading,
 * paging, the selection and the actions are the bucket-records machine's (src/machines/bucketRecords.ts).
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import {
  Alert, Anchor, Badge, Button, Card, Checkbox, Drawer, Group, Modal, NativeSelect, Paper, Stack, Table, Text, Textarea, TextInput, Title, UnstyledButton,
} from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import { IconArrowDown, IconArrowUp, IconArrowsSort } from '@tabler/icons-react';
import type { SortDirection } from '../../domain/api/records.ts';
import { fieldHeading } from '../../domain/formula/fieldHeading.ts';
import { recordLabel } from '../../domain/formula/recordLabel.ts';
import { RECORD_STATE_LABELS, RUN_TRIGGER_LABELS } from '../../domain/formula/statuses.ts';
import { isOutcomeView, type RecordFilter, type RecordSort, type RecordView } from '../../domain/records/query.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES, SCREENS } from '../../domain/screens.ts';
import {
  ACTION_LABELS, actionConfirmation, bucketRecordsMachine, isFiltered, RECORD_ACTIONS, scopeOf, selectionOf, selectionWords, type BucketRecordsContext,
  type RecordAction, type RecordRow,
} from '../../machines/bucketRecords.ts';
import type { recordReviewMachine } from '../../machines/recordReview.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { NotFoundHere } from '../errors/NotFoundPage.tsx';
import { useAppActors } from '../shell/actors.tsx';
import { BUCKET_LINKS, BUCKET_SCREENS, bucketPath, type BucketScreen } from './bucketViews.ts';
import { ExportButton } from './ExportButton.tsx';
import { NeedsAttentionReview } from './NeedsAttentionReview.tsx';
import { Reasons } from './Reasons.tsx';
import { RecordReview } from './RecordReview.tsx';

const NO_POLICIES: Policies = {};
export const RECORD_QUERY_PARAM = 'record';

const SORT_LABELS: Record<RecordSort, string> = { dateAdded: 'Date added', dateProcessed: 'Date processed', score: 'Score', errorDate: 'Error date' };
const VIEW_DESCRIPTIONS: Partial<Record<RecordView, string>> = {
  'related-records': 'Records that wait for another record (a gift for its constituent) before they can be sent.',
  sent: 'Records written to the destination: created or updated, when, and by whom or by which run.',
  omitted: 'Records a routing rule left out, with the rule that did. Add one to Ready to send it after all.',
};
const EMPTY_TEXT: Partial<Record<RecordView, string>> = {
  sent: 'No records sent yet.',
  omitted: 'No records omitted.',
};
/** Sent records are done with: nothing more to do with them here but read and export them. */
const actionsOf = (view: RecordView): readonly RecordAction[] => (view === 'sent' ? [] : RECORD_ACTIONS);

/** The policies of the signed-in user in the active tenant. */
export function usePolicies(): Policies {
  const { auth } = useAppActors();
  return useSelector(auth, (s) => s.context.user?.policies ?? NO_POLICIES);
}

/** The route's element: the bucket of the screen, for the formula (and custom bucket) in the path. */
export function BucketRoute({ screen }: { screen: BucketScreen }) {
  const { formulaId = '', customBucket } = useParams();
  const policies = usePolicies();
  // another formula or bucket is another list: its own machine
  if (screen === 'needsAttentionReview') return <NeedsAttentionReview key={formulaId} formulaId={formulaId} policies={policies} />;
  return (
    <BucketPage
      key={`${formulaId}/${screen}/${customBucket ?? ''}`} screen={screen} formulaId={formulaId} customBucket={customBucket ?? null} policies={policies}
    />
  );
}

export interface BucketPageProps {
  screen: BucketScreen;
  formulaId: string;
  customBucket: string | null;
  policies: Policies;
  logic?: typeof bucketRecordsMachine;
  reviewLogic?: typeof recordReviewMachine;
}

export function BucketPage({ screen, formulaId, customBucket, policies, logic = bucketRecordsMachine, reviewLogic }: BucketPageProps) {
  const view = BUCKET_SCREENS[screen];
  const actor = useActorRef(logic, {
    input: { formulaId, view, customBucket, canEdit: can(policies, 'records', 'edit'), canSend: can(policies, 'records', 'send') },
  });
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const asking = state.matches('confirming') && c.pending ? actionConfirmation(c, c.pending) : null;
  const [params, setParams] = useSearchParams();
  const open = params.get(RECORD_QUERY_PARAM);
  const setOpen = (id: string | null) => setParams((p) => {
    const next = new URLSearchParams(p);
    if (id) next.set(RECORD_QUERY_PARAM, id); else next.delete(RECORD_QUERY_PARAM);
    return next;
  });
  const shown = !state.matches('loading') && !state.matches('failed');
  // on a phone, sent and omitted records are a card each, as All Formulas is: no table to scroll sideways
  const cards = useMediaQuery('(max-width: 36em)') && isOutcomeView(view);
  const filtered = isFiltered(c.filter);
  const title = `${SCREENS[screen].title}${customBucket ? `: ${customBucket}` : ''}`;
  if (state.matches('formulaMissing')) return <NotFoundHere />;

  return (
    <Stack>
      <Stack gap={4}>
        <Title order={1}>{title}</Title>
        <Text c="dimmed" size="sm">{c.formulaName ? `Formula: ${c.formulaName}` : 'Formula records'}</Text>
        {VIEW_DESCRIPTIONS[view] && <Text size="sm">{VIEW_DESCRIPTIONS[view]}</Text>}
      </Stack>
      <BucketLinks formulaId={formulaId} current={screen} customBucket={customBucket} counts={c.counts} />
      <FilterForm key={JSON.stringify(c.filter)} applied={c.filter} problems={c.problems} onApply={(filter) => actor.send({ type: 'filter.apply', filter })} />
      <Toolbar context={c} acting={state.matches('acting')} formulaId={formulaId} onAction={(action) => actor.send({ type: 'action.request', action })} />
      {c.notice && <Alert color="green" role="status">{c.notice}</Alert>}
      {c.actionError && <Alert color="red" role="alert" title={c.actionError} />}
      {state.matches('loading') && <TableSkeleton columns={['', 'Record', ...c.summaryFields.map(fieldHeading), 'Date added', 'Score']} caption="Loading records" />}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The records could not be loaded">
          <Button size="xs" mt="xs" onClick={() => actor.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {shown && c.records.length === 0 && (
        <Card withBorder>
          <Text c="dimmed">{filtered ? 'No records match this filter.' : EMPTY_TEXT[c.view] ?? 'No records in this bucket.'}</Text>
        </Card>
      )}
      {shown && c.records.length > 0 && cards && (
        <RecordCards
          context={c} onOpen={setOpen}
          onSort={(sort, direction) => actor.send({ type: 'sort.change', sort, direction })}
          onToggle={(id) => actor.send({ type: 'record.toggle', id })}
          onTogglePage={() => actor.send({ type: 'page.toggle' })}
          onSelect={(type) => actor.send({ type })}
        />
      )}
      {shown && c.records.length > 0 && !cards && (
        <RecordsTable
          context={c} onOpen={setOpen}
          onSort={(sort, direction) => actor.send({ type: 'sort.change', sort, direction })}
          onToggle={(id) => actor.send({ type: 'record.toggle', id })}
          onTogglePage={() => actor.send({ type: 'page.toggle' })}
          onSelect={(type) => actor.send({ type })}
        />
      )}
      {shown && (c.cursors.length > 1 || c.nextCursor !== null) && (
        <Group gap="xs" aria-label="Pages" role="group">
          <Button variant="default" disabled={c.cursors.length <= 1} onClick={() => actor.send({ type: 'page.previous' })}>Previous page</Button>
          <Text size="sm">Page {c.cursors.length}</Text>
          <Button variant="default" disabled={c.nextCursor === null} onClick={() => actor.send({ type: 'page.next' })}>Next page</Button>
        </Group>
      )}
      <Modal
        opened={state.matches('confirming')} onClose={() => actor.send({ type: 'action.cancel' })} title={asking?.title ?? ''} centered
        closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {asking && (
          <Stack>
            <Text size="sm">{asking.text}</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => actor.send({ type: 'action.cancel' })}>Cancel</Button>
              <Button color={c.pending === 'remove' ? 'red' : undefined} onClick={() => actor.send({ type: 'action.confirm' })}>{asking.button}</Button>
            </Group>
          </Stack>
        )}
      </Modal>
      <Drawer
        opened={open !== null} onClose={() => setOpen(null)} position="right" size="xl" title="Record review"
        closeButtonProps={{ 'aria-label': 'Close the record review' }}
      >
        {open && (
          <RecordReview
            key={open} formulaId={formulaId} recordId={open} policies={policies} logic={reviewLogic}
            onChanged={() => actor.send({ type: 'list.reload' })}
          />
        )}
      </Drawer>
    </Stack>
  );
}

/** How many records the selection holds, in words; the toolbar leaves the bucket's count to its link. */
const selectionText = (c: BucketRecordsContext) => selectionWords({ ...c, counts: null });

function BucketLinks({ formulaId, current, customBucket, counts }: {
  formulaId: string; current: BucketScreen; customBucket: string | null; counts: BucketRecordsContext['counts'];
}) {
  const links: { key: string; to: string; label: string; count: number | undefined; here: boolean }[] = [
    ...BUCKET_LINKS.map((l) => ({ key: l.screen, to: bucketPath(l.screen, formulaId), label: l.title, count: counts?.views[l.view], here: l.screen === current })),
    ...(counts?.customBuckets ?? []).map((b) => ({
      key: `custom:${b.name}`, to: bucketPath('validationExceptions', formulaId, b.name), label: `Validation: ${b.name}`, count: b.count,
      here: current === 'validationExceptions' && customBucket === b.name,
    })),
  ];
  return (
    <nav aria-label="Buckets">
      <Group gap="xs" wrap="wrap">
        {links.map((l) => (
          <Anchor key={l.key} component={Link} to={l.to} size="sm" aria-current={l.here ? 'page' : undefined} fw={l.here ? 700 : undefined}>
            {l.label}{l.count !== undefined && <>{' '}<Badge size="sm" variant="light" component="span">{l.count}</Badge></>}
          </Anchor>
        ))}
        {current !== 'needsAttentionReview' && (current === 'needsAttention' || current === 'needsAttentionOneToOne' || current === 'oneToMany') && (
          <Anchor component={Link} to={bucketPath('needsAttentionReview', formulaId)} size="sm">Review one at a time</Anchor>
        )}
      </Group>
    </nav>
  );
}

/** Splits the large group filter's text into its items: one a line, or separated by commas. */
const groupItems = (text: string) => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);

/** A day typed in a date field as the ISO time its day starts in the user's time zone (`plus` days later), or nothing. */
function startOfDay(day: string, plus = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(y, m - 1, d + plus).toISOString();
}
/** The day a filter's ISO time starts, for its date field (the end is the day before the exclusive bound). */
function dayOf(iso: string | undefined, minus = 0): string {
  if (!iso) return '';
  const at = new Date(iso);
  at.setDate(at.getDate() - minus);
  return `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;
}

/** The filter as the user edits it; applied (and checked by the machine) on submit. */
function FilterForm({ applied, problems, onApply }: {
  applied: RecordFilter;
  problems: BucketRecordsContext['problems'];
  onApply(filter: RecordFilter): void;
}) {
  const [text, setText] = useState(applied.text ?? '');
  const [grouped, setGrouped] = useState(!!applied.group);
  const [group, setGroup] = useState((applied.group ?? []).join('\n'));
  const [from, setFrom] = useState(dayOf(applied.addedFrom));
  const [to, setTo] = useState(dayOf(applied.addedTo, 1));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({
      text: text.trim() || undefined, group: grouped ? groupItems(group) : undefined,
      addedFrom: startOfDay(from), addedTo: startOfDay(to, 1),
    });
  };
  return (
    <form onSubmit={submit} aria-label="Filter records" noValidate>
      <Group align="flex-start" wrap="wrap">
        <TextInput label="Search records" description="At least 3 characters" value={text} error={problems.text} onChange={(e) => setText(e.currentTarget.value)} />
        <TextInput type="date" label="Added from" value={from} error={problems.addedFrom} onChange={(e) => setFrom(e.currentTarget.value)} />
        <TextInput type="date" label="Added until" value={to} error={problems.addedTo} onChange={(e) => setTo(e.currentTarget.value)} />
        <Stack gap={4}>
          <Checkbox label="Only these records" checked={grouped} onChange={(e) => setGrouped(e.currentTarget.checked)} mt={4} />
          {grouped && (
            <Textarea
              label="Record ids or source keys" description="One a line, or separated by commas" autosize minRows={2} maxRows={6}
              value={group} error={problems.group} onChange={(e) => setGroup(e.currentTarget.value)}
            />
          )}
        </Stack>
      </Group>
      <Button type="submit" mt="sm">Apply filter</Button>
    </form>
  );
}

function Toolbar({ context: c, acting, formulaId, onAction }: { context: BucketRecordsContext; acting: boolean; formulaId: string; onAction(action: RecordAction): void }) {
  const none = c.selection.kind === 'none';
  const exported = selectionOf(c) ?? { kind: 'scope' as const, scope: scopeOf(c) };
  return (
    <Group gap="xs" wrap="wrap" align="flex-start" role="toolbar" aria-label="Record actions">
      <Text size="sm" role="status" aria-live="polite">{none ? 'No records selected' : `${selectionText(c)} selected`}</Text>
      {actionsOf(c.view).map((action) => (
        <Button
          key={action} size="xs" variant={action === 'remove' ? 'light' : 'filled'} color={action === 'remove' ? 'red' : undefined}
          disabled={none || acting} loading={acting && c.pending === action} onClick={() => onAction(action)}
        >
          {ACTION_LABELS[action]}
        </Button>
      ))}
      {/* a new selection is a new export: the button's export is of what is selected, or of the whole (filtered) bucket */}
      <ExportButton key={JSON.stringify(exported)} formulaId={formulaId} selection={exported} label={none ? 'Export to CSV' : 'Export the selection to CSV'} />
    </Group>
  );
}

const when = (at: string | null) => (at ? <time dateTime={at} title={at}>{new Date(at).toLocaleString()}</time> : <Text span size="sm" c="dimmed">None</Text>);
const valueText = (value: unknown): string => (value === null || value === undefined || value === '' ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

function SortHeader({ column, context: c, onSort }: { column: RecordSort; context: BucketRecordsContext; onSort(sort: RecordSort, direction: SortDirection): void }) {
  const active = c.sort === column;
  const Icon = !active ? IconArrowsSort : c.direction === 'asc' ? IconArrowUp : IconArrowDown;
  return (
    <Table.Th aria-sort={active ? (c.direction === 'asc' ? 'ascending' : 'descending') : undefined}>
      <UnstyledButton
        onClick={() => onSort(column, active && c.direction === 'desc' ? 'asc' : 'desc')}
        style={{ display: 'inline-flex', alignItems: 'center', gap: 4, fontWeight: 700, fontSize: 'inherit' }}
      >
        {SORT_LABELS[column]}<Icon size={14} aria-hidden />
      </UnstyledButton>
    </Table.Th>
  );
}

function RecordsTable({ context: c, onOpen, onSort, onToggle, onTogglePage, onSelect }: {
  context: BucketRecordsContext;
  onSelect(kind: 'select.none' | 'select.matching'): void;
  onOpen(id: string): void;
  onSort(sort: RecordSort, direction: SortDirection): void;
  onToggle(id: string): void;
  onTogglePage(): void;
}) {
  const matching = c.selection.kind === 'matching';
  const ids = c.selection.kind === 'ids' ? c.selection.ids : [];
  const onPage = c.records.filter((r) => matching || ids.includes(r.id)).length;
  const sort = (column: RecordSort) => <SortHeader column={column} context={c} onSort={onSort} />;
  // sent and omitted records: how they left, in place of how they were matched
  const outcome = isOutcomeView(c.view);
  return (
    <Stack gap="xs">
      {(onPage === c.records.length || matching) && (c.nextCursor !== null || c.cursors.length > 1 || matching) && (
        <SelectMatching matching={matching} filtered={isFiltered(c.filter)} onSelect={onSelect} />
      )}
      <Table.ScrollContainer minWidth={960}>
        <Table striped aria-label="Records">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>
                <Checkbox
                  aria-label="Select every record on this page" checked={onPage > 0 && onPage === c.records.length}
                  indeterminate={onPage > 0 && onPage < c.records.length} onChange={onTogglePage}
                />
              </Table.Th>
              <Table.Th>Record</Table.Th>
              {/* how the record left comes first, in sight without scrolling the table */}
              {c.view === 'sent' && <><Table.Th>Sent as</Table.Th><Table.Th>Sent by</Table.Th></>}
              {c.view === 'omitted' && <Table.Th>Omitted by</Table.Th>}
              {c.summaryFields.map((f) => <Table.Th key={f}>{fieldHeading(f)}</Table.Th>)}
              <Table.Th>Record id</Table.Th>
              {sort('dateAdded')}
              {sort('dateProcessed')}
              {!outcome && sort('score')}
              {!outcome && <Table.Th>Match reasons</Table.Th>}
              {c.view === 'related-records' && <Table.Th>Waits for</Table.Th>}
              {!outcome && <Table.Th>Error reason</Table.Th>}
              {!outcome && sort('errorDate')}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {c.records.map((r) => (
              <Row
                key={r.id} record={r} fields={c.summaryFields} view={c.view} formulaId={c.formulaId} selected={matching || ids.includes(r.id)} onOpen={onOpen} onToggle={onToggle}
              />
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

/** The sorts an outcome view offers on a phone, where there are no column headers to sort by. */
const CARD_SORTS: { sort: RecordSort; direction: SortDirection; label: string }[] = [
  { sort: 'dateProcessed', direction: 'desc', label: 'Date processed, newest first' },
  { sort: 'dateProcessed', direction: 'asc', label: 'Date processed, oldest first' },
  { sort: 'dateAdded', direction: 'desc', label: 'Date added, newest first' },
  { sort: 'dateAdded', direction: 'asc', label: 'Date added, oldest first' },
];

/**
 * Sent and omitted records at a phone's width: a card per record, its name and state first, then
 * how it left (sent as and by, or the rule that omitted it), its summary fields, the destination's
 * id and its dates, each under its label; selection and sorting as the table has them.
 */
function RecordCards({ context: c, onOpen, onSort, onToggle, onTogglePage, onSelect }: Parameters<typeof RecordsTable>[0]) {
  const matching = c.selection.kind === 'matching';
  const ids = c.selection.kind === 'ids' ? c.selection.ids : [];
  const onPage = c.records.filter((r) => matching || ids.includes(r.id)).length;
  const line = (label: string, value: ReactNode) => (
    <Group gap={6} wrap="nowrap" align="baseline"><Text size="xs" c="dimmed" miw={110}>{label}</Text><Text component="div" size="sm" miw={0} style={{ overflowWrap: 'anywhere' }}>{value}</Text></Group>
  );
  return (
    <Stack gap="xs">
      {(onPage === c.records.length || matching) && (c.nextCursor !== null || c.cursors.length > 1 || matching) && (
        <SelectMatching matching={matching} filtered={isFiltered(c.filter)} onSelect={onSelect} />
      )}
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Checkbox
          label="Select every record on this page" checked={onPage > 0 && onPage === c.records.length}
          indeterminate={onPage > 0 && onPage < c.records.length} onChange={onTogglePage}
        />
        <NativeSelect
          label="Sort by" size="xs" value={`${c.sort}:${c.direction}`}
          data={CARD_SORTS.map((o) => ({ value: `${o.sort}:${o.direction}`, label: o.label }))}
          onChange={(e) => { const [sort, direction] = e.currentTarget.value.split(':'); onSort(sort as RecordSort, direction as SortDirection); }}
        />
      </Group>
      <Stack gap="xs" role="list" aria-label="Records">
        {c.records.map((r) => {
          const label = recordLabel(r.title, r.sourcePosition);
          return (
            <Paper key={r.id} role="listitem" aria-label={label} withBorder p="sm">
              <Stack gap={4}>
                <Group gap="xs" wrap="nowrap" align="flex-start">
                  <Checkbox mt={2} aria-label={`Select record ${label}`} checked={matching || ids.includes(r.id)} onChange={() => onToggle(r.id)} />
                  <Stack gap={2} align="flex-start" miw={0}>
                    <Anchor
                      component="button" type="button" size="sm" fw={600} ta="left" onClick={() => onOpen(r.id)} aria-label={`Review record ${label}`}
                      title={r.title ? undefined : r.sourceKey} style={{ overflowWrap: 'anywhere' }}
                    >
                      {r.title ?? r.sourcePosition}
                    </Anchor>
                    {r.title && <Text size="xs" c="dimmed" title={r.sourceKey} data-testid="source-position">{r.sourcePosition}</Text>}
                    <Badge size="xs" variant="light" tt="none">{RECORD_STATE_LABELS[r.state]}</Badge>
                  </Stack>
                </Group>
                {c.view === 'sent' && line('Sent as', r.outcome === 'created' ? 'Created' : r.outcome === 'updated' ? 'Updated' : '')}
                {c.view === 'sent' && line('Sent by', <SentBy record={r} formulaId={c.formulaId} />)}
                {c.view === 'omitted' && line('Omitted by', r.omittedBy?.reason ?? '')}
                {c.summaryFields.map((f) => <div key={f}>{line(fieldHeading(f), valueText(r.summary[f]))}</div>)}
                {line('Record id', r.recordId ?? <Text span c="dimmed" size="sm">None yet</Text>)}
                {line('Date added', when(r.dateAdded))}
                {line('Date processed', when(r.dateProcessed))}
              </Stack>
            </Paper>
          );
        })}
      </Stack>
    </Stack>
  );
}

/** Offered once the whole page is selected: the selection can grow to every record the filter matches, and back. */
function SelectMatching({ matching, filtered, onSelect }: { matching: boolean; filtered: boolean; onSelect(kind: 'select.none' | 'select.matching'): void }) {
  return (
    <Group gap="xs">
      <Text size="sm">{matching ? `Every record ${filtered ? 'matching the filter' : 'in this bucket'} is selected.` : 'Every record on this page is selected.'}</Text>
      <Button size="compact-sm" variant="subtle" onClick={() => onSelect(matching ? 'select.none' : 'select.matching')}>
        {matching ? 'Clear the selection' : `Select every record ${filtered ? 'matching the filter' : 'in this bucket'}`}
      </Button>
    </Group>
  );
}

/** Who sent a record, in words: the person, or the run (its trigger and start) with a link to the run history. */
function SentBy({ record: r, formulaId }: { record: RecordRow; formulaId: string }) {
  const by = r.sentBy;
  if (!by) return <Text span size="sm" c="dimmed">Not known</Text>;
  if (by.kind === 'person') return <Text size="sm">{by.name ?? 'A user since removed'}</Text>;
  return (
    <Anchor component={Link} to={ROUTES.runHistory.replace(':formulaId', encodeURIComponent(formulaId))} size="sm">
      {RUN_TRIGGER_LABELS[by.trigger]} run of {new Date(by.startedOn).toLocaleString()}
    </Anchor>
  );
}

function Row({ record: r, fields, view, formulaId, selected, onOpen, onToggle }: {
  record: RecordRow; fields: string[]; view: RecordView; formulaId: string; selected: boolean; onOpen(id: string): void; onToggle(id: string): void;
}) {
  const waits = view === 'related-records';
  const outcome = isOutcomeView(view);
  // the record's name first, where it came from under it; the source key stays on hover (and in the review)
  const label = recordLabel(r.title, r.sourcePosition);
  return (
    <Table.Tr>
      <Table.Td><Checkbox aria-label={`Select record ${label}`} checked={selected} onChange={() => onToggle(r.id)} /></Table.Td>
      <Table.Td miw={180} maw={280} data-testid="record-cell">
        <Stack gap={2} align="flex-start">
          <Anchor
            component="button" type="button" size="sm" fw={600} ta="left" onClick={() => onOpen(r.id)} aria-label={`Review record ${label}`}
            title={r.title ? undefined : r.sourceKey}
          >
            {r.title ?? r.sourcePosition}
          </Anchor>
          {r.title && <Text size="xs" c="dimmed" title={r.sourceKey} data-testid="source-position">{r.sourcePosition}</Text>}
          <Badge size="xs" variant="light" tt="none">{RECORD_STATE_LABELS[r.state]}</Badge>
        </Stack>
      </Table.Td>
      {view === 'sent' && (
        <>
          <Table.Td>{r.outcome ? <Badge variant="dot" color={r.outcome === 'created' ? 'green' : 'blue'} tt="none">{r.outcome === 'created' ? 'Created' : 'Updated'}</Badge> : null}</Table.Td>
          <Table.Td><SentBy record={r} formulaId={formulaId} /></Table.Td>
        </>
      )}
      {view === 'omitted' && <Table.Td><Text size="sm">{r.omittedBy?.reason ?? ''}</Text></Table.Td>}
      {fields.map((f) => <Table.Td key={f}><Text size="sm">{valueText(r.summary[f])}</Text></Table.Td>)}
      {/* one line however long the destination's id: the whole id stays in the cell (copied, read aloud) and shows on hover */}
      <Table.Td>{r.recordId ? <Text size="sm" truncate="end" maw={120} title={r.recordId}>{r.recordId}</Text> : <Text span c="dimmed" size="sm">None yet</Text>}</Table.Td>
      <Table.Td>{when(r.dateAdded)}</Table.Td>
      <Table.Td>{when(r.dateProcessed)}</Table.Td>
      {!outcome && <Table.Td>{r.score === null ? <Text span size="sm" c="dimmed">None</Text> : <Badge variant="light">{r.score}</Badge>}</Table.Td>}
      {!outcome && <Table.Td><Reasons reasons={r.matchReasons} /></Table.Td>}
      {waits && <Table.Td><Text size="sm">{!r.waitingFor ? '' : r.waitingFor.field === 'row' ? `its ${r.waitingFor.object} from the same row` : `${r.waitingFor.object} with ${fieldHeading(r.waitingFor.field)} ${r.waitingFor.value}`}</Text></Table.Td>}
      {!outcome && <Table.Td><Text size="sm">{r.errorReason ?? ''}</Text></Table.Td>}
      {!outcome && <Table.Td>{r.errorDate ? when(r.errorDate) : null}</Table.Td>}
    </Table.Tr>
  );
}
