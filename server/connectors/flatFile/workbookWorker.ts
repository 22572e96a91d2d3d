/**
 * The worker thread that reads workbooks (started by workbookReader.ts): one job at a time, so
 * the main thread can stop a read that runs past its budget by terminating this thread.
 */
import { parentPort } from 'node:worker_threads';
import { FlatFileError } from './errors.ts';
import { readXls, readXlsx } from './excel.ts';
import type { WorkbookLimits } from './limits.ts';
import { SampleCollector } from './sample.ts';

export interface WorkbookJob {
  kind: 'xlsx' | 'xls';
  bytes: Uint8Array;
  limits: WorkbookLimits;
}

export type WorkbookAnswer =
  | { ready: true }
  | { ok: true; headers: string[]; sampleRows: string[][]; rowCount: number | null }
  | { ok: false; outcome: FlatFileError['outcome']; message: string }
  | { ok: false; error: string };

// SheetJS reports unknown records of a damaged .xls on the console: noise an uploader controls
console.error = () => undefined;

const port = parentPort!;
const answer = (a: WorkbookAnswer) => port.postMessage(a);

port.on('message', async ({ kind, bytes, limits }: WorkbookJob) => {
  try {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const collector = new SampleCollector();
    const { complete } = kind === 'xlsx' ? await readXlsx(buffer, collector, limits) : readXls(buffer, collector);
    const { headers, sampleRows, rowCount } = collector.finish();
    answer({ ok: true, headers, sampleRows, rowCount: complete ? rowCount : null });
  } catch (err) {
    if (err instanceof FlatFileError) answer({ ok: false, outcome: err.outcome, message: err.message });
    else answer({ ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});

answer({ ready: true });
