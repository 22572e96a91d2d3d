/**
 * What the log keeps of an unexpected error (server/log.ts): real failures of real statements on
 * PostgreSQL, logged as a 500 is logged, hold the statement and the SQL state, never the
 * statement's parameters nor the values PostgreSQL quotes back (a record's e-mail, name or JSON).
 */
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.ts';
import { createTestDatabase } from '../support/database.ts';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let db: ReturnType<typeof drizzle>;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  pool.on('error', () => { /* the database is dropped at the end */ });
  db = drizzle(pool);
  await db.execute(sql`create table people (id int primary key, email text unique, details jsonb)`);
  await db.execute(sql`insert into people values (1, 'ada.secret@example.org', '{}')`);
}, 60_000);
afterAll(async () => { await pool?.end(); await database?.drop(); });

/** The lines a logger writes for one error, as a 500 logs it (server/http/problem.ts). */
function logged(err: unknown): string {
  let out = '';
  const sink = new Writable({ write(chunk: Buffer, _enc, done) { out += chunk.toString(); done(); } });
  const log = createLogger('error', sink).child({ requestId: 'r-1' });
  log.error({ err }, 'unhandled error');
  return out;
}

const failure = async (run: () => Promise<unknown>) => {
  try { await run(); } catch (err) { return err; }
  throw new Error('the statement was expected to fail');
};

describe('a logged database error', () => {
  it('keeps the statement and SQL state, not the parameters a value was refused for', async () => {
    const err = await failure(() => db.execute(sql`select * from people where id = ${'grace.hopper@example.org'}::int`));
    const line = logged(err);
    expect(line).toContain('select * from people where id = $1::int');
    expect(line).toContain('22P02');
    expect(line).not.toContain('grace.hopper');
  });

  it('keeps the constraint, not the duplicate value PostgreSQL names in its detail', async () => {
    const err = await failure(() => db.execute(sql`insert into people values (${2}, ${'ada.secret@example.org'}, ${'{}'}::jsonb)`));
    const line = logged(err);
    expect(line).toContain('people_email_key');
    expect(line).toContain('23505');
    expect(line).not.toContain('ada.secret');
  });

  it('keeps no record value from a JSON PostgreSQL could not read', async () => {
    const err = await failure(() => db.execute(sql`update people set details = ${'{"name": "Lovelace \\ud800 private"}'}::jsonb where id = 1`));
    const line = logged(err);
    expect(line).toMatch(/22P0[25]/);
    expect(line).not.toContain('Lovelace');
    expect(line).not.toContain('private');
  });

  it('keeps other errors\' messages and stacks, without the quoted input', () => {
    let parsed: unknown;
    try { JSON.parse('{"email": "eve.private@example.org",'); } catch (err) { parsed = err; }
    const line = logged(new Error('the batch failed', { cause: parsed }));
    expect(line).toContain('the batch failed');
    expect(line).toContain('SyntaxError');
    expect(line).not.toContain('eve.private');
  });
});
