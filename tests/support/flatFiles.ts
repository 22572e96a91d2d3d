/** Files for the upload tests, made at test time: the repository carries no EICAR file and no binaries. */
import zlib from 'node:zlib';
import * as XLSX from '@e965/xlsx';

/** The EICAR anti-virus test string, joined from parts so no file in the repository is one. */
export function eicar(): string {
  return ['X5O!P%@AP[4\\PZX54(P^)7CC)7}$', 'EICAR-STANDARD-', 'ANTIVIRUS-TEST-FILE!$H+H*'].join('');
}

/** A valid CSV of exactly `bytes` bytes: a header and rows of 100 bytes, the last one padded. */
export function csvOfSize(bytes: number): Buffer {
  const header = 'id,name,notes\n';
  const out = Buffer.alloc(bytes, 0x78 /* x */);
  out.write(header, 0, 'latin1');
  let at = header.length;
  let i = 1;
  while (bytes - at >= 200) {
    const start = `${String(i).padStart(8, '0')},row ${i},`;
    out.write(start, at, 'latin1');
    out[at + 99] = 0x0a;
    at += 100;
    i++;
  }
  // the last row takes whatever is left (100 to 199 bytes)
  out.write(`${String(i).padStart(8, '0')},row ${i},`, at, 'latin1');
  out[bytes - 1] = 0x0a;
  return out;
}

/** A CSV text with a header and `rows` rows. */
export function csvText(rows: number, header = ['First name', 'Last name', 'Email', 'Amount']): string {
  const lines = [header.join(',')];
  for (let i = 1; i <= rows; i++) lines.push(`Ann${i},Smith${i},ann${i}@example.org,${i}.50`);
  return `${lines.join('\r\n')}\r\n`;
}

export function workbook(rows: unknown[][], bookType: 'xlsx' | 'biff8', opts: { sharedStrings?: boolean } = {}): Buffer {
  const wb = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(wb, XLSX.utils.aoa_to_sheet(rows, { cellDates: true }), 'Gifts');
  return XLSX.write(wb, { type: 'buffer', bookType, bookSST: opts.sharedStrings ?? false, compression: true }) as Buffer;
}

export const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

// ---------------------------------------------------------------- Excel bombs, built at test time

/**
 * A part's content: bytes, or `head`, then units until about `bytes` bytes, then `tail`. The units
 * make one megabyte (`unit(i)` for i = 0, 1 ...: varied units compress like real data) that is
 * deflated once and repeated, so a part of hundreds of megabytes is built in milliseconds
 * without ever holding its inflated content.
 */
export type PartContent = Buffer | string | { head: string; unit: string | ((i: number) => string); bytes: number; tail: string };

export interface ZipPart {
  name: string;
  content: PartContent;
  /** a false uncompressed size written in both headers */
  declaredSize?: number;
}

const DEFLATE_CHUNK = 1024 * 1024;

/** The units of one megabyte and how many times that megabyte is repeated. */
function repetition(content: Exclude<PartContent, Buffer | string>): { units: string[]; repeats: number } {
  const units: string[] = [];
  for (let size = 0, i = 0; size < DEFLATE_CHUNK; i++) {
    const u = typeof content.unit === 'string' ? content.unit : content.unit(i);
    if (size + u.length > DEFLATE_CHUNK && units.length > 0) break;
    units.push(u);
    size += u.length;
  }
  const chunk = units.join('').length;
  return { units, repeats: Math.max(1, Math.round((content.bytes - content.head.length - content.tail.length) / chunk)) };
}

function deflated(content: PartContent): { data: Buffer; size: number; crc: number } {
  const flush = { finishFlush: zlib.constants.Z_FULL_FLUSH };
  if (typeof content === 'string' || Buffer.isBuffer(content)) {
    const bytes = Buffer.from(content);
    return { data: zlib.deflateRawSync(bytes), size: bytes.length, crc: zlib.crc32(bytes) };
  }
  const head = Buffer.from(content.head);
  const tail = Buffer.from(content.tail);
  const { units, repeats } = repetition(content);
  const chunk = Buffer.from(units.join(''));
  // each flushed segment is byte-aligned and not final, so the segments concatenate into one stream
  const chunkBlock = zlib.deflateRawSync(chunk, flush);
  let crc = zlib.crc32(head);
  for (let i = 0; i < repeats; i++) crc = zlib.crc32(chunk, crc);
  crc = zlib.crc32(tail, crc);
  const blocks = [zlib.deflateRawSync(head, flush), ...Array.from({ length: repeats }, () => chunkBlock), zlib.deflateRawSync(tail)];
  return { data: Buffer.concat(blocks), size: head.length + repeats * chunk.length + tail.length, crc };
}

/** A ZIP archive written field by field (PKWARE APPNOTE 4.3), every part deflated. */
export function zipOf(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const { data, size, crc } = deflated(part.content);
    const name = Buffer.from(part.name, 'utf8');
    const declared = part.declaredSize ?? size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(0x21, 12); // 1980-01-01
    local.writeUInt32LE(crc >>> 0, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(8, 10);
    entry.writeUInt16LE(0x21, 14);
    entry.writeUInt32LE(crc >>> 0, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(declared, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE(offset, 42);
    central.push(entry, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

/** A minimal .xlsx package around a first sheet and, optionally, a shared strings part. */
export function xlsxOf(sheet: Omit<ZipPart, 'name'>, sharedStrings?: Omit<ZipPart, 'name'>): Buffer {
  return zipOf([
    { name: '[Content_Types].xml', content: '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: '_rels/.rels', content: `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>` },
    { name: 'xl/workbook.xml', content: `<workbook xmlns="${NS}" xmlns:r="${REL}"><sheets><sheet name="Gifts" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    {
      name: 'xl/_rels/workbook.xml.rels',
      content: `<Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`
        + `<Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    },
    { name: 'xl/worksheets/sheet1.xml', ...sheet },
    ...(sharedStrings ? [{ name: 'xl/sharedStrings.xml', ...sharedStrings }] : []),
  ]);
}

const MB = 1024 * 1024;
const SHEET_HEAD = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${NS}"><sheetData>`;
const SHEET_TAIL = '</sheetData></worksheet>';
const HEADER_ROW = '<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Amount</t></is></c></row>';

/** A sheet whose XML inflates to about `megabytes` MB: a header, then the same row over and over. */
export function sheetBomb(megabytes: number): Buffer {
  return xlsxOf({ content: { head: SHEET_HEAD + HEADER_ROW, unit: '<row><c t="inlineStr"><is><t>Ann</t></is></c><c><v>10</v></c></row>', bytes: megabytes * MB, tail: SHEET_TAIL } });
}

/**
 * A small sheet whose one data row names the last shared string, in a shared strings part that
 * inflates to about `megabytes` MB, so a reader has to go through all of it.
 */
export function sharedStringsBomb(megabytes: number): Buffer {
  const strings = { head: `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${NS}">`, unit: '<si><t>x</t></si>', bytes: megabytes * MB, tail: '<si><t>Ann</t></si></sst>' };
  const { units, repeats } = repetition(strings);
  const last = units.length * repeats;
  return xlsxOf(
    { content: `${SHEET_HEAD}${HEADER_ROW}<row r="2"><c r="A2" t="s"><v>${last}</v></c><c r="B2"><v>10</v></c></row>${SHEET_TAIL}` },
    { content: strings },
  );
}

/** A sheet that declares a small, harmless size in the ZIP directory and inflates to about `megabytes` MB. */
export function lyingSizeBomb(megabytes: number): Buffer {
  return xlsxOf({
    content: { head: SHEET_HEAD + HEADER_ROW, unit: '<row><c t="inlineStr"><is><t>Ann</t></is></c><c><v>10</v></c></row>', bytes: megabytes * MB, tail: SHEET_TAIL },
    declaredSize: 64 * 1024,
  });
}

/**
 * A legitimate large workbook: a header and varied rows (names, amounts, dates) whose sheet XML
 * inflates to about `megabytes` MB at the ratio real sheets have (about 10 to 15 times).
 */
export function largeWorkbook(megabytes: number): Buffer {
  const row = (i: number) => `<row r="${i + 2}" spans="1:3"><c r="A${i + 2}" s="1" t="inlineStr"><is><t>Ann ${(i * 7919) % 1009} O'Neill</t></is></c>`
    + `<c r="B${i + 2}" s="2"><v>${(i * 37) % 500}.5</v></c><c r="C${i + 2}" s="1" t="inlineStr"><is><t>ann${i % 5000}@example.org</t></is></c></row>`;
  const header = '<row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Amount</t></is></c><c r="C1" t="inlineStr"><is><t>Email</t></is></c></row>';
  return xlsxOf({ content: { head: SHEET_HEAD + header, unit: row, bytes: megabytes * MB, tail: SHEET_TAIL } });
}

// ---------------------------------------------------------------- .xls containers with false directories

/** The directory entries of an OLE2 compound file written by SheetJS (version 3, 512-byte sectors). */
function compoundFile(buf: Buffer) {
  const sectorAt = (n: number) => (n + 1) * 512;
  const fat = sectorAt(buf.readInt32LE(76)); // the first FAT sector covers these small files
  const next = (n: number) => buf.readInt32LE(fat + n * 4);
  const entries = new Map<string, number>();
  for (let d = buf.readInt32LE(48); d >= 0; d = next(d)) {
    for (let at = sectorAt(d); at < sectorAt(d) + 512; at += 128) {
      const length = buf.readUInt16LE(at + 64);
      if (length > 2) entries.set(buf.toString('utf16le', at, at + length - 2), at);
    }
  }
  return { sectorAt, fat, next, entries, entry: (name: string) => entries.get(name)! };
}

/** A real .xls of `rows` rows whose Workbook stream says it holds 2GB. */
export function xlsWithOversizedStream(rows = 400): Buffer {
  const buf = biffOfRows(rows);
  buf.writeUInt32LE(0x7ffffff0, compoundFile(buf).entry('Workbook') + 120);
  return buf;
}

/**
 * A real .xls whose Workbook stream starts in the middle of a sector chain that loops back on
 * itself: SheetJS 0.20.3 follows such a chain without checking, for as long as memory lasts.
 */
export function xlsWithLoopingChain(rows = 400): Buffer {
  const buf = biffOfRows(rows);
  const cf = compoundFile(buf);
  const at = cf.entry('Workbook');
  const chain: number[] = [];
  for (let n = buf.readInt32LE(at + 116); n >= 0; n = cf.next(n)) chain.push(n);
  buf.writeInt32LE(chain[1]!, cf.fat + chain.at(-1)! * 4);
  buf.writeInt32LE(chain[1]!, at + 116);
  return buf;
}

/**
 * A 3.5 KB .xls with two bytes changed (found by the property tests): a mini FAT entry that points
 * outside the mini stream makes SheetJS read a padding byte, set here, as part of a formula, and
 * SheetJS 0.20.3 never returns: its formula parser (parse_Rgce) loops without end on it (it ran
 * for 3 minutes before it was killed). Nothing in the directory is wrong in size, so only the
 * worker's time budget stops it.
 */
export function xlsThatSheetJsNeverFinishes(): Buffer {
  const buf = workbook([['Name', 'Gift'], ['Ann', 1]], 'biff8');
  const cf = compoundFile(buf);
  buf[cf.sectorAt(buf.readInt32LE(60)) + 9 * 4 + 2] = 0xde;
  buf[cf.sectorAt(buf.readInt32LE(cf.entry('R') + 116)) + 47] = 0x21;
  return buf;
}

function biffOfRows(rows: number): Buffer {
  const data: unknown[][] = [['Name', 'Amount']];
  for (let i = 0; i < rows; i++) data.push([`Name ${i}`, i]);
  return workbook(data, 'biff8');
}
