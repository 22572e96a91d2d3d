/** Match Search looks for one query in the fields it can be a value of, and skips the others. */
import { describe, expect, it } from 'vitest';
import { matchSearchFields } from '../../src/domain/records/matchSearch.ts';

const CONSTITUENT = [
  { name: 'lastName', type: 'string' }, { name: 'email', type: 'email' }, { name: 'phone', type: 'phone' }, { name: 'city', type: 'string' },
] as const;
const GIFT = [{ name: 'fund', type: 'string' }, { name: 'amount', type: 'number' }, { name: 'date', type: 'date' }] as const;

describe('the fields a Match Search query applies to', () => {
  it.each([
    ['Lovelace', ['lastName', 'email', 'city']],
    ['ada@example.org', ['lastName', 'email', 'city']],
    ['Leeds', ['lastName', 'email', 'city']],
    ['123 Main St', ['lastName', 'email', 'city']],
    ['(555) 022-3514', ['lastName', 'email', 'phone', 'city']],
    ['+44 113 496 0000', ['lastName', 'email', 'phone', 'city']],
  ])('constituents: %s', (q, fields) => { expect(matchSearchFields(CONSTITUENT, q)).toEqual(fields); });

  it.each([
    ['Spring appeal', ['fund']],
    ['250', ['fund', 'amount']],
    ['2026-11-19', ['fund', 'date']],
    ['2026-02-31', ['fund']],
  ])('gifts: %s', (q, fields) => { expect(matchSearchFields(GIFT, q)).toEqual(fields); });
});
