/**
 * The mapping the mapping step starts with when a formula has none saved: each destination field
 * from the source field of the same name ('First name' for firstName: names and labels compared as
 * nameWords spells them), or else from one of the same concept ('Postcode' for postalCode,
 * 'E-mail address' for email: the spellings recommendedScenarios.ts matches by). A source field
 * fills at most one destination field; the person checks the suggestion before saving it.
 */
import type { FieldMapping } from './parts.ts';
import { conceptOf, nameWords, type FieldRef } from './recommendedScenarios.ts';

const spellings = (f: FieldRef) => new Set([f.name, f.label ?? ''].map((t) => nameWords(t).join('')).filter(Boolean));

/**
 * A source field whose name is the destination field's but whose label shares no word with it
 * means something else: Stripe's charge `state` ('Paid, refunded, partly refunded or disputed')
 * is no address's state.
 */
function labelDisagrees(s: FieldRef, d: FieldRef): boolean {
  if (!s.label) return false;
  const theirs = new Set([...nameWords(d.name), ...nameWords(d.label ?? '')]);
  return !nameWords(s.label).some((w) => theirs.has(w));
}

export function suggestedMapping(destination: readonly FieldRef[], source: readonly FieldRef[]): Extract<FieldMapping, { kind: 'source' }>[] {
  const chosen = new Map<string, string>();
  const used = new Set<string>();
  const take = (d: FieldRef, s: FieldRef | undefined) => {
    if (!s) return;
    chosen.set(d.name, s.name);
    used.add(s.name);
  };
  // the same name first, so that a concept never takes a field another destination field is named after
  for (const d of destination) {
    const names = spellings(d);
    take(d, source.find((s) => !used.has(s.name) && [...spellings(s)].some((n) => names.has(n)) && !labelDisagrees(s, d)));
  }
  for (const d of destination) {
    if (chosen.has(d.name)) continue;
    const concept = conceptOf(d);
    if (concept) take(d, source.find((s) => !used.has(s.name) && conceptOf(s) === concept));
  }
  return destination.filter((d) => chosen.has(d.name)).map((d) => ({ destination: d.name, kind: 'source', source: chosen.get(d.name)! }));
}
