/**
 * Model-based tests of the export machine (SPEC.md section 4: started, in progress with count and
 * percent, complete, error; a blocked download says 'The browser blocked the CSV download') on the
 * ExportButton a bucket screen shows. Paths come from the machine's graph; each event is a user
 * action (Export, Download CSV, Close), the answer of a faked export service call, or a second
 * passing on the fake clock (the poll); each state is what the button and its status area show.
 */
import { MantineProvider } from '@mantine/core';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { EXPORT_GONE, EXPORT_POLL_INTERVAL_MS, type ExportView } from '../../src/domain/api/exportService.ts';
import { MESSAGES, PROBLEM_TITLES } from '../../src/domain/errors.ts';
import type { RecordSelection } from '../../src/domain/records/query.ts';
import { exportMachine, type ExportEvent } from '../../src/machines/export.ts';
import { DownloadBlockedError } from '../../src/services/exports.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { availableUntil, ExportButton } from '../../src/views/records/ExportButton.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

const T0 = Date.parse('2026-11-20T10:00:00.000Z');
beforeEach(() => { vi.useFakeTimers({ now: T0 }); });
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const FORMULA = '7d1c4e2a-5b3f-4a6d-9e8c-1f2a3b4c5d6e';
const SELECTION: RecordSelection = { kind: 'scope', scope: { view: 'ready-records', filter: {} } };

const exportView = (over: Partial<ExportView>): ExportView => ({
  id: 'e1', formulaId: FORMULA, view: 'ready-records', customBucket: null, status: 'started', total: null, written: 0, percent: 0,
  error: null, fileName: null, createdOn: new Date(T0).toISOString(), finishedOn: null, expiresAt: null, download: 'not-ready', ...over,
});
const STARTED = exportView({});
const HALF = exportView({ status: 'in-progress', total: 1200, written: 600, percent: 50 });
const COMPLETE = exportView({
  status: 'complete', total: 1200, written: 1200, percent: 100, fileName: 'Spring-appeal-ready-records.csv', download: 'available',
  finishedOn: new Date(T0 + 5000).toISOString(), expiresAt: new Date(T0 + 5000 + 24 * 3600_000).toISOString(),
});
const FAILED = exportView({ status: 'error', total: 1200, written: 400, percent: 33, error: 'The records could not be written to the file. Please start the export again.' });
const REFUSED = new ApiError(404, { title: 'not-found', detail: 'No such formula.' }, { silent: true });
const OFFLINE = new ApiError(0, { title: 'network', detail: 'Failed to fetch' }, { silent: true });
const GONE = new ApiError(410, { title: 'export-gone', detail: EXPORT_GONE.replaced }, { silent: true });
const BLOCKED = new DownloadBlockedError('The browser refused the download.');

type ModelEvent = ExportEvent
  | { type: 'xstate.done.actor.startExport'; output: ExportView }
  | { type: 'xstate.error.actor.startExport'; error: unknown }
  | { type: 'xstate.done.actor.fetchStatus'; output: ExportView }
  | { type: 'xstate.error.actor.fetchStatus'; error: unknown }
  | { type: 'xstate.done.actor.downloadFile'; output: undefined }
  | { type: 'xstate.error.actor.downloadFile'; error: unknown }
  | { type: 'xstate.after.pollInterval.export.inProgress.waiting' };

const START: ModelEvent = { type: 'export.start' };
const POLL: ModelEvent = { type: 'xstate.after.pollInterval.export.inProgress.waiting' };
const STARTED_ANSWER: ModelEvent = { type: 'xstate.done.actor.startExport', output: STARTED };
const STATUS = (output: ExportView): ModelEvent => ({ type: 'xstate.done.actor.fetchStatus', output });
const DOWNLOAD: ModelEvent = { type: 'export.download' };

const EVENTS: ModelEvent[] = [
  START, { type: 'export.download' }, { type: 'export.dismiss' },
  STARTED_ANSWER, { type: 'xstate.error.actor.startExport', error: REFUSED },
  POLL, STATUS(HALF), STATUS(COMPLETE), STATUS(FAILED), { type: 'xstate.error.actor.fetchStatus', error: OFFLINE },
  { type: 'xstate.done.actor.downloadFile', output: undefined },
  { type: 'xstate.error.actor.downloadFile', error: BLOCKED }, { type: 'xstate.error.actor.downloadFile', error: GONE },
];

type Snap = SnapshotFrom<typeof exportMachine>;
const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.current?.status ?? null, s.context.current?.percent ?? null, s.context.failure?.message ?? null]);
const serializeEvent = (e: ModelEvent) => JSON.stringify(e, (_k, v) => (v instanceof Error ? `${v.name}:${(v as ApiError).status ?? ''}` : v));

const model = testModel<typeof exportMachine, ModelEvent>(exportMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: serializeEvent as never,
});

/** lets fake time pass; answers settle inside act */
const pass = (ms: number) => act(async () => { await vi.advanceTimersByTimeAsync(ms); });
const settle = () => pass(0);

interface Rendered {
  start: FakeCall<unknown, ExportView>;
  status: FakeCall<{ id: string }, ExportView>;
  download: FakeCall<ExportView, void>;
}

const area = () => within(screen.getByTestId('export'));
const statusArea = () => screen.getByRole('status', { name: 'Export status' });
const exportButton = () => area().getByRole('button', { name: /^(Export to CSV|Export again)$/ });
const rawBox = () => area().getByRole('checkbox', { name: /^Include the source values/ });

/** everything the button and its status area show in this state of the machine */
function expectScreen(r: Rendered, s: Snap) {
  const { current, failure } = s.context;
  const working = s.matches('started') || s.matches('inProgress');
  const done = s.matches('complete') || s.matches('downloading') || s.matches('blocked');
  // the button
  expect(exportButton().textContent).toBe(done || s.matches('error') ? 'Export again' : 'Export to CSV');
  expect(exportButton().getAttribute('data-loading') === 'true', 'export button busy').toBe(working);
  // the choice of source values: off unless checked, fixed while an export is written or downloaded
  const raw = rawBox();
  expect((raw as HTMLInputElement).checked, 'source values unchecked').toBe(false);
  expect((raw as HTMLInputElement).disabled, 'source values fixed').toBe(working || s.matches('downloading'));

  // the calls in flight
  expect(r.start.waiting, 'the start call waits').toBe(s.matches('started'));
  if (s.matches('started')) expect(r.start.next).toEqual({ formulaId: FORMULA, selection: SELECTION, includeRaw: false });
  expect(r.status.waiting, 'a status call waits').toBe(s.matches({ inProgress: 'checking' }));
  if (s.matches({ inProgress: 'checking' })) expect(r.status.next).toEqual({ id: 'e1' });
  expect(r.download.waiting, 'the download waits').toBe(s.matches('downloading'));

  // the status area: started, count and percent, complete with its download
  const status = statusArea().textContent ?? '';
  if (s.matches('started')) expect(status).toBe('Starting the export…');
  else if (s.matches('inProgress') && current?.total === null) expect(status).toBe('Export started: it will be written in a moment…');
  else if (s.matches('inProgress')) {
    expect(status).toBe('Exporting: 600 of 1,200 records (50%)');
    expect(within(statusArea()).getByRole('progressbar', { name: 'Export progress' }).getAttribute('aria-valuenow')).toBe('50');
  } else if (done) {
    expect(status).toContain(`Export complete: 1,200 records. The file can be downloaded for 24 hours, until ${availableUntil(COMPLETE.expiresAt!)}. A new export replaces it.`);
    const download = within(statusArea()).getByRole('button', { name: 'Download CSV' });
    expect(download.getAttribute('data-loading') === 'true', 'download busy').toBe(s.matches('downloading'));
  } else {
    expect(status).toBe('');
  }

  // why it failed, in the catalogue's words; a blocked download says so
  const alert = screen.queryByRole('alert');
  if (s.matches('blocked')) {
    expect(alert?.textContent).toContain(MESSAGES.csvBlocked);
  } else if (s.matches('error')) {
    const expected = failure!.message === 'The export failed.' ? ['The export failed.', FAILED.error!]
      : failure!.message === PROBLEM_TITLES['export-gone'] ? [PROBLEM_TITLES['export-gone'], EXPORT_GONE.replaced]
        : failure!.message === MESSAGES.server ? [MESSAGES.server, 'could not be reached']
          : [MESSAGES.notFound, 'No such formula.'];
    for (const words of expected) expect(alert?.textContent).toContain(words);
  } else {
    expect(alert).toBeNull();
  }
}

const click = async (element: HTMLElement) => {
  await act(async () => { fireEvent.click(element); });
  await settle();
};

const view: ModelView<typeof exportMachine, Rendered> = {
  async render(machine) {
    const r: Rendered = {
      start: fakeCall<unknown, ExportView>('startExport'),
      status: fakeCall<{ id: string }, ExportView>('fetchStatus'),
      download: fakeCall<ExportView, void>('downloadFile'),
    };
    const logic = machine.provide({ actors: { startExport: r.start.logic, fetchStatus: r.status.logic, downloadFile: r.download.logic } as never });
    render(<MantineProvider><ExportButton formulaId={FORMULA} selection={SELECTION} logic={logic} /></MantineProvider>);
    await settle();
    return r;
  },
  params: (r) => {
    const answer = (fake: Pick<FakeCall<never, unknown>, 'waiting' | 'settle'>) => async ({ event }: { event: { type: string } }) => {
      expect(fake.waiting, `${event.type}: a call to answer`).toBe(true);
      await act(async () => fake.settle(event));
      await settle();
    };
    return {
      states: Object.fromEntries(['idle', 'started', 'inProgress', 'complete', 'downloading', 'blocked', 'error']
        .map((key) => [key, (s: Snap) => expectScreen(r, s)])),
      events: {
        'export.start': () => click(exportButton()),
        'export.download': () => click(within(statusArea()).getByRole('button', { name: 'Download CSV' })),
        'export.dismiss': () => click(screen.queryByRole('button', { name: 'Close message' }) ?? within(statusArea()).getByRole('button', { name: 'Close' })),
        'xstate.done.actor.startExport': answer(r.start),
        'xstate.error.actor.startExport': answer(r.start),
        'xstate.done.actor.fetchStatus': answer(r.status),
        'xstate.error.actor.fetchStatus': answer(r.status),
        'xstate.done.actor.downloadFile': answer(r.download),
        'xstate.error.actor.downloadFile': answer(r.download),
        [POLL.type]: async () => {
          // a millisecond short of a second nothing is asked; then the status call goes out
          await pass(EXPORT_POLL_INTERVAL_MS - 1);
          expect(r.status.waiting).toBe(false);
          await pass(1);
          expect(r.status.waiting).toBe(true);
        },
      },
    };
  },
};

const eventName = (e: ModelEvent): string => {
  if (e.type === 'xstate.done.actor.startExport') return 'started';
  if (e.type === 'xstate.error.actor.startExport') return 'start refused';
  if (e.type === 'xstate.done.actor.fetchStatus') return `status ${e.output.status} ${e.output.percent}%`;
  if (e.type === 'xstate.error.actor.fetchStatus') return 'status unreachable';
  if (e.type === 'xstate.done.actor.downloadFile') return 'saved';
  if (e.type === 'xstate.error.actor.downloadFile') return e.error instanceof DownloadBlockedError ? 'download blocked' : 'download gone';
  if (e.type === POLL.type) return 'a second passes';
  return e.type;
};
const pathName = (p: ModelPath<Snap>) => p.steps.slice(1).map((s) => eventName(s.event as ModelEvent)).join(' → ') || 'opening';
const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];

describe('export machine: shortest paths on the export button', () => {
  it('reaches started, in progress with a percent, complete, downloading, blocked and every failure', () => {
    const reached = [...reachedStates(shortest, serializeState)];
    for (const part of ['"started"', '{"inProgress":"waiting"}', '{"inProgress":"checking"}', '"complete"', '"downloading"', '"blocked"']) {
      expect(reached.some((s) => s.includes(part)), part).toBe(true);
    }
    expect(reached.some((s) => s.includes('"inProgress"') && s.includes(',50,')), 'a percent').toBe(true);
    for (const message of ['The export failed.', PROBLEM_TITLES['export-gone'], MESSAGES.server, MESSAGES.notFound, MESSAGES.csvBlocked]) {
      expect(reached.some((s) => s.includes(JSON.stringify(message))), message).toBe(true);
    }
  });
  it.each(named(shortest, pathName))('%s', async (_name, path) => runPath(path, exportMachine, view));
});

describe('export machine: journeys with controlled time', () => {
  const journeys: [string, ModelEvent[]][] = [
    ['started, polled every second through half way to complete, downloaded', [START, STARTED_ANSWER, POLL, STATUS(HALF), POLL, STATUS(HALF), POLL, STATUS(COMPLETE), DOWNLOAD, { type: 'xstate.done.actor.downloadFile', output: undefined }]],
    ['a blocked download, tried again and saved', [START, STARTED_ANSWER, POLL, STATUS(COMPLETE), DOWNLOAD, { type: 'xstate.error.actor.downloadFile', error: BLOCKED }, DOWNLOAD, { type: 'xstate.done.actor.downloadFile', output: undefined }]],
    ['a failed export, started again', [START, STARTED_ANSWER, POLL, STATUS(FAILED), START, STARTED_ANSWER, POLL, STATUS(COMPLETE)]],
    ['a refusal closed, then a finished export closed', [START, { type: 'xstate.error.actor.startExport', error: REFUSED }, { type: 'export.dismiss' }, START, STARTED_ANSWER, POLL, STATUS(COMPLETE), { type: 'export.dismiss' }]],
    ['a download gone after 24 hours: exported again', [START, STARTED_ANSWER, POLL, STATUS(COMPLETE), DOWNLOAD, { type: 'xstate.error.actor.downloadFile', error: GONE }, START, STARTED_ANSWER]],
  ];
  it.each(journeys)('%s', async (_name, events) => {
    const [path] = model.getPathsFromEvents(events as never);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path as unknown as ModelPath<Snap>, exportMachine, view);
  });
});

describe('export machine: what is exported', () => {
  it('exports the screen\'s selection as it is when Export is pressed', async () => {
    const start = fakeCall<unknown, ExportView>('startExport');
    const logic = exportMachine.provide({ actors: { startExport: start.logic } as never });
    const filtered: RecordSelection = { kind: 'scope', scope: { view: 'ready-records', filter: { text: 'Lovelace' } } };
    const { rerender } = render(<MantineProvider><ExportButton formulaId={FORMULA} selection={SELECTION} logic={logic} /></MantineProvider>);
    rerender(<MantineProvider><ExportButton formulaId={FORMULA} selection={filtered} includeRaw logic={logic} /></MantineProvider>);
    await click(exportButton());
    expect(start.next).toEqual({ formulaId: FORMULA, selection: filtered, includeRaw: true });
  });

  it('adds the source values when the user checks "Include the source values", and leaves them out again when unchecked', async () => {
    const start = fakeCall<unknown, ExportView>('startExport');
    const logic = exportMachine.provide({ actors: { startExport: start.logic } as never });
    render(<MantineProvider><ExportButton formulaId={FORMULA} selection={SELECTION} logic={logic} /></MantineProvider>);
    expect(screen.getByText('Each column of the source as it came in, headed \'Source: <column>\'')).toBeTruthy();
    await click(rawBox());
    expect((rawBox() as HTMLInputElement).checked).toBe(true);
    await click(exportButton());
    expect(start.next).toEqual({ formulaId: FORMULA, selection: SELECTION, includeRaw: true });
    await act(async () => start.settle({ type: 'xstate.error.actor.startExport', error: REFUSED }));
    await settle();
    await click(screen.getByRole('button', { name: 'Close message' }));
    await click(rawBox());
    await click(exportButton());
    expect(start.next).toEqual({ formulaId: FORMULA, selection: SELECTION, includeRaw: false });
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose completion guard is broken on purpose: a finished export keeps polling', async () => {
    const paths = shortest.filter((p) => p.steps.some((s) => s.event.type === 'xstate.done.actor.fetchStatus' && (s.event as unknown as { output: ExportView }).output.status === 'complete'));
    expect(paths.length).toBeGreaterThan(0);
    await expectBrokenGuardToFail(exportMachine, 'isComplete', { paths, view, every: true });
  });
  it('finds a machine whose blocked-download guard is broken on purpose: the blocked download is not named', async () => {
    const paths = shortest.filter((p) => p.steps.some((s) => s.state.matches('blocked')));
    expect(paths.length).toBeGreaterThan(0);
    await expectBrokenGuardToFail(exportMachine, 'isDownloadBlocked', { paths, view, every: true });
  });
});
