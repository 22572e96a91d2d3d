/**
 * Model-based tests of the browser's flag client (flagsMachine) on the real Feature Flags status
 * view, with controlled time: paths come from the machine's graph; each event is the fake
 * snapshot server's answer (a snapshot, 304 Not Modified, or 503), five minutes passing on fake
 * timers, or the "Refresh now" button; each state is what the view shows, including whether
 * custom-routing is on for the chosen formula (off whenever the client is loading or failed).
 * User actions go through fireEvent: user-event waits on timers of its own, which the fake clock
 * holds still (letting the clock run with real time would blur the 5-minute boundary tested here).
 */
import { createElement } from 'react';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { formulaRuleFlag } from '../../src/domain/flags/customRouting.ts';
import { toSnapshotFlag } from '../../src/domain/flags/definitions.ts';
import { CUSTOM_ROUTING_FLAG, FLAG_REFRESH_INTERVAL_MS, type FlagSnapshot } from '../../src/domain/flags/snapshot.ts';
import { flagsMachine, isCustomRoutingOn } from '../../src/machines/flags.ts';
import { FlagFetchError, type SnapshotRequest, type SnapshotResult } from '../../src/services/flags.ts';
import { FlagClientStatus } from '../../src/views/flags/FlagClientStatus.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

beforeEach(() => { vi.useFakeTimers(); });
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const CHOSEN = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const OTHER = '9b2d4e61-7a3c-4f0b-8e15-2d6a9c4b1e73';
const SNAPSHOT: FlagSnapshot = {
  namespace: { key: 'default' },
  flags: [toSnapshotFlag(CUSTOM_ROUTING_FLAG, formulaRuleFlag('Custom routing', '', [CHOSEN]))],
};
const ETAG = '"v1"';

type Event =
  | { type: 'flags.refresh' }
  | { type: 'xstate.done.actor.snapshot'; output: SnapshotResult }
  | { type: 'xstate.error.actor.snapshot'; error: unknown }
  | { type: 'xstate.after.refreshInterval.flags.ready.idle' }
  | { type: 'xstate.after.refreshInterval.flags.failed.waiting' };

const FETCHED: Event = { type: 'xstate.done.actor.snapshot', output: { status: 'fetched', snapshot: SNAPSHOT, etag: ETAG } };
const NOT_MODIFIED: Event = { type: 'xstate.done.actor.snapshot', output: { status: 'not-modified' } };
const UNAVAILABLE: Event = { type: 'xstate.error.actor.snapshot', error: new FlagFetchError(503, 'Service Unavailable') };
const FIVE_MINUTES_READY: Event = { type: 'xstate.after.refreshInterval.flags.ready.idle' };
const FIVE_MINUTES_FAILED: Event = { type: 'xstate.after.refreshInterval.flags.failed.waiting' };
const REFRESH: Event = { type: 'flags.refresh' };
const EVENTS: Event[] = [FETCHED, NOT_MODIFIED, UNAVAILABLE, FIVE_MINUTES_READY, FIVE_MINUTES_FAILED, REFRESH];

type Snapshot = SnapshotFrom<typeof flagsMachine>;
/** the outcome of the last refresh, whether a snapshot is in hand and the error are part of what the view shows */
const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.lastOutcome, s.context.snapshot !== null, s.context.error]);

const model = testModel<typeof flagsMachine, Event>(flagsMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof FlagFetchError ? `${v.status} ${v.statusText}` : v)),
});

/** lets resolved promises and the re-render they cause run */
const settle = () => act(async () => { await vi.advanceTimersByTimeAsync(0); });

const view = () => within(screen.getByLabelText('Flag client'));
const answer = () => screen.getByTestId('custom-routing-answer').textContent;

async function start(machine: typeof flagsMachine) {
  // the fake snapshot server: every fetch waits for the path to answer it (at once, on the fake clock)
  const server = fakeCall<SnapshotRequest, SnapshotResult>('the flag client\'s fetch');
  const actor = createActor(machine.provide({ actors: { fetchSnapshot: server.logic } }), { input: {} }).start();
  render(createElement(MantineProvider, null, createElement(FlagClientStatus, { flags: actor })));
  fireEvent.change(screen.getByLabelText('Check custom-routing for a formula'), { target: { value: CHOSEN } });
  return { server, actor };
}

function pathParams({ server, actor }: Awaited<ReturnType<typeof start>>) {
  const routingIsOn = (on: boolean) => {
    expect(answer()).toBe(`custom-routing is ${on ? 'on' : 'off'} for this formula`);
    expect(isCustomRoutingOn(actor.getSnapshot(), CHOSEN)).toBe(on);
    expect(isCustomRoutingOn(actor.getSnapshot(), OTHER)).toBe(false);
  };
  const failedAlert = (s: Snapshot) => {
    const alert = view().getByRole('alert');
    // 'Failed to fetch data: Service Unavailable', or the broken first answer 'Failed to fetch data: Not Modified'
    expect(s.context.error).toMatch(/^Failed to fetch data: (Service Unavailable|Not Modified)$/);
    expect(alert.textContent).toContain(s.context.error);
    expect(alert.textContent).toContain('Every flag is off until the next good refresh.');
    return alert;
  };
  const fiveMinutes = async () => {
    // nothing happens a millisecond early; then the refresh asks with the ETag in hand
    await act(async () => { await vi.advanceTimersByTimeAsync(FLAG_REFRESH_INTERVAL_MS - 1); });
    expect(server.waiting).toBe(false);
    await act(async () => { await vi.advanceTimersByTimeAsync(1); });
    expect(server.waiting).toBe(true);
  };
  return {
    states: {
      loading: () => {
        expect(view().getByRole('status').textContent).toContain('Loading flags…');
        expect(server.calls.at(-1)).toMatchObject({ namespace: 'default', etag: null });
        routingIsOn(false);
      },
      'ready.idle': (s: Snapshot) => {
        const status = view().getByRole('status').textContent;
        expect(status).toContain('Flags are up to date');
        expect(status).toContain(s.context.lastOutcome === 'not-modified' ? 'last refresh: not modified' : 'last refresh: a new snapshot');
        expect(view().queryByRole('alert')).toBeNull();
        routingIsOn(true);
      },
      'ready.refreshing': () => {
        expect(view().getByRole('status').textContent).toContain('Refreshing flags…');
        expect(server.calls.at(-1)).toMatchObject({ etag: ETAG }); // If-None-Match
        routingIsOn(true); // the snapshot in hand is used until the answer comes
      },
      'failed.waiting': (s: Snapshot) => {
        expect(failedAlert(s).textContent).not.toContain('Trying again');
        routingIsOn(false);
      },
      'failed.retrying': (s: Snapshot) => {
        expect(failedAlert(s).textContent).toContain('Trying again…');
        expect(server.calls.at(-1)).toMatchObject({ etag: s.context.snapshot ? ETAG : null });
        routingIsOn(false);
      },
    },
    events: {
      'xstate.done.actor.snapshot': async ({ event }: { event: { type: string } }) => {
        await act(async () => server.settle(event));
        await settle();
      },
      'xstate.error.actor.snapshot': async ({ event }: { event: { type: string } }) => {
        await act(async () => server.settle(event));
        await settle();
      },
      'xstate.after.refreshInterval.flags.ready.idle': fiveMinutes,
      'xstate.after.refreshInterval.flags.failed.waiting': fiveMinutes,
      'flags.refresh': async () => {
        await act(async () => { fireEvent.click(view().getByRole('button', { name: 'Refresh now' })); });
        await settle();
        expect(server.waiting).toBe(true);
      },
    },
  };
}

/** the flag client's status view over the fake snapshot server */
const statusView: ModelView<typeof flagsMachine, Awaited<ReturnType<typeof start>>> = {
  render: start,
  params: pathParams,
  stop: ({ actor }) => actor.stop(),
};

const shortest = model.getShortestPaths();
/** a readable name for a path: its events in order */
const nameOf = (p: (typeof shortest)[number]) => p.steps.slice(1).map(({ event: e }) => {
  const event = e as Event;
  if (event.type === 'xstate.done.actor.snapshot') return event.output.status === 'fetched' ? '200' : '304';
  if (event.type === 'xstate.error.actor.snapshot') return '503';
  if (event.type.startsWith('xstate.after.')) return '5 minutes';
  return 'Refresh now';
}).join(' → ') + ` ⇒ ${JSON.stringify(p.state.value)}`;

describe('flag client: shortest paths to every state', () => {
  it('reaches loading, ready (fetched and not modified), refreshing, failed and retrying', () => {
    const reached = reachedStates(shortest, serializeState);
    const unavailable = 'Failed to fetch data: Service Unavailable';
    for (const s of [
      ['loading', null, false, null],
      [{ ready: 'idle' }, 'fetched', true, null],
      [{ ready: 'idle' }, 'not-modified', true, null],
      [{ ready: 'refreshing' }, 'fetched', true, null],
      [{ failed: 'waiting' }, 'failed', false, unavailable],
      [{ failed: 'waiting' }, 'failed', true, unavailable],
      [{ failed: 'retrying' }, 'failed', true, unavailable],
    ]) expect(reached.has(JSON.stringify(s)), JSON.stringify(s)).toBe(true);
  });
  it.each(named(shortest, nameOf))('%s', async (_d, path) => runPath(path, flagsMachine, statusView));
});

describe('flag client: journeys with controlled time', () => {
  const journeys: [string, Event[]][] = [
    ['first load', [FETCHED]],
    ['first load, then 304 five minutes later', [FETCHED, FIVE_MINUTES_READY, NOT_MODIFIED, FIVE_MINUTES_READY, NOT_MODIFIED]],
    ['first load fails, then recovers with a snapshot five minutes later', [UNAVAILABLE, FIVE_MINUTES_FAILED, FETCHED]],
    ['a refresh fails (all flags off), then the next one answers 304 and recovers the snapshot in hand', [FETCHED, FIVE_MINUTES_READY, UNAVAILABLE, FIVE_MINUTES_FAILED, NOT_MODIFIED]],
    ['failing twice, then recovering on "Refresh now"', [FETCHED, REFRESH, UNAVAILABLE, FIVE_MINUTES_FAILED, UNAVAILABLE, REFRESH, FETCHED]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, flagsMachine, statusView);
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose not-modified guard is broken on purpose', async () => {
    const [path] = model.getPathsFromEvents([FETCHED, FIVE_MINUTES_READY, NOT_MODIFIED]);
    await expectBrokenGuardToFail(flagsMachine, 'isNotModified', { paths: [path!], view: statusView, every: true });
  });
});
