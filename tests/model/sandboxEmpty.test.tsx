/**
 * Model-based tests of the sandbox empty machine on the real Connections screen: each event is a
 * user action (Empty Sandbox CRM, Delete everything, Try again, Cancel, Close) or an answer of the
 * fake server (how many went, a refusal, no answer); each state is what the dialog shows. Nothing
 * is sent before the confirmation, which names the data source and what goes.
 */
import { cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { SandboxEmptied } from '../../src/domain/api/integrations.ts';
import { sandboxEmptyMachine, type SandboxEmptyEvent } from '../../src/machines/sandboxEmpty.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { FAKE_SOURCES, inDetails, renderConnections, selectSource } from '../support/connectionsScreen.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SANDBOX = FAKE_SOURCES.find((s) => s.system === 'sandbox-crm')!;
const DELETED: SandboxEmptied = { constituents: 2512, gifts: 1 };
const FAILURES = [
  new ApiError(403, { title: 'forbidden', detail: 'You need datasource edit permission.' }, { silent: true }),
  new ApiError(0, { title: 'network', detail: 'The server could not be reached.' }, { silent: true }),
];

type Event = SandboxEmptyEvent | { type: 'xstate.done.actor.emptySandbox'; output: SandboxEmptied } | { type: 'xstate.error.actor.emptySandbox'; error: unknown };
const EVENTS: Event[] = [
  { type: 'empty.ask', dataSourceId: SANDBOX.id, name: SANDBOX.displayName },
  { type: 'empty.confirm' },
  { type: 'empty.cancel' },
  { type: 'empty.close' },
  { type: 'xstate.done.actor.emptySandbox', output: DELETED },
  ...FAILURES.map((error) => ({ type: 'xstate.error.actor.emptySandbox', error }) as Event),
];

type Snapshot = SnapshotFrom<typeof sandboxEmptyMachine>;
const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.problem?.title ?? null]);
const model = testModel<typeof sandboxEmptyMachine, Event>(sandboxEmptyMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.title}` : v)),
});

const dialog = () => screen.findByRole('dialog', { name: `Empty ${SANDBOX.displayName}` });

function pathParams(fake: FakeCall<{ dataSourceId: string }, SandboxEmptied>, user: Awaited<ReturnType<typeof renderConnections>>) {
  return {
    states: {
      idle: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        expect(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Empty Sandbox CRM' })).toBeTruthy();
      },
      confirming: async () => {
        const d = within(await dialog());
        expect(d.getByText(/Delete every constituent and every gift in/).textContent).toContain(SANDBOX.displayName);
        expect(d.getByText(/cannot be undone/)).toBeTruthy();
        expect(d.getByRole('button', { name: 'Delete everything' })).toBeTruthy();
        expect(d.getByRole('button', { name: 'Cancel' })).toBeTruthy();
      },
      emptying: async () => {
        const d = within(await dialog());
        await waitFor(() => expect(d.getByRole('button', { name: 'Delete everything' }).getAttribute('data-loading')).toBe('true'));
        expect(fake.calls.at(-1)).toEqual({ dataSourceId: SANDBOX.id });
      },
      emptied: async (s: Snapshot) => {
        const status = await within(await dialog()).findByRole('status');
        expect(status.textContent).toContain(`${SANDBOX.displayName} is empty`);
        expect(status.textContent).toContain(`${s.context.deleted!.constituents.toLocaleString()} constituents and 1 gift deleted.`);
      },
      failed: async (s: Snapshot) => {
        const alert = await within(await dialog()).findByRole('alert');
        expect(alert.textContent).toContain(s.context.problem!.detail!);
        expect(within(await dialog()).getByRole('button', { name: 'Try again' })).toBeTruthy();
      },
    },
    events: {
      'empty.ask': async () => { await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Empty Sandbox CRM' })); },
      'empty.confirm': async () => {
        const d = within(await dialog());
        await user.click(d.queryByRole('button', { name: 'Try again' }) ?? d.getByRole('button', { name: 'Delete everything' }));
      },
      'empty.cancel': async () => { await user.click(within(await dialog()).getByRole('button', { name: 'Cancel' })); },
      'empty.close': async () => {
        const d = within(await dialog());
        await user.click(d.queryByRole('button', { name: 'Close' }) ?? d.getByRole('button', { name: 'Cancel' }));
      },
      'xstate.done.actor.emptySandbox': ({ event }: { event: { type: string } }) => fake.answer(event),
      'xstate.error.actor.emptySandbox': ({ event }: { event: { type: string } }) => fake.answer(event),
    },
  };
}

const view: ModelView<typeof sandboxEmptyMachine, { fake: FakeCall<{ dataSourceId: string }, SandboxEmptied>; user: Awaited<ReturnType<typeof renderConnections>> }> = {
  async render(machine) {
    const fake = fakeCall<{ dataSourceId: string }, SandboxEmptied>('emptySandbox');
    const user = await renderConnections({ sandboxEmpty: machine.provide({ actors: { emptySandbox: fake.logic } }) });
    await selectSource(user, SANDBOX.displayName);
    return { fake, user };
  },
  params: ({ fake, user }) => pathParams(fake, user),
};

const paths = model.getShortestPaths();

describe('sandbox empty machine: shortest paths on the Connections screen', () => {
  it('reaches every state, and a failure for a refusal and for no answer', () => {
    const reached = reachedStates(paths, serializeState);
    for (const s of ['idle', 'confirming', 'emptying', 'emptied']) expect(reached.has(JSON.stringify([s, null])), s).toBe(true);
    for (const title of ['forbidden', 'network']) expect(reached.has(JSON.stringify(['failed', title])), title).toBe(true);
  });
  it.each(named(paths))('%s', async (_d, path) => runPath(path, sandboxEmptyMachine, view));
});

describe('sandbox empty machine: journeys', () => {
  const byType = (type: string, title?: string) => EVENTS.find((e) => e.type === type && (!title || (e as { error?: ApiError }).error?.problem.title === title))!;
  const journeys: [string, Event[]][] = [
    ['cancelled: nothing is sent', [byType('empty.ask'), byType('empty.cancel')]],
    ['not reached, tried again, emptied and closed', [
      byType('empty.ask'), byType('empty.confirm'), byType('xstate.error.actor.emptySandbox', 'network'), byType('empty.confirm'),
      byType('xstate.done.actor.emptySandbox'), byType('empty.close'),
    ]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, sandboxEmptyMachine, view);
  });
});

describe('details the paths do not show', () => {
  it('sends nothing when the confirmation is cancelled', async () => {
    const fake = fakeCall<{ dataSourceId: string }, SandboxEmptied>('emptySandbox');
    const user = await renderConnections({ sandboxEmpty: sandboxEmptyMachine.provide({ actors: { emptySandbox: fake.logic } }) });
    await selectSource(user, SANDBOX.displayName);
    await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Empty Sandbox CRM' }));
    await user.click(within(await dialog()).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(fake.calls).toEqual([]);
  });

  it('is offered only for a Sandbox CRM data source', async () => {
    const user = await renderConnections({});
    const other = FAKE_SOURCES.find((s) => s.system !== 'sandbox-crm')!;
    await selectSource(user, other.displayName);
    expect(inDetails(other.displayName).queryByRole('button', { name: 'Empty Sandbox CRM' })).toBeNull();
  });
});
