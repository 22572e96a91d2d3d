/**
 * What an enrichment destination answered for the records this tenant's formulas sent it (the
 * WealthEngine profiles found), read back as a source (reached through forTenant): a screening is
 * a record sent through a formula whose destination is the given data source, with its source
 * values as collected and the values the destination answered (records.ts markSent keeps them as
 * the record's destination record, the last of its candidates).
 *
 * Read in the order they were sent: the time of the send, then the record's id, so records sent in
 * the same statement (one instant) are never skipped at a batch's edge. The time travels as text
 * with PostgreSQL's microseconds, which a JavaScript Date would round away.
 *
 * The time sent is the marking transaction's start (records.ts markSent: now()), so a send that
 * commits late can carry an earlier time than one already read, and a watermark past it would
 * skip it for good. Each read therefore stops before the start of the oldest transaction still
 * open when it began (`settledBefore`): everything sent before that had committed, and is seen.
 */
import { sql } from 'drizzle-orm';
import type { Executor } from '../tenancy.ts';

export interface Screening {
  /** the sent record's id in Tributary: the same person screened again is the same screening */
  id: string;
  /** when it was sent (ISO 8601, UTC, microseconds) */
  sentAt: string;
  /** its values as the source gave them */
  raw: Record<string, unknown>;
  /** the destination record it was written as (a profile id, or the destination's own word for none) */
  destinationRecordId: string;
  /** what the destination answered about it, when it answered anything */
  answered: Record<string, unknown> | null;
}

/** a position in the screenings: after the one sent at `sentAt` with id `id` */
export interface ScreeningPosition { sentAt: string; id: string }

export function screeningsRepository(db: Executor, tenantId: string) {
  /** the tenant's formulas sending into the data source */
  const formulasInto = (dataSourceId: string) =>
    sql`select f.id from formulas f where f.tenant_id = ${tenantId}::uuid and f.destination_data_source_id = ${dataSourceId}::uuid`;
  /**
   * The time before which every send has committed: the start of the oldest transaction open now
   * in this database (the app's connections share one role, so it sees their start times; vacuum's
   * own workers send nothing), or now.
   * Asked in a statement of its own before the read, whose snapshot then holds all of them.
   */
  async function settledBefore(): Promise<string> {
    const res = await db.execute<{ t: string }>(sql`
      select to_char(least(statement_timestamp(), (select min(xact_start) from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
          and xact_start is not null)) at time zone 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as t`);
    return res.rows[0]!.t;
  }
  return {
    /** the records sent into the data source after a position (all when null), oldest first, at most `limit`; `window`: sent from `from` up to, not including, `to` */
    async sentSince(dataSourceId: string, after: ScreeningPosition | null, limit: number, window?: { from: Date; to: Date }): Promise<Screening[]> {
      const settled = await settledBefore();
      // each formula's sent records are walked in time order on the outcome views' index
      // (records_outcome_dateProcessed_idx: formula, state, coalesce(date_processed), id), at most
      // `limit` from each, and the formulas' walks merged: no sort of all a formula has sent
      const sentAt = sql`coalesce(r.date_processed, '-infinity'::timestamptz)`;
      const res = await db.execute<{ id: string; sent_at: string; raw: Record<string, unknown>; destination_record_id: string; answered: Record<string, unknown> | null }>(sql`
        select s.id, to_char(s.date_processed at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as sent_at, s.raw, s.destination_record_id,
          case when s.candidates -> -1 ->> 'id' = s.destination_record_id then s.candidates -> -1 -> 'fields' end as answered
        from (${formulasInto(dataSourceId)}) f
        cross join lateral (
          select r.id, r.date_processed, r.raw, r.destination_record_id, r.candidates from records r
          where r.tenant_id = ${tenantId}::uuid and r.formula_id = f.id and r.state = 'sent'
            and r.date_processed is not null and r.destination_record_id is not null and ${sentAt} < ${settled}::timestamptz
            ${after ? sql`and (${sentAt}, r.id) > (${after.sentAt}::timestamptz, ${after.id}::uuid)` : sql``}
            ${window ? sql`and ${sentAt} >= ${window.from.toISOString()}::timestamptz and ${sentAt} < ${window.to.toISOString()}::timestamptz` : sql``}
          order by ${sentAt}, r.id
          limit ${limit}) s
        order by s.date_processed, s.id
        limit ${limit}`);
      return res.rows.map((r) => ({ id: r.id, sentAt: r.sent_at, raw: r.raw, destinationRecordId: r.destination_record_id, answered: r.answered }));
    },
    /** the names of the source values the latest records sent into the data source carry, sorted */
    async sourceFields(dataSourceId: string, sample = 500): Promise<string[]> {
      const res = await db.execute<{ name: string }>(sql`
        select distinct k.name from (
          select s.raw from (${formulasInto(dataSourceId)}) f
          cross join lateral (
            select r.raw, r.date_processed from records r
            where r.tenant_id = ${tenantId}::uuid and r.formula_id = f.id and r.state = 'sent'
            order by coalesce(r.date_processed, '-infinity'::timestamptz) desc, r.id desc limit ${sample}) s
          order by s.date_processed desc nulls last limit ${sample}) latest, jsonb_object_keys(latest.raw) as k(name)
        order by k.name`);
      return res.rows.map((r) => r.name);
    },
  };
}
