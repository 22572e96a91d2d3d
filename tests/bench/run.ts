/**
 * `npm run bench`: speed and memory figures, printed, never asserted.
 * - flat-file parsing: a 15MB CSV (the upload limit) streamed through parseTabular
 * - flag evaluation: custom-routing per formula, as the wizard asks it
 */
import { Readable } from 'node:stream';
import { parseTabular } from '../../server/connectors/flatFile/tabular.ts';
import { createFlagEvaluator, CUSTOM_ROUTING_FLAG, formulaRequest, formulaRuleFlag, parseFlagSnapshot, toSnapshotFlag } from '../../src/domain/flags.ts';

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

await benchCsv();
benchFlags();
