/**
 * The bucket screens' side of a tenant's records (reached through forTenant, as part of the
 * records repository): pages of a view by keyset, counts per view, and the bulk actions on a
 * selection, each one statement however many records it touches.
 *
 * Paging is keyset on (sort key, id) with the sort key as text, so a cursor keeps PostgreSQL's
 * microseconds (a JavaScript Date would lose them and skip or repeat rows). Each view and sort has
 * its index (schema/formulas.ts): the first page and the thousandth read only their own rows.
 *
 * Which records a view, filter or selection means is recordScope.ts's, shared with the exports.
 */
import { and, asc, desc, eq, getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { RecordState, RunKind } from '../../../src/domain/formula/statuses.ts';
import type { RecordGroup, RecordScope, RecordSelection, RecordSort } from '../../../src/domain/records/query.ts';
import { users } from '../schema/accounts.ts';
import { formulaRuns, records, RECORD_SORT_SQL } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';
import { scopeCondition, selectionCondition } from './recordScope.ts';
import { recordGroups } from './recordTallies.ts';

type RecordRow = typeof records.$inferSelect;

/** How a cursor's sort key is read back into the sort's type. */
const SORT_CAST: Record<RecordSort, SQL> = {
  dateAdded: sql`::timestamptz`, dateProcessed: sql`::timestamptz`, score: sql`::int`, errorDate: sql`::timestamptz`,
};

/** A position in a page sequence: the last row's sort key (as PostgreSQL writes it) and id. */
export interface PagePosition { key: string; id: string }

export interface PageQuery {
  scope: RecordScope;
  sort: RecordSort;
  direction: 'asc' | 'desc';
  after: PagePosition | null;
  limit: number;
}

/** Who sent a record: the person (their name; null once they are gone), or the run (its trigger and start). */
export type RecordSender =
  | { kind: 'person'; name: string | null }
  | { kind: 'run'; runId: string; trigger: RunKind; startedOn: Date };

/** States whose records a person may still act on: not being sent, not sent. */
export const ACTIONABLE_STATES: RecordState[] = ['needs-attention', 'ready', 'omitted', 'failed'];

export function bucketRecordsRepository(db: Executor, tenantId: string) {
  const mine = eq(records.tenantId, tenantId);
  const selected = (formulaId: string, selection: RecordSelection): SQL =>
    and(mine, eq(records.formulaId, formulaId), selectionCondition(selection))!;
  const actionable = inArray(records.state, ACTIONABLE_STATES);

  return {
    /** A page of a view: rows with their sort key as text, for the next cursor. */
    async page(formulaId: string, q: PageQuery): Promise<(RecordRow & { sortKey: string })[]> {
      const key = RECORD_SORT_SQL[q.sort](records);
      const order = q.direction === 'desc' ? desc : asc;
      const after = q.after
        ? sql`(${key}, ${records.id}) ${q.direction === 'desc' ? sql`<` : sql`>`} (${q.after.key}${SORT_CAST[q.sort]}, ${q.after.id}::uuid)`
        : undefined;
      return db.select({ ...getTableColumns(records), sortKey: sql<string>`(${key})::text` }).from(records)
        .where(and(mine, eq(records.formulaId, formulaId), scopeCondition(q.scope), after))
        .orderBy(order(key), order(records.id))
        .limit(q.limit);
    },

    /**
     * Who sent each of these records that was sent: the run (sent_run_id) or the person (sent_by).
     * A sent record without either was sent before they were kept, or by someone since removed.
     */
    async senders(ids: readonly string[]): Promise<Map<string, RecordSender>> {
      const out = new Map<string, RecordSender>();
      if (!ids.length) return out;
      const rows = await db.select({
        id: records.id, sentBy: records.sentBy, name: users.fullName, runId: formulaRuns.id, kind: formulaRuns.kind, startedOn: formulaRuns.createdOn,
      }).from(records)
        .leftJoin(formulaRuns, and(eq(formulaRuns.id, records.sentRunId), eq(formulaRuns.tenantId, tenantId)))
        .leftJoin(users, eq(users.id, records.sentBy))
        .where(and(mine, eq(records.state, 'sent'), inArray(records.id, [...ids])));
      for (const r of rows) {
        if (r.runId && r.kind && r.startedOn) out.set(r.id, { kind: 'run', runId: r.runId, trigger: r.kind, startedOn: r.startedOn });
        else if (r.sentBy || r.name) out.set(r.id, { kind: 'person', name: r.name });
      }
      return out;
    },

    /** Records per bucket, custom bucket and state: what the view counts are summed from (the kept tallies). */
    async tally(formulaId: string): Promise<RecordGroup[]> {
      return recordGroups(db, tenantId, formulaId);
    },

    /** How many of a selection exist (for an action's skipped count). */
    async countSelected(formulaId: string, selection: RecordSelection): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(records).where(selected(formulaId, selection));
      return row?.n ?? 0;
    },

    /**
     * Locks the selection's records an action may change (all but those being sent, which the send
     * job holds), in id order. Each bulk action takes its locks here first, so two actions on the
     * same records (send and delete at once) queue one behind the other, instead of each locking in
     * the order its plan reads rows (an id list by its index, a scope as stored) and deadlocking.
     */
    async lockSelected(formulaId: string, selection: RecordSelection): Promise<void> {
      await db.select({ id: records.id }).from(records)
        .where(and(selected(formulaId, selection), sql`${records.state} <> 'sending'`))
        .orderBy(asc(records.id)).for('update');
    },

    /** Add to Ready: the selection's records a person may still act on. Answers their ids. */
    async markReady(formulaId: string, selection: RecordSelection): Promise<string[]> {
      // a person's decision: reprocessing keeps it (server/engine/reprocess.ts)
      const rows = await db.update(records).set({ state: 'ready', decided: sql`coalesce(${records.decided}, 'ready')` })
        .where(and(selected(formulaId, selection), actionable)).returning({ id: records.id });
      return rows.map((r) => r.id);
    },

    /** Treat as new: no destination record, bucket new, Ready. */
    async markNew(formulaId: string, selection: RecordSelection): Promise<number> {
      // a person who says new means it: a copy of another new record (server/engine/process.ts) no longer waits for it
      const rows = await db.update(records).set({
        state: 'ready', bucket: 'new', customBucket: null, destinationRecordId: null, matching: sql`${records.matching} - 'copyOf'`, decided: 'new',
      })
        .where(and(selected(formulaId, selection), actionable)).returning({ id: records.id });
      return rows.length;
    },

    /** Deletes the selection's records, except those being sent (their write is under way). */
    async removeSelected(formulaId: string, selection: RecordSelection): Promise<number> {
      const rows = await db.delete(records)
        .where(and(selected(formulaId, selection), sql`${records.state} <> 'sending'`)).returning({ id: records.id });
      return rows.length;
    },

    /** One record of a formula, locked for an edit. */
    async getForUpdate(formulaId: string, id: string): Promise<RecordRow | undefined> {
      const [row] = await db.select().from(records).where(and(mine, eq(records.formulaId, formulaId), eq(records.id, id))).for('update').limit(1);
      return row;
    },

    /** Writes a person's changes to one record still open to them. */
    async updateReviewed(id: string, set: Partial<Pick<RecordRow, 'transformed' | 'overwrite' | 'candidates' | 'destinationRecordId' | 'bucket' | 'customBucket' | 'state' | 'score' | 'decided' | 'corrections'>>): Promise<RecordRow | undefined> {
      const [row] = await db.update(records).set(set).where(and(mine, eq(records.id, id), actionable)).returning();
      return row;
    },
  };
}
