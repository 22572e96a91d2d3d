/**
 * The candidate index's own structures (server/engine/candidateIndex.ts), without a database: over
 * 4,000 synthetic constituents (households and namesakes share keys, so keys hold one record
 * or long lists), changed and replaced records, and values of every kind, each equals search answers
 * exactly what reading every record would: the same records, in the destination's order, to the
 * limit. tests/api/candidateIndex.test.ts checks the same answers against the Sandbox CRM's search.
 */
import { describe, expect, it } from 'vitest';
import { matchKey, type KeyKind } from '../../src/domain/formula/matchKeys.ts';
import type { IndexedRecord, SearchQuery, SourceRecord } from '../../server/connectors/connector.ts';
import { CandidateIndex } from '../../server/engine/candidateIndex.ts';
import { personAsConstituent } from '../support/sandboxBulk.ts';
import { createRng, generateIncoming, generatePeople } from '../support/syntheticPeople.ts';

const KEYED: Record<string, KeyKind> = { email: 'email', phone: 'phone', firstName: 'firstName', lastName: 'lastName', postalCode: 'postalCode', addressLine1: 'addressLine1' };
const ORDER = ['lastName', 'firstName'];
const source = { keyed: KEYED, lookupField: 'lookupId', order: ORDER };
/** which fields repeat is decided after this many records, well inside the 4,000 */
const opts = { dictionarySample: 500 };

const recordOf = (i: number, p: ReturnType<typeof generatePeople>[number], extra: Record<string, unknown> = {}): IndexedRecord => {
  const c = personAsConstituent(p);
  return {
    id: `0190c5a0-0000-7000-8000-${String(i).padStart(12, '0')}`,
    fields: {
      lookupId: c.lookupId, firstName: c.firstName, lastName: c.lastName, email: c.email || null, phone: c.phone || null,
      addressLine1: c.addressLine1, city: c.city, state: c.state, postalCode: c.postalCode, country: c.country,
      createdOn: new Date(Date.UTC(2020, 0, 1) + i * 61_000).toISOString(), modifiedOn: '2026-11-28T03:00:00.000Z', ...extra,
    },
  };
};

/** What the destination answers, by reading every record: the reference the index must equal. */
function readEverything(records: Map<string, IndexedRecord>, queries: SearchQuery[]): SourceRecord[][] {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v).toLowerCase());
  // each record's compared form once: its match keys, its other fields in lower case
  const compared = [...records.values()].map((r) => ({
    r, by: Object.fromEntries(Object.entries(r.fields).map(([f, v]) => [f, KEYED[f] ? matchKey(KEYED[f], v) : text(v)])),
  }));
  return queries.map((q) => {
    const wanted = q.criteria.map((c) => [c.field, KEYED[c.field] ? matchKey(KEYED[c.field]!, c.value.trim()) : c.value.trim().toLowerCase()] as const);
    const found = compared.filter(({ by }) => wanted.every(([f, w]) => w !== null && by[f] === w)).map(({ r }) => r);
    found.sort((a, b) => {
      for (const f of ORDER) {
        const [x, y] = [a.fields[f] as string | null, b.fields[f] as string | null];
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return x < y ? -1 : 1;
      }
      return a.id < b.id ? -1 : 1;
    });
    return found.slice(0, q.limit ?? 25).map((r) => ({ id: r.id, fields: r.fields }));
  });
}

/** The recommended scenarios' searches for incoming rows, and some by lookup id and by text fields. */
function queriesOf(rows: Record<string, string>[]): SearchQuery[] {
  const eq = (pairs: [string, string][], limit = 25): SearchQuery => ({ criteria: pairs.map(([field, value]) => ({ field, operator: 'equals', value })), limit });
  return rows.flatMap((r) => [
    eq([['email', r.Email!]]),
    eq([['lastName', r['Last Name']!], ['postalCode', r.ZIP!]]),
    eq([['lastName', r['Last Name']!], ['postalCode', r.ZIP!]], 3),
    eq([['phone', r.Phone!]]),
    eq([['firstName', r['First Name']!], ['lastName', r['Last Name']!], ['addressLine1', r.Address!]]),
    eq([['addressLine1', r.Address!], ['postalCode', r.ZIP!]]),
    eq([['firstName', r['Last Name']!], ['lastName', r['First Name']!], ['postalCode', r.ZIP!]]),
    eq([['firstName', r['First Name']!], ['lastName', r['Last Name']!], ['city', r.City!]]),
    eq([['firstName', r['First Name']!], ['lastName', r['Last Name']!], ['state', r.State!]], 100),
  ]).filter((q) => q.criteria.every((c) => c.value.trim()));
}

describe('the candidate index', () => {
  const people = generatePeople(4000, 11);
  const rows = generateIncoming(people, 400, 12).map((r) => r.values as Record<string, string>);

  it('answers every search as reading every record would, through changes, replacements and removals from keys', () => {
    const index = new CandidateIndex(source, opts);
    const records = new Map<string, IndexedRecord>();
    people.forEach((p, i) => { const r = recordOf(i, p); records.set(r.id, r); index.put(r, true); });
    const queries = queriesOf(rows);
    const check = () => {
      const answers = index.searchMany(queries);
      const expected = readEverything(records, queries);
      queries.forEach((q, k) => expect(answers[k], JSON.stringify(q)).toEqual(expected[k]));
    };
    check();
    expect(queries.length).toBeGreaterThan(3000);

    // a third of the records change: a new e-mail or name, a move, a field blanked; some twice
    const rng = createRng(13);
    const ids = [...records.keys()];
    for (let n = 0; n < 2000; n++) {
      const id = ids[Math.floor(rng() * ids.length)]!;
      const was = records.get(id)!;
      const other = people[Math.floor(rng() * people.length)]!;
      const change = [
        { email: `moved${n}@example.org` }, { lastName: other.lastName }, { firstName: other.firstName },
        { addressLine1: other.addressLine1, postalCode: other.postalCode, city: other.city }, { phone: null }, { email: null, lookupId: `L-${n}` },
      ][n % 6]!;
      const now = { id, fields: { ...was.fields, ...change, modifiedOn: new Date(Date.UTC(2026, 10, 28) + n).toISOString() } };
      records.set(id, now);
      index.put(now);
    }
    // the same record again changes nothing
    index.put(records.get(ids[0]!)!);
    expect(index.size).toBe(people.length);
    expect(index.deadSlots).toBeGreaterThan(1500);
    check();
    // records are kept in a compact form: that of the original has grown nothing
    expect(index.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it('gives back every value as it was put: text with any character, numbers, flags, objects and times', () => {
    const index = new CandidateIndex(source, opts);
    const odd: Record<string, unknown>[] = [
      { note: 'a\u0000b', count: 3, flag: true, nested: { a: [1, 'x'] }, when: '2026-11-28T03:00:00.000Z' },
      { note: 'n', count: 0, flag: false, nested: null, when: '1969-12-31T23:59:59.000Z' },
      { note: '', count: -1.5, flag: null, nested: [], when: '2026-02-30T00:00:00.000Z' },
      { note: 'sÉ 𝄞 \t"quoted"', count: null, flag: 'true', nested: 'j{}', when: '2026-11-28T03:00:00Z' },
    ];
    odd.forEach((extra, i) => index.put({ ...recordOf(i, people[i]!, extra), keys: undefined }, true));
    const answers = index.searchMany(odd.map((_, i) => ({ criteria: [{ field: 'lookupId', value: people[i]!.id }] })));
    answers.forEach((a, i) => expect(a).toEqual([{ id: recordOf(i, people[i]!).id, fields: recordOf(i, people[i]!, odd[i]).fields }]));
  });

  it('leaves a search no blocking key serves, or not by equals, to the destination', () => {
    const index = new CandidateIndex(source, opts);
    people.slice(0, 50).forEach((p, i) => index.put(recordOf(i, p), true));
    expect(index.searchMany([
      { criteria: [{ field: 'city', value: people[0]!.city }] },
      { criteria: [{ field: 'email', operator: 'contains', value: 'a' }] },
      { criteria: [{ field: 'nickname', value: 'x' }, { field: 'email', value: people[0]!.email }] },
    ])).toEqual([null, null, null]);
    // a blank or keyless value finds nothing, without asking anyone
    expect(index.searchMany([{ criteria: [{ field: 'email', value: '  ' }] }, { criteria: [{ field: 'phone', value: '12' }] }])).toEqual([[], []]);
  });
});
