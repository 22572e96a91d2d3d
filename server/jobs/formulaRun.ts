/**
 * A run of a formula's pipeline (server/services/formulaRuns.ts does the work). One active job
 * per formula (singleton key), so runs of one formula never overlap; a run works for a slice and
 * queues its continuation behind the other tenants' waiting runs. Transient failures retry up to
 * 10 times with backoff ("attempt n of 10"); a failure retrying cannot mend fails at once.
 */
import * as v from 'valibot';
import { FinalRunFailure } from '../services/formulaRuns.ts';
import { defineJob, PermanentJobError, tenantPayload, USER_RETRY } from './definition.ts';

const uuid = v.pipe(v.string(), v.uuid());

export const formulaRun = defineJob({
  name: 'formula-run',
  payload: tenantPayload({ formulaId: uuid, runId: uuid }),
  // a killed worker's run is taken up again within a heartbeat or so, not at the 30-minute expiry
  queue: { policy: 'singleton', expireInSeconds: 30 * 60, heartbeatSeconds: 20 },
  retry: USER_RETRY,
  singletonKey: (p) => p.formulaId,
  worker: { concurrency: 2, pollingIntervalSeconds: 1 },
  async handler(payload, ctx) {
    try {
      const { continued } = await ctx.services.formulaRuns.work(ctx.tenant, payload, {
        jobId: ctx.job.id, retry: ctx.job.retry, retryLimit: ctx.job.retryLimit, lastTry: ctx.job.lastTry, signal: ctx.job.signal,
        progress: (done, message) => ctx.progress({ done, message }),
        ...(ctx.config.runSliceMs ? { sliceMs: ctx.config.runSliceMs } : {}),
        othersWaiting: ctx.job.othersWaiting,
      }, { actor: 'system', correlationId: payload.correlationId, log: ctx.log });
      return { continued };
    } catch (err) {
      if (err instanceof FinalRunFailure) throw new PermanentJobError(err.message);
      throw err;
    }
  },
});

