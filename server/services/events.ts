/**
 * The one writer of activity events (SPEC.md section 3, activity history): what happened, who did
 * it (a user, or the system), a description a person reads, details and the correlationId that ties
 * it to the request or job that did it. And their reading for the events reporter, a page at a time.
 */
import type { ActivityEventOut, EventsQuery } from '../../src/domain/api/eventsReporter.ts';
import { CURSOR_MESSAGE, decodeCursor, encodeCursor } from '../../src/domain/cursor.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { EventPosition, EventRow } from '../db/repositories/events.ts';
import type { TenantScope } from '../db/tenancy.ts';

export type EventActor = { userId: string; name: string } | 'system';

export interface ActivityEvent {
  actor: EventActor;
  /** dotted, stable: formula.created, formula.part.saved, datasource.deleted ... */
  type: string;
  description: string;
  details?: Record<string, unknown>;
  correlationId: string;
  formulaId?: string;
  recordId?: string;
}

export async function recordEvent(tenant: TenantScope, event: ActivityEvent): Promise<EventRow> {
  return tenant.events.insert({
    actorUserId: event.actor === 'system' ? null : event.actor.userId,
    actorName: event.actor === 'system' ? 'System' : event.actor.name,
    type: event.type,
    description: event.description,
    details: event.details ?? {},
    correlationId: event.correlationId,
    formulaId: event.formulaId ?? null,
    recordId: event.recordId ?? null,
  });
}

/**
 * An event that may repeat many times in a short while (a refused request): one row per
 * `coalesceKey`, counting the repeats. Answers how many times it has now happened.
 */
export async function recordRepeatedEvent(tenant: TenantScope, event: ActivityEvent & { actor: { userId: string; name: string }; coalesceKey: string }): Promise<number> {
  return tenant.events.insertOrCount({
    actorUserId: event.actor.userId,
    actorName: event.actor.name,
    type: event.type,
    description: event.description,
    details: event.details ?? {},
    correlationId: event.correlationId,
    formulaId: event.formulaId ?? null,
    recordId: event.recordId ?? null,
    coalesceKey: event.coalesceKey,
  });
}

export function eventView(row: EventRow): ActivityEventOut {
  return {
    id: row.id, at: row.at.toISOString(), actor: { userId: row.actorUserId, name: row.actorName },
    type: row.type, description: row.description, details: row.details, correlationId: row.correlationId,
    formulaId: row.formulaId, recordId: row.recordId,
  };
}

const badCursor = () => new DomainError('bad-request', CURSOR_MESSAGE, {}, 'validation-failed');

/** The cursor is opaque to callers (src/domain/cursor.ts): the last row's exact time, to the microsecond, and id. */
export function positionOf(cursor: string): EventPosition {
  const p = decodeCursor(cursor, 'date-time');
  if (!p) throw badCursor();
  return { at: p.key, id: p.id };
}

/** One page of the activity history, newest first, and the cursor of the next (null after the last). */
export async function eventsPage(tenant: TenantScope, query: EventsQuery): Promise<{ events: ActivityEventOut[]; nextCursor: string | null }> {
  const rows = await tenant.events.page({
    from: query.from, to: query.to, formulaId: query.formulaId, types: query.type,
    actor: query.actor === undefined ? undefined : query.actor === 'system' ? 'system' : { userId: query.actor },
    text: query.q, limit: query.limit + 1, after: query.cursor === undefined ? undefined : positionOf(query.cursor),
  });
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { events: page.map(eventView), nextCursor: rows.length > query.limit && last ? encodeCursor(last.position, last.id) : null };
}

export async function eventTypes(tenant: TenantScope): Promise<{ types: string[] }> {
  return { types: await tenant.events.types() };
}

export async function eventById(tenant: TenantScope, id: string): Promise<ActivityEventOut> {
  const row = await tenant.events.get(id);
  if (!row) throw new DomainError('not-found', 'No such event.');
  return eventView(row);
}
