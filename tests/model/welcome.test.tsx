/**
 * Model-based tests of the welcome page's first steps (src/machines/welcome.ts: reading, shown,
 * unread) on the page: which steps the tenant has done is read once and those are ticked; what
 * cannot be read leaves them unticked with Try again; a user who may not view formulas reads
 * nothing. Links lead where each step can be done on the first day (reviewing records: Formulas,
 * since the Data Queue opens from the second sign-in). The read is a fake the paths answer. A
 * broken guard that never reads makes the paths through reading fail.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, createMachine, type SnapshotFrom } from 'xstate';
import type { Onboarding } from '../../src/domain/api/dataQueue.ts';
import { welcomeMachine, type WelcomeEvent } from '../../src/machines/welcome.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { ActorsContext, type AppActors } from '../../src/views/shell/actors.tsx';
import { WelcomePage } from '../../src/views/welcome/WelcomePage.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const ALL = { formula: ['view', 'edit'], records: ['view'], datasource: ['view'], usermanagement: ['view'] };
const HALF: Onboarding = { dataSource: true, formula: true, reviewedRecord: false, teammate: false };
const DOWN = new ApiError(502, { status: 502, title: 'connection-error' }, { silent: true });

type Event = WelcomeEvent
  | { type: 'xstate.done.actor.readOnboarding'; output: Onboarding }
  | { type: 'xstate.error.actor.readOnboarding'; error: unknown };
type Snap = SnapshotFrom<typeof welcomeMachine>;

const EVENTS: Event[] = [
  { type: 'xstate.done.actor.readOnboarding', output: HALF },
  { type: 'xstate.error.actor.readOnboarding', error: DOWN },
  { type: 'retry' },
];
const model = testModel<typeof welcomeMachine, Event>(welcomeMachine, {
  input: { mayRead: true }, events: EVENTS,
  serializeState: (s: Snap) => JSON.stringify([s.value, s.context.done]),
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}` : v)),
});

interface Rendered { read: FakeCall<unknown, Onboarding>; user: ReturnType<typeof userEvent.setup> }

/** the app shell's auth actor, as far as the page reads it: the signed-in user */
function shellWith(policies: Record<string, string[]>): AppActors {
  const auth = createActor(createMachine({ context: { user: { fullName: 'Ada Lovelace', policies } } })).start();
  return { auth, routeAccess: auth } as unknown as AppActors;
}

function renderPage(logic: typeof welcomeMachine, policies: Record<string, string[]>) {
  const router = createMemoryRouter([{ path: '/welcome', element: <WelcomePage logic={logic} /> }], { initialEntries: ['/welcome'] });
  render(<MantineProvider><ActorsContext.Provider value={shellWith(policies)}><RouterProvider router={router} /></ActorsContext.Provider></MantineProvider>);
}

const items = () => within(screen.getByRole('list', { name: 'Onboarding tasks' })).getAllByRole('listitem');
const ticked = () => items().filter((i) => i.hasAttribute('data-done')).map((i) => within(i).getByRole('link').textContent);
const links = () => items().map((i) => [within(i).getByRole('link').textContent, within(i).getByRole('link').getAttribute('href')]);

const view: ModelView<typeof welcomeMachine, Rendered> = {
  render(machine) {
    const read: Rendered['read'] = fakeCall('readOnboarding');
    renderPage(machine.provide({ actors: { readOnboarding: read.logic } }), ALL);
    return { read, user: userEvent.setup() };
  },
  params: ({ read, user }) => ({
    states: {
      reading: async () => {
        await read.called();
        expect(links()).toEqual([
          ['Connect a data source', '/connections'], ['Create your first formula', '/integrations-formulas'],
          ['Review and send records', '/integrations-formulas'], ['Invite your team', '/user-management'],
        ]);
        expect(ticked()).toEqual([]);
        expect(screen.getByText(/From your second sign-in, Tributary opens at your Data Queue/)).toBeTruthy();
      },
      shown: async () => {
        expect(await screen.findAllByText('Done:')).toHaveLength(2);
        expect(ticked()).toEqual(['Connect a data source', 'Create your first formula']);
        expect(screen.queryByRole('button', { name: 'Try again' })).toBeNull();
      },
      unread: async () => {
        await screen.findByText('What is already done could not be read.');
        expect(ticked()).toEqual([]);
        expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
      },
    },
    events: {
      retry: async () => { await user.click(screen.getByRole('button', { name: 'Try again' })); },
      'xstate.done.actor.readOnboarding': ({ event }: { event: { type: string } }) => read.answer(event),
      'xstate.error.actor.readOnboarding': ({ event }: { event: { type: string } }) => read.answer(event),
    },
  }),
};

const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('welcome: shortest paths on the page', () => {
  it('reaches reading, shown and unread', () => {
    const reached = [...reachedStates(shortest, ((s: Snap) => JSON.stringify(s.value)) as never)];
    for (const value of ['reading', 'shown', 'unread']) expect(reached).toContain(JSON.stringify(value));
  });
  it.each(named(shortest))('%s', async (_d, path) => runPath(path, welcomeMachine, view));
  it('what could not be read is read again with Try again, and ticked', async () => {
    // unread -> reading is a state already reached, so no generated path takes it: walked here by hand
    const { read, user } = await view.render(welcomeMachine, shortest[0]!);
    await read.called();
    await read.answer({ type: 'xstate.error.actor.readOnboarding', error: DOWN } as never);
    await screen.findByText('What is already done could not be read.');
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(read.calls.length).toBe(2);
    await read.answer({ type: 'xstate.done.actor.readOnboarding', output: HALF } as never);
    expect(await screen.findAllByText('Done:')).toHaveLength(2);
    expect(ticked()).toEqual(['Connect a data source', 'Create your first formula']);
  });
});

describe('welcome without formula view', () => {
  it('reads nothing, and lists only the steps the role may take, unticked', async () => {
    const read = fakeCall<unknown, Onboarding>('readOnboarding');
    renderPage(welcomeMachine.provide({ actors: { readOnboarding: read.logic } }), { datasource: ['view', 'edit'] });
    expect(links()).toEqual([['Connect a data source', '/connections']]);
    expect(ticked()).toEqual([]);
    expect(read.calls.length).toBe(0);
  });
});

describe('the suite can fail', () => {
  it('finds a page that never reads what is done', async () => {
    await expectBrokenGuardToFail(welcomeMachine, 'mayRead', { paths: shortest.filter((p) => p.steps.some((s) => s.state.matches('reading'))), view });
  });
});
