/**
 * Importing constituents into a Sandbox CRM data source from a CSV file: the dialog opens for one
 * data source and first reads its latest import (resuming): one still waiting or importing on the
 * server is followed again (the dialog was closed, or the page reloaded, while it ran), so no
 * second import is started beside it; one that ended is shown as the last import; a read that
 * fails does not stand in the way of a new import. Then a file is chosen and checked in the
 * browser (.csv, at most 15MB, not empty); its header row is read (its first bytes sent to the server,
 * which reads CSV as the import will) and each column shown with the field suggested for it
 * (mapping), for the user to change before importing. Then the file is sent with its column choice and upload progress (sending). The server answers at once with the import it started, or
 * refuses the file as it is (over a limit, unreadable); the import then runs on the server while
 * its status is read again and again (importing: rows imported so far and a percent), and ends
 * imported (how many, and the refused rows with their reasons), refused (nothing of the file went
 * in) or failed (stopped part way on the server, or the file never reached it: only a file that
 * was not taken can be sent again). Another file can be chosen from every end.
 */
import { and, assign, fromCallback, fromPromise, setup, type AnyEventObject } from 'xstate';
import type { Problem } from '../domain/errors.ts';
import { checkImportFile, columnChoiceProblem, type ColumnChoice, type ImportColumn, type SandboxImportField } from '../domain/sandboxImport.ts';
import { integrations, type SandboxImportResult, type SandboxImportView } from '../services/integrations.ts';
import type { UploadOptions, UploadProgress } from '../services/postFile.ts';

/** A refusal as the dialog shows it: the problem's title and detail, and the rows a whole-file refusal lists. */
export type ImportProblem = Partial<Problem> & { refused?: SandboxImportResult['refused']; refusedCount?: number };

export type SandboxImportEvent =
  | { type: 'import.open'; dataSourceId: string; name: string }
  | { type: 'import.close' }
  | { type: 'file.select'; file: File }
  /** the field a column gives (null: left out) */
  | { type: 'column.choose'; index: number; field: SandboxImportField | null }
  /** import the file with the columns as chosen */
  | { type: 'import.start' }
  | { type: 'import.cancel' }
  | { type: 'import.retry' }
  | { type: 'import.progress'; loaded: number; total: number }
  /** the server took the file: its import has started (or waits for the tenant's import before it) */
  | { type: 'import.accepted'; status: SandboxImportView }
  /** the import's status, read again */
  | { type: 'import.status'; status: SandboxImportView }
  | { type: 'import.failed'; status: number; problem: ImportProblem };

export interface SandboxImportContext {
  dataSourceId: string | null;
  /** the data source's display name, for the dialog's title */
  name: string;
  file: File | null;
  /** the file's columns and the field each gives, once its header row was read */
  columns: ImportColumn[] | null;
  /** the upload's progress */
  progress: UploadProgress | null;
  /** the import's latest status on the server, once the file was taken (or the running import found on opening) */
  status: SandboxImportView | null;
  /** the data source's last import, ended, as read on opening: shown until a file is chosen */
  last: SandboxImportView | null;
  result: SandboxImportResult | null;
  problem: ImportProblem | null;
}

export type ImportFileFn = (dataSourceId: string, file: File, opts: UploadOptions, columns: ColumnChoice) => Promise<SandboxImportView>;
/** `signal` fires when the dialog moves on before the answer */
export type ReadColumnsFn = (dataSourceId: string, file: File, signal: AbortSignal) => Promise<ImportColumn[]>;
/** `signal` fires when the watch ends (the dialog closed): a read in flight is not wanted any more */
export type ImportStatusFn = (dataSourceId: string, importId: string, signal: AbortSignal) => Promise<SandboxImportView>;
/** `signal` fires when the dialog is closed before the answer: the answer is not wanted any more */
export type LatestImportFn = (dataSourceId: string, signal: AbortSignal) => Promise<SandboxImportView | null>;

const failure = (err: unknown) => {
  const e = err as { status?: number; problem?: ImportProblem };
  return { type: 'import.failed', status: e.status ?? 0, problem: e.problem ?? {} } as const;
};
const isAbort = (err: unknown) => err instanceof DOMException && err.name === 'AbortError';

/** Sends the file with `send` and reports progress, then the import the server started, as events; leaving `sending` aborts it. */
export const createSendImport = (send: ImportFileFn) => fromCallback<AnyEventObject, { dataSourceId: string; file: File; columns: ColumnChoice }>(({ input, sendBack }) => {
  const controller = new AbortController();
  send(input.dataSourceId, input.file, {
    signal: controller.signal,
    onProgress: (p) => sendBack({ type: 'import.progress', loaded: p.loaded, total: p.total }),
  }, input.columns).then(
    (status) => sendBack({ type: 'import.accepted', status }),
    (err: unknown) => { if (!isAbort(err)) sendBack(failure(err)); },
  );
  return () => controller.abort();
});

/** Reads the file's header row: its columns, each with the field suggested for it. */
export const createReadColumns = (read: ReadColumnsFn) =>
  fromPromise<ImportColumn[], { dataSourceId: string; file: File }>(({ input, signal }) => read(input.dataSourceId, input.file, signal));

/** Reads the data source's latest import of the last day (null when there is none). */
export const createReadLatestImport = (read: LatestImportFn) =>
  fromPromise<SandboxImportView | null, { dataSourceId: string }>(({ input, signal }) => read(input.dataSourceId, signal));

const ENDED: ReadonlySet<SandboxImportView['status']> = new Set(['imported', 'refused', 'error']);

/**
 * Reads the import's status every `everyMs` until it ends, sending each as `import.status`. A
 * status that cannot be read for now (not reached, a server error) is read again; one the server
 * refuses (404: not this tenant's import any more) ends the watch as `import.failed`.
 */
export const createWatchImport = (read: ImportStatusFn, everyMs = 1000) =>
  fromCallback<AnyEventObject, { dataSourceId: string; importId: string }>(({ input, sendBack }) => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const next = () => { if (!controller.signal.aborted) timer = setTimeout(poll, everyMs); };
    const poll = () => {
      // an answer after the watch ended is dropped
      read(input.dataSourceId, input.importId, controller.signal).then(
        (status) => {
          if (controller.signal.aborted) return;
          sendBack({ type: 'import.status', status });
          if (!ENDED.has(status.status)) next();
        },
        (err: unknown) => {
          if (isAbort(err) || controller.signal.aborted) return;
          const f = failure(err);
          if (f.status >= 400 && f.status < 500) sendBack(f);
          else next();
        },
      );
    };
    poll();
    return () => { controller.abort(); clearTimeout(timer); };
  });

/** What the browser's own check says of a file, as the problem the server would answer. */
const BROWSER_PROBLEMS = {
  'not-csv': { title: 'file-type-not-accepted', detail: 'Choose a .csv file; save a workbook as CSV first.' },
  'too-big': { title: 'file-too-large', detail: 'A file can be at most 15MB.' },
  'empty': { title: 'file-empty', detail: 'The file is empty.' },
} as const;

const checkOf = (file: File | null) => (file ? checkImportFile(file) : null);
const latestOf = ({ event }: { event: { output: SandboxImportView | null } }) => event.output;
const errorOf = ({ event }: { event: { error: unknown } }) => event.error;
const columnsOutput = ({ event }: { event: { output: ImportColumn[] } }) => event.output;
const choiceOf = (columns: ImportColumn[] | null): ColumnChoice => (columns ?? []).map((c) => c.field);
const statusIs = (event: SandboxImportEvent, status: SandboxImportView['status']) => event.type === 'import.status' && event.status.status === status;

export const sandboxImportMachine = setup({
  types: {
    context: {} as SandboxImportContext,
    events: {} as SandboxImportEvent,
  },
  actors: {
    sendImport: createSendImport((id, file, opts, columns) => integrations.importSandboxConstituents(id, file, opts, columns)),
    readColumns: createReadColumns((id, file, signal) => integrations.sandboxImportColumns(id, file, { signal })),
    watchImport: createWatchImport((id, importId) => integrations.sandboxImportStatus(id, importId, { silent: true })),
    // silent: a latest import that cannot be read only means a new one may be started
    readLatestImport: createReadLatestImport((id) => integrations.latestSandboxImport(id, { silent: true })),
  },
  guards: {
    // an import of this data source the server has not finished: the dialog follows it rather than offer a second
    isRunning: (_, latest: SandboxImportView | null) => latest !== null && !ENDED.has(latest.status),
    isFileRefusedHere: ({ context }) => checkOf(context.file) !== null,
    // a 4xx is the file's (or the caller's) fault: sending it again changes nothing
    isRefusedByServer: ({ event }) => event.type === 'import.failed' && event.status >= 400 && event.status < 500,
    isColumnsRefused: (_, error: unknown) => { const { status } = failure(error); return status >= 400 && status < 500; },
    // the server refuses what the dialog shows as a problem (no last name, a field twice): it is not sent
    isChoiceComplete: ({ context }) => context.columns !== null && columnChoiceProblem(choiceOf(context.columns)) === null,
    hasColumns: ({ context }) => context.columns !== null,
    isImported: ({ event }) => statusIs(event, 'imported'),
    isRefusedWhileImporting: ({ event }) => statusIs(event, 'refused'),
    isStoppedOnServer: ({ event }) => statusIs(event, 'error'),
    // a file the server took is not sent again: its first rows may be in already
    isUnsent: ({ context }) => context.status === null,
  },
  actions: {
    open: assign({
      dataSourceId: ({ event }) => (event.type === 'import.open' ? event.dataSourceId : null),
      name: ({ event }) => (event.type === 'import.open' ? event.name : ''),
      file: null, columns: null, progress: null, status: null, last: null, result: null, problem: null,
    }),
    resume: assign((_, latest: SandboxImportView | null) => ({ status: latest })),
    recordLast: assign((_, latest: SandboxImportView | null) => ({ last: latest })),
    chooseFile: assign({
      file: ({ event }) => (event.type === 'file.select' ? event.file : null),
      columns: null, progress: null, status: null, last: null, result: null, problem: null,
    }),
    recordColumns: assign({ columns: (_, columns: ImportColumn[]) => columns }),
    chooseColumn: assign({
      columns: ({ context, event }) => (event.type === 'column.choose' && context.columns
        ? context.columns.map((c, i) => (i === event.index ? { ...c, field: event.field } : c))
        : context.columns),
    }),
    forgetProblem: assign({ problem: null }),
    recordColumnsProblem: assign({ problem: (_, error: unknown) => failure(error).problem }),
    refuseHere: assign({ problem: ({ context }) => ({ ...BROWSER_PROBLEMS[checkOf(context.file)!] }) }),
    startProgress: assign({ progress: ({ context }) => ({ loaded: 0, total: context.file?.size ?? 0 }), problem: null }),
    recordProgress: assign({
      progress: ({ event }) => (event.type === 'import.progress' ? { loaded: event.loaded, total: event.total } : null),
    }),
    recordStatus: assign({
      status: ({ event, context }) => (event.type === 'import.status' || event.type === 'import.accepted' ? event.status : context.status),
    }),
    recordResult: assign({ result: ({ event }) => (event.type === 'import.status' ? event.status.result : null) }),
    recordStatusProblem: assign({ problem: ({ event }) => (event.type === 'import.status' ? (event.status.problem as ImportProblem | null) : null) }),
    recordProblem: assign({ problem: ({ event }) => (event.type === 'import.failed' ? event.problem : null) }),
  },
}).createMachine({
  id: 'sandboxImport',
  initial: 'closed',
  context: { dataSourceId: null, name: '', file: null, columns: null, progress: null, status: null, last: null, result: null, problem: null },
  states: {
    closed: {
      on: { 'import.open': { target: 'resuming', actions: 'open' } },
    },
    // is an import of this data source still running on the server (the dialog closed, the page reloaded)?
    resuming: {
      invoke: {
        id: 'readLatestImport',
        src: 'readLatestImport',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId! }),
        onDone: [
          { guard: { type: 'isRunning', params: latestOf }, target: 'importing', actions: { type: 'resume', params: latestOf } },
          { target: 'choosing', actions: { type: 'recordLast', params: latestOf } },
        ],
        // never stands in the way of a new import: the server queues a tenant's imports one after another anyway
        onError: { target: 'choosing' },
      },
      on: { 'import.close': { target: 'closed' } },
    },
    choosing: {
      on: {
        'file.select': { target: 'checking', actions: 'chooseFile' },
        'import.close': { target: 'closed' },
      },
    },
    // the browser's own checks, before a byte is sent
    checking: {
      always: [
        { guard: 'isFileRefusedHere', target: 'refused', actions: 'refuseHere' },
        { target: 'readingColumns' },
      ],
    },
    // the header row, read by the server as the import will read it
    readingColumns: {
      entry: 'forgetProblem',
      invoke: {
        id: 'readColumns',
        src: 'readColumns',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId!, file: context.file! }),
        onDone: { target: 'mapping', actions: { type: 'recordColumns', params: columnsOutput } },
        onError: [
          { guard: { type: 'isColumnsRefused', params: errorOf }, target: 'refused', actions: { type: 'recordColumnsProblem', params: errorOf } },
          { target: 'failed', actions: { type: 'recordColumnsProblem', params: errorOf } },
        ],
      },
      on: { 'import.close': { target: 'closed' } },
    },
    // each column and the field it gives, as suggested by its header, for the user to change
    mapping: {
      on: {
        'column.choose': { actions: 'chooseColumn' },
        'import.start': { guard: 'isChoiceComplete', target: 'sending' },
        'file.select': { target: 'checking', actions: 'chooseFile' },
        'import.close': { target: 'closed' },
      },
    },
    // the file on its way; the server checks its limits before it answers
    sending: {
      entry: 'startProgress',
      invoke: { src: 'sendImport', input: ({ context }) => ({ dataSourceId: context.dataSourceId!, file: context.file!, columns: choiceOf(context.columns) }) },
      on: {
        'import.progress': { actions: 'recordProgress' },
        'import.accepted': { target: 'importing', actions: 'recordStatus' },
        'import.failed': [
          { guard: 'isRefusedByServer', target: 'refused', actions: 'recordProblem' },
          { target: 'failed', actions: 'recordProblem' },
        ],
        // back to the choice, which stays as it was
        'import.cancel': { target: 'mapping' },
      },
    },
    // the server imports the rows; closing the dialog leaves it to go on
    importing: {
      invoke: { src: 'watchImport', input: ({ context }) => ({ dataSourceId: context.dataSourceId!, importId: context.status!.id }) },
      on: {
        'import.status': [
          { guard: 'isImported', target: 'imported', actions: ['recordStatus', 'recordResult'] },
          { guard: 'isRefusedWhileImporting', target: 'refused', actions: ['recordStatus', 'recordStatusProblem'] },
          { guard: 'isStoppedOnServer', target: 'failed', actions: ['recordStatus', 'recordStatusProblem'] },
          { actions: 'recordStatus' },
        ],
        // only a refusal ends the watch: a status that could not be read is read again
        'import.failed': { guard: 'isRefusedByServer', target: 'failed', actions: 'recordProblem' },
        'import.close': { target: 'closed' },
      },
    },
    imported: {
      on: {
        'file.select': { target: 'checking', actions: 'chooseFile' },
        'import.close': { target: 'closed' },
      },
    },
    refused: {
      on: {
        'file.select': { target: 'checking', actions: 'chooseFile' },
        'import.close': { target: 'closed' },
      },
    },
    // not reached, the server broke, or the import stopped part way
    failed: {
      on: {
        'file.select': { target: 'checking', actions: 'chooseFile' },
        'import.retry': [
          { guard: and(['isUnsent', 'hasColumns']), target: 'sending' },
          // the header row could not be read: read it again
          { guard: 'isUnsent', target: 'readingColumns' },
        ],
        'import.close': { target: 'closed' },
      },
    },
  },
});
