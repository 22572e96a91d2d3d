/**
 * Model-based tests of the activity history's column picker (src/machines/columnPicker.ts) on the
 * rendered screen: the remembered choice restored, columns hidden and shown in the table, every
 * change remembered, and the last visible column kept with the reason (SPEC.md section 5).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import type { ActivityHistoryColumn } from '../../src/domain/activityHistory.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { activityHistoryMachine } from '../../src/machines/activityHistory.ts';
import { columnPickerMachine, LAST_COLUMN_MESSAGE } from '../../src/machines/columnPicker.ts';
import type { ActivityEvent } from '../../src/services/eventsReporter.ts';
import { ActivityHistory, COLUMN_LABELS } from '../../src/views/activity/ActivityHistoryPage.tsx';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { answeredCall, fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof columnPickerMachine>;

const EVENT: ActivityEvent = {
  id: 'e1', at: '2026-11-20T09:30:00.000Z', actor: { userId: null, name: 'System' }, type: 'formula.created', description: 'Spring appeal was created',
  details: { name: 'Spring appeal' }, correlationId: 'corr-1', formulaId: null, recordId: null,
};
const TOGGLED: ActivityHistoryColumn[] = ['time', 'type', 'description'];

const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.visible, s.context.refused]);
const model = testModel(columnPickerMachine, {
  input: { storageKey: 'activityHistory.auth0|ada' },
  serializeState: serializeState as never,
  events: (s) => {
    const snap = s as Snap;
    if (snap.matches('restoring')) return [{ type: 'xstate.done.actor.readChoice', output: null }, { type: 'xstate.done.actor.readChoice', output: ['type'] }] as never;
    return TOGGLED.map((column) => ({ type: 'column.toggle', column })) as never;
  },
});

const authLogic = setup({}).createMachine({ context: { user: { auth0Id: 'auth0|ada', policies: policiesFor(['View Only']) } } });

function renderPicker(machine: typeof columnPickerMachine) {
  const read = fakeCall<{ storageKey: string }, string[] | null>('read the choice');
  const saved: ActivityHistoryColumn[][] = [];
  const history = activityHistoryMachine.provide({
    actors: {
      loadOptions: answeredCall(() => ({ types: [], formulaName: null })).logic,
      loadPage: answeredCall(() => ({ events: [EVENT], nextCursor: null })).logic,
    } as never,
  });
  const columns = machine.provide({ actors: { readChoice: read.logic } as never, actions: { saveChoice: ({ context }) => { saved.push(context.visible); } } });
  const auth = createActor(authLogic).start();
  const router = createMemoryRouter([{ path: '*', element: <ActivityHistory formulaId={null} logic={history} columnLogic={columns} now={new Date(2026, 10, 20, 12)} /> }], {
    initialEntries: ['/activity-history'],
  });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  return { read, saved, auth };
}

const checkbox = (c: ActivityHistoryColumn) => screen.getByRole('checkbox', { name: COLUMN_LABELS[c] }) as HTMLInputElement;

const view: ModelView<typeof columnPickerMachine, ReturnType<typeof renderPicker>> = {
  render: (machine) => renderPicker(machine),
  stop: (r) => r.auth.stop(),
  params: (r) => ({
    states: {
      restoring: async () => {
        await waitFor(() => expect(checkbox('time').disabled).toBe(true));
      },
      ready: async (s) => {
        const { visible, refused } = (s as Snap).context;
        await waitFor(() => expect(checkbox('time').disabled).toBe(false));
        const table = await screen.findByRole('table', { name: 'Activity' });
        // the table shows the chosen columns, in order, and the boxes say so
        expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(visible.map((c) => COLUMN_LABELS[c]));
        for (const c of Object.keys(COLUMN_LABELS) as ActivityHistoryColumn[]) expect(checkbox(c).checked).toBe(visible.includes(c));
        if (refused) expect(screen.getByRole('status').textContent).toBe(`${LAST_COLUMN_MESSAGE}: ${COLUMN_LABELS[refused]} is the only column shown.`);
        else expect(screen.queryByText(new RegExp(LAST_COLUMN_MESSAGE))).toBeNull();
        // every change is remembered
        if (r.saved.length) expect(r.saved.at(-1)).toEqual(visible);
      },
    },
    events: {
      'xstate.done.actor.readChoice': (step) => r.read.answer(step.event),
      'column.toggle': (step) => { fireEvent.click(checkbox((step.event as unknown as { column: ActivityHistoryColumn }).column)); },
    },
  }),
};

const paths = model.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('column picker (shortest paths on the rendered Activity History)', () => {
  it('reaches the last visible column refused', () => {
    expect([...reachedStates(paths, serializeState)].some((s) => s.endsWith('"type"]'))).toBe(true);
  });

  it.each(named(paths, (p) => p.steps.filter((s) => s.event.type !== 'xstate.init').map((s) => (s.event.type === 'column.toggle' ? `toggle ${(s.event as unknown as { column: string }).column}` : 'restored')).join(' → ') || 'start'))('%s', async (_name, path) => {
    await runPath(path, columnPickerMachine, view);
  });
});

describe('the suite can fail', () => {
  it('notices the last visible column hidden when the guard is broken', async () => {
    const refusing = paths.filter((p) => p.state.context.refused !== null);
    await expectBrokenGuardToFail(columnPickerMachine, 'isLastVisibleColumn', { paths: refusing, view, every: true });
  });
});
