/**
 * An export's header and rows as a person reads them (src/domain/api/exportService.ts exportHeader,
 * server/services/exports.ts exportRow): destination fields by their labels, the record's state
 * never headed like a US state, each record by its title and its file and line, and no cell a
 * spreadsheet would run, whatever a file was named or a record is called.
 */
import { describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS, exportHeader } from '../../src/domain/api/exportService.ts';
import { csvRow, parseCsv } from '../../src/domain/csv.ts';
import { fieldHeading } from '../../src/domain/formula/fieldHeading.ts';
import type { ExportRecord } from '../../server/db/repositories/recordExports.ts';
import { exportRow } from '../../server/services/exports.ts';

const LABELS = new Map([['email', 'E-mail'], ['state', 'State'], ['postalCode', 'Postal code']]);
const heading = (f: string) => LABELS.get(f) ?? fieldHeading(f);

describe('the export header', () => {
  it('heads destination fields by label, the record\'s state as Record state, source values by their column', () => {
    expect(exportHeader(['email', 'state', 'Donor_Level__c'], heading, ['Email', 'State'])).toEqual([
      'Record', 'Source', 'Record id', 'Destination record id', 'Bucket', 'Record state', 'Date added', 'Date processed',
      'Match reasons', 'Error reason', 'Error date', 'Score',
      'E-mail', 'State', 'Donor level', 'Source: Email', 'Source: State',
    ]);
  });

  it('never heads two columns alike: a repeated label also names its field', () => {
    const labels = new Map([['State', 'State'], ['MailingState', 'State'], ['Record__c', 'Record'], ['Score', 'Score']]);
    const header = exportHeader(['MailingState', 'Record__c', 'Score', 'State'], (f) => labels.get(f)!, ['State']);
    expect(header.slice(EXPORT_COLUMNS.length)).toEqual(['State (MailingState)', 'Record (Record__c)', 'Score (Score)', 'State (State)', 'Source: State']);
    expect(new Set(header.map((h) => h.toLowerCase())).size).toBe(header.length);
  });
});

const record = (over: Partial<ExportRecord>): ExportRecord => ({
  id: '0b7f3c9e-3a51-4c8e-9a65-2a9e1d6f4b10', sourceKey: 'spring-1.csv#2', destinationRecordId: null, bucket: 'new', customBucket: null,
  state: 'ready', dateAdded: '2026-11-20T10:00:00.000Z', dateProcessed: null, matchReasons: null, errorReason: null, errorDate: null,
  score: null, transformed: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.example', state: 'VA' }, ...over,
});
const ctx = (fileName: string | null = null) => ({ summaryFields: ['firstName', 'lastName', 'email'], facts: () => ({ fileName }) });

describe('an export row', () => {
  it('names the record and where it came from, then its fields and source values in the header\'s order', () => {
    const row = exportRow(record({ raw: { 'First name': 'grace', State: 'Virginia' } }), ['email', 'state'], ['First name', 'State'], ctx());
    const header = exportHeader(['email', 'state'], heading, ['First name', 'State']);
    expect(row).toHaveLength(header.length);
    const cells = Object.fromEntries(header.map((h, i) => [h, row[i]]));
    expect(cells).toMatchObject({
      Record: 'Grace Hopper · grace@navy.example', Source: 'spring-1.csv, line 2', Bucket: 'New', 'Record state': 'Ready', State: 'VA',
      'E-mail': 'grace@navy.example', 'Source: First name': 'grace', 'Source: State': 'Virginia',
    });
    // a custom bucket beside its bucket, in the same words
    const custom = exportRow(record({ bucket: 'exception', customBucket: 'Bad e-mail', state: 'failed' }), [], [], ctx());
    expect(custom.slice(4, 6)).toEqual(['Exception / Bad e-mail', 'Failed']);
  });

  it('titles a record with no transformed values by its source values, and names an uploaded file by its name', () => {
    const upload = '6f0d2a1e-9c4b-4e3f-8a7d-1b2c3d4e5f60';
    const [title, source] = exportRow(record({ transformed: null, raw: { firstName: 'Ada', lastName: 'Lovelace' }, sourceKey: `${upload}#7` }), [], [], ctx('autumn.csv'));
    expect([title, source]).toEqual(['Ada Lovelace', 'autumn.csv, line 7']);
  });

  it('neutralises a formula in an uploaded file\'s name and in a record\'s title', () => {
    const upload = '6f0d2a1e-9c4b-4e3f-8a7d-1b2c3d4e5f60';
    const evilFile = '=cmd|\' /C calc\'!A0.csv';
    const evil = record({ sourceKey: `${upload}#3`, transformed: { firstName: '@SUM(A1)', lastName: 'x', email: 'e@example.org' } });
    const [[title, source]] = parseCsv(csvRow(exportRow(evil, [], [], ctx(evilFile)))) as [string[]];
    expect(source).toBe(`'${evilFile}, line 3`);
    expect(title).toBe('\'@SUM(A1) x · e@example.org');
  });
});
