/**
 * Reviewing one record (SPEC.md sections 1, 3 and 5): its incoming values beside a destination
 * candidate's, each candidate's confidence and match reasons; picking a candidate, creating a new
 * record, adding it to Ready, editing an incoming value inline (refused with 'Input contains
 * incompatible data' when the field cannot hold it, or with the server's reason; what was typed
 * stays to be fixed, beside the value the server kept) or choosing per field whether it overwrites the
 * destination's; and Match Search (at least 3 characters) to find a destination record by hand.
 * Roles without the records edit policy see it all and are told they do not have editing permission.
 */
import { assign, fromPromise, not, setup } from 'xstate';
import { RECORD_API_MESSAGES, type MatchSearchResult, type RecordDetail } from '../domain/api/records.ts';
import { QUERY_SEARCH_MIN_LENGTH } from '../domain/formula/constants.ts';
import { destinationName } from '../domain/formula/recordLabel.ts';
import { records } from '../services/records.ts';
import { NO_EDIT_PERMISSION, problemMessage } from './bucketRecords.ts';

export interface RecordReviewInput { formulaId: string; recordId: string; canEdit: boolean }

/** An inline change: one incoming value, or whether one field overwrites the destination's. */
export type RecordChange = { field: string; value: string | null } | { field: string; overwrite: boolean };

export interface RecordReviewContext extends RecordReviewInput {
  detail: RecordDetail | null;
  /** the candidate shown beside the incoming values */
  compared: string | null;
  change: RecordChange | null;
  /** why an inline change of a field was refused, by field */
  fieldErrors: Record<string, string>;
  /**
   * What was typed into a field and is not saved yet (on its way, or refused), by field: the
   * editor stays open with it beside the value the server kept, so a refused value can be fixed.
   */
  drafts: Record<string, string | null>;
  results: MatchSearchResult | null;
  /** the Match Search query of the results shown */
  searched: string | null;
  searchProblem: string | null;
  notice: string | null;
  actionError: string | null;
  pendingAction: 'ready' | 'createNew' | null;
  /** changes made so far: the list behind the review reads its page again after each */
  changes: number;
}

export type RecordReviewEvent =
  | { type: 'candidate.compare'; candidateId: string }
  | { type: 'match.pick'; candidateId: string }
  | { type: 'record.act'; action: 'ready' | 'createNew' }
  | { type: 'record.change'; change: RecordChange }
  /** the typed value is dropped; the field keeps the value the server has */
  | { type: 'edit.cancel'; field: string }
  | { type: 'search.submit'; q: string }
  | { type: 'record.reload' };

export const REVIEW_ACTION_LABELS = { ready: 'Add to Ready', createNew: 'Create new' } as const;

const queryShort = (q: string) => [...q.trim()].length < QUERY_SEARCH_MIN_LENGTH;
const without = <T>(map: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _dropped, ...rest } = map;
  return rest;
};
/** Why the server refused a field's value: its own words for the field, else the problem's catalogue message. */
function fieldReason(error: unknown, field: string): string {
  const errors = (error as { problem?: { errors?: unknown } } | null)?.problem?.errors;
  const own = errors && typeof errors === 'object' ? (errors as Record<string, unknown>)[field] : undefined;
  return typeof own === 'string' && own ? own : problemMessage(error);
}
/** the candidate compared at first: the chosen one, else the best */
/** The picked destination record by its name and own id (the record's candidates hold it once picked), else by its id. */
const pickedName = (d: RecordDetail, id: string | null) => {
  const picked = d.candidates.find((x) => x.id === id);
  return picked ? destinationName(picked) : id ?? '';
};
const firstCompared = (d: RecordDetail) => d.destination?.id ?? d.candidates[0]?.id ?? null;

export const recordReviewMachine = setup({
  types: { context: {} as RecordReviewContext, events: {} as RecordReviewEvent, input: {} as RecordReviewInput },
  actors: {
    loadRecord: fromPromise<RecordDetail, { formulaId: string; recordId: string }>(async ({ input }) =>
      records.get(input.formulaId, input.recordId, { silent: true })),
    pickMatch: fromPromise<RecordDetail, { formulaId: string; recordId: string; candidateId: string; query?: string }>(async ({ input }) =>
      records.pickMatch(input.formulaId, input.recordId, input.candidateId, input.query, { silent: true })),
    saveChange: fromPromise<RecordDetail, { formulaId: string; recordId: string; change: RecordChange }>(async ({ input }) => {
      const c = input.change;
      return records.edit(input.formulaId, input.recordId, 'value' in c ? { values: { [c.field]: c.value } } : { overwrite: { [c.field]: c.overwrite } }, { silent: true });
    }),
    runAction: fromPromise<{ affected: number }, { formulaId: string; recordId: string; action: 'ready' | 'createNew' }>(async ({ input }) =>
      records.act(input.formulaId, input.action, { kind: 'ids', ids: [input.recordId] }, { silent: true })),
    matchSearch: fromPromise<MatchSearchResult, { formulaId: string; q: string }>(async ({ input }) =>
      records.matchSearch(input.formulaId, input.q.trim(), { silent: true })),
  },
  actions: {
    refuse: assign({ actionError: NO_EDIT_PERMISSION, notice: null }),
  },
  guards: {
    mayEdit: ({ context }) => context.canEdit,
    isQueryLongEnough: ({ event }) => event.type === 'search.submit' && !queryShort(event.q),
  },
}).createMachine({
  id: 'recordReview',
  initial: 'loading',
  context: ({ input }) => ({
    ...input, detail: null, compared: null, change: null, fieldErrors: {}, drafts: {}, results: null, searched: null, searchProblem: null, notice: null, actionError: null,
    pendingAction: null, changes: 0,
  }),
  states: {
    loading: {
      invoke: {
        id: 'loadRecord',
        src: 'loadRecord',
        input: ({ context }) => ({ formulaId: context.formulaId, recordId: context.recordId }),
        onDone: { target: 'showing', actions: assign(({ event }) => ({ detail: event.output, compared: firstCompared(event.output) })) },
        onError: 'failed',
      },
    },
    showing: {
      on: {
        'candidate.compare': { actions: assign(({ event }) => ({ compared: event.candidateId })) },
        'match.pick': [
          { guard: not('mayEdit'), actions: 'refuse' },
          { target: 'picking', actions: assign(({ event }) => ({ compared: event.candidateId, notice: null, actionError: null })) },
        ],
        'record.act': [
          { guard: not('mayEdit'), actions: 'refuse' },
          { target: 'acting', actions: assign(({ event }) => ({ pendingAction: event.action, notice: null, actionError: null })) },
        ],
        'record.change': [
          { guard: not('mayEdit'), actions: 'refuse' },
          {
            target: 'saving',
            actions: assign(({ context, event }) => ({
              change: event.change, fieldErrors: without(context.fieldErrors, event.change.field), notice: null, actionError: null,
              drafts: 'value' in event.change ? { ...context.drafts, [event.change.field]: event.change.value } : context.drafts,
            })),
          },
        ],
        'edit.cancel': { actions: assign(({ context, event }) => ({ drafts: without(context.drafts, event.field), fieldErrors: without(context.fieldErrors, event.field) })) },
        'search.submit': [
          { guard: 'isQueryLongEnough', target: 'searching', actions: assign(({ event }) => ({ searchProblem: null, searched: event.q.trim() })) },
          { actions: assign({ searchProblem: RECORD_API_MESSAGES.matchQueryShort, results: null }) },
        ],
        'record.reload': 'loading',
      },
    },
    picking: {
      invoke: {
        id: 'pickMatch',
        src: 'pickMatch',
        input: ({ context }) => ({
          formulaId: context.formulaId, recordId: context.recordId, candidateId: context.compared!,
          // a destination record Match Search found is picked with the query that found it
          ...(context.detail?.candidates.some((x) => x.id === context.compared) || !context.searched ? {} : { query: context.searched }),
        }),
        onDone: {
          target: 'showing',
          actions: assign(({ context, event }) => ({ detail: event.output, notice: `Matched to destination record ${pickedName(event.output, context.compared)}.`, changes: context.changes + 1 })),
        },
        onError: { target: 'showing', actions: assign(({ event }) => ({ actionError: problemMessage(event.error) })) },
      },
    },
    saving: {
      invoke: {
        id: 'saveChange',
        src: 'saveChange',
        input: ({ context }) => ({ formulaId: context.formulaId, recordId: context.recordId, change: context.change! }),
        onDone: {
          target: 'showing',
          // the field shows what the server saved, not what was typed
          actions: assign(({ context, event }) => ({
            detail: event.output, notice: `${context.change!.field} saved.`, drafts: without(context.drafts, context.change!.field), change: null, changes: context.changes + 1,
          })),
        },
        onError: {
          target: 'showing',
          // the typed value stays in its editor, with the reason, beside the value the server kept
          actions: assign(({ context, event }) => ({ fieldErrors: { ...context.fieldErrors, [context.change!.field]: fieldReason(event.error, context.change!.field) }, change: null })),
        },
      },
    },
    acting: {
      invoke: {
        id: 'runAction',
        src: 'runAction',
        input: ({ context }) => ({ formulaId: context.formulaId, recordId: context.recordId, action: context.pendingAction! }),
        onDone: {
          target: 'loading',
          actions: assign(({ context }) => ({
            notice: context.pendingAction === 'ready' ? 'The record was added to Ready.' : 'The record will create a new destination record.',
            pendingAction: null, changes: context.changes + 1,
          })),
        },
        onError: { target: 'showing', actions: assign(({ event }) => ({ actionError: problemMessage(event.error), pendingAction: null })) },
      },
    },
    searching: {
      invoke: {
        id: 'matchSearch',
        src: 'matchSearch',
        input: ({ context, event }) => ({ formulaId: context.formulaId, q: event.type === 'search.submit' ? event.q : '' }),
        onDone: { target: 'showing', actions: assign(({ event }) => ({ results: event.output })) },
        onError: { target: 'showing', actions: assign(({ event }) => ({ searchProblem: problemMessage(event.error), results: null })) },
      },
    },
    failed: {
      on: { 'record.reload': 'loading' },
    },
  },
});
