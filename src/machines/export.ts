/**
 * Export (SPEC.md section 4): started, in progress with count and percent, complete, error. A
 * finished file can be downloaded for 24 hours; a new export deletes the existing file. A
 * download the browser refuses is 'The browser blocked the CSV download' (SPEC.md section 8),
 * and can be tried again.
 *
 * idle → started (the request) → inProgress (asking how far it has got every second: waiting,
 * checking) → complete → downloading → complete | blocked | error. Starting again from complete,
 * blocked or error is a new export, which replaces the last one's file on the server.
 */
import { assign, fromPromise, setup } from 'xstate';
import { EXPORT_POLL_INTERVAL_MS, type ExportView, type StartExport } from '../domain/api/exportService.ts';
import { messageForProblem, MESSAGES } from '../domain/errors.ts';
import type { RecordSelection } from '../domain/records/query.ts';
import { DownloadBlockedError, exportsApi } from '../services/exports.ts';

export interface ExportInput {
  formulaId: string;
  selection: RecordSelection;
  includeRaw?: boolean;
}

export interface ExportFailure {
  /** the catalogue's message */
  message: string;
  detail: string | null;
}

export interface ExportContext extends ExportInput {
  /** the export as the server last told it */
  current: ExportView | null;
  failure: ExportFailure | null;
}

export type ExportEvent =
  /** what to export now (the screen's filter may have changed since it opened); the input's when absent */
  | { type: 'export.start'; selection?: RecordSelection; includeRaw?: boolean }
  | { type: 'export.download' }
  | { type: 'export.dismiss' };

/** What a refused call means for the user, in the catalogue's words. */
export function exportFailureOf(error: unknown): ExportFailure {
  if (error instanceof DownloadBlockedError) return { message: MESSAGES.csvBlocked, detail: 'Allow downloads from this site, then download the file again.' };
  const e = (error ?? {}) as { status?: number; problem?: { title?: string; detail?: string } };
  if (e.status === 0) return { message: MESSAGES.server, detail: 'The Tributary server could not be reached. Check your connection and try again.' };
  const message = messageForProblem(e.problem);
  const detail = e.problem?.detail && e.problem.detail !== message ? e.problem.detail : null;
  return { message, detail };
}

/** An export the server says failed. */
const failedExport = (view: ExportView): ExportFailure => ({ message: 'The export failed.', detail: view.error });

const outputOf = ({ event }: { event: { output: ExportView } }) => event.output;
const errorOf = ({ event }: { event: { error: unknown } }) => event.error;

export const exportMachine = setup({
  types: {
    context: {} as ExportContext,
    events: {} as ExportEvent,
    input: {} as ExportInput,
  },
  actors: {
    startExport: fromPromise<ExportView, StartExport>(({ input }) => exportsApi.start(input, { silent: true })),
    fetchStatus: fromPromise<ExportView, { id: string }>(({ input }) => exportsApi.status(input.id, { silent: true })),
    downloadFile: fromPromise<void, ExportView>(({ input }) => exportsApi.download(input, { silent: true })),
  },
  delays: {
    pollInterval: EXPORT_POLL_INTERVAL_MS,
  },
  guards: {
    isComplete: (_, view: ExportView) => view.status === 'complete',
    isFailed: (_, view: ExportView) => view.status === 'error',
    isDownloadBlocked: (_, error: unknown) => error instanceof DownloadBlockedError,
  },
  actions: {
    keepExport: assign((_, view: ExportView) => ({ current: view, failure: null })),
    keepFailedExport: assign((_, view: ExportView) => ({ current: view, failure: failedExport(view) })),
    keepFailure: assign((_, error: unknown) => ({ failure: exportFailureOf(error) })),
    forget: assign({ current: null, failure: null }),
    takeRequest: assign(({ context, event }) => (event.type === 'export.start'
      ? { selection: event.selection ?? context.selection, includeRaw: event.includeRaw ?? context.includeRaw, current: null, failure: null }
      : {})),
  },
}).createMachine({
  id: 'export',
  initial: 'idle',
  context: ({ input }) => ({ ...input, current: null, failure: null }),
  states: {
    idle: {
      on: { 'export.start': { target: 'started', actions: 'takeRequest' } },
    },
    started: {
      invoke: {
        id: 'startExport',
        src: 'startExport',
        input: ({ context }) => ({ formulaId: context.formulaId, selection: context.selection, includeRaw: context.includeRaw ?? false }),
        onDone: [
          { guard: { type: 'isComplete', params: outputOf }, target: 'complete', actions: { type: 'keepExport', params: outputOf } },
          { guard: { type: 'isFailed', params: outputOf }, target: 'error', actions: { type: 'keepFailedExport', params: outputOf } },
          { target: 'inProgress', actions: { type: 'keepExport', params: outputOf } },
        ],
        onError: { target: 'error', actions: { type: 'keepFailure', params: errorOf } },
      },
    },
    inProgress: {
      initial: 'waiting',
      states: {
        waiting: {
          after: { pollInterval: 'checking' },
        },
        checking: {
          invoke: {
            id: 'fetchStatus',
            src: 'fetchStatus',
            input: ({ context }) => ({ id: context.current!.id }),
            onDone: [
              { guard: { type: 'isComplete', params: outputOf }, target: '#export.complete', actions: { type: 'keepExport', params: outputOf } },
              { guard: { type: 'isFailed', params: outputOf }, target: '#export.error', actions: { type: 'keepFailedExport', params: outputOf } },
              { target: 'waiting', actions: { type: 'keepExport', params: outputOf } },
            ],
            onError: { target: '#export.error', actions: { type: 'keepFailure', params: errorOf } },
          },
        },
      },
    },
    complete: {
      on: {
        'export.download': 'downloading',
        'export.start': { target: 'started', actions: 'takeRequest' },
        'export.dismiss': { target: 'idle', actions: 'forget' },
      },
    },
    downloading: {
      invoke: {
        id: 'downloadFile',
        src: 'downloadFile',
        input: ({ context }) => context.current!,
        onDone: 'complete',
        onError: [
          { guard: { type: 'isDownloadBlocked', params: errorOf }, target: 'blocked', actions: { type: 'keepFailure', params: errorOf } },
          // gone (past 24 hours, or replaced): the export is over
          { target: 'error', actions: { type: 'keepFailure', params: errorOf } },
        ],
      },
    },
    blocked: {
      on: {
        'export.download': { target: 'downloading', actions: assign({ failure: null }) },
        'export.start': { target: 'started', actions: 'takeRequest' },
        'export.dismiss': { target: 'idle', actions: 'forget' },
      },
    },
    error: {
      on: {
        'export.start': { target: 'started', actions: 'takeRequest' },
        'export.dismiss': { target: 'idle', actions: 'forget' },
      },
    },
  },
});
