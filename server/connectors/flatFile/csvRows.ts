/**
 * Every row of a CSV file, streamed in batches (parseTabular keeps only a sample): the same
 * detection by content, decoding, delimiter and tokenizer, the header row checked as uploads check
 * it. The consumer's promise for a batch is awaited before more is read, so memory holds one
 * batch. Refusals are FlatFileErrors naming their upload outcome.
 */
import { MAX_UPLOAD_BYTES } from '../../../src/domain/upload.ts';
import { CsvTokenizer, detectDelimiter } from './csv.ts';
import { detectKind, SNIFF_BYTES } from './detect.ts';
import { FlatFileError } from './errors.ts';
import { checkHeaders, MAX_COLUMNS } from './sample.ts';

export interface CsvRow {
  /** the line the row starts on (the header is line 1 when it is the first) */
  line: number;
  values: string[];
}

export interface CsvRowsHandler {
  headers(headers: string[]): void;
  rows(batch: CsvRow[]): Promise<void>;
}

const isBlank = (record: readonly string[]) => record.every((v) => v.trim() === '');

export async function readCsvRows(
  input: AsyncIterable<Uint8Array>, handler: CsvRowsHandler, opts: { maxBytes?: number; batchSize?: number } = {},
): Promise<{ rows: number; size: number }> {
  const it = input[Symbol.asyncIterator]();
  try {
    return await read(it, handler, opts.maxBytes ?? MAX_UPLOAD_BYTES, opts.batchSize ?? 5000);
  } finally {
    // a refusal part way closes the input (a file stream) too
    await it.return?.();
  }
}

async function read(it: AsyncIterator<Uint8Array>, handler: CsvRowsHandler, maxBytes: number, batchSize: number): Promise<{ rows: number; size: number }> {
  let size = 0;
  const next = async (): Promise<Uint8Array | null> => {
    const r = await it.next();
    if (r.done) return null;
    const chunk = typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
    size += chunk.length;
    if (size > maxBytes) throw new FlatFileError('size-too-big', `The file is larger than ${maxBytes} bytes.`);
    return chunk;
  };

  const head: Uint8Array[] = [];
  let headSize = 0;
  let ended = false;
  while (headSize < SNIFF_BYTES) {
    const chunk = await next();
    if (!chunk) { ended = true; break; }
    head.push(chunk);
    headSize += chunk.length;
  }
  const first = Buffer.concat(head);
  if (first.length === 0) throw new FlatFileError('empty', 'The file is empty.');
  const detected = detectKind(first);
  if (detected.kind === 'unsupported') throw new FlatFileError('unsupported-type', detected.reason);
  if (detected.kind !== 'csv') throw new FlatFileError('unsupported-type', 'The file is an Excel workbook: save it as CSV and import that.');

  const decoder = new TextDecoder(detected.encoding);
  const text = decoder.decode(first, { stream: true });
  if (text.trim() === '' && ended) throw new FlatFileError('empty', 'The file is empty.');

  let headers: string[] | null = null;
  let rows = 0;
  let pending: CsvRow[] = [];
  const tokenizer = new CsvTokenizer(detectDelimiter(text.replace(/^[\r\n]+/, '')), (record, line) => {
    if (isBlank(record)) return;
    if (headers === null) {
      headers = checkHeaders(record);
      if (headers.length === 0) throw new FlatFileError('wrong-structure', 'The header row is empty.');
      handler.headers(headers);
      return;
    }
    rows++;
    pending.push({ line, values: record });
  }, MAX_COLUMNS * 4);
  const flush = async (all: boolean) => {
    while (pending.length >= batchSize || (all && pending.length > 0)) {
      const batch = pending.slice(0, batchSize);
      pending = pending.slice(batch.length);
      await handler.rows(batch);
    }
  };

  tokenizer.push(text);
  await flush(false);
  if (!ended) {
    for (let chunk = await next(); chunk; chunk = await next()) {
      tokenizer.push(decoder.decode(chunk, { stream: true }));
      await flush(false);
    }
  }
  tokenizer.push(decoder.decode());
  tokenizer.end();
  await flush(true);
  if (headers === null) throw new FlatFileError('empty', 'The file has no content.');
  if (rows === 0) throw new FlatFileError('empty', 'The file has a header row but no rows of data.');
  return { rows, size };
}
