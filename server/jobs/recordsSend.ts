/**
 * Send now (the bucket screens' action): the chosen records of one formula go to the destination
 * through the engine's send stage, each write with its record's idempotency key. A retry, or a
 * second job for the same records, takes only those still ready or left half-sent: the
 * destination answers a repeated key from its first write, so each record is written once.
 */
import * as v from 'valibot';
import { sendChosen } from '../services/records.ts';
import { FormulaProblem } from '../engine/plan.ts';
import { defineJob, PermanentJobError, tenantPayload, USER_RETRY } from './definition.ts';
import type { OwnerNotices } from '../services/ownerNotices.ts';

const uuid = v.pipe(v.string(), v.uuid());

export const recordsSend = defineJob({
  name: 'records-send',
  payload: tenantPayload({ formulaId: uuid, ids: v.pipe(v.array(uuid), v.minLength(1), v.maxLength(1000)), userId: v.optional(uuid) }),
  queue: { policy: 'standard', expireInSeconds: 30 * 60, heartbeatSeconds: 20 },
  retry: USER_RETRY,
  worker: { concurrency: 2, pollingIntervalSeconds: 1 },
  async handler(payload, ctx) {
    // typed here: the services' own type is built from the job definitions' (server/container.ts)
    const notices: OwnerNotices = ctx.services.notices;
    try {
      return await sendChosen(ctx.tenant, { secrets: ctx.secrets, config: ctx.config, notices }, payload, ctx.log, ctx.job.signal);
    } catch (err) {
      // the formula itself is what fails: retrying cannot help
      if (err instanceof FormulaProblem) throw new PermanentJobError(err.message);
      throw err;
    }
  },
});
