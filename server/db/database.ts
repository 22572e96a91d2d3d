/** One connection pool and drizzle instance per process; migrations applied at start. */
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';

export type Db = NodePgDatabase & { $client: pg.Pool };

export interface Database {
  db: Db;
  pool: pg.Pool;
  close(): Promise<void>;
}

const MIGRATIONS = fileURLToPath(new URL('./migrations', import.meta.url));
/** any fixed number: serialises migrations when several processes start on one database */
const MIGRATION_LOCK = 7_202_611;

export async function openDatabase(url: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => { /* an idle client lost its connection; the pool replaces it */ });
  // A client checked out between two queries (a transaction waiting on other work) has no listener
  // of the pool's: a connection PostgreSQL ends then (a restart, pg_terminate_backend) would be an
  // uncaught error that takes the process down. The query that meets the broken client reports it.
  pool.on('connect', (client) => { client.on('error', () => { /* reported by the next query on it */ }); });
  const db = drizzle(pool) as Db;
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await migrate(drizzle(client), { migrationsFolder: MIGRATIONS });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return { db, pool, close: () => pool.end() };
}
