/**
 * Job status with retry countdown (SPEC.md section 4; DESIGN.md section 3): the live statuses of
 * a tenant's formulas, for the formula lists.
 *
 * Three regions side by side:
 * - connection: the status stream (live: connecting until its snapshot, then streaming); when it
 *   fails, or goes silent past two heartbeats, GET /statuses every 15 seconds (polling), trying
 *   the stream again every 2 minutes.
 * - countdown: while a formula is retrying, the clock moves on every minute (a named delay), so
 *   its line "Retrying, attempt n of 10, next try in m minutes" counts down.
 * - command: a command on one formula at a time (run now, pause, resume, activate, deactivate,
 *   reprocess, clear data, dismiss its error with or without a retry); clearing data,
 *   deactivating and reprocessing wait for the user's confirmation (reprocessing's says what it
 *   keeps, and the user may confirm it routing the records people decided for again too). A
 *   refusal keeps the catalogue's message.
 */
import { assign, fromCallback, fromPromise, not, raise, setup, type SnapshotFrom } from 'xstate';
import type { FormulaStatus } from '../domain/api/formulas.ts';
import { STATUS_POLL_INTERVAL_MS, STATUS_STREAM_RETRY_MS, STATUS_STREAM_SILENCE_MS } from '../domain/api/formulaStatusStream.ts';
import { messageForProblem } from '../domain/errors.ts';
import { FORMULA_COMMANDS, mayCommand, needsConfirmation, type FormulaCommandName } from '../domain/formula/commands.ts';
import { describeRetrying } from '../domain/formula/retryCountdown.ts';
import type { Policies } from '../domain/roles.ts';
import { fetchStatuses, openStatusStream, runFormulaCommand } from '../services/formulaStatus.ts';

/** the countdown's step: its words count whole minutes */
export const COUNTDOWN_TICK_MS = 60_000;

export interface FormulaCommand {
  name: FormulaCommandName;
  formulaId: string;
  /** the formula's name as the list shows it, for the confirmation and a refusal */
  label: string;
  /** reprocess only: route the records people decided for or corrected again too (chosen in the confirmation) */
  includeReviewed?: boolean;
}

export interface CommandFailure {
  command: FormulaCommand;
  /** the error catalogue's message for the problem */
  message: string;
  detail: string | null;
}

export interface JobStatusContext {
  policies: Policies;
  /** the live status of each formula, by id */
  statuses: Record<string, FormulaStatus>;
  /** the clock the countdown reads (ms since the epoch) */
  now: number;
  command: FormulaCommand | null;
  failure: CommandFailure | null;
  /** why the stream was left for polling */
  streamError: string | null;
}

export interface JobStatusInput {
  policies: Policies;
}

type CommandEvent = { [N in FormulaCommandName]: { type: `formula.${N}`; formulaId: string; label: string } }[FormulaCommandName];

export type JobStatusEvent =
  | { type: 'stream.snapshot'; statuses: FormulaStatus[] }
  | { type: 'stream.status'; status: FormulaStatus }
  | { type: 'stream.heartbeat' }
  | { type: 'stream.failed'; reason: string }
  | { type: 'statuses.refresh' }
  | CommandEvent
  | { type: 'command.confirm'; includeReviewed?: boolean }
  | { type: 'command.cancel' }
  | { type: 'failure.close' };

const commandNameOf = (event: { type: string }): FormulaCommandName | null => {
  const name = event.type.startsWith('formula.') ? event.type.slice('formula.'.length) : '';
  return (FORMULA_COMMANDS as readonly string[]).includes(name) ? name as FormulaCommandName : null;
};

/** A formula waiting for its next try, with the attempt to count down to. */
export const isRetrying = (s: FormulaStatus) => s.jobStatus === 'retrying' && !!s.lastRun?.retry;

const byId = (statuses: FormulaStatus[]) => Object.fromEntries(statuses.map((s) => [s.id, s]));

/** Each command goes to confirming or straight to sending, as the domain's rule says. */
const commandTransitions = Object.fromEntries(FORMULA_COMMANDS.map((name) => [`formula.${name}`, {
  guard: 'isPermitted', target: needsConfirmation(name) ? 'confirming' : 'sending', actions: 'rememberCommand',
}])) as Record<CommandEvent['type'], { guard: 'isPermitted'; target: 'confirming' | 'sending'; actions: 'rememberCommand' }>;

export const jobStatusMachine = setup({
  types: {
    context: {} as JobStatusContext,
    input: {} as JobStatusInput | undefined,
    events: {} as JobStatusEvent,
  },
  actors: {
    statusStream: fromCallback<JobStatusEvent>(({ sendBack }) => openStatusStream({
      snapshot: (statuses) => sendBack({ type: 'stream.snapshot', statuses }),
      status: (status) => sendBack({ type: 'stream.status', status }),
      heartbeat: () => sendBack({ type: 'stream.heartbeat' }),
      ended: (reason) => sendBack({ type: 'stream.failed', reason }),
    })),
    fetchStatuses: fromPromise<FormulaStatus[]>(() => fetchStatuses()),
    runCommand: fromPromise<FormulaStatus | null, FormulaCommand>(({ input }) => runFormulaCommand(input.name, input.formulaId, { includeReviewed: input.includeReviewed === true })),
  },
  delays: {
    pollInterval: STATUS_POLL_INTERVAL_MS,
    streamRetryInterval: STATUS_STREAM_RETRY_MS,
    /** past two heartbeats without a word, the stream is dead */
    streamSilence: STATUS_STREAM_SILENCE_MS,
    countdownTick: COUNTDOWN_TICK_MS,
  },
  guards: {
    /** the role table lets the user call the command's endpoint */
    isPermitted: ({ context, event }) => {
      const name = commandNameOf(event);
      return name !== null && mayCommand(context.policies, name);
    },
    isAnyRetrying: ({ context }) => Object.values(context.statuses).some(isRetrying),
  },
  actions: {
    storeSnapshot: assign((_, statuses: FormulaStatus[]) => ({ statuses: byId(statuses), now: Date.now() })),
    storeStatus: assign(({ context, event }) => (event.type === 'stream.status'
      ? { statuses: { ...context.statuses, [event.status.id]: event.status }, now: Date.now() }
      : {})),
    updateClock: assign({ now: () => Date.now() }),
    noteStreamFailure: assign({ streamError: (_, reason: string) => reason }),
    rememberCommand: assign(({ event }) => {
      const name = commandNameOf(event)!;
      const { formulaId, label } = event as CommandEvent;
      return { command: { name, formulaId, label }, failure: null };
    }),
    forgetCommand: assign({ command: null }),
    /** what the user chose in the confirmation */
    rememberChoice: assign(({ context, event }) => (event.type === 'command.confirm' && event.includeReviewed && context.command?.name === 'reprocess'
      ? { command: { ...context.command, includeReviewed: true } }
      : {})),
    storeAnswer: assign(({ context }, answer: FormulaStatus | null) => (answer
      ? { statuses: { ...context.statuses, [answer.id]: answer }, now: Date.now() }
      : {})),
    recordFailure: assign(({ context }, error: unknown) => {
      const problem = (error as { problem?: { title?: string; detail?: string } }).problem;
      const message = messageForProblem(problem);
      const detail = problem?.detail && problem.detail !== message ? problem.detail : null;
      return { failure: { command: context.command!, message, detail } };
    }),
    forgetFailure: assign({ failure: null }),
  },
}).createMachine({
  id: 'jobStatus',
  type: 'parallel',
  context: ({ input }) => ({ policies: input?.policies ?? {}, statuses: {}, now: Date.now(), command: null, failure: null, streamError: null }),
  states: {
    connection: {
      initial: 'live',
      states: {
        live: {
          invoke: { id: 'statusStream', src: 'statusStream' },
          initial: 'connecting',
          on: {
            'stream.status': { actions: 'storeStatus' },
            'stream.failed': { target: 'polling', actions: { type: 'noteStreamFailure', params: ({ event }) => event.reason } },
          },
          states: {
            connecting: {
              on: { 'stream.snapshot': { target: 'streaming', actions: { type: 'storeSnapshot', params: ({ event }) => event.statuses } } },
            },
            streaming: {
              // any word, a heartbeat at least, starts the silence over
              after: { streamSilence: { target: '#jobStatus.connection.polling', actions: { type: 'noteStreamFailure', params: 'The status stream went silent.' } } },
              on: {
                'stream.status': { target: 'streaming', reenter: true, actions: 'storeStatus' },
                // the server listens again after losing its connection: every status afresh
                'stream.snapshot': { target: 'streaming', reenter: true, actions: { type: 'storeSnapshot', params: ({ event }) => event.statuses } },
                'stream.heartbeat': { target: 'streaming', reenter: true },
              },
            },
          },
        },
        polling: {
          initial: 'fetching',
          after: { streamRetryInterval: 'live' },
          states: {
            fetching: {
              invoke: {
                id: 'fetchStatuses',
                src: 'fetchStatuses',
                onDone: { target: 'waiting', actions: { type: 'storeSnapshot', params: ({ event }) => event.output } },
                // the statuses in hand stay; the next poll may answer
                onError: 'waiting',
              },
            },
            waiting: {
              after: { pollInterval: 'fetching' },
              // a command changed something: no need to wait for the next poll
              on: { 'statuses.refresh': 'fetching' },
            },
          },
        },
      },
    },
    countdown: {
      initial: 'idle',
      states: {
        idle: { always: { guard: 'isAnyRetrying', target: 'ticking' } },
        ticking: {
          always: { guard: not('isAnyRetrying'), target: 'idle' },
          after: { countdownTick: { target: 'ticking', reenter: true, actions: 'updateClock' } },
        },
      },
    },
    command: {
      initial: 'idle',
      states: {
        idle: {
          on: { ...commandTransitions, 'failure.close': { actions: 'forgetFailure' } },
        },
        confirming: {
          on: { 'command.confirm': { target: 'sending', actions: 'rememberChoice' }, 'command.cancel': { target: 'idle', actions: 'forgetCommand' } },
        },
        sending: {
          invoke: {
            id: 'runCommand',
            src: 'runCommand',
            input: ({ context }) => context.command!,
            onDone: {
              target: 'idle',
              actions: [{ type: 'storeAnswer', params: ({ event }) => event.output }, 'forgetCommand', raise({ type: 'statuses.refresh' })],
            },
            onError: { target: 'idle', actions: [{ type: 'recordFailure', params: ({ event }: { event: { error: unknown } }) => event.error }, 'forgetCommand'] },
          },
        },
      },
    },
  },
});

export type JobStatusState = SnapshotFrom<typeof jobStatusMachine>;

// ---------------------------------------------------------------------------------------------
// Selectors for views.

export type StatusConnection = 'connecting' | 'streaming' | 'polling';
export function connectionOf(state: JobStatusState): StatusConnection {
  if (state.matches({ connection: 'polling' })) return 'polling';
  return state.matches({ connection: { live: 'streaming' } }) ? 'streaming' : 'connecting';
}

/** "Retrying, attempt 2 of 10, next try in 3 minutes", or null when the formula is not retrying. */
export function retryLine(status: FormulaStatus | undefined, now: number): string | null {
  if (!status || !isRetrying(status)) return null;
  const text = describeRetrying(status.lastRun!.retry!, new Date(now));
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The last run's records collected and sent (created or updated in the destination). */
export function lastRunCounts(status: FormulaStatus | undefined): { collected: number; sent: number } | null {
  const run = status?.lastRun;
  if (!run) return null;
  return { collected: run.counts.collected ?? 0, sent: (run.counts.created ?? 0) + (run.counts.updated ?? 0) };
}

/** The command under way (confirming or sending), if any. */
export function pendingCommand(state: JobStatusState): { command: FormulaCommand; confirming: boolean; sending: boolean } | null {
  const { command } = state.context;
  if (!command) return null;
  return { command, confirming: state.matches({ command: 'confirming' }), sending: state.matches({ command: 'sending' }) };
}
