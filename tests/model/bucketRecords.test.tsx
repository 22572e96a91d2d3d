/**
 * Model-based tests of a bucket screen (src/machines/bucketRecords.ts) on the rendered page: the
 * loading skeleton, the rows with the formula's summary fields, the empty state, a failure and its
 * retry, keyset paging (the next page asked for with the last page's cursor), sorting, the filter
 * checked with the shared schema's messages before anything is asked, the selection (one record,
 * the page, every record matching), and the bulk actions with delete's confirmation. The records
 * API is faked at the machine's actors; a role without the records edit policy is told it lacks
 * editing permission and nothing is sent.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { RecordCounts, RecordPage } from '../../src/domain/api/records.ts';
import { MESSAGES } from '../../src/domain/errors.ts';
import { RECORD_QUERY_MESSAGES, type RecordFilter } from '../../src/domain/records/query.ts';
import { ROLE_POLICIES, type Policies } from '../../src/domain/roles.ts';
import { ACTION_LABELS, bucketRecordsMachine, NO_EDIT_PERMISSION, type ActionRequest, type RecordAction, type PageAnswer, type PageRequest } from '../../src/machines/bucketRecords.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { BucketPage } from '../../src/views/records/BucketPage.tsx';
import { NeedsAttentionReview } from '../../src/views/records/NeedsAttentionReview.tsx';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof bucketRecordsMachine>;

const FORMULA = '5b0c8a52-27a4-4c3e-9d0e-7a0f3d1b2c4e';
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const UPLOAD = '45349fc5-4d2a-4354-a1f2-25b85b4130b1';
const row = (n: number, extra: Partial<RecordPage['records'][number]> = {}): RecordPage['records'][number] => ({
  id: id(n), sourceKey: `${UPLOAD}#${n + 1}`, title: `Ada ${n} · ada${n}@example.org`, sourcePosition: `supporters-spring-2026.csv, line ${n + 1}`, recordId: null, dateAdded: '2026-11-19T08:15:00.000Z', dateProcessed: null, matchReasons: ['Email matches'],
  errorReason: null, errorDate: null, bucket: 'one-to-one-match', customBucket: null, state: 'needs-attention', score: 80 + n, candidateCount: 1, waitingFor: null,
  summary: { firstName: `Ada ${n}`, email: `ada${n}@example.org` }, outcome: null, sentBy: null, omittedBy: null, ...extra,
});
const COUNTS: RecordCounts = {
  views: {
    'ready-records': 4, 'needs-attention': 3, 'needs-attention-one-to-one': 2, 'one-to-many': 1, 'new-records': 0, exception: 0,
    'formula-exceptions': 0, 'validation-exceptions': 0, 'related-records': 0, sent: 0, omitted: 0,
  },
  customBuckets: [{ name: 'Bad postcodes', count: 2 }],
  total: 7,
};
const answer = (records: RecordPage['records'], nextCursor: string | null): PageAnswer => ({
  page: { records, summaryFields: ['firstName', 'email'], nextCursor }, counts: COUNTS,
});
const FIRST = answer([row(1), row(2)], 'c2');
const LAST = answer([row(3, { errorReason: 'Postcode missing', errorDate: '2026-11-19T09:00:00.000Z' })], null);
const EMPTY = answer([], null);

const FILTERS: Record<string, RecordFilter> = {
  smith: { text: 'smith' },
  'short text': { text: 'sm' },
  'empty group': { group: [] },
};
const PROBLEM_TEXT = [RECORD_QUERY_MESSAGES.queryShort, RECORD_QUERY_MESSAGES.groupEmpty];
const BUSY = new ApiError(409, { title: 'formula-busy', status: 409 }, { silent: true });
/** the records API's answer for a formula id this tenant does not have */
const NO_FORMULA = new ApiError(404, { title: 'not-found', status: 404, detail: 'No such formula.' }, { silent: true });

const serializeState = (s: Snap) => {
  const c = s.context;
  return JSON.stringify([s.value, c.records.length, c.cursors.length, c.sort, c.filter, Object.values(c.problems), c.selection, c.pending, c.notice, c.actionError]);
};

const pristine = (c: Snap['context']) => c.cursors.length === 1 && c.sort === 'dateAdded' && !c.filter.text && !c.notice && !c.actionError;

const model = testModel(bucketRecordsMachine, {
  input: { formulaId: FORMULA, view: 'needs-attention', customBucket: null, canEdit: true, canSend: true },
  serializeState: serializeState as never,
  events: (s) => {
    const snap = s as Snap;
    const c = snap.context;
    if (snap.matches('loading')) {
      if (c.cursors.length > 1) return [{ type: 'xstate.done.actor.loadPage', output: LAST }] as never;
      if (c.filter.text) return [{ type: 'xstate.done.actor.loadPage', output: EMPTY }] as never;
      if (c.notice || c.sort !== 'dateAdded') return [{ type: 'xstate.done.actor.loadPage', output: FIRST }] as never;
      return [
        { type: 'xstate.done.actor.loadPage', output: FIRST }, { type: 'xstate.error.actor.loadPage', error: new Error('offline') },
        { type: 'xstate.error.actor.loadPage', error: NO_FORMULA, name: 'no such formula' },
      ] as never;
    }
    if (snap.matches('failed')) return [{ type: 'list.reload' }] as never;
    if (snap.matches('confirming')) return [{ type: 'action.confirm' }, { type: 'action.cancel' }] as never;
    if (snap.matches('acting')) return [{ type: 'xstate.done.actor.runAction', output: { affected: 2, skipped: 0 } }, { type: 'xstate.error.actor.runAction', error: BUSY }] as never;
    // showing
    if (c.notice || c.actionError || c.records.length === 0) return [] as never;
    if (c.cursors.length > 1) return [{ type: 'page.previous' }] as never;
    if (!pristine(c)) return [] as never;
    // a refused filter: its messages show until a valid one is applied
    if (Object.keys(c.problems).length) return [{ type: 'filter.apply', name: 'smith', filter: FILTERS.smith }] as never;
    const events: object[] = [];
    if (c.selection.kind === 'none') {
      events.push(
        ...Object.entries(FILTERS).map(([name, filter]) => ({ type: 'filter.apply', name, filter })),
        { type: 'sort.change', sort: 'score', direction: 'desc' },
        { type: 'page.next' },
        { type: 'record.toggle', id: id(1) },
        { type: 'page.toggle' },
      );
    } else {
      if (c.selection.kind === 'ids' && c.selection.ids.length === c.records.length) events.push({ type: 'select.matching' });
      if (c.selection.kind === 'matching') events.push({ type: 'select.none' });
      events.push({ type: 'action.request', action: 'ready' }, { type: 'action.request', action: 'send' }, { type: 'action.request', action: 'remove' });
    }
    return events as never;
  },
});

function renderBucket(machine: typeof bucketRecordsMachine, policies: Policies = ROLE_POLICIES['Data Processor']) {
  const page = fakeCall<PageRequest, PageAnswer>('load a page');
  const action = fakeCall<ActionRequest, { affected: number; skipped: number }>('run an action');
  const formula = answeredCall<{ formulaId: string }, string | null>(() => 'Spring appeal');
  const logic = machine.provide({ actors: { loadPage: page.logic, runAction: action.logic, loadFormula: formula.logic } as never });
  const router = createMemoryRouter([{
    path: '/:formulaId/needs-attention',
    element: <BucketPage screen="needsAttention" formulaId={FORMULA} customBucket={null} policies={policies} logic={logic} />,
  }], { initialEntries: [`/${FORMULA}/needs-attention`] });
  render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
  return { page, action, router };
}

const selectionText = (c: Snap['context']) => {
  if (c.selection.kind === 'matching') return 'Every record in this bucket selected';
  const n = c.selection.kind === 'ids' ? c.selection.ids.length : 0;
  return n === 0 ? 'No records selected' : n === 1 ? '1 record selected' : `${n} records selected`;
};

const view: ModelView<typeof bucketRecordsMachine, ReturnType<typeof renderBucket>> = {
  render: (machine) => renderBucket(machine),
  params: (r) => ({
    states: {
      loading: async () => { await screen.findByRole('status', { name: 'Loading records' }); },
      failed: async () => { await screen.findByText('The records could not be loaded'); },
      formulaMissing: async () => {
        await screen.findByRole('heading', { level: 1, name: MESSAGES.notFound });
        expect(screen.getByText(`/${FORMULA}/needs-attention`, { selector: 'code' })).toBeTruthy();
        expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
      },
      confirming: async (s) => {
        const c = (s as Snap).context;
        const sending = c.pending === 'send';
        const dialog = await screen.findByRole('dialog', { name: sending ? 'Send records now?' : 'Delete records?' });
        // how many records, of which formula, and what will happen to them
        const how = c.selection.kind === 'matching' ? 'Every record in this bucket (3 records)' : c.selection.kind === 'ids' && c.selection.ids.length === 1 ? '1 record' : '2 records';
        const text = within(dialog).getByText(new RegExp(`^${how.replace(/[()]/g, '\\$&')} of Spring appeal will be`)).textContent!;
        expect(text).toContain(sending ? 'queued for sending to the destination now' : 'deleted. This cannot be undone.');
        expect(within(dialog).getByRole('button', { name: sending ? 'Send now' : 'Delete' })).toBeTruthy();
        expect(r.action.calls).toEqual([]);
      },
      acting: async (s) => {
        const c = (s as Snap).context;
        // the action applies to the selection: the records chosen, or the whole scope
        const asked = await r.action.called();
        expect(asked.action).toBe(c.pending);
        expect(asked.selection).toEqual(c.selection.kind === 'matching'
          ? { kind: 'scope', scope: { view: 'needs-attention', filter: {} } }
          : { kind: 'ids', ids: (c.selection as { ids: string[] }).ids });
        const label = ACTION_LABELS[c.pending!];
        const toolbar = screen.getByRole('toolbar', { name: 'Record actions' });
        await waitFor(() => expect(within(toolbar).getByRole('button', { name: label }).getAttribute('data-loading')).toBe('true'));
      },
      showing: async (s) => {
        const c = (s as Snap).context;
        await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading records' })).toBeNull());
        expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Needs Attention']);
        await screen.findByText('Formula: Spring appeal');
        // the bucket links carry the counts
        const nav = screen.getByRole('navigation', { name: 'Buckets' });
        expect(within(nav).getByRole('link', { name: /^Needs Attention/ }).getAttribute('aria-current')).toBe('page');
        expect(within(nav).getByRole('link', { name: /^Ready records/ }).textContent).toBe('Ready records 4');
        expect(within(nav).getByRole('link', { name: /Bad postcodes/ }).getAttribute('href')).toBe(`/${FORMULA}/validation-exceptions/Bad%20postcodes`);
        for (const message of PROBLEM_TEXT) expect(!!screen.queryByText(message)).toBe(Object.values(c.problems).includes(message));
        expect(!!screen.queryByText(/records? (added to Ready|queued for sending|deleted)\./)).toBe(c.notice !== null);
        expect(!!screen.queryByText('A run of this formula is under way. Try again when it has finished.')).toBe(c.actionError !== null);
        if (!c.records.length) {
          await screen.findByText(c.filter.text ? 'No records match this filter.' : 'No records in this bucket.');
          return;
        }
        const table = screen.getByRole('table', { name: 'Records' });
        // the summary fields headed as words, not as the destination's field names
        const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
        expect(headers.slice(1, 4)).toEqual(['Record', 'First name', 'Email']);
        const rows = within(table).getAllByRole('row').slice(1);
        // a row reads the record's name, then its file and line and its state, never the upload's id; the key shows on hover
        expect(rows.map((tr) => within(tr).getAllByRole('cell')[1]!.textContent))
          .toEqual(c.records.map((x) => `${x.title}${x.sourcePosition}Needs Attention`));
        expect(rows.map((tr) => within(tr).getByTestId('source-position').getAttribute('title'))).toEqual(c.records.map((x) => x.sourceKey));
        expect(table.textContent).not.toContain(UPLOAD);
        expect(within(rows[0]!).getByText(c.records[0]!.summary.firstName as string)).toBeTruthy();
        const scoreHeader = within(table).getByRole('columnheader', { name: 'Score' });
        expect(scoreHeader.getAttribute('aria-sort')).toBe(c.sort === 'score' ? 'descending' : null);
        const selected = (tr: HTMLElement) => (within(tr).getAllByRole('checkbox')[0] as HTMLInputElement).checked;
        const ids = c.selection.kind === 'ids' ? c.selection.ids : [];
        expect(rows.map(selected)).toEqual(c.records.map((x) => c.selection.kind === 'matching' || ids.includes(x.id)));
        expect(screen.getByRole('toolbar', { name: 'Record actions' }).textContent).toContain(selectionText(c));
        expect(screen.getByText(`Page ${c.cursors.length}`)).toBeTruthy();
        expect((screen.getByRole('button', { name: 'Next page' }) as HTMLButtonElement).disabled).toBe(c.nextCursor === null);
      },
    },
    events: {
      'xstate.done.actor.loadPage': async (step) => {
        const asked = await r.page.called();
        const c = (step.state as Snap).context;
        // keyset paging: the page is asked for with the cursor it starts at, in the scope and sort shown
        expect(asked).toMatchObject({ formulaId: FORMULA, cursor: c.cursors.at(-1) ?? null, sort: c.sort, scope: { view: 'needs-attention' } });
        if (c.filter.text) expect(asked.scope.filter).toEqual({ text: c.filter.text });
        await r.page.answer(step.event);
      },
      'xstate.error.actor.loadPage': (step) => r.page.answer(step.event),
      'xstate.done.actor.runAction': (step) => r.action.answer(step.event),
      'xstate.error.actor.runAction': (step) => r.action.answer(step.event),
      'list.reload': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Try again' })); },
      'page.next': async () => { fireEvent.click(screen.getByRole('button', { name: 'Next page' })); },
      'page.previous': async () => { fireEvent.click(screen.getByRole('button', { name: 'Previous page' })); },
      'sort.change': async () => { fireEvent.click(within(screen.getByRole('columnheader', { name: 'Score' })).getByRole('button')); },
      'record.toggle': async () => { fireEvent.click(screen.getByRole('checkbox', { name: 'Select record Ada 1 · ada1@example.org (supporters-spring-2026.csv, line 2)' })); },
      'page.toggle': async () => { fireEvent.click(screen.getByRole('checkbox', { name: 'Select every record on this page' })); },
      'select.matching': async () => { fireEvent.click(screen.getByRole('button', { name: 'Select every record in this bucket' })); },
      'select.none': async () => { fireEvent.click(screen.getByRole('button', { name: 'Clear the selection' })); },
      'action.request': async (step) => {
        const label = ACTION_LABELS[(step.event as unknown as { action: RecordAction }).action];
        fireEvent.click(within(screen.getByRole('toolbar', { name: 'Record actions' })).getByRole('button', { name: label }));
      },
      'action.confirm': async () => {
        fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: /^(Send now|Delete)$/ }));
      },
      // the keyboard's way out of a Mantine modal
      'action.cancel': async () => { fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' }); },
      'filter.apply': async (step) => {
        const f = (step.event as unknown as { filter: RecordFilter }).filter;
        fireEvent.change(screen.getByLabelText(/^Search records/), { target: { value: f.text ?? '' } });
        const grouped = screen.getByRole('checkbox', { name: 'Only these records' }) as HTMLInputElement;
        if (grouped.checked !== !!f.group) fireEvent.click(grouped);
        if (f.group) fireEvent.change(await screen.findByLabelText(/^Record ids or source keys/), { target: { value: f.group.join('\n') } });
        fireEvent.click(screen.getByRole('button', { name: 'Apply filter' }));
      },
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const stepName = (e: { type: string; name?: string; action?: string }) => (e.type === 'filter.apply' ? `filter ${e.name}` : e.action ? `${e.type} ${e.action}`
  : `${e.type.replace('xstate.', '')}${e.name ? ` (${e.name})` : ''}`);

describe('a bucket screen (bucket-records shortest paths on the rendered page)', () => {
  it('reaches every state', () => {
    const values = new Set(paths.flatMap((p) => [...p.steps.map((st) => st.state), p.state]).map((s) => JSON.stringify(s.value)));
    expect([...values].sort()).toEqual(['"acting"', '"confirming"', '"failed"', '"formulaMissing"', '"loading"', '"showing"']);
  });

  it.each(named(paths, (p) => p.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => stepName(s.event)).join(' → ')))('%s', async (_name, path) => {
    await runPath(path, bucketRecordsMachine, view);
  }, 20_000);
});

describe('roles without editing permission', () => {
  it('View Only sees the records, and an action says it may not edit and sends nothing', async () => {
    const r = renderBucket(bucketRecordsMachine, ROLE_POLICIES['View Only']);
    await r.page.answer({ type: 'xstate.done.actor.loadPage', output: FIRST });
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Select record Ada 1 · ada1@example.org (supporters-spring-2026.csv, line 2)' }));
    for (const label of ['Add to Ready', 'Send now', 'Delete']) {
      fireEvent.click(within(screen.getByRole('toolbar', { name: 'Record actions' })).getByRole('button', { name: label }));
      await screen.findByText(NO_EDIT_PERMISSION);
    }
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(r.action.calls).toEqual([]);
  });
});

describe('related records', () => {
  it('name the destination record each one waits for, in a column of their own', async () => {
    const page = fakeCall<PageRequest, PageAnswer>('load a page');
    const formula = answeredCall<{ formulaId: string }, string | null>(() => 'Spring gifts');
    const logic = bucketRecordsMachine.provide({ actors: { loadPage: page.logic, loadFormula: formula.logic } as never });
    const router = createMemoryRouter([{
      path: '/:formulaId/related-records',
      element: <BucketPage screen="relatedRecords" formulaId={FORMULA} customBucket={null} policies={ROLE_POLICIES['Data Processor']} logic={logic} />,
    }], { initialEntries: [`/${FORMULA}/related-records`] });
    render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
    const waiting = row(1, { bucket: 'relationship-match', waitingFor: { object: 'constituents', field: 'lookupId', value: 'SC-404' } });
    await page.answer({ type: 'xstate.done.actor.loadPage', output: answer([waiting], null) });
    const table = await screen.findByRole('table', { name: 'Records' });
    const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
    expect(headers).toContain('Waits for');
    const cells = within(within(table).getAllByRole('row')[1]!).getAllByRole('cell').map((c) => c.textContent);
    expect(cells[headers.indexOf('Waits for')]).toBe('constituents with Lookup ID SC-404');
  });
});

describe('an unknown formula', () => {
  it.each([
    ['needs-attention', 'needsAttention'],
    ['needs-attention/v2', 'needsAttentionReview'],
  ] as const)('in a bucket URL (/<id>/%s) shows the not-found page, with the path asked for and Go back', async (segment, screenId) => {
    const page = fakeCall<PageRequest, PageAnswer>('load a page');
    const formula = answeredCall<{ formulaId: string }, string | null>(() => null);
    const logic = bucketRecordsMachine.provide({ actors: { loadPage: page.logic, loadFormula: formula.logic } as never });
    const element = screenId === 'needsAttentionReview'
      ? <NeedsAttentionReview formulaId={FORMULA} policies={ROLE_POLICIES['Data Processor']} logic={logic} />
      : <BucketPage screen={screenId} formulaId={FORMULA} customBucket={null} policies={ROLE_POLICIES['Data Processor']} logic={logic} />;
    const router = createMemoryRouter([{ path: `/:formulaId/${segment}`, element }], { initialEntries: [`/${FORMULA}/${segment}?sort=score`] });
    render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
    await page.answer({ type: 'xstate.error.actor.loadPage', error: NO_FORMULA });
    await screen.findByRole('heading', { level: 1, name: MESSAGES.notFound });
    expect(screen.getByText(`/${FORMULA}/${segment}?sort=score`, { selector: 'code' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Go back' })).toBeTruthy();
    // not the bucket's failure and its retry, nor an empty bucket
    expect(screen.queryByText('The records could not be loaded')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(screen.queryByText(/No records/)).toBeNull();
    expect(router.state.location.pathname).toBe(`/${FORMULA}/${segment}`);
    expect(page.calls).toHaveLength(1);
  });

  it('keeps the failure and its retry for any other refusal', async () => {
    const r = renderBucket(bucketRecordsMachine);
    await r.page.answer({ type: 'xstate.error.actor.loadPage', error: new ApiError(500, { title: 'server-error', status: 500 }, { silent: true }) });
    await screen.findByText('The records could not be loaded');
    expect(screen.queryByRole('heading', { name: MESSAGES.notFound })).toBeNull();
  });
});

describe('the suite can fail', () => {
  it('notices a valid filter refused when the guard is broken', async () => {
    const filtering = paths.filter((p) => p.steps.some((st) => (st.event as { name?: string }).name === 'smith'));
    await expectBrokenGuardToFail(bucketRecordsMachine, 'isFilterValid', { paths: filtering.slice(0, 2), view, every: true });
  }, 60_000);

  it('notices Send now and Delete done without asking when the confirmation guard is broken', async () => {
    const asked = ['send', 'remove'].map((action) => paths.find((p) => p.steps.some((st) => st.state.matches('confirming') && st.state.context.pending === action))!);
    await expectBrokenGuardToFail(bucketRecordsMachine, 'needsConfirmation', { paths: asked, view, every: true });
  }, 60_000);

  it('notices the actions refused when the permission guard is broken', async () => {
    const acting = paths.filter((p) => p.steps.some((st) => st.event.type === 'action.request')).slice(0, 3);
    await expectBrokenGuardToFail(bucketRecordsMachine, 'mayAct', { paths: acting, view, every: true });
  }, 60_000);
});
