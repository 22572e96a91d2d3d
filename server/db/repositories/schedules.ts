/**
 * The scheduler's one query across tenants: live formulas whose next run is due (never an archived one). Claiming clears
 * their next run time in the same statement (skipping rows another worker holds), so two workers
 * never start the same scheduled run; the run sets the following time when it ends.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../tenancy.ts';

export async function claimDueFormulas(db: Executor, now: Date, limit = 200): Promise<{ tenantId: string; formulaId: string }[]> {
  const result = await db.execute<{ id: string; tenant_id: string }>(sql`
    update formulas set next_run_at = null
    where id in (
      select id from formulas
      where next_run_at <= ${now.toISOString()}::timestamptz and enabled and not paused and not is_draft and archived_on is null
      order by next_run_at limit ${limit} for update skip locked)
    returning id, tenant_id`);
  return result.rows.map((r) => ({ tenantId: r.tenant_id, formulaId: r.id }));
}
