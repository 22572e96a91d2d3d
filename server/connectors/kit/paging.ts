/**
 * Paging helpers: every page of a listing, one after another, in the three shapes vendors use.
 * Each yields a page's items with what the page said of the next, so a caller can stop at a
 * batch boundary and remember where it was.
 */

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
