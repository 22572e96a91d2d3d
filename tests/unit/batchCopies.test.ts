/**
 * The same new person twice in one batch: a later record that a scenario would find from an
 * earlier one, and that matches it confidently, is its copy; a namesake, a shared e-mail with
 * another name, or a record no scenario would find from the other is not. In the engine, a record
 * read twice is no copy of itself, and reprocessing keeps a copy whose first is still to be sent.
 */
import { describe, expect, it } from 'vitest';
import { copiesInBatch, type NewInBatch } from '../../src/domain/formula/batchCopies.ts';
import type { SearchScenario } from '../../src/domain/formula/parts.ts';
import type { Connector } from '../../server/connectors/connector.ts';
import type { FormulaPlan } from '../../server/engine/plan.ts';
import { processAgain, processBatch } from '../../server/engine/process.ts';

const scenarios: SearchScenario[] = [
  { name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true },
  {
    name: 'Last name and postal code', criteria: [{ source: 'Last', destination: 'lastName' }, { source: 'Zip', destination: 'postalCode' }],
    matchReason: 'Same last name and postal code', isPrimary: false,
  },
];
const fields = ['firstName', 'lastName', 'email', 'postalCode', 'addressLine1'];

function person(first: string, last: string, email: string, zip = '', street = ''): NewInBatch {
  return {
    raw: { First: first, Last: last, Email: email, Zip: zip, Street: street },
    values: { firstName: first, lastName: last, email, postalCode: zip, addressLine1: street },
  };
}

describe('copies in a batch', () => {
  it('finds the second registration of one person, with the e-mail in another case, and points every copy at the first', () => {
    const copies = copiesInBatch([
      person('Ada', 'Lovelace', 'ada@example.org'),
      person('Grace', 'Hopper', 'grace@example.org'),
      person('Ada', 'Lovelace', 'ADA@example.org'),
      person('ada', 'lovelace', 'ada@example.org'),
    ], scenarios, fields);
    expect(copies.map((c) => c?.index ?? null)).toEqual([null, null, 0, 0]);
    expect(copies[2]!.score).toBeGreaterThanOrEqual(85);
  });

  it('finds a nickname at the same street and postal code through a secondary scenario', () => {
    const copies = copiesInBatch([
      person('William', 'Smith', '', '02139', '12 Elm Street'),
      person('Bill', 'Smith', '', '02139-4307', '12 Elm St'),
    ], scenarios, fields);
    expect(copies[1]).toMatchObject({ index: 0 });
  });

  it('leaves namesakes, another name at one e-mail, and records no scenario connects', () => {
    const copies = copiesInBatch([
      person('John', 'Smith', 'john.smith@example.org', '02139'),
      // the same name and postal code, another e-mail: a name alone is never enough
      person('John', 'Smith', 'jsmith@example.net', '02139'),
      // a family sharing an e-mail
      person('Mary', 'Smith', 'john.smith@example.org', '02139'),
      // the same person, but no scenario would find one from the other (no e-mail, no postal code)
      person('John', 'Smith', ''),
    ], scenarios, fields);
    expect(copies).toEqual([null, null, null, null]);
  });

  it('considers only the records that would be created', () => {
    const copies = copiesInBatch([null, person('Ada', 'Lovelace', 'ada@example.org'), null, person('Ada', 'Lovelace', 'ada@example.org')], scenarios, fields);
    expect(copies.map((c) => c?.index ?? null)).toEqual([null, null, null, 1]);
  });
});

describe('copies in the engine (processBatch and processAgain, against a fake destination that holds no one)', () => {
  const destination = { system: 'sandbox-crm', searchMany: async (_ctx: unknown, _object: string, queries: unknown[]) => queries.map(() => []) } as Partial<Connector> as Connector;
  function plan(unsent: Set<string> = new Set()): FormulaPlan {
    return {
      destination: { system: 'sandbox-crm', connector: destination, ctx: {} as never, object: 'constituents', settings: {} },
      mapping: { fields: [{ destination: 'firstName', kind: 'source', source: 'First' }, { destination: 'lastName', kind: 'source', source: 'Last' }, { destination: 'email', kind: 'source', source: 'Email' }] },
      transform: null, validation: null,
      matching: { scenarios: [scenarios[0]!], advanced: false, autoPick: [] },
      routing: { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
      schedule: null, autosend: true, mappedFields: ['firstName', 'lastName', 'email'], references: [],
      formula: { id: 'f1' },
      // no earlier batch: this destination and this formula hold no one yet
      tenant: { records: { unsentNew: async (_f: string, keys: string[]) => new Set(keys.filter((k) => unsent.has(k))), firstsByCopyKeys: async () => [] } },
    } as unknown as FormulaPlan;
  }
  const ada = { First: 'Ada', Last: 'Lovelace', Email: 'ada@example.org' };

  it('holds the second registration, but never makes a record read twice a copy of itself', async () => {
    const out = await processBatch(plan(), [{ sourceKey: 'a', raw: ada }, { sourceKey: 'b', raw: { ...ada, Email: 'ADA@example.org' } }, { sourceKey: 'c', raw: { First: 'Cy', Last: 'Ng', Email: 'cy@example.org' } }, { sourceKey: 'c', raw: { First: 'Cy', Last: 'Ng', Email: 'cy@example.org' } }]);
    expect(out.map((r) => [r.sourceKey, r.state, (r.matching?.copyOf as { sourceKey: string } | undefined)?.sourceKey ?? null])).toEqual([
      ['a', 'ready', null], ['b', 'needs-attention', 'a'], ['c', 'ready', null], ['c', 'ready', null],
    ]);
    expect(out[1]!.matching!.routeReason).toBe('Same person as a in the same batch: matched again once that record is sent');
  });

  it('reprocessing keeps a copy whose first is on another page and still to be sent, and lets go of one whose first is gone', async () => {
    const held = [{ id: 'r2', sourceKey: 'b', raw: ada, matching: { copyOf: { sourceKey: 'a', score: 100 } } }];
    const [kept] = await processAgain(plan(new Set(['a'])), held, { keepCopies: true });
    expect(kept).toMatchObject({ id: 'r2', bucket: 'new', state: 'needs-attention', matching: { copyOf: { sourceKey: 'a', score: 100 } } });
    const [free] = await processAgain(plan(), held, { keepCopies: true });
    expect(free).toMatchObject({ id: 'r2', bucket: 'new', state: 'ready' });
    expect(free!.matching).not.toHaveProperty('copyOf');
    // matched again because its first was sent: no longer a copy, whatever the first's state
    const [again] = await processAgain(plan(new Set(['a'])), held, { keepCopies: false });
    expect(again!.matching).not.toHaveProperty('copyOf');
  });
});
