/** A tenant's activity events (reached through forTenant; written by server/services/events.ts). */
import { and, desc, eq, lt, or } from 'drizzle-orm';
import { activityEvents } from '../schema/events.ts';
import type { Executor } from '../tenancy.ts';

export type EventRow = typeof activityEvents.$inferSelect;
export type NewEvent = Omit<typeof activityEvents.$inferInsert, 'id' | 'tenantId'>;

export function eventsRepository(db: Executor, tenantId: string) {
  const mine = eq(activityEvents.tenantId, tenantId);
  return {
    async insert(event: NewEvent): Promise<EventRow> {
      const [row] = await db.insert(activityEvents).values({ ...event, tenantId }).returning();
      return row!;
    },

    /** newest first, a page after the (at, id) of the last row seen */
    async page(opts: { formulaId?: string; limit: number; after?: { at: Date; id: string } }): Promise<EventRow[]> {
      const after = opts.after
        ? or(lt(activityEvents.at, opts.after.at), and(eq(activityEvents.at, opts.after.at), lt(activityEvents.id, opts.after.id)))
        : undefined;
      return db.select().from(activityEvents)
        .where(and(mine, opts.formulaId ? eq(activityEvents.formulaId, opts.formulaId) : undefined, after))
        .orderBy(desc(activityEvents.at), desc(activityEvents.id)).limit(opts.limit);
    },
  };
}
