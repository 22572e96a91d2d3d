/**
 * A job is a definition (DESIGN.md section 4a): name, valibot payload schema, queue policy, retry
 * policy, optional cron schedule, optional singleton key, handler. `server/jobs/registry.ts` lists
 * the product's definitions; `startJobs` (boss.ts) creates their queues and works them.
 *
 * Every payload carries a correlationId, so one piece of work can be followed through logs and
 * activity history. Tenant work also carries the tenantId it belongs to: build its schema with
 * `tenantPayload({...})`. Work that belongs to no tenant (identity cleanup) is the system form,
 * `systemPayload({...})`: a correlationId and no tenantId at all.
 */
import * as v from 'valibot';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Services } from '../container.ts';
import type { Db } from '../db/database.ts';
import type { TenantScope } from '../db/tenancy.ts';
import type { SecretBox } from '../connectors/secrets.ts';
import { MAX_RETRY_ATTEMPTS } from '../../src/domain/formula/constants.ts';
import type { JobProgress } from './retryStatus.ts';

const correlationId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));
const tenantId = v.pipe(v.string(), v.uuid());

/** A tenant's work: who it belongs to, and what started it. */
export interface TenantJobPayload { tenantId: string; correlationId: string }
/** Work of the whole service (no tenant); still traceable by its correlationId. */
export interface SystemJobPayload { correlationId: string; tenantId?: undefined }
export type JobPayload = TenantJobPayload | SystemJobPayload;

/** The payload schema of a tenant job: tenantId (a UUID) and correlationId beside the job's own fields. */
export function tenantPayload<const E extends v.ObjectEntries>(entries: E) {
  return v.strictObject({ ...entries, tenantId, correlationId });
}

/** The payload schema of a system job: correlationId beside the job's own fields, and no tenantId. */
export function systemPayload<const E extends v.ObjectEntries>(entries: E) {
  return v.strictObject({ ...entries, correlationId });
}

// any input: what a schema accepts is its own business; its output is what handlers rely on
export type PayloadSchema = v.GenericSchema<any, TenantJobPayload> | v.GenericSchema<any, SystemJobPayload>;

/**
 * pg-boss queue policies we use. `singleton`: at most one active job per singleton key (runs of one
 * formula never overlap, later ones wait). `stately`: one queued and one active per key (a request
 * while one already waits is dropped). `short`: one queued per key. `exclusive`: one queued or
 * active per key. `standard`: no limit; a singleton key means nothing there.
 */
export type QueuePolicy = 'standard' | 'short' | 'singleton' | 'stately' | 'exclusive';

export interface QueueSettings {
  policy: QueuePolicy;
  /** how long one run may take before pg-boss counts it failed (pg-boss default: 15 minutes) */
  expireInSeconds?: number;
  /** how long a finished or failed job's row is kept (pg-boss default: 7 days) */
  deleteAfterSeconds?: number;
  /**
   * workers prove they are alive this often (pg-boss refreshes it while the handler runs); a job
   * whose worker died (kill -9) is failed and retried after this long instead of at its expiry
   */
  heartbeatSeconds?: number;
}

export interface RetrySettings {
  /** retries after the first run: SPEC.md's "attempt n of 10" counts these (MAX_RETRY_ATTEMPTS) */
  limit: number;
  /** the wait before the first retry, in whole seconds */
  delaySeconds: number;
  /** doubles the wait with each retry (with jitter), up to maxDelaySeconds */
  backoff: boolean;
  maxDelaySeconds?: number;
}

/**
 * The retries of work users watch (SPEC.md sections 4 and 9: "attempt n of 10"): 10 retries after
 * the first run, the waits doubling from about a minute (pg-boss adds up to as much again at
 * random, so workers do not retry in step), at most an hour.
 */
export const USER_RETRY: RetrySettings = { limit: MAX_RETRY_ATTEMPTS, delaySeconds: 60, backoff: true, maxDelaySeconds: 3600 };

export interface WorkerSettings {
  /** jobs of this queue one process runs at once */
  concurrency?: number;
  /** how often an idle worker looks for jobs (pg-boss default 2, minimum 0.5) */
  pollingIntervalSeconds?: number;
}

export interface EnqueueOptions {
  /** run no earlier than this */
  startAfter?: Date;
  priority?: number;
}

/** What the registry hands every handler: no handler imports the database, keys or config itself. */
export interface JobDeps {
  db: Db;
  /** opens connector credentials; workers refuse to start without the key (server/worker.ts) */
  secrets: SecretBox;
  config: Config;
}

/** Beside JobDeps: the services the API uses too, built once per process (server/container.ts). */
export interface JobServices {
  services: Services;
}

/**
 * What a handler is given. Tenant work reaches rows only through its tenant's scope (DESIGN.md
 * section 4a); only system work (no tenantId) gets the database itself.
 */
export type JobContext<P = unknown> = JobBaseContext & (P extends { tenantId: string } ? { tenant: TenantScope } : { db: Db });

export interface JobBaseContext extends Omit<JobDeps, 'db'>, JobServices {
  /** carries job, jobId, correlationId and (for tenant work) tenantId on every line */
  log: Logger;
  job: {
    id: string;
    name: string;
    /** 0 on the first run; n on the nth retry */
    retry: number;
    retryLimit: number;
    /** no retry follows if this run fails */
    lastTry: boolean;
    /** aborted when the worker stops or the job is cancelled */
    signal: AbortSignal;
    /** whether another job of this queue waits to start now (not one of this job's singleton key, which waits for this one anyway) */
    othersWaiting(): Promise<boolean>;
  };
  /** records how far this run has got (readable through `Jobs.runStatus` while it runs) */
  progress(progress: JobProgress): Promise<void>;
  /** queues follow-up work on the same registry */
  enqueue<S extends PayloadSchema>(definition: JobDefinition<S>, payload: v.InferInput<S>, options?: EnqueueOptions): Promise<string | null>;
}

export interface JobDefinition<S extends PayloadSchema = PayloadSchema> {
  /** the pg-boss queue name: letters, digits, dashes */
  name: string;
  payload: S;
  queue: QueueSettings;
  retry: RetrySettings;
  /** a cron expression (or RRULE) with its time zone (default UTC) and the payload each run gets */
  schedule?: { cron: string; tz?: string; payload: v.InferInput<S> };
  /** jobs with the same key follow the queue policy's limit (for example one active run per formula) */
  singletonKey?: (payload: v.InferOutput<S>) => string;
  worker?: WorkerSettings;
  /** resolves with what is stored as the job's output; throws to fail (and retry) the run */
  handler: (payload: v.InferOutput<S>, ctx: JobContext<v.InferOutput<S>>) => Promise<object | void>;
}

// the registry holds definitions of every payload type; each handler is only called with its own
export type AnyJobDefinition = JobDefinition<any>;

const NAME = /^[a-z][a-z0-9-]{0,62}$/;

export function defineJob<S extends PayloadSchema>(definition: JobDefinition<S>): JobDefinition<S> {
  if (!NAME.test(definition.name)) {
    throw new Error(`Job name "${definition.name}" must be lower-case letters, digits and dashes, starting with a letter.`);
  }
  if (definition.singletonKey && definition.queue.policy === 'standard') {
    throw new Error(`Job "${definition.name}" has a singleton key on a standard queue, where it limits nothing: choose the singleton, stately, short or exclusive policy.`);
  }
  const { limit, delaySeconds } = definition.retry;
  if (!Number.isInteger(limit) || limit < 0 || !Number.isInteger(delaySeconds) || delaySeconds < 0) {
    throw new Error(`Job "${definition.name}": retry limit and delaySeconds must be whole numbers of at least 0.`);
  }
  if (definition.schedule) parsePayload(definition, definition.schedule.payload);
  return definition;
}

/** A payload its job's schema refuses. The message names fields, never their values (they may be secret). */
export class JobPayloadError extends Error {
  override readonly name = 'JobPayloadError';
  constructor(readonly job: string, readonly problems: string[]) {
    super(`Job "${job}" refused its payload: ${problems.join('; ')}.`);
  }
}

/**
 * Thrown by a handler when trying again cannot help (the record is gone, the credentials were sealed
 * with another key): the job fails at once, without its remaining retries.
 */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const path = v.getDotPath(issue) ?? 'payload';
  if (issue.expected === 'never') return `${path} is not part of this payload`;
  if (issue.received === 'undefined') return `${path} is required`;
  if (issue.kind === 'validation') return `${path} is not a valid ${issue.type.replaceAll('_', ' ')}`;
  return `${path} must be ${issue.expected ?? issue.type}`;
}

export function parsePayload<S extends PayloadSchema>(definition: JobDefinition<S>, payload: unknown): v.InferOutput<S> {
  const result = v.safeParse(definition.payload, payload);
  if (!result.success) throw new JobPayloadError(definition.name, result.issues.map(describeIssue));
  return result.output;
}
