/**
 * The browser's flag client (SPEC.md sections 1, 5, 8 and 9; DESIGN.md section 8): fetches the
 * snapshot at start, refreshes it every 5 minutes (a named delay) with If-None-Match, and
 * evaluates flags locally. Any failure turns every flag false and records 'Failed to fetch data'
 * with the status text; the next good refresh (a new snapshot, or 304 for the one in hand)
 * recovers. `flags.refresh` refreshes at once (after a tenant switch or an administrator's edit).
 *
 * Views evaluate with the selectors below, for example
 * `isEnabled(state, 'custom-routing', formulaRequest('custom-routing', formulaId))`
 * or `isCustomRoutingOn(state, formulaId)`.
 */
import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { formulaRequest } from '../domain/flags/customRouting.ts';
import { createFlagEvaluator, type BooleanEvaluation, type EvaluationRequest, type FlagEvaluator, type VariantEvaluation } from '../domain/flags/evaluator.ts';
import { CUSTOM_ROUTING_FLAG, DEFAULT_FLAG_NAMESPACE, FLAG_FETCH_FAILED, FLAG_REFRESH_INTERVAL_MS, flagFetchFailedMessage, type FlagSnapshot } from '../domain/flags/snapshot.ts';
import { fetchFlagSnapshot, type SnapshotRequest, type SnapshotResult } from '../services/flags.ts';

export interface FlagsInput {
  namespace?: string;
  reference?: string;
}

export type RefreshOutcome = 'fetched' | 'not-modified' | 'failed';

export interface FlagsContext {
  namespace: string;
  reference?: string;
  /** the last good snapshot and its ETag (kept through a failure, so a 304 afterwards recovers it) */
  snapshot: FlagSnapshot | null;
  etag: string | null;
  /** 'Failed to fetch data: <status text>' while failed */
  error: string | null;
  lastOutcome: RefreshOutcome | null;
  /** when the server last answered well (ms since the epoch) */
  refreshedAt: number | null;
}

export type FlagsEvent = { type: 'flags.refresh' };

/** The failure as recorded: the service's FlagFetchError already reads 'Failed to fetch data: <status text>'. */
const messageOf = (error: unknown) => {
  if (typeof error === 'string') return error;
  if (error instanceof Error && error.message.startsWith(FLAG_FETCH_FAILED)) return error.message;
  return flagFetchFailedMessage(error instanceof Error && error.message ? error.message : 'Unknown error');
};

type Output = { output: SnapshotResult };
const outputOf = ({ event }: { event: { output: SnapshotResult } }): Output => ({ output: event.output });
const errorOf = ({ event }: { event: { error: unknown } }) => event.error;
/** a refresh asks with the ETag it holds, so an unchanged snapshot answers 304 */
const conditionalRequest = ({ context }: { context: FlagsContext }) => ({ namespace: context.namespace, reference: context.reference, etag: context.etag });

export const flagsMachine = setup({
  types: {
    context: {} as FlagsContext,
    input: {} as FlagsInput | undefined,
    events: {} as FlagsEvent,
  },
  actors: {
    fetchSnapshot: fromPromise<SnapshotResult, SnapshotRequest>(({ input }) => fetchFlagSnapshot(input)),
  },
  delays: {
    /** SPEC.md section 9: flags refresh every 5 minutes */
    refreshInterval: FLAG_REFRESH_INTERVAL_MS,
  },
  guards: {
    isNotModified: (_, { output }: Output) => output.status === 'not-modified',
    /** a 304 recovers only when a snapshot is in hand */
    hasSnapshotToKeep: ({ context }, { output }: Output) => output.status === 'not-modified' && context.snapshot !== null,
  },
  actions: {
    storeSnapshot: assign((_, { output }: Output) => (output.status === 'fetched'
      ? { snapshot: output.snapshot, etag: output.etag, error: null, lastOutcome: 'fetched' as const, refreshedAt: Date.now() }
      : {})),
    keepSnapshot: assign({ error: null, lastOutcome: 'not-modified' as const, refreshedAt: () => Date.now() }),
    recordFailure: assign({ error: (_, error: unknown) => messageOf(error), lastOutcome: 'failed' as const }),
  },
}).createMachine({
  id: 'flags',
  initial: 'loading',
  context: ({ input }) => ({
    namespace: input?.namespace ?? DEFAULT_FLAG_NAMESPACE,
    reference: input?.reference,
    snapshot: null,
    etag: null,
    error: null,
    lastOutcome: null,
    refreshedAt: null,
  }),
  states: {
    loading: {
      invoke: {
        id: 'snapshot',
        src: 'fetchSnapshot',
        input: ({ context }) => ({ namespace: context.namespace, reference: context.reference, etag: null }),
        onDone: [
          // nothing was asked with If-None-Match: a 304 here is a broken answer
          { guard: { type: 'isNotModified', params: outputOf }, target: 'failed', actions: { type: 'recordFailure', params: () => flagFetchFailedMessage('Not Modified') } },
          { target: 'ready', actions: { type: 'storeSnapshot', params: outputOf } },
        ],
        onError: { target: 'failed', actions: { type: 'recordFailure', params: errorOf } },
      },
    },
    ready: {
      initial: 'idle',
      states: {
        idle: {
          after: { refreshInterval: 'refreshing' },
          on: { 'flags.refresh': 'refreshing' },
        },
        refreshing: {
          invoke: {
            id: 'snapshot',
            src: 'fetchSnapshot',
            input: conditionalRequest,
            onDone: [
              { guard: { type: 'isNotModified', params: outputOf }, target: 'idle', actions: 'keepSnapshot' },
              { target: 'idle', actions: { type: 'storeSnapshot', params: outputOf } },
            ],
            onError: { target: '#flags.failed', actions: { type: 'recordFailure', params: errorOf } },
          },
        },
      },
    },
    /** every flag evaluates false here */
    failed: {
      initial: 'waiting',
      states: {
        waiting: {
          after: { refreshInterval: 'retrying' },
          on: { 'flags.refresh': 'retrying' },
        },
        retrying: {
          invoke: {
            id: 'snapshot',
            src: 'fetchSnapshot',
            input: conditionalRequest,
            onDone: [
              { guard: { type: 'hasSnapshotToKeep', params: outputOf }, target: '#flags.ready', actions: 'keepSnapshot' },
              { guard: { type: 'isNotModified', params: outputOf }, target: 'waiting' },
              { target: '#flags.ready', actions: { type: 'storeSnapshot', params: outputOf } },
            ],
            onError: { target: 'waiting', actions: { type: 'recordFailure', params: errorOf } },
          },
        },
      },
    },
  },
});

export type FlagsActor = ActorRefFrom<typeof flagsMachine>;
export type FlagsState = SnapshotFrom<typeof flagsMachine>;

// ---------------------------------------------------------------------------------------------
// Selectors for views.

const evaluators = new WeakMap<FlagSnapshot, FlagEvaluator>();
function evaluatorOf(snapshot: FlagSnapshot): FlagEvaluator {
  let e = evaluators.get(snapshot);
  if (!e) evaluators.set(snapshot, (e = createFlagEvaluator(snapshot)));
  return e;
}

export type FlagStatus = 'loading' | 'ready' | 'failed';
export function flagStatus(state: FlagsState): FlagStatus {
  if (state.matches('ready')) return 'ready';
  if (state.matches('failed')) return 'failed';
  return 'loading';
}

/** The evaluator to use now: none while loading or failed, so every flag is false then. */
function liveEvaluator(state: FlagsState): FlagEvaluator | null {
  return state.matches('ready') && state.context.snapshot ? evaluatorOf(state.context.snapshot) : null;
}

export type FlagAnswer<T> = { ok: true; value: T } | { ok: false; error: string };

/** A boolean flag's evaluation, or why there is none (an empty key or entity id, an unknown flag, a failure). */
export function evaluateBoolean(state: FlagsState, request: EvaluationRequest): FlagAnswer<BooleanEvaluation> {
  const evaluator = liveEvaluator(state);
  if (!evaluator) return { ok: false, error: state.context.error ?? 'Flags are not loaded yet' };
  try {
    return { ok: true, value: evaluator.evaluateBoolean(request) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export function evaluateVariant(state: FlagsState, request: EvaluationRequest): FlagAnswer<VariantEvaluation> {
  const evaluator = liveEvaluator(state);
  if (!evaluator) return { ok: false, error: state.context.error ?? 'Flags are not loaded yet' };
  try {
    return { ok: true, value: evaluator.evaluateVariant(request) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** Whether a boolean flag is on; false on any failure, while loading, or for a request the client rejects. */
export function isEnabled(state: FlagsState, flagKey: string, request: { entityId: string; context?: Record<string, string> }): boolean {
  const answer = evaluateBoolean(state, { flagKey, ...request });
  return answer.ok && answer.value.enabled;
}

/** The variant a variant flag gives, or null (no match, a disabled flag, any failure). */
export function variantOf(state: FlagsState, flagKey: string, request: { entityId: string; context?: Record<string, string> }): string | null {
  const answer = evaluateVariant(state, { flagKey, ...request });
  return answer.ok && answer.value.match ? answer.value.variantKey : null;
}

/** SPEC.md sections 1 and 2: custom-routing is queried per formula (the formula id as entity id and in the context). */
export function isCustomRoutingOn(state: FlagsState, formulaId: string): boolean {
  return isEnabled(state, CUSTOM_ROUTING_FLAG, formulaRequest(CUSTOM_ROUTING_FLAG, formulaId));
}
