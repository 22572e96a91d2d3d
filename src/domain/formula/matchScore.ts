/**
 * The pure matching logic of the engine: how alike a record and a destination record are, field by
 * field and as a 0-100 confidence score, and what the search scenarios' candidates make of a
 * record (new, one-to-one or one-to-many, with Auto Pick). The engine searches; this decides.
 *
 * The score is a Fellegi-Sunter match probability, shown as a percentage. Each compared field
 * falls in a comparison level of its kind (exact, nickname or close, a Jaro-Winkler band, differs;
 * a field one side lacks is not compared and weighs nothing), and each level carries the weight
 * log2(m / u): m, how often the same person's two records show that level; u, how often two
 * different people's do. The weights and the prior odds add up to the log-odds of a match. m and u
 * are fixed priors (LEVELS below, each with why), for a CRM of about 100,000 people: they must hold
 * for a destination before it has any history, and EM on one destination's candidates would learn
 * its households as matches. With them an e-mail or lookup id that agrees is decisive (about 20
 * bits where a changed address or a nickname costs 3 or 2), and names alone are not.
 * Where the fields are not independent (a household shares its address, phone and sometimes its
 * e-mail; a move changes the postal code and city with the address), rules keep wrong merges out
 * of the confident range:
 * - when the address differs, a different postal code, city or state is the same move and is not
 *   counted again;
 * - without a strong identifier agreeing (e-mail, phone, lookup id, or the address with its postal
 *   code, or with its city or state when there is no postal code to compare) a score is at most
 *   NO_IDENTIFIER_CAP: names alone are shared by too many people;
 * - with first or last names that clearly differ (not nicknames, initials or typos) a score is at
 *   most NAME_CONFLICT_CAP: a household shares its phone, address and sometimes its e-mail;
 * - with the e-mail and the address both changed, the phone is all that is left, and a family
 *   shares one: at most CHANGED_CONTACT_CAP, for a person to look at;
 * - 100 is kept for a candidate whose every compared field agrees: anything else is at most 99.
 * A first and last name written the wrong way round (Smith, John) are compared both ways, the
 * swap costing what it is: rare in the same person's records, never a reason to believe them.
 * The caps lie below CONFIDENT_MATCH_SCORE. Adding a field that agrees never lowers a score.
 */
import { addressWords, foldName, keyKindOfField, matchKey, type KeyKind } from './matchKeys.ts';
import { isKnownGivenName, nicknameGroups } from './nicknames.ts';
import type { AutoPickCondition, SearchScenario } from './parts.ts';
import { MATCHING_LIST_SEPARATOR, type MatchingField } from './routingFields.ts';
import type { FieldValue } from './transforms.ts';

/** A single candidate scoring at least this is a confident one-to-one match. */
export const CONFIDENT_MATCH_SCORE = 85;
/** The most a candidate scores when no strong identifier agrees. */
export const NO_IDENTIFIER_CAP = 70;
/** The most a candidate scores when the first or last names clearly differ. */
export const NAME_CONFLICT_CAP = 75;
/** The most a candidate scores when its e-mail and its address both differ from the record's. */
export const CHANGED_CONTACT_CAP = 80;
/**
 * A routing discardBelow that drops the candidates the caps hold down (namesakes and household
 * members), so that a confident match found beside them stands alone as a one-to-one match.
 */
export const RECOMMENDED_DISCARD_BELOW = 80;
/** Name similarities below this are a conflict, not a typo. */
const NAME_CONFLICT = 0.4;

type FieldKind = KeyKind | 'identifier' | 'locality' | 'other';

/**
 * One comparison level of a kind: the least similarity (fieldSimilarity) that reaches it, and its m
 * and u. Levels are listed best first; the first the similarity reaches is the field's level.
 */
interface Level { min: number; m: number; u: number }
const level = (min: number, m: number, u: number): Level => ({ min, m, u });

/**
 * m and u per kind and level. u is for two people drawn at random from a CRM of about 100,000 (a
 * regional one: a few hundred postal codes, common names frequent); m for two records of one
 * person, from how often imports change or garble each field.
 */
const LEVELS: Record<FieldKind, readonly Level[]> = {
  // kept for years, shared only by a few couples; a changed or second address is common
  email: [level(1, 0.85, 1e-7), level(0, 0.15, 1)],
  // a record id is the record
  identifier: [level(1, 0.99, 1e-8), level(0, 0.01, 1)],
  // a household shares its number; a number without its area code rarely meets another's
  phone: [level(1, 0.8, 1e-6), level(0.9, 0.02, 1e-5), level(0, 0.18, 1)],
  // the same name or nickname group (one in 60 random pairs), a nickname of another group, an
  // initial or a typo, and two names (which a form seldom writes for the same person)
  firstName: [level(1, 0.75, 0.015), level(0.85, 0.17, 0.01), level(0.55, 0.05, 0.02), level(0.4, 0.01, 0.02), level(0, 0.02, 0.935)],
  // the same surname (one in 300 random pairs), half of a double-barrelled name or a slip of one
  // letter, a worse typo, and two surnames
  lastName: [level(1, 0.82, 0.003), level(0.85, 0.1, 0.001), level(0.55, 0.05, 0.004), level(0.4, 0.01, 0.01), level(0, 0.02, 0.982)],
  // the same address (a household's), the same with a slip or without its unit, a street in
  // common, and another address (a move)
  addressLine1: [level(1, 0.72, 1e-6), level(0.8, 0.1, 1e-5), level(0.5, 0.03, 1e-4), level(0, 0.15, 1)],
  // one of a few hundred codes; the same first three digits: the same area
  postalCode: [level(1, 0.82, 0.0005), level(0.5, 0.05, 0.02), level(0, 0.13, 0.98)],
  // a city, state or country: shared by many, changed by a move
  locality: [level(1, 0.9, 0.05), level(0.8, 0.03, 0.01), level(0, 0.07, 0.94)],
  other: [level(1, 0.9, 0.1), level(0.8, 0.05, 0.05), level(0, 0.05, 0.85)],
};

/** The weight of each level, in bits: log2(m / u). */
const WEIGHTS = Object.fromEntries(Object.entries(LEVELS).map(([kind, levels]) => [kind, levels.map((l) => Math.log2(l.m / l.u))])) as Record<FieldKind, number[]>;

/**
 * The prior odds that a candidate is the record, in bits: one person in 100,000, the chance that
 * two records drawn at random from such a CRM are the same person. A search narrows the pairs but
 * says nothing the fields it searched by do not: their agreement is weighed like any other.
 */
const PRIOR_BITS = Math.log2(1e-5 / (1 - 1e-5));

/** The same person's first and last names in each other's fields: rare (m), and as likely for others (u). */
const SWAPPED_NAMES_BITS = Math.log2(0.01);

/** Below this the address lines are two addresses: a move. */
const DIFFERENT_ADDRESS = 0.5;

/** The level (index into LEVELS[kind]) a similarity reaches. */
function levelOf(kind: FieldKind, similarity: number): number {
  const levels = LEVELS[kind];
  for (let i = 0; i < levels.length; i++) if (similarity >= levels[i]!.min) return i;
  return levels.length - 1;
}

const compact = (field: string) => field.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A destination record's lookup id (or another record id): exact, case-insensitive. */
const isIdentifierField = (field: string): boolean => /^(lookupid|id|recordid|externalid|constituentid|constituentlookupid|giftlookupid)$/.test(compact(field));

/** Where a person lives, more coarsely than the address: shared by many, and changed by a move. */
const isLocalityField = (field: string): boolean => /^(mailing|home|primary|billing)?(city|town|state|province|region|county|country)(code)?$/.test(compact(field));

const kinds = new Map<string, FieldKind>();
/** Asked for every field of every candidate: the answer per field name is kept (formulas name few fields). */
function kindOf(field: string): FieldKind {
  let kind = kinds.get(field);
  if (kind === undefined) {
    kind = isIdentifierField(field) ? 'identifier' : keyKindOfField(field) ?? (isLocalityField(field) ? 'locality' : 'other');
    if (kinds.size >= 10_000) kinds.clear();
    kinds.set(field, kind);
  }
  return kind;
}

/** A value as trimmed text: numbers in base ten, dates as ISO, nothing as ''. */
function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (typeof value === 'object') {
    try { return (JSON.stringify(value) ?? '').trim(); } catch { return ''; }
  }
  return String(value).trim();
}

// ------------------------------------------------------------------------------- similarity

/** Jaro-Winkler similarity (prefix scale 0.1, up to 4 characters), 0..1. */
export function jaroWinkler(a: string, b: string): number {
  if (a === b) return 1;
  if (!a || !b) return 0;
  const window = Math.max(0, Math.floor(Math.max(a.length, b.length) / 2) - 1);
  const aMatched = new Uint8Array(a.length);
  const bMatched = new Uint8Array(b.length);
  let matches = 0;
  for (let i = 0; i < a.length; i++) {
    for (let j = Math.max(0, i - window); j < Math.min(b.length, i + window + 1); j++) {
      if (bMatched[j] || a[i] !== b[j]) continue;
      aMatched[i] = bMatched[j] = 1;
      matches++;
      break;
    }
  }
  if (!matches) return 0;
  let transpositions = 0;
  for (let i = 0, j = 0; i < a.length; i++) {
    if (!aMatched[i]) continue;
    while (!bMatched[j]) j++;
    if (a[i] !== b[j]) transpositions++;
    j++;
  }
  const jaro = (matches / a.length + matches / b.length + (matches - transpositions / 2) / matches) / 3;
  let prefix = 0;
  while (prefix < 4 && prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  return jaro + prefix * 0.1 * (1 - jaro);
}

/** Jaro-Winkler spread over its useful range: 0.7 and below (unrelated strings) is 0. */
const spread = (jw: number): number => Math.max(0, (jw - 0.7) / 0.3);

// ------------------------------------------------------------------------------- prepared values

/**
 * What the similarities read of one value of a kind: its key, folded forms, nickname groups or
 * address words. A record is scored against every candidate and the same names, streets and towns
 * come back record after record, so each value is prepared once and kept (a bounded memo).
 */
interface Prepared {
  key: string | null;
  /** foldName: names; the folded text: other and locality values */
  folded: string;
  /** first names: the canonical names of its key and nickname groups; whether it is a known given name */
  groups?: ReadonlySet<string>;
  known?: boolean;
  /** last names: the words of a double-barrelled name */
  parts?: readonly string[];
  /** address lines */
  words?: readonly string[];
  /** other and locality values: a number, compared as one */
  number?: boolean;
  hasDigit?: boolean;
}

const PREPARED_MAX = 20_000;
const preparedMemo = new Map<FieldKind, Map<string, Prepared>>();

/** Values worth remembering: names, streets and places recur; long text, notes and amounts do not. */
const MEMO_MAX_LENGTH = 64;

function prepare(kind: FieldKind, t: string): Prepared {
  // keys of e-mails, phones and postal codes cost less than remembering them
  if (kind === 'email' || kind === 'phone' || kind === 'postalCode') return { key: matchKey(kind, t), folded: '' };
  if (kind === 'other' || t.length > MEMO_MAX_LENGTH) return prepareValue(kind, t);
  let memo = preparedMemo.get(kind);
  if (!memo) preparedMemo.set(kind, memo = new Map());
  let p = memo.get(t);
  if (p) return p;
  p = prepareValue(kind, t);
  if (memo.size >= PREPARED_MAX) memo.clear();
  memo.set(t, p);
  return p;
}

function prepareValue(kind: FieldKind, t: string): Prepared {
  switch (kind) {
    case 'firstName': {
      const folded = foldName(t);
      const key = matchKey('firstName', t);
      return { key, folded, groups: new Set([...(key ? [key] : []), ...nicknameGroups(folded)]), known: isKnownGivenName(folded) };
    }
    case 'lastName': return { key: matchKey('lastName', t), folded: foldName(t), parts: nameParts(t) };
    case 'addressLine1': {
      const words = addressWords(t);
      return { key: words.join('') || null, folded: '', words };
    }
    default: {
      const folded = t.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ');
      return { key: null, folded, number: numeric(t), hasDigit: /\d/.test(folded) };
    }
  }
}

function firstNameSimilarity(a: Prepared, b: Prepared): number {
  const [fa, fb, ka, kb] = [a.folded, b.folded, a.key, b.key];
  if (!fa || !fb || !ka || !kb) return 0;
  if (ka === kb) return 1;
  // a nickname of the other (Bill, William), or of a group both belong to
  for (const g of b.groups!) if (a.groups!.has(g)) return 0.9;
  if (fa.length === 1 || fb.length === 1) return fa[0] === fb[0] ? 0.7 : 0;
  // two known names are two names, however alike they look (Mark, Mary; Daniel, Danielle)
  if (a.known && b.known) return 0;
  return 0.9 * spread(Math.max(jaroWinkler(fa, fb), jaroWinkler(ka, kb)));
}

/** A name's words (Smith-Jones -> smith, jones), apostrophes dropped. */
const nameParts = (value: string): string[] => value.replace(/['\u2019]/g, '').split(/[\s-]+/).map(foldName).filter(Boolean);

function lastNameSimilarity(a: Prepared, b: Prepared): number {
  if (a.folded === b.folded) return 1;
  const [pa, pb] = [a.parts!, b.parts!];
  const [short, long] = pa.length <= pb.length ? [pa, pb] : [pb, pa];
  // one half of a double-barrelled name
  if (short.length && long.length > short.length && short.every((p) => long.includes(p))) return 0.85;
  const whole = spread(jaroWinkler(a.folded, b.folded));
  // one half, mistyped (Joones for Williams-Jones)
  if (short.length === 1 && long.length > 1) return Math.max(whole, 0.85 * Math.max(...long.map((p) => spread(jaroWinkler(short[0]!, p)))));
  return whole;
}

const hasDigit = (word: string) => /\d/.test(word);

/** Soft Dice over address words: words match when equal or, without digits, close (a typo). */
function addressSimilarity(wa: readonly string[], wb: readonly string[]): number {
  if (!wa.length || !wb.length) return 0;
  const used = new Array<boolean>(wb.length).fill(false);
  let matched = 0;
  let numbersDiffer = false;
  for (const word of wa) {
    let best = -1;
    let bestSim = 0;
    for (let j = 0; j < wb.length; j++) {
      if (used[j]) continue;
      const other = wb[j]!;
      const sim = word === other ? 1 : !hasDigit(word) && !hasDigit(other) && word.length >= 4 ? jaroWinkler(word, other) : 0;
      if (sim > bestSim) { best = j; bestSim = sim; }
    }
    if (best >= 0 && bestSim >= 0.88) { used[best] = true; matched += bestSim; } else if (hasDigit(word)) numbersDiffer = true;
  }
  // a number on both sides left unmatched: another house or flat, not a missing unit
  if (numbersDiffer && wb.some((w, j) => !used[j] && hasDigit(w))) return (0.3 * 2 * matched) / (wa.length + wb.length);
  return (2 * matched) / (wa.length + wb.length);
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** Numbers compare as numbers ('25' = '25.00'), but text with a leading zero is a code ('02906'). */
const numeric = (t: string): boolean => NUMBER.test(t) && !/^[+-]?0\d/.test(t);

function otherSimilarity(a: Prepared, b: Prepared): number {
  if (a.number && b.number) return Number(a.folded) === Number(b.folded) ? 1 : 0;
  if (a.folded === b.folded) return 1;
  // codes and dates are equal or not; only words have typos
  if (a.hasDigit || b.hasDigit) return 0;
  return spread(jaroWinkler(a.folded, b.folded));
}

/**
 * How alike two values of a destination field are, 0..1, by the field's kind; null when either is
 * blank (or, for a keyed kind, has no key, such as a phone of three digits): not compared.
 */
export function fieldSimilarity(field: string, a: unknown, b: unknown): number | null {
  const [ta, tb] = [text(a), text(b)];
  if (!ta || !tb) return null;
  const kind = kindOf(field);
  if (kind === 'identifier') return ta.toLowerCase() === tb.toLowerCase() ? 1 : 0;
  const [pa, pb] = [prepare(kind, ta), prepare(kind, tb)];
  if (kind === 'other' || kind === 'locality') return otherSimilarity(pa, pb);
  const [ka, kb] = [pa.key, pb.key];
  if (ka === null || kb === null) return null;
  switch (kind) {
    case 'email': return ka === kb ? 1 : 0;
    case 'phone': {
      if (ka === kb) return 1;
      // a number written without its area code
      const [short, long] = ka.length <= kb.length ? [ka, kb] : [kb, ka];
      return short.length < 10 && long.endsWith(short) ? 0.9 : 0;
    }
    case 'firstName': return firstNameSimilarity(pa, pb);
    case 'lastName': return lastNameSimilarity(pa, pb);
    case 'postalCode': return ka === kb ? 1 : ka.slice(0, 3) === kb.slice(0, 3) ? 0.5 : 0;
    case 'addressLine1': return ka === kb ? 1 : addressSimilarity(pa.words!, pb.words!);
  }
}

// ---------------------------------------------------------------------------------- scoring

export interface ComparedField { field: string; similarity: number }
export interface CandidateScore { score: number; compared: ComparedField[] }

/** Each field once; a formula's field list is scored against every candidate, so its answer is kept. */
const uniques = new WeakMap<readonly string[], readonly string[]>();
function uniqueFields(fields: readonly string[]): readonly string[] {
  let unique = uniques.get(fields);
  if (!unique) uniques.set(fields, unique = [...new Set(fields)]);
  return unique;
}

/** The best similarity of each kind (a home and a work phone: the best speaks for the kind). */
type KindSimilarities = Partial<Record<FieldKind, number>>;

/** Kinds whose fields say different things (city and state, amount and fund): each field counts, not the best. */
const EACH_FIELD: ReadonlySet<FieldKind> = new Set(['locality', 'other']);

/**
 * The 0-100 score of a candidate whose fields of each kind are as alike as `of` says (and, for the
 * kinds where each field counts, as `each` lists), with the caps.
 */
function scoreOf(of: KindSimilarities, each: readonly { kind: FieldKind; similarity: number }[], swapped: boolean): number {
  const moved = of.addressLine1 !== undefined && of.addressLine1 < DIFFERENT_ADDRESS;
  let bits = PRIOR_BITS + (swapped ? SWAPPED_NAMES_BITS : 0);
  let exact = !swapped;
  const weigh = (kind: FieldKind, similarity: number) => {
    if (similarity < 1) exact = false;
    const at = levelOf(kind, similarity);
    // a move changes the postal code and the city with the address: counted once, by the address
    if (moved && (kind === 'postalCode' || kind === 'locality') && at === LEVELS[kind].length - 1) return;
    bits += WEIGHTS[kind][at]!;
  };
  for (const [kind, similarity] of Object.entries(of) as [FieldKind, number][]) if (!EACH_FIELD.has(kind)) weigh(kind, similarity);
  for (const { kind, similarity } of each) weigh(kind, similarity);
  let score = Math.round(100 / (1 + 2 ** -bits));
  if (!exact) score = Math.min(score, 99);
  // an address is strong where it is: with its postal code, or without one to compare, its city or state
  const placed = of.postalCode === undefined ? of.locality === 1 : of.postalCode === 1;
  const strong = of.email === 1 || of.identifier === 1 || (of.phone ?? 0) >= 0.9 || ((of.addressLine1 ?? 0) >= 0.8 && placed);
  if (!strong) score = Math.min(score, NO_IDENTIFIER_CAP);
  if ((of.firstName ?? 1) < NAME_CONFLICT || (of.lastName ?? 1) < NAME_CONFLICT) score = Math.min(score, NAME_CONFLICT_CAP);
  if (of.email === 0 && moved) score = Math.min(score, CHANGED_CONTACT_CAP);
  return score;
}

/** The 0-100 confidence that a candidate is the record, over the given (mapped destination) fields. */
export function scoreCandidate(record: Record<string, FieldValue>, candidate: Record<string, unknown>, fields: readonly string[]): CandidateScore {
  const compared: ComparedField[] = [];
  const of: KindSimilarities = {};
  const each: { kind: FieldKind; similarity: number }[] = [];
  let firstField: string | null = null;
  let lastField: string | null = null;
  for (const field of uniqueFields(fields)) {
    const kind = kindOf(field);
    if (kind === 'firstName') firstField ??= field;
    if (kind === 'lastName') lastField ??= field;
    let similarity = fieldSimilarity(field, own(record, field), own(candidate, field));
    if (similarity === null) continue;
    if (similarity < NICKNAME && kind === 'firstName') similarity = Math.max(similarity, knownAs(own(record, field), candidate));
    compared.push({ field, similarity });
    of[kind] = Math.max(of[kind] ?? 0, similarity);
    if (EACH_FIELD.has(kind)) each.push({ kind, similarity });
  }
  if (!compared.length) return { score: 0, compared };
  let score = scoreOf(of, each, false);
  // the names written the wrong way round: the record's last name is the candidate's first, and its first the last
  if (firstField !== null && lastField !== null && of.firstName !== undefined && of.lastName !== undefined && Math.min(of.firstName, of.lastName) < 1) {
    const first = fieldSimilarity(firstField, own(record, lastField), own(candidate, firstField));
    const last = fieldSimilarity(lastField, own(record, firstField), own(candidate, lastField));
    if (first !== null && last !== null && Math.min(first, last) > Math.min(of.firstName, of.lastName)) {
      score = Math.max(score, scoreOf({ ...of, firstName: first, lastName: last }, each, true));
    }
  }
  return { score, compared };
}

/** A first name agreeing with a nickname of the other. */
const NICKNAME = 0.9;
/** The other names a destination record knows a person by (the Sandbox CRM's; src/domain/sandboxImport.ts). */
const OTHER_GIVEN_NAMES = ['preferredName', 'middleName'] as const;

/**
 * A first name that is the destination record's preferred or middle name (or a nickname of it)
 * agrees as a nickname does: Sunny for Sun-hee who goes by Sunny, Scott for F. Scott.
 */
function knownAs(first: unknown, candidate: Record<string, unknown>): number {
  let best = 0;
  for (const other of OTHER_GIVEN_NAMES) {
    if ((fieldSimilarity('firstName', first, own(candidate, other)) ?? 0) >= NICKNAME) best = NICKNAME;
  }
  return best;
}

/** A record's own value of a field (never one of Object's, for a field called 'constructor'). */
const own = (row: Record<string, unknown>, field: string): unknown => (Object.hasOwn(row, field) ? row[field] : undefined);

// ------------------------------------------------------------------------------- exactness

/** Two values the same after trimming; numbers as numbers; case forgiven unless caseSensitive. */
function sameValue(a: unknown, b: unknown, caseSensitive: boolean): boolean {
  const [ta, tb] = [text(a).normalize('NFC'), text(b).normalize('NFC')];
  if (numeric(ta) && numeric(tb)) return Number(ta) === Number(tb);
  return caseSensitive ? ta === tb : ta.toLowerCase() === tb.toLowerCase();
}

/**
 * The routing choice 'Add to Ready if the selected fields match exactly': every listed field is
 * the same on both sides after trimming (two blanks are the same), case-insensitive unless a
 * difference in capitalisation counts. No field listed: false, nothing was shown to match.
 */
export function exactFieldsMatch(
  record: Record<string, FieldValue>, candidateFields: Record<string, unknown>, fields: readonly string[], capitalizationIsDifference: boolean,
): boolean {
  return fields.length > 0 && fields.every((f) => sameValue(own(record, f), own(candidateFields, f), capitalizationIsDifference));
}

/**
 * Auto Pick's exact match (SPEC.md section 3): case-sensitive after trimming, numbers as numbers,
 * and a field the record leaves blank never matches (it would pick by the absence of data).
 */
const autoPickMatches = (record: Record<string, FieldValue>, candidate: Record<string, unknown>, fields: readonly string[]): boolean =>
  fields.every((f) => text(own(record, f)) !== '' && sameValue(own(record, f), own(candidate, f), true));

// --------------------------------------------------------------------------------- deciding

export type MatchBucket = 'new' | 'one-to-one-match' | 'one-to-many-match';
export type SearchTier = 'primary' | 'secondary';

export interface SearchCandidate { id: string; fields: Record<string, unknown> }
/** One scenario that was searched, with what it found. */
export interface ScenarioHits { scenario: SearchScenario; candidates: readonly SearchCandidate[] }

export interface MatchInput {
  /** the transformed values, keyed by destination field */
  record: Record<string, FieldValue>;
  /** the mapped destination fields */
  fields: readonly string[];
  /** the scenarios searched, in search order */
  hits: readonly ScenarioHits[];
  autoPick: readonly AutoPickCondition[];
  discardBelow: number | null;
}

export interface ScoredCandidate {
  id: string;
  score: number;
  /** the match reasons of every scenario that found it, in scenario order, each once */
  reasons: string[];
  /** the first scenario that found it */
  scenario: string;
  fields: Record<string, unknown>;
  compared: ComparedField[];
}

export interface MatchDecision {
  bucket: MatchBucket;
  /** best first: by score, then by id */
  candidates: ScoredCandidate[];
  /** the single candidate, or the one Auto Pick chose */
  picked: ScoredCandidate | null;
  autoPicked: boolean;
  /** a picked candidate scoring at least CONFIDENT_MATCH_SCORE */
  confident: boolean;
  tier: SearchTier | null;
  /** the matching data routing conditions read (src/domain/formula/routingFields.ts) */
  matching: Record<MatchingField, string>;
}

/**
 * What the searches make of a record. Candidates are pooled by id across scenarios (a primary
 * scenario that found any makes the secondary ones' results count for nothing, as SPEC.md section 4
 * skips them), scored, and those below `discardBelow` dropped, keeping the best when all are below.
 * None: new. One: a one-to-one match. Several: the first Auto Pick condition whose fields match
 * exactly one candidate exactly (and whose minScore that candidate reaches) picks it; otherwise
 * a one-to-many match. The matching data describes the picked candidate, or the best one.
 */
export function decideMatch(input: MatchInput): MatchDecision {
  const primaryFound = input.hits.some((h) => h.scenario.isPrimary && h.candidates.length > 0);
  const pooled = new Map<string, Omit<ScoredCandidate, 'score' | 'compared'>>();
  for (const hit of input.hits) {
    if (primaryFound && !hit.scenario.isPrimary) continue;
    for (const c of hit.candidates) {
      const known = pooled.get(c.id);
      if (!known) pooled.set(c.id, { id: c.id, reasons: [hit.scenario.matchReason], scenario: hit.scenario.name, fields: c.fields });
      else if (!known.reasons.includes(hit.scenario.matchReason)) known.reasons.push(hit.scenario.matchReason);
    }
  }
  const tier: SearchTier | null = primaryFound ? 'primary' : pooled.size ? 'secondary' : null;

  const scored = [...pooled.values()]
    .map((c): ScoredCandidate => ({ ...c, ...scoreCandidate(input.record, c.fields, input.fields) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const floor = input.discardBelow;
  const kept = floor === null ? scored : scored.filter((c) => c.score >= floor);
  const candidates = kept.length || !scored.length ? kept : scored.slice(0, 1);

  let picked: ScoredCandidate | null = null;
  let autoPicked = false;
  if (candidates.length === 1) picked = candidates[0]!;
  else if (candidates.length > 1) {
    for (const condition of input.autoPick) {
      const exact = candidates.filter((c) => autoPickMatches(input.record, c.fields, condition.fields));
      if (exact.length === 1 && exact[0]!.score >= (condition.minScore ?? 0)) {
        picked = exact[0]!;
        autoPicked = true;
        break;
      }
    }
  }
  const bucket: MatchBucket = !candidates.length ? 'new' : picked ? 'one-to-one-match' : 'one-to-many-match';
  const best = picked ?? candidates[0] ?? null;
  return {
    bucket, candidates, picked, autoPicked, tier,
    confident: picked !== null && picked.score >= CONFIDENT_MATCH_SCORE,
    matching: {
      candidateCount: String(candidates.length),
      bestScore: best ? String(best.score) : '',
      matchReasons: best ? best.reasons.join(MATCHING_LIST_SEPARATOR) : '',
      matchedScenario: best?.scenario ?? '',
      searchTier: tier ?? '',
      autoPicked: String(autoPicked),
    },
  };
}
