/**
 * `npm run bench`: speed and memory figures, printed, never asserted.
 * - flat-file parsing: a 15MB CSV (the upload limit) streamed through parseTabular
 * - workbooks: what reading in a worker thread adds to a small file, and how long each Excel bomb
 *   of tests/unit/flatFileBombs.test.ts takes to be refused
 * - flag evaluation: custom-routing per formula, as the wizard asks it
 * - matching accuracy: precision and recall of confident matches on synthetic people, against
 *   their targets (tests/bench/matchAccuracy.ts, which also runs alone)
 * - candidate index: a destination of 1,000,000 constituents loaded into the engine's index, its
 *   memory, and its answers to the recommended scenarios' searches per second, without PostgreSQL
 *   (tests/bench/candidateIndex.ts, which also runs alone)
 * - engine throughput: records per second through the whole pipeline, 100,000 incoming records
 *   against a Sandbox CRM of 1,000,000 constituents, with one and with two worker processes and
 *   each one's peak memory, against their targets (tests/bench/engineThroughput.ts, which also runs alone)
 * - exports: a CSV export of 1,000,000 records of one bucket view, rows per second and peak memory
 *   (tests/bench/exportRecords.ts, which also runs alone)
 * - bucket screens: server-side time of a view's first page, a sort, a filter and the counts at
 *   1,000,000 records in one formula, p95 against 100 ms (tests/bench/bucketScreens.ts, which also runs alone)
 * - delivery: a production build's chunks (raw, gzip, brotli), the size budgets, and Core Web
 *   Vitals in Chromium on the throttled profile (the tests that hold them: tests/unit/bundleBudgets.test.ts,
 *   tests/e2e/webVitals.test.ts)
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { readXls, readXlsx } from '../../server/connectors/flatFile/excel.ts';
import { SampleCollector } from '../../server/connectors/flatFile/sample.ts';
import { parseTabular } from '../../server/connectors/flatFile/tabular.ts';
import {
  lyingSizeBomb, sharedStringsBomb, sheetBomb, workbook, xlsThatSheetJsNeverFinishes, xlsWithLoopingChain, xlsWithOversizedStream,
} from '../support/flatFiles.ts';
import { formulaRequest, formulaRuleFlag } from '../../src/domain/flags/customRouting.ts';
import { toSnapshotFlag } from '../../src/domain/flags/definitions.ts';
import { createFlagEvaluator } from '../../src/domain/flags/evaluator.ts';
import { CUSTOM_ROUTING_FLAG, parseFlagSnapshot } from '../../src/domain/flags/snapshot.ts';
import { loadConfig } from '../../server/config.ts';
import { freePort } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/log.ts';
import { startServer } from '../../server/main.ts';
import { chromiumPath, launchChromium } from '../support/browser.ts';
import {
  allAssets, BUDGET_ENCODING, BUDGETS, buildInto, chunkNotes, chunkSources, fileSizes, KB, landingRoute, lazyModule, readManifest, sizeTable, sum,
  type Sizes,
} from '../support/bundleSize.ts';
import { bestOf, formatVitals, landingVitals, PROFILE, signedInVitals, type Measured } from '../support/webVitals.ts';
import { bucketScreensBench } from './bucketScreens.ts';
import { candidateIndexBench } from './candidateIndex.ts';
import { engineThroughputBench } from './engineThroughput.ts';
import { exportRecordsBench } from './exportRecords.ts';
import { matchAccuracyBench } from './matchAccuracy.ts';

const MB = 1024 * 1024;

async function benchCsv() {
  const header = 'Constituent ID,First Name,Last Name,Email,Phone,Address,City,Postcode,Gift Amount,Gift Date\r\n';
  const row = (i: number) => `C${i},Ann ${i},"O'Neill, Jr",ann${i}@example.org,+44 20 7946 ${String(i % 10000).padStart(4, '0')},"1 High St, Flat ${i % 90}",Leeds,LS1 ${i % 9}AB,${(i % 500) + 0.5},2026-11-${String((i % 28) + 1).padStart(2, '0')}\r\n`;
  const target = 15 * MB - 1024;
  function* chunks() {
    yield Buffer.from(header);
    let size = header.length, i = 0, batch = '';
    while (size < target) {
      const r = row(i++);
      if (size + r.length > target) break;
      batch += r; size += r.length;
      if (batch.length > 64 * 1024) { yield Buffer.from(batch); batch = ''; }
    }
    if (batch) yield Buffer.from(batch);
  }
  global.gc?.();
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
  const started = performance.now();
  const result = await parseTabular(Readable.from(chunks()), { fileName: 'supporters.csv' });
  const ms = performance.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const mb = result.size / MB;
  console.log(`flat file: ${mb.toFixed(1)} MB CSV, ${result.rowCount ?? '?'} rows in ${ms.toFixed(0)} ms = ${(mb / (ms / 1000)).toFixed(1)} MB/s; RSS grew ${((peak - rssBefore) / MB).toFixed(1)} MB (${(peak / MB).toFixed(0)} MB peak)`);
}

async function benchWorkbooks() {
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const time = async (f: () => unknown) => { const t = performance.now(); await f(); return performance.now() - t; };
  const rows: unknown[][] = [['Name', 'Email', 'Amount', 'Given on']];
  for (let i = 1; i <= 50; i++) rows.push([`Ann ${i}`, `ann${i}@example.org`, i * 1.5, new Date(Date.UTC(2026, 0, i % 28 + 1))]);
  const first = workbook(rows, 'xlsx');
  const cold = await time(() => parseTabular(first, { fileName: 'first.xlsx' }));
  console.log(`workbook: the first read of a process, which starts the worker thread: ${cold.toFixed(0)} ms`);
  for (const [label, bookType, fileName] of [['xlsx', 'xlsx', 'gifts.xlsx'], ['xls', 'biff8', 'gifts.xls']] as const) {
    const book = workbook(rows, bookType, { sharedStrings: true });
    const direct = () => (bookType === 'xlsx' ? readXlsx(book, new SampleCollector()) : readXls(book, new SampleCollector()));
    const viaWorker = () => parseTabular(book, { fileName });
    const n = 50;
    const inThread: number[] = [];
    const inWorker: number[] = [];
    for (let i = 0; i < n; i++) { inThread.push(await time(direct)); inWorker.push(await time(viaWorker)); }
    const [a, b] = [median(inThread), median(inWorker)];
    console.log(`workbook: small ${label} (${(book.length / 1024).toFixed(1)} KB, 50 rows): ${a.toFixed(1)} ms read in the calling thread, ${b.toFixed(1)} ms through the worker (median of ${n}), so ${(b - a).toFixed(1)} ms added`);
  }
  const bombs: [string, Buffer, string][] = [
    ['shared strings 100 MB', sharedStringsBomb(100), 'x.xlsx'],
    ['sheet 300 MB', sheetBomb(300), 'x.xlsx'],
    ['sheet declaring 64 KB, inflating to 300 MB', lyingSizeBomb(300), 'x.xlsx'],
    ['.xls declaring a 2 GB stream', xlsWithOversizedStream(), 'x.xls'],
    ['.xls with a looping sector chain', xlsWithLoopingChain(), 'x.xls'],
    ['.xls SheetJS does not finish (stopped by the 5 s CPU budget)', xlsThatSheetJsNeverFinishes(), 'x.xls'],
  ];
  for (const [name, bytes, fileName] of bombs) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const outcome = await parseTabular(bytes, { fileName }).then(() => 'accepted', (err: { outcome?: string }) => err.outcome ?? 'error');
    const ms = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    console.log(`workbook bomb: ${name} (${Math.ceil(bytes.length / 1024)} KB): ${outcome} in ${ms.toFixed(0)} ms (${((user + system) / 1000).toFixed(0)} ms CPU, all threads)`);
  }
}

function benchFlags() {
  const ids = Array.from({ length: 50 }, (_, i) => `formula-${i}`);
  const snapshot = parseFlagSnapshot({
    namespace: { key: 'default' },
    flags: [toSnapshotFlag(CUSTOM_ROUTING_FLAG, formulaRuleFlag('Custom routing', 'bench', ids))],
  }, 'default');
  const evaluator = createFlagEvaluator(snapshot);
  const n = 200_000;
  let on = 0;
  const started = performance.now();
  for (let i = 0; i < n; i++) if (evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, `formula-${i % 100}`)).enabled) on++;
  const ms = performance.now() - started;
  console.log(`flags: ${n} custom-routing evaluations in ${ms.toFixed(0)} ms = ${Math.round(n / (ms / 1000)).toLocaleString('en')} per second (${on} on)`);
}

const kb = (n: number) => `${(n / KB).toFixed(1)} KB`;
const budgetLine = (label: string, s: Sizes, budget: number) =>
  `delivery: ${label}: ${kb(s.raw)} raw, ${kb(s.gzip)} gzip, ${kb(s.brotli)} brotli; budget ${kb(budget)} ${BUDGET_ENCODING}: ${s[BUDGET_ENCODING] <= budget ? 'within' : `OVER by ${kb(s[BUDGET_ENCODING] - budget)}`}`;

async function benchDelivery() {
  const dist = await buildInto();
  try {
    const manifest = readManifest(dist);
    const notes = chunkNotes(dist, manifest);
    const { js, css } = allAssets(dist);
    console.log('delivery: every chunk of a production build (KB = 1024 bytes; gzip level 9 and brotli quality 11, the files the server sends)');
    console.log(sizeTable(dist, [...js, ...css].map((file) => ({ file, note: notes.get(file) }))));

    const landing = landingRoute(dist, manifest);
    console.log(budgetLine('landing route JavaScript', sum(landing.js.map((f) => fileSizes(dist, f))), BUDGETS.landingJs));
    console.log(budgetLine('all CSS', sum(css.map((f) => fileSizes(dist, f))), BUDGETS.css));
    console.log(`delivery: landing route CSS (render-blocking): ${kb(sum(landing.css.map((f) => fileSizes(dist, f))).brotli)} brotli in ${landing.css.length} files`);
    const by = new Map<string, number>();
    for (const f of landing.js) for (const [k, v] of chunkSources(dist, f)) by.set(k, (by.get(k) ?? 0) + v);
    console.log(`delivery: the landing route's JavaScript by package or folder (minified): ${[...by].sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k} ${kb(v)}`).join(', ')}`);
    const lazy = Object.entries(manifest).filter(([, c]) => c.isDynamicEntry && c.src).map(([src]) => {
      const added = lazyModule(dist, manifest, src);
      return { src, js: sum(added.js.map((f) => fileSizes(dist, f))), css: sum(added.css.map((f) => fileSizes(dist, f))) };
    }).sort((a, b) => b.js.brotli - a.js.brotli);
    console.log('delivery: what each lazily loaded module adds to the landing route (brotli, JavaScript + CSS):');
    for (const l of lazy) console.log(`  ${l.src.padEnd(52)} ${kb(l.js.brotli).padStart(10)} + ${kb(l.css.brotli)}`);

    await benchInBrowser(dist);
  } finally {
    fs.rmSync(dist, { recursive: true, force: true });
  }
}

/** The same build served as `npm start` serves it, over an embedded PostgreSQL of the bench's own (.data/bench). */
async function benchInBrowser(dist: string) {
  if (!fs.existsSync(chromiumPath())) {
    console.log(`delivery: web vitals not measured: no Chromium at ${chromiumPath()}`);
    return;
  }
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://localhost:${port}`, DATA_DIR: path.resolve('.data/bench'),
    EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'silent',
  });
  const running = await startServer(config, createLogger('silent'), { staticRoot: dist, work: false });
  const browser = await launchChromium();
  try {
    const email = 'administrator@demo.tributary.test';
    // a returning user, so the Data Queue is where signing in lands
    await running.database.pool.query('update users set login_count = greatest(login_count, 5) where email = $1', [email]);
    const profile = `${PROFILE.downloadMbps} Mbit/s, ${PROFILE.latencyMs} ms, cache off`;
    const report = (label: string, { best, runs }: { best: Measured; runs: unknown[] }) => {
      console.log(`delivery: web vitals, ${label} (${profile}; best of ${runs.length}): ${formatVitals(best.vitals)}`);
      const scripts = [...new Set(best.assets.filter((a) => a.path.endsWith('.js')).map((a) => a.path))];
      const encodings = [...new Set(best.assets.map((a) => a.encoding ?? 'none'))].join(', ');
      return { scripts, encodings };
    };
    const landing = report('landing page', await bestOf(() => landingVitals(browser, running.url)));
    console.log(budgetLine(`landing route JavaScript as Chromium loaded it (${landing.scripts.length} files, sent as ${landing.encodings})`,
      sum(landing.scripts.map((f) => fileSizes(dist, f))), BUDGETS.landingJs));
    const queue = report('Data Queue, signed in', await bestOf(() => signedInVitals(browser, running.url, email)));
    console.log(budgetLine(`Data Queue JavaScript including what it loads (${queue.scripts.length} files, sent as ${queue.encodings})`,
      sum(queue.scripts.map((f) => fileSizes(dist, f))), BUDGETS.dataQueueJs));
  } finally {
    await browser.close();
    await running.stop();
  }
}

await benchCsv();
await benchWorkbooks();
benchFlags();
await matchAccuracyBench();
await candidateIndexBench();
await engineThroughputBench();
await exportRecordsBench();
await bucketScreensBench();
await benchDelivery();
