/**
 * Model-based tests of job status with retry countdown (src/machines/jobStatus.ts) on the rendered
 * formula list, with controlled time. Paths come from the machine's graph; each event is the fake
 * status stream speaking (a snapshot, a formula's status, its end), a poll's answer, time passing
 * on fake timers (15-second polls, the stream tried again, the stream going silent, the countdown's
 * minute), a user's click (a command, its confirmation or cancellation) or the command's answer.
 * Each state is what the user sees: how statuses arrive, the formula's status and job status
 * badges, the last run's counts, 'Needs reprocess', the retry line, the error with its dismiss
 * buttons, the commands the role may use (enabled or not), the confirmation and a refusal.
 * User actions go through fireEvent: the fake clock holds user-event's own timers still.
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise, getInitialSnapshot, setup, type SnapshotFrom } from 'xstate';
import type { FormulaStatus, RunView } from '../../src/domain/api/formulas.ts';
import { formulaStatusStream, STATUS_POLL_INTERVAL_MS, STATUS_STREAM_RETRY_MS, STATUS_STREAM_SILENCE_MS } from '../../src/domain/api/formulaStatusStream.ts';
import { COMMAND_LABELS, commandsFor, FORMULA_COMMANDS, needsConfirmation, type FormulaCommandName } from '../../src/domain/formula/commands.ts';
import { runTimeWords } from '../../src/domain/formula/scheduleTimes.ts';
import { policiesFor, type Role } from '../../src/domain/roles.ts';
import { formulaListMachine } from '../../src/machines/formulaList.ts';
import { COUNTDOWN_TICK_MS, jobStatusMachine, type FormulaCommand, type JobStatusEvent } from '../../src/machines/jobStatus.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import type { DataSourceListItem } from '../../src/services/integrations.ts';
import { FormulaList } from '../../src/views/formulas/AllFormulasPage.tsx';
import { REPROCESS_ALL_LABEL } from '../../src/views/formulas/FormulaLive.tsx';
import { ActorsContext } from '../../src/views/shell/actors.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
beforeEach(() => { vi.useFakeTimers({ now: T0 }); });
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

// ---------------------------------------------------------------------------------------------
// The formula and the statuses the fake server tells

const F = '7d1c4e2a-5b3f-4a6d-9e8c-1f2a3b4c5d6e';
const NAME = 'Spring appeal';
const SOURCE: DataSourceListItem = {
  id: 'ds-crm', system: 'sandbox-crm', displayName: 'Sandbox CRM', createdOn: '', createdBy: null, modifiedOn: '', modifiedBy: null, usedByCount: 1,
};
const FORMULA: FormulaView = {
  id: F, name: NAME, isDraft: false, usesFileUpload: false, sourceDataSource: null, firstDestinationDataSource: null, sampleUploadId: null,
  status: 'active', jobStatus: 'scheduled', needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-02T00:00:00Z',
};

const run = (status: RunView['status'], counts: Record<string, number>, extra: Partial<RunView> = {}): RunView => ({
  id: 'r1', kind: 'scheduled', status, counts, params: {}, error: null, retry: null, progress: null,
  createdOn: '2026-11-20T09:00:00.000Z', startedOn: '2026-11-20T09:00:01.000Z', finishedOn: null, attempts: 1, ...extra,
});
/** the next try of the retrying run: 2 minutes 30 seconds after the clock starts */
const NEXT_TRY_AT = new Date(T0 + 150_000).toISOString();
/** when the schedule runs the live formula next: the server gives no time to a paused, inactive, errored or running one */
const NEXT_RUN_AT = '2026-11-21T14:00:00.000Z';
const ACTIVE: FormulaStatus = {
  id: F, status: 'active', jobStatus: 'scheduled', enabled: true, paused: false, needsReprocess: false, nextRunAt: NEXT_RUN_AT, lastError: null,
  lastRun: run('finished', { collected: 12, created: 7, updated: 3 }, { finishedOn: '2026-11-20T09:05:00.000Z' }), buckets: {}, counts: {},
};
const STATUSES = {
  active: ACTIVE,
  paused: { ...ACTIVE, status: 'paused', jobStatus: 'paused', paused: true, nextRunAt: null },
  inactive: { ...ACTIVE, status: 'inactive', jobStatus: null, enabled: false, nextRunAt: null },
  retrying: { ...ACTIVE, status: 'processing', jobStatus: 'retrying', nextRunAt: null, lastRun: run('retrying', { collected: 4 }, { retry: { attempt: 2, of: 10, nextTryAt: NEXT_TRY_AT } }) },
  errored: {
    ...ACTIVE, status: 'error', jobStatus: 'errored', nextRunAt: null, lastError: 'The Sandbox CRM did not answer (gave up after 11 attempts)',
    lastRun: run('errored', { collected: 4 }, { error: 'The Sandbox CRM did not answer' }),
  },
  'needs reprocess': { ...ACTIVE, needsReprocess: true },
  clearing: { ...ACTIVE, status: 'clearing', jobStatus: 'clearing-data' },
  running: { ...ACTIVE, status: 'processing', jobStatus: 'running', nextRunAt: null, lastRun: run('running', { collected: 2 }) },
  waiting: { ...ACTIVE, jobStatus: 'waiting' },
} satisfies Record<string, FormulaStatus>;
type StatusName = keyof typeof STATUSES;
const nameOf = (s: FormulaStatus | undefined): StatusName | null => (s ? (Object.keys(STATUSES) as StatusName[]).find((k) => JSON.stringify(STATUSES[k]) === JSON.stringify(s)) ?? null : null);

/** what the stream tells next, from each status (a run starts, fails, is cleared ...) */
const NEXT: Partial<Record<StatusName, StatusName[]>> = {
  active: ['retrying', 'needs reprocess', 'clearing', 'running'],
  retrying: ['errored', 'active'],
  clearing: ['active'],
  running: ['active'],
};
/** the commands each status's paths take (the screen is checked for every command each status offers) */
const TAKEN: Partial<Record<StatusName, FormulaCommandName[]>> = {
  active: ['run', 'pause', 'deactivate', 'clear'],
  paused: ['resume'],
  inactive: ['activate'],
  errored: ['dismiss', 'retry'],
  'needs reprocess': ['reprocess'],
  // the wait ends; the countdown shows until the status says the run started
  retrying: ['retryNow'],
};
/** what the server answers each command with: the formula's status, or nothing (the stream tells) */
const ANSWERS: Record<FormulaCommandName, StatusName | null> = {
  run: null, retryNow: 'retrying', pause: 'paused', resume: 'active', activate: null, deactivate: 'inactive', reprocess: null, clear: 'active', dismiss: 'active', retry: 'waiting',
};
const BUSY = { status: 409, problem: { title: 'formula-busy', status: 409, detail: 'Scheduled run of this formula is running.' } };

// ---------------------------------------------------------------------------------------------
// Events

type Snap = SnapshotFrom<typeof jobStatusMachine>;
type ModelEvent =
  | JobStatusEvent
  | { type: 'xstate.done.actor.fetchStatuses'; output: FormulaStatus[] }
  | { type: 'xstate.error.actor.fetchStatuses'; error: unknown }
  | { type: 'xstate.done.actor.runCommand'; output: FormulaStatus | null }
  | { type: 'xstate.error.actor.runCommand'; error: unknown }
  | { type: `xstate.after.${string}` };

const SNAPSHOT = (name: StatusName): ModelEvent => ({ type: 'stream.snapshot', statuses: [STATUSES[name]] });
const STATUS = (name: StatusName): ModelEvent => ({ type: 'stream.status', status: STATUSES[name] });
const FAILED: ModelEvent = { type: 'stream.failed', reason: 'The status stream answered 503.' };
const SILENCE: ModelEvent = { type: 'xstate.after.streamSilence.jobStatus.connection.live.streaming' };
const POLL_TICK: ModelEvent = { type: 'xstate.after.pollInterval.jobStatus.connection.polling.waiting' };
const STREAM_RETRY: ModelEvent = { type: 'xstate.after.streamRetryInterval.jobStatus.connection.polling' };
const TICK: ModelEvent = { type: 'xstate.after.countdownTick.jobStatus.countdown.ticking' };
const COMMAND = (name: FormulaCommandName): ModelEvent => ({ type: `formula.${name}`, formulaId: F, label: NAME }) as ModelEvent;
const CONFIRM: ModelEvent = { type: 'command.confirm' };
/** reprocessing confirmed with the records people acted on routed again too */
const CONFIRM_ALL: ModelEvent = { type: 'command.confirm', includeReviewed: true };
const CANCEL: ModelEvent = { type: 'command.cancel' };
const CLOSE: ModelEvent = { type: 'failure.close' };
const ANSWER = (name: FormulaCommandName): ModelEvent => ({ type: 'xstate.done.actor.runCommand', output: ANSWERS[name] ? STATUSES[ANSWERS[name]!] : null });
const REFUSED: ModelEvent = { type: 'xstate.error.actor.runCommand', error: BUSY };

/** the model's options, for its shortest paths and for journeys (getPathsFromEvents takes none of the model's own) */
function optionsFor(role: Role) {
  const policies = policiesFor([role]);
  return {
    input: { policies },
    events: (snap: Snap): ModelEvent[] => {
      const current = nameOf(snap.context.statuses[F]);
      const events: ModelEvent[] = [];
      const idle = snap.matches({ command: 'idle' });
      const commands = (names: FormulaCommandName[]) => names.filter((n) => commandsFor({ ...FORMULA, ...STATUSES[current!] }, policies).some((c) => c.name === n && c.enabled));
      if (snap.matches({ connection: { live: 'connecting' } })) {
        events.push(...(['active', 'paused', 'inactive', 'retrying', 'errored'] as const).map(SNAPSHOT), FAILED);
      }
      if (snap.matches({ connection: { live: 'streaming' } })) {
        // the formula's run state moves on, though not while the user reads a confirmation
        if (!snap.matches({ command: 'confirming' })) events.push(...(NEXT[current!] ?? []).map(STATUS));
        if (current === 'active' && idle) events.push(FAILED, SILENCE);
        if (idle) events.push(...commands(TAKEN[current!] ?? []).map(COMMAND));
      }
      if (snap.matches({ connection: { polling: 'fetching' } })) {
        events.push({ type: 'xstate.done.actor.fetchStatuses', output: [snap.context.statuses[F] ?? ACTIVE] }, { type: 'xstate.error.actor.fetchStatuses', error: new Error('offline') });
      }
      if (snap.matches({ connection: { polling: 'waiting' } })) {
        events.push(POLL_TICK, STREAM_RETRY);
        // a command while polling fetches the statuses at once
        if (current === 'active' && idle) events.push(...commands(['pause']).map(COMMAND));
      }
      if (snap.matches({ countdown: 'ticking' })) events.push(TICK);
      if (snap.matches({ command: 'confirming' })) events.push(CONFIRM, CANCEL, ...(snap.context.command?.name === 'reprocess' ? [CONFIRM_ALL] : []));
      if (snap.matches({ command: 'sending' })) {
        const name = snap.context.command!.name;
        events.push(ANSWER(name));
        if (name === 'run' || name === 'clear' || name === 'retry') events.push(REFUSED);
      }
      if (idle && snap.context.failure) events.push(CLOSE);
      return events;
    },
    serializeState: (snap: Snap) => {
      return JSON.stringify([snap.value, nameOf(snap.context.statuses[F]), snap.context.command?.name ?? null, snap.context.command?.includeReviewed ?? null, snap.context.failure?.command.name ?? null]);
    },
  };
}
const modelFor = (role: Role) => testModel<typeof jobStatusMachine, ModelEvent>(jobStatusMachine, optionsFor(role));
/** a journey's path; its traversal starts from the machine with the role's input, which getPathsFromEvents leaves out */
const journey = (role: Role, events: ModelEvent[]) => modelFor(role).getPathsFromEvents(events, {
  ...optionsFor(role), fromState: getInitialSnapshot(jobStatusMachine, { policies: policiesFor([role]) }),
} as never)[0] as unknown as ModelPath<Snap>;

// ---------------------------------------------------------------------------------------------
// The screen: the formula list with the job-status machine, over fakes

/**
 * The status stream, as the machine's callback actor: the test speaks for the server, which also
 * sends its heartbeat every 25 seconds until it is muted (a connection that silently died).
 */
function fakeStream() {
  let sendBack: ((event: JobStatusEvent) => void) | null = null;
  let opened = 0;
  let muted = false;
  let lastWord = 0;
  return {
    logic: fromCallback<JobStatusEvent>(({ sendBack: send }) => {
      sendBack = send;
      opened += 1;
      const heartbeat = setInterval(() => {
        if (muted) return;
        lastWord = Date.now();
        send({ type: 'stream.heartbeat' });
      }, formulaStatusStream.heartbeatMs);
      return () => {
        clearInterval(heartbeat);
        if (sendBack === send) sendBack = null;
      };
    }),
    get open() { return sendBack !== null; },
    get opened() { return opened; },
    /** when the server last said anything */
    get lastWord() { return lastWord; },
    mute() { muted = true; },
    tell(event: JobStatusEvent) {
      if (!sendBack) throw new Error('the status stream is not open');
      lastWord = Date.now();
      sendBack(event);
    },
  };
}

/** lets resolved promises, and the re-render they cause, run */
const settle = () => act(async () => { await vi.advanceTimersByTimeAsync(0); });
/** lets time pass on the fake clock (a closing dialog's transition, a poll, a minute) */
const pass = (ms: number) => act(async () => { await vi.advanceTimersByTimeAsync(ms); });

interface Rendered {
  role: Role;
  stream: ReturnType<typeof fakeStream>;
  polls: FakeCall<void, FormulaStatus[]>;
  commands: FakeCall<FormulaCommand, FormulaStatus | null>;
  auth: { stop(): void };
  /** when the list last fell back to polling */
  pollingSince: number;
}

async function renderList(role: Role, machine: typeof jobStatusMachine): Promise<Rendered> {
  const stream = fakeStream();
  const polls = fakeCall<void, FormulaStatus[]>('poll GET /statuses');
  const commands = fakeCall<FormulaCommand, FormulaStatus | null>('a formula command');
  const auth = createActor(setup({}).createMachine({ context: { user: { policies: policiesFor([role]) } } })).start();
  const list = formulaListMachine.provide({ actors: { loadList: fromPromise(async () => ({ formulas: [FORMULA], sources: [SOURCE] as DataSourceListItem[] | null })) } });
  const jobs = machine.provide({ actors: { statusStream: stream.logic, fetchStatuses: polls.logic, runCommand: commands.logic } as never });
  const router = createMemoryRouter([{ path: '*', element: <FormulaList title="All Formulas" logic={list} jobs={jobs} /> }], { initialEntries: ['/integrations-formulas'] });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <RouterProvider router={router} />
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  await settle();
  await settle();
  return { role, stream, polls, commands, auth, pollingSince: 0 };
}

const CONNECTION_WORDS = { connecting: 'Connecting to live statuses…', streaming: 'Statuses are live', polling: 'Statuses refresh every 15 seconds' };
const LABEL_TO_COMMAND = new Map(FORMULA_COMMANDS.map((c) => [`${COMMAND_LABELS[c]}: ${NAME}`, c]));
const row = () => screen.getByRole('group', { name: `Status of ${NAME}` }).closest('tr')!;
const button = (name: FormulaCommandName) => within(row()).getByRole('button', { name: `${COMMAND_LABELS[name]}: ${NAME}` }) as HTMLButtonElement;
const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** "Retrying, attempt 2 of 10, next try in 2 minutes", counted from the fake clock: what the user should read now */
function countdownNow(): string {
  const minutes = Math.max(0, Math.ceil((Date.parse(NEXT_TRY_AT) - Date.now()) / 60_000));
  return `Retrying, attempt 2 of 10, ${minutes === 0 ? 'next try now' : `next try in ${minutes} minute${minutes === 1 ? '' : 's'}`}`;
}

/** everything the screen shows for this state of the machine */
function expectScreen(r: Rendered, snap: Snap) {
  const policies = policiesFor([r.role]);
  const live = snap.context.statuses[F];
  const connection = snap.matches({ connection: 'polling' }) ? 'polling' : snap.matches({ connection: { live: 'streaming' } }) ? 'streaming' : 'connecting';
  expect(screen.getByText(CONNECTION_WORDS[connection])).toBeTruthy();
  expect(r.stream.open, 'the stream is open').toBe(snap.matches({ connection: 'live' }));
  if (snap.matches({ connection: 'polling' })) expect(r.polls.waiting, 'a poll waits for its answer').toBe(snap.matches({ connection: { polling: 'fetching' } }));

  // the status: the list status (nothing else, as the formula lists have always shown it) and needs reprocess
  const statusText = screen.getByRole('group', { name: `Status of ${NAME}` }).textContent!;
  const needsReprocess = live?.needsReprocess ?? FORMULA.needsReprocess;
  expect(statusText).toBe(`${capitalised(live?.status ?? FORMULA.status)}${needsReprocess ? 'Needs reprocess' : ''}`);
  // the job: its status, the retry line, the error
  const job = within(screen.getByRole('group', { name: `Job of ${NAME}` }));
  const jobStatus = live ? live.jobStatus : FORMULA.jobStatus;
  if (jobStatus) expect(job.getByText(capitalised(jobStatus.replaceAll('-', ' ')))).toBeTruthy();
  if (live?.jobStatus === 'retrying') expect(job.getByText(/^Retrying, /).textContent).toBe(countdownNow());
  else expect(job.queryByText(/^Retrying, /)).toBeNull();
  if (live?.lastError) expect(job.getByText(live.lastError)).toBeTruthy();
  // when the schedule runs it next, in the reader's locale and zone, only when the server says it will run
  const nextRun = job.queryByText(/^Next run:/);
  if (live?.nextRunAt) {
    expect(nextRun?.textContent).toBe(`Next run: ${runTimeWords(live.nextRunAt)}`);
    expect(nextRun?.querySelector('time')?.getAttribute('dateTime')).toBe(live.nextRunAt);
  } else {
    expect(nextRun).toBeNull();
  }

  // the last run's counts
  const counts = live?.lastRun ? `${live.lastRun.counts.collected ?? 0} collected, ${(live.lastRun.counts.created ?? 0) + (live.lastRun.counts.updated ?? 0)} sent` : 'No run yet';
  expect(row().textContent).toContain(counts);

  // the commands: exactly those the role may use and the status offers, usable when nothing is pending
  const offered = live ? commandsFor({ ...FORMULA, ...live }, policies) : [];
  const shown = within(row()).queryAllByRole('button').map((b) => LABEL_TO_COMMAND.get(b.getAttribute('aria-label') ?? '')).filter(Boolean);
  expect(shown.sort()).toEqual(offered.map((c) => c.name).sort());
  const pending = snap.context.command;
  for (const c of offered) {
    expect(button(c.name).disabled, `${c.name} disabled`).toBe(!c.enabled || pending !== null);
    const loading = snap.matches({ command: 'sending' }) && pending?.name === c.name;
    expect(button(c.name).getAttribute('data-loading') === 'true', `${c.name} loading`).toBe(loading);
  }
  expect(within(row()).getByRole('link', { name: `${policies.formula?.includes('edit') ? 'Edit' : 'Open'} ${NAME}` })).toBeTruthy();

  // the confirmation of clearing data, deactivating and reprocessing
  if (pending && needsConfirmation(pending.name)) {
    const dialog = screen.getByRole('dialog', { name: { clear: 'Clear data', deactivate: 'Deactivate formula', reprocess: 'Reprocess formula' }[pending.name as string] });
    expect(dialog.textContent).toContain({ clear: `Clear the data of ${NAME}?`, deactivate: `Deactivate ${NAME}?`, reprocess: `Reprocess ${NAME}?` }[pending.name as string]);
    // how many records it touches: the formula's buckets hold none here
    if (pending.name === 'clear') expect(dialog.textContent).toContain('Its 0 records leave every bucket, and this cannot be undone.');
    if (pending.name === 'deactivate') expect(dialog.textContent).toContain('Its schedule stops; the 0 records it has collected stay.');
    const sending = snap.matches({ command: 'sending' });
    const confirm = within(dialog).getByRole('button', { name: COMMAND_LABELS[pending.name] });
    expect(confirm.getAttribute('data-loading') === 'true').toBe(sending && !pending.includeReviewed);
    if (pending.name === 'reprocess') {
      // what it will change, and what it will not
      expect(dialog.textContent).toContain('that no one has acted on are transformed, validated, matched and routed again with the formula as it is now');
      expect(dialog.textContent).toContain('Records people have acted on (a picked match, Create new, Add to Ready, a corrected value) keep their bucket, match and values.');
      expect(dialog.textContent).toContain('Sent records and records being sent are not changed, and no record is added or deleted.');
      const all = within(dialog).getByRole('button', { name: REPROCESS_ALL_LABEL });
      expect(all.getAttribute('data-loading') === 'true').toBe(sending && pending.includeReviewed === true);
      // the server is asked for what the user chose
      if (sending) {
        expect(r.commands.next?.name).toBe('reprocess');
        expect(r.commands.next?.includeReviewed === true).toBe(pending.includeReviewed === true);
      }
    }
  } else {
    expect(screen.queryByRole('dialog')).toBeNull();
  }

  // a refusal, in the catalogue's words
  const failure = snap.context.failure;
  if (failure) {
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('A run of this formula is under way. Try again when it has finished.');
    expect(alert.textContent).toContain(`${COMMAND_LABELS[failure.command.name]}, ${NAME}: Scheduled run of this formula is running.`);
  } else {
    expect(screen.queryByRole('alert')).toBeNull();
  }
}

function listView(role: Role): ModelView<typeof jobStatusMachine, Rendered> {
  return {
    render: (machine) => renderList(role, machine),
    stop: (r) => r.auth.stop(),
    params: (r) => {
      const tell = async (event: { type: string }) => {
        await act(async () => r.stream.tell(event as JobStatusEvent));
        await settle();
      };
      const answerCommand = async ({ event }: { event: { type: string } }) => {
        const confirmed = needsConfirmation(r.commands.next!.name);
        await act(async () => r.commands.settle(event));
        await settle();
        // the confirmation closes after its transition
        if (confirmed) await pass(500);
      };
      const commandEvents = Object.fromEntries(FORMULA_COMMANDS.map((name) => [`formula.${name}`, async () => {
        await act(async () => { fireEvent.click(button(name)); });
        await settle();
        // the confirmation opens with a transition
        if (needsConfirmation(name)) await pass(500);
      }]));
      return {
        states: {
          // every state: the whole screen, read from the machine's state
          connection: (s: Snap) => expectScreen(r, s),
        },
        events: {
          'stream.snapshot': ({ event }: { event: { type: string } }) => tell(event),
          'stream.status': ({ event }: { event: { type: string } }) => tell(event),
          'stream.failed': async ({ event }: { event: { type: string } }) => {
            await tell(event);
            r.pollingSince = Date.now();
          },
          [SILENCE.type]: async () => {
            r.stream.mute();
            // no word for a millisecond short of a minute: still live
            await pass(r.stream.lastWord + STATUS_STREAM_SILENCE_MS - 1 - Date.now());
            expect(r.stream.open).toBe(true);
            await pass(1);
            r.pollingSince = Date.now();
          },
          'xstate.done.actor.fetchStatuses': async ({ event }: { event: { type: string } }) => {
            await act(async () => r.polls.settle(event));
            await settle();
          },
          'xstate.error.actor.fetchStatuses': async ({ event }: { event: { type: string } }) => {
            await act(async () => r.polls.settle(event));
            await settle();
          },
          [POLL_TICK.type]: async () => {
            await pass(STATUS_POLL_INTERVAL_MS - 1);
            expect(r.polls.waiting).toBe(false);
            await pass(1);
          },
          [STREAM_RETRY.type]: async () => {
            const opened = r.stream.opened;
            await pass(r.pollingSince + STATUS_STREAM_RETRY_MS - Date.now());
            expect(r.stream.opened).toBe(opened + 1);
          },
          [TICK.type]: async () => {
            const before = screen.getByText(/^Retrying, /).textContent;
            await pass(COUNTDOWN_TICK_MS - 1);
            // nothing changes a millisecond early
            expect(screen.getByText(/^Retrying, /).textContent).toBe(before);
            await pass(1);
          },
          ...commandEvents,
          'command.confirm': async ({ event }: { event: { type: string } }) => {
            const all = (event as { includeReviewed?: boolean }).includeReviewed === true;
            await act(async () => { fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: all ? REPROCESS_ALL_LABEL : /^(Clear data|Deactivate|Reprocess)$/ })); });
            await settle();
          },
          'command.cancel': async () => {
            await act(async () => { fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' })); });
            await settle();
            await pass(500);
          },
          'xstate.done.actor.runCommand': answerCommand,
          'xstate.error.actor.runCommand': answerCommand,
          'failure.close': async () => {
            await act(async () => { fireEvent.click(within(screen.getByRole('alert')).getByRole('button', { name: 'Close message' })); });
            await settle();
          },
        },
      };
    },
  };
}

// ---------------------------------------------------------------------------------------------

const eventName = (e: ModelEvent): string => {
  if (e.type === 'stream.snapshot') return `snapshot ${nameOf(e.statuses[0])}`;
  if (e.type === 'stream.status') return `status ${nameOf(e.status)}`;
  if (e.type === 'xstate.done.actor.runCommand') return `answered ${nameOf(e.output ?? undefined) ?? 'nothing'}`;
  if (e.type === 'xstate.error.actor.runCommand') return 'refused';
  if (e.type === 'xstate.done.actor.fetchStatuses') return 'poll answered';
  if (e.type === 'xstate.error.actor.fetchStatuses') return 'poll failed';
  if (e.type.startsWith('xstate.after.')) return `after ${e.type.split('.')[2]}`;
  return e.type;
};
const pathName = (p: ModelPath<Snap>) => p.steps.slice(1).map((s) => eventName(s.event as ModelEvent)).join(' → ') || 'opening';

const producer = modelFor('Formula Producer');
const producerPaths = producer.getShortestPaths() as unknown as ModelPath<Snap>[];
const viewer = modelFor('View Only');
const viewerPaths = viewer.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('job status as a Formula Producer (shortest paths on the rendered list)', () => {
  it('reaches streaming, polling, the countdown, confirming, sending and a refusal', () => {
    const reached = [...reachedStates(producerPaths)];
    for (const part of ['"streaming"', '"fetching"', '"waiting"', '"ticking"', '"confirming"', '"sending"']) {
      expect(reached.some((s) => s.includes(part)), part).toBe(true);
    }
    // reprocessing's confirmation, and both of its answers
    const full = [...reachedStates(producerPaths, optionsFor('Formula Producer').serializeState)];
    for (const part of ['"command":"confirming"},"needs reprocess","reprocess",null', '"command":"sending"},"needs reprocess","reprocess",null', '"command":"sending"},"needs reprocess","reprocess",true']) {
      expect(full.some((s) => s.includes(part)), part).toBe(true);
    }
    const serial = (s: Snap) => JSON.stringify([nameOf(s.context.statuses[F]), s.context.failure?.command.name ?? null]);
    const seen = reachedStates(producerPaths, serial);
    for (const name of Object.keys(STATUSES)) expect([...seen].some((s) => s.startsWith(`["${name}"`)), name).toBe(true);
    expect([...seen].some((s) => !s.endsWith('null]')), 'a refusal').toBe(true);
  });
  it.each(named(producerPaths, pathName))('%s', async (_name, path) => runPath(path, jobStatusMachine, listView('Formula Producer')));
});

describe('job status as View Only: statuses, and no command', () => {
  it('offers no command on any path', () => {
    expect(viewerPaths.every((p) => p.steps.every((s) => !s.event.type.startsWith('formula.')))).toBe(true);
  });
  it.each(named(viewerPaths, pathName))('%s', async (_name, path) => runPath(path, jobStatusMachine, listView('View Only')));
});

describe('job status: journeys with controlled time', () => {
  const journeys: [string, Role, ModelEvent[]][] = [
    ['the retry countdown goes down a minute at a time, then the run fails for good and is dismissed and retried', 'Formula Producer',
      [SNAPSHOT('retrying'), TICK, TICK, TICK, STATUS('errored'), COMMAND('retry'), ANSWER('retry')]],
    ['the countdown counts for View Only too, who cannot dismiss the error', 'View Only', [SNAPSHOT('retrying'), TICK, STATUS('errored')]],
    ['the stream fails: polls every 15 seconds, then the stream again after 2 minutes', 'Formula Producer',
      [FAILED, { type: 'xstate.done.actor.fetchStatuses', output: [ACTIVE] }, POLL_TICK, { type: 'xstate.error.actor.fetchStatuses', error: new Error('offline') }, STREAM_RETRY, SNAPSHOT('paused')]],
    ['heartbeats keep the stream live through minutes; a stream that then says nothing for a minute is left for polling', 'View Only',
      [SNAPSHOT('retrying'), TICK, TICK, STATUS('active'), SILENCE, { type: 'xstate.done.actor.fetchStatuses', output: [ACTIVE] }]],
    ['reprocessing: cancelled, then confirmed keeping what people decided, then confirmed routing it all again', 'Formula Producer',
      [SNAPSHOT('active'), STATUS('needs reprocess'), COMMAND('reprocess'), CANCEL, COMMAND('reprocess'), CONFIRM, ANSWER('reprocess'),
        COMMAND('reprocess'), CONFIRM_ALL, ANSWER('reprocess')]],
    ['clearing data: cancelled, then confirmed, refused, and confirmed again', 'Formula Producer',
      [SNAPSHOT('active'), COMMAND('clear'), CANCEL, COMMAND('clear'), CONFIRM, REFUSED, CLOSE, COMMAND('clear'), CONFIRM, STATUS('clearing'), ANSWER('clear')]],
  ];
  it.each(journeys)('%s', async (_name, role, events) => {
    const path = journey(role, events);
    expect(path.steps.length).toBe(events.length + 1);
    await runPath(path, jobStatusMachine, listView(role));
  });

  it('reads the countdown in words', async () => {
    const path = journey('Formula Producer', [SNAPSHOT('retrying'), TICK, TICK, TICK]);
    const r = await renderList('Formula Producer', jobStatusMachine);
    const seen: string[] = [];
    const params = listView('Formula Producer').params(r);
    await path.test({
      ...params,
      states: { ...params.states, 'countdown.ticking': () => { seen.push(screen.getByText(/^Retrying, /).textContent!); } },
    } as never);
    r.auth.stop();
    expect(seen).toEqual([
      'Retrying, attempt 2 of 10, next try in 3 minutes', 'Retrying, attempt 2 of 10, next try in 2 minutes',
      'Retrying, attempt 2 of 10, next try in 1 minute', 'Retrying, attempt 2 of 10, next try now',
    ]);
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose countdown guard is broken on purpose: the minutes stand still', async () => {
    const path = journey('Formula Producer', [SNAPSHOT('retrying'), TICK]);
    await expectBrokenGuardToFail(jobStatusMachine, 'isAnyRetrying', { paths: [path], view: listView('Formula Producer'), every: true });
  });
  it('finds a machine whose permission guard is broken on purpose: a command is not sent', async () => {
    const paths = producerPaths.filter((p) => p.steps.some((s) => s.event.type === 'formula.pause'));
    expect(paths.length).toBeGreaterThan(0);
    await expectBrokenGuardToFail(jobStatusMachine, 'isPermitted', { paths, view: listView('Formula Producer'), every: true });
  });
});
