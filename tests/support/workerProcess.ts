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
