/**
 * Typed jobs on real pg-boss and PostgreSQL: test-only definitions in a registry of their own,
 * worked by a real worker started here (startJobs with work: true). Enqueue validates payloads;
 * a transient failure is retried and reads "attempt n of 10" with its next try; a singleton key keeps
 * two runs of one formula from overlapping; handlers get the injected database, key box, logger with
 * correlationId, and progress. Then `npm run worker` itself: refused without a key, ready with one.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../server/config.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { startJobs, type Jobs } from '../../server/jobs/boss.ts';
import { defineJob, JobPayloadError, PermanentJobError, tenantPayload, USER_RETRY } from '../../server/jobs/definition.ts';
import { describeRetrying, type JobRunStatus } from '../../server/jobs/retryStatus.ts';
import { createTestDatabase } from '../support/database.ts';
import { workerArgs } from '../support/workerProcess.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uuid = v.pipe(v.string(), v.uuid());

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

// --- test-only definitions: the product list (server/jobs/registry.ts) stays as it is ---

const flakyRuns: { retry: number; at: number }[] = [];
/** fails its first `failTimes` runs, as an unreachable vendor would */
const flaky = defineJob({
  name: 'test-flaky',
  payload: tenantPayload({ failTimes: v.pipe(v.number(), v.integer(), v.minValue(0)) }),
  queue: { policy: 'standard' },
  // SPEC.md's 10 retries, with a short fixed wait so the test stays quick
  retry: { ...USER_RETRY, delaySeconds: 2, backoff: false },
  worker: { pollingIntervalSeconds: 0.5 },
  async handler(payload, ctx) {
    flakyRuns.push({ retry: ctx.job.retry, at: Date.now() });
    if (ctx.job.retry < payload.failTimes) throw new Error('The vendor did not answer in time.');
    return { succeededOnRetry: ctx.job.retry };
  },
});

const runs: { key: string; label: string; start: number; end: number }[] = [];
/** per-formula work: one formula's runs must never overlap */
const perFormula = defineJob({
  name: 'test-per-formula',
  payload: tenantPayload({ formulaId: uuid, label: v.string() }),
  queue: { policy: 'singleton' },
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  singletonKey: (p) => p.formulaId,
  worker: { concurrency: 4, pollingIntervalSeconds: 0.5 },
  async handler(payload) {
    const start = Date.now();
    await sleep(1200);
    runs.push({ key: payload.formulaId, label: payload.label, start, end: Date.now() });
  },
});

let releaseProbe: () => void = () => {};
/** reads what the registry injected, reports progress, then waits to be released */
const probe = defineJob({
  name: 'test-probe',
  payload: tenantPayload({}),
  queue: { policy: 'standard' },
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  worker: { pollingIntervalSeconds: 0.5 },
  async handler(payload, ctx) {
    // tenant work sees its tenant's scope (on the test database), never the database itself
    const formulas = (await ctx.tenant.formulas.list()).length;
    ctx.log.info({ step: 'probe' }, 'probe ran');
    await ctx.progress({ done: 3, total: 10, message: 'reading supporters' });
    await new Promise<void>((resolve) => { releaseProbe = resolve; });
    return { scopedTo: ctx.tenant.tenantId, formulas, hasDatabase: 'db' in ctx, keyVersion: ctx.secrets.keyVersion, port: ctx.config.port, tenantId: payload.tenantId };
  },
});

const hopeless = defineJob({
  name: 'test-hopeless',
  payload: tenantPayload({}),
  queue: { policy: 'standard' },
  retry: { ...USER_RETRY, delaySeconds: 1, backoff: false },
  worker: { pollingIntervalSeconds: 0.5 },
  async handler() { throw new PermanentJobError('These credentials were saved with another secret key.'); },
});

const patientRuns: number[] = [];
/** fails once, then waits ten minutes before its next try: long enough that only Retry now runs it in the test */
const patient = defineJob({
  name: 'test-patient',
  payload: tenantPayload({}),
  queue: { policy: 'standard' },
  retry: { ...USER_RETRY, delaySeconds: 600, backoff: false },
  worker: { pollingIntervalSeconds: 0.5 },
  async handler(_payload, ctx) {
    patientRuns.push(ctx.job.retry);
    if (ctx.job.retry === 0) throw new Error('The vendor did not answer in time.');
  },
});

const wokenAt: number[] = [];
/** polls only every 30 s: a job sent to it runs sooner only when the send wakes its worker */
const sleepy = defineJob({
  name: 'test-sleepy',
  payload: tenantPayload({}),
  queue: { policy: 'standard' },
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  worker: { pollingIntervalSeconds: 30 },
  async handler() { wokenAt.push(Date.now()); },
});

/** defined, never registered */
const stray = defineJob({
  name: 'test-stray', payload: tenantPayload({}), queue: { policy: 'standard' }, retry: USER_RETRY, handler: async () => {},
});

const TEST_JOBS = [flaky, perFormula, probe, hopeless, patient, sleepy];

let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let jobs: Jobs;
let config: Config;
const secretKey = randomBytes(32);
const logLines: Record<string, unknown>[] = [];
const tenantId = randomUUID();

beforeAll(async () => {
  testDb = await createTestDatabase();
  database = await openDatabase(testDb.url);
  config = loadConfig({ DATABASE_URL: testDb.url, SECRET_KEY: secretKey.toString('base64'), DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-jobs-')) });
  const sink = new Writable({ write(chunk, _enc, done) { logLines.push(JSON.parse(String(chunk))); done(); } });
  jobs = await startJobs({
    databaseUrl: testDb.url, db: database.db, log: pino({ level: 'info' }, sink), config,
    secrets: createSecretBox(secretKey), work: true, definitions: TEST_JOBS,
  });
});

afterAll(async () => {
  releaseProbe();
  await jobs?.stop();
  await database?.close();
  fs.rmSync(config.dataDir, { recursive: true, force: true });
  await testDb?.drop();
});

describe('startJobs', () => {
  it('creates each listed queue with its definition\'s policy and retries, and no queue of the product list', async () => {
    const queue = await jobs.boss.getQueue(flaky.name);
    expect(queue).toMatchObject({ policy: 'standard', retryLimit: 10, retryDelay: 2, retryBackoff: false });
    expect(await jobs.boss.getQueue(perFormula.name)).toMatchObject({ policy: 'singleton', retryLimit: 0 });
    expect(await jobs.boss.getQueue('identity-cleanup')).toBeNull();
  });
});

describe('enqueue', () => {
  it('refuses a bad payload with a clear error, and nothing is queued', async () => {
    // `as never`: such a payload does not compile (tests/unit/jobs.test.ts); here it comes from outside
    const refused = jobs.enqueue(flaky, { tenantId: 'not-a-tenant', correlationId: 'req-1', failTimes: -1, extra: true } as never);
    await expect(refused).rejects.toThrow(JobPayloadError);
    await expect(refused).rejects.toThrow(/Job "test-flaky" refused its payload: .*tenantId is not a valid uuid.*extra is not part of this payload/);
    await expect(jobs.enqueue(flaky, { tenantId, correlationId: 'req-1' } as never)).rejects.toThrow(/failTimes is required/);
    expect(await jobs.boss.findJobs(flaky.name)).toEqual([]);
  });

  it('refuses a job missing from the registry it was started with', async () => {
    await expect(jobs.enqueue(stray, { tenantId, correlationId: 'c' })).rejects.toThrow(/"test-stray" is not registered/);
  });
});

describe('the worker', () => {
  it('starts a job as soon as it is sent (LISTEN/NOTIFY), not at its next poll', async () => {
    // the worker polled when it started; its next poll is 30 s away
    await sleep(1000);
    const sent = Date.now();
    await jobs.enqueue(sleepy, { tenantId, correlationId: 'req-sleepy' });
    await until('the job to run', async () => wokenAt.length > 0, 25_000);
    expect(wokenAt[0]! - sent).toBeLessThan(10_000);
  });

  it('runs a job with the tenant scope, the key box and config, a logger carrying its correlationId, and reports its progress', async () => {
    const id = (await jobs.enqueue(probe, { tenantId, correlationId: 'req-probe' }))!;
    const running = await until('the probe to report progress', async () => {
      const s = await jobs.runStatus(probe, id);
      return s?.status === 'running' && s.progress ? s : undefined;
    });
    expect(running).toMatchObject({ status: 'running', retry: 0, of: 0, progress: { done: 3, total: 10, message: 'reading supporters' } });
    releaseProbe();
    const done = await until('the probe to finish', async () => {
      const [job] = await jobs.boss.findJobs(probe.name, { id });
      return job?.state === 'completed' ? job : undefined;
    });
    expect(done.output).toEqual({ scopedTo: tenantId, formulas: 0, hasDatabase: false, keyVersion: createSecretBox(secretKey).keyVersion, port: config.port, tenantId });
    expect(await jobs.runStatus(probe, id)).toMatchObject({ status: 'finished' });
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'probe ran', job: 'test-probe', jobId: id, correlationId: 'req-probe', tenantId }));
  });

  it('retries a transient failure: retrying, attempt 1 then 2 of 10, each with its next try, then finished', async () => {
    const id = (await jobs.enqueue(flaky, { tenantId, correlationId: 'req-flaky', failTimes: 2 }))!;
    const seen: Extract<JobRunStatus, { status: 'retrying' }>[] = [];
    for (const attempt of [1, 2]) {
      const status = await until(`retrying, attempt ${attempt}`, async () => {
        const s = await jobs.runStatus(flaky, id);
        return s?.status === 'retrying' && s.attempt === attempt ? s : undefined;
      });
      seen.push(status);
      const failedAt = flakyRuns[attempt - 1]!.at;
      // the next try is the failure time plus the definition's 2 seconds
      expect(Date.parse(status.nextTryAt) - failedAt).toBeGreaterThan(1000);
      expect(Date.parse(status.nextTryAt) - failedAt).toBeLessThan(3500);
      expect(describeRetrying(status, new Date(failedAt))).toBe(`retrying, attempt ${attempt} of 10, next try in 1 minute`);
    }
    expect(seen.map((s) => [s.attempt, s.of])).toEqual([[1, 10], [2, 10]]);
    await until('the flaky job to finish', async () => (await jobs.runStatus(flaky, id))?.status === 'finished');
    expect(flakyRuns.map((r) => r.retry)).toEqual([0, 1, 2]);
    const [job] = await jobs.boss.findJobs(flaky.name, { id });
    expect(job).toMatchObject({ state: 'completed', retryCount: 2, output: { succeededOnRetry: 2 } });
    expect(logLines).toContainEqual(expect.objectContaining({ msg: 'job failed; it will be retried', correlationId: 'req-flaky', retry: 0 }));
  });

  it('retry now: a job waiting out its retry delay runs at once, keeping its count of attempts; one not waiting so is left as it is', async () => {
    const id = (await jobs.enqueue(patient, { tenantId, correlationId: 'req-patient' }))!;
    const waiting = await until('retrying, attempt 1', async () => {
      const s = await jobs.runStatus(patient, id);
      return s?.status === 'retrying' ? s : undefined;
    });
    expect(Date.parse(waiting.nextTryAt) - Date.now()).toBeGreaterThan(500_000);
    expect(await jobs.retryNow(patient, id)).toBe(true);
    await until('the patient job to finish', async () => (await jobs.runStatus(patient, id))?.status === 'finished');
    expect(patientRuns).toEqual([0, 1]);
    // finished: nothing to hurry, and nothing changes
    expect(await jobs.retryNow(patient, id)).toBe(false);
    expect(await jobs.retryNow(patient, crypto.randomUUID())).toBe(false);
  });

  it('fails a job at once, without its remaining retries, when retrying cannot help', async () => {
    const id = (await jobs.enqueue(hopeless, { tenantId, correlationId: 'req-hopeless' }))!;
    const status = await until('the job to fail', async () => {
      const s = await jobs.runStatus(hopeless, id);
      return s?.status === 'errored' ? s : undefined;
    });
    expect(status).toMatchObject({ status: 'errored', retries: 0 });
  });

  it('never overlaps two runs with the same singleton key, while other keys run alongside', async () => {
    const formulaA = randomUUID();
    const formulaB = randomUUID();
    for (const [formulaId, label] of [[formulaA, 'a1'], [formulaA, 'a2'], [formulaB, 'b1']] as const) {
      expect(await jobs.enqueue(perFormula, { tenantId, correlationId: `req-${label}`, formulaId, label })).toEqual(expect.any(String));
    }
    await until('three runs', async () => runs.length === 3, 30_000);
    const [a1, a2] = runs.filter((r) => r.key === formulaA).sort((x, y) => x.start - y.start);
    const b1 = runs.find((r) => r.key === formulaB)!;
    expect(a2!.start).toBeGreaterThanOrEqual(a1!.end);
    // the worker does run jobs side by side: B overlapped one of A's runs
    expect(b1.start < a1!.end || b1.start < a2!.end).toBe(true);
    expect([a1, a2].some((a) => b1.start < a!.end && a!.start < b1.end)).toBe(true);
  });
});

describe('npm run worker', () => {
  function runWorker(env: Record<string, string>) {
    const { SECRET_KEY: _k, DATABASE_URL: _d, DATA_DIR: _dd, ...rest } = process.env;
    const child = spawn(process.execPath, workerArgs(), {
      cwd: path.resolve(import.meta.dirname, '../..'),
      env: { ...rest, LOG_LEVEL: 'info', DATABASE_URL: testDb.url, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += String(d); });
    child.stderr.on('data', (d) => { stderr += String(d); });
    let closed = false;
    // 'close', not 'exit': by then all of its output has been read
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => { closed = true; resolve(code); }));
    return { child, exited, closed: () => closed, out: () => stdout, err: () => stderr };
  }

  it('refuses to start without the secret key, and makes none', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-worker-'));
    const worker = runWorker({ DATA_DIR: dataDir });
    try {
      // a worker that starts anyway must fail this test, not hang it
      const outcome = await until('the worker to exit', async () => (worker.closed()
        ? { exited: await worker.exited }
        : worker.out().includes('"msg":"worker ready"') && { ready: true }), 40_000);
      expect(outcome).toEqual({ exited: 1 });
      expect(worker.err()).toContain('npm run worker needs the secret key that seals connector credentials: set SECRET_KEY');
      expect(worker.out()).not.toContain('worker ready');
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('starts with SECRET_KEY, works the product\'s queues, and stops on SIGTERM', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-worker-'));
    const worker = runWorker({ DATA_DIR: dataDir, SECRET_KEY: randomBytes(32).toString('base64') });
    try {
      await until('the ready line', async () => {
        if (worker.closed()) throw new Error(`the worker exited: ${worker.err()}`);
        return worker.out().includes('"msg":"worker ready"');
      }, 45_000);
      expect(await jobs.boss.getQueue('identity-cleanup')).toMatchObject({ policy: 'standard', retryLimit: 3 });
      expect(await jobs.boss.getSchedules('identity-cleanup')).toEqual([expect.objectContaining({ cron: '17 * * * *', data: { correlationId: 'schedule:identity-cleanup' } })]);
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('stopping the job queue', () => {
  it('logs a connection PostgreSQL ends as an error while running, and as part of stopping once stop() has begun', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
    const own = await startJobs({
      databaseUrl: testDb.url, db: database.db, log: pino({ level: 'info' }, sink), config, secrets: createSecretBox(secretKey), definitions: [],
    });
    // what pg-boss emits when the server ends one of its connections (PostgreSQL's admin_shutdown)
    const ended = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    own.boss.emit('error', ended());
    const stopping = own.stop();
    own.boss.emit('error', ended());
    await stopping;
    expect(lines.filter((l) => l.level === 50).map((l) => l.msg)).toEqual(['job queue error']);
    expect(lines.filter((l) => l.level === 30).map((l) => l.msg)).toContain('job queue connection ended while stopping');
  });
});
