/** A tenant's formula runs (reached through forTenant): what the engine did, run by run. */
import { and, desc, eq, getTableColumns, inArray, isNull, sql } from 'drizzle-orm';
import type { JobStatus } from '../../../src/domain/formula/statuses.ts';
import { formulaRuns } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';

export type RunRow = typeof formulaRuns.$inferSelect;
export type NewRun = Omit<typeof formulaRuns.$inferInsert, 'id' | 'tenantId'>;

/** runs not yet over */
const OPEN: JobStatus[] = ['waiting', 'on-demand', 'running', 'retrying', 'applying-edits', 'clearing-data', 'finished-pulling'];

export function runsRepository(db: Executor, tenantId: string) {
  const mine = eq(formulaRuns.tenantId, tenantId);
  return {
    async create(run: NewRun): Promise<RunRow> {
      const [row] = await db.insert(formulaRuns).values({ ...run, tenantId }).returning();
      return row!;
    },

    async get(id: string): Promise<RunRow | undefined> {
      const [row] = await db.select().from(formulaRuns).where(and(mine, eq(formulaRuns.id, id))).limit(1);
      return row;
    },

    async update(id: string, changes: Partial<Omit<NewRun, 'formulaId'>>): Promise<RunRow | undefined> {
      const [row] = await db.update(formulaRuns).set(changes).where(and(mine, eq(formulaRuns.id, id))).returning();
      return row;
    },

    /**
     * Changes a run that has not ended. A run ended meanwhile (its formula archived while its job
     * started) stays as it ended: answers undefined then.
     */
    async updateOpen(id: string, changes: Partial<Omit<NewRun, 'formulaId'>>): Promise<RunRow | undefined> {
      const [row] = await db.update(formulaRuns).set(changes).where(and(mine, eq(formulaRuns.id, id), isNull(formulaRuns.finishedOn))).returning();
      return row;
    },

    /** adds to the run's per-bucket and per-outcome counts */
    async addCounts(id: string, counts: Record<string, number>): Promise<void> {
      if (!Object.keys(counts).length) return;
      // jsonb has no merge-by-sum: add key by key in SQL, so two writers never lose each other's counts
      await db.update(formulaRuns).set({
        counts: sql`(select coalesce(jsonb_object_agg(k, coalesce((${formulaRuns.counts}->>k)::int, 0) + coalesce((${JSON.stringify(counts)}::jsonb->>k)::int, 0)), '{}'::jsonb)
          from (select jsonb_object_keys(${formulaRuns.counts}) as k union select jsonb_object_keys(${JSON.stringify(counts)}::jsonb)) keys)`,
      }).where(and(mine, eq(formulaRuns.id, id)));
    },

    /**
     * A page of the formula's runs, newest first, by keyset on (created_on, id): `after` is the
     * last row's created_on as PostgreSQL writes it (microseconds kept) and its id.
     */
    async page(formulaId: string, limit: number, after?: { key: string; id: string }): Promise<(RunRow & { position: string })[]> {
      const before = after ? sql`(${formulaRuns.createdOn}, ${formulaRuns.id}) < (${after.key}::timestamptz, ${after.id}::uuid)` : undefined;
      return db.select({ ...getTableColumns(formulaRuns), position: sql<string>`(${formulaRuns.createdOn})::text` }).from(formulaRuns)
        .where(and(mine, eq(formulaRuns.formulaId, formulaId), before))
        .orderBy(desc(formulaRuns.createdOn), desc(formulaRuns.id)).limit(limit);
    },

    /** newest first */
    async latest(formulaId: string, limit = 10): Promise<RunRow[]> {
      return db.select().from(formulaRuns).where(and(mine, eq(formulaRuns.formulaId, formulaId)))
        .orderBy(desc(formulaRuns.createdOn), desc(formulaRuns.id)).limit(limit);
    },

    async count(formulaId: string): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(formulaRuns).where(and(mine, eq(formulaRuns.formulaId, formulaId)));
      return row?.n ?? 0;
    },

    /** the formula's runs without an end, whatever they are doing (waiting, retrying, paused, running) */
    async unfinished(formulaId: string): Promise<RunRow[]> {
      return db.select().from(formulaRuns).where(and(mine, eq(formulaRuns.formulaId, formulaId), isNull(formulaRuns.finishedOn)));
    },

    /** the formula's runs that have not ended */
    async open(formulaId: string): Promise<RunRow[]> {
      return db.select().from(formulaRuns)
        .where(and(mine, eq(formulaRuns.formulaId, formulaId), inArray(formulaRuns.status, OPEN)))
        .orderBy(desc(formulaRuns.createdOn));
    },
  };
}
