/** Excel workbooks through parseTabular: the streaming .xlsx reader and SheetJS for .xls. */
import { describe, expect, it } from 'vitest';
import * as XLSX from '@e965/xlsx';
import { columnIndex, excelSerialToIso, isDateFormat } from '../../server/connectors/flatFile/excel.ts';
import { FlatFileError, parseTabular } from '../../server/connectors/flatFile/tabular.ts';
import { SAMPLE_ROWS } from '../../src/domain/upload.ts';
import { workbook } from '../support/flatFiles.ts';

const BOOKS = [['xlsx', 'gifts.xlsx'], ['biff8', 'gifts.xls']] as const;

async function refusal(promise: Promise<unknown>): Promise<FlatFileError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(FlatFileError);
  return err as FlatFileError;
}

describe.each(BOOKS)('%s workbooks', (bookType, fileName) => {
  it('reads the header and typed cells of the first sheet: text, numbers, dates, booleans', async () => {
    for (const sharedStrings of [false, true]) {
      const rows = [
        ['Name', 'Gift', 'Given on', 'Gift Aid'],
        ['Zoë', 10.5, new Date(Date.UTC(2024, 0, 15)), true],
        ['Bob', 3, new Date(Date.UTC(2024, 1, 1, 12, 30)), false],
      ];
      const r = await parseTabular(workbook(rows, bookType, { sharedStrings }), { fileName });
      expect(r).toMatchObject({
        kind: bookType === 'xlsx' ? 'xlsx' : 'xls',
        headers: ['Name', 'Gift', 'Given on', 'Gift Aid'],
        sampleRows: [['Zoë', '10.5', '2024-01-15', 'TRUE'], ['Bob', '3', '2024-02-01T12:30:00', 'FALSE']],
        rowCount: 2,
      });
    }
  });

  it('keeps 20 sample rows, counts them all, and skips blank rows (also before the header)', async () => {
    const rows: unknown[][] = [[], ['Email', 'Amount']];
    for (let i = 1; i <= 120; i++) rows.push(i === 50 ? [] : [`p${i}@example.org`, i]);
    const r = await parseTabular(workbook(rows, bookType, { sharedStrings: true }), { fileName });
    expect(r.headers).toEqual(['Email', 'Amount']);
    expect(r.sampleRows).toHaveLength(SAMPLE_ROWS);
    expect(r.sampleRows[19]).toEqual(['p20@example.org', '20']);
    expect(r.rowCount).toBe(119);
  });

  it('refuses duplicate headers, a missing header and a value under no header', async () => {
    expect((await refusal(parseTabular(workbook([['A', 'a'], [1, 2]], bookType), { fileName }))).outcome).toBe('wrong-structure');
    expect((await refusal(parseTabular(workbook([['A', null, 'C'], [1, 2, 3]], bookType), { fileName }))).message).toBe('Column 2 has no header.');
    const wide = await refusal(parseTabular(workbook([['A', 'B'], [1, 2, 3]], bookType), { fileName }));
    expect([wide.outcome, wide.message]).toEqual(['wrong-structure', 'Row 2 has a value in column 3, which has no header.']);
  });

  it('calls a sheet with no cells, or only a header, empty', async () => {
    expect((await refusal(parseTabular(workbook([], bookType), { fileName }))).outcome).toBe('empty');
    expect((await refusal(parseTabular(workbook([['Name', 'Email']], bookType), { fileName }))).outcome).toBe('empty');
  });
});

describe('xlsx specifics', () => {
  it('finds a value under no header in a row after the sample', async () => {
    const rows: unknown[][] = [['A', 'B']];
    for (let i = 0; i < 40; i++) rows.push([i, i]);
    rows.push([1, 2, 'stray']);
    const err = await refusal(parseTabular(workbook(rows, 'xlsx'), { fileName: 'a.xlsx' }));
    expect(err.message).toBe('Row 42 has a value in column 3, which has no header.');
  });

  it('reads a sheet of 30,000 rows without keeping it: only the sample and the count', async () => {
    const rows: unknown[][] = [['Id', 'Name', 'Amount']];
    for (let i = 1; i <= 30_000; i++) rows.push([i, `Name ${i}`, i * 1.5]);
    const r = await parseTabular(workbook(rows, 'xlsx', { sharedStrings: true }), { fileName: 'big.xlsx' });
    expect(r.rowCount).toBe(30_000);
    expect(r.sampleRows.at(-1)).toEqual(['20', 'Name 20', '30']);
  });

  it('refuses a ZIP that is not a workbook, and a damaged one, with the parser\'s own errors', async () => {
    const zip = workbook([['a'], [1]], 'xlsx');
    const renamed = Buffer.from(zip.toString('latin1').replaceAll('xl/workbook.xml', 'xl/workbook.xmm'), 'latin1');
    expect((await refusal(parseTabular(renamed, { fileName: 'a.xlsx' }))).outcome).toBe('unsupported-type');
    const truncated = zip.subarray(0, Math.floor(zip.length / 2));
    expect(['unsupported-type', 'wrong-structure']).toContain((await refusal(parseTabular(truncated, { fileName: 'a.xlsx' }))).outcome);
  });

  it('reads dates of a 1904-based workbook', async () => {
    const wb = XLSX.utils.book_new();
    wb.Workbook = { WBProps: { date1904: true } };
    XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet([['When'], [new Date(Date.UTC(2024, 0, 15))]], { cellDates: true }), 'S');
    const buf = XLSX.write(wb, { type: 'buffer', bookType: 'xlsx' }) as Buffer;
    expect((await parseTabular(buf, { fileName: 'a.xlsx' })).sampleRows).toEqual([['2024-01-15']]);
  });
});

describe('xls specifics', () => {
  it('refuses an OLE2 file that holds no workbook (a Word 97 document)', async () => {
    const cfb = XLSX.CFB.utils.cfb_new();
    XLSX.CFB.utils.cfb_add(cfb, '/WordDocument', Buffer.from('not a workbook'));
    const doc = Buffer.from(XLSX.CFB.write(cfb, { type: 'buffer' }) as Uint8Array);
    const err = await refusal(parseTabular(doc, { fileName: 'letter.xls' }));
    expect([err.outcome, err.message]).toEqual(['unsupported-type', 'The file is an Office document, not an Excel workbook.']);
  });
});

describe('cells', () => {
  it('turns Excel serial dates into ISO 8601', () => {
    expect(excelSerialToIso(45306)).toBe('2024-01-15');
    expect(excelSerialToIso(45306.5)).toBe('2024-01-15T12:00:00');
    expect(excelSerialToIso(0.25)).toBe('06:00:00');
    expect(excelSerialToIso(1)).toBe('1900-01-01');
    expect(excelSerialToIso(61)).toBe('1900-03-01');
    expect(excelSerialToIso(43844, true)).toBe('2024-01-15');
  });

  it('knows date formats from number formats', () => {
    for (const f of ['yyyy-mm-dd', 'd/m/yy', '[$-409]mmmm d, yyyy', 'h:mm AM/PM', '[h]:mm:ss']) expect(isDateFormat(f), f).toBe(true);
    for (const f of ['General', '0.00', '#,##0 "days"', '[Red]0.00', '0.00E+00', '"Date:" @']) expect(isDateFormat(f), f).toBe(false);
  });

  it('reads column letters', () => {
    expect(['A1', 'Z9', 'AA10', 'XFD1', '12'].map(columnIndex)).toEqual([0, 25, 26, 16383, -1]);
  });
});
