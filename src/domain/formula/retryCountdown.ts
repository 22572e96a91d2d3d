/**
 * The retrying line users read (SPEC.md section 4): "retrying, attempt n of 10, next try in m
 * minutes". Pure, so the server's job status (server/jobs/retryStatus.ts) and the browser's
 * countdown say the same words.
 */

/** A retry as the job status and a run's view carry it: attempt n of `of`, and when it starts. */
export interface RetryAttempt {
  attempt: number;
  of: number;
  nextTryAt: string;
}

/** Whole minutes until the next try, rounded up (a countdown never shows 0 while time remains). */
export function minutesUntil(at: string, now: Date): number {
  return Math.max(0, Math.ceil((new Date(at).getTime() - now.getTime()) / 60_000));
}

/** "retrying, attempt 2 of 10, next try in 3 minutes" */
export function describeRetrying(status: RetryAttempt, now: Date): string {
  const minutes = minutesUntil(status.nextTryAt, now);
  const when = minutes === 0 ? 'next try now' : `next try in ${minutes} minute${minutes === 1 ? '' : 's'}`;
  return `retrying, attempt ${status.attempt} of ${status.of}, ${when}`;
}
