/**
 * CSV for exports (RFC 4180), safe to open in a spreadsheet. A cell whose text starts with =, +,
 * -, @, a tab, a carriage return or a line feed (or the full-width =, +, - and @ some locales'
 * spreadsheets also read) would be read by Excel, LibreOffice or Google Sheets as a formula (CSV
 * injection: `=HYPERLINK(...)`, `=cmd|...`), so it is prefixed with a single quote, which
 * spreadsheets show as text. The quote is part of the cell: a reader of the raw file sees it.
 *
 * Spreadsheets in locales whose decimal mark is a comma split CSV at semicolons, so a cell holding
 * one is quoted too: unquoted, `x;=1+1` would open as two cells, the second a formula.
 */

/** what a spreadsheet would run as a formula when a cell starts with it */
const FORMULA_START = /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/;
/** what forces a cell into quotes: RFC 4180's comma, quote and line breaks, and the semicolon other locales separate by */
const NEEDS_QUOTES = /[",;\r\n]/;

/** A value as a cell's text: null and undefined are empty, objects are JSON, dates ISO 8601. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The text a spreadsheet shows as it is: a leading formula character behind a single quote. */
export function neutralise(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One cell, neutralised and quoted when it must be. */
export function csvCell(value: unknown): string {
  const text = neutralise(cellText(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record of the file, ended by CRLF as RFC 4180 says. */
export function csvRow(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

/**
 * Reads CSV text back into rows (RFC 4180, CRLF or LF): for tests and for checking what an export
 * wrote. The neutralising quote stays in the cell.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') { cell += '"'; i += 2; continue; }
        quoted = false; i++; continue;
      }
      cell += ch; i++; continue;
    }
    if (ch === '"' && cell === '') { quoted = true; i++; continue; }
    if (ch === ',') { row.push(cell); cell = ''; i++; continue; }
    if (ch === '\r' && text[i + 1] === '\n') { i++; continue; }
    if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; continue; }
    cell += ch; i++;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}
