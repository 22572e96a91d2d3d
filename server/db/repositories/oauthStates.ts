/** A tenant's OAuth connections in progress (server/db/schema/connections.ts oauthStates), reached through forTenant. */
import { and, eq, isNull, lt, sql } from 'drizzle-orm';
import { oauthStates } from '../schema/connections.ts';
import type { Executor } from '../tenancy.ts';

export type OAuthStateRow = typeof oauthStates.$inferSelect;

export function oauthStatesRepository(db: Executor, tenantId: string) {
  const mine = eq(oauthStates.tenantId, tenantId);
  return {
    /** records a started connection; the tenant's attempts that expired over a day ago go */
    async insert(values: Omit<typeof oauthStates.$inferInsert, 'tenantId' | 'usedOn' | 'createdOn'>): Promise<OAuthStateRow> {
      await db.delete(oauthStates).where(and(mine, lt(oauthStates.expiresOn, sql`now() - interval '1 day'`)));
      const [row] = await db.insert(oauthStates).values({ ...values, tenantId }).returning();
      return row!;
    },

    async get(id: string): Promise<OAuthStateRow | undefined> {
      const [row] = await db.select().from(oauthStates).where(and(mine, eq(oauthStates.id, id))).limit(1);
      return row;
    },

    /** Marks the attempt used: true for the one call that did (a second, or one racing it, gets false). */
    async take(id: string): Promise<boolean> {
      const taken = await db.update(oauthStates).set({ usedOn: new Date() })
        .where(and(mine, eq(oauthStates.id, id), isNull(oauthStates.usedOn))).returning({ id: oauthStates.id });
      return taken.length === 1;
    },
  };
}
