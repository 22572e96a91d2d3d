/**
 * How `npm run worker` starts a job worker, read from package.json so that tests and benchmarks run
 * the process users run (with its Node flags), only without npm and the set-up in front of it: a
 * signal then reaches the worker itself, and its pid is the worker's.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Node's arguments for a worker: its flags and the script (`exec node scripts/setup.mjs node FLAGS... server/worker.ts`). */
export function workerArgs(): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = scripts.worker!.trim().split(/\s+/);
  const node = words.lastIndexOf('node');
  if (node < 0 || words.at(-1) !== 'server/worker.ts') throw new Error(`package.json's worker script is not "... node [flags] server/worker.ts": ${scripts.worker}`);
  return words.slice(node + 1);
}

/**
 * The environment of a worker for a test server: this process's, without any database, key, data
 * folder or slice length of its own, then the server's database and data folder (where its key file
 * is, unless it was given SECRET_KEY), then `env`. The worker reads and writes the server's files
 * (drop folders, stored uploads) and opens what the server sealed.
 */
export function workerEnv(server: { databaseUrl: string; config: { dataDir: string; secretKey: string | undefined } }, env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { SECRET_KEY: _k, DATABASE_URL: _d, DATA_DIR: _dd, RUN_SLICE_MS: _s, ...rest } = process.env;
  return {
    ...rest, DATABASE_URL: server.databaseUrl, DATA_DIR: server.config.dataDir,
    ...(server.config.secretKey ? { SECRET_KEY: server.config.secretKey } : {}), ...env,
  };
}
