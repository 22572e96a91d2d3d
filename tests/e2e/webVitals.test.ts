/**
 * Core Web Vitals of the built app in Chromium on the throttled profile (10 Mbit/s, 40 ms):
 * LCP, CLS and INP of the landing page and of the signed-in Data Queue, each measured once and
 * printed (`npm run bench` holds them to their targets, the best of up to three runs); the Data
 * Queue's JavaScript, as loaded, held to its size budget; and the browser's cache doing its part on
 * a second visit (assets not asked for again, the page revalidated).
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { BUDGET_ENCODING, BUDGETS, fileSizes, KB, sizeTable, sum } from '../support/bundleSize.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { bestOf, formatVitals, landingVitals, PROFILE, signedInVitals, TARGETS, type LoadedAsset, type Vitals } from '../support/webVitals.ts';

const dist = path.resolve('dist');
const EMAIL = 'administrator@demo.tributary.test';
let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: dist });
  browser = await launchChromium();
  // a returning user: a first login would be sent to the welcome page instead
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  await client.query('update users set login_count = 5 where email = $1', [EMAIL]);
  await client.end();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const profile = `${PROFILE.downloadMbps} Mbit/s, ${PROFILE.latencyMs} ms`;
let dataQueueScripts: { scripts: string[]; size: number } | null = null;

/**
 * The vitals are measured here and printed; their targets (TARGETS) are judged by `npm run bench`,
 * not here: a timed assertion on this shared 2-core machine would fail for the machine's load, not
 * for the app (speed targets belong in benchmarks). So one run each: what is asserted here (the
 * figures measured, the assets compressed, the scripts loaded) holds of any run, and a second or
 * third run, made only when the first misses a target, would only pick a lower figure to print.
 */
function expectMeasured(v: Vitals) {
  expect(v.lcpMs).toBeGreaterThan(0);
  expect(v.cls).toBeGreaterThanOrEqual(0);
  expect(v.inpMs).not.toBeNull();
  console.log(`targets: LCP < ${TARGETS.lcpMs} ms, CLS < ${TARGETS.cls}, INP < ${TARGETS.inpMs} ms`);
}

/** Every asset was found, and each the build compressed arrived as brotli (Chromium asks for it, on localhost too). */
function expectServedCompressed(assets: LoadedAsset[]) {
  expect(assets.filter((a) => a.status !== 200), 'not found').toEqual([]);
  const compressed = assets.filter((a) => fs.existsSync(path.join(dist, `${a.path}.br`)));
  expect(compressed.length).toBeGreaterThan(0);
  expect(compressed.filter((a) => a.encoding !== 'br'), 'sent without brotli').toEqual([]);
}

describe(`Core Web Vitals in Chromium (${profile})`, () => {
  it('the landing page, for a new visitor', async () => {
    const { best: { vitals, assets }, runs } = await bestOf(() => landingVitals(browser, server.url), 1);
    for (const run of runs) console.log(`web vitals, landing (${profile}): ${formatVitals(run)}`);
    expectServedCompressed(assets);
    expectMeasured(vitals);
  });

  it('the Data Queue, signed in', async () => {
    const { best: { vitals, assets }, runs } = await bestOf(() => signedInVitals(browser, server.url, EMAIL), 1);
    for (const run of runs) console.log(`web vitals, Data Queue signed in (${profile}): ${formatVitals(run)}`);
    expectServedCompressed(assets);

    const scripts = [...new Set(assets.filter((a) => a.path.endsWith('.js')).map((a) => a.path))];
    const size = sum(scripts.map((f) => fileSizes(dist, f)))[BUDGET_ENCODING];
    console.log(`Data Queue loads ${scripts.length} scripts, ${(size / KB).toFixed(1)} KB ${BUDGET_ENCODING} (budget ${(BUDGETS.dataQueueJs / KB).toFixed(0)} KB)`);
    dataQueueScripts = { scripts, size };
    expectMeasured(vitals);
  });

  it('the Data Queue stays within its JavaScript budget', () => {
    expect(dataQueueScripts, 'the Data Queue was measured').not.toBeNull();
    const { scripts, size } = dataQueueScripts!;
    expect(size, `the Data Queue loads ${(size / KB).toFixed(1)} KB of JavaScript (${BUDGET_ENCODING}), over its budget of ${(BUDGETS.dataQueueJs / KB).toFixed(0)} KB:\n`
      + sizeTable(dist, scripts.map((file) => ({ file })))).toBeLessThanOrEqual(BUDGETS.dataQueueJs);
  });
});

describe('the browser cache on a second visit', () => {
  it('takes content-hashed assets from its cache and revalidates only the page', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();

      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      const asked: { id: string; path: string; fromCache: boolean }[] = [];
      const fromMemory = new Set<string>();
      // the status on the wire: Chromium reports a revalidated response with its cached copy's 200
      const wireStatus = new Map<string, number>();
      cdp.on('Network.requestServedFromCache', (e) => fromMemory.add(e.requestId));
      cdp.on('Network.responseReceivedExtraInfo', (e) => wireStatus.set(e.requestId, e.statusCode));
      cdp.on('Network.responseReceived', (e) => {
        asked.push({ id: e.requestId, path: new URL(e.response.url).pathname, fromCache: e.response.fromDiskCache || fromMemory.has(e.requestId) });
      });
      await page.goto(`${server.url}/`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();

      const assets = asked.filter((a) => a.path.startsWith('/assets/'));
      expect(assets.length).toBeGreaterThan(0);
      expect(assets.filter((a) => !a.fromCache), 'assets asked of the server again').toEqual([]);
      const document = asked.find((a) => a.path === '/');
      // the page itself is revalidated: the server answers 304 and Chromium shows its cached copy
      expect(document?.fromCache).toBe(false);
      await expect.poll(() => wireStatus.get(document!.id)).toBe(304);
    } finally {
      await context.close();
    }
  });
});
