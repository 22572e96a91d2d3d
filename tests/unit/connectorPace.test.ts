/** The connector kit's pacer: at most N calls start in any second, in the order they asked, and an abort frees the queue. */
import { describe, expect, it } from 'vitest';
import { pacer, windowPacer, type Clock } from '../../server/connectors/kit/pace.ts';
import { vendorClient } from '../../server/connectors/kit/vendorClient.ts';

/** a clock whose sleeps pass at once, moving its time forward */
function fakeClock(): Clock & { slept: number[] } {
  let t = 1_000_000;
  const slept: number[] = [];
  return {
    slept,
    now: () => t,
    sleep: async (ms, signal) => { signal?.throwIfAborted(); slept.push(ms); t += ms; },
  };
}

describe('pacer', () => {
  it('starts at most `perSecond` calls in any second', async () => {
    const clock = fakeClock();
    const p = pacer(3, clock);
    const starts: number[] = [];
    await Promise.all(Array.from({ length: 7 }, async () => { await p.take(); starts.push(clock.now()); }));
    expect(starts).toHaveLength(7);
    for (let i = 3; i < starts.length; i++) expect(starts[i]! - starts[i - 3]!).toBeGreaterThanOrEqual(1000);
    // the first three go at once; then one a third of the way through each following second, never sooner
    expect(starts.slice(0, 3).every((s) => s === starts[0])).toBe(true);
    expect(clock.slept.length).toBeGreaterThan(0);
  });

  it('does not wait while calls stay under the limit', async () => {
    const clock = fakeClock();
    const p = pacer(10, clock);
    for (let i = 0; i < 10; i++) await p.take();
    expect(clock.slept).toEqual([]);
  });

  it('lets a call that was aborted go, and the ones behind it still start', async () => {
    const clock = fakeClock();
    const p = pacer(1, clock);
    await p.take();
    const gone = new AbortController();
    gone.abort(new Error('stopped'));
    await expect(p.take(gone.signal)).rejects.toThrow('stopped');
    await expect(p.take()).resolves.toBeUndefined();
  });

  it('keeps a limit over a longer window (HubSpot: 100 calls in any ten seconds)', async () => {
    const clock = fakeClock();
    const p = windowPacer(4, 10_000, clock);
    const starts: number[] = [];
    for (let i = 0; i < 9; i++) { await p.take(); starts.push(clock.now()); }
    for (let i = 4; i < starts.length; i++) expect(starts[i]! - starts[i - 4]!).toBeGreaterThanOrEqual(10_000);
    expect(starts.slice(0, 4).every((s) => s === starts[0])).toBe(true);
  });

  it('takes a call\'s own pace too, after the client\'s (HubSpot\'s searches)', async () => {
    const taken: string[] = [];
    const client = vendorClient({
      system: 'hubspot', name: 'HubSpot', baseUrl: 'http://127.0.0.1:9', auth: async () => ({}),
      pace: { take: async () => { taken.push('client'); } },
    });
    await expect(client.call({ method: 'POST', path: '/crm/v3/objects/contacts/search', pace: { take: async () => { taken.push('search'); throw new Error('paced'); } } })).rejects.toThrow('paced');
    expect(taken).toEqual(['client', 'search']);
    expect(client.stats.calls).toBe(0);
  });

  it('is taken by the vendor client before each call', async () => {
    let taken = 0;
    const client = vendorClient({
      system: 'renxt', name: "Raiser's Edge NXT", baseUrl: 'http://127.0.0.1:9', auth: async () => ({}),
      pace: { take: async () => { taken++; throw new Error('paced'); } },
    });
    await expect(client.call({ path: '/constituent/v1/constituents' })).rejects.toThrow('paced');
    expect(taken).toBe(1);
    expect(client.stats.calls).toBe(0);
  });
});
