/**
 * Contracts of the events reporter (/events-reporter/v1): the tenant's activity history (SPEC.md
 * section 3), newest first, filtered by dates, formula, type, actor and text, a page at a time.
 */
import * as v from 'valibot';
import {
  ACTIVITY_HISTORY_MESSAGES as M, ACTIVITY_MAX_PAGE_SIZE, ACTIVITY_MAX_TYPES, ACTIVITY_PAGE_SIZE, ACTIVITY_QUERY_MAX_LENGTH,
  dateRangeProblem,
} from '../activityHistory.ts';
import { CURSOR_MESSAGE } from '../cursor.ts';
import { isDate, parseDateTime } from '../dateTime.ts';
import { QUERY_SEARCH_MIN_LENGTH } from '../formula/constants.ts';
import { endpoint, service } from './contract.ts';

const UUID = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i;
/** dotted and stable, as server/services/events.ts writes them */
const EVENT_TYPE = /^[\w.:-]{1,100}$/;
const once = (name: string) => `Give ${name} once.`;

const DateTimeParam = (name: 'from' | 'to', required: string, description: string) => v.pipe(
  v.string(once(name)),
  v.nonEmpty(required),
  isDate('date-time', M.dateTime),
  v.transform((text) => parseDateTime(text)!),
  v.description(description),
);

/** A required parameter that is missing says which, in the words of SPEC.md section 5. */
const MISSING: Record<string, string> = { '"from"': M.startRequired, '"to"': M.endRequired };

export const EventsQuerySchema = v.pipe(
  v.object({
    from: DateTimeParam('from', M.startRequired, 'the start of the range, an ISO date-time; events at or after it'),
    to: DateTimeParam('to', M.endRequired, 'the end of the range, an ISO date-time; events before it'),
    formulaId: v.optional(v.pipe(
      v.string(once('formulaId')), v.regex(UUID, 'formulaId must be a formula id.'),
      v.description('only the events of this formula (it may have been deleted since)'),
    )),
    type: v.optional(v.pipe(
      v.union([v.string(), v.array(v.string())], 'type must be text.'),
      v.transform((t) => [...new Set((Array.isArray(t) ? t : [t]).flatMap((one) => one.split(',')).map((one) => one.trim()).filter(Boolean))]),
      v.check((types) => types.every((one) => EVENT_TYPE.test(one)), 'A type is a dotted name such as formula.created.'),
      // a check, not maxLength: the OpenAPI document would read that as the length of the text
      v.check((types) => types.length <= ACTIVITY_MAX_TYPES, `Filter by ${ACTIVITY_MAX_TYPES} types at most.`),
      v.description('only events of these types: repeat the parameter or separate them with commas'),
    )),
    actor: v.optional(v.pipe(
      v.string(once('actor')), v.check((a) => a === 'system' || UUID.test(a), 'actor must be system or a user id.'),
      v.description('only what the system did (system), or what this user did (a user id as events name it)'),
    )),
    q: v.optional(v.pipe(
      v.string(once('q')), v.trim(),
      v.check((q) => q === '' || [...q].length >= QUERY_SEARCH_MIN_LENGTH, M.queryShort),
      v.check((q) => [...q].length <= ACTIVITY_QUERY_MAX_LENGTH, M.queryLong),
      v.transform((q) => q || undefined),
      v.description(`text the description contains, at least ${QUERY_SEARCH_MIN_LENGTH} characters, any case`),
    )),
    limit: v.optional(v.pipe(
      v.string(once('limit')),
      v.regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${ACTIVITY_MAX_PAGE_SIZE}.`),
      v.transform(Number),
      v.minValue(1, `limit must be a whole number from 1 to ${ACTIVITY_MAX_PAGE_SIZE}.`),
      v.maxValue(ACTIVITY_MAX_PAGE_SIZE, `limit must be a whole number from 1 to ${ACTIVITY_MAX_PAGE_SIZE}.`),
      v.description(`events per page, ${ACTIVITY_PAGE_SIZE} when absent`),
    ), String(ACTIVITY_PAGE_SIZE)),
    cursor: v.optional(v.pipe(
      v.string(once('cursor')), v.regex(/^[\w-]{1,200}$/, CURSOR_MESSAGE),
      v.description('the previous page\'s nextCursor, with the same filters'),
    )),
  }, (issue) => MISSING[issue.expected ?? ''] ?? 'The query is not valid.'),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? dateRangeProblem(dataset.value.from, dataset.value.to) : null;
    if (problem) addIssue({ message: problem });
  }),
);
export type EventsQuery = v.InferOutput<typeof EventsQuerySchema>;

/** One entry of the activity history: SPEC.md section 3's columns, and what it concerns. */
export const ActivityEventSchema = v.object({
  id: v.string(),
  at: v.string(),
  /** userId null: the system did it */
  actor: v.object({ userId: v.nullable(v.string()), name: v.string() }),
  type: v.string(),
  description: v.string(),
  details: v.record(v.string(), v.unknown()),
  correlationId: v.string(),
  formulaId: v.nullable(v.string()),
  recordId: v.nullable(v.string()),
});
export type ActivityEventOut = v.InferOutput<typeof ActivityEventSchema>;
export type ActivityEvent = ActivityEventOut;

const view = { resource: 'history', action: 'view' } as const;

export const eventsReporterService = service({
  name: 'events reporter (activity history)',
  basePath: '/events-reporter/v1',
  endpoints: {
    list: endpoint({
      method: 'get', path: '/events', access: view, query: EventsQuerySchema,
      response: v.object({ events: v.array(ActivityEventSchema), nextCursor: v.nullable(v.string()) }),
      summary: 'The tenant\'s activity events in a date range, newest first, a page at a time: nextCursor asks for the next page, null after the last.',
    }),
    types: endpoint({
      method: 'get', path: '/event-types', access: view, response: v.object({ types: v.array(v.string()) }),
      summary: 'The event types the tenant\'s history holds, for the type filter.',
    }),
    get: endpoint({ method: 'get', path: '/events/:id', access: view, response: ActivityEventSchema, summary: 'One activity event.' }),
  },
});
