/**
 * The one mapping from pg-boss's job metadata to the job statuses of SPEC.md section 4. The
 * retrying line users read ("retrying, attempt n of 10, next try in m minutes") is
 * src/domain/formula/retryCountdown.ts, re-exported here.
 *
 * How pg-boss 12 counts: `retryCount` is 0 on the first run and goes up by one each time a job is
 * claimed again after a failed run; a failed run goes back to state `retry` (with `startAfter` set to
 * the next try) while `retryCount < retryLimit`, else to `failed`. So a job in `retry` is waiting for
 * retry number `retryCount + 1` of `retryLimit`. Work users watch retries as SPEC.md says
 * (`USER_RETRY` in definition.ts: `retryLimit` = MAX_RETRY_ATTEMPTS, 10): the first run, then up
 * to 10 retries, shown as attempts 1 to 10.
 *
 * Pure: pg-boss appears as a type only.
 */
import type { JobWithMetadata } from 'pg-boss';
import type { JobProgress, JobRunStatus } from '../../src/domain/formula/jobRunStatus.ts';

// the words are the browser's too: one copy, in src/domain
export { describeRetrying, minutesUntil } from '../../src/domain/formula/retryCountdown.ts';
// what services and routers read of a job: plain types, in src/domain with the statuses they name
export type { JobProgress, JobRunStatus, RetryingStatus } from '../../src/domain/formula/jobRunStatus.ts';

/** What the mapper reads of a pg-boss job; dates may arrive as ISO text once they have crossed JSON. */
export type JobRecord = {
  [K in 'state' | 'retryCount' | 'retryLimit' | 'output']: JobWithMetadata[K];
} & {
  [K in 'startAfter' | 'createdOn']: Date | string;
} & {
  [K in 'startedOn' | 'completedOn']: Date | string | null;
};

const iso = (d: Date | string) => new Date(d).toISOString();

function progressOf(output: unknown): JobProgress | undefined {
  if (!output || typeof output !== 'object' || !('progress' in output)) return undefined;
  const p = (output as { progress: unknown }).progress;
  return p && typeof p === 'object' && typeof (p as JobProgress).done === 'number' ? (p as JobProgress) : undefined;
}

export function jobRunStatus(job: JobRecord, now: Date = new Date()): JobRunStatus {
  switch (job.state) {
    case 'created':
      return new Date(job.startAfter).getTime() > now.getTime() ? { status: 'scheduled', startsAt: iso(job.startAfter) } : { status: 'waiting' };
    case 'retry':
      return { status: 'retrying', attempt: job.retryCount + 1, of: job.retryLimit, nextTryAt: iso(job.startAfter) };
    case 'active': {
      const progress = progressOf(job.output);
      return {
        status: 'running', startedAt: iso(job.startedOn ?? job.createdOn), retry: job.retryCount, of: job.retryLimit,
        ...(progress ? { progress } : {}),
      };
    }
    case 'completed':
      return { status: 'finished', finishedAt: iso(job.completedOn ?? job.startedOn ?? job.createdOn) };
    case 'failed':
      return { status: 'errored', erroredAt: iso(job.completedOn ?? job.startedOn ?? job.createdOn), retries: job.retryCount };
    case 'cancelled':
      return { status: 'paused' };
  }
}
