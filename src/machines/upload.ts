/**
 * File upload (SPEC.md section 4): a file is chosen, checked in the browser (name, type by
 * extension, size), sent with progress, and ends in one of the eight outcomes of SPEC.md, each a
 * state named as SPEC.md names it and tagged 'outcome'. Any other refusal (sign-in expired, no
 * permission) is 'failed'. From every outcome another file can be chosen; a send that did not
 * reach the server can be retried. Given a file-upload formula's id (input `formulaId`), every
 * file is sent to that formula, which processes all of its rows; a file the formula has taken
 * before is asked about ('alreadyUploaded': when, and by whom) and sent again only on a yes.
 */
import { assign, fromCallback, setup, type AnyEventObject } from 'xstate';
import {
  checkFileBeforeUpload, outcomeForProblem, type EarlierUpload, type UploadOutcome, type UploadSummary,
} from '../domain/upload.ts';
import type { Problem } from '../domain/errors.ts';
import { uploadFile, type UploadProgress } from '../services/flatFile.ts';
import { formulas, type FormulaView } from '../services/formulas.ts';

export type UploadMachineEvent =
  | { type: 'file.select'; file: File }
  | { type: 'upload.retry' }
  | { type: 'upload.cancel' }
  /** the file was uploaded to the formula before: yes, take it again; or no */
  | { type: 'upload.again' }
  | { type: 'upload.decline' }
  | { type: 'upload.progress'; loaded: number; total: number }
  | { type: 'upload.succeeded'; summary: UploadSummary }
  | { type: 'upload.failed'; status: number; problem: Partial<Problem> }
  /** a draft file-upload formula from the uploaded file; the server's answer */
  | { type: 'formula.create' }
  | { type: 'formula.created'; formula: FormulaView }
  | { type: 'formula.failed'; status: number; problem: Partial<Problem> };

export interface UploadContext {
  file: File | null;
  progress: UploadProgress | null;
  summary: UploadSummary | null;
  /** the server's explanation of a refusal, shown under the outcome's message */
  detail: string | null;
  /** the problem of a refusal that is no upload outcome */
  problem: Partial<Problem> | null;
  /** the file-upload formula each file is sent to, or null for a sample only */
  formulaId: string | null;
  /** the same file's earlier upload to the formula, while the user is asked whether to take it again */
  earlier: EarlierUpload | null;
  /** the user said yes: the file goes to the formula again */
  again: boolean;
  /** the upload screen itself, for a role that may create formulas: an uploaded file can start one */
  mayCreateFormula: boolean;
  /** the draft made from the uploaded file, for the wizard to open */
  created: FormulaView | null;
}

export interface UploadInput {
  formulaId?: string | undefined;
  mayCreateFormula?: boolean | undefined;
}

/**
 * Sends the file with `upload` (the flat file service by default; tests give a fake server) and
 * reports progress, then success or failure, as events to the machine. Leaving `uploading`
 * (cancel) aborts the request.
 */
export const createSendFile = (upload: typeof uploadFile) => fromCallback<AnyEventObject, { file: File; formulaId: string | null; again?: boolean }>(({ input, sendBack }) => {
  const controller = new AbortController();
  upload(input.file, {
    ...(input.formulaId ? { formulaId: input.formulaId } : {}),
    ...(input.again ? { again: true } : {}),
    signal: controller.signal,
    onProgress: (p) => sendBack({ type: 'upload.progress', loaded: p.loaded, total: p.total }),
  }).then(
    (summary) => sendBack({ type: 'upload.succeeded', summary }),
    (err: unknown) => {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      const e = err as { status?: number; problem?: Partial<Problem> };
      sendBack({ type: 'upload.failed', status: e.status ?? 0, problem: e.problem ?? {} });
    },
  );
  return () => controller.abort();
});
const sendFile = createSendFile(uploadFile);

/** Asks `fromUpload` (the formulas service by default) for a draft from the upload, and reports its answer as an event. */
export const createFormulaFrom = (fromUpload: (uploadId: string) => Promise<FormulaView>) => fromCallback<AnyEventObject, { uploadId: string }>(({ input, sendBack }) => {
  fromUpload(input.uploadId).then(
    (formula) => sendBack({ type: 'formula.created', formula }),
    (err: unknown) => {
      const e = err as { status?: number; problem?: Partial<Problem> };
      sendBack({ type: 'formula.failed', status: e.status ?? 0, problem: e.problem ?? {} });
    },
  );
});
const createFormula = createFormulaFrom((uploadId) => formulas.fromUpload(uploadId, { silent: true }));

const checked = (file: File | null) => (file ? checkFileBeforeUpload(file) : null);

/** The earlier upload a refusal names, when the formula has taken the same file before. */
function earlierUploadOf(problem: Partial<Problem>): EarlierUpload | null {
  if (problem.title !== 'upload-already-taken') return null;
  const p = (problem as { previous?: Partial<EarlierUpload> }).previous;
  return p && typeof p.id === 'string' && typeof p.fileName === 'string' && typeof p.uploadedOn === 'string' && typeof p.uploadedBy === 'string'
    ? { id: p.id, fileName: p.fileName, uploadedOn: p.uploadedOn, uploadedBy: p.uploadedBy } : null;
}
const failedAs = (outcome: UploadOutcome) => ({ event }: { event: UploadMachineEvent }) =>
  event.type === 'upload.failed' && outcomeForProblem(event.problem.title, event.status) === outcome;

export const uploadMachine = setup({
  types: {
    context: {} as UploadContext,
    events: {} as UploadMachineEvent,
    input: {} as UploadInput | undefined,
  },
  actors: { sendFile, createFormula },
  guards: {
    isFileNameTooLong: ({ context }) => checked(context.file) === 'file-name-too-long',
    isTypeNotAccepted: ({ context }) => checked(context.file) === 'unsupported-type',
    isTooBig: ({ context }) => checked(context.file) === 'size-too-big',
    isEmpty: ({ context }) => checked(context.file) === 'empty',
    isUnsupportedType: failedAs('unsupported-type'),
    isSizeTooBig: failedAs('size-too-big'),
    isServerUnreachable: failedAs('unreachable-server'),
    isNameTooLongForServer: failedAs('file-name-too-long'),
    isEmptyForServer: failedAs('empty'),
    isWrongStructure: failedAs('wrong-structure'),
    isVirusFound: failedAs('virus-found'),
    // a sample, not a file sent to a formula, on the upload screen of a role that may create formulas
    mayCreateFormula: ({ context }) => context.mayCreateFormula && context.formulaId === null && context.summary !== null,
    isAlreadyUploaded: ({ context, event }) => context.formulaId !== null && event.type === 'upload.failed' && earlierUploadOf(event.problem) !== null,
  },
  actions: {
    chooseFile: assign({
      file: ({ event }) => (event.type === 'file.select' ? event.file : null),
      progress: null, summary: null, detail: null, problem: null, earlier: null, again: false, created: null,
    }),
    recordFormulaRefusal: assign({
      detail: ({ event }) => (event.type === 'formula.failed' ? event.problem.detail ?? null : null),
      problem: ({ event }) => (event.type === 'formula.failed' ? event.problem : null),
    }),
    recordCreated: assign({ created: ({ event }) => (event.type === 'formula.created' ? event.formula : null), problem: null }),
    forgetProblem: assign({ problem: null }),
    recordEarlier: assign({ earlier: ({ event }) => (event.type === 'upload.failed' ? earlierUploadOf(event.problem) : null) }),
    sendAgain: assign({ again: true, earlier: null }),
    forgetFile: assign({ file: null, earlier: null, again: false }),
    startProgress: assign({ progress: ({ context }) => ({ loaded: 0, total: context.file?.size ?? 0 }), detail: null, problem: null }),
    recordProgress: assign({
      progress: ({ event }) => (event.type === 'upload.progress' ? { loaded: event.loaded, total: event.total } : null),
    }),
    recordSummary: assign({ summary: ({ event }) => (event.type === 'upload.succeeded' ? event.summary : null) }),
    recordRefusal: assign({
      detail: ({ event }) => (event.type === 'upload.failed' ? event.problem.detail ?? null : null),
      problem: ({ event }) => (event.type === 'upload.failed' ? event.problem : null),
    }),
  },
}).createMachine({
  id: 'upload',
  initial: 'idle',
  context: ({ input }) => ({
    file: null, progress: null, summary: null, detail: null, problem: null, formulaId: input?.formulaId ?? null, earlier: null, again: false,
    mayCreateFormula: input?.mayCreateFormula ?? false, created: null,
  }),
  states: {
    idle: {
      on: { 'file.select': { target: 'validating', actions: 'chooseFile' } },
    },
    // the browser's own checks, before a byte is sent
    validating: {
      always: [
        { guard: 'isFileNameTooLong', target: 'file-name-too-long' },
        { guard: 'isTypeNotAccepted', target: 'unsupported-type' },
        { guard: 'isTooBig', target: 'size-too-big' },
        { guard: 'isEmpty', target: 'empty' },
        { target: 'uploading' },
      ],
    },
    uploading: {
      entry: 'startProgress',
      invoke: { src: 'sendFile', input: ({ context }) => ({ file: context.file!, formulaId: context.formulaId, again: context.again }) },
      on: {
        'upload.progress': { actions: 'recordProgress' },
        'upload.succeeded': { target: 'success', actions: 'recordSummary' },
        'upload.failed': [
          { guard: 'isAlreadyUploaded', target: 'alreadyUploaded', actions: 'recordEarlier' },
          { guard: 'isVirusFound', target: 'virus-found', actions: 'recordRefusal' },
          { guard: 'isUnsupportedType', target: 'unsupported-type', actions: 'recordRefusal' },
          { guard: 'isSizeTooBig', target: 'size-too-big', actions: 'recordRefusal' },
          { guard: 'isNameTooLongForServer', target: 'file-name-too-long', actions: 'recordRefusal' },
          { guard: 'isEmptyForServer', target: 'empty', actions: 'recordRefusal' },
          { guard: 'isWrongStructure', target: 'wrong-structure', actions: 'recordRefusal' },
          { guard: 'isServerUnreachable', target: 'unreachable-server', actions: 'recordRefusal' },
          { target: 'failed', actions: 'recordRefusal' },
        ],
        'upload.cancel': { target: 'idle' },
      },
    },
    // the formula took this file before: its rows would all come in again, so the user is asked
    alreadyUploaded: {
      on: {
        'upload.again': { target: 'uploading', actions: 'sendAgain' },
        'upload.decline': { target: 'idle', actions: 'forgetFile' },
        'file.select': { target: 'validating', actions: 'chooseFile' },
      },
    },
    // the eight outcomes of SPEC.md section 4; from each, another file can be chosen
    'success': {
      tags: ['outcome', 'uploaded'],
      on: {
        'file.select': { target: 'validating', actions: 'chooseFile' },
        'formula.create': { guard: 'mayCreateFormula', target: 'creatingFormula' },
      },
    },
    // a draft file-upload formula from the uploaded file; the file's summary stays on the screen
    creatingFormula: {
      tags: ['uploaded'],
      entry: 'forgetProblem',
      invoke: { src: 'createFormula', input: ({ context }) => ({ uploadId: context.summary!.id }) },
      on: {
        'formula.created': { target: 'formulaCreated', actions: 'recordCreated' },
        'formula.failed': { target: 'formulaNotCreated', actions: 'recordFormulaRefusal' },
      },
    },
    // the screen opens the wizard on it
    formulaCreated: { tags: ['uploaded'] },
    formulaNotCreated: {
      tags: ['uploaded'],
      on: {
        'file.select': { target: 'validating', actions: 'chooseFile' },
        'formula.create': { target: 'creatingFormula' },
      },
    },
    'unsupported-type': { tags: ['outcome'], on: { 'file.select': { target: 'validating', actions: 'chooseFile' } } },
    'size-too-big': { tags: ['outcome'], on: { 'file.select': { target: 'validating', actions: 'chooseFile' } } },
    // nothing reached the server (or it failed): the same file can be sent again
    'unreachable-server': {
      tags: ['outcome'],
      on: {
        'file.select': { target: 'validating', actions: 'chooseFile' },
        'upload.retry': { target: 'uploading' },
      },
    },
    'file-name-too-long': { tags: ['outcome'], on: { 'file.select': { target: 'validating', actions: 'chooseFile' } } },
    'empty': { tags: ['outcome'], on: { 'file.select': { target: 'validating', actions: 'chooseFile' } } },
    'wrong-structure': { tags: ['outcome'], on: { 'file.select': { target: 'validating', actions: 'chooseFile' } } },
    'virus-found': { tags: ['outcome'], on: { 'file.select': { target: 'validating', actions: 'chooseFile' } } },
    // refused for a reason that is no upload outcome (sign-in expired, no permission)
    failed: {
      on: {
        'file.select': { target: 'validating', actions: 'chooseFile' },
        'upload.retry': { target: 'uploading' },
      },
    },
  },
});

/** The outcome a state of this machine stands for, or null while none is reached. */
export function outcomeOf(state: { hasTag(tag: string): boolean; value: unknown }): UploadOutcome | null {
  return state.hasTag('outcome') ? (state.value as UploadOutcome) : null;
}
