/** A tenant's activity events (reached through forTenant; written by server/services/events.ts). */
import { and, asc, desc, eq, getTableColumns, gte, ilike, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { activityEvents } from '../schema/events.ts';
import type { Executor } from '../tenancy.ts';

export type EventRow = typeof activityEvents.$inferSelect;
export type NewEvent = Omit<typeof activityEvents.$inferInsert, 'id' | 'tenantId'>;

/**
 * A place in the newest-first order: the (at, id) of the last row seen. `at` is PostgreSQL's own
 * text of the time to the microsecond (a Date keeps milliseconds, and rows between would be lost).
 */
export interface EventPosition { at: string; id: string }

export interface EventFilter {
  /** at or after */
  from?: Date;
  /** before */
  to?: Date;
  formulaId?: string;
  types?: string[];
  /** 'system': what no user did */
  actor?: 'system' | { userId: string };
  /** text the description contains, any case */
  text?: string;
}

/** LIKE's wildcards and its escape character, taken literally */
const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

export function eventsRepository(db: Executor, tenantId: string) {
  const mine = eq(activityEvents.tenantId, tenantId);
  const position = sql<string>`to_char(${activityEvents.at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  return {
    async insert(event: NewEvent): Promise<EventRow> {
      const [row] = await db.insert(activityEvents).values({ ...event, tenantId }).returning();
      return row!;
    },

    /**
     * Newest first, (at, id) descending, after `after` when given: keyset paging over the
     * (tenant_id, at) and (tenant_id, formula_id, at) indexes. Each row carries its position.
     */
    async page(opts: EventFilter & { limit: number; after?: EventPosition }): Promise<(EventRow & { position: string })[]> {
      const after = opts.after && and(
        // the first bound alone is what the index can seek to
        lte(activityEvents.at, sql`${opts.after.at}::timestamptz`),
        or(lt(activityEvents.at, sql`${opts.after.at}::timestamptz`), lt(activityEvents.id, opts.after.id)),
      );
      const actor = opts.actor === undefined ? undefined
        : opts.actor === 'system' ? isNull(activityEvents.actorUserId) : eq(activityEvents.actorUserId, opts.actor.userId);
      return db.select({ ...getTableColumns(activityEvents), position }).from(activityEvents)
        .where(and(
          mine,
          opts.from && gte(activityEvents.at, opts.from),
          opts.to && lt(activityEvents.at, opts.to),
          opts.formulaId ? eq(activityEvents.formulaId, opts.formulaId) : undefined,
          opts.types?.length ? inArray(activityEvents.type, opts.types) : undefined,
          actor,
          opts.text ? ilike(activityEvents.description, likePattern(opts.text)) : undefined,
          after,
        ))
        .orderBy(desc(activityEvents.at), desc(activityEvents.id)).limit(opts.limit);
    },

    /**
     * Inserts the event, or, when one with the same coalescing key exists, counts it there
     * (details.count, and the count in the description): answers how many it now stands for.
     */
    async insertOrCount(event: NewEvent & { coalesceKey: string }): Promise<number> {
      const count = sql`coalesce((${activityEvents.details}->>'count')::int, 1) + 1`;
      const [row] = await db.insert(activityEvents).values({ ...event, tenantId, details: { ...event.details, count: 1 } })
        .onConflictDoUpdate({
          target: [activityEvents.tenantId, activityEvents.coalesceKey],
          set: {
            details: sql`jsonb_set(${activityEvents.details}, '{count}', to_jsonb(${count}))`,
            description: sql`${event.description} || ' (' || (${count})::text || ' times this minute)'`,
          },
        })
        .returning({ count: sql<number>`(${activityEvents.details}->>'count')::int` });
      return row!.count;
    },

    async get(id: string): Promise<EventRow | undefined> {
      const [row] = await db.select().from(activityEvents).where(and(mine, eq(activityEvents.id, id))).limit(1);
      return row;
    },

    /** the distinct types the tenant's events have */
    async types(): Promise<string[]> {
      const rows = await db.selectDistinct({ type: activityEvents.type }).from(activityEvents).where(mine).orderBy(asc(activityEvents.type));
      return rows.map((r) => r.type);
    },
  };
}
