/**
 * `npm run worker`: a job worker process on the shared PostgreSQL (DATABASE_URL required). It works
 * every registered queue (server/jobs/registry.ts) and opens connector credentials with the same
 * secret key as the API processes, so it needs that key and never makes one.
 */
import path from 'node:path';
import { loadConfig } from './config.ts';
import { createSecretBox, loadExistingSecretKey } from './connectors/secrets.ts';
import { createServices } from './container.ts';
import { openDatabase } from './db/database.ts';
import { createLogger } from './log.ts';
import { startJobs } from './jobs/boss.ts';
import { JOBS } from './jobs/registry.ts';

const config = loadConfig();
const log = createLogger(config.logLevel);
if (!config.databaseUrl) {
  console.error('npm run worker needs DATABASE_URL: workers share one PostgreSQL with the API processes.');
  process.exit(1);
}
const key = loadExistingSecretKey(config);
if (!key) {
  console.error(`npm run worker needs the secret key that seals connector credentials: set SECRET_KEY to the API processes' key, `
    + `or run it where ${path.join(config.dataDir, 'secret.key')} holds that key. A worker never makes a key of its own: `
    + 'saved credentials would not open with it.');
  process.exit(1);
}
const database = await openDatabase(config.databaseUrl);
const secrets = createSecretBox(key);
const jobs = await startJobs({ databaseUrl: config.databaseUrl, db: database.db, log, config, secrets, definitions: JOBS });
// the same services as the API processes build (server/main.ts)
await jobs.work(createServices({ db: database.db, config, secrets, jobs, log }));
log.info({ queues: JOBS.map((j) => j.name) }, 'worker ready');
// Ctrl-C reaches the worker twice through npm (the terminal's and the forwarded one): stop once
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await jobs.stop();
  await database.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
