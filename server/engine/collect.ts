/**
 * Collect: the source's records since the formula's watermark, in batches (DESIGN.md section
 * 4b). Each batch comes with the position after it; the pipeline stores the batch's records and
 * that position in one transaction, so a run killed at any point resumes after the last batch it
 * stored and never collects a record twice.
 *
 * - scheduled and on-demand runs read from the formula's watermark and move it;
 * - run once reads its date window and moves nothing but the run's own cursor;
 * - a file run reads one uploaded file from the run's cursor (the connector's record ids carry the
 *   upload, so two files with the same name never collide).
 */
import type { RunRow } from '../db/repositories/runs.ts';
import type { PullOptions } from '../connectors/connector.ts';
import { withGifts, type Incoming } from './process.ts';
import type { FormulaPlan } from './plan.ts';
import { runOnceWindow } from '../../src/domain/formula/scheduleTimes.ts';

export interface CollectedBatch {
  incoming: Incoming[];
  /** where the next pull starts once this batch is stored */
  watermark: string | null;
}

/** Records per batch: big enough for one search per scenario to pay, small enough to keep memory flat. */
export const COLLECT_BATCH = 1000;

/** Which position a run reads from and moves: the formula's watermark, or the run's own cursor. */
export function usesRunCursor(run: RunRow): boolean {
  return run.kind === 'file' || run.kind === 'run-once';
}

export function pullOptions(plan: FormulaPlan, run: RunRow, batchSize = COLLECT_BATCH): PullOptions {
  const options: PullOptions = { batchSize, settings: plan.source.settings };
  if (run.kind === 'run-once' && run.params.from && run.params.to) {
    // the dates are the formula's days: in its schedule's time zone when it has one
    const zone = plan.schedule?.mode === 'scheduled' ? plan.schedule.timeZone : 'UTC';
    options.window = runOnceWindow({ from: run.params.from, to: run.params.to }, zone);
  }
  return options;
}

export async function* collect(plan: FormulaPlan, run: RunRow, batchSize = COLLECT_BATCH): AsyncIterable<CollectedBatch> {
  const { source } = plan;
  const options = pullOptions(plan, run, batchSize);
  const since = usesRunCursor(run) ? run.params.cursor ?? null : plan.formula.watermark;
  const object = run.kind === 'file' ? run.params.uploadId! : source.object;
  for await (const batch of source.connector.pull(source.ctx, object, since, options)) {
    yield {
      // a row that carries a gift brings it as a second record (process.ts withGifts)
      incoming: withGifts(plan, batch.records.map((r) => ({ sourceKey: r.id, raw: r.fields }))),
      watermark: batch.watermark,
    };
  }
}
