/**
 * Activity history (SPEC.md sections 3 and 5): its columns, the rules of its filters and their
 * messages. The events reporter's contract (src/domain/api/eventsReporter.ts) checks with these,
 * and so can the screen's form.
 */
import { DATE_MESSAGES } from './dateTime.ts';
import { QUERY_SEARCH_MIN_LENGTH } from './formula/constants.ts';

/** SPEC.md section 3: the columns of an activity history entry. */
export const ACTIVITY_HISTORY_COLUMNS = ['time', 'actor', 'type', 'description', 'details', 'correlationId'] as const;
export type ActivityHistoryColumn = (typeof ACTIVITY_HISTORY_COLUMNS)[number];

/** Ours: one request covers at most this many days, so a search scans a bounded stretch. */
export const ACTIVITY_HISTORY_MAX_DAYS = 366;
export const ACTIVITY_PAGE_SIZE = 50;
export const ACTIVITY_MAX_PAGE_SIZE = 200;
export const ACTIVITY_QUERY_MAX_LENGTH = 200;
/** Types one request may filter by. */
export const ACTIVITY_MAX_TYPES = 50;

export const ACTIVITY_HISTORY_MESSAGES = {
  startRequired: 'The start date is required',
  endRequired: 'The end date is required',
  dateTime: DATE_MESSAGES.dateTime,
  order: 'The start date must be earlier than the end date',
  range: `The dates can be at most ${ACTIVITY_HISTORY_MAX_DAYS} days apart`,
  queryShort: `Query search needs at least ${QUERY_SEARCH_MIN_LENGTH} characters`,
  queryLong: `Query search can be ${ACTIVITY_QUERY_MAX_LENGTH} characters at most`,
} as const;

/** What is wrong with a date range, or null when it may be searched. */
export function dateRangeProblem(start: Date, end: Date): string | null {
  if (start.getTime() >= end.getTime()) return ACTIVITY_HISTORY_MESSAGES.order;
  if (end.getTime() - start.getTime() > ACTIVITY_HISTORY_MAX_DAYS * 24 * 60 * 60 * 1000) return ACTIVITY_HISTORY_MESSAGES.range;
  return null;
}

/** The activity history screen's filters, as its form holds them: days are the user's local dates (YYYY-MM-DD). */
export interface ActivityHistoryFilters {
  fromDay: string;
  /** included: the range ends at the start of the next day */
  toDay: string;
  types: string[];
  /** '' anyone, 'system', or a user id */
  actor: string;
  q: string;
}
export type ActivityFilterField = 'fromDay' | 'toDay' | 'actor' | 'q';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const USER_ID = /^[\da-f]{8}(?:-[\da-f]{4}){3}-[\da-f]{12}$/i;
export const ACTOR_ID_MESSAGE = 'A user id looks like 0b5e4f1a-2c3d-4e5f-8a9b-0c1d2e3f4a5b';

/** A local date as the start of that day in the user's time zone; null when it is no date. */
export function startOfDay(day: string): Date | null {
  const m = DAY.exec(day);
  if (!m) return null;
  const [y, mo, d] = m.slice(1).map(Number);
  const at = new Date(y!, mo! - 1, d!);
  return at.getMonth() === mo! - 1 && at.getDate() === d ? at : null;
}

const dayOf = (at: Date) => `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;

/** The default filters: the last 7 days (today and the 6 before it), everything in them. */
export function defaultActivityFilters(now: Date): ActivityHistoryFilters {
  const from = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 6);
  return { fromDay: dayOf(from), toDay: dayOf(now), types: [], actor: '', q: '' };
}

/** What is wrong with the filters, per field, in SPEC.md section 5's words; empty when they may be searched. */
export function activityFilterProblems(f: ActivityHistoryFilters): Partial<Record<ActivityFilterField, string>> {
  const problems: Partial<Record<ActivityFilterField, string>> = {};
  const from = f.fromDay ? startOfDay(f.fromDay) : null;
  const to = f.toDay ? startOfDay(f.toDay) : null;
  if (!f.fromDay) problems.fromDay = ACTIVITY_HISTORY_MESSAGES.startRequired;
  else if (!from) problems.fromDay = ACTIVITY_HISTORY_MESSAGES.dateTime;
  if (!f.toDay) problems.toDay = ACTIVITY_HISTORY_MESSAGES.endRequired;
  else if (!to) problems.toDay = ACTIVITY_HISTORY_MESSAGES.dateTime;
  if (from && to) {
    const range = activityRange(f)!;
    const problem = dateRangeProblem(range.from, range.to);
    // the end day is included, so a single day is a range; a start after the end is not
    if (from.getTime() > to.getTime()) problems.fromDay = ACTIVITY_HISTORY_MESSAGES.order;
    else if (problem) problems.toDay = problem;
  }
  const q = f.q.trim();
  if (q && [...q].length < QUERY_SEARCH_MIN_LENGTH) problems.q = ACTIVITY_HISTORY_MESSAGES.queryShort;
  else if ([...q].length > ACTIVITY_QUERY_MAX_LENGTH) problems.q = ACTIVITY_HISTORY_MESSAGES.queryLong;
  if (f.actor && f.actor !== 'system' && !USER_ID.test(f.actor)) problems.actor = ACTOR_ID_MESSAGE;
  return problems;
}

/** The filters' range as the events reporter takes it: from the start of the first day to the start of the day after the last. */
export function activityRange(f: Pick<ActivityHistoryFilters, 'fromDay' | 'toDay'>): { from: Date; to: Date } | null {
  const from = startOfDay(f.fromDay);
  const last = startOfDay(f.toDay);
  if (!from || !last) return null;
  return { from, to: new Date(last.getFullYear(), last.getMonth(), last.getDate() + 1) };
}

/** The events' types as people read them; the type itself stays what the API filters by. */
const ACTIVITY_TYPE_LABELS: Record<string, string> = {
  'datasource.created': 'Data source added', 'datasource.updated': 'Data source edited', 'datasource.deleted': 'Data source deleted',
  'datasource.connected': 'Data source connected', 'datasource.needs-reconnecting': 'Data source needs reconnecting', 'datasource.emptied': 'Sandbox CRM emptied',
  'formula.created': 'Formula created', 'formula.updated': 'Formula edited', 'formula.deleted': 'Formula deleted',
  'formula.part.saved': 'Formula step saved', 'formula.part.deleted': 'Formula step removed',
  'formula.activated': 'Formula activated', 'formula.deactivated': 'Formula deactivated', 'formula.paused': 'Formula paused', 'formula.resumed': 'Formula resumed',
  'formula.cleared': 'Formula data cleared', 'formula.error-dismissed': 'Formula error dismissed',
  'formula.archived': 'Formula archived', 'formula.unarchived': 'Formula unarchived',
  'run.requested': 'Run requested', 'run.started': 'Run started', 'run.paused': 'Run paused', 'run.retried-now': 'Retried now', 'run.finished': 'Run finished', 'run.failed': 'Run failed',
  'record.edited': 'Record edited', 'record.matched': 'Record matched',
  'records.send-requested': 'Records sent', 'records.added-to-ready': 'Records added to Ready', 'records.treated-as-new': 'Records treated as new',
  'records.deleted': 'Records deleted', 'records.exported': 'Records exported',
  'user.created': 'User added', 'user.updated': 'User edited', 'user.deactivated': 'User deactivated', 'user.reactivated': 'User reactivated',
  'user.removed': 'User removed from the tenant', 'user.deleted': 'User deleted', 'user.password.reset': 'Password reset',
  'signin.succeeded': 'Signed in', 'signin.refused': 'Sign-in refused',
  'permission.refused': 'Permission refused',
};

/** An event type in words ('records.send-requested' reads 'Records sent'); one not listed is spelt out from its name. */
export function activityTypeLabel(type: string): string {
  const known = ACTIVITY_TYPE_LABELS[type];
  if (known) return known;
  const words = type.replace(/[._-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : type;
}

