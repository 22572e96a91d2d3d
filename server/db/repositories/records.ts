/**
 * A tenant's records in their buckets (reached through forTenant). The engine writes them a batch
 * at a time, one statement per batch (a JSON array unpacked by jsonb_to_recordset), and takes
 * them for sending with row locks, so two workers never send one record.
 */
import { createHash } from 'node:crypto';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Bucket, RecordState } from '../../../src/domain/formula/statuses.ts';
import { COPY_OF_SQL, records } from '../schema/formulas.ts';
import { orderedUuid } from '../orderedUuid.ts';
import { bucketRecordsRepository } from './bucketRecords.ts';
import { recordGroups } from './recordTallies.ts';
import type { Executor } from '../tenancy.ts';

export type RecordRow = typeof records.$inferSelect;

/** A record as the engine has processed it, before it is stored. */
export interface ProcessedRecord {
  sourceKey: string;
  raw: Record<string, unknown>;
  transformed: Record<string, unknown> | null;
  matching: Record<string, unknown> | null;
  candidates: unknown[];
  score: number | null;
  bucket: Bucket;
  customBucket: string | null;
  state: Extract<RecordState, 'ready' | 'needs-attention' | 'omitted' | 'failed'>;
  /** the matched destination record (written as an update), or null (written as new) */
  destinationRecordId: string | null;
  errorReason: string | null;
  /** a new record still to be sent: what its copies in later batches search for (src/domain/formula/batchCopies.ts copyKeys); null otherwise */
  copyKeys?: string[] | null;
}

/** A reprocessed held record: everything but its identity and raw data. */
export type ReprocessedRecord = Omit<ProcessedRecord, 'sourceKey' | 'raw'> & { id: string };

/** The same write, however often it is retried: the formula, the source record and its version. */
export function idempotencyKey(formulaId: string, sourceKey: string, version: number): string {
  return `${createHash('sha256').update(`${formulaId}\u001f${sourceKey}`).digest('base64url')}.${version}`;
}

const KEY_SQL = (version: ReturnType<typeof sql>) =>
  sql`rtrim(translate(encode(sha256(convert_to(r.formula_id::text || chr(31) || r.source_key, 'UTF8')), 'base64'), '+/', '-_'), '=') || '.' || ${version}`;

/** a record a person has decided for (picked, Create new, Add to Ready) or corrected inline */
const REVIEWED_SQL = sql`(${records.decided} is not null or ${records.corrections} <> '{}'::jsonb)`;

/** states whose records wait on a person or on the engine: reprocessing may change them */
export const HELD_STATES: RecordState[] = ['ready', 'needs-attention', 'omitted', 'failed'];

export interface StoreOutcome {
  added: number;
  changed: number;
  unchanged: number;
  /** the source keys of the records written (added or changed): what a run counts */
  written: Set<string>;
  /** the records written as claimed for sending (claimReady), as the send stage reads them */
  claimed: (Pick<RecordRow, 'id' | 'sourceKey' | 'idempotencyKey' | 'destinationRecordId' | 'overwrite'>)[];
}

export function recordsRepository(db: Executor, tenantId: string) {
  const mine = eq(records.tenantId, tenantId);
  return {
    // the bucket screens' pages, counts and actions
    ...bucketRecordsRepository(db, tenantId),

    async get(id: string): Promise<RecordRow | undefined> {
      const [row] = await db.select().from(records).where(and(mine, eq(records.id, id))).limit(1);
      return row;
    },

    /** a formula's record by its identity in the source (a copy names its first this way) */
    async bySourceKey(formulaId: string, sourceKey: string): Promise<RecordRow | undefined> {
      const [row] = await db.select().from(records).where(and(mine, eq(records.formulaId, formulaId), eq(records.sourceKey, sourceKey))).limit(1);
      return row;
    },

    /** records per bucket (and custom validation bucket) of one formula */
    async countByBucket(formulaId: string): Promise<{ bucket: Bucket; customBucket: string | null; count: number }[]> {
      const out = new Map<string, { bucket: Bucket; customBucket: string | null; count: number }>();
      for (const g of await recordGroups(db, tenantId, formulaId)) {
        const key = `${g.bucket}/${g.customBucket ?? ''}`;
        const b = out.get(key) ?? { bucket: g.bucket, customBucket: g.customBucket, count: 0 };
        b.count += g.count;
        out.set(key, b);
      }
      return [...out.values()].filter((b) => b.count !== 0);
    },

    /** records per state of one formula */
    async countByState(formulaId: string): Promise<Partial<Record<RecordState, number>>> {
      const out: Partial<Record<RecordState, number>> = {};
      for (const g of await recordGroups(db, tenantId, formulaId)) out[g.state] = (out[g.state] ?? 0) + g.count;
      for (const k of Object.keys(out) as RecordState[]) if (!out[k]) delete out[k];
      return out;
    },

    /**
     * Stores a processed batch in one statement. A source record seen before is replaced when its
     * raw data changed, unless it is being sent; one already sent comes back as a new version (a
     * new write with a new idempotency key). The same data again changes nothing.
     *
     * `claimReady` (a formula that sends automatically): Ready records are stored already taken for
     * sending, as takeForSending would mark them, so the send stage writes one row version less per
     * record and they never enter the bucket screens' indexes on their way out.
     */
    async store(formulaId: string, runId: string, batch: ProcessedRecord[], opts: { claimReady?: boolean } = {}): Promise<StoreOutcome> {
      if (!batch.length) return { added: 0, changed: 0, unchanged: 0, written: new Set(), claimed: [] };
      // one row per source key: the last copy in a batch wins
      const bySource = new Map(batch.map((r) => [r.sourceKey, r]));
      // time-ordered ids: a batch appends to the id indexes instead of dirtying pages all over them
      const rows = [...bySource.values()].map((r) => ({
        id: orderedUuid(), source_key: r.sourceKey, raw: r.raw, transformed: r.transformed, matching: r.matching, candidates: r.candidates, score: r.score,
        bucket: r.bucket, custom_bucket: r.customBucket, state: r.state, destination_record_id: r.destinationRecordId,
        error_reason: r.errorReason, idempotency_key: idempotencyKey(formulaId, r.sourceKey, 1), copy_keys: r.copyKeys ?? null,
      }));
      const result = await db.execute<{
        inserted: boolean; id: string; source_key: string; state: RecordState; idempotency_key: string;
        destination_record_id: string | null; overwrite: Record<string, boolean>;
      }>(sql`
        insert into records as r (id, tenant_id, formula_id, run_id, source_key, raw, transformed, matching, candidates, score, bucket,
          custom_bucket, state, destination_record_id, error_reason, error_date, idempotency_key, date_processed, copy_keys)
        select x.id, ${tenantId}::uuid, ${formulaId}::uuid, ${runId}::uuid, x.source_key, x.raw, x.transformed, x.matching, x.candidates, x.score,
          x.bucket, x.custom_bucket, case when x.state = 'ready' and ${opts.claimReady === true} then 'sending' else x.state end,
          x.destination_record_id, x.error_reason, case when x.error_reason is null then null else now() end, x.idempotency_key, null, x.copy_keys
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, source_key text, raw jsonb, transformed jsonb, matching jsonb,
          candidates jsonb, score int, bucket text, custom_bucket text, state text, destination_record_id text, error_reason text,
          idempotency_key text, copy_keys text[])
        on conflict (formula_id, source_key) do update set
          run_id = excluded.run_id, raw = excluded.raw, transformed = excluded.transformed, matching = excluded.matching,
          candidates = excluded.candidates, score = excluded.score, bucket = excluded.bucket, custom_bucket = excluded.custom_bucket,
          state = excluded.state, destination_record_id = excluded.destination_record_id, error_reason = excluded.error_reason,
          error_date = excluded.error_date, outcome = null, date_processed = null, copy_keys = excluded.copy_keys, sent_run_id = null, sent_by = null,
          decided = null, corrections = '{}'::jsonb,
          version = case when r.state = 'sent' then r.version + 1 else r.version end,
          idempotency_key = case when r.state = 'sent' then ${KEY_SQL(sql`(r.version + 1)`)} else r.idempotency_key end
        where r.tenant_id = ${tenantId}::uuid and r.state <> 'sending' and r.raw is distinct from excluded.raw
        returning (xmax = 0) as inserted, r.id, r.source_key, r.state, r.idempotency_key, r.destination_record_id, r.overwrite`);
      const added = result.rows.filter((r) => r.inserted).length;
      return {
        added, changed: result.rows.length - added, unchanged: rows.length - result.rows.length,
        written: new Set(result.rows.map((r) => r.source_key)),
        claimed: result.rows.filter((r) => r.state === 'sending').map((r) => ({
          id: r.id, sourceKey: r.source_key, idempotencyKey: r.idempotency_key, destinationRecordId: r.destination_record_id, overwrite: r.overwrite,
        })),
      };
    },

    /**
     * Takes up to `limit` of a formula's records for sending: first those already 'sending' (stored
     * so by a run that sends automatically, or left so by an interrupted one: sent again with the
     * same idempotency key), then, unless `claimedOnly`, 'ready' ones, which are
     * marked 'sending' before anything is written, in the same statement. Only ids after `after`
     * when given: a send loop goes on from its last batch instead of walking again over the index
     * entries its earlier batches left behind (dead until vacuum), which grow with every batch.
     */
    async takeForSending(formulaId: string, limit: number, opts: { ids?: string[]; after?: string; claimedOnly?: boolean } = {}): Promise<RecordRow[]> {
      const { ids, after } = opts;
      const chosen = ids ? sql`and id = any(${`{${ids.join(',')}}`}::uuid[])` : sql``;
      const later = after ? sql`and id > ${after}::uuid` : sql``;
      const claimed = await db.select().from(records)
        .where(and(mine, eq(records.formulaId, formulaId), eq(records.state, 'sending'), sql`true ${chosen} ${later}`))
        .orderBy(records.id).limit(limit);
      if (claimed.length || opts.claimedOnly) return claimed;
      // marked and read in one statement
      const taken = await db.update(records).set({ state: 'sending' }).where(and(mine, inArray(records.id, sql`(
          select id from records
          where tenant_id = ${tenantId}::uuid and formula_id = ${formulaId}::uuid and state = 'ready' ${chosen} ${later}
          order by id limit ${limit} for update skip locked)`))).returning();
      return taken.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    /** what the destination did with each record sent */
    async markSent(sent: { id: string; destinationRecordId: string; outcome: 'created' | 'updated'; fields?: Record<string, unknown> }[], by: { runId: string } | { userId: string | null }): Promise<void> {
      if (!sent.length) return;
      const runId = 'runId' in by ? by.runId : null;
      const userId = 'userId' in by ? by.userId : null;
      await db.execute(sql`
        update records r set state = 'sent', destination_record_id = x.destination_record_id, outcome = x.outcome,
          date_processed = now(), error_reason = null, error_date = null, copy_keys = null,
          sent_run_id = ${runId}::uuid, sent_by = ${userId}::uuid,
          -- what the destination answered with the record (an enrichment's profile) is kept as its destination record's values
          candidates = case when x.fields is null then r.candidates
            else r.candidates || jsonb_build_array(jsonb_build_object('id', x.destination_record_id, 'fields', x.fields)) end
        from jsonb_to_recordset(${JSON.stringify(sent.map((s) => ({ id: s.id, destination_record_id: s.destinationRecordId, outcome: s.outcome, fields: s.fields ?? null })))}::jsonb)
          as x(id uuid, destination_record_id text, outcome text, fields jsonb)
        where r.id = x.id and r.tenant_id = ${tenantId}::uuid and r.state = 'sending'`);
    },

    /** records the destination refused: exceptions with the reason and date */
    async markRefused(refused: { id: string; reason: string }[]): Promise<void> {
      if (!refused.length) return;
      await db.execute(sql`
        update records r set state = 'failed', bucket = 'exception', custom_bucket = null, error_reason = x.reason,
          error_date = now(), date_processed = now(), copy_keys = null, decided = null
        from jsonb_to_recordset(${JSON.stringify(refused)}::jsonb) as x(id uuid, reason text)
        where r.id = x.id and r.tenant_id = ${tenantId}::uuid and r.state = 'sending'`);
    },

    /** Of these source keys, the records that are sent, with the destination record each became. */
    async sentDestinations(formulaId: string, sourceKeys: string[]): Promise<Map<string, string>> {
      if (!sourceKeys.length) return new Map();
      const rows = await db.select({ sourceKey: records.sourceKey, destinationRecordId: records.destinationRecordId }).from(records)
        .where(and(mine, eq(records.formulaId, formulaId), inArray(records.sourceKey, sourceKeys), eq(records.state, 'sent')));
      return new Map(rows.flatMap((r) => (r.destinationRecordId ? [[r.sourceKey, r.destinationRecordId] as const] : [])));
    },

    /** Of these source keys, the records still waiting in relationship-match (a row's gift waiting for its constituent). */
    async waitingForParent(formulaId: string, sourceKeys: string[]): Promise<RecordRow[]> {
      if (!sourceKeys.length) return [];
      return db.select().from(records).where(and(mine, eq(records.formulaId, formulaId), inArray(records.sourceKey, sourceKeys),
        eq(records.bucket, 'relationship-match'), eq(records.state, 'needs-attention')));
    },

    /** the copies (process.ts holdCopies) still held in Needs Attention for the records of these source keys */
    async heldCopies(formulaId: string, firsts: string[]): Promise<RecordRow[]> {
      return db.select().from(records)
        .where(and(mine, eq(records.formulaId, formulaId), sql`${COPY_OF_SQL} = any(${sql.param(firsts)}::text[])`,
          sql`${records.matching} ? 'copyOf'`, eq(records.state, 'needs-attention'), eq(records.bucket, 'new')))
        .orderBy(records.id);
    },

    /** of these source keys, those whose record is new and still to be sent (held or being sent) */
    async unsentNew(formulaId: string, sourceKeys: string[]): Promise<Set<string>> {
      const rows = await db.select({ sourceKey: records.sourceKey }).from(records)
        .where(and(mine, eq(records.formulaId, formulaId), inArray(records.sourceKey, sourceKeys), eq(records.bucket, 'new'),
          inArray(records.state, ['ready', 'needs-attention', 'sending'])));
      return new Set(rows.map((r) => r.sourceKey));
    },

    /**
     * The formula's new records still to be sent (not copies themselves, not of `except`) that share
     * a copy key with `keys`: the earlier records a new record of a later batch or upload may be a
     * copy of (server/engine/process.ts holdCopies). At most `limit`, oldest first.
     */
    async firstsByCopyKeys(formulaId: string, keys: string[], except: string[], limit = 1000): Promise<Pick<RecordRow, 'sourceKey' | 'transformed' | 'copyKeys'>[]> {
      if (!keys.length) return [];
      return db.select({ sourceKey: records.sourceKey, transformed: records.transformed, copyKeys: records.copyKeys }).from(records)
        .where(and(mine, eq(records.formulaId, formulaId), sql`${records.copyKeys} is not null and ${records.copyKeys} && ${sql.param(keys)}::text[]`,
          eq(records.bucket, 'new'), inArray(records.state, ['ready', 'needs-attention', 'sending']),
          sql`not coalesce(${records.matching} ? 'copyOf', false)`,
          except.length ? sql`${records.sourceKey} <> all(${sql.param(except)}::text[])` : undefined))
        .orderBy(records.id).limit(limit);
    },

    /** records taken for sending that wait after all (a copy whose first is still to be sent) */
    async holdBack(ids: string[]): Promise<void> {
      await db.update(records).set({ state: 'needs-attention' }).where(and(mine, inArray(records.id, ids), eq(records.state, 'sending')));
    },

    /**
     * A page of the formula's held records (reprocessing), by id. Without `reviewed`, only those no
     * person has decided for or corrected: what a person did stands unless they ask to route again.
     */
    async held(formulaId: string, afterId: string | null, limit: number, opts: { reviewed?: boolean } = {}): Promise<RecordRow[]> {
      return db.select().from(records)
        .where(and(mine, eq(records.formulaId, formulaId), inArray(records.state, HELD_STATES), afterId ? sql`${records.id} > ${afterId}::uuid` : undefined,
          opts.reviewed ? undefined : sql`not ${REVIEWED_SQL}`))
        .orderBy(records.id).limit(limit);
    },

    /** the formula's held records: how many, and how many of them a person has decided for or corrected */
    async heldTally(formulaId: string): Promise<{ held: number; reviewed: number }> {
      const [row] = await db.select({ held: sql<number>`count(*)::int`, reviewed: sql<number>`(count(*) filter (where ${REVIEWED_SQL}))::int` }).from(records)
        .where(and(mine, eq(records.formulaId, formulaId), inArray(records.state, HELD_STATES)));
      return { held: row?.held ?? 0, reviewed: row?.reviewed ?? 0 };
    },

    /** writes reprocessed held records back; a record sent meanwhile is left alone */
    async replaceProcessed(batch: ReprocessedRecord[]): Promise<number> {
      if (!batch.length) return 0;
      const rows = batch.map((r) => ({
        id: r.id, transformed: r.transformed, matching: r.matching, candidates: r.candidates, score: r.score, bucket: r.bucket,
        custom_bucket: r.customBucket, state: r.state, destination_record_id: r.destinationRecordId, error_reason: r.errorReason,
        copy_keys: r.copyKeys ?? null,
      }));
      // routed again: what a person decided for it no longer stands (their corrections do)
      const result = await db.execute(sql`
        update records r set transformed = x.transformed, matching = x.matching, candidates = x.candidates, score = x.score,
          bucket = x.bucket, custom_bucket = x.custom_bucket, state = x.state, destination_record_id = x.destination_record_id,
          error_reason = x.error_reason, error_date = case when x.error_reason is null then null else coalesce(r.error_date, now()) end,
          copy_keys = x.copy_keys, decided = null
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(id uuid, transformed jsonb, matching jsonb, candidates jsonb,
          score int, bucket text, custom_bucket text, state text, destination_record_id text, error_reason text, copy_keys text[])
        where r.id = x.id and r.tenant_id = ${tenantId}::uuid and r.state = any(${`{${HELD_STATES.join(',')}}`}::text[])`);
      return result.rowCount ?? 0;
    },

    /** clear data: every record of the formula */
    async clear(formulaId: string): Promise<number> {
      const rows = await db.delete(records).where(and(mine, eq(records.formulaId, formulaId))).returning({ id: records.id });
      return rows.length;
    },
  };
}
