/**
 * Reads a workbook off the main thread, under a budget: a small pool of worker threads
 * (workbookWorker.ts) takes one file each; the main thread reads each worker's CPU time and
 * terminates a worker whose read passes `cpuMs` (or `wallMs`, or its heap), so no file holds a
 * core, the event loop or the memory for long, whatever it holds. Workers are reused while they
 * answer, so a small file costs a message each way, not a thread start. See README "File upload".
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { FlatFileError } from './errors.ts';
import { tooMuchMemory, tooSlow, WORKBOOK_LIMITS, type WorkbookLimits } from './limits.ts';
import type { WorkbookAnswer, WorkbookJob } from './workbookWorker.ts';

export interface WorkbookSample {
  headers: string[];
  sampleRows: string[][];
  /** null when the rows could not all be counted in time */
  rowCount: number | null;
}

/** Workers reading at once; one core is left to the server. More files wait their turn. */
const POOL_SIZE = Math.max(1, Math.min(4, availableParallelism() - 1));
/** How often a busy worker's CPU time is read. */
const POLL_MS = 100;

// The worker runs TypeScript source. It registers tsx's loader itself, so it starts the same way
// under `node --import tsx` (npm start) and under vitest, whose loader a worker does not inherit.
const WORKER_URL = new URL('./workbookWorker.ts', import.meta.url).href;
const BOOTSTRAP = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})`
  + `.then((tsx) => { tsx.register(); return import(${JSON.stringify(WORKER_URL)}); });`;

interface Pooled {
  worker: Worker;
  heapMb: number;
}

const idle: Pooled[] = [];
let running = 0;
const waiting: (() => void)[] = [];

async function takeSlot(): Promise<void> {
  if (running < POOL_SIZE) { running++; return; }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

/** The slot passes straight to the next waiting read, if any. */
function giveSlot(): void {
  const next = waiting.shift();
  if (next) next(); else running--;
}

function spawn(heapMb: number, wallMs: number): Promise<Pooled> {
  const worker = new Worker(BOOTSTRAP, { eval: true, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  const pooled = { worker, heapMb };
  // an idle worker that dies leaves the pool; its errors must not reach the main thread
  worker.on('error', () => {});
  worker.once('exit', () => { const i = idle.indexOf(pooled); if (i >= 0) idle.splice(i, 1); });
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => { clearTimeout(timer); worker.off('message', ready); void worker.terminate(); reject(err); };
    const ready = (m: WorkbookAnswer) => {
      if (!('ready' in m)) return;
      clearTimeout(timer);
      worker.off('message', ready);
      worker.off('error', fail);
      worker.off('exit', exited);
      resolve(pooled);
    };
    const exited = (code: number) => fail(new Error(`The workbook reader stopped while starting (exit code ${code}).`));
    const timer = setTimeout(() => fail(new Error('The workbook reader did not start in time.')), wallMs);
    worker.on('message', ready);
    worker.once('error', fail);
    worker.once('exit', exited);
  });
}

/** Runs one job; answers the worker's answer, or rejects after terminating the worker. */
async function run(pooled: Pooled, job: WorkbookJob, limits: WorkbookLimits): Promise<WorkbookSample> {
  const { worker } = pooled;
  worker.ref();
  const cpuOf = typeof worker.cpuUsage === 'function'
    ? async () => { const { user, system } = await worker.cpuUsage(); return (user + system) / 1000; }
    : null; // before Node 24.6 the CPU budget counts wall time
  const baseline = cpuOf ? await cpuOf().catch(() => 0) : 0;
  const started = performance.now();
  return new Promise<WorkbookSample>((resolve, reject) => {
    let done = false;
    const finish = () => {
      done = true;
      clearInterval(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const stop = (err: Error) => {
      if (done) return;
      finish();
      void worker.terminate();
      reject(err);
    };
    const onMessage = (m: WorkbookAnswer) => {
      if ('ready' in m || done) return;
      finish();
      worker.unref();
      idle.push(pooled);
      if (m.ok) resolve({ headers: m.headers, sampleRows: m.sampleRows, rowCount: m.rowCount });
      else if ('outcome' in m) reject(new FlatFileError(m.outcome, m.message));
      else reject(new Error(`The workbook reader failed: ${m.error}`));
    };
    const onError = (err: Error & { code?: string }) => {
      stop(err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooMuchMemory(limits.heapMb) : new Error('The workbook reader failed.', { cause: err }));
    };
    const onExit = (code: number) => stop(new Error(`The workbook reader stopped (exit code ${code}).`));
    const timer = setInterval(() => {
      const wall = performance.now() - started;
      if (wall > limits.wallMs || (!cpuOf && wall > limits.cpuMs)) { stop(tooSlow(limits.cpuMs)); return; }
      cpuOf?.().then((cpu) => { if (cpu - baseline > limits.cpuMs) stop(tooSlow(limits.cpuMs)); }, () => {});
    }, POLL_MS);
    worker.on('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.postMessage(job, [job.bytes.buffer as ArrayBuffer]);
  });
}

/**
 * The header, sample and row count of a workbook's first sheet, read in a worker under `limits`.
 * Throws the reader's FlatFileError, or 'size-too-big' when the read passes its time or memory.
 */
export async function readWorkbook(kind: 'xlsx' | 'xls', bytes: Uint8Array, limits: WorkbookLimits = WORKBOOK_LIMITS): Promise<WorkbookSample> {
  // a copy of exactly these bytes, moved to the worker rather than copied again
  const job: WorkbookJob = { kind, bytes: new Uint8Array(bytes), limits };
  await takeSlot();
  try {
    const i = idle.findIndex((p) => p.heapMb === limits.heapMb);
    const pooled = i >= 0 ? idle.splice(i, 1)[0]! : await spawn(limits.heapMb, limits.wallMs);
    // at most POOL_SIZE idle workers: one of another heap size makes way
    while (idle.length >= POOL_SIZE) void idle.shift()!.worker.terminate();
    return await run(pooled, job, limits);
  } finally {
    giveSlot();
  }
}
