/**
 * What the connector kit keeps of a tenant's vendor connections (server/connectors/kit): the
 * current access token per data source, the lock that lets one refresh happen at a time per data
 * source across every worker, the ledger of writes to vendors without an upsert key, and the
 * mark of a data source whose grant the vendor no longer accepts.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { dataSources, vendorTokens, vendorWrites } from '../schema/connections.ts';
import type { Executor } from '../tenancy.ts';

export type VendorTokenRow = typeof vendorTokens.$inferSelect;
export type SealedToken = Pick<VendorTokenRow, 'grant' | 'ciphertext' | 'iv' | 'tag' | 'keyVersion' | 'expiresOn'>;

export function vendorStateRepository(db: Executor, tenantId: string) {
  const mineToken = (dataSourceId: string) => and(eq(vendorTokens.tenantId, tenantId), eq(vendorTokens.dataSourceId, dataSourceId));
  const mineWrites = (dataSourceId: string, object: string) => and(
    eq(vendorWrites.tenantId, tenantId), eq(vendorWrites.dataSourceId, dataSourceId), eq(vendorWrites.object, object),
  );
  return {
    /**
     * Holds the data source's grant lock until the surrounding transaction ends: the second worker
     * to want a refresh waits here, then finds the token the first one saved.
     */
    async lockGrant(dataSourceId: string): Promise<void> {
      await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`vendor-grant:${tenantId}:${dataSourceId}`}, 0))`);
    },

    async token(dataSourceId: string): Promise<VendorTokenRow | undefined> {
      const [row] = await db.select().from(vendorTokens).where(mineToken(dataSourceId)).limit(1);
      return row;
    },

    async saveToken(dataSourceId: string, token: SealedToken): Promise<void> {
      await db.insert(vendorTokens).values({ ...token, dataSourceId, tenantId })
        .onConflictDoUpdate({ target: vendorTokens.dataSourceId, set: token, setWhere: eq(vendorTokens.tenantId, tenantId) });
    },

    async dropToken(dataSourceId: string): Promise<void> {
      await db.delete(vendorTokens).where(mineToken(dataSourceId));
    },

    /** Marks the data source as needing reconnecting, with the vendor's reason in our words. */
    async markNeedsReconnecting(dataSourceId: string, reason: string): Promise<void> {
      await db.update(dataSources).set({ needsReconnecting: reason, needsReconnectingOn: new Date() })
        .where(and(eq(dataSources.tenantId, tenantId), eq(dataSources.id, dataSourceId)));
    },

    /** The ledger rows of these keys: vendorId null means a create was under way when we last knew. */
    async writes(dataSourceId: string, object: string, keys: string[]): Promise<Map<string, string | null>> {
      if (!keys.length) return new Map();
      const rows = await db.select({ key: vendorWrites.idempotencyKey, vendorId: vendorWrites.vendorId }).from(vendorWrites)
        .where(and(mineWrites(dataSourceId, object), inArray(vendorWrites.idempotencyKey, keys)));
      return new Map(rows.map((r) => [r.key, r.vendorId]));
    },

    /** Records that a create is about to be asked for (kept when it already is). */
    async beginWrite(dataSourceId: string, object: string, key: string): Promise<void> {
      await db.insert(vendorWrites).values({ tenantId, dataSourceId, object, idempotencyKey: key }).onConflictDoNothing();
    },

    /** Records that the creates of these keys are about to be asked for, in one statement (a collection of them). */
    async beginWrites(dataSourceId: string, object: string, keys: string[]): Promise<void> {
      if (!keys.length) return;
      await db.insert(vendorWrites).values(keys.map((key) => ({ tenantId, dataSourceId, object, idempotencyKey: key }))).onConflictDoNothing();
    },

    /** Records the vendor's ids of what these keys created, in one statement. */
    async finishWrites(dataSourceId: string, object: string, made: { key: string; vendorId: string }[]): Promise<void> {
      if (!made.length) return;
      const values = sql.join(made.map((m) => sql`(${m.key}, ${m.vendorId})`), sql`, `);
      await db.execute(sql`update vendor_writes w set vendor_id = v.vendor_id from (values ${values}) as v(idempotency_key, vendor_id)
        where w.tenant_id = ${tenantId} and w.data_source_id = ${dataSourceId} and w.object = ${object} and w.idempotency_key = v.idempotency_key`);
    },

    /** Forgets the creates the vendor refused, in one statement. */
    async abandonWrites(dataSourceId: string, object: string, keys: string[]): Promise<void> {
      if (!keys.length) return;
      await db.delete(vendorWrites).where(and(mineWrites(dataSourceId, object), inArray(vendorWrites.idempotencyKey, keys), sql`${vendorWrites.vendorId} is null`));
    },

    /** Records the vendor's id of what the key created. */
    async finishWrite(dataSourceId: string, object: string, key: string, vendorId: string): Promise<void> {
      await db.update(vendorWrites).set({ vendorId }).where(and(mineWrites(dataSourceId, object), eq(vendorWrites.idempotencyKey, key)));
    },

    /** Forgets a create the vendor refused: a later retry may try again from the start. */
    async abandonWrite(dataSourceId: string, object: string, key: string): Promise<void> {
      await db.delete(vendorWrites).where(and(mineWrites(dataSourceId, object), eq(vendorWrites.idempotencyKey, key), sql`${vendorWrites.vendorId} is null`));
    },
  };
}
