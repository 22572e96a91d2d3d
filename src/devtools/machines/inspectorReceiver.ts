/**
 * The local inspector page, /workflows/inspector (issue 7): where live inspection reports when
 * Stately's visualiser cannot be reached. It listens to the app's tabs (src/devtools/inspection.ts,
 * a BroadcastChannel of this origin), keeps the actors it has heard of with their current state,
 * and the last events. Pausing keeps the list as it is; clearing empties it.
 */
import { assign, fromCallback, setup, type AnyEventObject } from 'xstate';
import { listenToInspection, type InspectionRecord } from '../inspection.ts';

/** events kept on the page */
export const RECEIVER_KEPT_EVENTS = 300;

export interface InspectedActor {
  sessionId: string;
  name: string;
  parentId: string | null;
  /** the state value as JSON, or the status when the actor is no machine */
  state: string;
  status: string;
}

export interface ReceivedEvent {
  at: number;
  kind: 'actor' | 'event' | 'snapshot';
  sessionId: string;
  /** the actor's name, when known */
  actor: string;
  /** the event type (for a snapshot: the event that led to it) */
  event: string;
  /** the state after it (snapshots) */
  state: string | null;
}

export interface InspectorReceiverContext {
  actors: InspectedActor[];
  events: ReceivedEvent[];
  error: string | null;
}

export type InspectorReceiverEvent =
  /** `replay`: sent again for a receiver that just opened */
  | { type: 'inspection.received'; record: InspectionRecord; replay?: boolean }
  | { type: 'events.clear' }
  | { type: 'listening.pause' }
  | { type: 'listening.resume' };

const stateOf = (snapshot: unknown): { state: string; status: string } => {
  const s = (snapshot ?? {}) as { value?: unknown; status?: string };
  return { state: s.value === undefined ? (s.status ?? 'active') : JSON.stringify(s.value), status: s.status ?? 'active' };
};

/** The page's lists after one inspection event. */
export function receive(context: Pick<InspectorReceiverContext, 'actors' | 'events'>, record: InspectionRecord, at = Date.now()): Pick<InspectorReceiverContext, 'actors' | 'events'> {
  const sessionId = String(record.sessionId ?? '');
  let actors = context.actors;
  const known = actors.find((a) => a.sessionId === sessionId);
  let entry: ReceivedEvent | null = null;
  if (record.type === '@xstate.actor') {
    const { state, status } = stateOf(record.snapshot);
    const actor: InspectedActor = { sessionId, name: String(record.name ?? sessionId), parentId: (record.parentId as string | undefined) ?? null, state, status };
    actors = known ? actors.map((a) => (a.sessionId === sessionId ? actor : a)) : [...actors, actor];
    entry = { at, kind: 'actor', sessionId, actor: actor.name, event: 'created', state };
  } else if (record.type === '@xstate.snapshot') {
    const { state, status } = stateOf(record.snapshot);
    if (known) actors = actors.map((a) => (a.sessionId === sessionId ? { ...a, state, status } : a));
    entry = { at, kind: 'snapshot', sessionId, actor: known?.name ?? sessionId, event: String((record.event as { type?: string } | undefined)?.type ?? ''), state };
  } else if (record.type === '@xstate.event') {
    entry = { at, kind: 'event', sessionId, actor: known?.name ?? sessionId, event: String((record.event as { type?: string } | undefined)?.type ?? ''), state: null };
  }
  if (!entry) return context;
  return { actors, events: [entry, ...context.events].slice(0, RECEIVER_KEPT_EVENTS) };
}

export const inspectorReceiverMachine = setup({
  types: {
    context: {} as InspectorReceiverContext,
    events: {} as InspectorReceiverEvent,
  },
  actors: {
    listen: fromCallback<AnyEventObject>(({ sendBack }) => listenToInspection((record, replay) => sendBack({ type: 'inspection.received', record, replay }))),
  },
  actions: {
    // after a pause, what the senders send again is already on the page
    record: assign(({ context, event }) => (event.type === 'inspection.received' && !(event.replay && context.events.length)
      ? receive(context, event.record)
      : {})),
    clear: assign({ actors: [], events: [] }),
  },
}).createMachine({
  id: 'inspectorReceiver',
  initial: 'listening',
  context: { actors: [], events: [], error: null },
  states: {
    listening: {
      invoke: {
        id: 'listen',
        src: 'listen',
        onError: { target: 'unsupported', actions: assign({ error: ({ event }) => (event.error as Error)?.message ?? String(event.error) }) },
      },
      on: {
        'inspection.received': { actions: 'record' },
        'events.clear': { actions: 'clear' },
        'listening.pause': 'paused',
      },
    },
    /** nothing new is taken in; the lists stay as they are */
    paused: {
      on: {
        'events.clear': { actions: 'clear' },
        'listening.resume': 'listening',
      },
    },
    /** this browser cannot receive (no BroadcastChannel) */
    unsupported: {},
  },
});
