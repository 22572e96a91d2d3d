/**
 * What a destination answers for a record it did not write: the record's key, no id, and why in
 * the vendor's words ("Constant Contact refused the contact: …"), so the record lands in
 * Exceptions with them. A refusal concerns its record only; anything else stops the batch.
 */
import type { UpsertItem, UpsertResult } from '../connector.ts';
import { VendorRefusal } from './vendorClient.ts';

export const failedResult = (item: UpsertItem, error: string): UpsertResult => ({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error });

export const writtenResult = (item: UpsertItem, id: string, created: boolean): UpsertResult =>
  ({ idempotencyKey: item.idempotencyKey, id, outcome: created ? 'created' : 'updated', replayed: false });

/** The vendor's words for a refusal of one record: "{name} refused the {what}: {message}". */
export const refusalWords = (name: string, what: string, err: VendorRefusal) => `${name} refused the ${what}: ${err.vendorMessage || `HTTP ${err.status}`}`;

/**
 * Each record written on its own by `write`: a VendorRefusal becomes that record's failure in the
 * vendor's words, anything else (sign-in, quota, outage) is thrown for the engine to retry.
 */
export async function eachRecord(
  name: string, what: string, items: UpsertItem[],
  write: (item: UpsertItem, fail: (error: string) => UpsertResult) => Promise<UpsertResult>,
): Promise<UpsertResult[]> {
  const out: UpsertResult[] = [];
  for (const item of items) {
    try {
      out.push(await write(item, (error) => failedResult(item, error)));
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      out.push(failedResult(item, refusalWords(name, what, err)));
    }
  }
  return out;
}

/**
 * The results of a send whose records are answered in groups (refused before any call, written in
 * bulk, written one by one), given back in the order of the send's items, one each.
 */
export function resultsInOrder(items: readonly UpsertItem[]) {
  const byKey = new Map<string, UpsertResult>();
  return {
    add(results: Iterable<UpsertResult>): void { for (const r of results) byKey.set(r.idempotencyKey, r); },
    fail(item: UpsertItem, error: string): void { byKey.set(item.idempotencyKey, failedResult(item, error)); },
    all(): UpsertResult[] {
      return items.map((i) => {
        const r = byKey.get(i.idempotencyKey);
        if (!r) throw new Error(`no result for the record of key ${i.idempotencyKey}`);
        return r;
      });
    },
  };
}
