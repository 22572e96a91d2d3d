/** A tenant's formulas and their parts (reached through forTenant). */
import { and, asc, desc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import { memberships, users } from '../schema/accounts.ts';
import type { FormulaPartName } from '../../../src/domain/formula/parts.ts';
import { formulaParts, formulas } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';

export type FormulaRow = typeof formulas.$inferSelect;

/** The PostgreSQL channel a formula's run-state changes are announced on ('<tenantId>:<formulaId>'). */
export const FORMULA_STATUS_CHANNEL = 'formula_status';
export type FormulaChanges = Partial<Omit<typeof formulas.$inferInsert, 'id' | 'tenantId' | 'createdOn'>>;
export type PartRow = typeof formulaParts.$inferSelect;

export function formulasRepository(db: Executor, tenantId: string) {
  const mine = eq(formulas.tenantId, tenantId);
  return {
    /** most recently edited first */
    async list(): Promise<FormulaRow[]> {
      return db.select().from(formulas).where(mine).orderBy(desc(formulas.modifiedOn), asc(formulas.id));
    },

    async get(id: string): Promise<FormulaRow | undefined> {
      const [row] = await db.select().from(formulas).where(and(mine, eq(formulas.id, id))).limit(1);
      return row;
    },

    /**
     * The formula's owner (the user who made it), to be told by e-mail about it: null when gone,
     * deactivated, no longer a member of the tenant, without a sign-in e-mail, or when they have
     * turned these notices off.
     */
    async ownerToTell(id: string): Promise<{ email: string; fullName: string } | null> {
      const [row] = await db.select({ email: users.email, fullName: users.fullName }).from(formulas)
        .innerJoin(users, eq(users.id, formulas.createdBy))
        // still one of the tenant's people
        .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.tenantId, formulas.tenantId)))
        .where(and(mine, eq(formulas.id, id), isNull(users.deactivatedOn), eq(users.ownerNotices, true))).limit(1);
      return row?.email ? { email: row.email, fullName: row.fullName } : null;
    },

    /** the row locked until the transaction ends: concurrent edits of one formula queue up */
    async getForUpdate(id: string): Promise<FormulaRow | undefined> {
      const [row] = await db.select().from(formulas).where(and(mine, eq(formulas.id, id))).limit(1).for('update');
      return row;
    },

    async create(values: FormulaChanges): Promise<FormulaRow> {
      const [row] = await db.insert(formulas).values({ ...values, tenantId }).returning();
      return row!;
    },

    async update(id: string, changes: FormulaChanges): Promise<FormulaRow | undefined> {
      const [row] = await db.update(formulas).set({ ...changes, modifiedOn: sql`now()` })
        .where(and(mine, eq(formulas.id, id))).returning();
      return row;
    },

    /** where collection continues next time (not an edit: modifiedOn stays) */
    async setWatermark(id: string, watermark: string | null): Promise<void> {
      await db.update(formulas).set({ watermark }).where(and(mine, eq(formulas.id, id)));
    },

    /**
     * The engine's view of a formula changed (its job status, pause, error, schedule): written
     * without touching modifiedOn, and announced on the formula_status channel so every process
     * can push it to the browsers watching (server-sent events).
     */
    async setRunState(id: string, changes: Pick<FormulaChanges, 'jobStatus' | 'paused' | 'enabled' | 'nextRunAt' | 'lastError' | 'lastRunId' | 'needsReprocess'>): Promise<FormulaRow | undefined> {
      const [row] = await db.update(formulas).set(changes).where(and(mine, eq(formulas.id, id))).returning();
      if (row) await db.execute(sql`select pg_notify(${FORMULA_STATUS_CHANNEL}, ${`${tenantId}:${id}`})`);
      return row;
    },

    async setJobStatus(id: string, jobStatus: FormulaRow['jobStatus']): Promise<void> {
      await this.setRunState(id, { jobStatus });
    },

    /** paused, or archived (or gone): a run under way stops after its batch */
    async isPaused(id: string): Promise<boolean> {
      const [row] = await db.select({ paused: formulas.paused, archivedOn: formulas.archivedOn }).from(formulas).where(and(mine, eq(formulas.id, id))).limit(1);
      return row ? row.paused || row.archivedOn !== null : true;
    },

    async remove(id: string): Promise<boolean> {
      const rows = await db.delete(formulas).where(and(mine, eq(formulas.id, id))).returning({ id: formulas.id });
      return rows.length > 0;
    },

    /** the formulas that read from or write to a data source, oldest first */
    async usingDataSource(dataSourceId: string): Promise<{ id: string; name: string | null }[]> {
      return db.select({ id: formulas.id, name: formulas.name }).from(formulas)
        .where(and(mine, or(eq(formulas.sourceDataSourceId, dataSourceId), eq(formulas.destinationDataSourceId, dataSourceId))))
        .orderBy(asc(formulas.createdOn));
    },
  };
}

export function partsRepository(db: Executor, tenantId: string) {
  const mine = eq(formulaParts.tenantId, tenantId);
  const one = (formulaId: string, part: FormulaPartName) => and(mine, eq(formulaParts.formulaId, formulaId), eq(formulaParts.part, part));
  return {
    async get(formulaId: string, part: FormulaPartName): Promise<PartRow | undefined> {
      const [row] = await db.select().from(formulaParts).where(one(formulaId, part)).limit(1);
      return row;
    },

    async list(formulaId: string): Promise<PartRow[]> {
      return db.select().from(formulaParts).where(and(mine, eq(formulaParts.formulaId, formulaId))).orderBy(asc(formulaParts.part));
    },

    /** the caller has checked that the formula is this tenant's */
    async upsert(formulaId: string, part: FormulaPartName, body: unknown, userId: string | null): Promise<PartRow> {
      const [row] = await db.insert(formulaParts).values({ tenantId, formulaId, part, body, modifiedBy: userId })
        .onConflictDoUpdate({
          target: [formulaParts.formulaId, formulaParts.part],
          set: { body, modifiedBy: userId, modifiedOn: sql`now()` },
          // never across tenants, whatever the caller passed
          setWhere: eq(formulaParts.tenantId, tenantId),
        })
        .returning();
      if (!row) throw new Error('formula part belongs to another tenant');
      return row;
    },

    async remove(formulaId: string, parts: FormulaPartName[]): Promise<number> {
      if (parts.length === 0) return 0;
      const rows = await db.delete(formulaParts)
        .where(and(mine, eq(formulaParts.formulaId, formulaId), inArray(formulaParts.part, parts)))
        .returning({ part: formulaParts.part });
      return rows.length;
    },
  };
}
