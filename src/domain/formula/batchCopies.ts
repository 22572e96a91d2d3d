/**
 * The same new person twice in one batch (a supporter who registered twice in one file). Neither
 * copy finds the other in the destination, which does not hold either yet, so both would be
 * created. A later record is a copy of an earlier one when a search scenario of the formula would
 * find the one from the other (its criteria have the same keys) and it scores a confident match
 * against it over the mapped fields, exactly as it would against the destination's record.
 * The same holds across batches: a file uploaded twice, or a person who registered again before
 * their first registration was sent, finds that earlier record by its copy keys.
 */
import { keyKindOfField, matchKey } from './matchKeys.ts';
import { CONFIDENT_MATCH_SCORE, scoreCandidate } from './matchScore.ts';
import type { SearchScenario } from './parts.ts';
import { routingText } from './route.ts';
import { valueText, type FieldValue } from './transforms.ts';

/** A record that would be created: its source data and its transformed values by destination field. */
export interface NewInBatch {
  raw: Record<string, unknown>;
  values: Record<string, FieldValue>;
}

/** The earlier record of the batch a record is a copy of, and how well it matches it. */
export interface CopyOf { index: number; score: number }

/** What the reviewer reads on a copy held for the first to be sent. */
export const copyReason = (sourceKey: string) =>
  `Same person as ${sourceKey} in the same batch: matched again once that record is sent`;

/** What the reviewer reads on a copy held for a first from an earlier batch, run or upload that is still to be sent. */
export const earlierCopyReason = (sourceKey: string) =>
  `Same person as ${sourceKey}, collected earlier and still to be sent: matched again once that record is sent`;

/** A criterion's value in the source record, as a search asks for it ('' when blank). */
export function criterionValue(raw: Record<string, unknown>, source: string): string {
  const v = Object.hasOwn(raw, source) ? raw[source] : null;
  return valueText(v === null || v === undefined ? null : typeof v === 'number' ? v : String(v)).trim();
}

/** What a scenario's search would look for in a record, as one text; null when a criterion is blank or has no key. */
function scenarioKey(position: number, scenario: SearchScenario, raw: Record<string, unknown>): string | null {
  const parts = [String(position)];
  for (const c of scenario.criteria) {
    const value = criterionValue(raw, c.source);
    const kind = keyKindOfField(c.destination);
    const key = kind ? matchKey(kind, value) : routingText(value) || null;
    if (!key) return null;
    parts.push(key);
  }
  return parts.join('\u001f');
}

/**
 * What the formula's search scenarios would look for in a record, one text per scenario it can
 * search by: two records share one when a scenario would find the one from the other. Kept with a
 * new record still to be sent, so that its copy in a later batch or upload finds it.
 */
export function copyKeys(raw: Record<string, unknown>, scenarios: readonly SearchScenario[]): string[] {
  return [...new Set(scenarios.map((s, n) => scenarioKey(n, s, raw)).filter((k): k is string => k !== null))];
}

/** Of earlier new records (`values`, by destination field), the one a record is a copy of and its score, or null. */
export function bestCopy<T extends { values: Record<string, FieldValue> }>(values: Record<string, FieldValue>, earlier: readonly T[], fields: readonly string[]): { of: T; score: number } | null {
  let best: { of: T; score: number } | null = null;
  for (const e of earlier) {
    const { score } = scoreCandidate(values, e.values, fields);
    if (score >= CONFIDENT_MATCH_SCORE && (!best || score > best.score)) best = { of: e, score };
  }
  return best;
}

/**
 * For each record (null: not one that would be created), the earlier record it is a copy of, or
 * null. Copies point at the first record of their person, never at another copy.
 */
export function copiesInBatch(records: readonly (NewInBatch | null)[], scenarios: readonly SearchScenario[], fields: readonly string[]): (CopyOf | null)[] {
  const firsts = new Map<string, number[]>();
  return records.map((record, i) => {
    if (!record) return null;
    const keys = copyKeys(record.raw, scenarios);
    const found = bestCopy(record.values, [...new Set(keys.flatMap((k) => firsts.get(k) ?? []))].map((j) => ({ j, values: records[j]!.values })), fields);
    if (!found) for (const k of keys) firsts.set(k, [...(firsts.get(k) ?? []), i]);
    return found ? { index: found.of.j, score: found.score } : null;
  });
}
