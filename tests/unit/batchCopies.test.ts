/**
 * The same new person twice in one batch: a later record that a scenario would find from an
 * earlier one, and that matches it confidently, is its copy; a namesake, a shared e-mail with
 * another name, or a record no scenario would find from the other is not.
 */
import { describe, expect, it } from 'vitest';
import { copiesInBatch, type NewInBatch } from '../../src/domain/formula/batchCopies.ts';
import type { SearchScenario } from '../../src/domain/formula/parts.ts';

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
