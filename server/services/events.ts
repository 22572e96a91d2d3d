/**
 * The one writer of activity events (SPEC.md section 3, activity history): what happened, who did
 * it (a user, or the system), a description a person reads, details and the correlationId that ties
 * it to the request or job that did it.
 */
import type { EventRow } from '../db/repositories/events.ts';
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
