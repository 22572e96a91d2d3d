/**
 * Model-based tests of the Sandbox CRM import machine on the real Connections screen. Paths come
 * from the machine's graph; each event is a user action (Import constituents, choose a file,
 * Cancel, Try again, Close) or an answer of the fake server (upload progress, the import it
 * started, its status read again: importing, imported, refused, stopped; a refusal); each state
 * is what the dialog shows. The machine's real sendImport and watchImport actors run over the fake.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { messageForProblem } from '../../src/domain/errors.ts';
import { MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';
import { createSendImport, createWatchImport, sandboxImportMachine, type ImportProblem, type SandboxImportEvent } from '../../src/machines/sandboxImport.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { SandboxImportResult, SandboxImportView } from '../../src/services/integrations.ts';
import type { UploadOptions } from '../../src/services/postFile.ts';
import { FAKE_SOURCES, inDetails, renderConnections, selectSource } from '../support/connectionsScreen.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SANDBOX = FAKE_SOURCES.find((s) => s.system === 'sandbox-crm')!;

/** A server the test answers by hand; cancelling aborts the call. */
function fakeServerFor() {
  const send = fakeCall<{ dataSourceId: string; file: File; opts: UploadOptions }, SandboxImportView>('import');
  const read = fakeCall<{ dataSourceId: string; importId: string }, SandboxImportView>('import status');
  return {
    get calls() { return send.calls.map((c) => `${c.dataSourceId}:${c.file.name}`); },
    get reads() { return read.calls.map((c) => `${c.dataSourceId}:${c.importId}`); },
    send: (dataSourceId: string, file: File, opts: UploadOptions) => send.call({ dataSourceId, file, opts }, opts.signal),
    read: (dataSourceId: string, importId: string) => read.call({ dataSourceId, importId }),
    progress(loaded: number, total: number) { send.next!.opts.onProgress?.({ loaded, total }); },
    accept(status: SandboxImportView) { send.resolve(status); },
    /** answers the status read the watch is waiting on */
    async status(status: SandboxImportView) {
      await waitFor(() => expect(read.next).not.toBeNull());
      read.resolve(status);
    },
    // whichever call is waiting: the file's, or a status read
    refuse(status: number, problem: ImportProblem) { (read.next ? read : send).reject(new ApiError(status, problem, { silent: true })); },
  };
}
type Server = ReturnType<typeof fakeServerFor>;

/** A file of a claimed size; its own `key` tells paths apart (a File alone serializes as {}, and @xstate/graph dedupes paths by it). */
const file = (name: string, size: number) => {
  const f = new File(['Last name\r\nStone\r\n'], name, { type: name.endsWith('.csv') ? 'text/csv' : 'image/png' });
  Object.defineProperty(f, 'size', { value: size });
  return Object.assign(f, { key: `${name}:${size}` });
};
const SELECTIONS: SandboxImportEvent[] = [
  { type: 'file.select', file: file('donors.csv', 18) },
  { type: 'file.select', file: file('photo.png', 18) },
  { type: 'file.select', file: file('huge.csv', MAX_UPLOAD_BYTES + 1) },
  { type: 'file.select', file: file('nothing.csv', 0) },
];

const ALL_IN: SandboxImportResult = { imported: 1204, refused: [], refusedCount: 0 };
const SOME_REFUSED: SandboxImportResult = {
  imported: 1200, refusedCount: 4,
  refused: [{ row: 3, reason: 'The last name is missing.' }, { row: 9, reason: 'The e-mail address is not valid.' }, { row: 12, reason: 'The lookup ID is also given in row 2.' }, { row: 40, reason: 'The lookup ID is already used by another constituent.' }],
};
const IMPORT_ID = '0b6c2f8e-6a36-4f4e-9d7e-1c1f1e1a0001';
const importView = (over: Partial<SandboxImportView>): SandboxImportView => ({
  id: IMPORT_ID, dataSourceId: SANDBOX.id, fileName: 'donors.csv', status: 'waiting', total: 50_000, read: 0, imported: 0, refusedCount: 0,
  percent: 0, result: null, problem: null, createdOn: '2026-11-27T14:02:00.000Z', ...over,
});
const WAITING = importView({});
const MIDWAY = importView({ status: 'importing', read: 12_000, imported: 11_990, refusedCount: 10, percent: 24 });
const DONE = (result: SandboxImportResult) => importView({ status: 'imported', read: 50_000, imported: result.imported, refusedCount: result.refusedCount, percent: 100, result });
const REFUSED_LATE = importView({
  status: 'refused', percent: 100, refusedCount: 50_000,
  problem: { title: 'import-rows-refused', code: 'sandbox-crm-full', detail: 'The Sandbox CRM holds 240,000 constituents; the file\'s 50,000 rows would pass its limit of 250,000.', refused: [], refusedCount: 50_000 },
});
const STOPPED = importView({
  status: 'error', read: 20_000, imported: 20_000, percent: 40,
  problem: { title: 'server-error', detail: 'The import stopped before the end of the file. The 20,000 constituents imported before it stopped stay in the Sandbox CRM; import the rest from a file of the rows not yet in it.' },
});
const STATUSES = [MIDWAY, DONE(ALL_IN), DONE(SOME_REFUSED), REFUSED_LATE, STOPPED];

const REFUSALS: { status: number; problem: ImportProblem }[] = [
  { status: 422, problem: { title: 'import-rows-refused', detail: "None of the file's 2 rows could be imported.", refusedCount: 2, refused: [{ row: 2, reason: 'The last name is missing.' }, { row: 3, reason: 'The e-mail address is not valid.' }] } },
  { status: 422, problem: { title: 'file-wrong-structure', detail: 'The file has no last name column: name one "Last name" (or "Surname").' } },
  { status: 0, problem: { title: 'network', detail: 'The server could not be reached.' } },
  { status: 500, problem: { title: 'server-error', detail: 'A server error occured. Please try again later.' } },
];

const EVENTS: SandboxImportEvent[] = [
  { type: 'import.open', dataSourceId: SANDBOX.id, name: SANDBOX.displayName },
  ...SELECTIONS,
  { type: 'import.progress', loaded: 9, total: 18 },
  { type: 'import.accepted', status: WAITING },
  ...STATUSES.map((status) => ({ type: 'import.status', status }) as SandboxImportEvent),
  ...REFUSALS.map(({ status, problem }) => ({ type: 'import.failed', status, problem }) as SandboxImportEvent),
  { type: 'import.retry' },
  { type: 'import.cancel' },
  { type: 'import.close' },
];

type Snapshot = SnapshotFrom<typeof sandboxImportMachine>;
/** a refusal by the browser and by the server are different states, as are results with and without refused rows */
const serializeState = (s: Snapshot) => JSON.stringify([
  s.value,
  // a finer code tells a refusal found by the import apart from one answered to the file
  `${s.context.problem?.title ?? ''}${s.context.problem?.code ? `/${s.context.problem.code}` : ''}`,
  s.matches('sending') && (s.context.progress?.loaded ?? 0) > 0 ? 'progress' : s.matches('importing') ? s.context.status?.status ?? '' : '',
  s.matches('imported') ? s.context.result?.refusedCount ?? 0 : '',
  // a file the server took is not offered again
  s.matches('failed') && s.context.status !== null ? 'taken' : '',
]);

const model = testModel(sandboxImportMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof File ? `${v.name}:${v.size}` : v)),
});

const dialog = () => screen.getByRole('dialog', { name: `Import constituents into ${SANDBOX.displayName}` });
const inDialog = () => within(dialog());
/** the dialog's file input, once it is there (the dialog may still be loading) */
const dropzoneInput = () => waitFor(() => {
  const input = document.querySelector<HTMLInputElement>('[data-testid="sandbox-import-dropzone"] input[type="file"]');
  if (!input) throw new Error('the import dialog has no file input yet');
  return input;
});
const data = <T,>(event: unknown) => event as T;

function pathParams(server: Server, user: Awaited<ReturnType<typeof renderConnections>>) {
  const uploader = userEvent.setup({ applyAccept: false });
  const refusal = async (s: Snapshot, retry: boolean) => {
    const alert = await inDialog().findByRole('alert');
    expect(alert.textContent).toContain(messageForProblem(s.context.problem!));
    expect(alert.textContent).toContain(s.context.problem!.detail);
    expect(alert.textContent).toContain(s.context.file!.name);
    const listed = s.context.problem!.refused ?? [];
    const table = within(alert).queryByRole('table', { name: 'Refused rows' });
    expect(table !== null).toBe(listed.length > 0);
    for (const r of listed) expect(within(table!).getByRole('row', { name: `${r.row} ${r.reason}` })).toBeTruthy();
    expect(inDialog().queryByRole('progressbar')).toBeNull();
    // only what may go better a second time is offered again, and never a file the server took
    expect(inDialog().queryByRole('button', { name: 'Try again' }) !== null).toBe(retry && s.context.status === null);
    if (s.context.status && s.context.status.imported > 0) {
      expect(alert.textContent).toContain(`${s.context.status.imported.toLocaleString()} constituents of ${s.context.status.total.toLocaleString()} rows imported before it stopped.`);
    }
    expect(inDialog().getByRole('button', { name: 'Import another file' })).toBeTruthy();
  };
  return {
    states: {
      closed: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        expect(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Import constituents' })).toBeTruthy();
      },
      choosing: async () => {
        await screen.findByRole('dialog', { name: `Import constituents into ${SANDBOX.displayName}` });
        expect(inDialog().queryByRole('alert')).toBeNull();
        expect(inDialog().queryByRole('progressbar')).toBeNull();
        expect(inDialog().getByRole('button', { name: 'Choose a file' })).toBeTruthy();
      },
      sending: async (s: Snapshot) => {
        const bar = await inDialog().findByRole('progressbar', { name: 'Import progress' });
        const percent = Math.round(((s.context.progress?.loaded ?? 0) / (s.context.progress?.total || 1)) * 100);
        await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe(String(percent)));
        expect(inDialog().getByText(`Sending ${s.context.file!.name}: ${percent}%`)).toBeTruthy();
        expect(inDialog().queryByRole('button', { name: 'Close' })).toBeNull();
        expect(server.calls.at(-1)).toBe(`${SANDBOX.id}:${s.context.file!.name}`);
      },
      importing: async (s: Snapshot) => {
        const status = s.context.status!;
        const bar = await inDialog().findByRole('progressbar', { name: 'Import progress' });
        await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe(String(status.percent)));
        const line = inDialog().getByTestId('sandbox-import-count').textContent;
        if (status.status === 'waiting') {
          expect(line).toBe(`${s.context.file!.name}: waiting for the import before it to finish…`);
        } else {
          expect(line).toBe(`${status.imported.toLocaleString()} constituents imported so far: ${status.read.toLocaleString()} of ${status.total.toLocaleString()} rows read (${status.percent}%)`);
        }
        // the server's work is not cancelled from here; the dialog may be closed while it goes on
        expect(inDialog().queryByRole('button', { name: 'Cancel' })).toBeNull();
        expect(inDialog().getByRole('button', { name: 'Close' })).toBeTruthy();
        expect(server.reads.at(-1)).toBe(`${SANDBOX.id}:${status.id}`);
      },
      imported: async (s: Snapshot) => {
        const result = s.context.result!;
        const status = await inDialog().findByRole('status');
        expect(status.textContent).toContain(`${result.imported.toLocaleString()} constituents imported`);
        const table = within(status).queryByRole('table', { name: 'Refused rows' });
        expect(table !== null).toBe(result.refusedCount > 0);
        for (const r of result.refused) expect(within(table!).getByRole('row', { name: `${r.row} ${r.reason}` })).toBeTruthy();
        expect(inDialog().getByRole('button', { name: 'Import another file' })).toBeTruthy();
      },
      refused: (s: Snapshot) => refusal(s, false),
      failed: (s: Snapshot) => refusal(s, true),
    },
    events: {
      'import.open': async () => { await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Import constituents' })); },
      'import.close': async () => { await user.click(inDialog().getByRole('button', { name: 'Close' })); },
      // every file reaches the machine, whatever the picker's accept says
      'file.select': async ({ event }: { event: { type: string } }) => { await uploader.upload(await dropzoneInput(), data<{ file: File }>(event).file); },
      'import.progress': async ({ event }: { event: { type: string } }) => {
        const e = data<{ loaded: number; total: number }>(event);
        await act(async () => server.progress(e.loaded, e.total));
      },
      'import.accepted': async ({ event }: { event: { type: string } }) => {
        await act(async () => server.accept(data<{ status: SandboxImportView }>(event).status));
      },
      'import.status': async ({ event }: { event: { type: string } }) => {
        await act(async () => server.status(data<{ status: SandboxImportView }>(event).status));
      },
      'import.failed': async ({ event }: { event: { type: string } }) => {
        const e = data<{ status: number; problem: ImportProblem }>(event);
        await act(async () => server.refuse(e.status, e.problem));
      },
      'import.retry': async () => { await user.click(inDialog().getByRole('button', { name: 'Try again' })); },
      'import.cancel': async () => { await user.click(inDialog().getByRole('button', { name: 'Cancel' })); },
    },
  };
}

/** the Connections screen with the Sandbox CRM selected; its import call is the fake server */
const view: ModelView<typeof sandboxImportMachine, { server: Server; user: Awaited<ReturnType<typeof renderConnections>> }> = {
  async render(machine) {
    const server = fakeServerFor();
    const user = await renderConnections({ sandboxImport: machine.provide({ actors: { sendImport: createSendImport(server.send), watchImport: createWatchImport(server.read, 0) } }) });
    await selectSource(user, SANDBOX.displayName);
    return { server, user };
  },
  params: ({ server, user }) => pathParams(server, user),
};

const paths = model.getShortestPaths();

describe('sandbox import machine: shortest paths on the Connections screen', () => {
  it('reaches every state, refusals from the browser and the server, and results with and without refused rows', () => {
    const reached = reachedStates(paths, serializeState);
    for (const title of ['file-type-not-accepted', 'file-too-large', 'file-empty', 'import-rows-refused', 'file-wrong-structure']) {
      expect(reached.has(JSON.stringify(['refused', title, '', '', ''])), title).toBe(true);
    }
    for (const title of ['network', 'server-error']) expect(reached.has(JSON.stringify(['failed', title, '', '', ''])), title).toBe(true);
    expect(reached.has(JSON.stringify(['imported', '', '', 0, '']))).toBe(true);
    expect(reached.has(JSON.stringify(['imported', '', '', 4, '']))).toBe(true);
    expect(reached.has(JSON.stringify(['sending', '', 'progress', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['importing', '', 'waiting', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['importing', '', 'importing', '', '']))).toBe(true);
    // refused by the server once it had the file, and stopped part way (not offered again)
    expect(reached.has(JSON.stringify(['refused', 'import-rows-refused/sandbox-crm-full', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['failed', 'server-error', '', '', 'taken']))).toBe(true);
  });
  it.each(named(paths))('%s', async (_d, path) => runPath(path, sandboxImportMachine, view));
});

describe('sandbox import machine: journeys', () => {
  const byType = (type: string, title?: string) => EVENTS.find((e) => e.type === type && (!title || (e as { problem?: ImportProblem }).problem?.title === title))!;
  const journeys: [string, SandboxImportEvent[]][] = [
    ['an import that does not reach the server is tried again, and is followed to its end', [
      byType('import.open'), SELECTIONS[0]!, byType('import.progress'), byType('import.failed', 'network'), byType('import.retry'),
      byType('import.accepted'), { type: 'import.status', status: MIDWAY }, { type: 'import.status', status: DONE(SOME_REFUSED) },
    ]],
    ['an import that stops part way on the server says how much went in and is not sent again', [
      byType('import.open'), SELECTIONS[0]!, byType('import.accepted'), { type: 'import.status', status: MIDWAY }, { type: 'import.status', status: STOPPED },
    ]],
    ['an import is cancelled, the dialog closed and opened again for another file', [
      byType('import.open'), SELECTIONS[0]!, byType('import.cancel'), byType('import.close'), byType('import.open'), SELECTIONS[1]!,
    ]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, sandboxImportMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a machine that would send the server again what it refused', async () => {
    // refused in answer to the file (not by the import it started)
    const refusedByServer = paths.filter((p) => p.steps.some(({ state }) => state.matches('refused') && state.context.status === null
      && ['import-rows-refused', 'file-wrong-structure'].includes(state.context.problem?.title ?? '')));
    await expectBrokenGuardToFail(sandboxImportMachine, 'isRefusedByServer', { paths: refusedByServer, view, every: true });
  });
});

describe('details the paths do not show', () => {
  it('is offered only for a Sandbox CRM data source', async () => {
    const user = await renderConnections({});
    const other = FAKE_SOURCES.find((s) => s.system !== 'sandbox-crm')!;
    await selectSource(user, other.displayName);
    expect(inDetails(other.displayName).queryByRole('button', { name: 'Import constituents' })).toBeNull();
  });

  it('sends nothing for a file the browser refuses', async () => {
    const server = fakeServerFor();
    const user = await renderConnections({ sandboxImport: sandboxImportMachine.provide({ actors: { sendImport: createSendImport(server.send), watchImport: createWatchImport(server.read, 0) } }) });
    await selectSource(user, SANDBOX.displayName);
    await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Import constituents' }));
    await userEvent.setup({ applyAccept: false }).upload(await dropzoneInput(), file('huge.csv', MAX_UPLOAD_BYTES + 1));
    expect((await inDialog().findByRole('alert')).textContent).toContain('File size cannot exceed 15MB');
    expect(server.calls).toEqual([]);
  });
});
