/**
 * A dry run: the whole pipeline over the first records of the source (for a file-upload formula,
 * of the whole file it keeps, or its 20 sample rows once no file is kept), without storing or
 * sending anything and without moving the watermark. It answers what would be created, updated,
 * held and omitted, with counts per bucket and a few records of each, so the wizard's review
 * step can show a formula's effect before it runs.
 */
import type { DryRunResult, DryRunSample } from '../../src/domain/api/formulas.ts';
import type { ProcessedRecord } from '../db/repositories/records.ts';
import type { TenantScope } from '../db/tenancy.ts';
import type { FormulaRow } from '../db/repositories/formulas.ts';
import type { UploadRow } from '../db/repositories/uploads.ts';
import { exactFieldsMatch } from '../../src/domain/formula/matchScore.ts';
import type { FieldValue } from '../../src/domain/formula/transforms.ts';
import { loadPlan, type EngineDeps, type FormulaPlan } from './plan.ts';
import { copyOf, processBatch, withGifts, type Incoming } from './process.ts';

export const DRY_RUN_DEFAULT = 100;
export const DRY_RUN_MAX = 500;
const SAMPLES_PER_GROUP = 5;

type Outcome = DryRunSample['outcome'];

function outcomeOf(r: ProcessedRecord): Outcome {
  switch (r.state) {
    case 'ready': return r.destinationRecordId ? 'update' : 'create';
    case 'needs-attention': return 'hold';
    case 'omitted': return 'omit';
    case 'failed': return 'exception';
  }
}

/**
 * A copy of a new person (process.ts holdCopies) waits for its first. When the formula sends
 * automatically and the first would be created, the copy is then matched against what the first
 * created, a confident single match: the default routing sends it as an update when single
 * matches go to Ready (or when the exact fields agree). Otherwise it stays held.
 */
function copyOutcome(plan: FormulaPlan, copy: ProcessedRecord, first: ProcessedRecord | undefined): Outcome {
  if (!plan.autosend || !first || outcomeOf(first) !== 'create' || plan.routing.kind !== 'default') return 'hold';
  const { singleMatch, exactFields, capitalizationIsDifference } = plan.routing;
  const values = (r: ProcessedRecord) => (r.transformed ?? {}) as Record<string, FieldValue>;
  if (singleMatch === 'ready') return 'update';
  return singleMatch === 'ready-if-exact' && exactFieldsMatch(values(copy), values(first), exactFields, capitalizationIsDifference) ? 'update' : 'hold';
}

/**
 * The whole file a file-upload formula's dry run reads: its sample upload's while it is kept,
 * else the next file uploaded to it that waits to be collected.
 */
async function keptFile(tenant: TenantScope, formula: FormulaRow, sample: UploadRow | undefined): Promise<UploadRow | undefined> {
  if (sample?.fileKey) return sample;
  const [next] = await tenant.uploads.forFormula(formula.id, { waiting: true });
  return next;
}

export async function dryRun(tenant: TenantScope, deps: EngineDeps, formula: FormulaRow, limit = DRY_RUN_DEFAULT, signal?: AbortSignal): Promise<DryRunResult> {
  const plan = await loadPlan(tenant, deps, formula, signal);
  const size = Math.min(Math.max(1, limit), DRY_RUN_MAX);
  const { source } = plan;
  let object = source.object;
  let sample: UploadRow | undefined;
  if (formula.usesFileUpload) {
    sample = formula.sampleUploadId ? await tenant.uploads.get(formula.sampleUploadId) : undefined;
    object = (await keptFile(tenant, formula, sample))?.id ?? '';
  }
  const incoming: Incoming[] = [];
  if (object) {
    for await (const batch of source.connector.pull(source.ctx, object, null, { batchSize: size, settings: source.settings })) {
      for (const r of batch.records) if (incoming.length < size) incoming.push({ sourceKey: r.id, raw: r.fields });
      if (incoming.length >= size) break;
    }
  } else if (sample) {
    // no file is kept any more (its rows were collected, or it was a sample only): its 20 kept rows
    sample.sampleRows.slice(0, size).forEach((cells, i) => incoming.push({
      sourceKey: `${sample.fileName}#${i + 2}`,
      raw: Object.fromEntries(sample.headers.map((h, c) => [h, cells[c] ?? ''])),
    }));
  }
  // a row's gift comes with it, as a run would store it
  const processed = await processBatch(plan, withGifts(plan, incoming));
  const bySource = new Map(processed.map((r) => [r.sourceKey, r]));
  const byBucket: Record<string, number> = {};
  const byOutcome: Record<Outcome, number> = { create: 0, update: 0, hold: 0, omit: 0, exception: 0 };
  const samples: DryRunSample[] = [];
  const sampled = new Map<string, number>();
  for (const r of processed) {
    const bucket = r.customBucket ? `${r.bucket}/${r.customBucket}` : r.bucket;
    byBucket[bucket] = (byBucket[bucket] ?? 0) + 1;
    const first = copyOf(r.matching);
    const outcome = first === null ? outcomeOf(r) : copyOutcome(plan, r, bySource.get(first));
    byOutcome[outcome]++;
    const group = `${bucket}|${outcome}`;
    if ((sampled.get(group) ?? 0) >= SAMPLES_PER_GROUP) continue;
    sampled.set(group, (sampled.get(group) ?? 0) + 1);
    samples.push({
      sourceKey: r.sourceKey, bucket: r.bucket, customBucket: r.customBucket, state: r.state, outcome,
      reason: r.errorReason ?? (typeof r.matching?.routeReason === 'string' ? r.matching.routeReason : null),
      score: r.score, transformed: (r.transformed ?? {}) as Record<string, unknown>,
      candidates: (r.candidates as { id: string; score: number; reasons: string[] }[]).slice(0, 3).map((c) => ({ id: c.id, score: c.score, reasons: c.reasons })),
    });
  }
  return { examined: processed.length, autosend: plan.autosend, byBucket, byOutcome, samples };
}
