/**
 * One PostgreSQL server for the whole run: DATABASE_URL's when set, else an embedded cluster.
 * Each test file gets a database of its own on it (tests/support/database.ts), made by the admin
 * connection and owned by the role the app connects as (on the embedded cluster, as in production,
 * one that is not a superuser).
 */
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/log.ts';

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
  }
}

let embedded: EmbeddedDatabase | undefined;

export async function setup(project: TestProject) {
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
  }
  project.provide('pgAdminUrl', url);
  project.provide('pgAppUrl', appUrl!);
}

export async function teardown() {
  await embedded?.stop();
}
