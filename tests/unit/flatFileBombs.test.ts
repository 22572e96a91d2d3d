/**
 * Excel bombs (README "File upload"; server/connectors/flatFile/limits.ts, workbookReader.ts):
 * small workbooks, built here at test time, that inflate to hundreds of megabytes, lie about their
 * sizes, loop, or keep SheetJS busy for minutes. Each is refused with a FlatFileError; the time
 * each refusal took is printed. The bounds on time are hang detectors, not measurements
 * (`npm run bench` prints the figures).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { checkZipEntries, WORKBOOK_LIMITS } from '../../server/connectors/flatFile/limits.ts';
import { FlatFileError, parseTabular } from '../../server/connectors/flatFile/tabular.ts';
import { readWorkbook } from '../../server/connectors/flatFile/workbookReader.ts';
import { SAMPLE_ROWS } from '../../src/domain/upload.ts';
import {
  largeWorkbook, lyingSizeBomb, sharedStringsBomb, sheetBomb, workbook, xlsThatSheetJsNeverFinishes, xlsWithLoopingChain,
  xlsWithOversizedStream, xlsxOf,
} from '../support/flatFiles.ts';

const MB = 1024 * 1024;

/** The refusal of `read`, timed and printed. */
async function refusal(what: string, bytes: Buffer, read: (b: Buffer) => Promise<unknown>): Promise<FlatFileError & { ms: number }> {
  const started = performance.now();
  const err = await read(bytes).then(() => null, (e: unknown) => e);
  const ms = performance.now() - started;
  console.log(`${what} (${Math.ceil(bytes.length / 1024)} KB): refused in ${ms.toFixed(0)} ms: ${err instanceof Error ? err.message : 'accepted'}`);
  expect(err).toBeInstanceOf(FlatFileError);
  return Object.assign(err as FlatFileError, { ms });
}

const asXlsx = (b: Buffer) => parseTabular(b, { fileName: 'gifts.xlsx' });
const asXls = (b: Buffer) => parseTabular(b, { fileName: 'gifts.xls' });

describe('.xlsx bombs are refused from the ZIP directory, before anything is inflated', () => {
  it('a shared strings part that inflates to 100 MB from 250 KB', async () => {
    const err = await refusal('shared strings 100 MB', sharedStringsBomb(100), asXlsx);
    expect(err.outcome).toBe('size-too-big');
    expect(err.message).toMatch(/^The spreadsheet expands more than 200 times when opened \(xl\/sharedStrings\.xml: \d+ KB to 100 MB\)/);
    expect(err.ms).toBeLessThan(10_000);
  });

  it('a sheet that inflates to 300 MB', async () => {
    const err = await refusal('sheet 300 MB', sheetBomb(300), asXlsx);
    expect([err.outcome, err.message]).toEqual(['size-too-big', 'The spreadsheet expands to more than 256 MB when opened.']);
    expect(err.ms).toBeLessThan(10_000);
  });

  it('parts that are each allowed but together inflate past 512 MB', () => {
    const part = (i: number) => ({ fileName: `xl/worksheets/sheet${i}.xml`, compressionMethod: 8, compressedSize: 20 * MB, uncompressedSize: 200 * MB });
    expect(() => checkZipEntries([part(1), part(2)], WORKBOOK_LIMITS)).not.toThrow();
    expect(() => checkZipEntries([part(1), part(2), part(3)], WORKBOOK_LIMITS)).toThrow('The spreadsheet expands to more than 512 MB when opened.');
  });
});

describe('.xlsx bombs are refused while inflating, counted byte by byte', () => {
  it('a sheet whose directory declares 64 KB and that inflates to 300 MB', async () => {
    const err = await refusal('sheet declaring 64 KB, inflating to 300 MB', lyingSizeBomb(300), asXlsx);
    expect(err.outcome).toBe('size-too-big');
    expect(err.message).toMatch(/^The spreadsheet expands to more than its own directory says \(xl\/worksheets\/sheet1\.xml\)/);
    expect(err.ms).toBeLessThan(10_000);
  });
});

describe('.xls bombs are refused from the compound file directory, before SheetJS reads it', () => {
  it('a Workbook stream that declares 2 GB in a file of 22 KB', async () => {
    const err = await refusal('.xls declaring a 2 GB stream', xlsWithOversizedStream(), asXls);
    expect(err.outcome).toBe('size-too-big');
    expect(err.message).toMatch(/^The workbook says one of its parts holds 2048 MB, more than the whole file/);
    expect(err.ms).toBeLessThan(10_000);
  });

  it('a Workbook stream whose sector chain loops (SheetJS would follow it until memory runs out)', async () => {
    const err = await refusal('.xls with a looping sector chain', xlsWithLoopingChain(), asXls);
    expect([err.outcome, err.message]).toEqual(['wrong-structure', 'The workbook could not be read: its sector chains loop.']);
    expect(err.ms).toBeLessThan(10_000);
  });
});

describe('reads run in a worker thread that is stopped when it passes its budget', () => {
  it('a damaged .xls that SheetJS does not finish: stopped after 5 s of CPU time', async () => {
    const err = await refusal('.xls SheetJS does not finish (default budget)', xlsThatSheetJsNeverFinishes(), asXls);
    expect([err.outcome, err.message]).toEqual(['size-too-big',
      'The spreadsheet takes more than 5 seconds to read; save it as CSV, or remove what it does not need, and upload it again.']);
    // 5 s of the worker's CPU; the wall-clock backstop is 30 s
    expect(err.ms).toBeLessThan(40_000);
  }, 60_000);

  it('any read, .xlsx or .xls, past a smaller budget; the next read gets a fresh worker', async () => {
    const limits = { ...WORKBOOK_LIMITS, cpuMs: 300, maxRatio: Infinity };
    const slowXlsx = await refusal('shared strings 100 MB, ratio allowed, 0.3 s budget', sharedStringsBomb(100), (b) => readWorkbook('xlsx', b, limits));
    const slowXls = await refusal('.xls SheetJS does not finish, 0.3 s budget', xlsThatSheetJsNeverFinishes(), (b) => readWorkbook('xls', b, limits));
    for (const err of [slowXlsx, slowXls]) {
      expect([err.outcome, err.message]).toEqual(['size-too-big',
        'The spreadsheet takes more than 0.3 seconds to read; save it as CSV, or remove what it does not need, and upload it again.']);
      expect(err.ms).toBeLessThan(10_000);
    }
    expect((await parseTabular(workbook([['Name'], ['Ann']], 'xlsx'), { fileName: 'a.xlsx' })).sampleRows).toEqual([['Ann']]);
  }, 30_000);

  it('a read past its heap: one 200 MB cell in a worker limited to 64 MB', async () => {
    const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
    const cell = xlsxOf({
      content: {
        head: `<worksheet xmlns="${NS}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c></row><row r="2"><c r="A2" t="inlineStr"><is><t>`,
        unit: 'x', bytes: 200 * MB, tail: '</t></is></c></row></sheetData></worksheet>',
      },
    });
    const err = await refusal('one 200 MB cell, 64 MB heap', cell, (b) => readWorkbook('xlsx', b, { ...WORKBOOK_LIMITS, maxRatio: Infinity, heapMb: 64 }));
    expect([err.outcome, err.message]).toEqual(['size-too-big', 'The spreadsheet needs more than 64 MB of memory to read; save it as CSV and upload it again.']);
    expect(err.ms).toBeLessThan(10_000);
  }, 30_000);

  it('stops counting rows when counting passes its CPU time, and keeps the sample', async () => {
    const r = await readWorkbook('xlsx', sheetBomb(100), { ...WORKBOOK_LIMITS, maxRatio: Infinity, countCpuMs: 0 });
    expect(r.headers).toEqual(['Name', 'Amount']);
    expect(r.sampleRows).toHaveLength(SAMPLE_ROWS);
    expect(r.sampleRows[0]).toEqual(['Ann', '10']);
    expect(r.rowCount).toBeNull();
  });
});

describe('real workbooks are not bombs', () => {
  it('accepts a 15 MB workbook whose sheet inflates to 150 MB: its sample, and its count when counting fits the time', async () => {
    const book = largeWorkbook(150);
    expect(book.length).toBeLessThanOrEqual(15 * MB);
    const started = performance.now();
    const r = await parseTabular(book, { fileName: 'large.xlsx' });
    console.log(`${(book.length / MB).toFixed(1)} MB workbook, 150 MB sheet: read in ${(performance.now() - started).toFixed(0)} ms, ${r.rowCount ?? 'uncounted'} rows`);
    expect(r.headers).toEqual(['Name', 'Amount', 'Email']);
    expect(r.sampleRows).toHaveLength(SAMPLE_ROWS);
    expect(r.sampleRows[0]).toEqual(["Ann 0 O'Neill", '0.5', 'ann0@example.org']);
    if (r.rowCount !== null) expect(r.rowCount).toBeGreaterThan(500_000);
  }, 60_000);

  it('accepts a small part at any ratio: 5 MB of repeated rows in 20 KB', async () => {
    const r = await parseTabular(sheetBomb(5), { fileName: 'repeated.xlsx' });
    expect(r.rowCount).toBeGreaterThan(50_000);
  });

  it('starts its worker under `node --import tsx` (npm start) as under vitest', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const script = `
      const { parseTabular } = await import('./server/connectors/flatFile/tabular.ts');
      const { workbook } = await import('./tests/support/flatFiles.ts');
      const r = await parseTabular(workbook([['Name', 'Gift'], ['Ann', 10]], 'xlsx'), { fileName: 'a.xlsx' });
      const x = await parseTabular(workbook([['Name', 'Gift'], ['Bob', 3]], 'biff8'), { fileName: 'a.xls' });
      console.log(JSON.stringify([r.sampleRows, x.sampleRows]));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, timeout: 50_000 });
    expect(JSON.parse(stdout)).toEqual([[['Ann', '10']], [['Bob', '3']]]);
  }, 60_000);
});
