/**
 * parseTabular: a CSV or Excel file (stream or bytes) -> its headers, the first 20 rows and the
 * row count. Shared by the flat file service (uploads) and the Secure FTP connector.
 *
 * The real type comes from the content (detect.ts); the file name only has to end in .csv,
 * .xlsx or .xls. CSV is decoded and parsed as a stream: memory holds one chunk, the header and
 * the sample. Excel files are random-access containers, so their bytes are gathered first (at
 * most `maxBytes`); they are then read in a worker thread under size, CPU-time and memory limits
 * (workbookReader.ts, limits.ts), the .xlsx sheet itself streamed (excel.ts).
 *
 * Every refusal is a FlatFileError naming its upload outcome; nothing else is thrown for any
 * input (tests/unit/flatFileProperties.test.ts).
 */
import type { Readable } from 'node:stream';
import { hasAcceptedExtension, MAX_UPLOAD_BYTES, type FileKind } from '../../../src/domain/upload.ts';
import { CsvTokenizer, detectDelimiter, type Delimiter } from './csv.ts';
import { detectKind, SNIFF_BYTES, type TextEncoding } from './detect.ts';
import { FlatFileError } from './errors.ts';
import { MAX_COLUMNS, SampleCollector } from './sample.ts';
import { readWorkbook } from './workbookReader.ts';

export { FlatFileError } from './errors.ts';

export interface TabularResult {
  /** the type the content really is */
  kind: FileKind;
  headers: string[];
  /** the first 20 rows, each as long as `headers` */
  sampleRows: string[][];
  /** data rows (blank rows not counted); null when the file was too large to count them all */
  rowCount: number | null;
  /** bytes read */
  size: number;
  /** for CSV: how it was read */
  encoding?: TextEncoding;
  delimiter?: Delimiter;
}

export interface ParseOptions {
  fileName: string;
  /** refuse input larger than this ('size-too-big'); default 15MB, the upload limit */
  maxBytes?: number;
}

export type TabularInput = Readable | AsyncIterable<Uint8Array> | Uint8Array;

export async function parseTabular(input: TabularInput, opts: ParseOptions): Promise<TabularResult> {
  const maxBytes = opts.maxBytes ?? MAX_UPLOAD_BYTES;
  if (!hasAcceptedExtension(opts.fileName)) {
    throw new FlatFileError('unsupported-type', 'Only .csv, .xlsx and .xls files are accepted.');
  }
  const reader = new ByteReader(input, maxBytes);
  try {
    const head = await reader.read(SNIFF_BYTES);
    if (head.length === 0) throw new FlatFileError('empty', 'The file is empty.');
    const detected = detectKind(head);
    switch (detected.kind) {
      case 'unsupported':
        throw new FlatFileError('unsupported-type', detected.reason);
      case 'csv':
        return await readCsv(head, reader, detected.encoding);
      case 'xlsx':
      case 'xls': {
        const whole = Buffer.concat([head, ...(await reader.rest())]);
        const { headers, sampleRows, rowCount } = await readWorkbook(detected.kind, whole);
        return { kind: detected.kind, headers, sampleRows, rowCount, size: reader.size };
      }
    }
  } finally {
    reader.close();
  }
}

async function readCsv(head: Uint8Array, reader: ByteReader, encoding: TextEncoding): Promise<TabularResult> {
  // a BOM is consumed by the decoder (ignoreBOM false)
  const decoder = new TextDecoder(encoding);
  const first = decoder.decode(head, { stream: true });
  if (first.trim() === '' && reader.done) throw new FlatFileError('empty', 'The file is empty.');
  const delimiter = detectDelimiter(first.replace(/^[\r\n]+/, ''));
  const collector = new SampleCollector();
  const tokenizer = new CsvTokenizer(delimiter, (record, line) => collector.add(record, `Line ${line}`), MAX_COLUMNS * 4);
  tokenizer.push(first);
  for (;;) {
    const chunk = await reader.next();
    if (!chunk) break;
    tokenizer.push(decoder.decode(chunk, { stream: true }));
  }
  tokenizer.push(decoder.decode());
  tokenizer.end();
  const { headers, sampleRows, rowCount } = collector.finish();
  return { kind: 'csv', headers, sampleRows, rowCount, size: reader.size, encoding, delimiter };
}

/** Pulls bytes from any input, counting them against the limit. */
class ByteReader {
  size = 0;
  done = false;
  private readonly it: AsyncIterator<Uint8Array> | null;
  private pending: Uint8Array | null;

  constructor(private readonly input: TabularInput, private readonly maxBytes: number) {
    if (input instanceof Uint8Array) {
      this.it = null;
      this.pending = input;
    } else {
      this.it = (input as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      this.pending = null;
    }
  }

  async next(): Promise<Uint8Array | null> {
    let chunk: Uint8Array | null;
    if (this.pending) {
      chunk = this.pending;
      this.pending = null;
    } else if (this.it && !this.done) {
      const r = await this.it.next();
      chunk = r.done ? null : typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    } else {
      chunk = null;
    }
    if (!chunk) { this.done = true; return null; }
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      throw new FlatFileError('size-too-big', `The file is larger than ${this.maxBytes} bytes.`);
    }
    if (!this.it && !this.pending) this.done = true;
    return chunk;
  }

  /** At least `n` bytes (fewer only at the end). */
  async read(n: number): Promise<Buffer> {
    const parts: Uint8Array[] = [];
    let have = 0;
    while (have < n) {
      const c = await this.next();
      if (!c) break;
      parts.push(c);
      have += c.length;
    }
    return Buffer.concat(parts);
  }

  async rest(): Promise<Uint8Array[]> {
    const parts: Uint8Array[] = [];
    for (let c = await this.next(); c; c = await this.next()) parts.push(c);
    return parts;
  }

  close(): void {
    if (!this.done) {
      const destroy = (this.input as Readable).destroy;
      if (typeof destroy === 'function') destroy.call(this.input);
      else void this.it?.return?.();
    }
  }
}
