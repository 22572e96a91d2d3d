/**
 * The local inspector page, /workflows/inspector (issue 7).
 *
 * 1. Model-based tests of the inspector-receiver machine on the real page: paths from its graph,
 *    each state mapped to what the page shows, each event to a user action or to a report that
 *    a fake listener (standing in for the BroadcastChannel) delivers.
 * 2. The real thing end to end in jsdom: an actor created with `inspect: appInspector()` reports,
 *    through Stately's inspect package and the BroadcastChannel, to the real page.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { TestModel } from '@xstate/graph';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, setup, type AnyEventObject, type SnapshotFrom } from 'xstate';
import { inspectorReceiverMachine, type InspectorReceiverEvent } from '../../src/machines/inspectorReceiver.ts';
import { appInspector, INSPECTION_SETTING, setInspection, type InspectionRecord } from '../../src/services/inspection.ts';
import { InspectorPage } from '../../src/views/workflows/InspectorPage.tsx';

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

const model = new TestModel(inspectorReceiverMachine, {
  events: EVENTS as never,
  serializeState: (s: unknown) => serializeState(s as Snapshot),
  serializeEvent: (e: AnyEventObject) => JSON.stringify([e.type, (e as { record?: InspectionRecord }).record?.type ?? null]),
  stateMatcher: (s: unknown, key: string) => (s as Snapshot).matches(key as never),
} as never);
const paths = model.getShortestPaths();
const nameOf = (p: (typeof paths)[number]) => `${serializeState(p.state as Snapshot)}: ${p.steps.map((s) => {
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

async function run(machine: typeof inspectorReceiverMachine, path: (typeof paths)[number]) {
  const listener = fakeListener();
  const user = userEvent.setup();
  render(<MantineProvider><InspectorPage machine={machine.provide({ actors: { listen: listener.logic } })} /></MantineProvider>);
  await path.test(params(listener, user) as never);
}

describe('inspector receiver machine: shortest paths on the page', () => {
  it('reaches listening and paused, with and without actors and events', () => {
    const reached = new Set(paths.flatMap((p) => [...p.steps.map((s) => s.state as Snapshot), p.state as Snapshot]).map((s) => JSON.stringify([s.value, s.context.actors.length > 0])));
    for (const v of ['listening', 'paused']) for (const known of [false, true]) expect(reached.has(JSON.stringify([v, known])), `${v} ${known}`).toBe(true);
  });
  it.each(paths.map((p) => [nameOf(p), p] as const))('%s', async (_d, path) => run(inspectorReceiverMachine, path));
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
    const withActor = paths.find((p) => (p.state as Snapshot).context.actors.length > 0)!;
    await expect(run(broken, withActor)).rejects.toThrow();
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
