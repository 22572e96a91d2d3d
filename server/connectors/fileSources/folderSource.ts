/**
 * A source made of the CSV and Excel files in one folder (Secure FTP, flat file): objects are
 * the files (or a pattern such as *.csv), fields are a file's headers, and a pull reads every
 * file changed since the watermark, oldest first, row by row.
 */
import { ACCEPTED_EXTENSIONS } from '../../../src/domain/upload.ts';
import type { ObjectInfo } from '../../../src/domain/connectors/types.ts';
import { ConnectorInputError, processingError, type FieldInfo, type PullBatch, type Watermark } from '../connector.ts';
import { FlatFileError } from '../flatFile/tabular.ts';
import { describeTable, MAX_PULL_FILE_BYTES, readTable } from './table.ts';

export interface FolderFile {
  name: string;
  size: number;
  /** last modified, in milliseconds */
  modifiedMs: number;
}

export interface Folder {
  list(): Promise<FolderFile[]>;
  read(name: string, maxBytes: number): Promise<Buffer>;
}

/** Every accepted file: the pattern that names all of them. */
export const ALL_FILES = '*';

const accepted = (name: string) => ACCEPTED_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));

/** A file name, or a pattern where * stands for any characters. */
export function matches(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const re = new RegExp(`^${pattern.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i');
  return re.test(name);
}

export async function tabularFiles(folder: Folder): Promise<FolderFile[]> {
  return (await folder.list()).filter((f) => accepted(f.name)).sort(byAge);
}

const byAge = (a: FolderFile, b: FolderFile) => a.modifiedMs - b.modifiedMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

const sizeLabel = (bytes: number) => bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function folderObjects(folder: Folder): Promise<ObjectInfo[]> {
  const files = await tabularFiles(folder);
  return [
    { name: ALL_FILES, label: `All files (${files.length})` },
    ...files.slice().reverse().map((f) => ({ name: f.name, label: `${f.name} (${sizeLabel(f.size)})` })),
  ];
}

function explain(err: unknown, name: string): never {
  if (err instanceof FlatFileError) throw processingError(`${name}: ${err.message}`);
  throw err;
}

/** A file's headers as fields; for a pattern, the newest matching file's. */
export async function folderFields(folder: Folder, object: string): Promise<FieldInfo[]> {
  const files = (await tabularFiles(folder)).filter((f) => matches(object, f.name));
  const file = files.at(-1);
  if (!file) throw new ConnectorInputError(object.includes('*') ? `No file matches ${object}.` : `There is no file named ${object}.`);
  const bytes = await folder.read(file.name, MAX_PULL_FILE_BYTES);
  const table = await describeTable(bytes, file.name).catch((e) => explain(e, file.name));
  return table.headers.map((h) => ({ name: h, label: h, type: 'string' as const }));
}

interface FileMark { t: number; n: string }

export function parseFileWatermark(since: Watermark | null): FileMark | null {
  if (!since) return null;
  try {
    const mark = JSON.parse(since) as FileMark;
    if (typeof mark.t === 'number' && typeof mark.n === 'string') return mark;
  } catch { /* fall through */ }
  throw new ConnectorInputError('The watermark is not one this connector wrote.');
}

const after = (f: FolderFile, mark: FileMark | null) => !mark || f.modifiedMs > mark.t || (f.modifiedMs === mark.t && f.name > mark.n);

/**
 * Rows of every matching file changed since the watermark. A file's rows may span several
 * batches; the watermark moves past a file only with its last batch, so an interrupted pull
 * reads that file again (the destination's idempotency keys make that harmless).
 */
export async function* pullFolder(folder: Folder, object: string, since: Watermark | null, batchSize = 500): AsyncIterable<PullBatch> {
  const mark = parseFileWatermark(since);
  let watermark: Watermark | null = since;
  const files = (await tabularFiles(folder)).filter((f) => matches(object, f.name) && after(f, mark));
  for (const file of files) {
    const bytes = await folder.read(file.name, MAX_PULL_FILE_BYTES);
    const table = await readTable(bytes, file.name).catch((e) => explain(e, file.name));
    const done = JSON.stringify({ t: file.modifiedMs, n: file.name } satisfies FileMark);
    if (table.rows.length === 0) { watermark = done; yield { records: [], watermark }; continue; }
    for (let i = 0; i < table.rows.length; i += batchSize) {
      const slice = table.rows.slice(i, i + batchSize);
      const last = i + batchSize >= table.rows.length;
      if (last) watermark = done;
      yield {
        watermark,
        records: slice.map(({ line, values }) => ({
          id: `${file.name}#${line}`,
          fields: Object.fromEntries(table.headers.map((h, c) => [h, values[c] ?? ''])),
        })),
      };
    }
  }
}
