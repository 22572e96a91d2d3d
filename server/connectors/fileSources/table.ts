/**
 * Whole tables from CSV and Excel files, for pulling every row. The flat file parser
 * (../flatFile/tabular.ts, parseTabular) checks the file and finds its real type, encoding and
 * delimiter; this file then reads all rows in the same way (its CSV tokenizer; SheetJS, as the
 * parser uses it, for the workbook's first sheet). tableRows reads a file already checked (an
 * upload) as a stream: CSV a chunk at a time, Excel whole, as its format needs.
 */
import * as XLSX from '@e965/xlsx';
import { CsvTokenizer, detectDelimiter, parseCsvText } from '../flatFile/csv.ts';
import { detectKind, SNIFF_BYTES } from '../flatFile/detect.ts';
import { FlatFileError } from '../flatFile/errors.ts';
import { xlsCell } from '../flatFile/excel.ts';
import { checkHeaders, MAX_COLUMNS } from '../flatFile/sample.ts';
import { parseTabular, type TabularResult } from '../flatFile/tabular.ts';

/** Files larger than this are refused for pulling (the whole file is held while it is read). */
export const MAX_PULL_FILE_BYTES = 50 * 1024 * 1024;

export interface TableRow { line: number; values: string[] }

export interface Table {
  kind: TabularResult['kind'];
  headers: string[];
  /** every data row, each as long as `headers`; blank rows are skipped */
  rows: TableRow[];
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


/** Rows as read, with their headers: one piece of a table read as a stream. */
export interface RowChunk { headers: string[]; rows: TableRow[] }

/**
 * Every data row of a CSV or Excel file, in pieces: for CSV, memory holds one chunk of the file
 * and the rows it completed (`line` is the line the row starts on); a workbook is a random-access
 * container, so it is read whole (readTable). Past `maxBytes`, a size-too-big FlatFileError.
 */
export async function* tableRows(input: AsyncIterable<Uint8Array>, fileName: string, maxBytes = MAX_PULL_FILE_BYTES): AsyncIterable<RowChunk> {
  const it = input[Symbol.asyncIterator]();
  let size = 0;
  const next = async (): Promise<Uint8Array | null> => {
    const r = await it.next();
    if (r.done) return null;
    size += r.value.length;
    if (size > maxBytes) throw new FlatFileError('size-too-big', `The file is larger than ${maxBytes} bytes.`);
    return r.value;
  };
  try {
    const headParts: Uint8Array[] = [];
    let headSize = 0;
    while (headSize < SNIFF_BYTES) {
      const c = await next();
      if (!c) break;
      headParts.push(c);
      headSize += c.length;
    }
    const head = Buffer.concat(headParts);
    if (head.length === 0) throw new FlatFileError('empty', 'The file is empty.');
    const detected = detectKind(head);
    if (detected.kind === 'unsupported') throw new FlatFileError('unsupported-type', detected.reason);
    if (detected.kind !== 'csv') {
      const parts: Uint8Array[] = [head];
      for (let c = await next(); c; c = await next()) parts.push(c);
      const table = await readTable(Buffer.concat(parts), fileName);
      yield { headers: table.headers, rows: table.rows };
      return;
    }

    const decoder = new TextDecoder(detected.encoding);
    const first = decoder.decode(head, { stream: true });
    let headers: string[] | null = null;
    let rows: TableRow[] = [];
    const tokenizer = new CsvTokenizer(detectDelimiter(first.replace(/^[\r\n]+/, '')), (record, line) => {
      if (isBlank(record)) return;
      if (!headers) { headers = checkHeaders(record); return; }
      const values = record.slice(0, headers.length);
      while (values.length < headers.length) values.push('');
      rows.push({ line, values });
    }, MAX_COLUMNS * 4);
    const flush = function* (): Generator<RowChunk> {
      if (headers && rows.length > 0) { yield { headers, rows }; rows = []; }
    };
    tokenizer.push(first);
    yield* flush();
    for (let c = await next(); c; c = await next()) {
      tokenizer.push(decoder.decode(c, { stream: true }));
      yield* flush();
    }
    tokenizer.push(decoder.decode());
    tokenizer.end();
    yield* flush();
    if (!headers) throw new FlatFileError('empty', 'The file has no content.');
  } finally {
    // stops a file stream left half read (a consumer that broke off, an error)
    await it.return?.();
  }
}
