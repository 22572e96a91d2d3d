/**
 * Property-based tests of the parser (fast-check): arbitrary bytes and malformed CSV never make it
 * throw anything but its own FlatFileError; well-formed tables read back exactly, however the
 * bytes are split into chunks.
 */
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlatFileError, parseTabular } from '../../server/connectors/flatFile/tabular.ts';
import { SAMPLE_ROWS, UPLOAD_OUTCOMES } from '../../src/domain/upload.ts';
import { workbook } from '../support/flatFiles.ts';

const NAMES = ['data.csv', 'data.xlsx', 'data.xls'];

/** Resolves with the result or the FlatFileError; any other error fails the property. */
async function outcome(input: Uint8Array | Readable, fileName: string) {
  try {
    return await parseTabular(input, { fileName });
  } catch (err) {
    if (!(err instanceof FlatFileError)) throw new Error(`not the parser's own error: ${String(err)}`, { cause: err });
    expect(UPLOAD_OUTCOMES).toContain(err.outcome);
    expect(err.message.length).toBeGreaterThan(5);
    return err;
  }
}

const chunked = (bytes: Uint8Array, cuts: number[]) => {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let at = 0;
  for (const p of [...points, bytes.length]) { parts.push(Buffer.from(bytes.subarray(at, p))); at = p; }
  return Readable.from(parts.filter((p) => p.length > 0));
};

const MAGIC = [
  [], [0x50, 0x4b, 0x03, 0x04], [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], [0xef, 0xbb, 0xbf], [0xff, 0xfe],
];

describe('the parser never fails with anything but its own errors', () => {
  it('on arbitrary bytes, under any accepted name, also after a ZIP, OLE2 or BOM signature', async () => {
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...MAGIC), fc.uint8Array({ maxLength: 4096 }), fc.constantFrom(...NAMES),
      async (magic, bytes, name) => { await outcome(Buffer.concat([Buffer.from(magic), bytes]), name); },
    ), { numRuns: 400 });
  });

  it('on malformed CSV made of quotes, delimiters, line ends and text, in any chunking', async () => {
    const piece = fc.constantFrom('"', '""', ',', ';', '\t', '\r', '\n', '\r\n', 'a', 'Name', ' ', 'é', '€', '\u0000', '\ufeff');
    await fc.assert(fc.asyncProperty(
      fc.array(piece, { maxLength: 200 }), fc.array(fc.nat(), { maxLength: 8 }),
      async (pieces, cuts) => {
        const bytes = Buffer.from(pieces.join(''), 'utf8');
        const whole = await outcome(bytes, 'x.csv');
        const split = await outcome(chunked(bytes, cuts), 'x.csv');
        // chunk boundaries never change the answer
        expect(split instanceof FlatFileError ? split.message : split).toEqual(whole instanceof FlatFileError ? whole.message : whole);
      },
    ), { numRuns: 400 });
  });

  // A damaged .xls can send SheetJS into an endless loop (tests/support/flatFiles.ts keeps one this
  // property found); its worker is then stopped after 5 s of CPU time, hence the longer timeout.
  it('on damaged workbooks: a real .xlsx or .xls with bytes overwritten', async () => {
    const books = [workbook([['Name', 'Gift'], ['Ann', 1], ['Bob', 2]], 'xlsx', { sharedStrings: true }), workbook([['Name', 'Gift'], ['Ann', 1]], 'biff8')];
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(0, 1), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 }),
      async (which, edits) => {
        const book = Buffer.from(books[which]!);
        for (const [at, value] of edits) book[at % book.length] = value;
        await outcome(book, which === 0 ? 'a.xlsx' : 'a.xls');
      },
    ), { numRuns: 200 });
  }, 120_000);
});

describe('well-formed tables read back exactly', () => {
  const cell = fc.string({ unit: fc.constantFrom('a', 'B', '1', ' ', ',', ';', '"', '\n', '\r\n', 'é', '€', '😀'), maxLength: 12 });
  const table = fc.integer({ min: 1, max: 6 }).chain((width) => fc.tuple(
    fc.uniqueArray(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 _]{0,10}[A-Za-z0-9]$/), { minLength: width, maxLength: width, selector: (h) => h.toLowerCase() }),
    fc.array(fc.array(cell, { minLength: width, maxLength: width }).filter((r) => r.some((v) => v.trim() !== '')), { minLength: 1, maxLength: 30 }),
  ));
  const quote = (v: string) => (/[",;\t|\r\n]/.test(v) || v !== v.trim() ? `"${v.replaceAll('"', '""')}"` : v);

  it('written as CSV with any delimiter and line end, in any chunking', async () => {
    await fc.assert(fc.asyncProperty(
      table, fc.constantFrom(',', ';', '\t'), fc.constantFrom('\r\n', '\n'), fc.boolean(), fc.array(fc.nat(), { maxLength: 6 }),
      async ([headers, rows], delimiter, nl, bom, cuts) => {
        const text = `${bom ? '\ufeff' : ''}${[headers, ...rows].map((r) => r.map(quote).join(delimiter)).join(nl)}${nl}`;
        const r = await parseTabular(chunked(Buffer.from(text, 'utf8'), cuts), { fileName: 't.csv' });
        expect(r.headers).toEqual(headers);
        expect(r.sampleRows).toEqual(rows.slice(0, SAMPLE_ROWS));
        expect(r.rowCount).toBe(rows.length);
      },
    ), { numRuns: 300 });
  });
});
