/**
 * The app's connection pool survives PostgreSQL ending one of its connections while the app holds
 * it between two queries (a restart, an administrator's pg_terminate_backend, a dropped database):
 * the process stays up, the next query on that client fails, and the pool answers with a new one.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { createTestDatabase } from '../support/database.ts';

let scratch: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => { uncaught.push(err); };

beforeAll(async () => {
  scratch = await createTestDatabase();
  database = await openDatabase(scratch.url);
  process.on('uncaughtException', onUncaught);
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  await database?.close();
  await scratch?.drop();
});

it('keeps the process up when PostgreSQL ends a connection the app holds between queries', async () => {
  const client = await database.pool.connect();
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const pid = rows[0]!.pid;
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  try {
    await admin.query('select pg_terminate_backend($1)', [pid]);
  } finally {
    await admin.end();
  }
  // the FATAL message arrives on the idle socket
  await new Promise((r) => setTimeout(r, 300));
  expect(uncaught).toEqual([]);
  await expect(client.query('select 1')).rejects.toThrow();
  client.release(true);
  const fresh = await database.pool.query<{ one: number }>('select 1 as one');
  expect(fresh.rows).toEqual([{ one: 1 }]);
});
