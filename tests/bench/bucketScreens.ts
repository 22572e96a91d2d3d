/**
 * Bucket screens at scale, printed, never asserted: 1,000,000 records in one formula's buckets,
 * and the server-side time (the records service, without HTTP) of a view's first page, a later
 * page, a sort, a text filter and the counts per view, each p50 and p95 against the 100 ms target.
 *
 * Setup: a scratch database on DATABASE_URL's server (else an embedded cluster under
 * .data/bench-buckets), migrations and the demo seed, one formula, and the records written by
 * generate_series in one statement per 100,000 with the indexes built afterwards
 * (tests/support/benchDatabase.ts), spread over the buckets and states the engine routes to.
 *
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/bucketScreens.ts`; smaller with
 * BENCH_BUCKET_RECORDS=100000.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { loadConfig } from '../../server/config.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { recordReviewService } from '../../server/services/records.ts';
import { benchDemo, bulkLoadRecords, n, scratchDatabase } from '../support/benchDatabase.ts';

export const PAGE_TARGET_MS = 100;
const ROUNDS = 40;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;

export async function bucketScreensBench(): Promise<void> {
  const total = Number(process.env.BENCH_BUCKET_RECORDS ?? 1_000_000);
  const scratch = await scratchDatabase('buckets');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-buckets-'));
  const { database, tenantId } = await benchDemo(scratch);
  try {
    const tenant = forTenant(database.db, tenantId);
    const formula = await tenant.formulas.create({ name: 'Bucket bench', isDraft: false });
    await tenant.parts.upsert(formula.id, 'summary-fields', { fields: ['firstName', 'lastName', 'email'] }, null);

    // buckets and states in the engine's proportions: most records new or matched, a few exceptions
    const load = await bulkLoadRecords(database.pool, total, (from, to) => database.pool.query(`
        insert into records (tenant_id, formula_id, source_key, bucket, custom_bucket, state, raw, transformed, candidates, score,
          idempotency_key, error_reason, error_date, date_added)
        select $1::uuid, $2::uuid, 'S' || i,
          (array['new','new','new','one-to-one-match','one-to-one-match','one-to-many-match','exception','formula-exception','validation-exception','relationship-match'])[1 + i % 10],
          case when i % 10 = 8 then 'Bad e-mail' end,
          case when i % 10 in (6, 7, 8) then 'failed' when i % 3 = 0 then 'ready' else 'needs-attention' end,
          jsonb_build_object('First name', 'Ann' || i, 'Last name', 'Smith' || (i % 5000), 'Email', 'ann' || i || '@example.org'),
          jsonb_build_object('firstName', 'Ann' || i, 'lastName', 'Smith' || (i % 5000), 'email', 'ann' || i || '@example.org'),
          '[]'::jsonb, case when i % 10 in (3, 4, 5) then 40 + i % 60 end,
          'k' || i, case when i % 10 in (6, 7, 8) then 'refused' end, case when i % 10 in (6, 7, 8) then now() - (i || ' seconds')::interval end,
          now() - (i || ' seconds')::interval
        from generate_series($3::int, $4::int) as i`, [tenantId, formula.id, from, to]));
    console.log(`buckets: ${n(total)} records loaded in ${load.insertS.toFixed(0)} s, indexed in ${load.indexS.toFixed(0)} s`);
    let started: number;

    const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: scratch.url, SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent' });
    const review = recordReviewService({ secrets: createSecretBox(randomBytes(32)), config, sends: { queue: async () => null } });
    const second = await review.list(tenant, formula.id, { scope: { view: 'needs-attention', filter: {} }, sort: 'dateAdded', direction: 'desc', limit: 50 });
    const cases: [string, () => Promise<unknown>][] = [
      ['first page (Needs Attention, newest first)', () => review.list(tenant, formula.id, { scope: { view: 'needs-attention', filter: {} }, sort: 'dateAdded', direction: 'desc', limit: 50 })],
      ['next page (by cursor)', () => review.list(tenant, formula.id, { scope: { view: 'needs-attention', filter: {} }, sort: 'dateAdded', direction: 'desc', limit: 50, cursor: second.nextCursor! })],
      ['sort by score (One-to-one, highest first)', () => review.list(tenant, formula.id, { scope: { view: 'needs-attention-one-to-one', filter: {} }, sort: 'score', direction: 'desc', limit: 50 })],
      ['sort by error date (Exceptions, oldest first)', () => review.list(tenant, formula.id, { scope: { view: 'exception', filter: {} }, sort: 'errorDate', direction: 'asc', limit: 50 })],
      ['text filter "smith4321" (New records)', () => review.list(tenant, formula.id, { scope: { view: 'new-records', filter: { text: 'smith4321' } }, sort: 'dateAdded', direction: 'desc', limit: 50 })],
      ['text filter "ann12345@" (Needs Attention)', () => review.list(tenant, formula.id, { scope: { view: 'needs-attention', filter: { text: 'ann12345@' } }, sort: 'dateAdded', direction: 'desc', limit: 50 })],
      ['counts per view', () => review.counts(tenant, formula.id)],
    ];
    console.log(`buckets: server-side time over ${ROUNDS} rounds, target p95 under ${PAGE_TARGET_MS} ms`);
    for (const [label, run] of cases) {
      await run();
      const times: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        started = performance.now();
        await run();
        times.push(performance.now() - started);
      }
      const p95 = percentile(times, 95);
      console.log(`  ${label.padEnd(48)} p50 ${percentile(times, 50).toFixed(1).padStart(7)} ms  p95 ${p95.toFixed(1).padStart(7)} ms  ${p95 <= PAGE_TARGET_MS ? 'within target' : 'OVER TARGET'}`);
    }
  } finally {
    await database.close();
    await scratch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bucketScreensBench();
