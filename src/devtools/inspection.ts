/**
 * Live inspection of running actors (issue 7), and the download of a machine's definition.
 *
 * Built in: non-production builds, and production builds made with `VITE_INSPECT=1`. Anywhere
 * else the checks below are constant false, the bundler drops the dynamic import, and no
 * inspection code is in the bundle (checked by building and searching dist/). The app reaches
 * this module only through src/services/inspection.ts, which imports it dynamically behind the
 * same condition; the Workflows screen imports it directly.
 *
 * Switched on: `localStorage['tributary.inspect'] === '1'` (the Workflows screen's "Inspect live"
 * switch), or `?inspect` in the address. While on, every actor created with `inspect:
 * appInspector()` reports to
 *   - the local receiver: events go over a BroadcastChannel named 'tributary.inspect' to the page
 *     /workflows/inspector (any tab of this origin), which lists actors, states and events. A
 *     receiver that opens late says 'hello' and is sent the last 500 events again;
 *   - Stately's visualiser (https://stately.ai/inspect), when asked for ("Open in Stately") and it
 *     can be reached: the popup must answer within 15 s, otherwise it is closed and the local
 *     receiver stays the place to look.
 */
import type { InspectionEvent } from 'xstate';

export const INSPECTION_SETTING = 'tributary.inspect';
export const INSPECTION_CHANNEL = 'tributary.inspect';
export const STATELY_INSPECTOR_URL = 'https://stately.ai/inspect';
/** how long Stately's inspector window has to say it is there */
export const STATELY_CONNECT_TIMEOUT_MS = 15_000;
/** events kept for a receiver that opens late */
const KEPT_EVENTS = 500;
/** the receiver page's own machine never reports (its reports would come back to it) */
const SILENT_MACHINES = new Set(['inspectorReceiver']);

/** Whether this build carries live inspection. */
export function inspectionBuiltIn(): boolean {
  return !import.meta.env.PROD || import.meta.env.VITE_INSPECT === '1';
}

/** Whether the setting is on (the switch, or `?inspect` in the address). */
export function inspectionWanted(): boolean {
  if (typeof window === 'undefined') return false;
  try {
    if (new URLSearchParams(window.location.search).has('inspect')) return true;
    return window.localStorage.getItem(INSPECTION_SETTING) === '1';
  } catch {
    return false;
  }
}

function remember(on: boolean) {
  try {
    if (on) window.localStorage.setItem(INSPECTION_SETTING, '1');
    else window.localStorage.removeItem(INSPECTION_SETTING);
  } catch { /* private mode: the switch lasts for this page only */ }
}

// ---------------------------------------------------------------------------------------------
// The sending side

/** a Stately-format inspection event, as JSON */
export type InspectionRecord = Record<string, unknown> & { type: string; sessionId?: string };

type Sink = import('./inspectionLoader.ts').Sink;

let active = false;
let loading: Promise<void> | null = null;
let local: Sink | null = null;
let stately: Sink | null = null;
let loader: typeof import('./inspectionLoader.ts') | null = null;
const pending: InspectionEvent[] = [];
const kept: InspectionRecord[] = [];

function rootOf(actor: unknown): { logic?: { id?: string } } | undefined {
  let a = actor as { _parent?: unknown; logic?: { id?: string } } | undefined;
  while (a?._parent) a = a._parent as typeof a;
  return a;
}

function isSilent(event: InspectionEvent): boolean {
  return SILENT_MACHINES.has((event.actorRef as { logic?: { id?: string } }).logic?.id ?? '')
    || SILENT_MACHINES.has(rootOf(event.actorRef)?.logic?.id ?? '');
}

async function load(): Promise<void> {
  // constant false in a production build without VITE_INSPECT=1: the bundler drops the import
  if (!import.meta.env.PROD || import.meta.env.VITE_INSPECT === '1') {
    loader = await import('./inspectionLoader.ts');
    if (!local && typeof BroadcastChannel !== 'undefined') {
      const channel = new BroadcastChannel(INSPECTION_CHANNEL);
      channel.onmessage = (message: MessageEvent) => {
        if ((message.data as { kind?: string } | null)?.kind !== 'hello') return;
        for (const event of kept) channel.postMessage({ kind: 'inspection', event, replay: true });
      };
      local = loader.createSendingInspector((event) => {
        const record = event as InspectionRecord;
        kept.push(record);
        if (kept.length > KEPT_EVENTS) kept.shift();
        channel.postMessage({ kind: 'inspection', event: record });
      });
    }
  }
}

function forward(event: InspectionEvent) {
  local?.inspect.next?.(event);
  stately?.inspect.next?.(event);
}

/** The observer to pass as `inspect` when creating an actor. Reports only while inspection is on. */
export function inspect(event: InspectionEvent): void {
  if (!active || isSilent(event)) return;
  if (loader) {
    forward(event);
    return;
  }
  pending.push(event);
  if (pending.length > KEPT_EVENTS) pending.shift();
  loading ??= load();
  void loading.then(() => {
    for (const e of pending.splice(0)) forward(e);
  });
}

/**
 * The `inspect` option for the app's actors: the observer above where inspection is built in,
 * undefined elsewhere (production without VITE_INSPECT=1).
 */
export function appInspector(): ((event: InspectionEvent) => void) | undefined {
  if (!inspectionBuiltIn()) return undefined;
  active = inspectionWanted();
  return inspect;
}

/** The switch: on starts reporting (and remembers it), off stops and forgets. */
export async function setInspection(on: boolean): Promise<void> {
  if (!inspectionBuiltIn()) return;
  remember(on);
  active = on;
  if (on) {
    loading ??= load();
    await loading;
  } else {
    stately?.stop?.();
    stately = null;
  }
}

export type StatelyOutcome = 'connected' | 'blocked' | 'unreachable';

/**
 * Opens Stately's inspector in a popup; once it answers, it is sent what happened so far (the
 * events the actors still hold) and everything from then on. 'blocked': no window could be
 * opened; 'unreachable': it did not answer within the timeout, and the popup was closed.
 */
export async function openStatelyInspector(timeoutMs = STATELY_CONNECT_TIMEOUT_MS): Promise<StatelyOutcome> {
  if (!inspectionBuiltIn()) return 'unreachable';
  await setInspection(true);
  if (!loader) return 'unreachable';
  stately?.stop?.();
  stately = null;
  const answer = await loader.connectStately(STATELY_INSPECTOR_URL, timeoutMs, [...kept]);
  if (typeof answer === 'string') return answer;
  stately = answer;
  return 'connected';
}

// ---------------------------------------------------------------------------------------------
// The receiving side (the page /workflows/inspector)

/**
 * Listens for inspection events of this origin's tabs; asks the senders for what they kept.
 * Answers the function that stops listening. Throws where BroadcastChannel does not exist.
 */
export function listenToInspection(onEvent: (event: InspectionRecord, replay: boolean) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') throw new Error('This browser cannot receive inspection events (no BroadcastChannel).');
  const channel = new BroadcastChannel(INSPECTION_CHANNEL);
  channel.onmessage = (message: MessageEvent) => {
    const data = message.data as { kind?: string; event?: InspectionRecord; replay?: boolean };
    if (data?.kind === 'inspection' && data.event && typeof data.event.type === 'string') onEvent(data.event, !!data.replay);
  };
  channel.postMessage({ kind: 'hello' });
  return () => channel.close();
}

// ---------------------------------------------------------------------------------------------
// Downloads

/** Saves text as a file through the browser's download. */
export function downloadText(fileName: string, text: string, type = 'application/json'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
