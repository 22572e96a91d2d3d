/**
 * Reprocessing after edits (SPEC.md section 4): the records still held (not sent or being sent)
 * go through transform, validation, match and route again with the formula as it is now. No
 * record is added or deleted; each keeps its id, raw data and idempotency key. A record a person
 * has decided for (a picked match, Create new, Add to Ready) or corrected inline is left as it is,
 * unless the person who reprocesses asks to route those again too (run.params.includeReviewed);
 * then their inline corrections still stand over the values the formula makes. The run's cursor
 * (the last record id done) is stored with each batch, so a killed run resumes after it.
 */
import type { RunRow } from '../db/repositories/runs.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { loadPlan, type EngineDeps } from './plan.ts';
import { processAgain } from './process.ts';
import { DEFAULT_SLICE_MS, type RunControl, type RunResult } from './pipeline.ts';

const REPROCESS_BATCH = 1000;

export async function reprocessHeld(tenant: TenantScope, deps: EngineDeps, run: RunRow, control: RunControl = {}): Promise<RunResult> {
  const formula = await tenant.formulas.get(run.formulaId);
  if (!formula) return { done: true, counts: {} };
  const plan = { ...(await loadPlan(tenant, deps, formula, control.signal)), indexCandidates: true };
  const started = Date.now();
  let cursor = run.params.cursor ?? null;
  let done = 0;
  for (;;) {
    control.signal?.throwIfAborted();
    const held = await tenant.records.held(formula.id, cursor, control.batchSize ?? REPROCESS_BATCH, { reviewed: run.params.includeReviewed === true });
    if (!held.length) return { done: true, counts: {} };
    const processed = await processAgain(plan, held, { keepCopies: true });
    cursor = held.at(-1)!.id;
    const next = cursor;
    await tenant.transaction(async (tx) => {
      const changed = await tx.records.replaceProcessed(processed);
      await tx.runs.update(run.id, { params: { ...run.params, cursor: next } });
      await tx.runs.addCounts(run.id, { reprocessed: changed });
    });
    run.params = { ...run.params, cursor: next };
    done += held.length;
    await control.progress?.(done, `Reprocessed ${done} records`);
    if (Date.now() - started > (control.sliceMs ?? DEFAULT_SLICE_MS)) return { done: false, counts: {} };
  }
}
