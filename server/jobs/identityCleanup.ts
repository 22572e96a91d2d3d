/** Drops expired identity records and old sign-in failures, hourly; belongs to no tenant. */
import { lt } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { loginFailures, oidcPayloads } from '../db/schema/identity.ts';
import { defineJob, systemPayload } from './definition.ts';

export const identityCleanup = defineJob({
  name: 'identity-cleanup',
  payload: systemPayload({}),
  // standard, as the queue has always been: pg-boss cannot change an existing queue's policy
  queue: { policy: 'standard' },
  retry: { limit: 3, delaySeconds: 1, backoff: true },
  // every run of a schedule gets the same stored payload; the jobId in each log line tells runs apart
  schedule: { cron: '17 * * * *', payload: { correlationId: 'schedule:identity-cleanup' } },
  async handler(_payload, ctx) {
    await cleanupIdentity(ctx.db);
    ctx.log.info('identity cleanup done');
  },
});

export async function cleanupIdentity(db: Db, now = new Date()): Promise<void> {
  // consumed refresh tokens stay until they expire: reuse detection needs them
  await db.delete(oidcPayloads).where(lt(oidcPayloads.expiresAt, now));
  await db.delete(loginFailures).where(lt(loginFailures.at, new Date(now.getTime() - 86_400_000)));
}
