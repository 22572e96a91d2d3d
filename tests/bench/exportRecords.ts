/**
 * Export throughput, printed, never asserted: a CSV export of 1,000,000 records of one bucket view
 * (server/services/exports.ts writeExport, as the record-export job runs it), in rows per second,
 * the file's size, and the process's peak memory, which stays bounded: the records come from a
 * server-side cursor a batch at a time and stream to the file.
 *
 * Setup: a scratch database on DATABASE_URL's server (else an embedded cluster under
 * .data/bench-export), migrations and the demo seed, one formula of the first demo tenant and its
 * records inserted by SQL (generate_series, 100,000 a statement, the indexes built afterwards:
 * tests/support/benchDatabase.ts).
 *
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/exportRecords.ts`; smaller with
 * BENCH_EXPORT_RECORDS=100000.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { localFileStore } from '../../server/connectors/fileSources/fileStore.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { createLogger } from '../../server/log.ts';
import { writeExport } from '../../server/services/exports.ts';
import { benchDemo, bulkLoadRecords, n, scratchDatabase } from '../support/benchDatabase.ts';

const MB = 1024 * 1024;

export async function exportRecordsBench(): Promise<void> {
  const total = Number(process.env.BENCH_EXPORT_RECORDS ?? 1_000_000);
  const scratch = await scratchDatabase('export');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-export-'));
  const { database, tenantId, userId } = await benchDemo(scratch);
  try {
    const { rows: [formula] } = await database.pool.query<{ id: string }>(
      'insert into formulas (tenant_id, name, is_draft) values ($1, $2, false) returning id', [tenantId, 'Bench export']);

    // ready records of the New bucket, a third of them matched, one in fifty with a formula-like last name
    const load = await bulkLoadRecords(database.pool, total, (from, to) => database.pool.query(`
        insert into records (tenant_id, formula_id, source_key, bucket, state, raw, transformed, candidates, score, idempotency_key, date_added)
        select $1, $2, 'S' || g, 'new', 'ready',
          jsonb_build_object('First name', 'Ann ' || g, 'Last name', 'Smith', 'Email', 'ann' || g || '@example.org'),
          jsonb_build_object('firstName', 'Ann ' || g, 'lastName', case when g % 50 = 0 then '=HYPERLINK("x")' else 'O''Neill, Jr' end,
            'email', 'ann' || g || '@example.org', 'phone', '+44 20 7946 ' || lpad((g % 10000)::text, 4, '0'),
            'postalCode', 'LS1 ' || (g % 9) || 'AB', 'amount', (g % 500) + 0.5),
          case when g % 3 = 0 then jsonb_build_array(jsonb_build_object('id', 'c' || g, 'score', 80, 'reasons', jsonb_build_array('Same e-mail'))) else '[]'::jsonb end,
          case when g % 3 = 0 then 80 else null end,
          'k' || g, now() - make_interval(secs => g)
        from generate_series($3::int, $4::int) as g`, [tenantId, formula!.id, from, to]));
    console.log(`export: ${n(total)} records inserted in ${load.insertS.toFixed(0)} s, indexed in ${load.indexS.toFixed(0)} s`);

    const tenant = forTenant(database.db, tenantId);
    const row = await tenant.recordExports.insert({
      userId, formulaId: formula!.id, bucket: 'ready-records', status: 'started',
      selection: { selection: { kind: 'scope', scope: { view: 'ready-records', filter: {} } }, includeRaw: false },
    });
    const store = localFileStore(dir);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    let peak = rssBefore;
    let peakHeap = 0;
    const timer = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    }, 20);
    const started = performance.now();
    const outcome = await writeExport(tenant, row.id, { store, log: createLogger('silent') });
    const ms = performance.now() - started;
    clearInterval(timer);
    peak = Math.max(peak, process.memoryUsage().rss);
    const done = await tenant.recordExports.get(row.id);
    const size = (await store.size(done!.fileKey!)) ?? 0;
    console.log(`export: ${outcome}, ${n(done!.written)} of ${n(done!.total ?? 0)} records to a ${(size / MB).toFixed(0)} MB CSV in ${(ms / 1000).toFixed(1)} s `
      + `= ${n(done!.written / (ms / 1000))} rows/s; RSS ${(rssBefore / MB).toFixed(0)} MB before, ${(peak / MB).toFixed(0)} MB peak (grew ${((peak - rssBefore) / MB).toFixed(0)} MB), JavaScript heap at most ${(peakHeap / MB).toFixed(0)} MB`);
  } finally {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await scratch.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await exportRecordsBench();
