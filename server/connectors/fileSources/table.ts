/**
 * Whole tables from CSV and Excel files, for pulling every row. The flat file parser
 * (../flatFile/tabular.ts, parseTabular) checks the file and finds its real type, encoding and
 * delimiter; this file then reads all rows in the same way (its CSV tokenizer; SheetJS, as the
 * parser uses it, for the workbook's first sheet).
 */
import * as XLSX from '@e965/xlsx';
import { parseCsvText } from '../flatFile/csv.ts';
import { xlsCell } from '../flatFile/excel.ts';
import { checkHeaders } from '../flatFile/sample.ts';
import { parseTabular, type TabularResult } from '../flatFile/tabular.ts';

/** Files larger than this are refused for pulling (the whole file is held while it is read). */
export const MAX_PULL_FILE_BYTES = 50 * 1024 * 1024;

export interface Table {
  kind: TabularResult['kind'];
  headers: string[];
  /** every data row, each as long as `headers`; blank rows are skipped */
  rows: { line: number; values: string[] }[];
}

const isBlank = (row: readonly string[]) => row.every((v) => v.trim() === '');

/** The headers and first rows only (describing fields). */
export function describeTable(bytes: Buffer, fileName: string): Promise<TabularResult> {
  return parseTabular(bytes, { fileName, maxBytes: MAX_PULL_FILE_BYTES });
}

export async function readTable(bytes: Buffer, fileName: string): Promise<Table> {
  const info = await parseTabular(bytes, { fileName, maxBytes: MAX_PULL_FILE_BYTES });
  const raw = info.kind === 'csv'
    ? parseCsvText(new TextDecoder(info.encoding ?? 'utf-8').decode(bytes), info.delimiter)
    : sheetRows(bytes);
  let headers: string[] | null = null;
  const rows: Table['rows'] = [];
  raw.forEach((record, i) => {
    if (isBlank(record)) return;
    if (!headers) { headers = checkHeaders(record); return; }
    const values = record.slice(0, headers.length);
    while (values.length < headers.length) values.push('');
    rows.push({ line: i + 1, values });
  });
  return { kind: info.kind, headers: headers ?? info.headers, rows };
}

function sheetRows(bytes: Buffer): string[][] {
  const wb = XLSX.read(bytes, { type: 'buffer', dense: true, sheets: 0, cellFormula: false, cellHTML: false, cellText: false, cellNF: true, cellStyles: false });
  const name = wb.SheetNames[0];
  const sheet = name ? wb.Sheets[name] : undefined;
  if (!sheet) return [];
  const date1904 = !!wb.Workbook?.WBProps?.date1904;
  const data = (sheet['!data'] ?? []) as (XLSX.CellObject | undefined)[][];
  return Array.from(data, (row) => (row ? Array.from(row, (cell) => xlsCell(cell, date1904)) : []));
}

