/**
 * The size budgets of the built app (README, "Delivery"), checked on a production build (the one
 * `npm test` makes for the end-to-end run too, or one made into a temporary folder): the landing route's JavaScript, every stylesheet together, and that no
 * other screen and no devtool reaches the landing route. The signed-in Data Queue's budget is
 * measured in Chromium, where what it loads is known for certain (tests/e2e/webVitals.test.ts).
 * `npm run bench` prints the same figures chunk by chunk.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allAssets, BUDGET_ENCODING, BUDGETS, chunkSourceFiles, chunkSources, fileSizes, KB, landingRoute, readManifest, sizeTable, sum, testBuild, type Manifest,
} from '../support/bundleSize.ts';

let dist: string;
let owned = false;
let manifest: Manifest;

beforeAll(async () => {
  ({ dist, owned } = await testBuild());
  manifest = readManifest(dist);
}, 240_000);
afterAll(() => { if (dist && owned) fs.rmSync(dist, { recursive: true, force: true }); });

const kb = (n: number) => `${(n / KB).toFixed(1)} KB`;

/** What is in the landing route, by package or source folder, largest first: the message when the budget is exceeded. */
function landingContents(): string {
  const by = new Map<string, number>();
  for (const f of landingRoute(dist, manifest).js) for (const [k, v] of chunkSources(dist, f)) by.set(k, (by.get(k) ?? 0) + v);
  return [...by].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `  ${k}: ${kb(v)} minified`).join('\n');
}

describe('size budgets of the built app', () => {
  it(`keeps the landing route's JavaScript within ${kb(BUDGETS.landingJs)} (${BUDGET_ENCODING})`, () => {
    const { js } = landingRoute(dist, manifest);
    const size = sum(js.map((f) => fileSizes(dist, f)))[BUDGET_ENCODING];
    expect(size, `the landing route loads ${kb(size)} of JavaScript (${BUDGET_ENCODING}), over its budget of ${kb(BUDGETS.landingJs)}:\n`
      + `${sizeTable(dist, js.map((file) => ({ file })))}\nwhat it is made of:\n${landingContents()}`).toBeLessThanOrEqual(BUDGETS.landingJs);
  });

  it(`keeps every stylesheet together within ${kb(BUDGETS.css)} (${BUDGET_ENCODING})`, () => {
    const { css } = allAssets(dist);
    const size = sum(css.map((f) => fileSizes(dist, f)))[BUDGET_ENCODING];
    expect(size, `the app's stylesheets are ${kb(size)} (${BUDGET_ENCODING}), over their budget of ${kb(BUDGETS.css)}:\n`
      + sizeTable(dist, css.map((file) => ({ file })))).toBeLessThanOrEqual(BUDGETS.css);
  });

  it('loads every screen but the landing page, and every devtool, only on its route', () => {
    const landing = landingRoute(dist, manifest);
    const sources = new Set(landing.js.flatMap((f) => chunkSourceFiles(dist, f)));
    const stray = [...sources].filter((s) => (s.startsWith('src/views/') && !/^src\/views\/(landing|shell)\//.test(s))
      || s.startsWith('src/devtools/') || s.startsWith('src/domain/connectors/')
      || /^node_modules\/(elkjs|@xstate\/graph|@statelyai\/inspect|react-dropzone|@mantine\/dropzone|mantine-datatable)\//.test(s));
    expect(stray, 'the landing route carries code of other screens or of the devtools').toEqual([]);
    // the devtools and the other screens are there, behind dynamic imports
    for (const src of ['src/devtools/views/WorkflowsPage.tsx', 'src/devtools/views/InspectorPage.tsx', 'src/views/upload/UploadPage.tsx',
      'src/views/connections/ConnectionsPage.tsx', 'src/views/welcome/WelcomePage.tsx']) {
      expect(manifest[src]?.isDynamicEntry, src).toBe(true);
      expect(landing.keys.has(src), src).toBe(false);
    }
  });
});

describe('what the build leaves for the server', () => {
  it('puts brotli and gzip beside every text asset worth compressing, each the same bytes once decoded', () => {
    const files = [...allAssets(dist).js, ...allAssets(dist).css, 'index.html'];
    let compressed = 0;
    for (const file of files) {
      const full = path.join(dist, file);
      const bytes = fs.readFileSync(full);
      if (bytes.length < 1024) continue;
      compressed++;
      expect(zlib.brotliDecompressSync(fs.readFileSync(`${full}.br`)).equals(bytes), `${file}.br`).toBe(true);
      expect(zlib.gunzipSync(fs.readFileSync(`${full}.gz`)).equals(bytes), `${file}.gz`).toBe(true);
    }
    expect(compressed).toBeGreaterThan(10);
  });

  it('keeps source maps unreferenced (they stay on the server, which never serves them)', () => {
    const referencing = allAssets(dist).js.filter((file) => /^\/\/# sourceMappingURL=/m.test(fs.readFileSync(path.join(dist, file), 'utf8')));
    expect(referencing).toEqual([]);
  });
});
