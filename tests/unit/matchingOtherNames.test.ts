/**
 * A destination record's preferred and middle names (the Sandbox CRM keeps both) count as
 * nicknames of its first name: a record under the name a person goes by matches them as a
 * nickname would, and no longer reads as a different person.
 */
import { describe, expect, it } from 'vitest';
import { CONFIDENT_MATCH_SCORE, NAME_CONFLICT_CAP, scoreCandidate } from '../../src/domain/formula/matchScore.ts';

const FIELDS = ['firstName', 'lastName', 'email'];
const record = (firstName: string) => ({ firstName, lastName: 'Park', email: 'sunny.park@example.org' });
const constituent = (other: Record<string, string>) => ({ firstName: 'Sun-hee', lastName: 'Park', email: 'sunny.park@example.org', ...other });

describe('preferred and middle names in matching', () => {
  it('takes a first name that is the preferred name as a nickname', () => {
    expect(scoreCandidate(record('Sunny'), constituent({}), FIELDS).score).toBeLessThanOrEqual(NAME_CONFLICT_CAP);
    const known = scoreCandidate(record('Sunny'), constituent({ preferredName: 'Sunny' }), FIELDS);
    expect(known.score).toBeGreaterThanOrEqual(CONFIDENT_MATCH_SCORE);
    expect(known.compared.find((c) => c.field === 'firstName')?.similarity).toBe(0.9);
  });

  it('takes the middle name (or a nickname of it) as one too', () => {
    expect(scoreCandidate(record('Scott'), constituent({ firstName: 'F.', middleName: 'Scott' }), FIELDS).score).toBeGreaterThanOrEqual(CONFIDENT_MATCH_SCORE);
    expect(scoreCandidate(record('Beth'), constituent({ firstName: 'Mary', middleName: 'Elizabeth' }), FIELDS).score).toBeGreaterThanOrEqual(CONFIDENT_MATCH_SCORE);
  });

  it('leaves a first name that agrees with none of them a different name', () => {
    expect(scoreCandidate(record('Jin'), constituent({ preferredName: 'Sunny', middleName: 'Mi' }), FIELDS).score).toBeLessThanOrEqual(NAME_CONFLICT_CAP);
    // an initial of the middle name says too little
    expect(scoreCandidate(record('S'), constituent({ firstName: 'Mary', middleName: 'Sue' }), FIELDS).compared.find((c) => c.field === 'firstName')?.similarity).toBeLessThan(0.9);
  });
});
