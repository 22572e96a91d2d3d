/**
 * A new database on a PostgreSQL server (its admin URL), and how to drop it: for test files and
 * benchmarks alike. With `app` (a URL of the role the app connects as), the database is that role's
 * and the answered URL signs in as it, as the app does in production. With `template`, the new
 * database is a copy of that one (`CREATE DATABASE … TEMPLATE`, a file copy: far quicker than
 * migrating and seeding again); otherwise it is empty.
 */
import pg from 'pg';

export async function createDatabaseOn(admin: string, prefix: string, app = admin, template?: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  const owner = decodeURIComponent(new URL(app).username);
  const ownedBy = owner && owner !== decodeURIComponent(new URL(admin).username) ? ` owner ${client.escapeIdentifier(owner)}` : '';
  const from = template ? ` template ${client.escapeIdentifier(template)}` : '';
  try {
    await client.query(`create database ${name}${ownedBy}${from}`);
  } finally {
    await client.end();
  }
  const u = new URL(app);
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
