/** `npm run worker`: a job worker process on the shared PostgreSQL (DATABASE_URL required). */
import { loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { createLogger } from './log.ts';
import { startJobs } from './jobs/boss.ts';

const config = loadConfig();
const log = createLogger(config.logLevel);
if (!config.databaseUrl) {
  console.error('npm run worker needs DATABASE_URL: workers share one PostgreSQL with the API processes.');
  process.exit(1);
}
const database = await openDatabase(config.databaseUrl);
const jobs = await startJobs({ databaseUrl: config.databaseUrl, db: database.db, log, work: true });
log.info('worker started');
const stop = async () => { await jobs.stop(); await database.close(); process.exit(0); };
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
