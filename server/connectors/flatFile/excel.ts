/**
 * Excel workbooks: the first worksheet's header row and first rows.
 *
 * .xlsx is read by our own streaming reader: yauzl opens the ZIP from its central directory,
 * each part is inflated as a stream and parsed by saxes (a streaming XML parser), so a sheet
 * whose XML inflates to hundreds of megabytes is never held in memory: only the first rows are
 * kept, the rest are counted, and shared strings are resolved only for the kept rows.
 *
 * .xls (BIFF8 in an OLE2 compound file) is read by SheetJS Community Edition 0.20.3, installed as
 * `@e965/xlsx` (a verbatim npm republish of SheetJS's own release). The `xlsx` package on npm is
 * 0.18.5, which has published advisories (prototype pollution CVE-2023-30533, ReDoS
 * CVE-2024-22363) fixed only in releases SheetJS publishes outside npm. It is asked for a
 * bounded number of rows (`sheetRows`).
 *
 * Both run in a worker thread (workbookWorker.ts, started by workbookReader.ts) under the limits
 * of limits.ts: declared and inflated sizes, the compound file's directory, CPU time and memory.
 * See README "File upload".
 */
import type { Readable } from 'node:stream';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import yauzl from 'yauzl';
import * as XLSX from '@e965/xlsx';
import { SAMPLE_ROWS } from '../../../src/domain/upload.ts';
import { FlatFileError } from './errors.ts';
import { checkCompoundFile, checkZipEntries, InflateMeter, threadCpuMs, WORKBOOK_LIMITS, type WorkbookLimits } from './limits.ts';
import { MAX_COLUMNS, type SampleCollector } from './sample.ts';

/** Leading rows read from a .xls sheet: the header, the sample and blank rows before them. */
const XLS_ROWS = 1000;
/** Rows kept raw until shared strings are resolved: the header, the sample and a margin. */
const KEEP_ROWS = SAMPLE_ROWS + 1;
/** Excel's own limit on the characters of a cell; longer text (never written by Excel) is cut there. */
const MAX_CELL_CHARS = 32_767;
const clip = (text: string) => (text.length > MAX_CELL_CHARS ? text.slice(0, MAX_CELL_CHARS) : text);

const unreadable = (what: string) => new FlatFileError('wrong-structure', `The workbook could not be read: ${what}.`);
const notWorkbook = (detail = 'The file is a ZIP archive, not an Excel workbook.') => new FlatFileError('unsupported-type', detail);

// ---------------------------------------------------------------- dates and numbers

const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

/** A custom number format shows a date or time when, outside quotes and brackets, it has d, m, y, h or s. */
export function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"/g, '').replace(/\\./g, '')
    // brackets hold colours and locales, but [h], [mm] and [ss] are elapsed time
    .replace(/\[([^[\]]*)\]/g, (all, inner: string) => (/^[hms]+$/i.test(inner) ? all : ''));
  return /[dmyhs]/i.test(bare.split(';')[0] ?? '');
}

/** An Excel serial date as ISO 8601: a date, a date and time, or a time of day. */
export function excelSerialToIso(serial: number, date1904 = false): string {
  if (!Number.isFinite(serial)) return String(serial);
  // Excel's 1900 system counts the non-existent 29 February 1900, so days from 1899-12-30 are right from 1 March 1900
  const base = date1904 ? Date.UTC(1904, 0, 1) : serial < 61 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  const ms = Math.round(serial * 86_400_000);
  const d = new Date(base + ms);
  if (Number.isNaN(d.getTime())) return String(serial);
  const iso = d.toISOString();
  const hasTime = Math.abs(serial - Math.trunc(serial)) > 1e-9;
  if (Math.trunc(serial) === 0 && hasTime && !date1904) return iso.slice(11, 19);
  return hasTime ? iso.slice(0, 19) : iso.slice(0, 10);
}

/** Column letters of a cell reference ("AB12") as a 0-based index; -1 when there are none. */
export function columnIndex(ref: string): number {
  let n = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i) | 0x20; // lower case
    if (c < 97 || c > 122) break;
    n = n * 26 + (c - 96);
    if (n > 16384) return -1;
  }
  return i === 0 ? -1 : n - 1;
}

// ---------------------------------------------------------------- .xlsx

interface Zip {
  file: yauzl.ZipFile;
  entries: Map<string, yauzl.Entry>;
  meter: InflateMeter;
}

async function openZip(buffer: Buffer, limits: WorkbookLimits): Promise<Zip> {
  // entry sizes are checked by InflateMeter as the parts stream, so a lie is refused as a bomb
  const file = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: false, strictFileNames: false, decodeStrings: true },
      (err, zf) => (err || !zf ? reject(err ?? new Error('no zip')) : resolve(zf)));
  }).catch(() => { throw notWorkbook('The file looks like a ZIP archive but cannot be opened.'); });
  const entries = new Map<string, yauzl.Entry>();
  const all: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    file.on('entry', (e: yauzl.Entry) => {
      if (all.length > 10_000) { reject(notWorkbook()); return; }
      all.push(e);
      entries.set(e.fileName.replace(/^\/+/, '').toLowerCase(), e);
      file.readEntry();
    });
    file.on('end', () => resolve());
    file.on('error', () => reject(notWorkbook('The file looks like a ZIP archive but cannot be opened.')));
    file.readEntry();
  });
  try {
    checkZipEntries(all, limits);
  } catch (err) {
    file.close();
    throw err;
  }
  return { file, entries, meter: new InflateMeter(limits) };
}

function openEntry(zip: Zip, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.file.openReadStream(entry, (err, stream) => (err || !stream ? reject(unreadable('a part is damaged')) : resolve(stream)));
  });
}

type Handlers = {
  open?(tag: SaxesTagNS): void;
  text?(text: string): void;
  close?(tag: SaxesTagNS): void;
};

/**
 * Streams one part of the package through saxes. `handlers` may call `stop()` to end early, and
 * `enough()`, asked after each inflated chunk, may end it too. Answers whether the whole part was read.
 */
async function readPart(zip: Zip, name: string, make: (stop: () => void) => Handlers, enough?: () => boolean): Promise<boolean> {
  const entry = zip.entries.get(name.toLowerCase());
  if (!entry) return false;
  const count = zip.meter.part(name, entry.uncompressedSize);
  const stream = await openEntry(zip, entry);
  let stopped = false;
  const parser = new SaxesParser({ xmlns: true, position: false });
  const h = make(() => { stopped = true; });
  if (h.open) parser.on('opentag', (t) => { if (!stopped) h.open!(t as SaxesTagNS); });
  if (h.text) {
    parser.on('text', (t) => { if (!stopped) h.text!(t); });
    parser.on('cdata', (t) => { if (!stopped) h.text!(t); });
  }
  if (h.close) parser.on('closetag', (t) => { if (!stopped) h.close!(t as SaxesTagNS); });
  const decoder = new TextDecoder('utf-8');
  let seen = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      count(chunk.length);
      seen += chunk.length;
      parser.write(decoder.decode(chunk, { stream: true }));
      if (stopped || enough?.()) { stream.destroy(); return false; }
    }
    // fewer bytes than declared: a damaged part
    if (seen !== entry.uncompressedSize) throw unreadable(`${name} is not valid`);
    parser.write(decoder.decode());
    parser.close();
    return true;
  } catch (err) {
    stream.destroy();
    if (err instanceof FlatFileError) throw err;
    throw unreadable(`${name} is not valid`);
  }
}

const attr = (tag: SaxesTagNS, local: string): string | undefined => {
  // unprefixed attributes (nearly all) are keyed by their local name; looked up without allocating
  const plain = tag.attributes[local];
  if (plain !== undefined && plain.local === local) return plain.value;
  for (const key in tag.attributes) {
    const a = tag.attributes[key]!;
    if (a.local === local) return a.value;
  }
  return undefined;
};

/** Relationship targets of a part, by id and by type suffix. */
async function relationships(zip: Zip, relsName: string, baseDir: string) {
  const byId = new Map<string, string>();
  const byType = new Map<string, string>();
  await readPart(zip, relsName, () => ({
    open(tag) {
      if (tag.local !== 'Relationship') return;
      const target = attr(tag, 'Target');
      if (!target || attr(tag, 'TargetMode') === 'External') return;
      const full = resolvePath(baseDir, target);
      const id = attr(tag, 'Id');
      if (id) byId.set(id, full);
      const type = attr(tag, 'Type')?.split('/').pop();
      if (type && !byType.has(type)) byType.set(type, full);
    },
  }));
  return { byId, byType };
}

function resolvePath(baseDir: string, target: string): string {
  const parts = (target.startsWith('/') ? target.slice(1) : `${baseDir}${target}`).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop(); else if (p && p !== '.') out.push(p);
  }
  return out.join('/');
}

type RawCell = string | { shared: number };

export async function readXlsx(buffer: Buffer, collector: SampleCollector, limits: WorkbookLimits = WORKBOOK_LIMITS): Promise<{ complete: boolean }> {
  const started = threadCpuMs();
  const zip = await openZip(buffer, limits);
  try {
    // the package's main document
    const root = await relationships(zip, '_rels/.rels', '');
    const workbookPath = root.byType.get('officeDocument') ?? 'xl/workbook.xml';
    if (!zip.entries.has(workbookPath.toLowerCase())) {
      if (zip.entries.has('xl/workbook.bin')) throw notWorkbook('Excel binary workbooks (.xlsb) are not accepted; save the file as .xlsx or .csv.');
      throw notWorkbook();
    }
    const dir = workbookPath.includes('/') ? workbookPath.slice(0, workbookPath.lastIndexOf('/') + 1) : '';
    const rels = await relationships(zip, `${dir}_rels/${workbookPath.slice(dir.length)}.rels`, dir);

    // the first worksheet, and whether dates count from 1904
    let firstSheetRel: string | undefined;
    let date1904 = false;
    await readPart(zip, workbookPath, (stop) => ({
      open(tag) {
        if (tag.local === 'workbookPr') date1904 = ['1', 'true'].includes(attr(tag, 'date1904') ?? '');
        if (tag.local === 'sheet' && firstSheetRel === undefined) {
          firstSheetRel = attr(tag, 'id');
          stop();
        }
      },
    }));
    const sheetPath = firstSheetRel ? rels.byId.get(firstSheetRel) : undefined;
    if (!sheetPath || !zip.entries.has(sheetPath.toLowerCase())) throw new FlatFileError('empty', 'The workbook has no worksheet.');

    const dateStyles = await readDateStyles(zip, rels.byType.get('styles'));

    // the sheet: the first rows kept raw (shared strings resolved later), the rest counted
    const kept: { cells: RawCell[]; row: number }[] = [];
    const neededShared = new Set<number>();
    let counted = 0;
    let widest: { column: number; where: string } | null = null;
    let rowNumber = 0;
    let cells: RawCell[] = [];
    let col = 0;
    let cellType = '';
    let cellStyle = 0;
    let collecting: 'v' | 't' | null = null;
    let inInline = false;
    let phonetic = 0;
    let value = '';
    let sheetDataEnded = false;

    const complete = await readPart(zip, sheetPath, (stop) => ({
      open(tag) {
        switch (tag.local) {
          case 'row': {
            const r = Number(attr(tag, 'r'));
            rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1;
            cells = [];
            col = 0;
            break;
          }
          case 'c': {
            const ref = attr(tag, 'r');
            const c = ref ? columnIndex(ref) : -1;
            col = c >= 0 ? c : col;
            if (col >= 16384) throw unreadable('a cell is outside the sheet');
            cellType = attr(tag, 't') ?? 'n';
            cellStyle = Number(attr(tag, 's') ?? 0) || 0;
            value = '';
            inInline = false;
            break;
          }
          case 'v': collecting = 'v'; value = ''; break;
          case 'is': inInline = true; break;
          case 'rPh': phonetic++; break;
          case 't': if (inInline && phonetic === 0) collecting = 't'; break;
        }
      },
      text(t) { if (collecting && value.length < MAX_CELL_CHARS) value = clip(value + t); },
      close(tag) {
        switch (tag.local) {
          case 'v': case 't': collecting = null; break;
          case 'rPh': phonetic--; break;
          case 'c': {
            const cell = cellValue(cellType, value, dateStyles.has(cellStyle), date1904);
            if (cell !== '') {
              if (col >= MAX_COLUMNS * 4) throw new FlatFileError('wrong-structure', `Row ${rowNumber} has more than ${MAX_COLUMNS} columns.`);
              cells[col] = cell;
            }
            col++;
            break;
          }
          case 'row': {
            let last = cells.length - 1;
            while (last >= 0 && (cells[last] === undefined || cells[last] === '')) last--;
            if (last < 0) break; // a blank row
            if (kept.length < KEEP_ROWS) {
              const filled: RawCell[] = Array.from({ length: last + 1 }, (_, i) => cells[i] ?? '');
              for (const c of filled) if (typeof c === 'object') neededShared.add(c.shared);
              kept.push({ cells: filled, row: rowNumber });
            } else {
              counted++;
              if (!widest || last > widest.column) widest = { column: last, where: `Row ${rowNumber}` };
            }
            break;
          }
          case 'sheetData': sheetDataEnded = true; stop(); break;
        }
      },
    }), () => kept.length >= KEEP_ROWS && threadCpuMs() - started > limits.countCpuMs).then((done) => done || sheetDataEnded);

    // shared strings, only those the kept rows use
    const shared = await readSharedStrings(zip, rels.byType.get('sharedStrings'), neededShared);
    for (const { cells: raw, row } of kept) {
      collector.add(raw.map((c) => (typeof c === 'string' ? c : shared.get(c.shared) ?? '')), `Row ${row}`);
    }
    collector.addCounted(counted, widest);
    return { complete };
  } finally {
    zip.file.close();
  }
}

function cellValue(type: string, raw: string, isDate: boolean, date1904: boolean): RawCell {
  switch (type) {
    case 's': {
      const i = Number(raw);
      return Number.isInteger(i) && i >= 0 ? { shared: i } : '';
    }
    case 'b': return raw === '1' ? 'TRUE' : raw === '0' ? 'FALSE' : raw;
    case 'inlineStr': case 'str': case 'e': case 'd': return raw;
    default: {
      if (raw === '') return '';
      const n = Number(raw);
      return isDate && Number.isFinite(n) ? excelSerialToIso(n, date1904) : raw;
    }
  }
}

/** Cell style indexes (cellXfs) whose number format is a date or time. */
async function readDateStyles(zip: Zip, stylesPath: string | undefined): Promise<Set<number>> {
  const dates = new Set<number>();
  if (!stylesPath) return dates;
  const custom = new Map<number, string>();
  let inXfs = false;
  let xf = 0;
  await readPart(zip, stylesPath, (stop) => ({
    open(tag) {
      if (tag.local === 'numFmt') custom.set(Number(attr(tag, 'numFmtId')), attr(tag, 'formatCode') ?? '');
      if (tag.local === 'cellXfs') inXfs = true;
      if (tag.local === 'xf' && inXfs) {
        const id = Number(attr(tag, 'numFmtId') ?? 0);
        const code = custom.get(id);
        if (BUILTIN_DATE_FORMATS.has(id) || (code !== undefined && isDateFormat(code))) dates.add(xf);
        xf++;
      }
    },
    close(tag) { if (tag.local === 'cellXfs') stop(); },
  }));
  return dates;
}

/** The shared strings at the given indexes; reading stops after the highest one needed. */
async function readSharedStrings(zip: Zip, path: string | undefined, needed: Set<number>): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  if (!path || needed.size === 0) return found;
  const highest = Math.max(...needed);
  let index = -1;
  let text = '';
  let phonetic = 0;
  let inT = false;
  await readPart(zip, path, (stop) => ({
    open(tag) {
      if (tag.local === 'si') { index++; text = ''; }
      if (tag.local === 'rPh') phonetic++;
      if (tag.local === 't' && phonetic === 0) inT = true;
    },
    text(t) { if (inT && text.length < MAX_CELL_CHARS) text = clip(text + t); },
    close(tag) {
      if (tag.local === 't') inT = false;
      if (tag.local === 'rPh') phonetic--;
      if (tag.local === 'si') {
        if (needed.has(index)) found.set(index, text);
        if (index >= highest) stop();
      }
    },
  }));
  return found;
}

// ---------------------------------------------------------------- .xls

export function readXls(buffer: Buffer, collector: SampleCollector): { complete: boolean } {
  checkCompoundFile(buffer);
  let cfb: unknown;
  try {
    cfb = XLSX.CFB.read(buffer, { type: 'buffer' });
  } catch {
    throw new FlatFileError('unsupported-type', 'The file is not a readable Excel 97-2003 workbook.');
  }
  if (XLSX.CFB.find(cfb, 'EncryptionInfo') || XLSX.CFB.find(cfb, 'EncryptedPackage')) {
    throw new FlatFileError('unsupported-type', 'The workbook is password-protected; remove the password and upload it again.');
  }
  if (!XLSX.CFB.find(cfb, 'Workbook') && !XLSX.CFB.find(cfb, 'Book')) {
    throw new FlatFileError('unsupported-type', 'The file is an Office document, not an Excel workbook.');
  }
  let wb: XLSX.WorkBook;
  try {
    wb = XLSX.read(buffer, { type: 'buffer', dense: true, sheetRows: XLS_ROWS, sheets: 0, cellFormula: false, cellHTML: false, cellText: false, cellNF: true, cellStyles: false });
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    if (/password|encrypt/i.test(message)) throw new FlatFileError('unsupported-type', 'The workbook is password-protected; remove the password and upload it again.');
    throw unreadable('its worksheet data is damaged');
  }
  const name = wb.SheetNames[0];
  const sheet = name ? wb.Sheets[name] : undefined;
  if (!sheet) throw new FlatFileError('empty', 'The workbook has no worksheet.');
  const date1904 = !!wb.Workbook?.WBProps?.date1904;
  const data = (sheet['!data'] ?? []) as (XLSX.CellObject | undefined)[][];
  data.forEach((row, r) => {
    if (!row) return;
    const cells = Array.from({ length: Math.min(row.length, MAX_COLUMNS * 4) }, (_, c) => xlsCell(row[c], date1904));
    collector.add(cells, `Row ${r + 1}`);
  });
  // sheetRows cut the sheet short when the full range is larger than what was read
  const full = sheet['!fullref'] ? XLSX.utils.decode_range(sheet['!fullref']) : null;
  const complete = !full || full.e.r < XLS_ROWS;
  return { complete };
}

/** A cell of a workbook read by SheetJS, as text (dates as ISO); also used for whole-file reads. */
export function xlsCell(cell: XLSX.CellObject | undefined, date1904: boolean): string {
  if (!cell || cell.v === undefined || cell.v === null) return '';
  switch (cell.t) {
    case 'n': {
      const fmt = typeof cell.z === 'string' ? cell.z : '';
      return fmt && XLSX.SSF.is_date(fmt) ? excelSerialToIso(cell.v as number, date1904) : String(cell.v);
    }
    case 'b': return cell.v ? 'TRUE' : 'FALSE';
    case 'e': return cell.w ?? '#ERROR';
    case 'd': return cell.v instanceof Date ? cell.v.toISOString().slice(0, 19) : String(cell.v);
    default: return String(cell.v);
  }
}
