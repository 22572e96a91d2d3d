/**
 * Transform, validate, match and route a batch of source records in memory (DESIGN.md section
 * 4b): the functions the wizard previews (src/domain/formula), with one destination search per
 * scenario per batch. Runs, dry runs and reprocessing all come through here, so they cannot
 * disagree about a record.
 */
import type { SearchScenario } from '../../src/domain/formula/parts.ts';
import { bestCopy, copiesInBatch, copyKeys, copyReason, criterionValue, earlierCopyReason } from '../../src/domain/formula/batchCopies.ts';
import { decideMatch, exactFieldsMatch, type MatchDecision } from '../../src/domain/formula/matchScore.ts';
import { routeRecord } from '../../src/domain/formula/route.ts';
import { transformRecord, valueText, type FieldValue } from '../../src/domain/formula/transforms.ts';
import { validateRecord } from '../../src/domain/formula/validationRules.ts';
import type { SearchQuery, SourceRecord } from '../connectors/connector.ts';
import type { ProcessedRecord, RecordRow, ReprocessedRecord } from '../db/repositories/records.ts';
import { candidateIndexOf, type CandidateIndex } from './candidateIndex.ts';
import type { FormulaEnd, FormulaPlan } from './plan.ts';

/** A record as collected: its identity in the source and its raw fields. */
export interface Incoming {
  sourceKey: string;
  raw: Record<string, unknown>;
  /** values a person corrected inline (records.corrections): they replace the transformed ones, and are what is validated and matched */
  corrections?: Record<string, unknown>;
}

/** Candidates kept with a record for review. */
export const MAX_KEPT_CANDIDATES = 10;
/** Candidates asked of the destination per search. */
const SEARCH_LIMIT = 25;
/** Searches at once against a destination that cannot batch them. */
const SEARCH_CONCURRENCY = 8;

/** One answer per query, in order: the connector's batch search, or its single search a few at a time. */
export async function searchMany(end: FormulaEnd, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  if (!queries.length) return [];
  if (end.connector.searchMany) return end.connector.searchMany(end.ctx, end.object, queries);
  const answers: SourceRecord[][] = new Array(queries.length);
  let next = 0;
  const worker = async () => {
    while (next < queries.length) {
      const i = next++;
      answers[i] = await end.connector.search(end.ctx, end.object, queries[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEARCH_CONCURRENCY, queries.length) }, worker));
  return answers;
}

/**
 * The engine's searches of a batch: answered by the destination's candidate index when the plan
 * keeps one (a run) and the index can answer them, by the destination otherwise. One index
 * refresh per destination object per batch.
 */
type Finder = (end: FormulaEnd, queries: SearchQuery[]) => Promise<SourceRecord[][]>;

function candidateFinder(plan: FormulaPlan): Finder {
  if (!plan.indexCandidates) return searchMany;
  const indexes = new Map<string, Promise<CandidateIndex | null>>();
  return async (end, queries) => {
    if (!queries.length) return [];
    if (!indexes.has(end.object)) indexes.set(end.object, candidateIndexOf(end));
    const index = await indexes.get(end.object)!;
    if (!index) return searchMany(end, queries);
    const answers = index.searchMany(queries);
    const rest = answers.flatMap((a, i) => (a === null ? [i] : []));
    if (rest.length) {
      const more = await searchMany(end, rest.map((i) => queries[i]!));
      rest.forEach((i, k) => { answers[i] = more[k]!; });
    }
    return answers as SourceRecord[][];
  };
}

interface Hit { scenario: SearchScenario; candidates: { id: string; fields: Record<string, unknown> }[] }

/** The query a scenario makes for a record: each criterion's source value; null when one is blank. */
function queryFor(scenario: SearchScenario, raw: Record<string, unknown>): SearchQuery | null {
  const criteria = [];
  for (const c of scenario.criteria) {
    const value = criterionValue(raw, c.source);
    if (!value) return null;
    criteria.push({ field: c.destination, operator: 'equals' as const, value });
  }
  return { criteria, limit: SEARCH_LIMIT };
}

/** Searches the records by the scenarios: primary ones first, secondary ones only for records no primary search found. */
async function searchTiers(plan: FormulaPlan, find: Finder, raws: Record<string, unknown>[]): Promise<Hit[][]> {
  const hits: Hit[][] = raws.map(() => []);
  const primary = plan.matching.scenarios.filter((s) => s.isPrimary);
  const secondary = plan.matching.scenarios.filter((s) => !s.isPrimary);
  const searchBy = async (scenarios: SearchScenario[], which: number[]) => {
    // a tier's searches at once (each on its own connection), their hits kept in scenario order
    const found = await Promise.all(scenarios.map(async (scenario) => {
      const asked: number[] = [];
      const queries: SearchQuery[] = [];
      for (const i of which) {
        const q = queryFor(scenario, raws[i]!);
        if (q) { asked.push(i); queries.push(q); }
      }
      return { scenario, asked, answers: await find(plan.destination, queries) };
    }));
    for (const { scenario, asked, answers } of found) {
      asked.forEach((i, k) => hits[i]!.push({ scenario, candidates: (answers[k] ?? []).map((r) => ({ id: r.id, fields: r.fields })) }));
    }
  };
  const all = raws.map((_, i) => i);
  await searchBy(primary, all);
  const unfound = all.filter((i) => !hits[i]!.some((h) => h.candidates.length > 0));
  await searchBy(secondary, unfound);
  return hits;
}

/**
 * For each record, the first parent it names that the destination does not hold (a gift whose
 * constituent is not there yet), or null. One search per referenced object per batch.
 */
async function missingParents(plan: FormulaPlan, find: Finder, values: Record<string, FieldValue>[]): Promise<(Waiting | null)[]> {
  const waiting: (Waiting | null)[] = values.map(() => null);
  for (const ref of plan.references) {
    const wanted = [...new Set(values.map((v) => valueText(v[ref.field] ?? null).trim()).filter(Boolean))];
    if (!wanted.length) continue;
    const answers = await find({ ...plan.destination, object: ref.object }, wanted.map((value) => ({ criteria: [{ field: ref.by, operator: 'equals', value }], limit: 1 })));
    const held = new Set(wanted.filter((_, i) => (answers[i]?.length ?? 0) > 0));
    values.forEach((v, i) => {
      const value = valueText(v[ref.field] ?? null).trim();
      if (!waiting[i] && value && !held.has(value)) waiting[i] = { ...ref, value };
    });
  }
  return waiting;
}

interface Waiting { field: string; object: string; by: string; label: string; value: string }

/**
 * What a record keeps of its match decision for review (SPEC.md section 3: reasons and scores):
 * each candidate's id, score, reasons and the values it holds. A field the candidate leaves empty
 * is left out (the review and the send read a missing value as blank), and so is the per-field
 * comparison behind the score, which nothing reads: half of what a record stored.
 */
function keptCandidates(decision: MatchDecision): unknown[] {
  return decision.candidates.slice(0, MAX_KEPT_CANDIDATES).map((c) => ({
    id: c.id, score: c.score, reasons: c.reasons, scenario: c.scenario,
    fields: Object.fromEntries(Object.entries(c.fields).filter(([, v]) => v !== null && v !== undefined)),
  }));
}

export async function processBatch(plan: FormulaPlan, batch: Incoming[]): Promise<ProcessedRecord[]> {
  const out: (ProcessedRecord | null)[] = new Array(batch.length).fill(null);
  const transformed: Record<string, FieldValue>[] = [];
  const toMatch: number[] = [];

  // a plan made for matching alone (tests, previews) may have no source to ask
  const source = plan.source as FormulaPlan['source'] | undefined;
  batch.forEach((rec, i) => {
    const { values: computed, errors: computedErrors } = transformRecord(plan.mapping, plan.transform, rec.raw);
    // a person's correction stands in for the formula's value, and for its error
    const corrected = rec.corrections ?? {};
    const values = { ...computed, ...corrected } as Record<string, FieldValue>;
    const errors = Object.fromEntries(Object.entries(computedErrors).filter(([field]) => !Object.hasOwn(corrected, field)));
    transformed[i] = values;
    const base = {
      sourceKey: rec.sourceKey, raw: rec.raw, transformed: values, matching: null, candidates: [], score: null, destinationRecordId: null,
    };
    // a record the source deleted is never created or updated: it is omitted, saying so, whatever the rules
    const deleted = source?.connector.deletion?.(rec.raw) ?? null;
    if (deleted) {
      out[i] = { ...base, matching: { routeReason: deleted }, bucket: 'new', customBucket: null, state: 'omitted', errorReason: null };
      return;
    }
    const transformErrors = Object.entries(errors);
    if (transformErrors.length) {
      out[i] = {
        ...base, bucket: 'formula-exception', customBucket: null, state: 'failed',
        errorReason: transformErrors.map(([field, message]) => `${field}: ${message}`).join('; '),
      };
      return;
    }
    const failures = validateRecord(plan.validation, values, errors);
    if (failures.length) {
      out[i] = {
        ...base, bucket: 'validation-exception', customBucket: failures[0]!.bucket, state: 'failed',
        errorReason: failures.map((f) => `${f.destination}: ${f.message}`).join('; '),
      };
      return;
    }
    toMatch.push(i);
  });

  // a record whose parent is missing waits for it in relationship-match instead of being matched
  const find = candidateFinder(plan);
  const waiting = plan.references.length ? await missingParents(plan, find, toMatch.map((i) => transformed[i]!)) : [];
  toMatch.splice(0, toMatch.length, ...toMatch.filter((i, k) => {
    const parent = waiting[k];
    if (!parent) return true;
    const rec = batch[i]!;
    out[i] = {
      sourceKey: rec.sourceKey, raw: rec.raw, transformed: transformed[i]!,
      matching: { waitingFor: { object: parent.object, field: parent.by, value: parent.value } },
      candidates: [], score: null, bucket: 'relationship-match', customBucket: null, state: 'needs-attention', destinationRecordId: null,
      errorReason: `Waiting for its ${parent.label} ${parent.value}, which the destination does not hold yet.`,
    };
    return false;
  }));

  const hits = await searchTiers(plan, find, toMatch.map((i) => batch[i]!.raw));
  const discardBelow = plan.routing.kind === 'default' ? plan.routing.discardBelow ?? null : null;
  toMatch.forEach((i, k) => {
    const rec = batch[i]!;
    const values = transformed[i]!;
    const decision = decideMatch({ record: values, fields: plan.mappedFields, hits: hits[k]!, autoPick: plan.matching.autoPick, discardBelow });
    const exactMatch = !!decision.picked && plan.routing.kind === 'default'
      && exactFieldsMatch(values, decision.picked.fields, plan.routing.exactFields, plan.routing.capitalizationIsDifference);
    const route = routeRecord(plan.routing, {
      raw: rec.raw, transformed: values, matching: decision.matching, bucket: decision.bucket, confident: decision.confident, exactMatch,
    });
    out[i] = {
      sourceKey: rec.sourceKey, raw: rec.raw, transformed: values,
      matching: { ...decision.matching, routeReason: route.reason, ...(route.rule !== null ? { rule: route.rule } : {}) },
      candidates: keptCandidates(decision), score: decision.candidates[0]?.score ?? null,
      bucket: decision.bucket, customBucket: null, state: route.state,
      destinationRecordId: decision.bucket === 'one-to-one-match' ? decision.picked?.id ?? null : null,
      errorReason: null,
    };
  });
  await holdCopies(plan, batch, out as ProcessedRecord[]);
  return out as ProcessedRecord[];
}

/** Records a run or a send would create (not omitted, not failed). */
const creates = (r: Pick<ProcessedRecord, 'bucket' | 'state'>) => r.bucket === 'new' && (r.state === 'ready' || r.state === 'needs-attention');

/** The first record a held copy waits for (holdCopies), by its source key; null for any other record. */
export const copyOf = (matching: Record<string, unknown> | null): string | null => {
  const of = matching?.copyOf as { sourceKey?: unknown } | undefined;
  return typeof of?.sourceKey === 'string' ? of.sourceKey : null;
};

const asCopy = (record: ProcessedRecord, first: string, score: number, reason = copyReason(first)): ProcessedRecord => ({
  ...record, state: 'needs-attention', copyKeys: null,
  matching: { ...record.matching, copyOf: { sourceKey: first, score }, routeReason: reason },
});

/**
 * The same new person twice would be created twice: the later copy is held in Needs Attention,
 * naming the first. Sending the first matches its copies again against what it created
 * (server/engine/send.ts), and a copy is never sent while its first is still to be.
 *
 * The first may be in this batch, or an earlier record of the formula still to be sent (another
 * batch of the run, an earlier run, the same file uploaded again): each new record that is no
 * copy keeps its copy keys, and a later one looks its keys up among them.
 */
async function holdCopies(plan: FormulaPlan, batch: Incoming[], out: ProcessedRecord[]): Promise<void> {
  const { scenarios } = plan.matching;
  // a source record read twice in a batch is stored once, as its last copy: the earlier ones are no one's first
  const last = new Map(out.map((r, i) => [r.sourceKey, i]));
  const news = out.map((r, i) => (creates(r) && last.get(r.sourceKey) === i ? { raw: batch[i]!.raw, values: r.transformed as Record<string, FieldValue> } : null));
  const copies = copiesInBatch(news, scenarios, plan.mappedFields);
  const keys = news.map((n, i) => (n && !copies[i] ? copyKeys(n.raw, scenarios) : null));

  // the batch's firsts against the formula's earlier new records still to be sent
  const wanted = [...new Set(keys.flatMap((k) => k ?? []))];
  const earlier = wanted.length
    ? (await plan.tenant.records.firstsByCopyKeys(plan.formula.id, wanted, [...last.keys()]))
      .map((e) => ({ sourceKey: e.sourceKey, keys: new Set(e.copyKeys ?? []), values: (e.transformed ?? {}) as Record<string, FieldValue> }))
    : [];
  const firstOf = new Map<number, { sourceKey: string; score: number }>();
  keys.forEach((k, i) => {
    if (!k?.length || !earlier.length) return;
    const found = bestCopy(news[i]!.values, earlier.filter((e) => k.some((key) => e.keys.has(key))), plan.mappedFields);
    if (found) firstOf.set(i, { sourceKey: found.of.sourceKey, score: found.score });
  });

  out.forEach((r, i) => {
    const copy = copies[i];
    const earlierFirst = firstOf.get(copy ? copy.index : i);
    // a copy points at the first of its person, never at another copy
    if (earlierFirst) out[i] = asCopy(r, earlierFirst.sourceKey, copy ? copy.score : earlierFirst.score, earlierCopyReason(earlierFirst.sourceKey));
    else if (copy) out[i] = asCopy(r, out[copy.index]!.sourceKey, copy.score);
    else if (keys[i]) out[i] = { ...r, copyKeys: keys[i] };
  });
}

/**
 * Held records (reprocessing, or copies whose first was sent or refused) through processBatch
 * again, as replaceProcessed takes them. Reprocessing pages through the held records, so a copy
 * may come without its first: one still new stays a copy while its first is still to be sent.
 */
export async function processAgain(plan: FormulaPlan, held: readonly (Pick<RecordRow, 'id' | 'sourceKey' | 'raw' | 'matching'> & Partial<Pick<RecordRow, 'corrections'>>)[], opts: { keepCopies: boolean }): Promise<ReprocessedRecord[]> {
  const processed = await processBatch(plan, held.map((r) => ({ sourceKey: r.sourceKey, raw: r.raw, corrections: r.corrections ?? {} })));
  if (opts.keepCopies) {
    // a first in this batch was matched with it here: that answer stands
    const here = new Set(held.map((r) => r.sourceKey));
    const waiting = processed.flatMap((p, i) => {
      const first = copyOf(held[i]!.matching);
      return first !== null && !here.has(first) && creates(p) ? [{ i, first }] : [];
    });
    const unsent = waiting.length ? await plan.tenant.records.unsentNew(plan.formula.id, waiting.map((w) => w.first)) : new Set<string>();
    for (const { i, first } of waiting) {
      const was = held[i]!.matching!;
      const reason = typeof was.routeReason === 'string' ? was.routeReason : copyReason(first);
      if (unsent.has(first)) processed[i] = asCopy(processed[i]!, first, (was.copyOf as { score: number }).score, reason);
    }
  }
  return processed.map((p, i) => {
    const { sourceKey: _s, raw: _r, ...rest } = p;
    return { ...rest, id: held[i]!.id };
  });
}
