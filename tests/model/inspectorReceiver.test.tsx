/**
 * The local inspector page, /workflows/inspector (issue 7).
 *
 * 1. Model-based tests of the inspector-receiver machine on the real page: paths from its graph,
 *    each state mapped to what the page shows, each event to a user action or to a report that
 *    a fake listener (standing in for the BroadcastChannel) delivers.
 * 2. The real thing end to end in jsdom: an actor created with `inspect: appInspector()` (the
 *    app's door, src/services/inspection.ts, which loads the devtools module) reports, through
 *    Stately's inspect package and the BroadcastChannel, to the real page.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, setup, type AnyEventObject, type SnapshotFrom } from 'xstate';
import { inspectorReceiverMachine, type InspectorReceiverEvent } from '../../src/devtools/machines/inspectorReceiver.ts';
import { INSPECTION_SETTING, setInspection, type InspectionRecord } from '../../src/devtools/inspection.ts';
import { appInspector } from '../../src/services/inspection.ts';
import { InspectorPage } from '../../src/devtools/views/InspectorPage.tsx';
import { expectingFailure, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

/** A fake listener: the page's machine hears what the test delivers, while it listens. */
function fakeListener() {
  let deliver: ((e: AnyEventObject) => void) | null = null;
  let starts = 0;
  return {
    logic: fromCallback<AnyEventObject>(({ sendBack }) => {
      starts += 1;
      deliver = sendBack;
      return () => { deliver = null; };
    }),
    get listening() { return deliver !== null; },
    get starts() { return starts; },
    deliver(record: InspectionRecord) { deliver!({ type: 'inspection.received', record }); },
  };
}

const ACTOR_REPORT: InspectionRecord = {
  type: '@xstate.actor', name: 'upload', sessionId: 'x:1', parentId: undefined, snapshot: { value: 'idle', status: 'active' }, _version: '0.7.2',
};
const SNAPSHOT_REPORT: InspectionRecord = {
  type: '@xstate.snapshot', sessionId: 'x:1', event: { type: 'file.select' }, snapshot: { value: 'uploading', status: 'active' }, _version: '0.7.2',
};

type Snapshot = SnapshotFrom<typeof inspectorReceiverMachine>;
type ModelEvent = InspectorReceiverEvent;
const EVENTS: ModelEvent[] = [
  { type: 'inspection.received', record: ACTOR_REPORT },
  { type: 'inspection.received', record: SNAPSHOT_REPORT },
  { type: 'events.clear' },
  { type: 'listening.pause' },
  { type: 'listening.resume' },
];

/** what the page shows, not the exact count: whether an actor is known, its state, whether events are listed */
const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.actors.map((a) => `${a.name}=${a.state}`), s.context.events.length > 0]);

const model = testModel<typeof inspectorReceiverMachine, ModelEvent>(inspectorReceiverMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify([e.type, (e as { record?: InspectionRecord }).record?.type ?? null]),
});
const paths = model.getShortestPaths();
const nameOf = (p: (typeof paths)[number]) => `${serializeState(p.state)}: ${p.steps.map((s) => {
  const record = (s.event as { record?: InspectionRecord }).record;
  return record ? `${s.event.type} ${record.type}` : s.event.type;
}).join(' → ')}`;

function params(listener: ReturnType<typeof fakeListener>, user: ReturnType<typeof userEvent.setup>) {
  const lists = (s: Snapshot) => {
    if (s.context.actors.length) {
      const table = screen.getByRole('table', { name: 'Actors' });
      for (const a of s.context.actors) {
        const row = within(table).getByText(a.name).closest('tr')!;
        expect(row.textContent).toContain(a.state);
      }
    } else {
      expect(screen.getByText('No actor has reported yet.')).toBeTruthy();
    }
    if (s.context.events.length) expect(within(screen.getByRole('table', { name: 'Events' })).getAllByRole('row').length).toBe(s.context.events.length + 1);
    else expect(screen.getByText('No events yet.')).toBeTruthy();
  };
  return {
    states: {
      listening: async (s: Snapshot) => {
        await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Listening'));
        expect(listener.listening).toBe(true);
        expect(screen.getByRole('button', { name: 'Pause' })).toBeTruthy();
        lists(s);
      },
      paused: async (s: Snapshot) => {
        await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Paused'));
        expect(listener.listening).toBe(false);
        expect(screen.getByRole('button', { name: 'Resume' })).toBeTruthy();
        lists(s);
      },
    },
    events: {
      'inspection.received': async ({ event }: { event: { type: string } }) => {
        await act(async () => listener.deliver((event as unknown as { record: InspectionRecord }).record));
      },
      'events.clear': async () => { await user.click(screen.getByRole('button', { name: 'Clear' })); },
      'listening.pause': async () => { await user.click(screen.getByRole('button', { name: 'Pause' })); },
      'listening.resume': async () => { await user.click(screen.getByRole('button', { name: 'Resume' })); },
    },
  };
}

/** the page, its listener a fake the path delivers reports through */
const view: ModelView<typeof inspectorReceiverMachine, { listener: ReturnType<typeof fakeListener>; user: ReturnType<typeof userEvent.setup> }> = {
  render(machine) {
    const listener = fakeListener();
    const user = userEvent.setup({ delay: null });
    render(<MantineProvider><InspectorPage machine={machine.provide({ actors: { listen: listener.logic } })} /></MantineProvider>);
    return { listener, user };
  },
  params: ({ listener, user }) => params(listener, user),
};

describe('inspector receiver machine: shortest paths on the page', () => {
  it('reaches listening and paused, with and without actors and events', () => {
    const reached = reachedStates(paths, (s) => JSON.stringify([s.value, s.context.actors.length > 0]));
    for (const v of ['listening', 'paused']) for (const known of [false, true]) expect(reached.has(JSON.stringify([v, known])), `${v} ${known}`).toBe(true);
  });
  it.each(named(paths, nameOf))('%s', async (_d, path) => runPath(path, inspectorReceiverMachine, view));
});

describe('inspector receiver: beyond the paths', () => {
  it('says so when the browser cannot receive', async () => {
    const failing = inspectorReceiverMachine.provide({ actors: { listen: fromCallback(() => { throw new Error('This browser cannot receive inspection events (no BroadcastChannel).'); }) } });
    render(<MantineProvider><InspectorPage machine={failing} /></MantineProvider>);
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('no BroadcastChannel');
    expect(screen.getByRole('status').textContent).toBe('Not listening');
  });

  it('finds a machine that records nothing (broken on purpose)', async () => {
    const broken = inspectorReceiverMachine.provide({ actions: { record: () => {} } });
    const withActor = paths.filter((p) => p.state.context.actors.length > 0);
    expect(withActor.length).toBeGreaterThan(0);
    await expectingFailure(async () => {
      for (const path of withActor) {
        await expect(runPath(path, broken, view)).rejects.toThrow();
        cleanup();
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('live inspection end to end (jsdom)', () => {
  afterAll(async () => {
    await setInspection(false);
    window.localStorage.removeItem(INSPECTION_SETTING);
  });

  it('an inspected actor appears on the local inspector page with its state and events', async () => {
    const toggle = setup({ types: { events: {} as { type: 'toggle' } } }).createMachine({
      id: 'toggleForInspection',
      initial: 'off',
      states: { off: { on: { toggle: 'on' } }, on: { on: { toggle: 'off' } } },
    });
    render(<MantineProvider><InspectorPage /></MantineProvider>);
    await waitFor(() => expect(screen.getByRole('status').textContent).toBe('Listening'));

    await setInspection(true);
    expect(window.localStorage.getItem(INSPECTION_SETTING)).toBe('1');
    const inspect = appInspector();
    expect(inspect).toBeTypeOf('function');
    const actor = createActor(toggle, { inspect }).start();
    actor.send({ type: 'toggle' });

    const table = await screen.findByRole('table', { name: 'Actors' }, { timeout: 10_000 });
    await waitFor(() => expect(within(table).getByText('toggleForInspection').closest('tr')!.textContent).toContain('"on"'), { timeout: 10_000 });
    const events = screen.getByRole('table', { name: 'Events' });
    expect(within(events).getAllByText('toggle').length).toBeGreaterThan(0);
    actor.stop();
  });

  it('the receiver page itself never reports (its reports would come back to it)', async () => {
    await setInspection(true);
    const heard: string[] = [];
    const channel = new BroadcastChannel('tributary.inspect');
    channel.onmessage = (m: MessageEvent) => { const e = (m.data as { event?: InspectionRecord }).event; if (e?.type === '@xstate.actor') heard.push(String(e.name)); };
    const receiver = createActor(inspectorReceiverMachine.provide({ actors: { listen: fromCallback(() => undefined) } }), { inspect: appInspector() }).start();
    receiver.send({ type: 'events.clear' });
    // another actor, created after it, is heard: the channel works
    const other = createActor(setup({}).createMachine({ id: 'heardForSure' }), { inspect: appInspector() }).start();
    await waitFor(() => expect(heard).toContain('heardForSure'), { timeout: 10_000 });
    channel.close();
    receiver.stop();
    other.stop();
    expect(heard).not.toContain('inspectorReceiver');
  });
});
