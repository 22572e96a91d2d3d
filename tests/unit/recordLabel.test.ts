/** A record as a person knows it: its name from the summary fields, its file and line, a destination record's own id. */
import { describe, expect, it } from 'vitest';
import {
  destinationName, destinationOwnId, namedCopyReason, recordLabel, recordTitle, RECORD_TITLE_MAX, sourcePosition, uploadOfKey,
} from '../../src/domain/formula/recordLabel.ts';

const UPLOAD = '45349fc5-4d2a-4354-a1f2-25b85b4130b1';

describe('a record title', () => {
  it('reads the summary fields in order, a name as one part', () => {
    expect(recordTitle(['firstName', 'lastName', 'email'], { firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.example' }))
      .toBe('Grace Hopper · grace@navy.example');
    expect(recordTitle(['email', 'FirstName', 'LastName'], { email: 'a@b.example', FirstName: 'Ada', LastName: 'Lovelace' }))
      .toBe('a@b.example · Ada Lovelace');
  });
  it('leaves blank values out, and numbers in', () => {
    expect(recordTitle(['firstName', 'lastName', 'amount'], { firstName: '  ', lastName: 'Hopper', amount: 25 })).toBe('Hopper · 25');
  });
  it('falls back to the fields that usually name a record, then to nothing', () => {
    expect(recordTitle([], { firstName: 'Grace', lastName: 'Hopper', phone: '555' })).toBe('Grace Hopper');
    expect(recordTitle(['email'], { email: '', Name: 'Acme Trust' })).toBe('Acme Trust');
    expect(recordTitle(['email'], { email: null })).toBeNull();
    expect(recordTitle(['email'], null)).toBeNull();
  });
  it('is cut when very long', () => {
    const title = recordTitle(['note'], { note: 'x'.repeat(500) })!;
    expect(title).toHaveLength(RECORD_TITLE_MAX);
    expect(title.endsWith('…')).toBe(true);
  });
});

describe('a source position', () => {
  it('names an upload by its file and line', () => {
    expect(sourcePosition(`${UPLOAD}#183`, { fileName: 'supporters-spring-2026.csv' })).toBe('supporters-spring-2026.csv, line 183');
    expect(sourcePosition(`${UPLOAD}#2`)).toBe('Uploaded file, line 2');
    expect(uploadOfKey(`${UPLOAD}#2`)).toBe(UPLOAD);
  });
  it("names a row's gift by its row (one row, two objects)", () => {
    expect(sourcePosition(`${UPLOAD}#2#gift`, { fileName: 'spring-gifts.csv' })).toBe('spring-gifts.csv, line 2, its gift');
    expect(uploadOfKey(`${UPLOAD}#2#gift`)).toBe(UPLOAD);
    expect(sourcePosition('spring-1.csv#7#gift')).toBe('spring-1.csv, line 7, its gift');
  });
  it('names a folder file by its name, not its path', () => {
    expect(sourcePosition('spring-1.csv#2')).toBe('spring-1.csv, line 2');
    expect(sourcePosition('in/2026/spring #1.csv#14')).toBe('spring #1.csv, line 14');
    expect(uploadOfKey('spring-1.csv#2')).toBeNull();
  });
  it("falls back to the source system's id", () => {
    expect(sourcePosition('0035g00000AbCdEAAZ', { system: 'Salesforce' })).toBe('Salesforce ID 0035g00000AbCdEAAZ');
    expect(sourcePosition('abc#def')).toBe('Source ID abc#def');
  });
  it('joins with the title in a sentence', () => {
    expect(recordLabel('Grace Hopper', 'spring-1.csv, line 2')).toBe('Grace Hopper (spring-1.csv, line 2)');
    expect(recordLabel(null, 'spring-1.csv, line 2')).toBe('spring-1.csv, line 2');
    expect(namedCopyReason(`Same person as ${UPLOAD}#115 in the same batch`, `${UPLOAD}#115`, 'Grace Hopper (spring-1.csv, line 115)'))
      .toBe('Same person as Grace Hopper (spring-1.csv, line 115) in the same batch');
  });
});

describe("a destination record's own id", () => {
  it('is the lookup id where the destination keeps one, the Salesforce Id for Salesforce', () => {
    expect(destinationOwnId('sandbox-crm', 'c96bfb10-0000-4000-8000-000000000001', { lookupId: 'SC-000619' })).toEqual({ label: 'Lookup ID', value: 'SC-000619' });
    expect(destinationOwnId('renxt', '280', { lookupId: '96' })).toEqual({ label: 'Lookup ID', value: '96' });
    expect(destinationOwnId('salesforce', '0035g00000AbCdEAAZ', { Email: 'x@y.example' })).toEqual({ label: 'Salesforce Id', value: '0035g00000AbCdEAAZ' });
    expect(destinationOwnId('hubspot', '101', {})).toBeNull();
  });
  it('names a destination record by its title and own id, two of one name apart; by its id only without either', () => {
    expect(destinationName({ id: 'a', title: 'Ada Lovelace', ownId: { label: 'Lookup ID', value: 'SC-000619' } })).toBe('Ada Lovelace · Lookup ID SC-000619');
    expect(destinationName({ id: 'b', title: 'Ada Lovelace', ownId: { label: 'Lookup ID', value: 'SC-000620' } })).toBe('Ada Lovelace · Lookup ID SC-000620');
    expect(destinationName({ id: 'c', title: null, ownId: { label: 'Salesforce Id', value: '003x' } })).toBe('Salesforce Id 003x');
    expect(destinationName({ id: 'd', title: null, ownId: null })).toBe('d');
  });
});
