/**
 * The record tallies' sweep (server/db/repositories/recordTallies.ts): every minute, each formula's
 * tally rows are folded into one per group, so a count stays a sum over a handful of rows however
 * many batches the engine wrote and reviewers changed, and deleted formulas' rows go.
 */
import { foldRecordTallies } from '../db/repositories/recordTallies.ts';
import { defineJob, systemPayload } from './definition.ts';

export const recordTallySweep = defineJob({
  name: 'record-tally-sweep',
  payload: systemPayload({}),
  queue: { policy: 'standard' },
  retry: { limit: 3, delaySeconds: 5, backoff: true },
  schedule: { cron: '* * * * *', payload: { correlationId: 'schedule:record-tally-sweep' } },
  async handler(_payload, ctx) {
    const swept = await foldRecordTallies(ctx.db);
    if (swept.folded || swept.orphaned) ctx.log.debug(swept, 'record tallies folded');
    return swept;
  },
});
