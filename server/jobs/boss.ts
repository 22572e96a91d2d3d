/**
 * pg-boss on the same PostgreSQL: queues, retries with backoff, cron schedules. Workers scale
 * across processes (`npm run worker`); `npm start` runs one in-process.
 */
import { PgBoss } from 'pg-boss';
import { lt } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../db/database.ts';
import { loginFailures, oidcPayloads } from '../db/schema/identity.ts';

export const QUEUES = {
  /** drops expired identity records and old sign-in failures */
  identityCleanup: 'identity-cleanup',
} as const;

export interface Jobs {
  boss: PgBoss;
  status(): Promise<{ ok: boolean; queues: number; detail?: string }>;
  stop(): Promise<void>;
}

export async function startJobs(opts: { databaseUrl: string; db: Db; log: Logger; work: boolean }): Promise<Jobs> {
  const boss = new PgBoss({ connectionString: opts.databaseUrl, schema: 'pgboss', max: 4, application_name: 'tributary-jobs' });
  boss.on('error', (err) => opts.log.error({ err }, 'job queue error'));
  await boss.start();
  await boss.createQueue(QUEUES.identityCleanup, { retryLimit: 3, retryBackoff: true });
  await boss.schedule(QUEUES.identityCleanup, '17 * * * *');
  if (opts.work) {
    await boss.work(QUEUES.identityCleanup, async () => {
      await cleanupIdentity(opts.db);
      opts.log.info('identity cleanup done');
    });
  }
  return {
    boss,
    async status() {
      try {
        const queues = await boss.getQueues();
        return { ok: true, queues: queues.length };
      } catch (err) {
        return { ok: false, queues: 0, detail: err instanceof Error ? err.message : String(err) };
      }
    },
    stop: () => boss.stop({ graceful: true, timeout: 5000 }),
  };
}

export async function cleanupIdentity(db: Db, now = new Date()): Promise<void> {
  // consumed refresh tokens stay until they expire: reuse detection needs them
  await db.delete(oidcPayloads).where(lt(oidcPayloads.expiresAt, now));
  await db.delete(loginFailures).where(lt(loginFailures.at, new Date(now.getTime() - 86_400_000)));
}
