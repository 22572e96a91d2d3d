/**
 * Writes that are never doubled, for vendors without an upsert key (SKY API): before the vendor
 * is asked to create, the idempotency key is recorded as under way; its answer's id is recorded
 * at once, before the engine hears of it. The same key again answers that id and writes nothing.
 * A key found under way (a crash or a timeout between the vendor's answer and our record) first
 * searches the vendor for what the first try may have created, and creates only when it finds
 * nothing.
 */
import type { ConnectorContext } from '../connector.ts';
import { VendorRefusal } from './vendorClient.ts';

export interface WriteLedger {
  /** creates once per key: `find` is asked only when an earlier try may have created already */
  createOnce(key: string, find: () => Promise<string | null>, create: () => Promise<string>): Promise<{ id: string; replayed: boolean }>;
}

/** The ledger of one object's writes; `keys` are read at once, so a batch costs one query. */
export async function writeLedger(ctx: ConnectorContext, object: string, keys: string[]): Promise<WriteLedger> {
  const dataSourceId = ctx.dataSourceId;
  const state = ctx.tenant.vendorState;
  // settings being tested have no data source yet, and write nothing worth remembering
  if (!dataSourceId) return { createOnce: async (_key, _find, create) => ({ id: await create(), replayed: false }) };
  const known = await state.writes(dataSourceId, object, keys);
  return {
    async createOnce(key, find, create) {
      const prior = known.get(key);
      if (prior) return { id: prior, replayed: true };
      if (prior === null) {
        const found = await find();
        if (found) {
          await state.finishWrite(dataSourceId, object, key, found);
          known.set(key, found);
          return { id: found, replayed: true };
        }
      } else {
        await state.beginWrite(dataSourceId, object, key);
        known.set(key, null);
      }
      let id: string;
      try {
        id = await create();
      } catch (err) {
        // a refusal created nothing: a later try starts afresh (anything else may have created)
        if (err instanceof VendorRefusal) { await state.abandonWrite(dataSourceId, object, key); known.delete(key); }
        throw err;
      }
      await state.finishWrite(dataSourceId, object, key, id);
      known.set(key, id);
      return { id, replayed: false };
    },
  };
}
