/**
 * A tenant's CSV exports (reached through forTenant), and the streaming read of the records an
 * export writes: one transaction at REPEATABLE READ, so the count, the columns and the rows all
 * come from one snapshot (the total shown is what is written), with the rows fetched from a
 * server-side cursor a batch at a time, never the whole set in memory.
 *
 * The sweeper's two calls at the end work across tenants: they are system work (a scheduled job),
 * like identity cleanup, and touch only files past their download window.
 */
import { and, desc, eq, inArray, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { RecordSelection } from '../../../src/domain/records/query.ts';
import type { Db } from '../database.ts';
import { recordExports, type ExportStatus } from '../schema/exports.ts';
import { records } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';
import { selectionCondition } from './recordScope.ts';

export type RecordExportRow = typeof recordExports.$inferSelect;

/** an export still being written: what a newer one stops, and what progress may update */
const ACTIVE: ExportStatus[] = ['started', 'in-progress'];
/** at most this many transformed (and raw) fields become columns */
export const EXPORT_MAX_FIELDS = 1000;

/** One record as the CSV writes it. */
export interface ExportRecord {
  id: string;
  /** where it came from: a file and line, or the source system's own id (named in words by sourcePosition) */
  sourceKey: string;
  destinationRecordId: string | null;
  bucket: string;
  customBucket: string | null;
  state: string;
  dateAdded: Date | string;
  dateProcessed: Date | string | null;
  matchReasons: string | null;
  errorReason: string | null;
  errorDate: Date | string | null;
  score: number | null;
  transformed: Record<string, unknown> | null;
  /** its source values: when they were asked for, or when it has no transformed values to be titled by */
  raw?: Record<string, unknown>;
}

/** An open read of a selection: its size and columns, then its records a batch at a time. */
export interface SelectionReader {
  total: number;
  /** the union of the transformed records' keys, sorted */
  fields: string[];
  /** the union of the raw records' keys, sorted (empty unless raw values were asked for) */
  rawFields: string[];
  batches(): AsyncGenerator<ExportRecord[]>;
  /** ends the transaction and gives the connection back; safe to call twice */
  close(): Promise<void>;
}

const dialect = new PgDialect();

export function recordExportsRepository(db: Executor, tenantId: string) {
  const mine = eq(recordExports.tenantId, tenantId);
  return {
    async get(id: string): Promise<RecordExportRow | undefined> {
      const [row] = await db.select().from(recordExports).where(and(mine, eq(recordExports.id, id))).limit(1);
      return row;
    },

    /** a user's exports of one formula, newest first */
    async forUser(userId: string, formulaId: string, limit = 10): Promise<RecordExportRow[]> {
      return db.select().from(recordExports)
        .where(and(mine, eq(recordExports.userId, userId), eq(recordExports.formulaId, formulaId)))
        .orderBy(desc(recordExports.createdOn), desc(recordExports.id)).limit(limit);
    },

    async insert(values: Omit<typeof recordExports.$inferInsert, 'tenantId' | 'id'>): Promise<RecordExportRow> {
      const [row] = await db.insert(recordExports).values({ ...values, tenantId }).returning();
      return row!;
    },

    /**
     * A user's earlier exports of a formula give way to a new one: a file is let go (its key
     * answered, for the caller to delete), one still being written stops with an error. Each is
     * marked with `reason`. Answers the keys of the files let go.
     */
    async replaceEarlier(userId: string, formulaId: string, newId: string, reason: string): Promise<string[]> {
      const result = await db.execute<{ file_key: string | null }>(sql`
        with earlier as (
          select id, file_key from record_exports
          where tenant_id = ${tenantId}::uuid and user_id = ${userId}::uuid and formula_id = ${formulaId}::uuid and id <> ${newId}::uuid
            and (file_key is not null or status in ('started', 'in-progress'))
          for update
        )
        update record_exports r set
          status = case when r.status in ('started', 'in-progress') then 'error' else r.status end,
          error = ${reason}, file_key = null
        from earlier where r.id = earlier.id
        returning earlier.file_key`);
      return result.rows.map((r) => r.file_key).filter((k): k is string => !!k);
    },

    /** the export starts writing: how many records it holds. False when it was replaced meanwhile. */
    async begin(id: string, total: number): Promise<boolean> {
      const rows = await db.update(recordExports).set({ status: 'in-progress', total, written: 0 })
        .where(and(mine, eq(recordExports.id, id), inArray(recordExports.status, ACTIVE))).returning({ id: recordExports.id });
      return rows.length > 0;
    },

    /** records written so far. False when the export was replaced meanwhile (the writer stops). */
    async progress(id: string, written: number): Promise<boolean> {
      const rows = await db.update(recordExports).set({ written })
        .where(and(mine, eq(recordExports.id, id), eq(recordExports.status, 'in-progress'))).returning({ id: recordExports.id });
      return rows.length > 0;
    },

    /** the file is written. False when the export was replaced meanwhile (the file is then the caller's to delete). */
    async complete(id: string, done: { written: number; fileKey: string; fileName: string; finishedOn: Date; expiresAt: Date }): Promise<boolean> {
      const rows = await db.update(recordExports).set({ status: 'complete', ...done, error: null })
        .where(and(mine, eq(recordExports.id, id), eq(recordExports.status, 'in-progress'))).returning({ id: recordExports.id });
      return rows.length > 0;
    },

    /** the export failed, and why (a sentence for the user) */
    async fail(id: string, reason: string): Promise<void> {
      await db.update(recordExports).set({ status: 'error', error: reason, finishedOn: new Date(), fileKey: null })
        .where(and(mine, eq(recordExports.id, id), inArray(recordExports.status, ACTIVE)));
    },

    /** a file past its window was deleted */
    async expire(id: string): Promise<void> {
      await db.update(recordExports).set({ fileKey: null }).where(and(mine, eq(recordExports.id, id)));
    },

    /**
     * Opens a read of a formula's selected records, oldest first (date added, then id). Needs a
     * connection of its own (a Db, not a transaction): the cursor holds it until close().
     */
    async openSelection(formulaId: string, selection: RecordSelection, opts: { includeRaw?: boolean; batchSize?: number } = {}): Promise<SelectionReader> {
      const pool = (db as Partial<Db>).$client;
      if (!pool || typeof pool.connect !== 'function') throw new Error('openSelection needs the database, not a transaction');
      const where = sql`${records.tenantId} = ${tenantId}::uuid and ${records.formulaId} = ${formulaId}::uuid and ${selectionCondition(selection)}`;
      const batchSize = opts.batchSize ?? 2000;
      const client: pg.PoolClient = await pool.connect();
      let open = true;
      const query = async <R extends pg.QueryResultRow>(q: SQL | string) => {
        const compiled = typeof q === 'string' ? { sql: q, params: [] as unknown[] } : dialect.sqlToQuery(q);
        return client.query<R>(compiled.sql, compiled.params);
      };
      const close = async (commit = true) => {
        if (!open) return;
        open = false;
        try { await client.query(commit ? 'commit' : 'rollback'); } finally { client.release(); }
      };
      try {
        await client.query('begin isolation level repeatable read read only');
        const [{ rows: [count] }, fields, rawFields] = [
          await query<{ n: number }>(sql`select count(*)::int as n from ${records} where ${where}`),
          await keysOf(sql`${records.transformed}`),
          opts.includeRaw ? await keysOf(sql`${records.raw}`) : [],
        ];
        await query(sql`declare export_rows no scroll cursor for
          select ${records.id} as id, ${records.sourceKey} as source_key, ${records.destinationRecordId} as destination_record_id, ${records.bucket} as bucket,
            ${records.customBucket} as custom_bucket, ${records.state} as state, ${records.dateAdded} as date_added,
            ${records.dateProcessed} as date_processed, ${records.errorReason} as error_reason, ${records.errorDate} as error_date,
            ${records.score} as score, ${records.transformed} as transformed,
            ${opts.includeRaw ? sql`${records.raw}` : sql`case when ${records.transformed} is null then ${records.raw} end`} as raw,
            -- the best candidate's match reasons, not the whole candidate list
            (select string_agg(reason, '; ') from jsonb_array_elements_text(coalesce((
              select c -> 'reasons' from jsonb_array_elements(${records.candidates}) as c
              where jsonb_typeof(c -> 'reasons') = 'array'
              order by (c ->> 'score')::numeric desc nulls last limit 1), '[]'::jsonb)) as reason) as match_reasons
          from ${records} where ${where}
          order by ${records.dateAdded}, ${records.id}`);
        const reader: SelectionReader = {
          total: count?.n ?? 0,
          fields,
          rawFields,
          async *batches() {
            try {
              for (;;) {
                const { rows } = await query<RawRow>(`fetch ${batchSize} from export_rows`);
                if (!rows.length) break;
                yield rows.map((r) => toExportRecord(r, !!opts.includeRaw));
                if (rows.length < batchSize) break;
              }
            } finally {
              await close();
            }
          },
          close: () => close(),
        };
        return reader;
      } catch (err) {
        await close(false).catch(() => undefined);
        throw err;
      }

      async function keysOf(column: SQL): Promise<string[]> {
        const { rows } = await query<{ key: string }>(sql`
          select key from (select distinct jsonb_object_keys(${column}) as key from ${records}
            where ${where} and jsonb_typeof(${column}) = 'object') k
          order by key limit ${EXPORT_MAX_FIELDS}`);
        return rows.map((r) => r.key);
      }
    },
  };
}

interface RawRow {
  id: string; source_key: string; destination_record_id: string | null; bucket: string; custom_bucket: string | null; state: string;
  date_added: Date | string; date_processed: Date | string | null; error_reason: string | null; error_date: Date | string | null;
  score: number | null; transformed: Record<string, unknown> | null; raw: Record<string, unknown> | null; match_reasons: string | null;
}

function toExportRecord(r: RawRow, includeRaw: boolean): ExportRecord {
  return {
    id: r.id, sourceKey: r.source_key, destinationRecordId: r.destination_record_id, bucket: r.bucket, customBucket: r.custom_bucket, state: r.state,
    dateAdded: r.date_added, dateProcessed: r.date_processed, matchReasons: r.match_reasons, errorReason: r.error_reason,
    errorDate: r.error_date, score: r.score, transformed: r.transformed,
    ...(includeRaw || r.raw ? { raw: r.raw ?? {} } : {}),
  };
}

/** The sweeper: exports of any tenant whose file is past its download window. */
export async function expiredExportFiles(db: Db, now: Date, limit = 500): Promise<{ id: string; tenantId: string; fileKey: string }[]> {
  const rows = await db.select({ id: recordExports.id, tenantId: recordExports.tenantId, fileKey: recordExports.fileKey }).from(recordExports)
    .where(and(isNotNull(recordExports.fileKey), lt(recordExports.expiresAt, now))).orderBy(recordExports.expiresAt).limit(limit);
  return rows.map((r) => ({ id: r.id, tenantId: r.tenantId, fileKey: r.fileKey! }));
}

/** The sweeper: exports of any tenant still started or in progress though created before `before` (their worker is gone). */
export async function abandonedExports(db: Db, before: Date, limit = 500): Promise<{ id: string; tenantId: string }[]> {
  return db.select({ id: recordExports.id, tenantId: recordExports.tenantId }).from(recordExports)
    .where(and(inArray(recordExports.status, ACTIVE), lt(recordExports.createdOn, before))).limit(limit);
}
