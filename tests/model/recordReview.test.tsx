/**
 * Model-based tests of reviewing one record (src/machines/recordReview.ts) on the rendered review:
 * incoming values beside the compared candidate's with differences marked, candidates with their
 * confidence and match reasons, picking one, creating new, an inline edit refused with 'Input
 * contains incompatible data', the per-field overwrite choice, and Match Search with its 3
 * characters. The records API is faked at the machine's actors. Then the one-at-a-time Needs
 * Attention review (needs-attention/v2) with its keyboard shortcuts, on the same review.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { getInitialSnapshot, type SnapshotFrom } from 'xstate';
import { RECORD_API_MESSAGES, type MatchSearchResult, type RecordDetail, type RecordPage } from '../../src/domain/api/records.ts';
import { ROLE_POLICIES, type Policies } from '../../src/domain/roles.ts';
import { bucketRecordsMachine, NO_EDIT_PERMISSION, type ActionRequest, type PageAnswer, type PageRequest } from '../../src/machines/bucketRecords.ts';
import { recordReviewMachine } from '../../src/machines/recordReview.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { NeedsAttentionReview } from '../../src/views/records/NeedsAttentionReview.tsx';
import { RecordReview } from '../../src/views/records/RecordReview.tsx';
import { fieldHeading } from '../../src/domain/formula/fieldHeading.ts';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof recordReviewMachine>;

const FORMULA = '5b0c8a52-27a4-4c3e-9d0e-7a0f3d1b2c4e';
const RECORD = '00000000-0000-4000-8000-000000000001';
const UPLOAD = '45349fc5-4d2a-4354-a1f2-25b85b4130b1';
const TITLE = 'Ada Lovelace · ada@example.org';
const POSITION = 'supporters-spring-2026.csv, line 2';
const detail = (extra: Partial<RecordDetail> = {}): RecordDetail => ({
  id: RECORD, sourceKey: `${UPLOAD}#2`, title: TITLE, sourcePosition: POSITION, recordId: null, dateAdded: '2026-11-19T08:15:00.000Z', dateProcessed: null, matchReasons: ['Email matches'],
  errorReason: null, errorDate: null, bucket: 'one-to-many-match', customBucket: null, state: 'needs-attention', score: 92, candidateCount: 2, waitingFor: null,
  summary: {}, outcome: null, sentBy: null, omittedBy: null, raw: { First: 'Ada' }, transformed: { firstName: 'Ada', email: 'ada@example.org', postcode: 'AB1 2CD', phone: '(555) 022-3514' }, matching: { routeReason: 'Match not certain: review' },
  candidates: [
    { id: 'crm-7', title: 'Ada Lovelace', ownId: { label: 'Lookup ID', value: 'SC-000619' }, page: 'https://host.nxt.blackbaud.com/constituent/records/7?envid=p-riverside', score: 92, reasons: ['Email matches'], scenario: 'By e-mail', fields: { firstName: 'Ada', email: 'ada@example.org', postcode: 'AB9 9ZZ', city: 'Leeds', phone: '+15550223514' } },
    { id: 'crm-8', title: 'Ada Lovelace', ownId: { label: 'Lookup ID', value: 'SC-000620' }, page: null, score: 61, reasons: ['Name matches'], scenario: 'By name', fields: { firstName: 'Ada', email: 'a.l@example.org', postcode: 'AB1 2CD', phone: '555 022 3514' } },
  ],
  destination: null, overwrite: {}, ...extra,
});
const DETAIL = detail();
const PICKED = detail({ destination: { id: 'crm-8', fields: DETAIL.candidates[1]!.fields, page: null }, recordId: 'crm-8' });
const EDITED = detail({ transformed: { ...DETAIL.transformed, postcode: 'AB1 2CE' }, overwrite: { postcode: false } });
const FOUND_ONE = { id: 'crm-42', title: 'Ada · lovelace@example.org', ownId: { label: 'Lookup ID', value: 'SC-000042' }, fields: { firstName: 'Ada', email: 'lovelace@example.org' } };
/** the destination's page of the Match Search result, once picked */
const FOUND_PAGE = 'https://host.nxt.blackbaud.com/constituent/records/42?envid=p-riverside';
/** a Match Search result by its name and own id, as its pick button and its notice name it */
const FOUND_NAME = 'Ada · lovelace@example.org · Lookup ID SC-000042';
// picked, the server keeps a Match Search result among the record's candidates
const FOUND_PICKED = detail({
  destination: { id: 'crm-42', fields: FOUND_ONE.fields, page: FOUND_PAGE }, recordId: 'crm-42',
  candidates: [...DETAIL.candidates, { ...FOUND_ONE, page: FOUND_PAGE, score: 0, reasons: ['Picked by Match Search'], scenario: 'Match Search' }],
});
const FOUND: MatchSearchResult = { results: [FOUND_ONE], fields: ['firstName', 'email'] };
const INCOMPATIBLE = new ApiError(400, { title: 'record-incompatible-data', status: 400 }, { silent: true });
/** clearing a required value: the server names the field and why */
const REQUIRED = new ApiError(400, { title: 'record-incompatible-data', status: 400, errors: { postcode: RECORD_API_MESSAGES.required } } as never, { silent: true });
const NOT_EDITABLE = new ApiError(409, { title: 'record-not-editable', status: 409 }, { silent: true });
const NOT_EDITABLE_TEXT = 'This record has been sent or is being sent, so it can no longer be changed.';

const serializeState = (s: Snap) => {
  const c = s.context;
  return JSON.stringify([s.value, c.compared, c.detail?.destination?.id ?? null, c.detail?.transformed?.postcode ?? null, c.notice, c.actionError,
    c.fieldErrors, c.drafts, c.searchProblem, c.results?.results.length ?? null, c.pendingAction, c.change, c.searched]);
};
const settled = (c: Snap['context']) => !c.notice && !c.actionError && !Object.values(c.fieldErrors).some(Boolean) && !c.searchProblem && !c.results;

const INPUT = { formulaId: FORMULA, recordId: RECORD, canEdit: true };
const model = testModel(recordReviewMachine, {
  input: INPUT,
  serializeState: serializeState as never,
  events: (s) => {
    const snap = s as Snap;
    const c = snap.context;
    if (snap.matches('loading')) {
      return (c.detail ? [{ type: 'xstate.done.actor.loadRecord', output: DETAIL }] : [
        { type: 'xstate.done.actor.loadRecord', output: DETAIL }, { type: 'xstate.error.actor.loadRecord', error: new Error('offline') },
      ]) as never;
    }
    if (snap.matches('failed')) return [{ type: 'record.reload' }] as never;
    if (snap.matches('picking')) return [{ type: 'xstate.done.actor.pickMatch', output: c.compared === 'crm-42' ? FOUND_PICKED : PICKED }, { type: 'xstate.error.actor.pickMatch', error: NOT_EDITABLE }] as never;
    if (snap.matches('saving')) {
      // a cleared postcode is refused (the field is required); a typed one is saved or refused as incompatible
      return (c.change && 'value' in c.change && c.change.value === null
        ? [{ type: 'xstate.error.actor.saveChange', error: REQUIRED }]
        : [{ type: 'xstate.done.actor.saveChange', output: EDITED }, { type: 'xstate.error.actor.saveChange', error: INCOMPATIBLE }]) as never;
    }
    if (snap.matches('acting')) return [{ type: 'xstate.done.actor.runAction', output: { affected: 1, skipped: 0 } }, { type: 'xstate.error.actor.runAction', error: NOT_EDITABLE }] as never;
    if (snap.matches('searching')) return [{ type: 'xstate.done.actor.matchSearch', output: FOUND }, { type: 'xstate.error.actor.matchSearch', error: new Error('offline') }] as never;
    // a destination record Match Search found can be picked
    if (c.results?.results.length && !c.notice && !c.actionError) return [{ type: 'match.pick', candidateId: 'crm-42' }] as never;
    // a refused value: fixed and saved again, or dropped
    if (c.fieldErrors.postcode && Object.hasOwn(c.drafts, 'postcode')) {
      return [{ type: 'record.change', change: { field: 'postcode', value: 'AB1 2CE' } }, { type: 'edit.cancel', field: 'postcode' }] as never;
    }
    if (!settled(c) || c.detail?.destination) return [] as never;
    return [
      ...(c.compared === 'crm-7' ? [{ type: 'candidate.compare', candidateId: 'crm-8' }] : [{ type: 'match.pick', candidateId: 'crm-8' }]),
      { type: 'record.act', action: 'createNew' },
      { type: 'record.change', change: { field: 'postcode', value: 'AB1 2CE' } },
      { type: 'record.change', change: { field: 'postcode', value: null } },
      { type: 'record.change', change: { field: 'postcode', overwrite: false } },
      { type: 'search.submit', q: 'Lo' },
      { type: 'search.submit', q: 'Lovelace' },
    ] as never;
  },
});

function renderReview(machine: typeof recordReviewMachine, policies: Policies = ROLE_POLICIES['Data Processor']) {
  const calls = {
    load: fakeCall<{ recordId: string }, RecordDetail>('load the record'),
    pick: fakeCall<{ candidateId: string; query?: string }, RecordDetail>('pick a match'),
    save: fakeCall<{ change: unknown }, RecordDetail>('save a change'),
    act: fakeCall<{ action: string }, { affected: number }>('act on the record'),
    search: fakeCall<{ q: string }, MatchSearchResult>('Match Search'),
  };
  const logic = machine.provide({
    actors: { loadRecord: calls.load.logic, pickMatch: calls.pick.logic, saveChange: calls.save.logic, runAction: calls.act.logic, matchSearch: calls.search.logic } as never,
  });
  render(<MantineProvider><RecordReview formulaId={FORMULA} recordId={RECORD} policies={policies} logic={logic} /></MantineProvider>);
  return calls;
}

const region = () => screen.getByRole('region', { name: `Record ${TITLE} (${POSITION})` });
/** Two candidates of one name are told apart by the destination's own id for each. */
const NAMES: Record<string, string> = { 'crm-7': 'Ada Lovelace · Lookup ID SC-000619', 'crm-8': 'Ada Lovelace · Lookup ID SC-000620', 'crm-42': FOUND_NAME };
const OWN_IDS: Record<string, string> = { 'crm-7': 'Lookup ID SC-000619', 'crm-8': 'Lookup ID SC-000620', 'crm-42': 'Lookup ID SC-000042' };
const decision = (name: string) => within(screen.getByRole('toolbar', { name: 'Record decisions' })).getByRole('button', { name }) as HTMLButtonElement;

const view: ModelView<typeof recordReviewMachine, ReturnType<typeof renderReview>> = {
  render: (machine) => renderReview(machine),
  params: (r) => ({
    states: {
      loading: async (s) => {
        if (!(s as Snap).context.detail) await screen.findByRole('status', { name: 'Loading the record' });
        else await waitFor(() => expect(decision('Create new').disabled).toBe(true));
      },
      failed: async () => { await screen.findByText('The record could not be loaded'); },
      picking: async (s) => {
        const c = (s as Snap).context;
        // picked with the query that found it when it is not one of the candidates
        expect(await r.pick.called()).toEqual(c.compared === 'crm-42'
          ? { formulaId: FORMULA, recordId: RECORD, candidateId: 'crm-42', query: 'Lovelace' }
          : { formulaId: FORMULA, recordId: RECORD, candidateId: 'crm-8' });
        await waitFor(() => expect(decision('Create new').disabled).toBe(true));
      },
      saving: async (s) => {
        expect((await r.save.called()).change).toEqual((s as Snap).context.change);
        await waitFor(() => expect(decision('Add to Ready').disabled).toBe(true));
      },
      acting: async () => {
        expect((await r.act.called()).action).toBe('createNew');
        await waitFor(() => expect(decision('Create new').getAttribute('data-loading')).toBe('true'));
      },
      searching: async () => {
        expect((await r.search.called()).q).toBe('Lovelace');
        await waitFor(() => expect(screen.getByRole('button', { name: 'Search' }).getAttribute('data-loading')).toBe('true'));
      },
      showing: async (s) => {
        const c = (s as Snap).context;
        const d = c.detail!;
        // the record's name as its title, then where it came from; its key only beside, never as the title
        await screen.findByRole('heading', { name: TITLE });
        expect(screen.getByTestId('source-position').textContent).toBe(`${POSITION} · Source key ${UPLOAD}#2`);
        // why routing put it here, in the reviewer's sight
        expect(screen.getByTestId('route-reason').textContent).toBe(String(d.matching?.routeReason));
        const table = within(region()).getByRole('table', { name: 'Incoming and destination values' });
        // the compared candidate, or the chosen destination record (a Match Search result not picked is neither)
        const compared = d.candidates.find((x) => x.id === c.compared) ?? (d.destination?.id === c.compared ? d.destination : null);
        expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toContain(compared ? `Destination ${OWN_IDS[compared.id] ?? compared.id}` : 'Destination');
        // the differences with the compared candidate are marked, and only they
        // (the candidates' phones are the incoming number written other ways: not a difference; a destination without one is)
        const writtenOtherwise = (f: string) => f === 'phone' && compared!.fields.phone !== undefined;
        const differing = compared ? Object.keys(d.transformed!).filter((f) => !writtenOtherwise(f) && String(d.transformed![f]) !== String(compared.fields[f])) : [];
        expect(within(table).queryAllByText('differs').map((b) => b.closest('tr')!.querySelector('th')!.firstChild!.textContent)).toEqual(differing.map(fieldHeading));
        const postcode = within(table).getByRole('rowheader', { name: /^Postcode/ }).closest('tr')!;
        // the cell shows the value the server has, never what was typed as if it were saved
        expect(within(postcode).getAllByRole('cell')[0]!.textContent).toContain(String(d.transformed!.postcode));
        const editor = within(postcode).queryByRole('textbox', { name: 'New Postcode' }) as HTMLInputElement | null;
        if (Object.hasOwn(c.drafts, 'postcode')) {
          // refused: what was typed stays in the editor, with the reason and the value the server kept
          expect(editor?.value).toBe(c.drafts.postcode ?? '');
          expect(within(postcode).getByTestId('saved-value').textContent).toBe(`Saved value: ${String(d.transformed!.postcode)}`);
          expect(within(postcode).getByRole('alert').textContent).toBe(c.fieldErrors.postcode);
          // a cleared value is refused in the server's own words for the field
          if (c.drafts.postcode === null && c.fieldErrors.postcode) expect(c.fieldErrors.postcode).toBe(RECORD_API_MESSAGES.required);
        } else {
          expect(editor).toBeNull();
          // an overwrite choice refused says why under the value
          expect(within(postcode).queryByRole('alert')?.textContent ?? null).toBe(c.fieldErrors.postcode || null);
        }
        // the destination's fields the formula does not write: shown for context, never a difference, never overwritten
        for (const f of Object.keys(compared?.fields ?? {}).filter((k) => !Object.hasOwn(d.transformed!, k))) {
          const row = within(table).getByRole('rowheader', { name: fieldHeading(f) }).closest('tr')!;
          expect(within(row).getAllByRole('cell').map((cell) => cell.textContent)).toEqual(['Not mapped', String(compared!.fields[f]), '']);
          expect(within(table).queryByRole('checkbox', { name: `Overwrite ${fieldHeading(f)} in the destination` })).toBeNull();
        }
        // each candidate with its confidence, match reasons, and the chosen one
        for (const x of d.candidates) {
          const card = screen.getByRole('group', { name: `Candidate ${NAMES[x.id]}` });
          expect(within(card).getByTestId('own-id').textContent).toBe(`Lookup ID ${x.ownId!.value}`);
          // its page in the destination opens from its own id, in a new tab; none where the destination has none
          const page = within(card).queryByRole('link', { name: `Open ${NAMES[x.id]} in the destination (new tab)` });
          expect(page?.getAttribute('href') ?? null).toBe(x.page);
          if (page) expect([page.textContent, page.getAttribute('target'), page.getAttribute('rel')]).toEqual([x.ownId!.value, '_blank', 'noopener noreferrer']);
          expect(card.textContent).not.toContain(x.id);
          within(card).getByText(`Confidence ${x.score}`);
          within(card).getByText(x.reasons[0]!);
          expect(!!within(card).queryByText('Chosen')).toBe(d.destination?.id === x.id);
        }
        // the chosen record's page opens from the line naming it as well as from its candidate card
        if (d.destination) {
          const links = screen.queryAllByRole('link', { name: `Open ${NAMES[d.destination.id]} in the destination (new tab)` });
          expect(links.map((l) => l.getAttribute('href'))).toEqual(d.destination.page ? [d.destination.page, d.destination.page] : []);
        }
        const overwrite = within(table).queryByRole('checkbox', { name: 'Overwrite Postcode in the destination' }) as HTMLInputElement | null;
        expect(!!overwrite).toBe(!!compared);
        if (overwrite) expect(overwrite.checked).toBe(d.overwrite.postcode !== false);
        expect(!!screen.queryByText(RECORD_API_MESSAGES.incompatible)).toBe(Object.values(c.fieldErrors).includes(RECORD_API_MESSAGES.incompatible));
        expect(!!screen.queryByText(RECORD_API_MESSAGES.required)).toBe(Object.values(c.fieldErrors).includes(RECORD_API_MESSAGES.required));
        expect(!!screen.queryByText(RECORD_API_MESSAGES.matchQueryShort)).toBe(c.searchProblem === RECORD_API_MESSAGES.matchQueryShort);
        expect(!!screen.queryByText(NOT_EDITABLE_TEXT)).toBe(c.actionError === NOT_EDITABLE_TEXT);
        if (c.notice) await screen.findByText(c.notice);
        // a pick is told by the destination record's name and own id, never its id in the destination's API
        if (c.notice?.startsWith('Matched')) expect(c.notice).toBe(`Matched to destination record ${NAMES[d.destination!.id]}.`);
        const results = screen.queryByRole('table', { name: 'Match Search results' });
        expect(!!results).toBe(!!c.results);
        if (results) expect(within(results).getByText(FOUND_NAME).getAttribute('title')).toBe('crm-42');
        expect(decision('Create new').disabled).toBe(false);
      },
    },
    events: {
      'xstate.done.actor.loadRecord': (step) => r.load.answer(step.event),
      'xstate.error.actor.loadRecord': (step) => r.load.answer(step.event),
      'xstate.done.actor.pickMatch': (step) => r.pick.answer(step.event),
      'xstate.error.actor.pickMatch': (step) => r.pick.answer(step.event),
      'xstate.done.actor.saveChange': (step) => r.save.answer(step.event),
      'xstate.error.actor.saveChange': (step) => r.save.answer(step.event),
      'xstate.done.actor.runAction': (step) => r.act.answer(step.event),
      'xstate.error.actor.runAction': (step) => r.act.answer(step.event),
      'xstate.done.actor.matchSearch': (step) => r.search.answer(step.event),
      'xstate.error.actor.matchSearch': (step) => r.search.answer(step.event),
      'record.reload': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Try again' })); },
      'candidate.compare': async () => { fireEvent.click(screen.getByRole('button', { name: `Compare ${NAMES['crm-8']}` })); },
      'match.pick': async (step) => {
        const { candidateId } = step.event as unknown as { candidateId: string };
        fireEvent.click(screen.getByRole('button', { name: candidateId === 'crm-42' ? `Pick ${FOUND_NAME}` : `Pick this match ${NAMES[candidateId]}` }));
      },
      'record.act': async () => { fireEvent.click(decision('Create new')); },
      'record.change': async (step) => {
        const change = (step.event as unknown as { change: { field: string; value?: string; overwrite?: boolean } }).change;
        if ('value' in change) {
          // a refused value's editor is still open
          if (!screen.queryByRole('textbox', { name: 'New Postcode' })) fireEvent.click(screen.getByRole('button', { name: 'Edit Postcode' }));
          fireEvent.change(screen.getByRole('textbox', { name: 'New Postcode' }), { target: { value: change.value ?? '' } });
          fireEvent.click(screen.getByRole('button', { name: 'Save' }));
        } else {
          fireEvent.click(screen.getByRole('checkbox', { name: 'Overwrite Postcode in the destination' }));
        }
      },
      'edit.cancel': async () => { fireEvent.click(screen.getByRole('button', { name: 'Cancel' })); },
      'search.submit': async (step) => {
        fireEvent.change(screen.getByLabelText(/^Find a destination record/), { target: { value: (step.event as unknown as { q: string }).q } });
        fireEvent.click(screen.getByRole('button', { name: 'Search' }));
      },
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const stepName = (e: { type: string; candidateId?: string; q?: string; change?: { overwrite?: boolean; value?: string | null } }) =>
  e.type === 'search.submit' ? `search "${e.q}"` : e.type === 'record.change'
    ? (e.change && 'overwrite' in e.change ? 'overwrite off' : (e.change as { value?: string | null }).value === null ? 'clear value' : 'edit value') : e.type.replace('xstate.', '');

describe('reviewing a record (record-review shortest paths on the rendered review)', () => {
  it('reaches every state', () => {
    const values = new Set(paths.flatMap((p) => [...p.steps.map((st) => st.state), p.state]).map((s) => JSON.stringify(s.value)));
    expect([...values].sort()).toEqual(['"acting"', '"failed"', '"loading"', '"picking"', '"saving"', '"searching"', '"showing"']);
  });

  it.each(named(paths, (p) => p.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => stepName(s.event)).join(' → ')))('%s', async (_name, path) => {
    await runPath(path, recordReviewMachine, view);
  }, 20_000);

  it('View Only may look, and is told it may not edit when it tries', async () => {
    const r = renderReview(recordReviewMachine, ROLE_POLICIES['View Only']);
    await r.load.answer({ type: 'xstate.done.actor.loadRecord', output: DETAIL });
    fireEvent.click(await screen.findByRole('button', { name: `Pick this match ${NAMES['crm-8']}` }));
    await screen.findByText(NO_EDIT_PERMISSION);
    expect(r.pick.calls).toEqual([]);
  });
});

describe('a refused inline edit keeps what was typed, with the reason', () => {
  const loaded = { type: 'xstate.done.actor.loadRecord', output: DETAIL };
  const typed = { type: 'record.change', change: { field: 'postcode', value: 'AB1 2CE' } };
  const journeys: [string, unknown[]][] = [
    ['a cleared required value refused, then dropped: the server\'s value stays', [
      loaded, { type: 'record.change', change: { field: 'postcode', value: null } }, { type: 'xstate.error.actor.saveChange', error: REQUIRED },
      { type: 'edit.cancel', field: 'postcode' },
    ]],
    ['an incompatible value refused, fixed in its editor and saved: the server\'s value shows', [
      loaded, typed, { type: 'xstate.error.actor.saveChange', error: INCOMPATIBLE }, typed, { type: 'xstate.done.actor.saveChange', output: EDITED },
    ]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events as never, { fromState: getInitialSnapshot(recordReviewMachine, INPUT), serializeState } as never) as unknown as ModelPath<Snap>[];
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, recordReviewMachine, view);
  }, 20_000);
});

describe('the suite can fail', () => {
  it('notices a long enough Match Search refused when its guard is broken', async () => {
    const searching = paths.filter((p) => p.steps.some((st) => (st.event as { q?: string }).q === 'Lovelace')).slice(0, 2);
    await expectBrokenGuardToFail(recordReviewMachine, 'isQueryLongEnough', { paths: searching, view, every: true });
  }, 60_000);

  it('notices edits refused when the permission guard is broken', async () => {
    const picking = paths.filter((p) => p.steps.some((st) => st.event.type === 'match.pick')).slice(0, 2);
    await expectBrokenGuardToFail(recordReviewMachine, 'mayEdit', { paths: picking, view, every: true });
  }, 60_000);
});

// ------------------------------------------------------------------ needs-attention/v2

const row = (n: number): RecordPage['records'][number] => ({
  id: `00000000-0000-4000-8000-00000000000${n}`, sourceKey: `gift-${n}`, title: `Supporter ${n}`, sourcePosition: `gifts.csv, line ${n + 1}`, recordId: null, dateAdded: '2026-11-19T08:15:00.000Z', dateProcessed: null,
  matchReasons: [], errorReason: null, errorDate: null, bucket: 'one-to-many-match', customBucket: null, state: 'needs-attention', score: 92,
  candidateCount: 2, waitingFor: null, summary: {}, outcome: null, sentBy: null, omittedBy: null,
});

function renderOneAtATime(policies: Policies = ROLE_POLICIES['Data Processor']) {
  const page = fakeCall<PageRequest, PageAnswer>('load a page');
  const bucket = bucketRecordsMachine.provide({
    actors: { loadPage: page.logic, runAction: fakeCall<ActionRequest>().logic, loadFormula: answeredCall(() => 'Spring appeal').logic } as never,
  });
  const pick = fakeCall<{ candidateId: string }, RecordDetail>('pick a match');
  const act = fakeCall<{ action: string; recordId: string }, { affected: number }>('act on the record');
  const review = recordReviewMachine.provide({
    actors: {
      loadRecord: answeredCall<{ recordId: string }, RecordDetail>(({ recordId }) => detail({ id: recordId, sourceKey: `gifts.csv#${Number(recordId.at(-1)) + 1}`, title: `Supporter ${recordId.at(-1)}` })).logic,
      pickMatch: pick.logic, runAction: act.logic,
    } as never,
  });
  const router = createMemoryRouter([{ path: '*', element: <NeedsAttentionReview formulaId={FORMULA} policies={policies} logic={bucket} reviewLogic={review} /> }]);
  render(<MantineProvider><RouterProvider router={router} /></MantineProvider>);
  return { page, pick, act };
}
const press = (key: string) => act(() => { fireEvent.keyDown(document.body, { key }); });

describe('Needs Attention one record at a time (needs-attention/v2)', () => {
  it('walks the records with J and K, shows the shortcuts with ?, picks the best with P and creates new with N', async () => {
    const r = renderOneAtATime();
    await r.page.answer({ type: 'xstate.done.actor.loadPage', output: { page: { records: [row(1), row(2)], summaryFields: [], nextCursor: null }, counts: null } });
    expect(screen.getAllByRole('heading', { level: 1 }).map((h) => h.textContent)).toEqual(['Needs Attention']);
    await screen.findByRole('heading', { name: 'Supporter 1' });
    screen.getByText('Record 1 of 2');
    await press('j');
    await screen.findByRole('heading', { name: 'Supporter 2' });
    await press('ArrowRight');
    screen.getByText('Record 2 of 2');
    await press('k');
    await screen.findByRole('heading', { name: 'Supporter 1' });
    await press('?');
    within(screen.getByRole('region', { name: 'Keyboard shortcuts' })).getByText('Pick the best candidate');
    await press('p');
    expect((await r.pick.called()).candidateId).toBe('crm-7');
    await r.pick.answer({ type: 'xstate.done.actor.pickMatch', output: detail({ destination: { id: 'crm-7', fields: {}, page: null } }) });
    // a decision reads the list again, which keeps the record in view
    await r.page.answer({ type: 'xstate.done.actor.loadPage', output: { page: { records: [row(1), row(2)], summaryFields: [], nextCursor: null }, counts: null } });
    await press('n');
    expect((await r.act.called())).toMatchObject({ action: 'createNew', recordId: row(1).id });
  });

  it('keys typed into a field stay in the field', async () => {
    const r = renderOneAtATime();
    await r.page.answer({ type: 'xstate.done.actor.loadPage', output: { page: { records: [row(1), row(2)], summaryFields: [], nextCursor: null }, counts: null } });
    const search = await screen.findByLabelText(/^Find a destination record/);
    await act(() => { fireEvent.keyDown(search, { key: 'n' }); fireEvent.keyDown(search, { key: 'j' }); });
    screen.getByText('Record 1 of 2');
    expect(r.act.calls).toEqual([]);
  });

  it('View Only is told it may not edit when it presses R', async () => {
    const r = renderOneAtATime(ROLE_POLICIES['View Only']);
    await r.page.answer({ type: 'xstate.done.actor.loadPage', output: { page: { records: [row(1)], summaryFields: [], nextCursor: null }, counts: null } });
    await screen.findByRole('heading', { name: 'Supporter 1' });
    await press('r');
    await screen.findByText(NO_EDIT_PERMISSION);
    expect(r.act.calls).toEqual([]);
  });
});
