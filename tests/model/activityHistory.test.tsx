/**
 * Model-based tests of the activity history (src/machines/activityHistory.ts) on the rendered
 * screen: the loading skeleton, the events with their links, the empty state, a failure and its
 * retry, 'Load more' with the cursor (and its failure), and the filters checked with SPEC.md
 * section 5's messages before anything is asked of the server.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import { ACTIVITY_HISTORY_MESSAGES as M, type ActivityHistoryFilters } from '../../src/domain/activityHistory.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { activityHistoryMachine, pageQuery, type PageRequest } from '../../src/machines/activityHistory.ts';
import { columnPickerMachine } from '../../src/machines/columnPicker.ts';
import type { ActivityEvent, EventsPage } from '../../src/services/eventsReporter.ts';
import { ActivityHistory } from '../../src/views/activity/ActivityHistoryPage.tsx';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';
import { activityTypeLabel } from '../../src/domain/activityHistory.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof activityHistoryMachine>;

const FORMULA = '5b0c8a52-27a4-4c3e-9d0e-7a0f3d1b2c4e';
const USER = '9a1e3c55-1f0b-4d7e-8c2a-6b5d4e3f2a10';
const NOW = new Date(2026, 10, 20, 12);
const event = (id: string, description: string, extra: Partial<ActivityEvent> = {}): ActivityEvent => ({
  id, at: '2026-11-19T08:15:00.000Z', actor: { userId: USER, name: 'Ada Lovelace' }, type: 'formula.created', description,
  details: { source: 'Sandbox CRM', count: 3 }, correlationId: `corr-${id}`, formulaId: null, recordId: null, ...extra,
});
const PAGES: Record<string, EventsPage> = {
  first: { events: [event('e1', 'Spring appeal was created', { formulaId: FORMULA }), event('e2', 'Nightly sync ran', { actor: { userId: null, name: 'System' }, recordId: 'rec-42' })], nextCursor: 'cursor-2' },
  empty: { events: [], nextCursor: null },
};
const LAST_PAGE: EventsPage = { events: [event('e3', 'Autumn appeal was deleted')], nextCursor: null };

const DEFAULTS: ActivityHistoryFilters = { fromDay: '2026-11-14', toDay: '2026-11-20', types: [], actor: '', q: '' };
const FILTERS: Record<string, ActivityHistoryFilters> = {
  'system appeals': { ...DEFAULTS, actor: 'system', q: 'appeal' },
  'no start': { ...DEFAULTS, fromDay: '' },
  'start after end': { ...DEFAULTS, fromDay: '2026-11-21' },
  'short query': { ...DEFAULTS, q: 'ap' },
};
const PROBLEM_TEXT = [M.startRequired, M.order, M.queryShort];

const serializeState = (s: Snap) => {
  const c = s.context;
  return JSON.stringify([s.value, c.filters.q, c.events.length, c.nextCursor, Object.values(c.problems), c.moreError]);
};

const model = testModel(activityHistoryMachine, {
  input: { formulaId: null, now: NOW },
  serializeState: serializeState as never,
  events: (s) => {
    const snap = s as Snap;
    if (snap.matches('preparing')) return [{ type: 'xstate.done.actor.loadOptions', output: { types: ['formula.created', 'user.signed-in'], formulaName: null } }] as never;
    if (snap.matches('loading')) {
      return [
        ...Object.values(PAGES).map((output) => ({ type: 'xstate.done.actor.loadPage', output })),
        { type: 'xstate.error.actor.loadPage', error: new Error('offline') },
      ] as never;
    }
    if (snap.matches('loadingMore')) return [{ type: 'xstate.done.actor.loadMore', output: LAST_PAGE }, { type: 'xstate.error.actor.loadMore', error: new Error('offline') }] as never;
    const apply = Object.entries(FILTERS).map(([name, filters]) => ({ type: 'filters.apply', name, filters }));
    if (snap.matches('failed')) return [{ type: 'list.reload' }, apply[0]] as never;
    return [...apply, { type: 'page.more' }] as never;
  },
});

const authLogic = setup({}).createMachine({ context: { user: { auth0Id: 'auth0|ada', policies: policiesFor(['Administrator']) } } });

function renderHistory(machine: typeof activityHistoryMachine) {
  const page = fakeCall<PageRequest, EventsPage>('load a page');
  const options = fakeCall<{ formulaId: string | null }, { types: string[]; formulaName: string | null }>('load the options');
  const columns = columnPickerMachine.provide({ actors: { readChoice: answeredCall(() => null).logic } as never, actions: { saveChoice: () => {} } });
  const auth = createActor(authLogic).start();
  const router = createMemoryRouter([{
    path: '*',
    element: <ActivityHistory formulaId={null} now={NOW} columnLogic={columns} logic={machine.provide({ actors: { loadOptions: options.logic, loadPage: page.logic } as never })} />,
  }], { initialEntries: ['/activity-history'] });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { page, options, auth, router };
}

const input = (label: RegExp | string) => screen.getByLabelText(label) as HTMLInputElement;

const view: ModelView<typeof activityHistoryMachine, ReturnType<typeof renderHistory>> = {
  render: (machine) => renderHistory(machine),
  stop: (r) => r.auth.stop(),
  params: (r) => ({
    states: {
      preparing: async () => { await screen.findByRole('status', { name: 'Loading activity' }); },
      loading: async () => { await screen.findByRole('status', { name: 'Loading activity' }); },
      failed: async () => { await screen.findByText('The activity could not be loaded'); },
      loaded: async (s) => {
        const { events, nextCursor, problems, moreError, filters } = (s as Snap).context;
        await waitFor(() => expect(screen.queryByRole('status', { name: 'Loading activity' })).toBeNull());
        expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Activity History');
        // the form shows the filters of what is listed, or what the user tried with its problems
        if (!Object.keys(problems).length) expect(input('Description contains').value).toBe(filters.q);
        for (const message of PROBLEM_TEXT) expect(!!screen.queryByText(message)).toBe(Object.values(problems).includes(message));
        if (events.length) {
          const table = await screen.findByRole('table', { name: 'Activity' });
          const rows = within(table).getAllByRole('row').slice(1);
          expect(rows.map((row) => within(row).getAllByRole('cell')[3]!.textContent)).toEqual(events.map((e) => expect.stringContaining(e.description)));
          // the type in words, the type itself on hover
          const typeCells = rows.map((row) => within(row).getAllByRole('cell')[2]!);
          expect(typeCells.map((c) => c.textContent)).toEqual(events.map((e) => activityTypeLabel(e.type)));
          expect(typeCells.map((c) => c.querySelector('[title]')?.getAttribute('title'))).toEqual(events.map((e) => e.type));
          expect(activityTypeLabel('formula.created')).toBe('Formula created');
          const time = table.querySelector('time')!;
          expect(time.getAttribute('title')).toBe(events[0]!.at);
          expect(time.textContent).toBe(new Date(events[0]!.at).toLocaleString());
          expect(within(table).getByRole('link', { name: 'Formula activity' }).getAttribute('href')).toBe(`/activity-history/${FORMULA}`);
          expect(within(table).getByText('Record rec-42')).toBeTruthy();
          // Administrators may see user management: the actor links there; the system does not
          expect(within(table).getAllByRole('link', { name: 'Ada Lovelace in User Management' }).length).toBe(events.filter((e) => e.actor.userId).length);
        } else {
          await screen.findByText(filters.q ? 'No activity matches these filters in these dates.' : 'No activity in these dates.');
        }
        expect(!!screen.queryByRole('button', { name: 'Load more' })).toBe(nextCursor !== null);
        expect(!!screen.queryByText('More activity could not be loaded.')).toBe(moreError !== null);
      },
      loadingMore: async () => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Load more' }).getAttribute('data-loading')).toBe('true'));
      },
    },
    events: {
      'xstate.done.actor.loadOptions': (step) => r.options.answer(step.event),
      'xstate.done.actor.loadPage': (step) => r.page.answer(step.event),
      'xstate.error.actor.loadPage': (step) => r.page.answer(step.event),
      'xstate.done.actor.loadMore': async (step) => {
        // the next page is asked for with the cursor of the last
        expect((await r.page.called()).cursor).toBe('cursor-2');
        await r.page.answer(step.event);
      },
      'xstate.error.actor.loadMore': (step) => r.page.answer(step.event),
      'list.reload': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Try again' })); },
      'page.more': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Load more' })); },
      'filters.apply': async (step) => {
        const f = (step.event as unknown as { filters: ActivityHistoryFilters }).filters;
        fireEvent.change(input(/^From/), { target: { value: f.fromDay } });
        fireEvent.change(input(/^To/), { target: { value: f.toDay } });
        fireEvent.change(screen.getByLabelText('Actor', { selector: 'select' }), { target: { value: f.actor } });
        fireEvent.change(input('Description contains'), { target: { value: f.q } });
        fireEvent.click(screen.getByRole('button', { name: 'Apply' }));
      },
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const stepName = (e: { type: string; name?: string }) => (e.type === 'filters.apply' ? `apply ${e.name}` : e.type.replace('xstate.', ''));

describe('Activity History (activity-history shortest paths on the rendered screen)', () => {
  it.each(named(paths, (p) => p.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => stepName(s.event)).join(' → ')))('%s', async (_name, path) => {
    await runPath(path, activityHistoryMachine, view);
  });

  it('asks the events reporter for the whole days of the range, in the user\'s time zone', () => {
    const q = pageQuery({ formulaId: FORMULA, filters: FILTERS['system appeals']!, cursor: 'cursor-2' });
    expect(q).toEqual({
      from: new Date(2026, 10, 14).toISOString(), to: new Date(2026, 10, 21).toISOString(), formulaId: FORMULA, types: [], actor: 'system', q: 'appeal', cursor: 'cursor-2',
    });
  });
});

describe('the suite can fail', () => {
  it('notices valid filters refused when the guard is broken', async () => {
    const applying = paths.filter((p) => p.steps.some((st) => (st.event as { name?: string }).name === 'system appeals'));
    await expectBrokenGuardToFail(activityHistoryMachine, 'areFiltersValid', { paths: applying.slice(0, 3), view, every: true });
  });
});
