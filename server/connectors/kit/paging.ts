/**
 * Paging helpers: every page of a listing, one after another, in the three shapes vendors use.
 * Each yields a page's items with what the page said of the next, so a caller can stop at a
 * batch boundary and remember where it was.
 */

import { ConnectorInputError, type PullBatch, type SourceRecord } from '../connector.ts';

export interface Page<T> { items: T[]; /** the position after this page: offset, cursor or link; null at the end */ next: string | null }

/** limit and offset: the next page starts where this one ended; a short page is the last. */
export async function* offsetPages<T>(fetch: (offset: number, limit: number) => Promise<T[]>, limit: number, from = 0): AsyncIterable<Page<T>> {
  for (let offset = from; ;) {
    const items = await fetch(offset, limit);
    offset += items.length;
    const last = items.length < limit;
    yield { items, next: last ? null : String(offset) };
    if (last) return;
  }
}

/** an opaque cursor the vendor hands back (continuation_token, after); none means the end. */
export async function* cursorPages<T>(fetch: (cursor: string | null) => Promise<{ items: T[]; cursor: string | null | undefined }>, from: string | null = null): AsyncIterable<Page<T>> {
  for (let cursor = from; ;) {
    const page = await fetch(cursor);
    const next = page.cursor || null;
    yield { items: page.items, next };
    if (!next || !page.items.length) return;
    cursor = next;
  }
}

/** a `next` link (SKY API's next_link, Salesforce's nextRecordsUrl): followed until absent. */
export async function* linkPages<T>(first: string, fetch: (link: string) => Promise<{ items: T[]; next: string | null | undefined }>): AsyncIterable<Page<T>> {
  for (let link: string | null = first; link;) {
    const page = await fetch(link);
    link = page.next || null;
    yield { items: page.items, next: link };
    if (!page.items.length) return;
  }
}

/**
 * Where a pull by modification date stands, as its watermark keeps it: the filter's date, the next
 * page while one is under way, the latest change seen. `bare` reads a watermark that is not such a
 * position (a vendor's date on its own), or refuses it.
 */
export interface PullPosition { since: string | null; next: string | null; latest: string | null }

export function pullPosition(watermark: string | null, bare: (watermark: string) => PullPosition): PullPosition {
  if (!watermark) return { since: null, next: null, latest: null };
  let p: Partial<PullPosition>;
  try { p = JSON.parse(watermark) as Partial<PullPosition>; } catch { return bare(watermark); }
  return { since: p.since ?? null, next: p.next ?? null, latest: p.latest ?? null };
}

/** A watermark read as a pull position, a vendor's date on its own being where a pull from that date starts. */
export const positionSince = (watermark: string | null): PullPosition => pullPosition(watermark, (since) => ({ since, next: null, latest: null }));

/** The later of two modification stamps written alike (ISO 8601 in one zone, as each vendor gives them). */
export const laterStamp = (a: string | null, b: string | null | undefined): string | null => (!b ? a : !a || b > a ? b : a);

/** Where a pull by modification time reads next: what changed from `after` on (null: all), page `page` of it. */
export interface ChangedAt { after: string | null; page: number }

function changedAtOf(next: string | null, from: string | null): ChangedAt {
  if (!next) return { after: from, page: 1 };
  // a position written before reads moved their filter: a page number
  if (/^\d+$/.test(next)) return { after: from, page: Number(next) };
  try {
    const at = JSON.parse(next) as Partial<ChangedAt>;
    return { after: typeof at.after === 'string' ? at.after : null, page: Number.isInteger(at.page) && at.page! > 0 ? at.page! : 1 };
  } catch {
    throw new ConnectorInputError('The watermark is not one this connector wrote.');
  }
}

/** One page of a pull by modification time: its items, each one's change stamp (ISO 8601), and whether more follow. */
export interface ChangedPage<T> { items: T[]; stamps: (string | null)[]; more: boolean }

/**
 * A pull by modification time from an API that pages by number, oldest change first, that never
 * skips a record changed while its pages are read. A page number alone would: the record changed
 * moves to the end, and the rest slide one place back onto a page already read. So each request
 * asks anew from the stamp `restartAt` picks from the last page (from which the vendor's filter
 * reads that page's last change again: those records are read twice, which stores nothing twice),
 * and only a page that offers none later than where it started goes on by number. The watermark
 * keeps the filter's date, the next read while a pull is under way, and the latest change seen,
 * which becomes the date once the last page is stored. A run once (`window`) starts at its start.
 */
export async function* changedSincePull<T>(
  since: string | null,
  window: { from: Date } | undefined,
  read: (at: ChangedAt) => Promise<ChangedPage<T>>,
  restartAt: (stamps: (string | null)[], at: ChangedAt) => string | null,
  records: (items: T[]) => SourceRecord[],
): AsyncIterable<PullBatch> {
  const at = positionSince(since);
  const start = at.since ?? window?.from.toISOString() ?? null;
  let latest = at.latest;
  for (let reading = changedAtOf(at.next, start); ;) {
    const page = await read(reading);
    for (const stamp of page.stamps) latest = laterStamp(latest, stamp);
    const restart = restartAt(page.stamps, reading);
    const next: ChangedAt = restart ? { after: restart, page: 1 } : { after: reading.after, page: reading.page + 1 };
    const more = page.more && page.items.length > 0;
    const position: PullPosition = more ? { since: start, next: JSON.stringify(next), latest } : { since: latest ?? start, next: null, latest: null };
    yield { records: records(page.items), watermark: JSON.stringify(position) };
    if (!more) return;
    reading = next;
  }
}
