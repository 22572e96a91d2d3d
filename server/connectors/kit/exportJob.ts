/**
 * Vendors that answer "records changed in a window" with an export job (EveryAction's
 * changed-entity jobs, Engaging Networks' export jobs): the job is asked for, looked at until it is
 * done (first soon, then twice as long each time), and its CSV files are read in batches. While a
 * pull is under way its position names the job, the file and the row after the last batch, so a
 * run stopped between batches goes on from there in the same job.
 */
import { processingError, type SourceRecord } from '../connector.ts';
import { parseCsvText } from '../flatFile/csv.ts';

/** the first look at a job, then twice as long each time up to the longest; tests shorten them */
export const JOB_POLL = { firstMs: 200, maxMs: 10_000, giveUpMs: 30 * 60_000 };

const sleepFor = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) { reject(signal.reason); return; }
  const t = setTimeout(() => { signal?.removeEventListener('abort', stop); resolve(); }, ms);
  const stop = () => { clearTimeout(t); reject(signal!.reason); };
  signal?.addEventListener('abort', stop, { once: true });
});

/**
 * The job once done; null when the vendor no longer has it (`look` answers null). `state` says
 * where a job stands; a failed one is a processing error with `failed`'s words.
 */
export async function awaitJob<J>(opts: {
  name: string;
  look: () => Promise<J | null>;
  state: (job: J) => 'done' | 'failed' | 'waiting';
  failed: (job: J) => string;
  /** what the vendor is doing, for the words when it takes too long ('exporting the changes' unless said) */
  doing?: string;
  signal?: AbortSignal | undefined;
}): Promise<J | null> {
  const started = Date.now();
  for (let wait = JOB_POLL.firstMs; ; wait = Math.min(wait * 2, JOB_POLL.maxMs)) {
    const job = await opts.look();
    if (!job) return null;
    const state = opts.state(job);
    if (state === 'done') return job;
    if (state === 'failed') throw processingError(opts.failed(job));
    if (Date.now() - started > JOB_POLL.giveUpMs) throw processingError(`${opts.name} has not finished ${opts.doing ?? 'exporting the changes'} after ${JOB_POLL.giveUpMs / 60_000} minutes. Try again later.`);
    await sleepFor(wait, opts.signal);
  }
}

/** A CSV file of an export: its header and rows (a byte-order mark dropped), read with the flat file parser. */
export function exportCsv(text: string): { header: string[]; rows: string[][] } {
  const [header = [], ...rows] = parseCsvText(text.replace(/^\uFEFF/, ''), ',');
  return { header, rows: rows.filter((r) => !(r.length === 1 && r[0] === '')) };
}

/** Where a pull stands inside a job: the job, the window's end, the file and the row next. */
export interface JobAt { job: string; to: string; file: number; row: number }

export const readJobAt = (next: string | null): JobAt | null => {
  if (!next) return null;
  try {
    const at = JSON.parse(next) as Partial<JobAt>;
    return at.job !== undefined && typeof at.to === 'string' ? { job: String(at.job), to: at.to, file: Number(at.file ?? 0), row: Number(at.row ?? 0) } : null;
  } catch { return null; }
};

/**
 * The job's files in batches of `size` rows, each record named by `idColumn` (its row's cells by
 * header, empty ones left out), from `resume` when a pull goes on; `last` is true on the batch that
 * ends the job, and `next` is where the one after it starts.
 */
export async function* exportBatches(opts: {
  name: string;
  job: string;
  to: string;
  files: (() => Promise<string>)[];
  idColumn: string;
  size: number;
  resume: JobAt | null;
}): AsyncIterable<{ records: SourceRecord[]; last: boolean; next: JobAt }> {
  const { files, resume } = opts;
  if (!files.length) { yield { records: [], last: true, next: { job: opts.job, to: opts.to, file: 0, row: 0 } }; return; }
  for (let file = resume?.file ?? 0; file < files.length; file++) {
    const { header, rows } = exportCsv(await files[file]!());
    const idAt = header.indexOf(opts.idColumn);
    if (idAt < 0) throw processingError(`${opts.name}'s export file has no ${opts.idColumn} column.`);
    let row = file === resume?.file ? resume.row : 0;
    do {
      const slice = rows.slice(row, row + opts.size);
      const records = slice.map((cells) => ({
        id: cells[idAt] ?? '',
        fields: Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']).filter(([, v]) => v !== '')),
      }));
      row += slice.length;
      const fileDone = row >= rows.length;
      yield {
        records, last: fileDone && file === files.length - 1,
        next: fileDone ? { job: opts.job, to: opts.to, file: file + 1, row: 0 } : { job: opts.job, to: opts.to, file, row },
      };
    } while (row < rows.length);
  }
}
