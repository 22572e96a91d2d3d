/**
 * One PostgreSQL server for the whole run: DATABASE_URL's when set, else an embedded cluster.
 * Each test file gets a database of its own on it (tests/support/database.ts).
 */
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/log.ts';

declare module 'vitest' {
  export interface ProvidedContext { pgAdminUrl: string }
}

let embedded: EmbeddedDatabase | undefined;

export async function setup(project: TestProject) {
  let url = process.env.DATABASE_URL;
  if (!url) {
    try {
      embedded = await startEmbeddedPostgres(path.resolve(`.data/test-${project.name}`), 54339, createLogger('warn'));
    } catch (err) {
      // vitest would report this and still exit 0
      console.error(`The ${project.name} tests need PostgreSQL: ${err instanceof Error ? err.message : err}`);
      process.exit(1);
    }
    url = embedded.url;
  }
  project.provide('pgAdminUrl', url);
}

export async function teardown() {
  await embedded?.stop();
}
