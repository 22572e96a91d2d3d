/**
 * What a bucket screen asks for, and what a bulk action or an export applies to: one definition
 * for the records API (src/domain/api/records.ts), the export service and the bucket screens.
 *
 * A view is one of the /{formulaId}/ bucket routes of SPEC.md section 2: which records it holds,
 * by bucket and state. Paging is keyset (by the sort column, then id), so the first page and the
 * hundredth cost the same at a million records per formula.
 */
import * as v from 'valibot';
import { DateText } from '../dateTime.ts';
import { QUERY_SEARCH_MIN_LENGTH } from '../formula/constants.ts';
import { CUSTOM_BUCKET_PATTERN, type Bucket, type RecordState } from '../formula/statuses.ts';

export interface RecordViewDef {
  /** records in any of these buckets (all buckets when absent) */
  buckets?: readonly Bucket[];
  /** records in any of these states (all states when absent) */
  states?: readonly RecordState[];
}

/** Which records each bucket screen holds. */
export const RECORD_VIEWS = {
  'ready-records': { states: ['ready'] },
  'needs-attention': { states: ['needs-attention'] },
  'needs-attention-one-to-one': { buckets: ['one-to-one-match'], states: ['needs-attention'] },
  'one-to-many': { buckets: ['one-to-many-match'], states: ['needs-attention'] },
  'new-records': { buckets: ['new'], states: ['needs-attention', 'ready'] },
  exception: { buckets: ['exception'] },
  'formula-exceptions': { buckets: ['formula-exception'] },
  'validation-exceptions': { buckets: ['validation-exception'] },
  'related-records': { buckets: ['relationship-match'] },
  /** records written to the destination: created or updated, when, and by whom or by which run */
  sent: { states: ['sent'] },
  /** records a routing rule left out, with the rule that did */
  omitted: { states: ['omitted'] },
} as const satisfies Record<string, RecordViewDef>;
export type RecordView = keyof typeof RECORD_VIEWS;
export const RECORD_VIEW_IDS = Object.keys(RECORD_VIEWS) as RecordView[];

/**
 * The views of records no one reviews any more (sent, or left out by a rule): they are not in the
 * review buckets' indexes (server/db/schema/formulas.ts) but in narrower ones of their own.
 */
export const OUTCOME_VIEWS = ['sent', 'omitted'] as const satisfies readonly RecordView[];
export const isOutcomeView = (view: RecordView): boolean => (OUTCOME_VIEWS as readonly RecordView[]).includes(view);

/** Columns a bucket screen sorts by. */
export const RECORD_SORTS = ['dateAdded', 'dateProcessed', 'score', 'errorDate'] as const;
export type RecordSort = (typeof RECORD_SORTS)[number];

/** The sort a view opens with: sent records by when they were sent, the others by when they were added. */
export function defaultSort(view: RecordView): RecordSort {
  return view === 'sent' ? 'dateProcessed' : 'dateAdded';
}

export const RECORD_PAGE_SIZE = 50;
export const RECORD_MAX_PAGE_SIZE = 200;
/** the large group filter (SPEC.md section 5) and a selection hold at most this many items */
export const RECORD_FILTER_MAX_ITEMS = 1000;
export const RECORD_TEXT_MAX_LENGTH = 200;

export const RECORD_QUERY_MESSAGES = {
  groupEmpty: 'Select at least one item for the group filter.',
  queryShort: `Search text needs at least ${QUERY_SEARCH_MIN_LENGTH} characters.`,
  customBucket: 'Name the validation-exceptions bucket.',
} as const;

/** The filter of a bucket screen: free text, a group of record ids or source keys, a date range. */
export const RecordFilterSchema = v.object({
  /** text any of the record's transformed or raw values contains, any case */
  text: v.optional(v.pipe(
    v.string(), v.trim(),
    v.check((q) => q === '' || [...q].length >= QUERY_SEARCH_MIN_LENGTH, RECORD_QUERY_MESSAGES.queryShort),
    v.maxLength(RECORD_TEXT_MAX_LENGTH),
  )),
  /** the large group filter: only these record ids or source keys; at least one item */
  group: v.optional(v.pipe(
    v.array(v.pipe(v.string(), v.trim(), v.nonEmpty(), v.maxLength(200))),
    v.minLength(1, RECORD_QUERY_MESSAGES.groupEmpty),
    v.maxLength(RECORD_FILTER_MAX_ITEMS),
  )),
  /** records added at or after this ISO date-time */
  addedFrom: v.optional(DateText('date-time')),
  /** records added before this ISO date-time */
  addedTo: v.optional(DateText('date-time')),
});
export type RecordFilter = v.InferOutput<typeof RecordFilterSchema>;

/** Which records: a view of one formula (and its custom bucket), filtered. */
export const RecordScopeSchema = v.pipe(
  v.object({
    view: v.picklist(RECORD_VIEW_IDS),
    /** the validation-exceptions bucket, required for that view */
    customBucket: v.optional(v.pipe(v.string(), v.regex(CUSTOM_BUCKET_PATTERN))),
    filter: v.optional(RecordFilterSchema, {}),
  }),
  v.check((s) => s.view !== 'validation-exceptions' || !!s.customBucket, RECORD_QUERY_MESSAGES.customBucket),
);
export type RecordScope = v.InferOutput<typeof RecordScopeSchema>;

/** What a bulk action or an export applies to: chosen records, or everything the scope matches. */
export const RecordSelectionSchema = v.variant('kind', [
  v.object({
    kind: v.literal('ids'),
    ids: v.pipe(v.array(v.pipe(v.string(), v.uuid())), v.minLength(1), v.maxLength(RECORD_FILTER_MAX_ITEMS)),
  }),
  v.object({ kind: v.literal('scope'), scope: RecordScopeSchema }),
]);
export type RecordSelection = v.InferOutput<typeof RecordSelectionSchema>;

/** Records of a formula grouped by where they sit: what the one counting query answers. */
export interface RecordGroup { bucket: Bucket; customBucket: string | null; state: RecordState; count: number }

/** Whether a view holds records of this bucket and state. */
export function inView(view: RecordView, group: Pick<RecordGroup, 'bucket' | 'state'>): boolean {
  const def: RecordViewDef = RECORD_VIEWS[view];
  return (!def.buckets || def.buckets.includes(group.bucket)) && (!def.states || def.states.includes(group.state));
}

/** Counts per view, per custom validation bucket (by name) and in all, summed from the groups. */
export function viewCounts(groups: readonly RecordGroup[]): { views: Record<RecordView, number>; customBuckets: Map<string, number>; total: number } {
  const views = Object.fromEntries(RECORD_VIEW_IDS.map((id) => [id, 0])) as Record<RecordView, number>;
  const customBuckets = new Map<string, number>();
  let total = 0;
  for (const g of groups) {
    total += g.count;
    for (const id of RECORD_VIEW_IDS) if (inView(id, g)) views[id] += g.count;
    if (g.bucket === 'validation-exception' && g.customBucket) customBuckets.set(g.customBucket, (customBuckets.get(g.customBucket) ?? 0) + g.count);
  }
  return { views, customBuckets, total };
}
