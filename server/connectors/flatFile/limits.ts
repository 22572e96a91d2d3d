/**
 * What a workbook may cost to read. An .xlsx is a ZIP archive: a 250 KB file can inflate to
 * hundreds of megabytes of XML (a "zip bomb") and hold a core for tens of seconds. An .xls is an
 * OLE2 compound file whose directory names the size and first sector of each stream; a size
 * larger than the file, or a sector chain that loops, sends a reader after data that is not there.
 *
 * The ZIP directory's declared sizes and compression ratios are checked before anything is
 * inflated, inflated bytes are counted again while streaming (declared sizes can lie), and the
 * compound file's directory is walked before SheetJS sees it. The time limits are enforced by
 * workbookReader.ts, which reads every workbook in a worker thread it can terminate.
 * See README "File upload".
 */
import { FlatFileError } from './errors.ts';

const MB = 1024 * 1024;

export interface WorkbookLimits {
  /** inflated bytes of any one part of an .xlsx */
  partBytes: number;
  /** inflated bytes of all parts together */
  totalBytes: number;
  /** inflated / compressed size above which a part larger than `ratioGraceBytes` is refused */
  maxRatio: number;
  ratioGraceBytes: number;
  /** CPU time (ms) of the reading thread after which rows are no longer counted (the count becomes unknown) */
  countCpuMs: number;
  /** CPU time (ms) of the reading thread after which the read is stopped and the file refused */
  cpuMs: number;
  /** wall time (ms) after which the read is stopped whatever the CPU time: a stuck worker */
  wallMs: number;
  /** heap of the worker thread (MB); past it the worker is stopped and the file refused */
  heapMb: number;
}

/**
 * A legitimate 15MB workbook inflates to about 150MB of sheet XML at Excel's usual ratio of about
 * 10; the part limit leaves room for one at 17 times and the total for a file at 34 times.
 * Deflate reaches about 1000 times on repeated bytes; real parts stay well under 100 times
 * (Apache POI refuses above 100) except sheets of empty formatted rows, hence 200, and only for
 * parts over 8MB, which take a fraction of a second to read whatever their ratio.
 * Reading costs about 25 to 35MB of XML per CPU second, so 3 s of counting covers 75 to 100MB of
 * sheet XML; a file larger than that gets its sample and an unknown row count.
 */
export const WORKBOOK_LIMITS: WorkbookLimits = {
  partBytes: 256 * MB,
  totalBytes: 512 * MB,
  maxRatio: 200,
  ratioGraceBytes: 8 * MB,
  countCpuMs: 3_000,
  cpuMs: 5_000,
  wallMs: 30_000,
  heapMb: 256,
};

/** CPU time of the calling thread in ms (wall time where Node cannot tell, before 23.9). */
export function threadCpuMs(): number {
  if (typeof process.threadCpuUsage !== 'function') return performance.now();
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

const megabytes = (bytes: number) => `${Math.ceil(bytes / MB)} MB`;

export const expandsTooMuch = (limit: number) =>
  new FlatFileError('size-too-big', `The spreadsheet expands to more than ${megabytes(limit)} when opened.`);

export const expandsPastDeclared = (part: string) =>
  new FlatFileError('size-too-big', `The spreadsheet expands to more than its own directory says (${part}); it is damaged or made to overload readers.`);

export const tooSlow = (cpuMs: number) =>
  new FlatFileError('size-too-big', `The spreadsheet takes more than ${cpuMs / 1000} seconds to read; save it as CSV, or remove what it does not need, and upload it again.`);

export const tooMuchMemory = (heapMb: number) =>
  new FlatFileError('size-too-big', `The spreadsheet needs more than ${heapMb} MB of memory to read; save it as CSV and upload it again.`);

const damaged = (what: string) => new FlatFileError('wrong-structure', `The workbook could not be read: ${what}.`);

// ---------------------------------------------------------------- ZIP (.xlsx)

export interface ZipEntrySizes {
  fileName: string;
  compressionMethod: number;
  compressedSize: number;
  uncompressedSize: number;
}

/** The central directory's declared sizes, before anything is inflated. */
export function checkZipEntries(entries: readonly ZipEntrySizes[], limits: WorkbookLimits): void {
  let total = 0;
  for (const e of entries) {
    if (e.compressionMethod === 0 && e.compressedSize !== e.uncompressedSize) throw damaged(`${e.fileName} is not valid`);
    if (e.uncompressedSize > limits.partBytes) throw expandsTooMuch(limits.partBytes);
    if (e.uncompressedSize > limits.ratioGraceBytes && e.uncompressedSize > Math.max(1, e.compressedSize) * limits.maxRatio) {
      throw new FlatFileError('size-too-big', `The spreadsheet expands more than ${limits.maxRatio} times when opened `
        + `(${e.fileName}: ${Math.ceil(e.compressedSize / 1024)} KB to ${megabytes(e.uncompressedSize)}); it is damaged or made to overload readers.`);
    }
    total += e.uncompressedSize;
    if (total > limits.totalBytes) throw expandsTooMuch(limits.totalBytes);
  }
}

/** Counts inflated bytes as they stream, for one part and for the whole package. */
export class InflateMeter {
  private total = 0;
  constructor(private readonly limits: WorkbookLimits) {}

  /** A counter for one part whose directory entry declares `declared` bytes. */
  part(name: string, declared: number): (bytes: number) => void {
    let seen = 0;
    return (bytes) => {
      seen += bytes;
      this.total += bytes;
      if (seen > declared) throw expandsPastDeclared(name);
      if (seen > this.limits.partBytes) throw expandsTooMuch(this.limits.partBytes);
      if (this.total > this.limits.totalBytes) throw expandsTooMuch(this.limits.totalBytes);
    };
  }
}

// ---------------------------------------------------------------- OLE2 compound file (.xls)

const MAX_REGULAR_SECTOR = 0xfffffffa;
const ENDOFCHAIN = 0xfffffffe;
const FREESECT = 0xffffffff;
/** streams smaller than this live in the root's mini stream (the value SheetJS assumes) */
const MINI_STREAM_CUTOFF = 4096;

/**
 * [MS-CFB]: walks the header, the FAT and the directory, and refuses a stream that declares more
 * bytes than the file holds, streams that together do, and a sector chain that loops (SheetJS
 * follows some chains without checking for loops, and a loop holds it for as long as memory
 * lasts). Anything else malformed is left to SheetJS, which refuses it with its own error.
 */
export function checkCompoundFile(bytes: Uint8Array): void {
  if (bytes.length < 512) return;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u32 = (at: number) => (at + 4 <= bytes.length ? view.getUint32(at, true) : FREESECT);
  const shift = view.getUint16(30, true);
  if (shift !== 9 && shift !== 12) return;
  const size = 1 << shift;
  const perSector = size / 4;
  const sectors = Math.ceil((bytes.length - size) / size);
  const sectorAt = (n: number) => (n + 1) * size;
  const inFile = (n: number) => n < sectors;

  // FAT sector numbers: 109 in the header, the rest in the DIFAT chain
  const fatSectors: number[] = [];
  for (let i = 0; i < 109; i++) {
    const n = u32(76 + i * 4);
    if (n > MAX_REGULAR_SECTOR) break;
    fatSectors.push(n);
  }
  const seenDifat = new Set<number>();
  for (let d = u32(68), left = u32(72); left > 0 && inFile(d); left--) {
    if (seenDifat.has(d)) throw damaged('its sector chains loop');
    seenDifat.add(d);
    for (let i = 0; i < perSector - 1; i++) {
      const n = u32(sectorAt(d) + i * 4);
      if (n <= MAX_REGULAR_SECTOR) fatSectors.push(n);
    }
    d = u32(sectorAt(d) + size - 4);
  }
  const next = (n: number): number => {
    const fat = fatSectors[Math.floor(n / perSector)];
    return fat === undefined || !inFile(fat) ? ENDOFCHAIN : u32(sectorAt(fat) + (n % perSector) * 4);
  };
  // sectors already followed to a chain's end: a later chain that joins one is not walked again
  const ends = new Set<number>();
  /** The sectors of a chain, refusing a loop; a chain that runs off the file just ends. */
  const chain = (start: number): number[] => {
    const walked: number[] = [];
    const seen = new Set<number>();
    for (let n = start; inFile(n) && !ends.has(n); n = next(n)) {
      if (seen.has(n)) throw damaged('its sector chains loop');
      seen.add(n);
      walked.push(n);
    }
    for (const n of walked) ends.add(n);
    return walked;
  };

  const v3 = view.getUint16(26, true) === 3;
  let declared = 0;
  for (const dirSector of chain(u32(48))) {
    for (let at = sectorAt(dirSector); at + 128 <= Math.min(sectorAt(dirSector) + size, bytes.length); at += 128) {
      const type = bytes[at + 66];
      if (type !== 2 && type !== 5) continue; // only streams and the root (which holds the small streams) have data
      // version 3 files may leave garbage in the high half of the size
      const streamSize = u32(at + 120) + (v3 ? 0 : u32(at + 124) * 2 ** 32);
      if (streamSize > bytes.length) {
        throw new FlatFileError('size-too-big', `The workbook says one of its parts holds ${megabytes(streamSize)}, more than the whole file; it is damaged or made to overload readers.`);
      }
      if (type === 2 && streamSize < MINI_STREAM_CUTOFF) continue; // inside the root's mini stream, counted with it
      declared += streamSize;
      chain(u32(at + 116));
    }
  }
  if (declared > bytes.length) {
    throw new FlatFileError('size-too-big', `The workbook says its parts hold ${megabytes(declared)}, more than the whole file; it is damaged or made to overload readers.`);
  }
}
