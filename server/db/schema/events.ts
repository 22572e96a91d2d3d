/**
 * Activity events (SPEC.md section 3, activity history): what happened, when, by whom. Written by
 * one writer (server/services/events.ts); a formula's events outlive the formula, so they hold its
 * id without a foreign key.
 */
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './accounts.ts';

export const activityEvents = pgTable('activity_events', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
  /** null: the system did it */
  actorUserId: uuid('actor_user_id').references(() => users.id, { onDelete: 'set null' }),
  /** the actor's name when it happened ('System' for the engine) */
  actorName: text('actor_name').notNull(),
  type: text('type').notNull(),
  description: text('description').notNull(),
  details: jsonb('details').$type<Record<string, unknown>>().notNull(),
  correlationId: text('correlation_id').notNull(),
  formulaId: uuid('formula_id'),
  recordId: uuid('record_id'),
  /**
   * Events that say the same thing again within a short time are one row with a count
   * (permission refusals: per user, endpoint and minute); null for every other event.
   */
  coalesceKey: text('coalesce_key'),
}, (t) => [
  // keyset paging newest first over (at, id), for the tenant and for one formula
  index('activity_events_tenant_at_idx').on(t.tenantId, t.at, t.id),
  index('activity_events_formula_at_idx').on(t.tenantId, t.formulaId, t.at, t.id),
  // the type filter's list of types
  index('activity_events_type_idx').on(t.tenantId, t.type),
  uniqueIndex('activity_events_coalesce_idx').on(t.tenantId, t.coalesceKey),
]);
