/**
 * What the benchmarks (tests/bench) stand on: a scratch database on DATABASE_URL's server, or on
 * an embedded cluster under .data/bench-<label>, migrated and seeded with the demo organisation;
 * and a bulk loader of records that writes a million the way a restore would, not the way the
 * engine does: the secondary indexes of `records` dropped, the rows inserted by SQL a chunk at a
 * time, the indexes built again once, then ANALYZE.
 */
import path from 'node:path';
import type pg from 'pg';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.ts';
import { seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { createLogger } from '../../server/log.ts';
import { createDatabaseOn } from './scratchDatabase.ts';

export const n = (x: number) => Math.round(x).toLocaleString('en');
export const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(0);

export interface ScratchDatabase {
  /** the server's admin URL (its `postgres` database) */
  admin: string;
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A new, empty database for one benchmark; `drop` removes it (and stops the embedded cluster). */
export async function scratchDatabase(label: string): Promise<ScratchDatabase> {
  let embedded: EmbeddedDatabase | undefined;
  let admin = process.env.DATABASE_URL;
  let app = admin;
  if (!admin) {
    embedded = await startEmbeddedPostgres(path.resolve(`.data/bench-${label}`), await freePort(), createLogger('warn'));
    admin = embedded.adminUrl;
    app = embedded.url;
  }
  const made = await createDatabaseOn(admin, `bench_${label}`, app);
  return {
    admin, url: made.url, name: made.name,
    async drop() {
      await made.drop();
      await embedded?.stop();
    },
  };
}

/** A scratch database opened, migrated and seeded, with the first demo tenant and its administrator. */
export async function benchDemo(scratch: ScratchDatabase): Promise<{ database: Database; tenantId: string; userId: string; userName: string }> {
  const database = await openDatabase(scratch.url);
  await seedDemo(database.db, seedSandboxCrm);
  const { rows: [tenant] } = await database.pool.query<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]);
  const { rows: [user] } = await database.pool.query<{ id: string; full_name: string }>("select id, full_name from users where email = 'administrator@demo.tributary.test'");
  return { database, tenantId: tenant!.id, userId: user!.id, userName: user!.full_name };
}

/**
 * Inserts records `1..total` with `insertChunk(from, to)` (an `insert into records ... select ...
 * from generate_series($from, $to)` statement), `chunk` at a time, with the secondary indexes of
 * `records` dropped meanwhile and built again afterwards (the primary key stays). Answers the
 * seconds spent inserting and indexing.
 */
export async function bulkLoadRecords(pool: pg.Pool, total: number, insertChunk: (from: number, to: number) => Promise<unknown>, chunk = 100_000): Promise<{ insertS: number; indexS: number }> {
  const { rows: indexes } = await pool.query<{ name: string; def: string }>(`
    select i.indexname as name, i.indexdef as def from pg_indexes i
    where i.schemaname = current_schema() and i.tablename = 'records'
      and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`);
  for (const i of indexes) await pool.query(`drop index "${i.name}"`);
  let started = performance.now();
  for (let from = 1; from <= total; from += chunk) await insertChunk(from, Math.min(total, from + chunk - 1));
  const insertS = (performance.now() - started) / 1000;
  started = performance.now();
  // several at once: each build is single-threaded, and the machine has more than one core
  const queue = [...indexes];
  await Promise.all([0, 1].map(async () => {
    const client = await pool.connect();
    try {
      await client.query(`set maintenance_work_mem = '256MB'`);
      for (let i = queue.shift(); i; i = queue.shift()) await client.query(i.def);
    } finally {
      client.release();
    }
  }));
  // as a table long in use is: vacuumed (its visibility map set), analysed, autovacuum with nothing left to do while the benchmark measures
  await pool.query('vacuum analyze records');
  return { insertS, indexS: (performance.now() - started) / 1000 };
}
