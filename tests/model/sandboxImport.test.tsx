/**
 * Model-based tests of the Sandbox CRM import machine on the real Connections screen. Paths come
 * from the machine's graph; each event is a user action (Import constituents, choose a file,
 * Cancel, Try again, Close, the field of a column, Import) or an answer of the fake server (the data source's latest import read
 * on opening: none, still running, ended, unreadable; the file's columns, or a refusal of its header row; upload progress, the import it started, its
 * status read again: importing, imported, refused, stopped; a refusal); each state is what the
 * dialog shows. The machine's real readLatestImport, readColumns, sendImport and watchImport actors run over the fake.
 */
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { messageForProblem } from '../../src/domain/errors.ts';
import { columnChoiceProblem, IMPORT_FIELD_LABELS, type ImportColumn } from '../../src/domain/sandboxImport.ts';
import { MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';
import { createReadColumns, createReadLatestImport, createSendImport, createWatchImport, sandboxImportMachine, type ImportProblem, type SandboxImportEvent } from '../../src/machines/sandboxImport.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { SandboxImportResult, SandboxImportView } from '../../src/services/integrations.ts';
import type { UploadOptions } from '../../src/services/postFile.ts';
import { FAKE_SOURCES, inDetails, renderConnections, selectSource } from '../support/connectionsScreen.tsx';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, expectBrokenMachineToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SANDBOX = FAKE_SOURCES.find((s) => s.system === 'sandbox-crm')!;

/** A server the test answers by hand; cancelling aborts the call. */
function fakeServerFor() {
  const send = fakeCall<{ dataSourceId: string; file: File; opts: UploadOptions; columns: (string | null)[] }, SandboxImportView>('import');
  const columns = fakeCall<{ dataSourceId: string; file: File }, ImportColumn[]>('import columns');
  const read = fakeCall<{ dataSourceId: string; importId: string }, SandboxImportView>('import status');
  const latest = fakeCall<string, SandboxImportView | null>('latest import');
  return {
    /** the data source's latest import, read when the dialog opens */
    latest,
    /** the file's header row, read after the browser's checks */
    columns,
    /** the column choice each import was sent with */
    get choices() { return send.calls.map((c) => c.columns); },
    get latestReads() { return latest.calls; },
    get calls() { return send.calls.map((c) => `${c.dataSourceId}:${c.file.name}`); },
    get reads() { return read.calls.map((c) => `${c.dataSourceId}:${c.importId}`); },
    progress(loaded: number, total: number) { send.next!.opts.onProgress?.({ loaded, total }); },
    accept(status: SandboxImportView) { send.resolve(status); },
    /** answers the status read the watch is waiting on */
    async status(status: SandboxImportView) {
      await waitFor(() => expect(read.next).not.toBeNull());
      read.resolve(status);
    },
    /** the machine's real actors over this server */
    machine: (machine = sandboxImportMachine) => machine.provide({
      actors: {
        readLatestImport: createReadLatestImport((dataSourceId, signal) => latest.call(dataSourceId, signal)),
        sendImport: createSendImport((dataSourceId, f, opts, choice) => send.call({ dataSourceId, file: f, opts, columns: choice }, opts.signal)),
        readColumns: createReadColumns((dataSourceId, f, signal) => columns.call({ dataSourceId, file: f }, signal)),
        watchImport: createWatchImport((dataSourceId, importId, signal) => read.call({ dataSourceId, importId }, signal), 0),
      },
    }),
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

/** a header row as the server reads it: every field suggested, or the last name's column not recognised */
const SUGGESTED: ImportColumn[] = [{ header: 'Last name', field: 'lastName' }, { header: 'E-mail', field: 'email' }, { header: 'Notes', field: null }];
const NO_LAST_NAME: ImportColumn[] = [{ header: 'Nachname', field: null }, { header: 'E-mail', field: 'email' }];
const UNREADABLE_HEADERS = [
  // a file of blank lines: empty, as the browser says of a file of no bytes
  new ApiError(422, { title: 'file-empty', detail: 'The file is empty.' }, { silent: true }),
  new ApiError(0, { title: 'network', detail: 'The server could not be reached.' }, { silent: true }),
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
/** the data source's latest import as the dialog finds it on opening: none, still running (the dialog was closed, the page reloaded), or ended */
const LATEST = [null, WAITING, MIDWAY, ...STATUSES.slice(1)];
const LATEST_UNREADABLE = [
  new ApiError(0, { title: 'network', detail: 'The server could not be reached.' }, { silent: true }),
  new ApiError(500, { title: 'server-error', detail: 'A server error occured. Please try again later.' }, { silent: true }),
];

const REFUSALS: { status: number; problem: ImportProblem }[] = [
  { status: 422, problem: { title: 'import-rows-refused', detail: "None of the file's 2 rows could be imported.", refusedCount: 2, refused: [{ row: 2, reason: 'The last name is missing.' }, { row: 3, reason: 'The e-mail address is not valid.' }] } },
  { status: 422, problem: { title: 'file-wrong-structure', detail: 'The file has no last name column: name one "Last name" (or "Surname").' } },
  { status: 0, problem: { title: 'network', detail: 'The server could not be reached.' } },
  { status: 500, problem: { title: 'server-error', detail: 'A server error occured. Please try again later.' } },
];

const EVENTS: SandboxImportEvent[] = [
  { type: 'import.open', dataSourceId: SANDBOX.id, name: SANDBOX.displayName },
  ...LATEST.map((output) => ({ type: 'xstate.done.actor.readLatestImport', output }) as unknown as SandboxImportEvent),
  ...LATEST_UNREADABLE.map((error) => ({ type: 'xstate.error.actor.readLatestImport', error }) as unknown as SandboxImportEvent),
  ...SELECTIONS,
  ...[SUGGESTED, NO_LAST_NAME].map((output) => ({ type: 'xstate.done.actor.readColumns', output }) as unknown as SandboxImportEvent),
  ...UNREADABLE_HEADERS.map((error) => ({ type: 'xstate.error.actor.readColumns', error }) as unknown as SandboxImportEvent),
  // the first column gives the last name; the second too (one field twice); the second is left out
  { type: 'column.choose', index: 0, field: 'lastName' },
  { type: 'column.choose', index: 1, field: 'lastName' },
  { type: 'column.choose', index: 1, field: null },
  { type: 'import.start' },
  { type: 'import.progress', loaded: 9, total: 18 },
  { type: 'import.accepted', status: WAITING },
  ...STATUSES.map((status) => ({ type: 'import.status', status }) as SandboxImportEvent),
  ...REFUSALS.map(({ status, problem }) => ({ type: 'import.failed', status, problem }) as SandboxImportEvent),
  { type: 'import.retry' },
  { type: 'import.cancel' },
  { type: 'import.close' },
];

type Snapshot = SnapshotFrom<typeof sandboxImportMachine>;
/** the field each column gives, '-' for one left out */
const choiceKey = (fields: (string | null)[]) => fields.map((f) => f ?? '-').join(',');
/** a refusal by the browser and by the server are different states, as are results with and without refused rows */
const serializeState = (s: Snapshot) => JSON.stringify([
  s.value,
  // a finer code tells a refusal found by the import apart from one answered to the file
  `${s.context.problem?.title ?? ''}${s.context.problem?.code ? `/${s.context.problem.code}` : ''}`,
  s.matches('sending') && (s.context.progress?.loaded ?? 0) > 0 ? 'progress' : s.matches('importing') ? s.context.status?.status ?? ''
    // the choice as the dialog judges it: ready, or what stands in the way
    : s.matches('mapping') ? choiceKey(s.context.columns!.map((c) => c.field)) : '',
  // the columns sent are checked while sending: two choices are two states there
  s.matches('imported') ? s.context.result?.refusedCount ?? 0 : s.matches('sending') ? choiceKey(s.context.columns!.map((c) => c.field)) : '',
  // a file the server took is not offered again
  s.matches('failed') && s.context.status !== null ? 'taken' : '',
  // an import found on opening: still running (followed with no file of this dialog), or ended (its outcome shown)
  s.context.last ? `last ${s.context.last.status} ${s.context.last.refusedCount}` : s.context.status !== null && s.context.file === null ? 'resumed' : '',
]);

const model = testModel(sandboxImportMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof File ? `${v.name}:${v.size}` : v)),
});

const dialog = () => screen.getByRole('dialog', { name: `Import constituents into ${SANDBOX.displayName}` });
const inDialog = () => within(dialog());
/** the dialog once it is there: a busy machine may still be mounting it when the test looks */
const inOpenDialog = async () => within(await screen.findByRole('dialog', { name: `Import constituents into ${SANDBOX.displayName}` }));
/** the dialog's file input, once it is there (the dialog may still be loading) */
const dropzoneInput = () => waitFor(() => {
  const input = document.querySelector<HTMLInputElement>('[data-testid="sandbox-import-dropzone"] input[type="file"]');
  if (!input) throw new Error('the import dialog has no file input yet');
  return input;
});
const data = <T,>(event: unknown) => event as T;
const dropzone = () => inDialog().getByTestId('sandbox-import-dropzone');
/** the file the dialog names: the one chosen here, or the running import's found on opening */
const fileNameOf = (s: Snapshot) => s.context.file?.name ?? s.context.status!.fileName;

function pathParams(server: Server, user: Awaited<ReturnType<typeof renderConnections>>) {
  const uploader = userEvent.setup({ applyAccept: false, delay: null });
  const refusal = async (s: Snapshot, retry: boolean) => {
    const alert = await (await inOpenDialog()).findByRole('alert');
    expect(alert.textContent).toContain(messageForProblem(s.context.problem!));
    expect(alert.textContent).toContain(s.context.problem!.detail);
    expect(alert.textContent).toContain(fileNameOf(s));
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
      resuming: async () => {
        await screen.findByRole('dialog', { name: `Import constituents into ${SANDBOX.displayName}` });
        expect(inDialog().getByText('Looking for an import of this data source still running…')).toBeTruthy();
        // no file is offered until it is known that no import of this data source runs
        expect(inDialog().queryByRole('button', { name: 'Choose a file' })).toBeNull();
        expect(dropzone().hasAttribute('data-disabled')).toBe(true);
        expect(inDialog().getByRole('button', { name: 'Close' })).toBeTruthy();
        expect(server.latestReads.at(-1)).toBe(SANDBOX.id);
      },
      choosing: async (s: Snapshot) => {
        await screen.findByRole('dialog', { name: `Import constituents into ${SANDBOX.displayName}` });
        expect(inDialog().queryByRole('alert')).toBeNull();
        expect(inDialog().queryByRole('progressbar')).toBeNull();
        expect(inDialog().getByRole('button', { name: 'Choose a file' })).toBeTruthy();
        expect(dropzone().hasAttribute('data-disabled')).toBe(false);
        const last = s.context.last;
        const line = inDialog().queryByTestId('sandbox-import-last');
        if (!last) expect(line).toBeNull();
        else if (last.status === 'imported') {
          expect(line?.textContent).toBe(`The last import, ${last.fileName}: ${last.imported.toLocaleString()} constituents imported${last.refusedCount ? `, ${last.refusedCount} rows refused` : ''}.`);
        } else if (last.status === 'refused') expect(line?.textContent).toBe(`The last import, ${last.fileName}, was refused: none of its rows went in.`);
        else expect(line?.textContent).toBe(`The last import, ${last.fileName}, stopped after ${last.imported.toLocaleString()} constituents imported.`);
      },
      readingColumns: async (s: Snapshot) => {
        expect(await (await inOpenDialog()).findByText(`Reading the columns of ${s.context.file!.name}…`)).toBeTruthy();
        expect(dropzone().hasAttribute('data-disabled')).toBe(true);
        expect(server.columns.calls.at(-1)?.file.name).toBe(s.context.file!.name);
      },
      mapping: async (s: Snapshot) => {
        const table = await (await inOpenDialog()).findByRole('table', { name: 'Columns of the file' });
        for (const c of s.context.columns!) {
          const select = within(table).getByRole('combobox', { name: `Field for the column ${c.header}` }) as HTMLSelectElement;
          await waitFor(() => expect(select.value).toBe(c.field ?? ''));
          expect(select.selectedOptions[0]!.textContent).toBe(c.field ? IMPORT_FIELD_LABELS[c.field] : 'Leave out');
        }
        const problem = columnChoiceProblem(s.context.columns!.map((c) => c.field));
        const said = inDialog().queryByTestId('sandbox-import-columns-problem');
        expect(said?.textContent ?? null).toBe(problem);
        // a choice the server would refuse is not sent
        expect((inDialog().getByRole('button', { name: 'Import' }) as HTMLButtonElement).disabled).toBe(problem !== null);
        expect(inDialog().getByRole('button', { name: 'Choose another file' })).toBeTruthy();
        expect(inDialog().queryByRole('progressbar')).toBeNull();
      },
      sending: async (s: Snapshot) => {
        const bar = await (await inOpenDialog()).findByRole('progressbar', { name: 'Import progress' });
        const percent = Math.round(((s.context.progress?.loaded ?? 0) / (s.context.progress?.total || 1)) * 100);
        await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe(String(percent)));
        expect(inDialog().getByText(`Sending ${s.context.file!.name}: ${percent}%`)).toBeTruthy();
        expect(inDialog().queryByRole('button', { name: 'Close' })).toBeNull();
        expect(server.calls.at(-1)).toBe(`${SANDBOX.id}:${s.context.file!.name}`);
        // with the columns as chosen
        expect(server.choices.at(-1)).toEqual(s.context.columns!.map((c) => c.field));
      },
      importing: async (s: Snapshot) => {
        const status = s.context.status!;
        const dialog = await inOpenDialog();
        // once the dialog knows whether an import runs, it shows the running one at once: a dialog
        // that offers a file instead fails here, not after a wait for a bar that never comes
        await waitFor(() => expect(dialog.queryByText('Looking for an import of this data source still running…')).toBeNull());
        const bar = dialog.getByRole('progressbar', { name: 'Import progress' });
        await waitFor(() => expect(bar.getAttribute('aria-valuenow')).toBe(String(status.percent)));
        const line = inDialog().getByTestId('sandbox-import-count').textContent;
        if (status.status === 'waiting') {
          expect(line).toBe(`${fileNameOf(s)}: waiting for the import before it to finish…`);
        } else {
          expect(line).toBe(`${status.imported.toLocaleString()} constituents imported so far: ${status.read.toLocaleString()} of ${status.total.toLocaleString()} rows read (${status.percent}%)`);
        }
        // the server's work is not cancelled from here; the dialog may be closed while it goes on
        expect(inDialog().queryByRole('button', { name: 'Cancel' })).toBeNull();
        // nor is a second file offered beside it
        expect(inDialog().queryByRole('button', { name: 'Choose a file' })).toBeNull();
        expect(dropzone().hasAttribute('data-disabled')).toBe(true);
        expect(inDialog().getByRole('button', { name: 'Close' })).toBeTruthy();
        expect(server.reads.at(-1)).toBe(`${SANDBOX.id}:${status.id}`);
      },
      imported: async (s: Snapshot) => {
        const result = s.context.result!;
        const status = await (await inOpenDialog()).findByRole('status');
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
      'xstate.done.actor.readLatestImport': ({ event }: { event: { type: string } }) => server.latest.answer(event),
      'xstate.error.actor.readLatestImport': ({ event }: { event: { type: string } }) => server.latest.answer(event),
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
      'xstate.done.actor.readColumns': ({ event }: { event: { type: string } }) => server.columns.answer(event),
      'xstate.error.actor.readColumns': ({ event }: { event: { type: string } }) => server.columns.answer(event),
      'column.choose': async ({ event }: { event: { type: string } }) => {
        const e = data<{ index: number; field: string | null }>(event);
        const selects = within(inDialog().getByRole('table', { name: 'Columns of the file' })).getAllByRole('combobox');
        await user.selectOptions(selects[e.index]!, e.field ?? '');
      },
      'import.start': async () => { await user.click(inDialog().getByRole('button', { name: 'Import' })); },
      'import.retry': async () => { await user.click(inDialog().getByRole('button', { name: 'Try again' })); },
      'import.cancel': async () => { await user.click(inDialog().getByRole('button', { name: 'Cancel' })); },
    },
  };
}

/** the Connections screen with the Sandbox CRM selected; its import call is the fake server */
const view: ModelView<typeof sandboxImportMachine, { server: Server; user: Awaited<ReturnType<typeof renderConnections>> }> = {
  async render(machine) {
    const server = fakeServerFor();
    const user = await renderConnections({ sandboxImport: server.machine(machine) });
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
      expect(reached.has(JSON.stringify(['refused', title, '', '', '', ''])), title).toBe(true);
    }
    for (const title of ['network', 'server-error']) expect(reached.has(JSON.stringify(['failed', title, '', '', '', ''])), title).toBe(true);
    expect(reached.has(JSON.stringify(['imported', '', '', 0, '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['imported', '', '', 4, '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['sending', '', 'progress', 'lastName,email,-', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['sending', '', '', 'lastName,-', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['importing', '', 'waiting', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['importing', '', 'importing', '', '', '']))).toBe(true);
    // refused by the server once it had the file, and stopped part way (not offered again)
    expect(reached.has(JSON.stringify(['refused', 'import-rows-refused/sandbox-crm-full', '', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['failed', 'server-error', '', '', 'taken', '']))).toBe(true);
    // on opening: an import still running is followed again, to each of its ends; one that ended is shown as the last
    expect(reached.has(JSON.stringify(['resuming', '', '', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['importing', '', 'waiting', '', '', 'resumed']))).toBe(true);
    expect(reached.has(JSON.stringify(['importing', '', 'importing', '', '', 'resumed']))).toBe(true);
    expect(reached.has(JSON.stringify(['imported', '', '', 4, '', 'resumed']))).toBe(true);
    expect(reached.has(JSON.stringify(['refused', 'import-rows-refused/sandbox-crm-full', '', '', '', 'resumed']))).toBe(true);
    expect(reached.has(JSON.stringify(['failed', 'server-error', '', '', 'taken', 'resumed']))).toBe(true);
    // the file's columns: read, then chosen as suggested, with the last name missing, or with one field twice
    expect(reached.has(JSON.stringify(['readingColumns', '', '', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['mapping', '', 'lastName,email,-', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['mapping', '', '-,email', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['mapping', '', 'lastName,lastName,-', '', '', '']))).toBe(true);
    expect(reached.has(JSON.stringify(['refused', 'file-empty', '', '', '', '']))).toBe(true);
    for (const last of ['imported 0', 'imported 4', 'refused 50000', 'error 0']) expect(reached.has(JSON.stringify(['choosing', '', '', '', '', `last ${last}`])), last).toBe(true);
  });
  it.each(named(paths))('%s', async (_d, path) => runPath(path, sandboxImportMachine, view));
});

describe('sandbox import machine: journeys', () => {
  const byType = (type: string, title?: string) => EVENTS.find((e) => e.type === type && (!title || (e as { problem?: ImportProblem }).problem?.title === title))!;
  const latest = (output: SandboxImportView | null) => ({ type: 'xstate.done.actor.readLatestImport', output }) as unknown as SandboxImportEvent;
  const unreadable = (error: ApiError) => ({ type: 'xstate.error.actor.readLatestImport', error }) as unknown as SandboxImportEvent;
  const NONE = latest(null);
  const COLUMNS = { type: 'xstate.done.actor.readColumns', output: SUGGESTED } as unknown as SandboxImportEvent;
  const START: SandboxImportEvent = { type: 'import.start' };
  const journeys: [string, SandboxImportEvent[]][] = [
    ['an import that does not reach the server is tried again, and is followed to its end', [
      byType('import.open'), NONE, SELECTIONS[0]!, COLUMNS, START, byType('import.progress'), byType('import.failed', 'network'), byType('import.retry'),
      byType('import.accepted'), { type: 'import.status', status: MIDWAY }, { type: 'import.status', status: DONE(SOME_REFUSED) },
    ]],
    ['an import that stops part way on the server says how much went in and is not sent again', [
      byType('import.open'), NONE, SELECTIONS[0]!, COLUMNS, START, byType('import.accepted'), { type: 'import.status', status: MIDWAY }, { type: 'import.status', status: STOPPED },
    ]],
    ['an import is cancelled, the dialog closed and opened again for another file', [
      byType('import.open'), NONE, SELECTIONS[0]!, COLUMNS, START, byType('import.cancel'), byType('import.close'), byType('import.open'), NONE, SELECTIONS[1]!,
    ]],
    ['the dialog closed while its import runs finds it again when opened again, follows it to its end, and then offers another file', [
      byType('import.open'), NONE, SELECTIONS[0]!, COLUMNS, START, byType('import.accepted'), { type: 'import.status', status: MIDWAY }, byType('import.close'),
      byType('import.open'), latest(MIDWAY), { type: 'import.status', status: DONE(ALL_IN) }, byType('import.close'),
      byType('import.open'), latest(DONE(ALL_IN)), SELECTIONS[0]!,
    ]],
    ...LATEST_UNREADABLE.map((error): [string, SandboxImportEvent[]] => [
      `a latest import that cannot be read (${error.problem.title}) does not stand in the way of a new one`,
      [byType('import.open'), unreadable(error), SELECTIONS[0]!, COLUMNS, START, byType('import.accepted')],
    ]),
    ['a header row whose last name is not recognised is imported once the user chooses its column', [
      byType('import.open'), NONE, SELECTIONS[0]!, { type: 'xstate.done.actor.readColumns', output: NO_LAST_NAME } as unknown as SandboxImportEvent,
      { type: 'column.choose', index: 1, field: 'lastName' }, { type: 'column.choose', index: 0, field: 'lastName' },
      { type: 'column.choose', index: 1, field: null }, START, byType('import.accepted'),
    ]],
    ['a header row that could not be read is read again', [
      byType('import.open'), NONE, SELECTIONS[0]!, { type: 'xstate.error.actor.readColumns', error: UNREADABLE_HEADERS[1] } as unknown as SandboxImportEvent,
      byType('import.retry'), COLUMNS, START,
    ]],
    ['the dialog closed while it looks for a running import is opened again', [
      byType('import.open'), byType('import.close'), byType('import.open'), latest(WAITING),
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
    // (the header row's refusal comes before the file is sent: it is not this guard's)
    const refusedByServer = paths.filter((p) => p.steps.some(({ state }) => state.matches('refused') && state.context.status === null && state.context.columns !== null
      && ['import-rows-refused', 'file-wrong-structure'].includes(state.context.problem?.title ?? '')));
    await expectBrokenGuardToFail(sandboxImportMachine, 'isRefusedByServer', { paths: refusedByServer, view, every: true });
  });
  it('finds a machine that would send the columns as suggested, not as the user chose them', async () => {
    const chosen = paths.filter((p) => p.steps.some(({ event }) => event.type === 'column.choose'));
    const broken = sandboxImportMachine.provide({ actions: { chooseColumn: () => {} } });
    await expectBrokenMachineToFail(sandboxImportMachine, broken, 'chooseColumn broken', { paths: chosen, view });
  });
  it('finds a machine that would offer a new file beside the import still running', async () => {
    const resumed = paths.filter((p) => p.steps.some(({ state }) => state.matches('importing') && state.context.file === null));
    await expectBrokenGuardToFail(sandboxImportMachine, 'isRunning', { paths: resumed, view, every: true });
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
    const user = await renderConnections({ sandboxImport: server.machine() });
    await selectSource(user, SANDBOX.displayName);
    await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Import constituents' }));
    await server.latest.answer({ type: 'xstate.done.actor.readLatestImport', output: null });
    await userEvent.setup({ applyAccept: false, delay: null }).upload(await dropzoneInput(), file('huge.csv', MAX_UPLOAD_BYTES + 1));
    expect((await (await inOpenDialog()).findByRole('alert')).textContent).toContain('File size cannot exceed 15MB');
    expect(server.calls).toEqual([]);
    expect(server.columns.calls).toEqual([]);
  });

  it('says which two columns give one field when the server refuses a file for them', async () => {
    const server = fakeServerFor();
    const user = await renderConnections({ sandboxImport: server.machine() });
    await selectSource(user, SANDBOX.displayName);
    await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Import constituents' }));
    await server.latest.answer({ type: 'xstate.done.actor.readLatestImport', output: null });
    await userEvent.setup({ applyAccept: false, delay: null }).upload(await dropzoneInput(), file('export.csv', 18));
    await server.columns.answer({ type: 'xstate.done.actor.readColumns', output: SUGGESTED });
    await user.click(await (await inOpenDialog()).findByRole('button', { name: 'Import' }));
    const detail = 'The columns "constituent_id" (column 1) and "lookup_id" (column 3) both give the Lookup ID of a constituent. Keep one of them, or rename the other, and import the file again.';
    await act(async () => server.refuse(422, { title: 'import-columns-conflict', detail }));
    const alert = await (await inOpenDialog()).findByRole('alert');
    expect(alert.textContent).toContain('Two columns of the file give the same field of a constituent.');
    expect(alert.textContent).toContain(detail);
    // the file is the person's to change: it is not sent again as it is
    expect(inDialog().queryByRole('button', { name: 'Try again' })).toBeNull();
    expect(inDialog().getByRole('button', { name: 'Import another file' })).toBeTruthy();
  });

  it('sends no file dropped on the dialog while the data source\'s import found on opening still runs', async () => {
    const server = fakeServerFor();
    const user = await renderConnections({ sandboxImport: server.machine() });
    await selectSource(user, SANDBOX.displayName);
    await user.click(inDetails(SANDBOX.displayName).getByRole('button', { name: 'Import constituents' }));
    await server.latest.answer({ type: 'xstate.done.actor.readLatestImport', output: MIDWAY });
    await act(async () => server.status(MIDWAY));
    expect(await (await inOpenDialog()).findByText('11,990 constituents imported so far: 12,000 of 50,000 rows read (24%)')).toBeTruthy();
    await userEvent.setup({ applyAccept: false, delay: null }).upload(await dropzoneInput(), file('donors.csv', 18));
    await act(async () => server.status(DONE(ALL_IN)));
    expect((await (await inOpenDialog()).findByRole('status')).textContent).toContain('1,204 constituents imported');
    expect(server.calls).toEqual([]);
    expect(server.columns.calls).toEqual([]);
  });
});
