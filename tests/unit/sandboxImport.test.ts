/** Which CSV columns an import of constituents reads, and what the browser refuses before sending. */
import { describe, expect, it } from 'vitest';
import { checkImportFile, importFieldOfHeader, SANDBOX_IMPORT_FIELDS } from '../../src/domain/sandboxImport.ts';
import { MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';

describe('import columns', () => {
  it.each([
    ['First Name', 'firstName'], ['first_name', 'firstName'], ['Given name', 'firstName'],
    ['Last Name', 'lastName'], ['SURNAME', 'lastName'], ['Family-Name', 'lastName'],
    ['E-mail', 'email'], ['Email Address', 'email'], ['Mobile', 'phone'], ['Phone Number', 'phone'], ['Tel', 'phone'],
    ['Address', 'addressLine1'], ['Street Address', 'addressLine1'], ['Address Line 1', 'addressLine1'], ['Address 2', 'addressLine2'],
    ['Town', 'city'], ['Province', 'state'], ['ZIP', 'postalCode'], ['Zip Code', 'postalCode'], ['Postcode', 'postalCode'],
    ['Country', 'country'], ['Salutation', 'title'], ['Lookup ID', 'lookupId'], ['Constituent ID', 'lookupId'],
  ])('reads %s as %s', (header, field) => expect(importFieldOfHeader(header)).toBe(field));

  it('leaves other columns out', () => {
    for (const header of ['Notes', 'Amount', 'Gift date', 'id', 'St', '']) expect(importFieldOfHeader(header), header).toBeNull();
  });

  it('reads each field by its own name', () => {
    for (const field of SANDBOX_IMPORT_FIELDS) expect(importFieldOfHeader(field)).toBe(field);
  });
});

describe('files the browser refuses', () => {
  it('takes only a .csv of at most 15MB with something in it', () => {
    expect(checkImportFile({ name: 'donors.CSV', size: 10 })).toBeNull();
    expect(checkImportFile({ name: 'donors.csv', size: MAX_UPLOAD_BYTES })).toBeNull();
    expect(checkImportFile({ name: 'donors.xlsx', size: 10 })).toBe('not-csv');
    expect(checkImportFile({ name: 'donors', size: 10 })).toBe('not-csv');
    expect(checkImportFile({ name: 'donors.csv', size: MAX_UPLOAD_BYTES + 1 })).toBe('too-big');
    expect(checkImportFile({ name: 'donors.csv', size: 0 })).toBe('empty');
  });
});
