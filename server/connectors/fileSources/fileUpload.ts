/**
 * The file upload connector: files uploaded in the browser through the flat file service, which
 * keeps their headers and first 20 rows (SPEC.md section 5). Objects are the tenant's uploads.
 *
 * A file uploaded to a file-upload formula waits whole in the file store (uploads.file_key) until
 * its rows are collected: a pull reads every row of it in batches, the watermark naming the last
 * row collected, so a run that stops resumes after it. Once the engine has stored them all it
 * acknowledges the final watermark, and the file is deleted; the headers and sample stay.
 */
import { dataFileStore } from './fileStore.ts';
import {
  ConnectorInputError, NotSupported, processingError, type Connector, type ConnectorContext, type SourceRecord, type Watermark,
} from '../connector.ts';
import { FlatFileError } from '../flatFile/errors.ts';
import { tableRows, type RowEnd } from './table.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function upload(ctx: ConnectorContext, id: string) {
  if (!UUID.test(id)) throw new ConnectorInputError(`${id} is not an upload.`);
  const row = await ctx.tenant.uploads.get(id);
  if (!row) throw new ConnectorInputError('There is no such upload.');
  return row;
}

/** The store the flat file service keeps uploads in (server/http/flatFileService.ts). */

/**
 * How far a pull has read one upload: its last row collected (the line it starts on), whether that
 * was the last, and where in the file the next read starts (a CSV's: the next slice of a run reads on from there).
 */
interface RowMark { u: string; row: number; done?: true; at?: RowEnd }

/** The mark, or null when there is none or it is another upload's (each upload is read from its start). */
export function parseRowMark(since: Watermark | null, uploadId: string): RowMark | null {
  if (!since) return null;
  let mark: RowMark;
  try {
    mark = JSON.parse(since) as RowMark;
  } catch {
    throw new ConnectorInputError('The watermark is not one this connector wrote.');
  }
  const at = (mark as Partial<RowMark> | null)?.at;
  if (typeof mark !== 'object' || mark === null || typeof mark.u !== 'string' || !Number.isInteger(mark.row)
    || (at !== undefined && !(Number.isSafeInteger(at.byte) && at.byte >= 0 && Number.isSafeInteger(at.line) && at.line > 0 && typeof at.cr === 'boolean'))) {
    throw new ConnectorInputError('The watermark is not one this connector wrote.');
  }
  return mark.u === uploadId ? mark : null;
}

const markOf = (mark: RowMark): Watermark => JSON.stringify(mark);

export const fileUploadConnector: Connector = {
  system: 'file-upload',
  async test(ctx) {
    const rows = await ctx.tenant.uploads.list(10_000);
    return { detail: `File upload is ready; ${rows.length} file${rows.length === 1 ? ' has' : 's have'} been uploaded.` };
  },
  async listObjects(ctx) {
    const rows = await ctx.tenant.uploads.list(200);
    return rows.map((r) => ({ name: r.id, label: `${r.fileName} (${r.createdOn.toISOString().slice(0, 10)})` }));
  },
  async describeFields(ctx, object) {
    const row = await upload(ctx, object);
    return row.headers.map((h) => ({ name: h, label: h, type: 'string' as const }));
  },
  async *pull(ctx, object, since, options) {
    const row = await upload(ctx, object);
    // no file: it was never kept (a sample), or its rows were collected and it is gone
    if (!row.fileKey) return;
    const mark = parseRowMark(since, row.id);
    if (mark?.done) return;
    const after = mark?.row ?? 0;
    const batchSize = options?.batchSize ?? 500;
    let last = after;
    let at: RowEnd | undefined;
    let batch: SourceRecord[] = [];
    const store = dataFileStore(ctx.dataDir);
    const fileKey = row.fileKey;
    try {
      for await (const chunk of tableRows((range) => store.read(fileKey, range), row.fileName, mark?.at ? { from: mark.at } : {})) {
        for (const { line, values, end } of chunk.rows) {
          if (line <= after) continue;
          batch.push({ id: `${row.id}#${line}`, fields: Object.fromEntries(chunk.headers.map((h, c) => [h, values[c] ?? ''])) });
          last = line;
          at = end;
          if (batch.length >= batchSize) {
            yield { records: batch, watermark: markOf({ u: row.id, row: last, ...(at ? { at } : {}) }) };
            batch = [];
          }
        }
      }
    } catch (err) {
      if (err instanceof FlatFileError) throw processingError(`${row.fileName}: ${err.message}`);
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw processingError(`${row.fileName} is no longer in Tributary's file store; upload it again.`);
      throw err;
    }
    yield { records: batch, watermark: markOf({ u: row.id, row: last, done: true }) };
  },
  /** With the final watermark, deletes the whole file; the headers and sample rows stay. */
  async acknowledge(ctx, object, watermark) {
    const row = await upload(ctx, object);
    const mark = parseRowMark(watermark, row.id);
    if (!mark?.done || !row.fileKey) return;
    // the file first: after a crash between the two the key is still set and a retry finishes; the
    // other order could leave a whole file in the store that no row names
    await dataFileStore(ctx.dataDir).remove(row.fileKey);
    await ctx.tenant.uploads.setFileKey(row.id, null);
  },
  async search() { throw new NotSupported('File upload', 'search'); },
  async upsert() { throw new NotSupported('File upload', 'writing records'); },
};
