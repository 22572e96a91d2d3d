/**
 * Exports (server/services/exports.ts): the job that writes one export's CSV, and the sweeper
 * that deletes files past their 24-hour download window every 10 minutes.
 *
 * A failure marks the export error (the user starts a new one), so a retry happens only when the
 * worker died mid-file (kill -9): the export is still in progress, and is written again from the start.
 */
import * as v from 'valibot';
import { sweepExpiredExports, writeExport } from '../services/exports.ts';
import { defineJob, systemPayload, tenantPayload } from './definition.ts';

export const recordExport = defineJob({
  name: 'record-export',
  payload: tenantPayload({ exportId: v.pipe(v.string(), v.uuid()) }),
  // a dead worker's export is taken up again within a heartbeat or so
  queue: { policy: 'standard', expireInSeconds: 2 * 3600, heartbeatSeconds: 30 },
  retry: { limit: 2, delaySeconds: 5, backoff: true },
  worker: { concurrency: 2, pollingIntervalSeconds: 1 },
  async handler(payload, ctx) {
    const outcome = await writeExport(ctx.tenant, payload.exportId, {
      store: ctx.services.files, log: ctx.log, signal: ctx.job.signal, engine: { secrets: ctx.secrets, config: ctx.config },
    });
    return { outcome };
  },
});

export const recordExportSweep = defineJob({
  name: 'record-export-sweep',
  payload: systemPayload({}),
  queue: { policy: 'standard' },
  retry: { limit: 3, delaySeconds: 5, backoff: true },
  schedule: { cron: '*/10 * * * *', payload: { correlationId: 'schedule:record-export-sweep' } },
  async handler(_payload, ctx) {
    const swept = await sweepExpiredExports(ctx.db, ctx.services.files, new Date(), ctx.log);
    if (swept) ctx.log.info({ swept }, 'expired export files deleted');
    return { swept };
  },
});
