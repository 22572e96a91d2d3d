/** The connector kit's paging helpers: every page once, in order, each with the position after it. */
import { describe, expect, it } from 'vitest';
import { meets } from '../../server/connectors/kit/criteria.ts';
import { cursorPages, laterStamp, linkPages, offsetPages, positionSince, pullPosition, type Page } from '../../server/connectors/kit/paging.ts';

const ITEMS = Array.from({ length: 7 }, (_, i) => i);
async function all<T>(pages: AsyncIterable<Page<T>>): Promise<Page<T>[]> {
  const out: Page<T>[] = [];
  for await (const p of pages) out.push(p);
  return out;
}

describe('paging', () => {
  it('offset: pages of `limit` until a short one, resumable from an offset', async () => {
    const asked: number[] = [];
    const fetch = async (offset: number, limit: number) => { asked.push(offset); return ITEMS.slice(offset, offset + limit); };
    const pages = await all(offsetPages(fetch, 3));
    expect(pages).toEqual([{ items: [0, 1, 2], next: '3' }, { items: [3, 4, 5], next: '6' }, { items: [6], next: null }]);
    expect((await all(offsetPages(fetch, 3, 6))).flatMap((p) => p.items)).toEqual([6]);
    expect(asked).toEqual([0, 3, 6, 6]);
  });

  it('cursor: follows the vendor\'s cursor until it gives none', async () => {
    const fetch = async (cursor: string | null) => {
      const at = Number(cursor ?? 0);
      return { items: ITEMS.slice(at, at + 4), cursor: at + 4 < ITEMS.length ? String(at + 4) : undefined };
    };
    expect(await all(cursorPages(fetch))).toEqual([{ items: [0, 1, 2, 3], next: '4' }, { items: [4, 5, 6], next: null }]);
  });

  it('next link: follows the link until it is absent, and stops at an empty page whatever the link says', async () => {
    const links: string[] = [];
    const fetch = async (link: string) => {
      links.push(link);
      const at = Number(new URL(link, 'https://api.example').searchParams.get('offset') ?? 0);
      return { items: ITEMS.slice(at, at + 5), next: at + 5 < ITEMS.length ? `https://api.example/x?offset=${at + 5}` : null };
    };
    expect((await all(linkPages('/x', fetch))).map((p) => p.items)).toEqual([[0, 1, 2, 3, 4], [5, 6]]);
    expect(links).toEqual(['/x', 'https://api.example/x?offset=5']);
    const endless = await all(linkPages('/x', async () => ({ items: [], next: '/x' })));
    expect(endless).toEqual([{ items: [], next: '/x' }]);
  });
});

describe('a pull position', () => {
  it('reads its own watermark, starts from nothing, and leaves any other watermark to the connector', () => {
    const refuse = (): never => { throw new Error('not ours'); };
    expect(pullPosition(null, refuse)).toEqual({ since: null, next: null, latest: null });
    expect(pullPosition(JSON.stringify({ since: '2026-11-01', next: '/page/2' }), refuse)).toEqual({ since: '2026-11-01', next: '/page/2', latest: null });
    expect(() => pullPosition('2026-11-01T00:00:00Z', refuse)).toThrow('not ours');
    expect(pullPosition('2026-11-01T00:00:00Z', (since) => ({ since, next: null, latest: null }))).toEqual({ since: '2026-11-01T00:00:00Z', next: null, latest: null });
  });

  it('reads a vendor\'s date on its own as where a pull from it starts, and keeps the later of two stamps', () => {
    expect(positionSince(null)).toEqual({ since: null, next: null, latest: null });
    expect(positionSince('2026-11-01T00:00:00Z')).toEqual({ since: '2026-11-01T00:00:00Z', next: null, latest: null });
    expect(positionSince(JSON.stringify({ since: 'a', next: '2', latest: 'b' }))).toEqual({ since: 'a', next: '2', latest: 'b' });
    expect(laterStamp(null, '2026-01-01T00:00:00Z')).toBe('2026-01-01T00:00:00Z');
    expect(laterStamp('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z')).toBe('2026-01-02T00:00:00Z');
    expect(laterStamp('2026-01-02T00:00:00Z', undefined)).toBe('2026-01-02T00:00:00Z');
  });
});

describe('a candidate held to a criterion', () => {
  it('equals, contains and starts with, on values written alike', () => {
    expect(meets('ada lovelace', 'ada lovelace', undefined)).toBe(true);
    expect(meets('ada lovelace', 'love', 'contains')).toBe(true);
    expect(meets('ada lovelace', 'love', 'equals')).toBe(false);
    expect(meets('ada lovelace', 'ada', 'starts-with')).toBe(true);
    expect(meets('ada lovelace', 'lace', 'starts-with')).toBe(false);
  });
});
