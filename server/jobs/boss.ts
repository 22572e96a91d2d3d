/**
 * pg-boss on the same PostgreSQL: one queue per job definition (registry.ts), with the definition's
 * policy, retries and cron schedule. Workers scale across processes (`npm run worker`); `npm start`
 * runs one in-process. Payloads are validated when queued and again when worked.
 */
import { PgBoss, type JobResult, type JobWithMetadata } from 'pg-boss';
import { sql } from 'drizzle-orm';
import type * as v from 'valibot';
import type { Logger } from 'pino';
import type { Config, JobTimings } from '../config.ts';
import type { Db } from '../db/database.ts';
import { forTenant } from '../db/tenancy.ts';
import type { SecretBox } from '../connectors/secrets.ts';
import {
  parsePayload, PermanentJobError, type AnyJobDefinition, type EnqueueOptions, type JobContext, type JobDefinition,
  type JobDeps, type JobServices, type PayloadSchema,
} from './definition.ts';
import { JOBS } from './registry.ts';
import { jobRunStatus, type JobProgress, type JobRunStatus } from './retryStatus.ts';

const SCHEMA = 'pgboss';

export interface Jobs {
  boss: PgBoss;
  /**
   * Queues a job after validating its payload with the definition's schema: a refused payload
   * throws JobPayloadError and nothing is queued. Answers the job's id, or null when the queue's
   * policy refused it (a job with the same singleton key already waits).
   */
  enqueue<S extends PayloadSchema>(definition: JobDefinition<S>, payload: v.InferInput<S>, options?: EnqueueOptions): Promise<string | null>;
  /** A job's status as SPEC.md names it; null when pg-boss no longer holds the job. */
  runStatus(definition: AnyJobDefinition, id: string, now?: Date): Promise<JobRunStatus | null>;
  /** A job waiting out its retry delay starts at once; false when the job does not wait so (it runs, or ended). */
  retryNow(definition: AnyJobDefinition, id: string): Promise<boolean>;
  /** A job that has not ended will not start (again). */
  cancel(definition: AnyJobDefinition, id: string): Promise<void>;
  /**
   * The jobs of a definition with this id, or whose payload holds these fields, newest first, with
   * their payloads and outputs: for work whose status is the job itself (an import's progress).
   */
  find(definition: AnyJobDefinition, by: { id: string } | { data: object }, now?: Date): Promise<FoundJob[]>;
  /**
   * Works every listed queue in this process, each handler given these services. The services
   * queue jobs themselves, so they are built on this Jobs first (server/container.ts).
   */
  work(services: JobServices['services']): Promise<void>;
  /** for GET /health */
  status(): Promise<{ ok: boolean; queues: number; detail?: string }>;
  stop(): Promise<void>;
}

export interface FoundJob {
  id: string;
  data: unknown;
  output: unknown;
  run: JobRunStatus;
  createdOn: Date;
}

export interface StartJobsOptions extends JobDeps {
  databaseUrl: string;
  log: Logger;
  /** work every listed queue in this process at once (tests whose handlers need no services); else call `work` */
  work?: boolean;
  /** the product's list unless given: tests register their own definitions here */
  definitions?: readonly AnyJobDefinition[];
}

export async function startJobs(opts: StartJobsOptions): Promise<Jobs> {
  const definitions = opts.definitions ?? JOBS;
  const byName = new Map<string, AnyJobDefinition>();
  for (const d of definitions) {
    if (byName.has(d.name)) throw new Error(`Two job definitions are named "${d.name}".`);
    byName.set(d.name, d);
  }
  const deps: JobDeps = { db: opts.db, secrets: opts.secrets, config: opts.config };

  const timings = opts.config.jobTimings;
  // a monitor pass fails a dead worker's job and lists the singleton keys still active, which workers
  // read from their queue cache: all three at the shorter interval
  const seconds = timings.superviseSeconds;
  const supervise = seconds ? { superviseIntervalSeconds: seconds, monitorIntervalSeconds: seconds, queueCacheIntervalSeconds: seconds } : {};
  // LISTEN/NOTIFY: a job sent wakes the workers on its queue at once, in this process or another,
  // instead of after their next poll ("Run now", an upload's run, a send, a run's next slice); the
  // poll stays as the floor (retries, delayed jobs, a listener that could not connect)
  const boss = new PgBoss({
    connectionString: opts.databaseUrl, schema: SCHEMA, max: 4, application_name: 'tributary-jobs', useListenNotify: true, ...supervise,
  });
  let stopping = false;
  boss.on('error', (err) => {
    // Once stop() has begun, a connection of the queue's that PostgreSQL ends (57P01: the server
    // shutting down) or one used after the pool closed is part of stopping, not a fault: the active
    // jobs were failed back to the queue by then and run again on the next start.
    if (stopping && isShutdownError(err)) opts.log.info({ err: { message: err.message } }, 'job queue connection ended while stopping');
    else opts.log.error({ err }, 'job queue error');
  });
  await boss.start();

  const enqueue: Jobs['enqueue'] = async (definition, payload, options = {}) => {
    if (byName.get(definition.name) !== definition) {
      throw new Error(`Job "${definition.name}" is not registered: add its definition to server/jobs/registry.ts.`);
    }
    const data = parsePayload(definition, payload);
    return boss.send(definition.name, data, {
      ...(definition.singletonKey ? { singletonKey: definition.singletonKey(data) } : {}),
      ...(options.startAfter ? { startAfter: options.startAfter } : {}),
      ...(options.priority !== undefined ? { priority: options.priority } : {}),
    });
  };

  let working = false;
  const startWork = async (services: JobServices['services'] | undefined) => {
    if (working) throw new Error('The job queues are worked already in this process.');
    working = true;
    for (const definition of definitions) await work(boss, definition, { ...deps, services, log: opts.log, enqueue });
  };

  const jobs: Jobs = {
    boss,
    enqueue,
    work: (services) => startWork(services),
    async runStatus(definition, id, now = new Date()) {
      const [job] = await boss.findJobs(definition.name, { id });
      return job ? jobRunStatus(job, now) : null;
    },
    async retryNow(definition, id) {
      // the attempt count and the retry limit stay as they are: only the wait ends
      const moved = await deps.db.execute<{ id: string }>(sql`
        update ${sql.raw(SCHEMA)}.job set start_after = now() where name = ${definition.name} and id = ${id}::uuid and state = 'retry' returning id`);
      return moved.rows.length > 0;
    },
    async cancel(definition, id) {
      await boss.cancel(definition.name, id);
    },
    async find(definition, by, now = new Date()) {
      const found = await boss.findJobs(definition.name, 'id' in by ? { id: by.id } : { data: by.data });
      return found
        .map((job) => ({ id: job.id, data: job.data, output: job.output, run: jobRunStatus(job, now), createdOn: new Date(job.createdOn) }))
        .sort((a, b) => b.createdOn.getTime() - a.createdOn.getTime());
    },
    async status() {
      try {
        const queues = await boss.getQueues();
        return { ok: true, queues: queues.length };
      } catch (err) {
        return { ok: false, queues: 0, detail: err instanceof Error ? err.message : String(err) };
      }
    },
    stop: () => { stopping = true; return boss.stop({ graceful: true, timeout: 5000 }); },
  };

  try {
    for (const definition of definitions) await createQueue(boss, withTimings(definition, timings));
    for (const definition of definitions) {
      if (!definition.schedule) continue;
      const { cron, tz, payload } = definition.schedule;
      await boss.schedule(definition.name, cron, parsePayload(definition, payload), { tz: tz ?? 'UTC' });
    }
    if (opts.work) await startWork(undefined);
  } catch (err) {
    await boss.stop({ graceful: false }).catch(() => {});
    throw err;
  }
  return jobs;
}

function isShutdownError(err: Error & { code?: string }): boolean {
  return err.code === '57P01' || /Cannot use a pool after calling end|Connection terminated/.test(err.message ?? '');
}

/** The definition with configured job timings in place of its own (a queue's settings are copied into each job sent to it). */
function withTimings(definition: AnyJobDefinition, timings: JobTimings): AnyJobDefinition {
  const { heartbeatSeconds, retryDelaySeconds } = timings;
  return {
    ...definition,
    queue: { ...definition.queue, ...(heartbeatSeconds && definition.queue.heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}) },
    retry: { ...definition.retry, ...(retryDelaySeconds && definition.retry.limit > 0 ? { delaySeconds: retryDelaySeconds } : {}) },
  };
}

async function createQueue(boss: PgBoss, definition: AnyJobDefinition): Promise<void> {
  const { queue, retry } = definition;
  const settings = {
    notify: true,
    retryLimit: retry.limit,
    retryDelay: retry.delaySeconds,
    retryBackoff: retry.backoff,
    ...(queue.expireInSeconds !== undefined ? { expireInSeconds: queue.expireInSeconds } : {}),
    ...(queue.deleteAfterSeconds !== undefined ? { deleteAfterSeconds: queue.deleteAfterSeconds } : {}),
    ...(queue.heartbeatSeconds !== undefined ? { heartbeatSeconds: queue.heartbeatSeconds } : {}),
  };
  // pg-boss caps only backed-off waits, and refuses a cap without backoff
  const retryDelayMax = retry.backoff ? retry.maxDelaySeconds ?? null : null;
  await boss.createQueue(definition.name, { policy: queue.policy, ...settings, ...(retryDelayMax !== null ? { retryDelayMax } : {}) });
  const existing = await boss.getQueue(definition.name);
  if (existing && existing.policy !== queue.policy) {
    throw new Error(`The "${definition.name}" queue exists with policy ${existing.policy}, but its definition says ${queue.policy}. `
      + 'pg-boss cannot change a queue\'s policy: give the job a new name, or delete the queue (its waiting jobs go with it).');
  }
  // createQueue leaves an existing queue as it was: bring its retries in line with the definition
  await boss.updateQueue(definition.name, { ...settings, retryDelayMax });
}

type WorkDeps = JobDeps & { services: JobServices['services'] | undefined; log: Logger; enqueue: Jobs['enqueue'] };

async function work(boss: PgBoss, definition: AnyJobDefinition, deps: WorkDeps): Promise<void> {
  await boss.work(definition.name, {
    batchSize: 1,
    includeMetadata: true,
    perJobResults: true,
    localConcurrency: definition.worker?.concurrency ?? 1,
    // pg-boss's own default; the same while NOTIFY wakes the workers, for what it does not announce
    // (a retry's or a delayed job's time coming)
    pollingIntervalSeconds: definition.worker?.pollingIntervalSeconds ?? 2,
    notifyPollingIntervalSeconds: definition.worker?.pollingIntervalSeconds ?? 2,
  }, async (batch: JobWithMetadata<unknown>[]) => {
    const results: JobResult[] = [];
    for (const job of batch) results.push(await runOne(boss, definition, job, deps));
    return results;
  });
}

async function runOne(boss: PgBoss, definition: AnyJobDefinition, job: JobWithMetadata<unknown>, deps: WorkDeps): Promise<JobResult> {
  let payload;
  try {
    payload = parsePayload(definition, job.data);
  } catch (err) {
    // the same payload fails every retry: fail it at once
    deps.log.error({ job: definition.name, jobId: job.id, err }, 'job payload refused');
    return { id: job.id, status: 'deadletter', output: errorOutput(err) };
  }
  const log = deps.log.child({
    job: definition.name, jobId: job.id, correlationId: payload.correlationId,
    ...(payload.tenantId ? { tenantId: payload.tenantId } : {}), retry: job.retryCount,
  });
  const ctx = {
    ...(payload.tenantId ? { tenant: forTenant(deps.db, payload.tenantId) } : { db: deps.db }),
    secrets: deps.secrets,
    config: deps.config,
    services: deps.services,
    log,
    job: {
      id: job.id, name: definition.name, retry: job.retryCount, retryLimit: job.retryLimit,
      lastTry: job.retryCount >= job.retryLimit, signal: job.signal,
      othersWaiting: async () => (await deps.db.execute<{ waiting: boolean }>(sql`
        select exists(select 1 from ${sql.raw(SCHEMA)}.job where name = ${definition.name} and state in ('created', 'retry')
          and start_after <= now() and singleton_key is distinct from ${job.singletonKey}) as waiting`)).rows[0]!.waiting,
    },
    progress: (progress) => recordProgress(boss, definition.name, job, progress),
    enqueue: deps.enqueue,
  } as JobContext<typeof payload>;
  try {
    const output = await definition.handler(payload, ctx);
    return { id: job.id, status: 'completed', ...(output ? { output } : {}) };
  } catch (err) {
    if (err instanceof PermanentJobError) {
      log.error({ err }, 'job failed; retrying cannot help');
      return { id: job.id, status: 'deadletter', output: errorOutput(err) };
    }
    log.warn({ err }, ctx.job.lastTry ? 'job failed; no retries left' : 'job failed; it will be retried');
    return { id: job.id, status: 'failed', output: errorOutput(err) };
  }
}

function errorOutput(err: unknown): object {
  return err instanceof Error ? { error: { name: err.name, message: err.message } } : { error: { message: String(err) } };
}

/**
 * Progress sits in the running job's own output column, which pg-boss overwrites only when the run
 * ends; matching retry_count and state leaves a newer attempt's row alone.
 */
async function recordProgress(boss: PgBoss, name: string, job: JobWithMetadata<unknown>, progress: JobProgress): Promise<void> {
  const counts = Object.entries(progress.counts ?? {});
  if (!Number.isFinite(progress.done) || progress.done < 0 || (progress.total !== undefined && !Number.isFinite(progress.total))
    || counts.length > 10 || counts.some(([, n]) => !Number.isFinite(n) || n < 0)) {
    throw new Error('Job progress counts must be finite numbers of at least 0.');
  }
  const clean: JobProgress = {
    done: progress.done,
    ...(progress.total !== undefined ? { total: progress.total } : {}),
    ...(progress.message !== undefined ? { message: progress.message.slice(0, 500) } : {}),
    ...(counts.length ? { counts: Object.fromEntries(counts) } : {}),
  };
  await boss.getDb().executeSql(
    `update ${SCHEMA}.job set output = jsonb_build_object('progress', $3::jsonb)
      where name = $1 and id = $2 and retry_count = $4 and state = 'active'`,
    [name, job.id, JSON.stringify(clean), job.retryCount],
  );
}
