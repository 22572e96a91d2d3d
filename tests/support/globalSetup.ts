/**
 * One PostgreSQL server for the whole run: DATABASE_URL's when set, else an embedded cluster.
 * Each test file gets a database of its own on it (tests/support/database.ts).
 */
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/log.ts';

declare module 'vitest' {
  export interface ProvidedContext { pgAdminUrl: string }
}

let embedded: EmbeddedDatabase | undefined;

export async function setup(project: TestProject) {
  let url = process.env.DATABASE_URL;
  if (!url) {
    try {
      // any free port, so test runs from several clones on one machine never meet
      embedded = await startEmbeddedPostgres(path.resolve(`.data/test-${project.name}`), await freePort(), createLogger('warn'));
    } catch (err) {
      // thrown, vitest stops the run with this message and still tears down what other projects started
      throw new Error(`The ${project.name} tests need PostgreSQL: ${err instanceof Error ? err.message : err}`);
    }
    url = embedded.url;
  }
  project.provide('pgAdminUrl', url);
}

export async function teardown() {
  await embedded?.stop();
}
