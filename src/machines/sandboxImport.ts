/**
 * Importing constituents into a Sandbox CRM data source from a CSV file: the dialog opens for one
 * data source, a file is chosen and checked in the browser (.csv, at most 15MB, not empty), sent
 * with progress, and ends imported (how many, and the refused rows with their reasons), refused
 * (the file cannot be imported as it is) or failed (the server was not reached or broke: the same
 * file can be sent again). Another file can be chosen from every end.
 */
import { assign, fromCallback, setup, type AnyEventObject } from 'xstate';
import type { Problem } from '../domain/errors.ts';
import { checkImportFile } from '../domain/sandboxImport.ts';
import { integrations, type SandboxImportResult } from '../services/integrations.ts';
import type { UploadOptions, UploadProgress } from '../services/postFile.ts';

/** A refusal as the dialog shows it: the problem's title and detail, and the rows a whole-file refusal lists. */
export type ImportProblem = Partial<Problem> & { refused?: SandboxImportResult['refused']; refusedCount?: number };

export type SandboxImportEvent =
  | { type: 'import.open'; dataSourceId: string; name: string }
  | { type: 'import.close' }
  | { type: 'file.select'; file: File }
  | { type: 'import.cancel' }
  | { type: 'import.retry' }
  | { type: 'import.progress'; loaded: number; total: number }
  | { type: 'import.succeeded'; result: SandboxImportResult }
  | { type: 'import.failed'; status: number; problem: ImportProblem };

export interface SandboxImportContext {
  dataSourceId: string | null;
  /** the data source's display name, for the dialog's title */
  name: string;
  file: File | null;
  progress: UploadProgress | null;
  result: SandboxImportResult | null;
  problem: ImportProblem | null;
}

export type ImportFileFn = (dataSourceId: string, file: File, opts: UploadOptions) => Promise<SandboxImportResult>;

/** Sends the file with `send` and reports progress, then the outcome, as events; leaving `importing` aborts it. */
export const createSendImport = (send: ImportFileFn) => fromCallback<AnyEventObject, { dataSourceId: string; file: File }>(({ input, sendBack }) => {
  const controller = new AbortController();
  send(input.dataSourceId, input.file, {
    signal: controller.signal,
    onProgress: (p) => sendBack({ type: 'import.progress', loaded: p.loaded, total: p.total }),
  }).then(
    (result) => sendBack({ type: 'import.succeeded', result }),
    (err: unknown) => {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      const e = err as { status?: number; problem?: ImportProblem };
      sendBack({ type: 'import.failed', status: e.status ?? 0, problem: e.problem ?? {} });
    },
  );
  return () => controller.abort();
});

/** What the browser's own check says of a file, as the problem the server would answer. */
const BROWSER_PROBLEMS = {
  'not-csv': { title: 'file-type-not-accepted', detail: 'Choose a .csv file; save a workbook as CSV first.' },
  'too-big': { title: 'file-too-large', detail: 'A file can be at most 15MB.' },
  'empty': { title: 'file-empty', detail: 'The file is empty.' },
} as const;

const checkOf = (file: File | null) => (file ? checkImportFile(file) : null);

export const sandboxImportMachine = setup({
  types: {
    context: {} as SandboxImportContext,
    events: {} as SandboxImportEvent,
  },
  actors: { sendImport: createSendImport((id, file, opts) => integrations.importSandboxConstituents(id, file, opts)) },
  guards: {
    isFileRefusedHere: ({ context }) => checkOf(context.file) !== null,
    // a 4xx is the file's (or the caller's) fault: sending it again changes nothing
    isRefusedByServer: ({ event }) => event.type === 'import.failed' && event.status >= 400 && event.status < 500,
  },
  actions: {
    open: assign({
      dataSourceId: ({ event }) => (event.type === 'import.open' ? event.dataSourceId : null),
      name: ({ event }) => (event.type === 'import.open' ? event.name : ''),
      file: null, progress: null, result: null, problem: null,
    }),
    chooseFile: assign({
      file: ({ event }) => (event.type === 'file.select' ? event.file : null),
      progress: null, result: null, problem: null,
    }),
    refuseHere: assign({ problem: ({ context }) => ({ ...BROWSER_PROBLEMS[checkOf(context.file)!] }) }),
    startProgress: assign({ progress: ({ context }) => ({ loaded: 0, total: context.file?.size ?? 0 }), problem: null }),
    recordProgress: assign({
      progress: ({ event }) => (event.type === 'import.progress' ? { loaded: event.loaded, total: event.total } : null),
    }),
    recordResult: assign({ result: ({ event }) => (event.type === 'import.succeeded' ? event.result : null) }),
    recordProblem: assign({ problem: ({ event }) => (event.type === 'import.failed' ? event.problem : null) }),
  },
}).createMachine({
  id: 'sandboxImport',
  initial: 'closed',
  context: { dataSourceId: null, name: '', file: null, progress: null, result: null, problem: null },
  states: {
    closed: {
      on: { 'import.open': { target: 'choosing', actions: 'open' } },
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
        { target: 'importing' },
      ],
    },
    importing: {
      entry: 'startProgress',
      invoke: { src: 'sendImport', input: ({ context }) => ({ dataSourceId: context.dataSourceId!, file: context.file! }) },
      on: {
        'import.progress': { actions: 'recordProgress' },
        'import.succeeded': { target: 'imported', actions: 'recordResult' },
        'import.failed': [
          { guard: 'isRefusedByServer', target: 'refused', actions: 'recordProblem' },
          { target: 'failed', actions: 'recordProblem' },
        ],
        'import.cancel': { target: 'choosing' },
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
    // not reached, or the server broke: the same file can be sent again
    failed: {
      on: {
        'file.select': { target: 'checking', actions: 'chooseFile' },
        'import.retry': { target: 'importing' },
        'import.close': { target: 'closed' },
      },
    },
  },
});
