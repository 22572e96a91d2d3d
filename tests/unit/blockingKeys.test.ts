import { describe, expect, it } from 'vitest';
import { blockingKeys, houseAndStreet, soundex } from '../../src/domain/formula/blockingKeys.ts';
import { matchKey } from '../../src/domain/formula/matchKeys.ts';

const keysOf = (v: { firstName?: string; lastName?: string; email?: string; phone?: string; postalCode?: string; addressLine1?: string }) => ({
  email: matchKey('email', v.email), phone: matchKey('phone', v.phone), firstName: matchKey('firstName', v.firstName),
  lastName: matchKey('lastName', v.lastName), postalCode: matchKey('postalCode', v.postalCode), addressLine1: matchKey('addressLine1', v.addressLine1),
});

describe('blocking keys', () => {
  it('codes last names by Soundex', () => {
    expect(['robert', 'rupert', 'ashcraft', 'tymczak', 'pfister', 'lee'].map(soundex)).toEqual(['r163', 'r163', 'a261', 't522', 'p236', 'l000']);
  });

  it('reads a house number and street from an address key', () => {
    expect(houseAndStreet(matchKey('addressLine1', '12 Main St. Apt 4')!)).toEqual({ house: '12', street: 'main' });
    expect(houseAndStreet(matchKey('addressLine1', 'PO Box 9')!)).toBeNull();
  });

  it('gives a record and the same person with first and last name swapped one name key', () => {
    const a = blockingKeys(keysOf({ firstName: 'Maria', lastName: 'Gonzalez' }));
    const b = blockingKeys(keysOf({ firstName: 'Gonzalez', lastName: 'Maria' }));
    expect(a.filter((k) => b.includes(k))).toEqual(['n:gonzalez|maria']);
  });

  it('gives every key its fields imply, and none from blank ones', () => {
    const person = { firstName: 'Bill', lastName: "O'Neill", email: 'Bill.ONeill@Example.org', phone: '(212) 555-0199', postalCode: '10001-2345', addressLine1: '5 Main St Apt 4' };
    expect(blockingKeys({ ...keysOf(person), lookupId: 'c-12' })).toEqual([
      'e:bill.oneill@example.org', 'm:bill.oneill', 'p:2125550199', 'n:oneill|william', 'z:o540|10001', 'f:william|10001|5', 'a:5|main|10001', 'd:5mainstreetunit4', 'l:c-12',
    ]);
    expect(blockingKeys(keysOf({ lastName: 'Smith' }))).toEqual([]);
  });
});
