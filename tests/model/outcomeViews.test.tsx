/**
 * Model-based tests of the Sent records and Omitted records screens: the bucket-records machine
 * (src/machines/bucketRecords.ts) with those views, on the rendered page. Loading, the rows (a
 * sent record created or updated, by a person or by a run linking to the run history; an omitted
 * record with the rule that omitted it), their empty states, a failure and its retry, keyset paging
 * by when records were sent, and what each view offers: sent records only to read and export,
 * omitted ones to act on.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { RecordCounts, RecordPage } from '../../src/domain/api/records.ts';
import type { RecordView } from '../../src/domain/records/query.ts';
import { ROLE_POLICIES } from '../../src/domain/roles.ts';
import { bucketRecordsMachine, type PageAnswer, type PageRequest } from '../../src/machines/bucketRecords.ts';
import { BucketPage } from '../../src/views/records/BucketPage.tsx';
import type { BucketScreen } from '../../src/views/records/bucketViews.ts';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof bucketRecordsMachine>;
type Row = RecordPage['records'][number];

const FORMULA = '5b0c8a52-27a4-4c3e-9d0e-7a0f3d1b2c4e';
const RUN = '7d3f1a2b-5c6d-4e7f-8a9b-0c1d2e3f4a5b';
const STARTED = '2026-11-20T06:30:02.000Z';
const row = (n: number, extra: Partial<Row>): Row => ({
  id: `00000000-0000-4000-8000-00000000000${n}`, sourceKey: `key-${n}`, title: `Ada ${n} · ada${n}@example.org`, sourcePosition: `spring.csv, line ${n + 1}`,
  recordId: null, dateAdded: '2026-11-19T08:15:00.000Z', dateProcessed: null, matchReasons: [], errorReason: null, errorDate: null,
  bucket: 'new', customBucket: null, state: 'needs-attention', score: null, candidateCount: 0, waitingFor: null,
  summary: { firstName: `Ada ${n}`, email: `ada${n}@example.org` }, outcome: null, sentBy: null, omittedBy: null, ...extra,
});
const sent = (n: number, sentBy: Row['sentBy'], outcome: 'created' | 'updated') => row(n, {
  state: 'sent', recordId: `crm-${n}`, dateProcessed: '2026-11-20T06:31:00.000Z', outcome, sentBy,
});
const omitted = (n: number) => row(n, { state: 'omitted', omittedBy: { rule: 2, reason: 'Rule 2 omitted it' } });

const COUNTS: RecordCounts = {
  views: {
    'ready-records': 0, 'needs-attention': 0, 'needs-attention-one-to-one': 0, 'one-to-many': 0, 'new-records': 0, exception: 0,
    'formula-exceptions': 0, 'validation-exceptions': 0, 'related-records': 0, sent: 3, omitted: 1,
  },
  customBuckets: [],
  total: 4,
};
const answer = (records: Row[], nextCursor: string | null): PageAnswer => ({ page: { records, summaryFields: ['firstName', 'email'], nextCursor }, counts: COUNTS });

interface Case {
  view: RecordView;
  screen: BucketScreen;
  title: string;
  first: PageAnswer;
  last: PageAnswer;
  empty: string;
  /** the columns the view shows in place of score, match reasons and errors */
  columns: string[];
  /** what each row says in those columns */
  cells(r: Row): string[];
  actions: string[];
}

const CASES: Case[] = [
  {
    view: 'sent', screen: 'sentRecords', title: 'Sent records',
    first: answer([sent(1, { kind: 'person', name: 'Dana Processor' }, 'created'), sent(2, { kind: 'run', runId: RUN, trigger: 'scheduled', startedOn: STARTED }, 'updated')], 'c2'),
    last: answer([sent(3, null, 'created')], null),
    empty: 'No records sent yet.',
    columns: ['Sent as', 'Sent by'],
    cells: (r) => [r.outcome === 'created' ? 'Created' : 'Updated', !r.sentBy ? 'Not known' : r.sentBy.kind === 'person' ? r.sentBy.name! : `Schedule run of ${new Date(STARTED).toLocaleString()}`],
    actions: [],
  },
  {
    view: 'omitted', screen: 'omittedRecords', title: 'Omitted records',
    first: answer([omitted(1), omitted(2)], 'c2'),
    last: answer([omitted(3)], null),
    empty: 'No records omitted.',
    columns: ['Omitted by'],
    cells: (r) => [r.omittedBy!.reason],
    actions: ['Add to Ready', 'Send now', 'Create new', 'Delete'],
  },
];
const EMPTY = answer([], null);

const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.records.length, s.context.cursors.length]);

function modelOf(c: Case) {
  return testModel(bucketRecordsMachine, {
    input: { formulaId: FORMULA, view: c.view, customBucket: null, canEdit: true, canSend: true },
    serializeState: serializeState as never,
    events: (s) => {
      const snap = s as Snap;
      if (snap.matches('loading')) {
        if (snap.context.cursors.length > 1) return [{ type: 'xstate.done.actor.loadPage', output: c.last }] as never;
        return [
          { type: 'xstate.done.actor.loadPage', output: c.first }, { type: 'xstate.done.actor.loadPage', output: EMPTY },
          { type: 'xstate.error.actor.loadPage', error: new Error('offline') },
        ] as never;
      }
      if (snap.matches('failed')) return [{ type: 'list.reload' }] as never;
      if (snap.matches('showing') && snap.context.records.length) return [{ type: 'page.next' }] as never;
      return [] as never;
    },
  });
}

function renderView(c: Case, machine: typeof bucketRecordsMachine) {
  const page = fakeCall<PageRequest, PageAnswer>('load a page');
  const logic = machine.provide({ actors: { loadPage: page.logic, runAction: fakeCall('run an action').logic, loadFormula: answeredCall(() => 'Spring appeal').logic } as never });
  const router = createMemoryRouter([
    { path: `/:formulaId/${c.view}`, element: <BucketPage screen={c.screen} formulaId={FORMULA} customBucket={null} policies={ROLE_POLICIES.Administrator} logic={logic} /> },
    { path: '*', element: <p>elsewhere</p> },
  ], { initialEntries: [`/${FORMULA}/${c.view}`] });
  render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
  return { page, router };
}

function viewOf(c: Case): ModelView<typeof bucketRecordsMachine, ReturnType<typeof renderView>> {
  return {
    render: (machine) => renderView(c, machine),
    params: (r) => ({
      states: {
        loading: async () => { await screen.findByRole('status', { name: 'Loading records' }); },
        failed: async () => { await screen.findByText('The records could not be loaded'); },
        showing: async (s) => {
          const ctx = (s as Snap).context;
          await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading records' })).toBeNull());
          expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(c.title);
          // reachable beside the other buckets, with its count, marked as the page shown
          const nav = screen.getByRole('navigation', { name: 'Buckets' });
          const here = within(nav).getByRole('link', { name: new RegExp(`^${c.title}`) });
          expect(here.getAttribute('aria-current')).toBe('page');
          expect(here.textContent).toBe(`${c.title} ${COUNTS.views[c.view]}`);
          const toolbar = screen.getByRole('toolbar', { name: 'Record actions' });
          expect(within(toolbar).queryAllByRole('button').map((b) => b.textContent).filter((t) => !/Export/.test(t ?? ''))).toEqual(c.actions);
          if (!ctx.records.length) {
            await screen.findByText(c.empty);
            return;
          }
          const table = screen.getByRole('table', { name: 'Records' });
          const headers = within(table).getAllByRole('columnheader').map((h) => h.textContent);
          const at = headers.indexOf(c.columns[0]!);
          expect(headers.slice(at, at + c.columns.length)).toEqual(c.columns);
          for (const gone of ['Score', 'Match reasons', 'Error reason']) expect(headers).not.toContain(gone);
          const rows = within(table).getAllByRole('row').slice(1);
          expect(rows.map((tr) => within(tr).getAllByRole('cell').slice(at, at + c.columns.length).map((td) => td.textContent))).toEqual(ctx.records.map(c.cells));
          const runLinks = within(table).queryAllByRole('link');
          expect(runLinks.map((a) => a.getAttribute('href'))).toEqual(ctx.records.filter((x) => x.sentBy?.kind === 'run').map(() => `/${FORMULA}/run-history`));
          expect(screen.getByText(`Page ${ctx.cursors.length}`)).toBeTruthy();
        },
      },
      events: {
        'xstate.done.actor.loadPage': async (step) => {
          const ctx = (step.state as Snap).context;
          // sent records open with the latest sent first; omitted ones with the latest added first
          expect(await r.page.called()).toMatchObject({ scope: { view: c.view }, sort: c.view === 'sent' ? 'dateProcessed' : 'dateAdded', direction: 'desc', cursor: ctx.cursors.at(-1) ?? null });
          await r.page.answer(step.event);
        },
        'xstate.error.actor.loadPage': (step) => r.page.answer(step.event),
        'list.reload': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Try again' })); },
        'page.next': async () => { fireEvent.click(screen.getByRole('button', { name: 'Next page' })); },
      },
    }),
  };
}

const stepName = (e: { type: string }) => e.type.replace('xstate.', '');

describe.each(CASES.map((c) => [c.title, c] as const))('%s (bucket-records shortest paths on the rendered screen)', (_title, c) => {
  const paths = modelOf(c).getShortestPaths() as unknown as ModelPath<Snap>[];
  const view = viewOf(c);
  it.each(named(paths, (p) => p.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => stepName(s.event)).join(' → ')))('%s', async (_name, path) => {
    await runPath(path, bucketRecordsMachine, view);
  });

  it('the suite can fail: a next page never loaded when the guard is broken', async () => {
    const paging = paths.filter((p) => p.steps.some((st) => st.event.type === 'page.next'));
    await expectBrokenGuardToFail(bucketRecordsMachine, 'hasNextPage', { paths: paging, view, every: true });
  });
});

describe('at a phone\'s width (390 px)', () => {
  it('shows sent records as a card each, name and state first, with how they were sent, and sorts them without a table', async () => {
    const was = window.matchMedia;
    // the width All Formulas turns to cards at (36em): the page's media query matches
    window.matchMedia = ((query: string) => ({ ...was(query), matches: query === '(max-width: 36em)' })) as typeof window.matchMedia;
    try {
      const c = CASES[0]!;
      const { page } = renderView(c, bucketRecordsMachine);
      await page.called();
      await page.answer({ type: 'xstate.done.actor.loadPage', output: c.first });
      const list = await screen.findByRole('list', { name: 'Records' });
      expect(screen.queryByRole('table', { name: 'Records' })).toBeNull();
      const cards = within(list).getAllByRole('listitem');
      expect(cards.map((card) => card.getAttribute('aria-label'))).toEqual(['Ada 1 · ada1@example.org (spring.csv, line 2)', 'Ada 2 · ada2@example.org (spring.csv, line 3)']);
      const [byPerson, byRun] = cards as [HTMLElement, HTMLElement];
      // the record's name, where it came from and its state come first; then how it left, then the rest
      const text = byPerson.textContent!;
      expect(text.indexOf('Ada 1 · ada1@example.org')).toBeLessThan(text.indexOf('Sent as'));
      expect(within(byPerson).getByText('spring.csv, line 2')).toBeTruthy();
      expect(within(byPerson).getByText('Sent')).toBeTruthy();
      expect(text).toContain('Sent asCreated');
      expect(text).toContain('Sent byDana Processor');
      expect(text).toContain('Record idcrm-1');
      expect(within(byRun).getByRole('link', { name: `Schedule run of ${new Date(STARTED).toLocaleString()}` }).getAttribute('href')).toBe(`/${FORMULA}/run-history`);
      expect(byRun.textContent).toContain('Sent asUpdated');
      fireEvent.click(within(byRun).getByRole('checkbox', { name: 'Select record Ada 2 · ada2@example.org (spring.csv, line 3)' }));
      await waitFor(() => expect((within(byRun).getByRole('checkbox') as HTMLInputElement).checked).toBe(true));
      // sorting, which the table's headers offer, is a choice here
      fireEvent.change(screen.getByRole('combobox', { name: 'Sort by' }), { target: { value: 'dateAdded:asc' } });
      expect(await page.called()).toMatchObject({ scope: { view: 'sent' }, sort: 'dateAdded', direction: 'asc' });
    } finally {
      window.matchMedia = was;
    }
  });
});
