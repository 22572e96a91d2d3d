/**
 * Matching accuracy on synthetic people (tests/support/syntheticPeople.ts), measured in memory: the
 * CRM's match keys in one Map per field stand for the destination's indexed search, the recommended
 * Sandbox CRM scenarios search in their tiers as the engine does, and decideMatch decides. A
 * record counts as matched only when it is a confident one-to-one match.
 */
import { keyKindOfField, matchKey } from '../../src/domain/formula/matchKeys.ts';
import { decideMatch, type MatchBucket, type ScenarioHits } from '../../src/domain/formula/matchScore.ts';
import type { AutoPickCondition, SearchScenario } from '../../src/domain/formula/parts.ts';
import { recommendedMatching, type FieldRef } from '../../src/domain/formula/recommendedScenarios.ts';
import type { FieldValue } from '../../src/domain/formula/transforms.ts';
import { COLUMN_FIELDS, generateIncoming, generatePeople, SOURCE_COLUMNS, type IncomingKind, type IncomingRecord, type Mess, type Person } from './syntheticPeople.ts';

/** The seed the scoring's weights were tuned on. */
export const TUNING_SEED = 2026;
/** A seed never tuned on: accuracy is judged on it. */
export const HELD_OUT_SEED = 7_331;

/** The Sandbox CRM's constituent fields, as server/connectors/sandboxCrm/fields.ts lists them. */
export const SANDBOX_CONSTITUENT_FIELDS: FieldRef[] = [
  { name: 'lookupId', label: 'Lookup ID', searchable: true },
  { name: 'title', label: 'Title', searchable: true },
  { name: 'firstName', label: 'First name', searchable: true },
  { name: 'lastName', label: 'Last name', searchable: true },
  { name: 'email', label: 'E-mail', searchable: true },
  { name: 'phone', label: 'Phone', searchable: true },
  { name: 'addressLine1', label: 'Address line 1', searchable: true },
  { name: 'addressLine2', label: 'Address line 2' },
  { name: 'city', label: 'City', searchable: true },
  { name: 'state', label: 'State', searchable: true },
  { name: 'postalCode', label: 'Postal code', searchable: true },
  { name: 'country', label: 'Country' },
  { name: 'createdOn', label: 'Created on' },
  { name: 'modifiedOn', label: 'Modified on' },
];

/** What a destination search compares: the field's match key, or its text folded. */
function searchKey(field: string, value: unknown): string | null {
  const kind = keyKindOfField(field);
  const text = value === null || value === undefined ? '' : String(value).trim();
  if (kind) return matchKey(kind, text);
  return text ? text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase() : null;
}

/** The CRM's people indexed by the key of each field, as the destination's search indexes hold them. */
export class InMemoryDestination {
  private readonly index = new Map<string, Map<string, string[]>>();
  private readonly byId = new Map<string, Person>();
  /** each person's key per field, to check the other criteria of the shortest posting list */
  private readonly keysOf = new Map<string, Map<string, string | null>>();

  constructor(people: readonly Person[], fields: readonly string[]) {
    for (const field of fields) this.index.set(field, new Map());
    for (const person of people) {
      this.byId.set(person.id, person);
      const keys = new Map<string, string | null>();
      this.keysOf.set(person.id, keys);
      for (const field of fields) {
        const key = searchKey(field, (person as unknown as Record<string, unknown>)[field]);
        keys.set(field, key);
        if (key === null) continue;
        const ids = this.index.get(field)!;
        const list = ids.get(key);
        if (list) list.push(person.id); else ids.set(key, [person.id]);
      }
    }
  }

  /** The people whose every criterion's key equals the row's; none when the row lacks one. */
  search(scenario: SearchScenario, row: Record<string, unknown>): { id: string; fields: Record<string, unknown> }[] {
    const wanted: [string, string, string[]][] = [];
    for (const { source, destination } of scenario.criteria) {
      const key = searchKey(destination, row[source]);
      const found = key === null ? undefined : this.index.get(destination)?.get(key);
      if (!found) return [];
      wanted.push([destination, key!, found]);
    }
    if (!wanted.length) return [];
    // the shortest posting list, filtered by the other criteria's keys (as an index scan would)
    wanted.sort((a, b) => a[2].length - b[2].length);
    const ids = wanted[0]![2].filter((id) => wanted.every(([field, key]) => this.keysOf.get(id)!.get(field) === key));
    return ids.map((id) => ({ id, fields: { ...this.byId.get(id)!, lookupId: id } }));
  }
}

/** Primary scenarios first; secondary ones only when no primary found anything (SPEC.md section 4). */
export function searchInTiers(destination: InMemoryDestination, scenarios: readonly SearchScenario[], row: Record<string, unknown>): ScenarioHits[] {
  const search = (tier: boolean) => scenarios.filter((s) => s.isPrimary === tier).map((scenario) => ({ scenario, candidates: destination.search(scenario, row) }));
  const primary = search(true);
  return primary.some((h) => h.candidates.length) ? primary : [...primary, ...search(false)];
}

export interface AccuracyOptions {
  crmSize: number;
  incomingSize: number;
  seed: number;
  discardBelow?: number | null;
  autoPick?: AutoPickCondition[];
}

export interface AccuracyResult {
  scenarios: SearchScenario[];
  incoming: number;
  /** incoming records that are CRM people */
  existing: number;
  /** confident one-to-one matches, and how many were right */
  confident: number;
  truePositives: number;
  falsePositives: number;
  precision: number;
  recall: number;
  /** non-confident one-to-one matches and one-to-many matches: what people review */
  review: { oneToOne: number; oneToMany: number };
  buckets: Record<MatchBucket, number>;
  /** existing people that went to the new bucket: their match was never found */
  missedAsNew: number;
  /** missedAsNew as a share of the existing people: each becomes a duplicate when sent */
  newShare: number;
  /** per hard change a copy carries: how many copies carry it, how many were matched confidently, how many went to new */
  byMess: Partial<Record<Mess, { count: number; right: number; asNew: number }>>;
  /** per kind of incoming record: how many, and how many were matched confidently (rightly or not) */
  byKind: Record<IncomingKind, { count: number; confident: number; right: number }>;
  /**
   * calibration: the candidates kept, by the score band they fell in (CALIBRATION_BANDS), and how
   * many of them were the record's person (a score is a probability: about that share)
   */
  calibration: { from: number; to: number; candidates: number; right: number }[];
  /** a few wrong confident matches, to read */
  wrong: { record: IncomingRecord; picked: Person; score: number }[];
  ms: number;
}

/** Score bands for the calibration table: the caps' values each have their own. */
export const CALIBRATION_BANDS: readonly [number, number][] = [[0, 49], [50, 69], [70, 70], [71, 79], [80, 84], [85, 94], [95, 98], [99, 100]];

export function evaluateMatchAccuracy(options: AccuracyOptions): AccuracyResult {
  const crm = generatePeople(options.crmSize, options.seed);
  const incoming = generateIncoming(crm, options.incomingSize, options.seed + 1);
  const destinationFields = SANDBOX_CONSTITUENT_FIELDS;
  const { scenarios } = recommendedMatching({
    system: 'sandbox-crm', object: 'constituents', destinationFields, sourceFields: SOURCE_COLUMNS.map((name) => ({ name })),
  });
  const fields = SOURCE_COLUMNS.map((c) => COLUMN_FIELDS[c]);
  const destination = new InMemoryDestination(crm, destinationFields.filter((f) => f.searchable).map((f) => f.name));
  const people = new Map(crm.map((p) => [p.id, p]));

  const started = performance.now();
  const buckets: Record<MatchBucket, number> = { new: 0, 'one-to-one-match': 0, 'one-to-many-match': 0 };
  const byKind: AccuracyResult['byKind'] = {
    copy: { count: 0, confident: 0, right: 0 }, namesake: { count: 0, confident: 0, right: 0 },
    household: { count: 0, confident: 0, right: 0 }, stranger: { count: 0, confident: 0, right: 0 },
  };
  const review = { oneToOne: 0, oneToMany: 0 };
  const wrong: AccuracyResult['wrong'] = [];
  const byMess: AccuracyResult['byMess'] = {};
  const calibration = CALIBRATION_BANDS.map(([from, to]) => ({ from, to, candidates: 0, right: 0 }));
  let [existing, confident, truePositives, missedAsNew] = [0, 0, 0, 0];
  for (const record of incoming) {
    const row: Record<string, unknown> = record.values;
    const values: Record<string, FieldValue> = {};
    for (const column of SOURCE_COLUMNS) values[COLUMN_FIELDS[column]] = record.values[column];
    const decision = decideMatch({
      record: values, fields, hits: searchInTiers(destination, scenarios, row),
      autoPick: options.autoPick ?? [], discardBelow: options.discardBelow ?? null,
    });
    buckets[decision.bucket]++;
    for (const c of decision.candidates) {
      const band = calibration.find((b) => c.score >= b.from && c.score <= b.to)!;
      band.candidates++;
      if (c.id === record.truth) band.right++;
    }
    const kind = byKind[record.kind];
    kind.count++;
    if (record.truth) existing++;
    const right = decision.confident && decision.picked?.id === record.truth;
    const asNew = decision.bucket === 'new' && record.truth !== null;
    for (const m of record.mess) {
      const of = byMess[m] ??= { count: 0, right: 0, asNew: 0 };
      of.count++;
      if (right) of.right++;
      if (asNew) of.asNew++;
    }
    if (decision.confident && decision.picked) {
      confident++;
      kind.confident++;
      if (right) { truePositives++; kind.right++; } else if (wrong.length < 20) {
        wrong.push({ record, picked: people.get(decision.picked.id)!, score: decision.picked.score });
      }
    } else if (decision.bucket === 'one-to-one-match') review.oneToOne++;
    else if (decision.bucket === 'one-to-many-match') review.oneToMany++;
    else if (asNew) missedAsNew++;
  }
  return {
    scenarios, incoming: incoming.length, existing, confident, truePositives, falsePositives: confident - truePositives,
    precision: confident ? truePositives / confident : 1, recall: existing ? truePositives / existing : 1,
    review, buckets, missedAsNew, newShare: existing ? missedAsNew / existing : 0, byMess, byKind, calibration, wrong, ms: performance.now() - started,
  };
}

