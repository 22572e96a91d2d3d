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
import { companionKey, isCompanionKey, parentKeyOf } from '../../src/domain/formula/companion.ts';
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

/**
 * Each row's gift (plan.gift, src/domain/formula/companion.ts) as a second incoming record beside
 * the row's own, `<key>#gift`, when the row carries any value the gift maps.
 */
export function withGifts(plan: FormulaPlan, incoming: Incoming[]): Incoming[] {
  if (!plan.gift) return incoming;
  const sources = plan.gift.mapping.fields.flatMap((f) => (f.kind === 'source' ? [f.source] : []));
  return incoming.flatMap((rec) => {
    const carries = sources.some((s) => valueText((rec.raw[s] ?? null) as FieldValue).trim() !== '');
    return carries && !isCompanionKey(rec.sourceKey) ? [rec, { sourceKey: companionKey(rec.sourceKey), raw: rec.raw }] : [rec];
  });
}

/** Why a row's gift stored before is not written once the formula no longer writes gifts. */
export const NO_GIFT = 'The formula no longer writes a gift from each row: this gift is not written.';

export const isGiftRecord = (plan: Pick<FormulaPlan, 'gift'>, sourceKey: string) => plan.gift !== null && isCompanionKey(sourceKey);

/**
 * What becomes of gifts whose constituent is sent (its destination id known): each is written
 * against it. A gift the constituent already has (the same amount, date and fund: a second upload
 * of the row) is an update of that gift, never a second one; any other is new. Ready to send.
 */
export async function releasedGifts(plan: FormulaPlan, gifts: { values: Record<string, FieldValue>; parentKey: string; parentId: string }[]): Promise<Omit<ProcessedRecord, 'sourceKey' | 'raw'>[]> {
  const gift = plan.gift!;
  const { companion } = gift;
  const queries = gifts.map((g) => ({
    criteria: [
      { field: companion.link, operator: 'equals' as const, value: g.parentId },
      ...companion.sameBy.flatMap((f) => (valueText(g.values[f] ?? null).trim() ? [{ field: f, operator: 'equals' as const, value: valueText(g.values[f] ?? null).trim() }] : [])),
    ],
    limit: 1,
  }));
  const found = await searchMany(gift.end, queries);
  return gifts.map((g, i) => {
    const same = found[i]?.[0];
    const transformed = { ...g.values, [companion.link]: g.parentId };
    return {
      transformed,
      matching: {
        giftOf: g.parentKey,
        routeReason: same
          ? `Its ${companion.parentLabel} already has this ${companion.label} (the same ${companion.sameBy.join(', ')}): it is updated, not written twice.`
          : `Its ${companion.parentLabel} is sent: the ${companion.label} is written against it.`,
      },
      candidates: same ? [{ id: same.id, score: 100, reasons: [`Same ${companion.label}`], fields: same.fields }] : [],
      score: same ? 100 : null,
      bucket: same ? 'one-to-one-match' : 'new', customBucket: null, state: 'ready', destinationRecordId: same?.id ?? null, errorReason: null,
    };
  });
}

/**
 * Gift records (withGifts) of a batch: transformed by the gift's mapping; one whose constituent
 * is sent already (reprocessing, or its row's record sent before) is released at once, any other
 * waits in relationship-match for its constituent's send (server/engine/send.ts releases it).
 */
async function processGifts(plan: FormulaPlan, batch: Incoming[], which: number[], out: (ProcessedRecord | null)[]): Promise<void> {
  const { companion, mapping } = plan.gift!;
  const here = new Set(batch.map((r) => r.sourceKey));
  const parents = which.map((i) => parentKeyOf(batch[i]!.sourceKey));
  // a parent in this batch is being stored anew: its gift waits for its send
  const elsewhere = [...new Set(parents.filter((k) => !here.has(k)))];
  const sent = elsewhere.length ? await plan.tenant.records.sentDestinations(plan.formula.id, elsewhere) : new Map<string, string>();
  const release: { i: number; values: Record<string, FieldValue>; parentKey: string; parentId: string }[] = [];
  which.forEach((i, k) => {
    const rec = batch[i]!;
    const { values: computed, errors } = transformRecord(mapping, null, rec.raw);
    const values = { ...computed, ...(rec.corrections ?? {}) } as Record<string, FieldValue>;
    const base = { sourceKey: rec.sourceKey, raw: rec.raw, transformed: values, candidates: [], score: null, customBucket: null, destinationRecordId: null };
    const missing = companion.required.filter((f) => valueText(values[f] ?? null).trim() === '');
    const failures = [...Object.entries(errors).map(([field, message]) => `${field}: ${message}`), ...missing.map((f) => `${f}: the ${companion.label} has no ${f}`)];
    if (failures.length) {
      out[i] = { ...base, matching: { giftOf: parents[k] }, bucket: 'formula-exception', state: 'failed', errorReason: failures.join('; ') };
      return;
    }
    const parentId = sent.get(parents[k]!);
    if (parentId) { release.push({ i, values, parentKey: parents[k]!, parentId }); return; }
    out[i] = {
      ...base, bucket: 'relationship-match', state: 'needs-attention',
      matching: { giftOf: parents[k], waitingFor: { object: companion.parentLabel, field: 'row', value: parents[k] } },
      errorReason: `Waiting for its ${companion.parentLabel} from the same row, which is not sent yet.`,
    };
  });
  if (!release.length) return;
  const released = await releasedGifts(plan, release);
  release.forEach((r, k) => { out[r.i] = { sourceKey: batch[r.i]!.sourceKey, raw: batch[r.i]!.raw, ...released[k]! }; });
}

export async function processBatch(plan: FormulaPlan, batch: Incoming[]): Promise<ProcessedRecord[]> {
  const out: (ProcessedRecord | null)[] = new Array(batch.length).fill(null);
  const transformed: Record<string, FieldValue>[] = [];
  const toMatch: number[] = [];
  const gifts = batch.flatMap((rec, i) => (isGiftRecord(plan, rec.sourceKey) ? [i] : []));
  if (gifts.length) await processGifts(plan, batch, gifts, out);
  // a row's gift held from before the formula stopped writing gifts (reprocessing) is never a record of its own
  if (!plan.gift) {
    batch.forEach((rec, i) => {
      if (!isCompanionKey(rec.sourceKey)) return;
      out[i] = {
        sourceKey: rec.sourceKey, raw: rec.raw, transformed: null, matching: { routeReason: NO_GIFT }, candidates: [], score: null,
        bucket: 'relationship-match', customBucket: null, state: 'omitted', destinationRecordId: null, errorReason: null,
      };
    });
  }

  // a plan made for matching alone (tests, previews) may have no source to ask
  const source = plan.source as FormulaPlan['source'] | undefined;
  batch.forEach((rec, i) => {
    if (out[i]) return;
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
  // a row's gift is no person: never a copy, nor anyone's first
  const news = out.map((r, i) => (creates(r) && last.get(r.sourceKey) === i && !isGiftRecord(plan, r.sourceKey)
    ? { raw: batch[i]!.raw, values: r.transformed as Record<string, FieldValue> } : null));
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
