/**
 * Model-based tests of the upload machine (DESIGN.md section 3) on the real upload screen.
 *
 * Paths come from the machine's own graph (@xstate/graph): every state, and every outcome both
 * from the browser's own checks and from the server's answer. Each event is a user action on the
 * rendered UploadPage (choose a file in the dropzone, Try again, Cancel) or an answer of the fake
 * server (progress, success, a refusal); each state is an assertion on what the screen shows.
 * The only fake is the server: the machine's real sendFile actor runs over `fakeServer.upload`.
 * The same paths also run with a file-upload formula's id as the machine's input (the upload
 * dialog of a formula's card): each file reaches the service with that id, and a file the formula
 * has taken before is asked about (when, by whom) and sent again only on a yes.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { messageForProblem, type Problem } from '../../src/domain/errors.ts';
import {
  MAX_UPLOAD_BYTES, NOT_SCANNED_MESSAGE, UPLOAD_MESSAGES, UPLOAD_OUTCOMES, uploadAgainQuestion, type EarlierUpload, type UploadOutcome, type UploadSummary,
} from '../../src/domain/upload.ts';
import { createSendFile, uploadMachine, type UploadMachineEvent } from '../../src/machines/upload.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { FileUploadOptions } from '../../src/services/flatFile.ts';
import { UploadPage } from '../../src/views/upload/UploadPage.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

// ------------------------------------------------------------------ the fake server

/** A server the test answers by hand: each upload waits until the path's next event answers it; cancelling aborts it. */
function fakeServerFor() {
  const upload = fakeCall<{ file: File; opts: FileUploadOptions }, UploadSummary>('upload');
  return {
    get calls() { return upload.calls.map((c) => c.file.name); },
    /** the formula each upload was sent to, or null */
    get formulaIds() { return upload.calls.map((c) => c.opts.formulaId ?? null); },
    /** whether each upload said to take a file the formula took before */
    get agains() { return upload.calls.map((c) => c.opts.again === true); },
    upload: (file: File, opts: FileUploadOptions = {}) => upload.call({ file, opts }, opts.signal),
    progress(loaded: number, total: number) { upload.next!.opts.onProgress?.({ loaded, total }); },
    succeed(summary: UploadSummary) { upload.resolve(summary); },
    refuse(status: number, problem: Partial<Problem>) { upload.reject(new ApiError(status, problem, { silent: true })); },
    get waiting() { return upload.waiting; },
  };
}

// ------------------------------------------------------------------ the model's events

const file = (name: string, size: number, content = 'Name,Email\r\nAnn,ann@example.org\r\n') => {
  const f = new File([content], name, { type: name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream' });
  Object.defineProperty(f, 'size', { value: size });
  return f;
};
const FILES = {
  good: () => file('supporters.csv', 34),
  longName: () => file(`${'n'.repeat(146)}.csv`, 34),
  image: () => file('photo.png', 34),
  tooBig: () => file('huge.csv', MAX_UPLOAD_BYTES + 1),
  empty: () => file('nothing.csv', 0, ''),
};
type FileKey = keyof typeof FILES;
const SELECTIONS = (Object.keys(FILES) as FileKey[]).map((key) => ({ type: 'file.select', file: Object.assign(FILES[key](), { key }) }) as UploadMachineEvent);

const SUMMARY = (scanStatus: UploadSummary['scanStatus']): UploadSummary => ({
  id: `u-${scanStatus}`, fileName: 'supporters.csv', size: 34, detectedType: 'csv', scanStatus, rowCount: 1,
  headers: ['Name', 'Email'], sampleRows: [['Ann', 'ann@example.org']], createdOn: '2026-11-22T10:00:00.000Z',
});

/** the upload of the same file the server names */
const EARLIER: EarlierUpload = { id: 'u-earlier', fileName: 'supporters.csv', uploadedOn: '2026-11-27T14:02:00.000Z', uploadedBy: 'Ada Lovelace' };

/** What the server may answer: each refusal of the flat file service, a dead network, and a permission error. */
const REFUSALS: { status: number; problem: Partial<Problem> }[] = [
  { status: 415, problem: { title: 'file-type-not-accepted', detail: 'The file is a PNG image, not a CSV or Excel file.' } },
  { status: 413, problem: { title: 'file-too-large', detail: 'A file can be at most 15728640 bytes (15MB).' } },
  { status: 422, problem: { title: 'file-name-too-long', detail: 'The file name has 151 characters; it must be under 150.' } },
  { status: 422, problem: { title: 'file-empty', detail: 'The file has a header row but no rows of data.' } },
  { status: 422, problem: { title: 'file-wrong-structure', detail: 'Columns 1 and 3 have the same header.' } },
  { status: 422, problem: { title: 'virus-found', detail: 'The virus scanner found Tributary.Test.EICAR.UNOFFICIAL FOUND.' } },
  { status: 503, problem: { title: 'virus-scanner-unavailable', detail: 'The virus scanner is unavailable.' } },
  { status: 0, problem: { title: 'network', detail: 'The server could not be reached.' } },
  { status: 403, problem: { title: 'forbidden', detail: 'You need formula create permission.' } },
  // the formula took this file before (only a formula's upload can be answered so)
  { status: 409, problem: { title: 'upload-already-taken', detail: 'This file was uploaded to this formula on 2026-11-27 14:02 UTC by Ada Lovelace.', ...{ previous: EARLIER } } },
];

const EVENTS: UploadMachineEvent[] = [
  ...SELECTIONS,
  { type: 'upload.progress', loaded: 17, total: 34 },
  { type: 'upload.succeeded', summary: SUMMARY('clean') },
  { type: 'upload.succeeded', summary: SUMMARY('not-scanned') },
  ...REFUSALS.map(({ status, problem }) => ({ type: 'upload.failed', status, problem }) as UploadMachineEvent),
  { type: 'upload.retry' },
  { type: 'upload.cancel' },
  { type: 'upload.again' },
  { type: 'upload.decline' },
];

/**
 * A state is its value, whether a refusal came from the server or the browser's own checks, and
 * whether progress has been reported, so each outcome is reached both ways.
 */
const serializeState = (s: SnapshotFrom<typeof uploadMachine>) => JSON.stringify([
  s.value,
  s.context.problem ? 'server' : 'browser',
  s.matches('uploading') && (s.context.progress?.loaded ?? 0) > 0 ? 'progress' : '',
  s.matches('success') ? s.context.summary?.scanStatus : '',
  ...(s.context.again ? ['again'] : []),
]);

// ------------------------------------------------------------------ the screen

type Server = ReturnType<typeof fakeServerFor>;

/** the live file-upload formula of the paths that upload to one */
const FORMULA = { id: 'f0f0f0f0-0000-4000-8000-000000000001', name: 'Walk-in donations' };

function renderPage(machine: typeof uploadMachine, server: Server, formula?: typeof FORMULA) {
  const provided = machine.provide({ actors: { sendFile: createSendFile(server.upload) } });
  const user = userEvent.setup({ applyAccept: false, delay: null });
  render(<MantineProvider><UploadPage machine={provided} {...(formula ? { formula } : {})} /></MantineProvider>);
  return user;
}

const RUN_QUEUED = `Its rows will be processed by ${FORMULA.name}: the run is queued, and the formula's status shows it running.`;

const dropzoneInput = () => document.querySelector<HTMLInputElement>('[data-testid="upload-dropzone"] input[type="file"]')!;

async function expectOutcome(outcome: UploadOutcome | 'failed', title: string) {
  const alert = await screen.findByRole('alert');
  // one alert at a time: the outcome's
  expect(alert.getAttribute('data-outcome')).toBe(outcome);
  expect(within(alert).getByText(title)).toBeTruthy();
}

/** The data an event of the model carries. */
const data = <T,>(event: unknown) => event as T;

function pathParams(server: Server, user: ReturnType<typeof userEvent.setup>) {
  const outcomeStates = Object.fromEntries(UPLOAD_OUTCOMES.filter((o) => o !== 'success').map((o) => [o, async () => {
    await expectOutcome(o, UPLOAD_MESSAGES[o]);
    expect(screen.getByRole('button', { name: 'Choose another file' })).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Try again' }) !== null).toBe(o === 'unreachable-server');
  }]));
  return {
    states: {
      idle: async () => {
        expect(screen.queryByRole('alert')).toBeNull();
        expect(screen.queryByRole('progressbar')).toBeNull();
        expect(screen.getByRole('button', { name: 'Choose a file' })).toBeTruthy();
      },
      uploading: async (s: SnapshotFrom<typeof uploadMachine>) => {
        const bar = await screen.findByRole('progressbar');
        const percent = Math.round(((s.context.progress?.loaded ?? 0) / (s.context.progress?.total || 1)) * 100);
        await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe(String(percent)));
        expect(screen.getByText(`Uploading ${s.context.file!.name}: ${percent}%`)).toBeTruthy();
        expect(screen.queryByRole('alert')).toBeNull();
        // the file is on its way to the formula the machine was given, or to none
        await waitFor(() => expect(server.formulaIds.at(-1)).toBe(s.context.formulaId));
        // and says to take it again only when the user said yes
        expect(server.agains.at(-1)).toBe(s.context.again);
        expect(screen.queryByRole('alertdialog')).toBeNull();
      },
      alreadyUploaded: async () => {
        // the question names when and by whom (in the reader's time zone), and says what taking it again does
        const question = await screen.findByRole('alertdialog', { name: uploadAgainQuestion(EARLIER) });
        expect(uploadAgainQuestion(EARLIER, 'UTC')).toBe('This file was uploaded on 27 Nov 2026 at 14:02 by Ada Lovelace; upload again?');
        expect(question.textContent).toContain(`${FORMULA.name} has taken the rows of supporters.csv already. Uploading it again adds every row as a record once more`);
        expect(within(question).getByRole('button', { name: 'Upload again' })).toBeTruthy();
        expect(within(question).getByRole('button', { name: 'Do not upload' })).toBeTruthy();
        expect(screen.queryByRole('alert')).toBeNull();
        expect(screen.queryByRole('progressbar')).toBeNull();
      },
      success: async (s: SnapshotFrom<typeof uploadMachine>) => {
        await expectOutcome('success', UPLOAD_MESSAGES.success);
        const table = screen.getByRole('table', { name: 'Sample rows' });
        expect(within(table).getByRole('columnheader', { name: 'Email' })).toBeTruthy();
        expect(within(table).getByRole('cell', { name: 'ann@example.org' })).toBeTruthy();
        // never "clean" when nothing scanned it
        const notScanned = screen.queryByRole('status');
        expect(notScanned?.textContent ?? null).toBe(s.context.summary!.scanStatus === 'not-scanned' ? NOT_SCANNED_MESSAGE : null);
        expect(screen.queryByText(RUN_QUEUED) !== null).toBe(s.context.formulaId === FORMULA.id);
      },
      failed: async (s: SnapshotFrom<typeof uploadMachine>) => {
        await expectOutcome('failed', messageForProblem(s.context.problem ?? undefined));
        expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
      },
      ...outcomeStates,
    },
    events: {
      'file.select': async ({ event }: { event: { type: string } }) => {
        const chosen = (data<{ file: File }>(event)).file;
        await user.upload(dropzoneInput(), chosen);
      },
      'upload.progress': async ({ event }: { event: { type: string } }) => {
        const e = data<{ loaded: number; total: number }>(event);
        await act(async () => server.progress(e.loaded, e.total));
      },
      'upload.succeeded': async ({ event }: { event: { type: string } }) => {
        await act(async () => server.succeed((data<{ summary: UploadSummary }>(event)).summary));
      },
      'upload.failed': async ({ event }: { event: { type: string } }) => {
        const e = data<{ status: number; problem: Partial<Problem> }>(event);
        await act(async () => server.refuse(e.status, e.problem));
      },
      'upload.retry': async () => { await user.click(screen.getByRole('button', { name: 'Try again' })); },
      'upload.cancel': async () => { await user.click(screen.getByRole('button', { name: 'Cancel' })); },
      'upload.again': async () => { await user.click(screen.getByRole('button', { name: 'Upload again' })); },
      'upload.decline': async () => { await user.click(screen.getByRole('button', { name: 'Do not upload' })); },
    },
  };
}

const serializeEvent = (e: UploadMachineEvent) => JSON.stringify(e, (k, v) => (v instanceof File ? `${v.name}:${v.size}` : v));
/** The test model over the machine's graph. */
const model = testModel(uploadMachine, { events: EVENTS, serializeState, serializeEvent });
/** The same graph with a file-upload formula's id as the machine's input. */
const formulaModel = testModel(uploadMachine, { events: EVENTS, serializeState, serializeEvent, input: { formulaId: FORMULA.id } });

/** the upload screen over the fake server; for the formula model's paths, the screen of the formula's upload dialog */
const view: ModelView<typeof uploadMachine, { server: Server; user: ReturnType<typeof userEvent.setup> }> = {
  render(machine, path) {
    const server = fakeServerFor();
    return { server, user: renderPage(machine, server, path.state.context.formulaId === FORMULA.id ? FORMULA : undefined) };
  },
  params: ({ server, user }) => pathParams(server, user),
};

// ------------------------------------------------------------------ the paths

const paths = model.getShortestPaths();

describe('upload machine: shortest paths on the real upload screen', () => {
  it('reaches every state, and every outcome from both the browser\'s checks and the server', () => {
    const reached = new Set(paths.map((p) => serializeState(p.state)));
    for (const o of UPLOAD_OUTCOMES) expect([...reached].some((r) => r.startsWith(`["${o}"`)), o).toBe(true);
    for (const o of ['unsupported-type', 'size-too-big', 'file-name-too-long', 'empty']) {
      expect(reached.has(JSON.stringify([o, 'browser', '', ''])), `${o} from the browser`).toBe(true);
      expect(reached.has(JSON.stringify([o, 'server', '', ''])), `${o} from the server`).toBe(true);
    }
    expect(reached.has(JSON.stringify(['failed', 'server', '', '']))).toBe(true);
  });

  it.each(named(paths))('%s', async (_d, path) => runPath(path, uploadMachine, view));
});

describe('upload machine: retry and cancel paths on the real upload screen', () => {
  const byType = (type: string, title?: string) => EVENTS.find((e) => e.type === type && (!title || (e as { problem?: Partial<Problem> }).problem?.title === title))!;
  const journeys: [string, UploadMachineEvent[]][] = [
    ['a send that does not reach the server is tried again and succeeds', [
      SELECTIONS[0]!, byType('upload.progress'), byType('upload.failed', 'network'), byType('upload.retry'), byType('upload.succeeded'),
    ]],
    ['a send is cancelled, then another file is chosen and refused for a virus', [
      SELECTIONS[0]!, byType('upload.cancel'), SELECTIONS[0]!, byType('upload.failed', 'virus-found'),
    ]],
    ['after one outcome, another file is chosen and refused in the browser', [
      SELECTIONS[0]!, byType('upload.failed', 'file-wrong-structure'), SELECTIONS[3]!,
    ]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, uploadMachine, view);
  });
});

describe('upload machine: a file uploaded to a file-upload formula', () => {
  const formulaPaths = formulaModel.getShortestPaths().filter((p) => (['success', 'unreachable-server', 'failed', 'alreadyUploaded'] as const).some((v) => p.state.matches(v))
    || p.steps.some((step) => step.state.matches('alreadyUploaded')));
  it('starts from the formula\'s id', () => {
    expect(formulaPaths.length).toBeGreaterThanOrEqual(4);
    expect(formulaPaths.every((p) => p.state.context.formulaId === FORMULA.id)).toBe(true);
  });

  it('asks about a file the formula took before, and takes it again only on a yes', () => {
    const reached = reachedStates(formulaPaths, serializeState);
    expect(reached.has(JSON.stringify(['alreadyUploaded', 'browser', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['uploading', 'browser', '', '', 'again']))).toBe(true);
    expect(reached.has(JSON.stringify(['success', 'browser', '', 'clean', 'again']))).toBe(true);
    // the upload screen of no formula is never asked: a refusal of that kind is no question there
    expect(paths.some((p) => p.state.matches('alreadyUploaded'))).toBe(false);
  });

  it.each(named(formulaPaths))('%s', async (_d, path) => runPath(path, uploadMachine, view));

  it.each([
    ['the user says no: nothing is sent again, and the screen waits for a file', 'upload.decline'],
    ['the user says yes: the same file goes to the formula again, saying so, and is taken', 'upload.again'],
  ])('a file the formula took before: %s', async (_d, answer) => {
    const byType = (type: string, title?: string) => EVENTS.find((e) => e.type === type && (!title || (e as { problem?: Partial<Problem> }).problem?.title === title))!;
    const events = [SELECTIONS[0]!, byType('upload.failed', 'upload-already-taken'), byType(answer), ...(answer === 'upload.again' ? [byType('upload.succeeded')] : [])];
    const [path] = formulaModel.getPathsFromEvents(events, { fromState: createActor(uploadMachine, { input: { formulaId: FORMULA.id } }).getSnapshot() });
    expect(path!.steps.length).toBe(events.length + 1);
    expect(path!.state.matches(answer === 'upload.again' ? 'success' : 'idle')).toBe(true);
    await runPath(path!, uploadMachine, view);
  });

  it('sends a retried file to the formula again', async () => {
    const byType = (type: string, title?: string) => EVENTS.find((e) => e.type === type && (!title || (e as { problem?: Partial<Problem> }).problem?.title === title))!;
    // paths from events start at the machine's initial state without the model's input: start them at the formula's
    const [path] = formulaModel.getPathsFromEvents(
      [SELECTIONS[0]!, byType('upload.failed', 'network'), byType('upload.retry'), byType('upload.succeeded')],
      { fromState: createActor(uploadMachine, { input: { formulaId: FORMULA.id } }).getSnapshot() },
    );
    expect(path!.state.context.formulaId).toBe(FORMULA.id);
    await runPath(path!, uploadMachine, view);
  });

  it('sends a file of the upload screen itself to no formula', async () => {
    const server = fakeServerFor();
    const user = renderPage(uploadMachine, server);
    await user.upload(dropzoneInput(), FILES.good());
    await waitFor(() => expect(server.waiting).toBe(true));
    expect(server.formulaIds).toEqual([null]);
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose virus guard is broken on purpose', async () => {
    // the paths of the correct machine, run against the broken one
    const virusPaths = paths.filter((p) => p.state.matches('virus-found'));
    await expectBrokenGuardToFail(uploadMachine, 'isVirusFound', { paths: virusPaths, view, every: true });
  });
});

describe('details the paths do not show', () => {
  it('sends nothing to the server for a file the browser refuses', async () => {
    const server = fakeServerFor();
    const user = renderPage(uploadMachine, server);
    await user.upload(dropzoneInput(), FILES.tooBig());
    await expectOutcome('size-too-big', 'File size cannot exceed 15MB');
    expect(server.calls).toEqual([]);
  });

  it('opens the file dialog from the keyboard on the dropzone', async () => {
    const server = fakeServerFor();
    const user = renderPage(uploadMachine, server);
    const click = vi.spyOn(HTMLInputElement.prototype, 'click');
    screen.getByLabelText('Drop a CSV or Excel file here, or press Enter to choose one').focus();
    await user.keyboard('{Enter}');
    expect(click).toHaveBeenCalled();
    click.mockRestore();
  });

  it('shows the server\'s explanation under the outcome\'s message', async () => {
    const server = fakeServerFor();
    const user = renderPage(uploadMachine, server);
    await user.upload(dropzoneInput(), FILES.good());
    await waitFor(() => expect(server.waiting).toBe(true));
    await act(async () => server.refuse(422, REFUSALS[4]!.problem));
    await expectOutcome('wrong-structure', UPLOAD_MESSAGES['wrong-structure']);
    expect(screen.getByText('Columns 1 and 3 have the same header.')).toBeTruthy();
  });
});
