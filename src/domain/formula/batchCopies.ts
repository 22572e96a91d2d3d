/**
 * The same new person twice in one batch (a supporter who registered twice in one file). Neither
 * copy finds the other in the destination, which does not hold either yet, so both would be
 * created. A later record is a copy of an earlier one when a search scenario of the formula would
 * find the one from the other (its criteria have the same keys) and it scores a confident match
 * against it over the mapped fields, exactly as it would against the destination's record.
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
 * For each record (null: not one that would be created), the earlier record it is a copy of, or
 * null. Copies point at the first record of their person, never at another copy.
 */
export function copiesInBatch(records: readonly (NewInBatch | null)[], scenarios: readonly SearchScenario[], fields: readonly string[]): (CopyOf | null)[] {
  const firsts = new Map<string, number[]>();
  return records.map((record, i) => {
    if (!record) return null;
    const keys = scenarios.map((s, n) => scenarioKey(n, s, record.raw)).filter((k): k is string => k !== null);
    let best: CopyOf | null = null;
    for (const j of new Set(keys.flatMap((k) => firsts.get(k) ?? []))) {
      const { score } = scoreCandidate(record.values, records[j]!.values, fields);
      if (score >= CONFIDENT_MATCH_SCORE && (!best || score > best.score)) best = { index: j, score };
    }
    if (!best) for (const k of keys) firsts.set(k, [...(firsts.get(k) ?? []), i]);
    return best;
  });
}
