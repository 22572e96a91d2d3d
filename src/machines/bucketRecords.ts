/**
 * A bucket screen (SPEC.md sections 2 and 3): one view of a formula's records, a page at a time by
 * the records API's keyset cursor, sorted and filtered on the server, with a selection (none, some
 * records, or everything the filter matches) that the bulk actions apply to: add to Ready, send
 * now, create new and delete (after a confirmation). Filters are checked with the shared schema
 * (src/domain/records/query.ts) before anything is asked of the server; roles without the records
 * edit (or send) policy see the records and are told they do not have editing permission.
 */
import * as v from 'valibot';
import { and, assign, fromPromise, not, setup } from 'xstate';
import type { SortDirection } from '../domain/api/records.ts';
import { formulaDisplayName } from '../domain/formula/formula.ts';
import { MESSAGES, messageForProblem, type Problem } from '../domain/errors.ts';
import { defaultSort, RecordFilterSchema, type RecordFilter, type RecordScope, type RecordSelection, type RecordSort, type RecordView } from '../domain/records/query.ts';
import { formulas } from '../services/formulas.ts';
import { records, type RecordAction, type RecordCounts, type RecordPage } from '../services/records.ts';

export { RECORD_ACTIONS, type RecordAction } from '../domain/api/records.ts';

export type RecordRow = RecordPage['records'][number];
export type FilterField = 'text' | 'group' | 'addedFrom' | 'addedTo';

/** Which records a bulk action applies to. */
export type BucketSelection = { kind: 'none' } | { kind: 'ids'; ids: string[] } | { kind: 'matching' };

export interface BucketRecordsInput {
  formulaId: string;
  view: RecordView;
  /** the validation-exceptions bucket of that view */
  customBucket: string | null;
  /** the records edit policy: add to Ready, create new, delete */
  canEdit: boolean;
  /** the records send policy: send now */
  canSend: boolean;
}

export interface BucketRecordsContext extends BucketRecordsInput {
  formulaName: string | null;
  counts: RecordCounts | null;
  sort: RecordSort;
  direction: SortDirection;
  /** the filter of the records shown */
  filter: RecordFilter;
  /** what is wrong with a filter the user tried to apply */
  problems: Partial<Record<FilterField, string>>;
  records: RecordRow[];
  summaryFields: string[];
  /** the cursor each page visited so far started at: the last is the page shown */
  cursors: (string | null)[];
  nextCursor: string | null;
  selection: BucketSelection;
  /** the action waiting for its confirmation, or under way */
  pending: RecordAction | null;
  /** what the last action did */
  notice: string | null;
  /** why the last action did not happen */
  actionError: string | null;
  /** the record shown one at a time (needs-attention/v2), an index into `records` */
  focused: number;
}

export type BucketRecordsEvent =
  | { type: 'page.next' }
  | { type: 'page.previous' }
  | { type: 'sort.change'; sort: RecordSort; direction: SortDirection }
  | { type: 'filter.apply'; filter: RecordFilter }
  | { type: 'record.toggle'; id: string }
  | { type: 'page.toggle' }
  | { type: 'select.matching' }
  | { type: 'select.none' }
  | { type: 'action.request'; action: RecordAction }
  | { type: 'action.confirm' }
  | { type: 'action.cancel' }
  | { type: 'focus.next' }
  | { type: 'focus.previous' }
  | { type: 'list.reload' };

export const ACTION_LABELS: Record<RecordAction, string> = { ready: 'Add to Ready', send: 'Send now', createNew: 'Create new', remove: 'Delete' };
const DONE: Record<RecordAction, string> = { ready: 'added to Ready', send: 'queued for sending', createNew: 'set to create new records', remove: 'deleted' };
export const NO_EDIT_PERMISSION = MESSAGES.noEditPermission;

/** How many records the selection holds, in words: the bucket's count when everything unfiltered is chosen. */
export function selectionWords(c: Pick<BucketRecordsContext, 'selection' | 'filter' | 'counts' | 'view' | 'customBucket'>): string {
  const records = (n: number) => (n === 1 ? '1 record' : `${n} records`);
  if (c.selection.kind === 'matching') {
    if (isFiltered(c.filter)) return 'Every record matching the filter';
    const n = c.customBucket ? c.counts?.customBuckets.find((b) => b.name === c.customBucket)?.count : c.counts?.views[c.view];
    return n === undefined ? 'Every record in this bucket' : `Every record in this bucket (${records(n)})`;
  }
  return records(c.selection.kind === 'ids' ? c.selection.ids.length : 0);
}

/** actions the screen asks about first, and what their confirmation says will happen */
export const CONFIRMED_RECORD_ACTIONS: readonly RecordAction[] = ['send', 'remove'];
export function actionConfirmation(c: BucketRecordsContext, action: RecordAction): { title: string; text: string; button: string } {
  const which = selectionWords(c);
  const of = c.formulaName ? ` of ${c.formulaName}` : '';
  if (action === 'send') {
    return {
      title: 'Send records now?', button: ACTION_LABELS.send,
      text: `${which}${of} will be queued for sending to the destination now, without waiting for the schedule or a review. Records that cannot be sent stay where they are.`,
    };
  }
  return { title: 'Delete records?', button: ACTION_LABELS.remove, text: `${which}${of} will be deleted. This cannot be undone.` };
}

/** What is wrong with a filter, by field, in the shared schema's words. */
export function filterProblems(filter: RecordFilter): Partial<Record<FilterField, string>> {
  const result = v.safeParse(RecordFilterSchema, filter);
  if (result.success) return {};
  const problems: Partial<Record<FilterField, string>> = {};
  for (const issue of result.issues) {
    const field = issue.path?.[0]?.key as FilterField | undefined;
    if (field && !problems[field]) problems[field] = issue.message;
  }
  return problems;
}

/** The filter as the API takes it: blank text left out. */
export function cleanFilter(filter: RecordFilter): RecordFilter {
  const text = filter.text?.trim();
  return { ...filter, text: text ? text : undefined };
}

/** Whether a filter narrows the view at all. */
export const isFiltered = (f: RecordFilter) => !!(f.text || f.group || f.addedFrom || f.addedTo);

export function scopeOf(c: Pick<BucketRecordsContext, 'view' | 'customBucket' | 'filter'>): RecordScope {
  return { view: c.view, ...(c.customBucket ? { customBucket: c.customBucket } : {}), filter: cleanFilter(c.filter) };
}

/** The selection as the API takes it. */
export function selectionOf(c: BucketRecordsContext): RecordSelection | null {
  if (c.selection.kind === 'ids') return c.selection.ids.length ? { kind: 'ids', ids: c.selection.ids } : null;
  if (c.selection.kind === 'matching') return { kind: 'scope', scope: scopeOf(c) };
  return null;
}

/** The message of a refused request: the catalogue's, or the generic one. */
export function problemMessage(error: unknown): string {
  const problem = (error as { problem?: Partial<Problem> } | null)?.problem;
  return problem ? messageForProblem(problem) : MESSAGES.generic;
}

const mayDo = (c: BucketRecordsContext, action: RecordAction) => (action === 'send' ? c.canSend : c.canEdit);
const selectedIds = (s: BucketSelection) => (s.kind === 'ids' ? s.ids : []);

export interface PageRequest { formulaId: string; scope: RecordScope; sort: RecordSort; direction: SortDirection; cursor: string | null }
export interface PageAnswer { page: RecordPage; counts: RecordCounts | null }
export interface ActionRequest { formulaId: string; action: RecordAction; selection: RecordSelection }

export const bucketRecordsMachine = setup({
  types: { context: {} as BucketRecordsContext, events: {} as BucketRecordsEvent, input: {} as BucketRecordsInput },
  actors: {
    /** the formula's name for the header: the records show without it */
    loadFormula: fromPromise<string | null, { formulaId: string }>(async ({ input }) => {
      const formula = await formulas.get(input.formulaId, { silent: true }).catch(() => null);
      return formula ? formulaDisplayName(formula) : null;
    }),
    /** a page, and the counts of every view (kept, not recounted, so cheap) for the bucket links */
    loadPage: fromPromise<PageAnswer, PageRequest>(async ({ input }) => {
      const silent = { silent: true };
      const [page, counts] = await Promise.all([
        records.page(input.formulaId, { scope: input.scope, sort: input.sort, direction: input.direction, cursor: input.cursor ?? undefined }, silent),
        records.counts(input.formulaId, silent).catch(() => null),
      ]);
      return { page, counts };
    }),
    runAction: fromPromise<{ affected: number; skipped: number }, ActionRequest>(async ({ input }) =>
      records.act(input.formulaId, input.action, input.selection, { silent: true })),
  },
  actions: {
    takeFilter: assign(({ event }) => (event.type === 'filter.apply' ? { filter: cleanFilter(event.filter), problems: {}, cursors: [null], selection: { kind: 'none' } as const } : {})),
    showProblems: assign(({ event }) => (event.type === 'filter.apply' ? { problems: filterProblems(event.filter) } : {})),
    refuse: assign({ actionError: NO_EDIT_PERMISSION, notice: null }),
  },
  guards: {
    isFilterValid: ({ event }) => event.type === 'filter.apply' && Object.keys(filterProblems(event.filter)).length === 0,
    hasNextPage: ({ context }) => context.nextCursor !== null,
    hasPreviousPage: ({ context }) => context.cursors.length > 1,
    mayAct: ({ context, event }) => event.type === 'action.request' && mayDo(context, event.action),
    needsConfirmation: ({ event }) => event.type === 'action.request' && CONFIRMED_RECORD_ACTIONS.includes(event.action),
    hasSelection: ({ context }) => selectionOf(context) !== null,
    hasNextRecord: ({ context }) => context.focused < context.records.length - 1,
    hasPreviousRecord: ({ context }) => context.focused > 0,
    /** the records API answers 404 only for a formula this tenant does not have */
    isFormulaMissing: ({ event }) => (event as { error?: { status?: number } }).error?.status === 404,
  },
}).createMachine({
  id: 'bucketRecords',
  initial: 'loading',
  context: ({ input }) => ({
    ...input, formulaName: null, counts: null, sort: defaultSort(input.view), direction: 'desc', filter: {}, problems: {}, records: [], summaryFields: [],
    cursors: [null], nextCursor: null, selection: { kind: 'none' }, pending: null, notice: null, actionError: null, focused: 0,
  }),
  invoke: {
    id: 'loadFormula',
    src: 'loadFormula',
    input: ({ context }) => ({ formulaId: context.formulaId }),
    onDone: { actions: assign(({ event }) => ({ formulaName: event.output })) },
  },
  states: {
    loading: {
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => ({
          formulaId: context.formulaId, scope: scopeOf(context), sort: context.sort, direction: context.direction, cursor: context.cursors.at(-1) ?? null,
        }),
        onDone: {
          target: 'showing',
          actions: assign(({ context, event }) => ({
            records: event.output.page.records, summaryFields: event.output.page.summaryFields, nextCursor: event.output.page.nextCursor,
            counts: event.output.counts ?? context.counts, focused: Math.min(context.focused, Math.max(0, event.output.page.records.length - 1)),
          })),
        },
        onError: [{ guard: 'isFormulaMissing', target: 'formulaMissing' }, { target: 'failed' }],
      },
    },
    showing: {
      on: {
        'page.next': { guard: 'hasNextPage', target: 'loading', actions: assign(({ context }) => ({ cursors: [...context.cursors, context.nextCursor], focused: 0, notice: null, actionError: null })) },
        'page.previous': { guard: 'hasPreviousPage', target: 'loading', actions: assign(({ context }) => ({ cursors: context.cursors.slice(0, -1), focused: 0, notice: null, actionError: null })) },
        'sort.change': { target: 'loading', actions: assign(({ event }) => ({ sort: event.sort, direction: event.direction, cursors: [null], focused: 0 })) },
        'filter.apply': [{ guard: 'isFilterValid', target: 'loading', actions: 'takeFilter' }, { actions: 'showProblems' }],
        'record.toggle': {
          actions: assign(({ context, event }) => {
            const ids = selectedIds(context.selection);
            const next = ids.includes(event.id) ? ids.filter((id) => id !== event.id) : [...ids, event.id];
            return { selection: next.length ? { kind: 'ids' as const, ids: next } : { kind: 'none' as const } };
          }),
        },
        'page.toggle': {
          actions: assign(({ context }) => {
            const onPage = context.records.map((r) => r.id);
            const ids = selectedIds(context.selection);
            const all = context.selection.kind === 'matching' || onPage.every((id) => ids.includes(id));
            return { selection: all ? { kind: 'none' as const } : { kind: 'ids' as const, ids: [...new Set([...ids, ...onPage])] } };
          }),
        },
        'select.matching': { actions: assign({ selection: { kind: 'matching' } }) },
        'select.none': { actions: assign({ selection: { kind: 'none' } }) },
        'action.request': [
          { guard: not('mayAct'), actions: 'refuse' },
          { guard: and(['hasSelection', 'needsConfirmation']), target: 'confirming', actions: assign(({ event }) => ({ pending: event.action, notice: null, actionError: null })) },
          { guard: 'hasSelection', target: 'acting', actions: assign(({ event }) => ({ pending: event.action, notice: null, actionError: null })) },
        ],
        'focus.next': [
          { guard: 'hasNextRecord', actions: assign(({ context }) => ({ focused: context.focused + 1 })) },
          { guard: 'hasNextPage', target: 'loading', actions: assign(({ context }) => ({ cursors: [...context.cursors, context.nextCursor], focused: 0 })) },
        ],
        'focus.previous': { guard: 'hasPreviousRecord', actions: assign(({ context }) => ({ focused: context.focused - 1 })) },
        'list.reload': 'loading',
      },
    },
    confirming: {
      on: {
        'action.confirm': 'acting',
        'action.cancel': { target: 'showing', actions: assign({ pending: null }) },
      },
    },
    acting: {
      invoke: {
        id: 'runAction',
        src: 'runAction',
        input: ({ context }) => ({ formulaId: context.formulaId, action: context.pending!, selection: selectionOf(context)! }),
        onDone: {
          // the records acted on leave this view (or change): the page is read again from where it started
          target: 'loading',
          actions: assign(({ context, event }) => ({
            notice: `${event.output.affected === 1 ? '1 record' : `${event.output.affected} records`} ${DONE[context.pending!]}.${event.output.skipped ? ` ${event.output.skipped} could not be.` : ''}`,
            pending: null, selection: { kind: 'none' as const },
          })),
        },
        onError: { target: 'showing', actions: assign(({ event }) => ({ actionError: problemMessage(event.error), pending: null })) },
      },
    },
    /** no such formula: the screen is the not-found page, and trying again would find nothing */
    formulaMissing: { type: 'final' },
    failed: {
      on: {
        'list.reload': 'loading',
        'filter.apply': [{ guard: 'isFilterValid', target: 'loading', actions: 'takeFilter' }, { actions: 'showProblems' }],
      },
    },
  },
});
