/** A tenant's records in their buckets (reached through forTenant). */
import { and, eq, sql } from 'drizzle-orm';
import type { Bucket } from '../../../src/domain/formula/statuses.ts';
import { records } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';

export type RecordRow = typeof records.$inferSelect;

export function recordsRepository(db: Executor, tenantId: string) {
  const mine = eq(records.tenantId, tenantId);
  return {
    async get(id: string): Promise<RecordRow | undefined> {
      const [row] = await db.select().from(records).where(and(mine, eq(records.id, id))).limit(1);
      return row;
    },

    /** records per bucket (and custom validation bucket) of one formula */
    async countByBucket(formulaId: string): Promise<{ bucket: Bucket; customBucket: string | null; count: number }[]> {
      return db.select({ bucket: records.bucket, customBucket: records.customBucket, count: sql<number>`count(*)::int` })
        .from(records).where(and(mine, eq(records.formulaId, formulaId)))
        .groupBy(records.bucket, records.customBucket);
    },
  };
}
