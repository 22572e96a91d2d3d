/**
 * A job's status as SPEC.md section 4 names it, as the server reads it from its job queue
 * (server/jobs/retryStatus.ts maps pg-boss's metadata onto it). Plain types, so services and
 * routers read a status without reaching into the job layer.
 */
import type { JobStatus } from './statuses.ts';

/** What a run has done so far; a running job's status carries the latest report. */
export interface JobProgress {
  done: number;
  total?: number;
  message?: string;
  /** further counts of the work so far, by name (an import's constituents imported and rows refused) */
  counts?: Record<string, number>;
}

/** Only statuses SPEC.md names. */
type Named<S extends JobStatus> = S;

export type JobRunStatus =
  /** deferred: created with a start time still ahead */
  | { status: Named<'scheduled'>; startsAt: string }
  /** queued, for a worker to pick up */
  | { status: Named<'waiting'> }
  /** a worker has it; retry is 0 on the first run, n on the nth retry */
  | { status: Named<'running'>; startedAt: string; retry: number; of: number; progress?: JobProgress }
  /** the last run failed; retry `attempt` of `of` starts at `nextTryAt` */
  | { status: Named<'retrying'>; attempt: number; of: number; nextTryAt: string }
  | { status: Named<'finished'>; finishedAt: string }
  /** failed with no retries left (or a failure retrying cannot mend) */
  | { status: Named<'errored'>; erroredAt: string; retries: number }
  /** cancelled: work is cancelled only to stop it, as pausing a formula does */
  | { status: Named<'paused'> };

export type RetryingStatus = Extract<JobRunStatus, { status: 'retrying' }>;

