/**
 * SKY API lists, as Raiser's Edge NXT and Financial Edge NXT both answer them: `{ count, value,
 * next_link }`, paged with `limit` and `offset`, filtered by a modification date. A pull follows
 * `next_link`; its watermark is the latest change seen once everything is read, and while a pull is
 * under way it also carries the next page's link, so a run killed between batches goes on from the
 * page after the last one stored, with the same filter.
 */
import type { PullBatch, PullOptions, SourceRecord } from '../connector.ts';
import { laterStamp as later, linkPages, offsetPages, positionSince as positionOf, type PullPosition } from '../kit/paging.ts';
import type { VendorClient } from '../kit/vendorClient.ts';

export interface ListAnswer { count?: number; value?: Record<string, unknown>[]; next_link?: string }

/** SKY API's page size for lists (its default for most lists) */
export const SKY_PAGE = 500;

/** What one object's pull reads: its list, the query parameter that filters by modification date, and a record from an item. */
export interface SkyList {
  path: string;
  /** `date_modified` or `last_modified`: on or after the given date */
  filter: string;
  record: (item: Record<string, unknown>) => SourceRecord;
  /** the largest page the list gives (500 for the general ledger's, 5000 for constituents) */
  maxLimit?: number;
}

/** The list's records changed since the watermark, a page a batch; `fields.dateModified` is each record's change. */
export async function* skyPull(client: VendorClient, list: SkyList, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const at = positionOf(since);
  const window = options?.window;
  const from = window ? window.from.toISOString() : at.since;
  const limit = Math.min(options?.batchSize ?? SKY_PAGE, list.maxLimit ?? 5000);
  const query = new URLSearchParams({ limit: String(limit), offset: '0' });
  if (from) query.set(list.filter, from);
  const first = at.next && !window ? at.next : `${list.path}?${query.toString()}`;
  let latest = window ? null : at.latest;
  for await (const page of linkPages(first, async (link) => {
    const answer = await client.call<ListAnswer>({ path: link });
    return { items: answer.value ?? [], next: answer.next_link };
  })) {
    const records: SourceRecord[] = [];
    for (const item of page.items) {
      const record = list.record(item);
      const changed = typeof record.fields.dateModified === 'string' ? record.fields.dateModified : null;
      if (window && changed && changed >= window.to.toISOString()) continue;
      latest = later(latest, changed);
      records.push(record);
    }
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

/** Every item of a list, page after page by offset (a list read whole: funds, journal entries of a batch). */
export async function skyListAll(client: VendorClient, path: string, query: Record<string, string | number> = {}, limit = SKY_PAGE): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const page of offsetPages(async (offset, size) => (await client.call<ListAnswer>({ path, query: { ...query, limit: size, offset } })).value ?? [], limit)) {
    out.push(...page.items);
  }
  return out;
}
