/**
 * Counts of a tenant's records per formula, bucket, custom bucket and state, read from the tallies
 * the records trigger keeps (schema/formulas.ts recordTallies, migration 0010): a sum over a few
 * rows per formula, whatever the number of records. Every count of records is read here: bucket
 * screens, Data Queue cards, formula statuses, the engine's checks.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Bucket, RecordState } from '../../../src/domain/formula/statuses.ts';
import type { RecordGroup } from '../../../src/domain/records/query.ts';
import { recordTallies } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';

export type FormulaRecordGroup = RecordGroup & { formulaId: string };

/** The tenant's record groups (of one formula, when given); groups that sum to nothing are left out. */
export async function recordGroups(db: Executor, tenantId: string, formulaId?: string): Promise<FormulaRecordGroup[]> {
  const t = recordTallies;
  const rows = await db.select({
    formulaId: t.formulaId, bucket: t.bucket, customBucket: t.customBucket, state: t.state, count: sql<number>`sum(${t.n})::int`,
  }).from(t)
    .where(and(eq(t.tenantId, tenantId), formulaId ? eq(t.formulaId, formulaId) : undefined))
    .groupBy(t.formulaId, t.bucket, t.customBucket, t.state)
    .having(sql`sum(${t.n}) <> 0`);
  return rows.map((r) => ({ ...r, bucket: r.bucket as Bucket, state: r.state as RecordState }));
}

/** Formulas whose tallies have more rows than this are folded by the sweep. */
const FOLD_ABOVE_ROWS = 16;

/**
 * Folds each formula's tally rows into one per group (dropping groups at zero), and drops the rows
 * of formulas that no longer exist. One statement per step: rows a running statement adds meanwhile
 * are not in its snapshot, so they stay and are folded next time; no count is lost or doubled.
 * Every tenant's: the system's sweep (server/jobs/recordTallySweep.ts). Answers the rows removed.
 */
export async function foldRecordTallies(db: Executor): Promise<{ folded: number; orphaned: number }> {
  const folded = await db.execute<{ n: number }>(sql`
    with gone as (
      delete from record_tallies where formula_id in (
        select formula_id from record_tallies group by formula_id having count(*) > ${FOLD_ABOVE_ROWS})
      returning *),
    kept as (
      insert into record_tallies (tenant_id, formula_id, bucket, custom_bucket, state, n)
      select tenant_id, formula_id, bucket, custom_bucket, state, sum(n) from gone
      group by 1, 2, 3, 4, 5 having sum(n) <> 0
      returning 1)
    select (select count(*) from gone)::int - (select count(*) from kept)::int as n`);
  const orphaned = await db.execute(sql`
    delete from record_tallies t where not exists (select 1 from formulas f where f.id = t.formula_id)`);
  return { folded: folded.rows[0]?.n ?? 0, orphaned: orphaned.rowCount ?? 0 };
}
