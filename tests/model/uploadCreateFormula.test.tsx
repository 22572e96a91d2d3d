/**
 * Model-based tests of 'Create a formula from this file' on the upload screen (the upload machine's
 * creatingFormula, formulaCreated and formulaNotCreated states, DESIGN.md section 3).
 *
 * Paths come from the machine's graph with the upload screen's input for a role that may create
 * formulas; each event is a user action on the rendered UploadPage (choose a file, Create a formula
 * from this file, Upload another file's picker) or an answer of a fake server (the upload's summary,
 * the new draft, a refusal); each state is an assertion on what the screen shows. The same graph
 * without that input (a role that may not, or a formula's own upload dialog) never offers it.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type SnapshotFrom } from 'xstate';
import type { FormulaView } from '../../src/domain/api/formulas.ts';
import { messageForProblem, type Problem } from '../../src/domain/errors.ts';
import { UPLOAD_MESSAGES, type UploadSummary } from '../../src/domain/upload.ts';
import { createFormulaFrom, createSendFile, uploadMachine, type UploadMachineEvent } from '../../src/machines/upload.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { FileUploadOptions } from '../../src/services/flatFile.ts';
import { UploadPage } from '../../src/views/upload/UploadPage.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const CREATE = 'Create a formula from this file';

// ------------------------------------------------------------------ the fake server

function fakeServerFor() {
  const upload = fakeCall<{ file: File; opts: FileUploadOptions }, UploadSummary>('upload');
  const fromUpload = fakeCall<string, FormulaView>('fromUpload');
  return {
    upload: (file: File, opts: FileUploadOptions = {}) => upload.call({ file, opts }, opts.signal),
    fromUpload: (uploadId: string) => fromUpload.call(uploadId),
    /** the uploads each draft was asked from */
    get asked() { return fromUpload.calls; },
    get creating() { return fromUpload.waiting; },
    succeed(summary: UploadSummary) { upload.resolve(summary); },
    created(formula: FormulaView) { fromUpload.resolve(formula); },
    refuse(status: number, problem: Partial<Problem>) { fromUpload.reject(new ApiError(status, problem, { silent: true })); },
  };
}
type Server = ReturnType<typeof fakeServerFor>;

// ------------------------------------------------------------------ the model's events

const FILE = () => new File(['Name,Email\r\nAnn,ann@example.org\r\n'], 'spring donors.csv', { type: 'text/csv' });
const SUMMARY: UploadSummary = {
  id: '0a0a0a0a-0000-4000-8000-00000000000a', fileName: 'spring donors.csv', size: 34, detectedType: 'csv', scanStatus: 'clean', rowCount: 1,
  headers: ['Name', 'Email'], sampleRows: [['Ann', 'ann@example.org']], createdOn: '2026-11-28T04:00:00.000Z', formulaId: null,
};
const DRAFT: FormulaView = {
  id: 'f1f1f1f1-0000-4000-8000-000000000001', name: 'spring donors', isDraft: true, usesFileUpload: true,
  sourceDataSource: { dataSourceId: 'd0d0d0d0-0000-4000-8000-000000000001', system: 'file-upload', displayName: 'File upload', object: SUMMARY.id, settings: {}, hasAdditionalSettings: false },
  firstDestinationDataSource: null, sampleUploadId: SUMMARY.id,
  status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-28T04:00:01.000Z', modifiedOn: '2026-11-28T04:00:01.000Z',
} as unknown as FormulaView;
const REFUSALS: { status: number; problem: Partial<Problem> }[] = [
  { status: 403, problem: { title: 'forbidden', detail: 'You need formula create permission.' } },
  { status: 0, problem: { title: 'network', detail: 'The server could not be reached.' } },
];

const EVENTS: UploadMachineEvent[] = [
  { type: 'file.select', file: FILE() },
  { type: 'upload.succeeded', summary: SUMMARY },
  { type: 'formula.create' },
  { type: 'formula.created', formula: DRAFT },
  ...REFUSALS.map(({ status, problem }) => ({ type: 'formula.failed', status, problem }) as UploadMachineEvent),
];

const serializeState = (s: SnapshotFrom<typeof uploadMachine>) => JSON.stringify([s.value, s.context.problem?.title ?? '', s.context.mayCreateFormula]);
const serializeEvent = (e: UploadMachineEvent) => JSON.stringify(e, (_k, v) => (v instanceof File ? v.name : v));

// ------------------------------------------------------------------ the screen

interface Rendered { server: Server; user: ReturnType<typeof userEvent.setup>; opened: ReturnType<typeof vi.fn> }

function renderPage(machine: typeof uploadMachine, mayCreate: boolean): Rendered {
  const server = fakeServerFor();
  const provided = machine.provide({ actors: { sendFile: createSendFile(server.upload), createFormula: createFormulaFrom(server.fromUpload) } });
  const user = userEvent.setup({ applyAccept: false, delay: null });
  const opened = vi.fn();
  render(<MantineProvider><UploadPage machine={provided} {...(mayCreate ? { onFormulaCreated: opened } : {})} /></MantineProvider>);
  return { server, user, opened };
}
const dropzoneInput = () => document.querySelector<HTMLInputElement>('[data-testid="upload-dropzone"] input[type="file"]')!;
const createButton = () => screen.queryByRole('button', { name: CREATE });

/** the uploaded file's summary, which stays while a formula is made from it */
function expectSummary() {
  const uploaded = screen.getAllByRole('alert').find((a) => a.getAttribute('data-outcome') === 'success');
  expect(uploaded && within(uploaded).getByText(UPLOAD_MESSAGES.success)).toBeTruthy();
  expect(within(screen.getByRole('table', { name: 'Sample rows' })).getByRole('columnheader', { name: 'Email' })).toBeTruthy();
}

const view: ModelView<typeof uploadMachine, Rendered> = {
  render: (machine, path) => renderPage(machine, path.state.context.mayCreateFormula),
  params: ({ server, user, opened }) => ({
    states: {
      idle: async () => {
        expect(screen.getByRole('button', { name: 'Choose a file' })).toBeTruthy();
        expect(createButton()).toBeNull();
      },
      uploading: async () => {
        expect(await screen.findByRole('progressbar')).toBeTruthy();
        expect(createButton()).toBeNull();
      },
      success: async (s: SnapshotFrom<typeof uploadMachine>) => {
        await waitFor(expectSummary);
        // offered only on the upload screen of a role that may create formulas
        expect(createButton() !== null).toBe(s.context.mayCreateFormula);
        expect(screen.queryByTestId('formula-not-created')).toBeNull();
        expect(opened).not.toHaveBeenCalled();
      },
      creatingFormula: async () => {
        expectSummary();
        // the draft is asked for from this upload, and the button waits for it
        await waitFor(() => expect(server.creating).toBe(true));
        expect(server.asked.at(-1)).toBe(SUMMARY.id);
        expect(createButton()!.getAttribute('data-loading')).toBe('true');
        expect(screen.queryByTestId('formula-not-created')).toBeNull();
        expect(opened).not.toHaveBeenCalled();
      },
      formulaCreated: async () => {
        // the screen is told of the draft, once, to open it in the wizard
        await waitFor(() => expect(opened).toHaveBeenCalledTimes(1));
        expect(opened).toHaveBeenCalledWith(DRAFT);
        expect(screen.queryByTestId('formula-not-created')).toBeNull();
      },
      formulaNotCreated: async (s: SnapshotFrom<typeof uploadMachine>) => {
        const alert = await screen.findByTestId('formula-not-created');
        expect(within(alert).getByText('The formula was not created')).toBeTruthy();
        expect(within(alert).getByText(messageForProblem(s.context.problem ?? undefined))).toBeTruthy();
        expect(within(alert).getByText(s.context.problem!.detail!)).toBeTruthy();
        expectSummary();
        // it can be asked again
        expect(createButton()!.getAttribute('data-loading')).toBeNull();
        expect(opened).not.toHaveBeenCalled();
      },
    },
    events: {
      'file.select': async ({ event }: { event: { type: string } }) => { await user.upload(dropzoneInput(), (event as unknown as { file: File }).file); },
      'upload.succeeded': async () => { await waitFor(() => expect(screen.queryByRole('progressbar')).toBeTruthy()); await act(async () => server.succeed(SUMMARY)); },
      'formula.create': async () => { await user.click(createButton()!); },
      'formula.created': async () => { await act(async () => server.created(DRAFT)); },
      'formula.failed': async ({ event }: { event: { type: string } }) => {
        const e = event as unknown as { status: number; problem: Partial<Problem> };
        await act(async () => server.refuse(e.status, e.problem));
      },
    },
  }),
};

// ------------------------------------------------------------------ the paths

const model = testModel(uploadMachine, { events: EVENTS, serializeState, serializeEvent, input: { mayCreateFormula: true } });
const paths = model.getShortestPaths();
const notOffered = testModel(uploadMachine, { events: EVENTS, serializeState, serializeEvent }).getShortestPaths();

describe('Create a formula from this file: shortest paths on the real upload screen', () => {
  it('reaches each new state, and a refusal of each kind', () => {
    const reached = reachedStates(paths, serializeState);
    for (const state of ['creatingFormula', 'formulaCreated']) expect(reached.has(JSON.stringify([state, '', true])), state).toBe(true);
    for (const { problem } of REFUSALS) expect(reached.has(JSON.stringify(['formulaNotCreated', problem.title, true])), problem.title).toBe(true);
  });

  it.each(named(paths))('%s', async (_d, path) => runPath(path, uploadMachine, view));
});

describe('where it is not offered', () => {
  it('a role that may not create formulas, or a formula\'s own upload dialog, never reaches it', () => {
    expect(notOffered.some((p) => p.state.matches('success'))).toBe(true);
    expect(notOffered.some((p) => p.state.matches('creatingFormula'))).toBe(false);
  });

  it.each(named(notOffered))('%s', async (_d, path) => runPath(path, uploadMachine, view));

  it('a file sent to a formula offers no formula from it', async () => {
    const server = fakeServerFor();
    const provided = uploadMachine.provide({ actors: { sendFile: createSendFile(server.upload), createFormula: createFormulaFrom(server.fromUpload) } });
    const user = userEvent.setup({ applyAccept: false, delay: null });
    render(<MantineProvider><UploadPage machine={provided} formula={{ id: 'f0f0f0f0-0000-4000-8000-000000000001', name: 'Walk-in donations' }} onFormulaCreated={() => {}} /></MantineProvider>);
    await user.upload(dropzoneInput(), FILE());
    await act(async () => server.succeed({ ...SUMMARY, formulaId: 'f0f0f0f0-0000-4000-8000-000000000001' }));
    await waitFor(expectSummary);
    expect(createButton()).toBeNull();
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose mayCreateFormula guard never holds', async () => {
    await expectBrokenGuardToFail(uploadMachine, 'mayCreateFormula', { paths: paths.filter((p) => p.steps.some((s) => s.state.matches('creatingFormula'))), view, every: true });
  });
});
