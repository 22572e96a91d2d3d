/**
 * Job definitions without a database: pg-boss metadata -> SPEC.md job statuses, the retrying line,
 * payload validation and its messages, what defineJob refuses, the worker's load-only key, and (by
 * `npm run typecheck`) that a wrong payload does not compile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { afterAll, describe, expect, it } from 'vitest';
import { loadExistingSecretKey } from '../../server/connectors/secrets.ts';
import {
  defineJob, JobPayloadError, parsePayload, systemPayload, tenantPayload, USER_RETRY,
} from '../../server/jobs/definition.ts';
import type { Jobs } from '../../server/jobs/boss.ts';
import { JOBS } from '../../server/jobs/registry.ts';
import { describeRetrying, jobRunStatus, minutesUntil, type JobRecord } from '../../server/jobs/retryStatus.ts';
import { MAX_RETRY_ATTEMPTS } from '../../src/domain/formula/constants.ts';
import { JOB_STATUSES } from '../../src/domain/formula/statuses.ts';

const NOW = new Date('2026-11-20T10:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

/** A pg-boss 12 job row as findJobs answers it, reduced to what the mapper reads. */
function record(over: Partial<JobRecord>): JobRecord {
  return {
    state: 'created', retryCount: 0, retryLimit: MAX_RETRY_ATTEMPTS, output: {},
    startAfter: at(-60), createdOn: at(-60), startedOn: null, completedOn: null, ...over,
  };
}

const noop = async () => {};

describe('pg-boss job metadata -> SPEC.md job statuses', () => {
  it('a queued job is waiting; one deferred to later is scheduled', () => {
    expect(jobRunStatus(record({ state: 'created' }), NOW)).toEqual({ status: 'waiting' });
    expect(jobRunStatus(record({ state: 'created', startAfter: at(300) }), NOW)).toEqual({ status: 'scheduled', startsAt: '2026-11-20T10:05:00.000Z' });
  });

  it('a job back in retry after its nth failed run is retrying, attempt n of its retry limit, with its next start time', () => {
    // first run failed: pg-boss leaves retryCount at 0 until the retry is claimed
    expect(jobRunStatus(record({ state: 'retry', retryCount: 0, startAfter: at(90) }), NOW))
      .toEqual({ status: 'retrying', attempt: 1, of: 10, nextTryAt: '2026-11-20T10:01:30.000Z' });
    // the ninth retry failed too: the tenth and last is next
    expect(jobRunStatus(record({ state: 'retry', retryCount: 9, startAfter: '2026-11-20T11:00:00.000Z' }), NOW))
      .toEqual({ status: 'retrying', attempt: 10, of: 10, nextTryAt: '2026-11-20T11:00:00.000Z' });
  });

  it('an active job is running, with its retry number and the progress it reported', () => {
    expect(jobRunStatus(record({ state: 'active', retryCount: 2, startedOn: at(-5), output: { progress: { done: 40, total: 120 } } }), NOW))
      .toEqual({ status: 'running', startedAt: '2026-11-20T09:59:55.000Z', retry: 2, of: 10, progress: { done: 40, total: 120 } });
    expect(jobRunStatus(record({ state: 'active', startedOn: at(-5), output: {} }), NOW))
      .toEqual({ status: 'running', startedAt: '2026-11-20T09:59:55.000Z', retry: 0, of: 10 });
  });

  it('completed is finished, failed is errored (retries used up), cancelled is paused', () => {
    expect(jobRunStatus(record({ state: 'completed', completedOn: at(-1) }), NOW)).toEqual({ status: 'finished', finishedAt: '2026-11-20T09:59:59.000Z' });
    expect(jobRunStatus(record({ state: 'failed', retryCount: 10, completedOn: at(-1) }), NOW)).toEqual({ status: 'errored', erroredAt: '2026-11-20T09:59:59.000Z', retries: 10 });
    expect(jobRunStatus(record({ state: 'cancelled' }), NOW)).toEqual({ status: 'paused' });
  });

  it('answers only statuses SPEC.md names', () => {
    const states = ['created', 'retry', 'active', 'completed', 'failed', 'cancelled'] as const;
    for (const state of states) expect(JOB_STATUSES).toContain(jobRunStatus(record({ state, startedOn: at(-1), completedOn: at(0) }), NOW).status);
  });
});

describe('the retrying line', () => {
  const retrying = (seconds: number, attempt = 2) => ({ status: 'retrying' as const, attempt, of: MAX_RETRY_ATTEMPTS, nextTryAt: at(seconds).toISOString() });

  it('reads "retrying, attempt n of 10, next try in m minutes"', () => {
    expect(describeRetrying(retrying(180), NOW)).toBe('retrying, attempt 2 of 10, next try in 3 minutes');
    expect(describeRetrying(retrying(60, 10), NOW)).toBe('retrying, attempt 10 of 10, next try in 1 minute');
  });

  it('counts minutes up, so a countdown never shows 0 while time remains, and says "now" once it is due', () => {
    expect(minutesUntil(at(150).toISOString(), NOW)).toBe(3);
    expect(minutesUntil(at(1).toISOString(), NOW)).toBe(1);
    expect(describeRetrying(retrying(0), NOW)).toBe('retrying, attempt 2 of 10, next try now');
    expect(describeRetrying(retrying(-30), NOW)).toBe('retrying, attempt 2 of 10, next try now');
  });

  it('work users watch retries 10 times: the first failure reads attempt 1 of 10', () => {
    expect(USER_RETRY.limit).toBe(MAX_RETRY_ATTEMPTS);
    const status = jobRunStatus(record({ state: 'retry', retryLimit: USER_RETRY.limit, startAfter: at(61) }), NOW);
    expect(status.status === 'retrying' && describeRetrying(status, NOW)).toBe('retrying, attempt 1 of 10, next try in 2 minutes');
  });
});

const sync = defineJob({
  name: 'unit-sync',
  payload: tenantPayload({ formulaId: v.pipe(v.string(), v.uuid()) }),
  queue: { policy: 'singleton' },
  retry: USER_RETRY,
  singletonKey: (p) => p.formulaId,
  handler: noop,
});

describe('payloads', () => {
  const good = { tenantId: randomUUID(), correlationId: 'req-1', formulaId: randomUUID() };

  it('a tenant payload needs a UUID tenantId and a correlationId beside its own fields', () => {
    expect(parsePayload(sync, good)).toEqual(good);
    expect(() => parsePayload(sync, { ...good, tenantId: 'acme' })).toThrow(JobPayloadError);
    expect(() => parsePayload(sync, { ...good, correlationId: '' })).toThrow(/correlationId/);
    expect(() => parsePayload(sync, { formulaId: good.formulaId, correlationId: 'x' })).toThrow(/tenantId is required/);
  });

  it('the refusal names each field and never echoes a value (payloads may hold secrets)', () => {
    const err = (() => { try { parsePayload(sync, { tenantId: 'sk_live_very_secret', wrong: 1 }); } catch (e) { return e; } })() as JobPayloadError;
    expect(err).toBeInstanceOf(JobPayloadError);
    expect(err.message).toMatch(/^Job "unit-sync" refused its payload: /);
    expect(err.problems).toEqual(expect.arrayContaining([
      'tenantId is not a valid uuid', 'correlationId is required', 'formulaId is required', 'wrong is not part of this payload',
    ]));
    expect(err.message).not.toContain('sk_live_very_secret');
  });

  it('a system payload carries a correlationId and no tenantId at all', () => {
    const cleanup = JOBS.find((j) => j.name === 'identity-cleanup')!;
    expect(parsePayload(cleanup, { correlationId: 'c' })).toEqual({ correlationId: 'c' });
    expect(() => parsePayload(cleanup, { correlationId: 'c', tenantId: randomUUID() })).toThrow(/tenantId is not part of this payload/);
    expect(() => parsePayload(cleanup, {})).toThrow(/correlationId is required/);
  });
});

describe('defineJob', () => {
  const base = { payload: systemPayload({}), retry: { limit: 0, delaySeconds: 0, backoff: false }, handler: noop };

  it('refuses a singleton key on a standard queue, where it would limit nothing', () => {
    expect(() => defineJob({ ...base, name: 'x', queue: { policy: 'standard' }, singletonKey: () => 'k' })).toThrow(/singleton key on a standard queue/);
    expect(() => defineJob({ ...base, name: 'x', queue: { policy: 'stately' }, singletonKey: () => 'k' })).not.toThrow();
  });

  it('refuses a name pg-boss or a reader would stumble on, and fractional retry settings', () => {
    expect(() => defineJob({ ...base, name: 'Formula Run', queue: { policy: 'standard' } })).toThrow(/lower-case/);
    expect(() => defineJob({ ...base, name: 'x', queue: { policy: 'standard' }, retry: { limit: 2, delaySeconds: 0.5, backoff: false } })).toThrow(/whole numbers/);
  });

  it('checks a schedule\'s stored payload when the job is defined, not when the cron fires', () => {
    expect(() => defineJob({ ...base, name: 'x', queue: { policy: 'standard' }, schedule: { cron: '* * * * *', payload: {} as { correlationId: string } } }))
      .toThrow(/correlationId is required/);
  });

  it('the product list has unique names and schedules identity cleanup hourly', () => {
    expect(new Set(JOBS.map((j) => j.name)).size).toBe(JOBS.length);
    expect(JOBS.find((j) => j.name === 'identity-cleanup')?.schedule?.cron).toBe('17 * * * *');
  });
});

describe('types', () => {
  it('a wrong payload or a payload schema without correlationId does not compile', () => {
    const enqueue: Jobs['enqueue'] = async () => null;
    const tenantId = randomUUID();
    void enqueue(sync, { tenantId, correlationId: 'c', formulaId: randomUUID() });
    // @ts-expect-error not this job's payload
    void enqueue(sync, { wrong: 1 });
    // @ts-expect-error tenantId is missing
    void enqueue(sync, { correlationId: 'c', formulaId: randomUUID() });
    const job = defineJob({
      name: 'unit-typed', payload: systemPayload({ n: v.number() }), queue: { policy: 'standard' }, retry: USER_RETRY,
      async handler(payload) {
        // @ts-expect-error the handler's payload is typed by the schema: n is a number
        const text: string = payload.n;
        return { text };
      },
    });
    // @ts-expect-error n must be a number
    void enqueue(job, { correlationId: 'c', n: 'two' });
    defineJob({
      name: 'unit-untraced',
      // @ts-expect-error a payload without correlationId is no job payload
      payload: v.object({ n: v.number() }),
      queue: { policy: 'standard' }, retry: USER_RETRY, handler: noop,
    });
    expect(true).toBe(true);
  });
});

describe('the worker\'s key: read, never created', () => {
  const dirs: string[] = [];
  afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });
  const tempDir = () => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-worker-key-')); dirs.push(d); return d; };

  it('is null when neither SECRET_KEY nor DATA_DIR/secret.key exists, and no key file appears', () => {
    const dir = tempDir();
    expect(loadExistingSecretKey({ dataDir: dir })).toBeNull();
    expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);
  });

  it('is SECRET_KEY when set, else the existing key file', () => {
    const key = randomBytes(32);
    expect(loadExistingSecretKey({ secretKey: key.toString('base64'), dataDir: tempDir() })?.equals(key)).toBe(true);
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'secret.key'), `${key.toString('base64')}\n`, { mode: 0o600 });
    expect(loadExistingSecretKey({ dataDir: dir })?.equals(key)).toBe(true);
    expect(() => loadExistingSecretKey({ secretKey: 'c2hvcnQ=', dataDir: dir })).toThrow(/exactly 32 bytes/);
  });
});
