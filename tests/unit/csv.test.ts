/**
 * The export's CSV (src/domain/csv.ts): RFC 4180 quoting, and no cell a spreadsheet would run as a
 * formula. Examples first, then properties over any text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellText, csvCell, csvRow, neutralise, parseCsv } from '../../src/domain/csv.ts';

describe('csv cells', () => {
  it('leaves plain text alone', () => {
    expect(csvCell('Ada Lovelace')).toBe('Ada Lovelace');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(true)).toBe('true');
  });

  it('quotes commas, quotes and line breaks, doubling quotes', () => {
    expect(csvCell('O\'Neill, Jr')).toBe('"O\'Neill, Jr"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('cr\rlf')).toBe('"cr\rlf"');
  });

  it('neutralises every formula start with a single quote', () => {
    expect(csvCell('=1+1')).toBe('\'=1+1');
    expect(csvCell('+44 20 7946 0000')).toBe('\'+44 20 7946 0000');
    expect(csvCell('-5')).toBe('\'-5');
    expect(csvCell(-5)).toBe('\'-5');
    expect(csvCell('@SUM(A1)')).toBe('\'@SUM(A1)');
    expect(csvCell('\tcmd')).toBe('\'\tcmd');
    // a carriage return also needs quotes
    expect(csvCell('\r=1')).toBe('"\'\r=1"');
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    // only at the start
    expect(csvCell('a=b')).toBe('a=b');
    expect(neutralise('')).toBe('');
  });

  it('keeps a formula from opening in locales that separate cells by semicolons, and after a line feed', () => {
    // a semicolon locale would split an unquoted `x;=1+1` into `x` and the formula `=1+1`
    expect(csvCell('x;=1+1')).toBe('"x;=1+1"');
    expect(csvRow(['a;b', 'c'])).toBe('"a;b",c\r\n');
    expect(parseCsv(csvRow(['x;=1+1']))).toEqual([['x;=1+1']]);
    // a cell starting with a line break and then a formula
    expect(csvCell('\n=1+1')).toBe('"\'\n=1+1"');
    expect(csvCell('\r\n=1+1')).toBe('"\'\r\n=1+1"');
    // full-width signs, which spreadsheets of some locales read as their ASCII forms
    expect(csvCell('\uFF1D1+1')).toBe('\'\uFF1D1+1');
    expect(csvCell('\uFF20SUM(A1)')).toBe('\'\uFF20SUM(A1)');
  });

  it('writes dates as ISO 8601 and objects as JSON', () => {
    expect(cellText(new Date('2026-11-20T10:00:00Z'))).toBe('2026-11-20T10:00:00.000Z');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });

  it('ends a row with CRLF', () => {
    expect(csvRow(['a', 'b,c', null])).toBe('a,"b,c",\r\n');
  });
});

/** what a spreadsheet would run: a cell whose text starts with one of these, unquoted */
const RUNS = /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/;

describe('csv properties', () => {
  const cell = fc.oneof(
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', '"', ',', ';', 'a', ' ', '\'', '\uFF1D') }),
    fc.integer(), fc.double({ noNaN: true }), fc.constant(null),
  );

  it('a row reads back as its cells, each neutralised, for any values', () => {
    fc.assert(fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }), (rows) => {
      const text = rows.map(csvRow).join('');
      expect(parseCsv(text)).toEqual(rows.map((r) => r.map((v) => neutralise(cellText(v)))));
    }));
  });

  it('no cell read back starts with a formula character', () => {
    fc.assert(fc.property(fc.array(cell, { minLength: 1, maxLength: 8 }), (values) => {
      for (const read of parseCsv(csvRow(values))[0]!) expect(RUNS.test(read)).toBe(false);
    }));
  });

  it('a cell is quoted exactly when it holds a comma, a semicolon, a quote or a line break', () => {
    fc.assert(fc.property(cell, (value) => {
      const written = csvCell(value);
      const text = neutralise(cellText(value));
      expect(written.startsWith('"')).toBe(/[",;\r\n]/.test(text));
      // inside quotes, every quote is doubled
      if (written.startsWith('"')) expect(written.slice(1, -1).replaceAll('""', '')).not.toContain('"');
    }));
  });

  it('neutralising changes only cells that start with a formula character, by one quote', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => {
      const out = neutralise(text);
      expect(out === text).toBe(!RUNS.test(text));
      if (out !== text) expect(out).toBe(`'${text}`);
    }));
  });
});
