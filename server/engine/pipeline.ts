/**
 * One run of a formula's pipeline: resume interrupted sends, collect batch by batch (each
 * transformed, validated, matched and routed in memory, then stored with the new watermark in one
 * transaction) and, when the formula sends automatically, send each batch's Ready records as it is
 * stored, then whatever else is ready (so a later batch is matched against what earlier batches of
 * the run wrote: a supporter in two batches of one file is created once, then updated). A run works for a
 * slice of time and then hands the rest to a continuation job at the back of the queue, so one
 * tenant's big run never holds the workers from another tenant's (runs of different tenants
 * share workers fairly); a continuation picks up from the watermark.
 */
import type { RunRow } from '../db/repositories/runs.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { collect, usesRunCursor } from './collect.ts';
import { loadPlan, sendsAutomatically, type EngineDeps, type FormulaPlan } from './plan.ts';
import { isGiftRecord, processBatch } from './process.ts';
import { sendReady, sendRecords } from './send.ts';

export interface RunControl {
  signal?: AbortSignal;
  /** how long this job works before it hands the run to a continuation */
  sliceMs?: number;
  /**
   * Whether another run waits for a worker: a slice that ends with none waiting goes on for another
   * slice in the same job, instead of handing the rest to a continuation at the back of the queue
   */
  othersWaiting?: () => Promise<boolean>;
  batchSize?: number;
  progress?: (done: number, message: string) => Promise<void>;
}

export type RunResult =
  | { done: true; counts: Record<string, number> }
  /** the slice ended with work left: queue a continuation */
  | { done: false; counts: Record<string, number> };

export const DEFAULT_SLICE_MS = 60_000;

function countsOf(batch: { sourceKey: string; bucket: string; customBucket: string | null; state: string }[], plan: Pick<FormulaPlan, 'gift'>): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (k: string) => { counts[k] = (counts[k] ?? 0) + 1; };
  for (const r of batch) {
    // a row's gift is no record collected: the row is
    add(isGiftRecord(plan, r.sourceKey) ? 'gifts' : 'collected');
    add(`bucket:${r.bucket}${r.customBucket ? `/${r.customBucket}` : ''}`);
    add(`state:${r.state}`);
  }
  return counts;
}

/** Collects and stores until the source has no more, the slice is over (at a stored position), or the formula is paused. */
async function collectAndStore(plan: FormulaPlan, run: RunRow, control: RunControl, outOfTime: () => Promise<boolean>): Promise<{ finished: boolean; collected: number }> {
  const { tenant, formula } = plan;
  let collected = 0;
  let position = usesRunCursor(run) ? run.params.cursor ?? null : formula.watermark;
  let first = true;
  for await (const batch of collect(plan, run, control.batchSize)) {
    control.signal?.throwIfAborted();
    const processed = await processBatch(plan, batch.incoming);
    // autosend as it is now: turned off while the run collects, it holds the records collected from then on
    if (!first) plan.autosend = await sendsAutomatically(tenant, formula.id);
    first = false;
    const claimed = await tenant.transaction(async (tx) => {
      const stored = await tx.records.store(formula.id, run.id, processed, { claimReady: plan.autosend });
      if (batch.watermark !== null) {
        if (usesRunCursor(run)) await tx.runs.update(run.id, { params: { ...run.params, cursor: batch.watermark } });
        else await tx.formulas.setWatermark(formula.id, batch.watermark);
      }
      // what was written: a batch read again after a kill adds nothing to the counts
      await tx.runs.addCounts(run.id, { ...countsOf(processed.filter((r) => stored.written.has(r.sourceKey)), plan), unchanged: stored.unchanged });
      return stored.claimed;
    });
    if (usesRunCursor(run) && batch.watermark !== null) run.params = { ...run.params, cursor: batch.watermark };
    // a formula that sends automatically sends each batch as it is stored, from what is in hand, and
    // before anything else can fail: a kill before the send leaves the batch claimed, and the next
    // start sends it with the same keys
    if (claimed.length) {
      const bySource = new Map(processed.map((r) => [r.sourceKey, r]));
      const sendable = claimed.map((c) => {
        const { transformed, candidates, matching } = bySource.get(c.sourceKey)!;
        return { ...c, transformed, candidates, matching };
      });
      await sendRecords(plan, sendable, { runId: run.id });
    }
    if (batch.watermark !== null && plan.source.connector.acknowledge) {
      await plan.source.connector.acknowledge(plan.source.ctx, run.kind === 'file' ? run.params.uploadId! : plan.source.object, batch.watermark, { settings: plan.source.settings });
    }
    collected += batch.incoming.filter((r) => !isGiftRecord(plan, r.sourceKey)).length;
    await control.progress?.(collected, `Collected ${collected} records`);
    // a slice ends only where the stored position moved: a continuation from an older one would
    // read the same rows again, and a source slower than a slice would never finish
    const moved = batch.watermark !== null && batch.watermark !== position;
    if (batch.watermark !== null) position = batch.watermark;
    if ((moved && (await outOfTime())) || (await tenant.formulas.isPaused(formula.id))) return { finished: false, collected };
  }
  return { finished: true, collected };
}

/** Works a run for one slice. Throws what the source or destination threw (the job decides whether to retry). */
export async function workRun(tenant: TenantScope, deps: EngineDeps, run: RunRow, control: RunControl = {}): Promise<RunResult> {
  const formula = await tenant.formulas.get(run.formulaId);
  if (!formula) return { done: true, counts: {} };
  // batch after batch: candidates come from the destination's index, loaded once per process
  const plan = { ...(await loadPlan(tenant, deps, formula, control.signal, run.id)), indexCandidates: true };
  let started = Date.now();
  const sliceOver = () => Date.now() - started > (control.sliceMs ?? DEFAULT_SLICE_MS);
  // asked only when the slice is over: with no run waiting, another slice begins
  const outOfTime = async () => {
    if (!sliceOver()) return false;
    if (control.othersWaiting && !(await control.othersWaiting())) {
      started = Date.now();
      return false;
    }
    return true;
  };

  // records claimed for sending that no send finished (a killed or failed run) go first, with their own keys
  await sendReady(plan, { claimedOnly: true, by: { runId: run.id } });

  if (run.kind === 'reprocess') throw new Error('reprocessing is worked by reprocess.ts');
  const { finished } = await collectAndStore(plan, run, control, outOfTime);
  if (!finished) return { done: false, counts: {} };

  if (await sendsAutomatically(tenant, formula.id)) {
    await tenant.runs.update(run.id, { status: 'finished-pulling' });
    await tenant.formulas.setJobStatus(formula.id, 'finished-pulling');
    let sent = 0;
    let stopped = false;
    await sendReady(plan, {
      stop: async () => (stopped = await outOfTime()),
      by: { runId: run.id },
      onBatch: async (o) => { sent += o.created + o.updated + o.refused; await control.progress?.(sent, `Sent ${sent} records`); },
    });
    if (stopped && (await tenant.records.countByState(formula.id)).ready) return { done: false, counts: {} };
  }
  return { done: true, counts: {} };
}
