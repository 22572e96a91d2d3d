/**
 * A source made of the CSV and Excel files in one folder (Secure FTP, flat file): objects are
 * the files (or a pattern such as *.csv), fields are a file's headers, and a pull reads every
 * file changed since the watermark (or, run once, modified within a window), oldest first, row
 * by row.
 */
import { ACCEPTED_EXTENSIONS } from '../../../src/domain/upload.ts';
import { filePatternProblem, isFilePattern, matchesFilePattern } from '../../../src/domain/connectors/filePattern.ts';
import type { ObjectInfo } from '../../../src/domain/connectors/types.ts';
import { ConnectorInputError, processingError, type FieldInfo, type PullBatch, type PullOptions, type Watermark } from '../connector.ts';
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

/** The accepted files the object names (a file, or a pattern where * stands for any characters), oldest first. */
async function filesOf(folder: Folder, object: string): Promise<FolderFile[]> {
  const problem = filePatternProblem(object);
  if (problem) throw new ConnectorInputError(problem);
  return (await tabularFiles(folder)).filter((f) => matchesFilePattern(object, f.name));
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
  const file = (await filesOf(folder, object)).at(-1);
  if (!file) throw new ConnectorInputError(isFilePattern(object) ? `No file matches ${object}.` : `There is no file named ${object}.`);
  const bytes = await folder.read(file.name, MAX_PULL_FILE_BYTES);
  const table = await describeTable(bytes, file.name).catch((e) => explain(e, file.name));
  return table.headers.map((h) => ({ name: h, label: h, type: 'string' as const }));
}

/**
 * How far the files are read: the last file reached, by modification time (ms) and name (the order
 * files are read in), read whole, or up to and including data line `line` when a batch ended
 * inside it (so a run stopped mid-file resumes after that line, not at the file's start).
 */
export interface FileMark { t: number; n: string; line?: number }

export function parseFileWatermark(since: Watermark | null): FileMark | null {
  if (!since) return null;
  try {
    const mark = JSON.parse(since) as FileMark;
    if (typeof mark.t === 'number' && typeof mark.n === 'string' && (mark.line === undefined || Number.isInteger(mark.line))) return mark;
  } catch { /* fall through */ }
  throw new ConnectorInputError('The watermark is not one this connector wrote.');
}

const sameFile = (f: FolderFile, mark: FileMark) => f.modifiedMs === mark.t && f.name === mark.n;
/** a file with rows still to read: after the mark, or the very file a partial mark stopped inside */
const after = (f: FolderFile, mark: FileMark | null) => !mark || f.modifiedMs > mark.t || (f.modifiedMs === mark.t && f.name > mark.n)
  || (mark.line !== undefined && sameFile(f, mark));
const within = (f: FolderFile, window: PullOptions['window']) => !window || (f.modifiedMs >= window.from.getTime() && f.modifiedMs < window.to.getTime());

/**
 * Rows of every matching file changed since the watermark. A file's rows may span several
 * batches; each batch's watermark names the file and its last line, so an interrupted pull
 * resumes after the last batch stored; the watermark moves past a file with its last batch.
 *
 * Run once (`window`): the files modified within the window, whatever the watermark says. Their
 * batches still carry file marks, which acknowledge() needs; the engine does not store them.
 */
export async function* pullFolder(folder: Folder, object: string, since: Watermark | null, options: PullOptions = {}): AsyncIterable<PullBatch> {
  const { batchSize = 500, window } = options;
  const mark = window ? null : parseFileWatermark(since);
  let watermark: Watermark | null = window ? null : since;
  const files = (await filesOf(folder, object)).filter((f) => after(f, mark) && within(f, window));
  for (const file of files) {
    const bytes = await folder.read(file.name, MAX_PULL_FILE_BYTES);
    const table = await readTable(bytes, file.name).catch((e) => explain(e, file.name));
    const done = JSON.stringify({ t: file.modifiedMs, n: file.name } satisfies FileMark);
    // the rows a partial mark has not reached yet
    const from = mark?.line !== undefined && sameFile(file, mark) ? mark.line : 0;
    const rows = from ? table.rows.filter((r) => r.line > from) : table.rows;
    if (rows.length === 0) { watermark = done; yield { records: [], watermark }; continue; }
    for (let i = 0; i < rows.length; i += batchSize) {
      const slice = rows.slice(i, i + batchSize);
      const last = i + batchSize >= rows.length;
      // run once stores no position, and acknowledges only whole files
      if (last) watermark = done;
      else if (!window) watermark = JSON.stringify({ t: file.modifiedMs, n: file.name, line: slice.at(-1)!.line } satisfies FileMark);
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

/**
 * The matching files whose rows are all collected once the watermark `mark` is stored: those at
 * or before it in reading order (and, run once, modified within the window). A file changed
 * after it was read sorts after the mark again, so it stays until it is read anew.
 */
export async function collectedFiles(folder: Folder, object: string, mark: FileMark, window?: PullOptions['window']): Promise<FolderFile[]> {
  // a partial mark's own file is not read whole yet
  return (await filesOf(folder, object)).filter((f) => !after(f, mark) && within(f, window));
}
