/**
 * Export throughput, printed, never asserted: a CSV export of 1,000,000 records of one bucket view
 * (server/services/exports.ts writeExport, as the record-export job runs it), in rows per second,
 * the file's size, and the process's peak memory, which stays bounded: the records come from a
 * server-side cursor a batch at a time and stream to the file.
 *
 * Setup: a scratch database on DATABASE_URL's server (else an embedded cluster under
 * .data/bench-export), migrations and the demo seed, one formula of the first demo tenant and its
 * records inserted by SQL (generate_series, 100,000 a statement), then ANALYZE.
 *
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/exportRecords.ts`; smaller with
 * BENCH_EXPORT_RECORDS=100000.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { openDatabase } from '../../server/db/database.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.ts';
import { localFileStore } from '../../server/db/fileStore.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { createLogger } from '../../server/log.ts';
import { writeExport } from '../../server/services/exports.ts';

const MB = 1024 * 1024;
const INSERT_CHUNK = 100_000;
const n = (x: number) => Math.round(x).toLocaleString('en');

async function scratchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  let embedded: EmbeddedDatabase | undefined;
  let admin = process.env.DATABASE_URL;
  if (!admin) {
    embedded = await startEmbeddedPostgres(path.resolve('.data/bench-export'), await freePort(), createLogger('warn'));
    admin = embedded.url;
  }
  const name = `bench_export_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
      await embedded?.stop();
    },
  };
}

export async function exportRecordsBench(): Promise<void> {
  const total = Number(process.env.BENCH_EXPORT_RECORDS ?? 1_000_000);
  const scratch = await scratchDatabase();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-export-'));
  const database = await openDatabase(scratch.url);
  try {
    await seedDemo(database.db);
    const { rows: [tenantRow] } = await database.pool.query<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]);
    const { rows: [user] } = await database.pool.query<{ id: string }>("select id from users where email = 'administrator@demo.tributary.test'");
    const tenantId = tenantRow!.id;
    const { rows: [formula] } = await database.pool.query<{ id: string }>(
      'insert into formulas (tenant_id, name, is_draft) values ($1, $2, false) returning id', [tenantId, 'Bench export']);

    let started = performance.now();
    for (let from = 1; from <= total; from += INSERT_CHUNK) {
      const to = Math.min(total, from + INSERT_CHUNK - 1);
      // ready records of the New bucket, a third of them matched, one in fifty with a formula-like last name
      await database.pool.query(`
        insert into records (tenant_id, formula_id, source_key, bucket, state, raw, transformed, candidates, score, idempotency_key, date_added)
        select $1, $2, 'S' || g, 'new', 'ready',
          jsonb_build_object('First name', 'Ann ' || g, 'Last name', 'Smith', 'Email', 'ann' || g || '@example.org'),
          jsonb_build_object('firstName', 'Ann ' || g, 'lastName', case when g % 50 = 0 then '=HYPERLINK("x")' else 'O''Neill, Jr' end,
            'email', 'ann' || g || '@example.org', 'phone', '+44 20 7946 ' || lpad((g % 10000)::text, 4, '0'),
            'postalCode', 'LS1 ' || (g % 9) || 'AB', 'amount', (g % 500) + 0.5),
          case when g % 3 = 0 then jsonb_build_array(jsonb_build_object('id', 'c' || g, 'score', 80, 'reasons', jsonb_build_array('Same e-mail'))) else '[]'::jsonb end,
          case when g % 3 = 0 then 80 else null end,
          'k' || g, now() - make_interval(secs => g)
        from generate_series($3::int, $4::int) as g`, [tenantId, formula!.id, from, to]);
    }
    await database.pool.query('analyze records');
    console.log(`export: ${n(total)} records inserted in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const tenant = forTenant(database.db, tenantId);
    const row = await tenant.recordExports.insert({
      userId: user!.id, formulaId: formula!.id, bucket: 'ready-records', status: 'started',
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
    started = performance.now();
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
