/** CSV as people really produce it, through parseTabular (server/connectors/flatFile/tabular.ts). */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { detectDelimiter, parseCsvText } from '../../server/connectors/flatFile/csv.ts';
import { FlatFileError, parseTabular, type TabularResult } from '../../server/connectors/flatFile/tabular.ts';
import { SAMPLE_ROWS } from '../../src/domain/upload.ts';
import { csvText, PNG } from '../support/flatFiles.ts';

const parse = (content: string | Uint8Array, fileName = 'file.csv') =>
  parseTabular(typeof content === 'string' ? Buffer.from(content, 'utf8') : content, { fileName });

/** The same bytes, one byte per chunk: every boundary (CRLF, "" and UTF-8 sequences) is split somewhere. */
const byteByByte = (bytes: Uint8Array) => Readable.from((function* () { for (const b of bytes) yield Buffer.from([b]); })());

async function refusal(promise: Promise<unknown>): Promise<FlatFileError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(FlatFileError);
  return err as FlatFileError;
}

describe('encodings', () => {
  it('reads UTF-8 with a byte-order mark, and the mark is not part of the first header', async () => {
    const r = await parse('\ufeffName,City\r\nZoë,Zürich\r\n');
    expect(r).toMatchObject({ headers: ['Name', 'City'], sampleRows: [['Zoë', 'Zürich']], encoding: 'utf-8' });
  });

  it('reads UTF-8 without a byte-order mark', async () => {
    expect((await parse('Name,City\nJosé,São Paulo\n')).sampleRows).toEqual([['José', 'São Paulo']]);
  });

  it('reads a Windows-1252 export from Excel (accents, euro sign, curly quotes)', async () => {
    const bytes = Buffer.concat([
      Buffer.from('Name,Gift,Note\r\n'),
      Buffer.from([0x52, 0xe9, 0x6d, 0x79, 0x2c, 0x80, 0x35, 0x2c, 0x93, 0x54, 0x68, 0x61, 0x6e, 0x6b, 0x73, 0x94, 0x0d, 0x0a]),
    ]);
    const r = await parse(bytes);
    expect(r.encoding).toBe('windows-1252');
    expect(r.sampleRows).toEqual([['Rémy', '€5', '\u201cThanks\u201d']]);
  });

  it('reads UTF-16 with a byte-order mark (Excel "Unicode text", tab separated)', async () => {
    const text = 'Name\tCity\r\nZoë\tKraków\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(await parse(le)).toMatchObject({ headers: ['Name', 'City'], sampleRows: [['Zoë', 'Kraków']], encoding: 'utf-16le', delimiter: '\t' });
  });

  it('gives the same result when every byte arrives in its own chunk', async () => {
    const text = '\ufeffName;Note\r\n"Zoë ""Z""";"a;b\r\nc"\r\nÅsa;€\r\n';
    const whole = await parse(text);
    const split = await parseTabular(byteByByte(Buffer.from(text)), { fileName: 'x.csv' });
    expect(split).toEqual(whole);
    expect(whole.sampleRows).toEqual([['Zoë "Z"', 'a;b\r\nc'], ['Åsa', '€']]);
  });
});

describe('quoting and line ends', () => {
  it('keeps commas, doubled quotes and line breaks inside quoted fields', async () => {
    const r = await parse('Name,Address,Note\r\n"Smith, Jane","1 High St\nFlat 2","She said ""hi"""\r\n');
    expect(r.sampleRows).toEqual([['Smith, Jane', '1 High St\nFlat 2', 'She said "hi"']]);
  });

  it('reads CRLF, LF and old Mac CR line ends alike, with or without a final line end', async () => {
    for (const nl of ['\r\n', '\n', '\r']) {
      for (const end of [nl, '']) {
        const r = await parse(`a,b${nl}1,2${nl}3,4${end}`);
        expect(r, JSON.stringify({ nl, end })).toMatchObject({ headers: ['a', 'b'], sampleRows: [['1', '2'], ['3', '4']], rowCount: 2 });
      }
    }
  });

  it('keeps a quote inside an unquoted field, and text after a closing quote, as Excel does', () => {
    expect(parseCsvText('a,b\n5" pipe,"ab"c\n')).toEqual([['a', 'b'], ['5" pipe', 'abc']]);
  });

  it('refuses a quoted value that never closes, naming its line', async () => {
    const err = await refusal(parse('a,b\n1,2\n3,"open\n4,5\n'));
    expect(err.outcome).toBe('wrong-structure');
    expect(err.message).toBe('A quoted value that starts on line 3 is never closed.');
  });
});

describe('delimiters', () => {
  it('detects semicolon-separated files (European Excel), keeping decimal commas', async () => {
    const r = await parse('Name;Amount;Date\r\nAnn;12,50;01.02.2024\r\n');
    expect(r).toMatchObject({ delimiter: ';', headers: ['Name', 'Amount', 'Date'], sampleRows: [['Ann', '12,50', '01.02.2024']] });
  });

  it('detects tab and pipe, ignores delimiters inside quotes, and prefers the comma on a tie', () => {
    expect(detectDelimiter('a\tb\tc\n')).toBe('\t');
    expect(detectDelimiter('a|b|c\n')).toBe('|');
    expect(detectDelimiter('"a;b;c",d\n')).toBe(',');
    expect(detectDelimiter('a;b,c\n')).toBe(',');
    expect(detectDelimiter('single\n1\n')).toBe(',');
  });
});

describe('structure', () => {
  it('keeps the header and the first 20 rows, and counts every row; blank lines are skipped', async () => {
    const text = `${csvText(57).replace('\r\nAnn3,', '\r\n\r\n,,,\r\nAnn3,')}\r\n\r\n`;
    const r = await parse(text);
    expect(r.headers).toEqual(['First name', 'Last name', 'Email', 'Amount']);
    expect(r.sampleRows).toHaveLength(SAMPLE_ROWS);
    expect(r.sampleRows[2]![0]).toBe('Ann3');
    expect(r.rowCount).toBe(57);
  });

  it('trims headers, drops trailing empty header cells, pads short rows, allows empty trailing values', async () => {
    const r = await parse(' Name , Email ,,\r\nAnn\r\nBob,b@x.org,,\r\n');
    expect(r.headers).toEqual(['Name', 'Email']);
    expect(r.sampleRows).toEqual([['Ann', ''], ['Bob', 'b@x.org']]);
  });

  it('refuses duplicate headers (ignoring case), a missing header, and a value under no header', async () => {
    const dup = await refusal(parse('Email,Name,EMAIL\r\n1,2,3\r\n'));
    expect([dup.outcome, dup.message]).toEqual(['wrong-structure', 'Columns 1 and 3 have the same header.']);
    const gap = await refusal(parse('Email,,Name\r\n1,2,3\r\n'));
    expect([gap.outcome, gap.message]).toEqual(['wrong-structure', 'Column 2 has no header.']);
    const wide = await refusal(parse('Email,Name\r\n1,2\r\n1,2,3\r\n'));
    expect([wide.outcome, wide.message]).toEqual(['wrong-structure', 'Line 3 has a value in column 3, which has no header.']);
  });

  it('refuses a line with more than a thousand columns as it is read', async () => {
    const err = await refusal(parse(`${Array.from({ length: 1001 }, (_, i) => `h${i}`).join(',')}\n1\n`));
    expect(err.outcome).toBe('wrong-structure');
  });
});

describe('empty files', () => {
  it('calls no bytes, blank lines, a lone byte-order mark and a header without rows empty', async () => {
    for (const content of ['', '\r\n\r\n', '   \n\t\n', '\ufeff', ',,,\r\n,,\r\n']) {
      expect((await refusal(parse(content))).outcome, JSON.stringify(content)).toBe('empty');
    }
    const headerOnly = await refusal(parse('Name,Email\r\n'));
    expect([headerOnly.outcome, headerOnly.message]).toEqual(['empty', 'The file has a header row but no rows of data.']);
  });
});

describe('type by content, not by extension', () => {
  it('refuses an image, a PDF, a web page and a binary named .csv', async () => {
    for (const [content, reason] of [[PNG, /PNG image/], [Buffer.from('%PDF-1.4\n'), /PDF/], [Buffer.from('<!DOCTYPE html><table>'), /web page/], [Buffer.from([1, 2, 0, 0, 3, 4]), /not a text/]] as const) {
      const err = await refusal(parse(content));
      expect(err.outcome).toBe('unsupported-type');
      expect(err.message).toMatch(reason);
    }
  });

  it('knows a Windows program by its PE header, and reads a CSV that merely starts with MZ', async () => {
    // a program's DOS header: 'MZ', then at bytes 60-63 the offset of 'PE\0\0'
    const program = Buffer.alloc(256, 0);
    program.write('MZ', 0, 'latin1');
    program.writeUInt32LE(128, 60);
    program.write('PE\0\0', 128, 'latin1');
    const refused = await refusal(parse(program));
    expect([refused.outcome, refused.message]).toEqual(['unsupported-type', 'The file is a program, not a CSV or Excel file.']);

    const table = await parse('MZ,Name\r\nA1,Ada\r\n');
    expect(table.headers).toEqual(['MZ', 'Name']);
  });

  it('refuses an extension other than .csv, .xlsx and .xls, whatever the content', async () => {
    expect((await refusal(parse('a,b\n1,2\n', 'data.txt'))).outcome).toBe('unsupported-type');
    expect((await refusal(parse('a,b\n1,2\n', 'data'))).outcome).toBe('unsupported-type');
  });

  it('reads CSV content even when it is named .xls (a common "Excel" export), and says what it really is', async () => {
    const r: TabularResult = await parse('a,b\n1,2\n', 'export.XLS');
    expect(r.kind).toBe('csv');
  });
});

describe('streaming', () => {
  it('refuses a stream past maxBytes as size-too-big', async () => {
    const err = await refusal(parseTabular(Readable.from([Buffer.from(csvText(2000))]), { fileName: 'a.csv', maxBytes: 1000 }));
    expect(err.outcome).toBe('size-too-big');
  });

  it('reads 64MB of CSV with memory that does not grow with the file', async () => {
    const row = Buffer.from(`${'x'.repeat(60)},"quoted, with comma",12.50\r\n`);
    const rows = Math.ceil((64 * 1024 * 1024) / row.length);
    const perChunk = 1000;
    const source = Readable.from((function* () {
      yield Buffer.from('Note,Quoted,Amount\r\n');
      for (let i = 0; i < rows; i += perChunk) yield Buffer.concat(Array.from({ length: perChunk }, () => row));
    })());
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed); }, 5);
    const r = await parseTabular(source, { fileName: 'big.csv', maxBytes: Infinity });
    clearInterval(timer);
    expect(r.rowCount).toBe(Math.ceil(rows / perChunk) * perChunk);
    expect(r.sampleRows).toHaveLength(SAMPLE_ROWS);
    // the file is 64MB; the parser holds one chunk, the header and the sample
    expect(peak - before).toBeLessThan(48 * 1024 * 1024);
  });
});
