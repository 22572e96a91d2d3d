/**
 * Starts the scheduled runs (SPEC.md section 4: daily or weekly at a time in a time zone, or
 * continuous polling every 5 minutes): every minute it claims the live formulas whose next run is
 * due, across tenants, and starts a run of each. A formula still busy with a run keeps its
 * schedule and is asked again at its next time.
 */
import { DomainError } from '../../src/domain/errors.ts';
import { claimDueFormulas } from '../db/repositories/schedules.ts';
import { forTenant } from '../db/tenancy.ts';
import { defineJob, systemPayload } from './definition.ts';

export const formulaScheduler = defineJob({
  name: 'formula-scheduler',
  payload: systemPayload({}),
  queue: { policy: 'stately' , expireInSeconds: 5 * 60 },
  retry: { limit: 2, delaySeconds: 5, backoff: false },
  singletonKey: () => 'scheduler',
  schedule: { cron: '* * * * *', payload: { correlationId: 'schedule:formula-scheduler' } },
  async handler(payload, ctx) {
    const service = ctx.services.formulaRuns;
    const due = await claimDueFormulas(ctx.db, new Date());
    let started = 0;
    for (const { tenantId, formulaId } of due) {
      const tenant = forTenant(ctx.db, tenantId);
      const who = { actor: 'system' as const, correlationId: `${payload.correlationId}:${formulaId}:${Date.now()}`, log: ctx.log };
      try {
        await service.startRun(tenant, who, formulaId, 'scheduled');
        started++;
      } catch (err) {
        if (!(err instanceof DomainError)) ctx.log.error({ err, formulaId, tenantId }, 'a scheduled run could not start');
        // busy or no longer runnable: ask again at the next time
        const row = await tenant.formulas.get(formulaId);
        if (row) await tenant.formulas.setRunState(formulaId, { nextRunAt: await service.nextScheduled(tenant, row) });
      }
    }
    return { due: due.length, started };
  },
});
