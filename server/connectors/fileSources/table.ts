/**
 * Whole tables from CSV and Excel files, for pulling every row. The flat file parser
 * (../flatFile/tabular.ts, parseTabular) checks the file and finds its real type, encoding and
 * delimiter; this file then reads all rows in the same way (its CSV tokenizer; SheetJS, as the
 * parser uses it, for the workbook's first sheet). tableRows reads a file already checked (an
 * upload) as a stream: CSV a chunk at a time, Excel whole, as its format needs.
 */
import * as XLSX from '@e965/xlsx';
import { CsvTokenizer, detectDelimiter, parseCsvText, type RecordEnd } from '../flatFile/csv.ts';
import { detectKind, SNIFF_BYTES } from '../flatFile/detect.ts';
import { FlatFileError } from '../flatFile/errors.ts';
import { xlsCell } from '../flatFile/excel.ts';
import { checkHeaders, MAX_COLUMNS } from '../flatFile/sample.ts';
import { parseTabular, type TabularResult } from '../flatFile/tabular.ts';

/** Files larger than this are refused for pulling (the whole file is held while it is read). */
export const MAX_PULL_FILE_BYTES = 50 * 1024 * 1024;

export interface TableRow {
  line: number;
  values: string[];
  /** where a read of the file can start again after this row (CSV: tableRows) */
  end?: RowEnd;
}

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
 * Where a read of a CSV file can start again after a row: the byte just past the row's line end,
 * the line the next row starts on, and whether the row ended with a CR (a LF first is its own).
 */
export interface RowEnd { byte: number; line: number; cr: boolean }

/** The file's bytes from `start` (to `end`, inclusive), or all of them. */
export type ReadBytes = (range?: { start: number; end?: number }) => AsyncIterable<Uint8Array>;

const BOMS: [number[], number][] = [[[0xef, 0xbb, 0xbf], 3], [[0xff, 0xfe], 2], [[0xfe, 0xff], 2]];
const bomLength = (head: Uint8Array) => BOMS.find(([bytes]) => bytes.every((b, i) => head[i] === b))?.[1] ?? 0;

/** How many bytes a text decoded from `encoding` took, when the decoding was one to one (see lossless). */
const byteCounter = (encoding: string): ((text: string) => number) => {
  if (encoding === 'utf-8') return (t) => Buffer.byteLength(t, 'utf8');
  if (encoding.startsWith('utf-16')) return (t) => t.length * 2;
  return (t) => t.length;
};

/**
 * Every data row of a CSV or Excel file, in pieces: for CSV, memory holds one chunk of the file
 * and the rows it completed (`line` is the line the row starts on); a workbook is a random-access
 * container, so it is read whole (readTable). Past `maxBytes`, a size-too-big FlatFileError.
 *
 * A CSV row also carries where a read can start again after it (`end`), and `from` starts there:
 * the file's first bytes are read again only to know its encoding, delimiter and header row, so a
 * run continued in a later slice does not parse the rows it already has. A row has no `end` when
 * the bytes before it did not decode one to one (bytes not valid in the file's encoding).
 */
export async function* tableRows(read: ReadBytes, fileName: string, opts: { maxBytes?: number; from?: RowEnd } = {}): AsyncIterable<RowChunk> {
  const maxBytes = opts.maxBytes ?? MAX_PULL_FILE_BYTES;
  const from = opts.from;
  let it = read(from ? { start: 0, end: SNIFF_BYTES - 1 } : undefined)[Symbol.asyncIterator]();
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
      if (from) { await it.return?.(); it = read()[Symbol.asyncIterator](); size = 0; headParts.length = 0; }
      const parts: Uint8Array[] = [...headParts];
      for (let c = await next(); c; c = await next()) parts.push(c);
      const table = await readTable(Buffer.concat(parts), fileName);
      yield { headers: table.headers, rows: table.rows };
      return;
    }

    const decoder = new TextDecoder(detected.encoding);
    const first = decoder.decode(head, { stream: true });
    const delimiter = detectDelimiter(first.replace(/^[\r\n]+/, ''));
    const bytesOf = byteCounter(detected.encoding);
    let headers: string[] | null = null;
    let rows: TableRow[] = [];
    // the bytes of the text pushed before the current one, and of the current one up to `counted`
    let before = from ? from.byte : bomLength(head);
    let text = '';
    let counted = 0;
    let upTo = before;
    let lossless = true;
    const byteAt = (index: number) => {
      const end = index < 0 ? text.length : index;
      upTo += bytesOf(text.slice(counted, end));
      counted = end;
      return upTo;
    };
    const onRecord = (record: string[], line: number, end: RecordEnd) => {
      const at = lossless ? { byte: byteAt(end.index), line: end.nextLine, cr: end.cr } : undefined;
      if (isBlank(record)) return;
      if (!headers) { headers = checkHeaders(record); return; }
      const values = record.slice(0, headers.length);
      while (values.length < headers.length) values.push('');
      rows.push(at ? { line, values, end: at } : { line, values });
    };
    const tokenizer = new CsvTokenizer(delimiter, onRecord, MAX_COLUMNS * 4, from ? { line: from.line, afterCr: from.cr } : undefined);
    const push = (t: string) => {
      // a byte the encoding cannot read became U+FFFD: from here on, characters and bytes no longer match
      if (lossless && t.includes('\uFFFD')) lossless = false;
      text = t; counted = 0;
      tokenizer.push(t);
      if (lossless) { byteAt(t.length); before = upTo; }
    };
    const flush = function* (): Generator<RowChunk> {
      if (headers && rows.length > 0) { yield { headers, rows }; rows = []; }
    };

    if (from) {
      // the header row, from the file's first bytes; then the rows from where the last read stopped
      headers = headerRowOf(first, delimiter);
      await it.return?.();
      it = read({ start: from.byte })[Symbol.asyncIterator]();
      size = from.byte;
    } else {
      push(first);
      yield* flush();
    }
    for (let c = await next(); c; c = await next()) {
      push(decoder.decode(c, { stream: true }));
      yield* flush();
    }
    push(decoder.decode());
    text = ''; counted = 0;
    tokenizer.end();
    yield* flush();
    if (!headers) throw new FlatFileError('empty', 'The file has no content.');
  } finally {
    // stops a file stream left half read (a consumer that broke off, an error)
    await it.return?.();
  }
}

/** The header row of a CSV text's first bytes: its first record with a value. */
function headerRowOf(text: string, delimiter: string): string[] {
  let headers: string[] | null = null;
  const found = new Error('header row found');
  try {
    new CsvTokenizer(delimiter, (record) => {
      if (isBlank(record)) return;
      headers = checkHeaders(record);
      throw found;
    }, MAX_COLUMNS * 4).push(text);
  } catch (err) {
    if (err !== found) throw err;
  }
  if (!headers) throw new FlatFileError('wrong-structure', 'The header row is not in the first bytes of the file.');
  return headers;
}
