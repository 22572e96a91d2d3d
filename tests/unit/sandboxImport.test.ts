/** Which CSV columns an import of constituents reads, and what the browser refuses before sending. */
import { describe, expect, it } from 'vitest';
import {
  checkImportFile, columnChoiceParam, columnChoiceProblem, importFieldOfHeader, parseColumnChoice, SANDBOX_IMPORT_FIELDS, suggestColumns,
} from '../../src/domain/sandboxImport.ts';
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

describe('the column choice', () => {
  it('suggests each field for the first column that names it, and leaves the rest out', () => {
    expect(suggestColumns(['Constituent ID', 'Surname', 'Lookup ID', 'Notes', 'Last name']).map((c) => c.field))
      .toEqual(['lookupId', 'lastName', null, null, null]);
    // what it suggests is always importable, or says why not
    expect(columnChoiceProblem(suggestColumns(['Surname', 'Email', 'E-mail']).map((c) => c.field))).toBeNull();
  });

  it('says what stands in the way: no last name, or one field for two columns', () => {
    expect(columnChoiceProblem(['firstName', null])).toBe('Choose the column that gives the last name: every constituent needs one.');
    expect(columnChoiceProblem(['lastName', 'email', 'email'])).toBe('Two columns give the Email: choose it for one column only.');
    expect(columnChoiceProblem([null, 'lastName'])).toBeNull();
  });

  it('travels as a comma-separated parameter and back, refusing a field it does not know', () => {
    const choice = ['lookupId', null, 'lastName', null] as const;
    expect(columnChoiceParam(choice)).toBe('lookupId,,lastName,');
    expect(parseColumnChoice(columnChoiceParam(choice))).toEqual(choice);
    expect(parseColumnChoice('lastName, email')).toEqual(['lastName', 'email']);
    expect(parseColumnChoice('lastName,constructor')).toBeNull();
    expect(parseColumnChoice('lastName,__proto__')).toBeNull();
  });
});
