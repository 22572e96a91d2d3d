/**
 * Contracts of the records API (/web-api/v1/records): the records of a formula's bucket screens
 * (SPEC.md sections 2 and 3), a page at a time by keyset, with counts per view; one record in full
 * with its candidates; the actions of a Data Processor on a selection (add to Ready, pick a match,
 * treat as new, send now, delete); inline editing of incoming values; and Match Search, which
 * finds destination records by hand. Views, filters and selections are src/domain/records/query.ts.
 *
 * A list takes a POST body rather than a query string: the large group filter holds up to 1,000
 * record ids or source keys, more than a URL carries safely.
 */
import * as v from 'valibot';
import { CURSOR_MESSAGE } from '../cursor.ts';
import { QUERY_SEARCH_MIN_LENGTH } from '../formula/constants.ts';
import { BUCKETS, RECORD_STATES, RUN_KINDS } from '../formula/statuses.ts';
import {
  RECORD_MAX_PAGE_SIZE, RECORD_PAGE_SIZE, RECORD_SORTS, RECORD_VIEW_IDS, RecordScopeSchema, RecordSelectionSchema,
} from '../records/query.ts';
import { endpoint, service } from './contract.ts';

export const RECORD_API_MESSAGES = {
  /** SPEC.md section 5, word for word */
  matchQueryShort: `Query search needs at least ${QUERY_SEARCH_MIN_LENGTH} characters`,
  /** SPEC.md section 5, word for word: an inline edit a field cannot hold */
  incompatible: 'Input contains incompatible data',
  /** an inline edit that clears a field the destination requires */
  required: 'A value is required here',
  cursor: CURSOR_MESSAGE,
} as const;

export const MATCH_SEARCH_MAX_LENGTH = 100;
export const MATCH_SEARCH_LIMIT = 25;
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** A value a person types into a field, or blank (null). */
export const FieldInputSchema = v.nullable(v.union([v.string(), v.number(), v.boolean()]));

// ------------------------------------------------------------------------------------- list

export const RecordListRequestSchema = v.object({
  scope: RecordScopeSchema,
  sort: v.optional(v.picklist(RECORD_SORTS), 'dateAdded'),
  /** newest (or highest) first unless said */
  direction: v.optional(v.picklist(SORT_DIRECTIONS), 'desc'),
  /** the previous page's nextCursor, with the same scope and sort */
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[\w-]{1,400}$/, RECORD_API_MESSAGES.cursor))),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(RECORD_MAX_PAGE_SIZE)), RECORD_PAGE_SIZE),
});
export type RecordListRequest = v.InferInput<typeof RecordListRequestSchema>;

/** A row of a bucket screen: the record fields of SPEC.md section 3 and the formula's summary fields. */
export const RecordRowSchema = v.object({
  id: v.string(),
  /** the record's identity in the source */
  sourceKey: v.string(),
  /** what a person knows the record by: its summary fields' values ('Grace Hopper · grace@navy.example'); null when they are blank */
  title: v.nullable(v.string()),
  /** where it came from, in words: 'spring-1.csv, line 2', or the source system's own id */
  sourcePosition: v.string(),
  /** the destination record it was matched to or written as (SPEC's record id); null until then */
  recordId: v.nullable(v.string()),
  dateAdded: v.string(),
  dateProcessed: v.nullable(v.string()),
  /** the chosen (or best) candidate's match reasons */
  matchReasons: v.array(v.string()),
  errorReason: v.nullable(v.string()),
  errorDate: v.nullable(v.string()),
  bucket: v.picklist(BUCKETS),
  customBucket: v.nullable(v.string()),
  state: v.picklist(RECORD_STATES),
  /** the best candidate's confidence, 0 to 100 */
  score: v.nullable(v.number()),
  candidateCount: v.number(),
  /** related records: the destination record this one waits for (a gift's constituent), by the field and value that name it */
  waitingFor: v.nullable(v.object({ object: v.string(), field: v.string(), value: v.string() })),
  /** the formula's summary fields (destination fields) with the record's incoming values */
  summary: v.record(v.string(), v.unknown()),
  /** what the destination did with it once sent */
  outcome: v.nullable(v.picklist(['created', 'updated'])),
  /** a sent record: the person whose Send now wrote it (their name, null once removed), or the run that did (its trigger and start); null otherwise or when not known */
  sentBy: v.nullable(v.variant('kind', [
    v.object({ kind: v.literal('person'), name: v.nullable(v.string()) }),
    v.object({ kind: v.literal('run'), runId: v.string(), trigger: v.picklist(RUN_KINDS), startedOn: v.string() }),
  ])),
  /** an omitted record: the routing rule that left it out (its 1-based number) and the reason in words; null otherwise */
  omittedBy: v.nullable(v.object({ rule: v.nullable(v.number()), reason: v.string() })),
});
export type RecordRowView = v.InferOutput<typeof RecordRowSchema>;

export const RecordPageSchema = v.object({
  records: v.array(RecordRowSchema),
  /** the formula's summary fields, in order: the columns of the rows' `summary` */
  summaryFields: v.array(v.string()),
  /** pass as `cursor` for the next page; null on the last */
  nextCursor: v.nullable(v.string()),
});
export type RecordPage = v.InferOutput<typeof RecordPageSchema>;

/** Records per view (tabs and badges), and per custom validation bucket. */
export const RecordCountsSchema = v.object({
  views: v.object(Object.fromEntries(RECORD_VIEW_IDS.map((id) => [id, v.number()])) as Record<(typeof RECORD_VIEW_IDS)[number], v.NumberSchema<undefined>>),
  customBuckets: v.array(v.object({ name: v.string(), count: v.number() })),
  total: v.number(),
});
export type RecordCounts = v.InferOutput<typeof RecordCountsSchema>;

// ----------------------------------------------------------------------------------- detail

/** A destination record the searches found, with why and how well it matches. */
export const CandidateSchema = v.object({
  id: v.string(),
  /** the destination record's values of the formula's summary fields, as a record's title is; null when they are blank */
  title: v.nullable(v.string()),
  /** the destination's own id for it as its screens show it (Lookup ID SC-000619), where the destination has one */
  ownId: v.nullable(v.object({ label: v.string(), value: v.string() })),
  /** its page in the destination itself (https), where the destination has one a person can open */
  page: v.nullable(v.string()),
  score: v.number(),
  reasons: v.array(v.string()),
  /** the name of the first scenario that found it ('Match Search' for one picked by hand) */
  scenario: v.string(),
  /** the destination record's values as found */
  fields: v.record(v.string(), v.unknown()),
});
export type CandidateView = v.InferOutput<typeof CandidateSchema>;

export const RecordDetailSchema = v.object({
  ...RecordRowSchema.entries,
  raw: v.record(v.string(), v.unknown()),
  transformed: v.nullable(v.record(v.string(), v.unknown())),
  /** the matching data routing reads (tier, candidate count, route reason, ...) */
  matching: v.nullable(v.record(v.string(), v.unknown())),
  candidates: v.array(CandidateSchema),
  /** the chosen candidate's current values in the destination, and its page there (as a candidate's); null when none is chosen or it is gone */
  destination: v.nullable(v.object({ id: v.string(), fields: v.record(v.string(), v.unknown()), page: v.nullable(v.string()) })),
  /** per field: false where the incoming value must not overwrite the destination's */
  overwrite: v.record(v.string(), v.boolean()),
});
export type RecordDetail = v.InferOutput<typeof RecordDetailSchema>;

// ---------------------------------------------------------------------------------- actions

/** The actions a bucket screen applies to a selection (each an endpoint of the records service below). */
export const RECORD_ACTIONS = ['ready', 'send', 'createNew', 'remove'] as const;
export type RecordAction = (typeof RECORD_ACTIONS)[number];

export const RecordActionRequestSchema = v.object({ selection: RecordSelectionSchema });
export type RecordActionRequest = v.InferInput<typeof RecordActionRequestSchema>;

/** What an action did: records changed, records of the selection it could not apply to, and the event's correlation id. */
export const RecordActionResultSchema = v.object({
  affected: v.number(),
  skipped: v.number(),
  correlationId: v.string(),
});
export type RecordActionResult = v.InferOutput<typeof RecordActionResultSchema>;

/** Send now: the records are marked for sending and a send job takes them. */
export const RecordSendResultSchema = v.object({
  ...RecordActionResultSchema.entries,
  /** the first send job queued; null when nothing was left to send */
  jobId: v.nullable(v.string()),
});
export type RecordSendResult = v.InferOutput<typeof RecordSendResultSchema>;

export const PickMatchRequestSchema = v.object({
  /** one of the record's candidates, or a destination record Match Search found */
  candidateId: v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)),
  /** the Match Search query that found it, when it is not one of the record's candidates */
  query: v.optional(v.pipe(v.string(), v.trim(), v.minLength(QUERY_SEARCH_MIN_LENGTH, RECORD_API_MESSAGES.matchQueryShort), v.maxLength(MATCH_SEARCH_MAX_LENGTH))),
});

export const RecordEditRequestSchema = v.object({
  /** new incoming values by destination field */
  values: v.optional(v.record(v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)), FieldInputSchema), {}),
  /** per field: whether the incoming value overwrites the destination's */
  overwrite: v.optional(v.record(v.pipe(v.string(), v.nonEmpty(), v.maxLength(200)), v.boolean()), {}),
});
export type RecordEditRequest = v.InferInput<typeof RecordEditRequestSchema>;

// ------------------------------------------------------------------------------ match search

export const MatchSearchQuerySchema = v.object({
  q: v.pipe(
    v.string(RECORD_API_MESSAGES.matchQueryShort), v.trim(),
    v.check((q) => [...q].length >= QUERY_SEARCH_MIN_LENGTH, RECORD_API_MESSAGES.matchQueryShort),
    v.check((q) => [...q].length <= MATCH_SEARCH_MAX_LENGTH, `Query search takes at most ${MATCH_SEARCH_MAX_LENGTH} characters`),
    v.description(`text a destination record's mapped fields start with or contain, at least ${QUERY_SEARCH_MIN_LENGTH} characters`),
  ),
});

export const MatchSearchResultSchema = v.object({
  results: v.array(v.object({
    id: v.string(),
    /** as a candidate's: the summary fields' values, and the destination's own id for it */
    title: v.nullable(v.string()),
    ownId: v.nullable(v.object({ label: v.string(), value: v.string() })),
    fields: v.record(v.string(), v.unknown()),
  })),
  /** the destination fields searched */
  fields: v.array(v.string()),
});
export type MatchSearchResult = v.InferOutput<typeof MatchSearchResultSchema>;

// -------------------------------------------------------------------------------- endpoints

const view = { resource: 'records', action: 'view' } as const;
/**
 * Actions are open to anyone who may view records, and the service refuses editing without the
 * records edit (or send) policy with 'no-edit-permission', whose message SPEC.md section 6 gives.
 */
const act = view;

export const recordsService = service({
  name: 'web API: records',
  basePath: '/web-api/v1/records',
  endpoints: {
    counts: endpoint({ method: 'get', path: '/:formulaId/counts', access: view, response: RecordCountsSchema, summary: 'Records of the formula per bucket view.' }),
    list: endpoint({
      method: 'post', path: '/:formulaId/query', access: view, body: RecordListRequestSchema, response: RecordPageSchema,
      summary: 'A page of the records of a bucket view, filtered and sorted (keyset paging: pass nextCursor back).',
    }),
    matchSearch: endpoint({
      method: 'get', path: '/:formulaId/match-search', access: view, query: MatchSearchQuerySchema, response: MatchSearchResultSchema,
      summary: 'Match Search: destination records whose mapped fields start with or contain the query, to match a record by hand.',
      problems: ['connection-failed', 'connection-error'],
    }),
    get: endpoint({ method: 'get', path: '/:formulaId/records/:recordId', access: view, response: RecordDetailSchema, summary: 'One record in full, with its candidates.' }),
    edit: endpoint({
      method: 'patch', path: '/:formulaId/records/:recordId', access: act, body: RecordEditRequestSchema, response: RecordDetailSchema,
      summary: 'Edits incoming values inline, and per field whether incoming overwrites the destination value.',
      problems: ['no-edit-permission', 'record-incompatible-data', 'record-not-editable'],
    }),
    pickMatch: endpoint({
      method: 'post', path: '/:formulaId/records/:recordId/match', access: act, body: PickMatchRequestSchema, response: RecordDetailSchema,
      summary: 'Matches the record to a candidate (or a Match Search result): it will update that destination record.',
      problems: ['no-edit-permission', 'record-not-editable'],
    }),
    ready: endpoint({
      method: 'post', path: '/:formulaId/actions/ready', access: act, body: RecordActionRequestSchema, response: RecordActionResultSchema,
      summary: 'Adds the selected records to Ready.', problems: ['no-edit-permission'],
    }),
    createNew: endpoint({
      method: 'post', path: '/:formulaId/actions/create-new', access: act, body: RecordActionRequestSchema, response: RecordActionResultSchema,
      summary: 'Treats the selected records as new: they will create destination records, and go to Ready.', problems: ['no-edit-permission'],
    }),
    send: endpoint({
      method: 'post', path: '/:formulaId/actions/send', access: act, body: RecordActionRequestSchema, response: RecordSendResultSchema,
      summary: 'Sends the selected records now (a send job; each write carries its record\'s idempotency key, so a repeated request writes nothing twice).',
      problems: ['no-edit-permission'],
    }),
    remove: endpoint({
      method: 'post', path: '/:formulaId/actions/delete', access: act, body: RecordActionRequestSchema, response: RecordActionResultSchema,
      summary: 'Deletes the selected records (records being sent are left alone).', problems: ['no-edit-permission'],
    }),
  },
});
