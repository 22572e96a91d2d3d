/** A fresh database per test file on the run's PostgreSQL server, dropped afterwards. */
import pg from 'pg';
import { inject } from 'vitest';

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = inject('pgAdminUrl');
  const name = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
