/**
 * Running formulas (SPEC.md section 4): starting runs (on schedule, on demand, once over a date
 * range, for an uploaded file, to reprocess), working them as jobs with the statuses users see,
 * retrying transient failures up to 10 attempts and then marking the formula errored until a
 * user dismisses it, and the controls of a live formula: deactivate, pause, resume, clear data.
 *
 * Every change of what a formula's job is doing goes through `tenant.formulas.setRunState`, which
 * announces it to the status stream; every start, end and failure is an activity event.
 */
import type { Logger } from 'pino';
import { RUN_PAGE_SIZE, type DryRunResult, type FormulaStatus, type RunHistory, type RunView } from '../../src/domain/api/formulas.ts';
import { CURSOR_MESSAGE, decodeCursor, encodeCursor } from '../../src/domain/cursor.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { cardCounts } from '../../src/domain/dataQueue.ts';
import { formulaDisplayName } from '../../src/domain/formula/formula.ts';
import type { RunOnce } from '../../src/domain/formula/parts.ts';
import { ScheduleSchema } from '../../src/domain/formula/parts.ts';
import { nextRunAt } from '../../src/domain/formula/scheduleTimes.ts';
import { formulaListStatus, type JobStatus, type RunKind, type RunParams } from '../../src/domain/formula/statuses.ts';
import * as v from 'valibot';
import { ConnectionProblem, ConnectorInputError, NotSupported } from '../connectors/connector.ts';
import { QuotaExhausted } from '../connectors/kit/problems.ts';
import { SecretKeyError } from '../connectors/secrets.ts';
import type { FormulaRow } from '../db/repositories/formulas.ts';
import type { RunRow } from '../db/repositories/runs.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { dryRun } from '../engine/dryRun.ts';
import { workRun, type RunControl, type RunResult } from '../engine/pipeline.ts';
import { FormulaProblem, type EngineDeps } from '../engine/plan.ts';
import { reprocessHeld } from '../engine/reprocess.ts';
import type { JobRunStatus } from '../../src/domain/formula/jobRunStatus.ts';
import { connectorFailure } from './connections.ts';
import { recordEvent, type EventActor } from './events.ts';
import type { FormulaNotices } from './ownerNotices.ts';

/** Who asked: a user (with the request's log), or the system (the scheduler, a continuation). */
export interface RunActor {
  actor: EventActor;
  correlationId: string;
  log: Logger;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** The activity history's words for a reprocess request: who asked, and what it will and will not change. */
function reprocessDescription(who: RunActor, formula: string, tally: { held: number; reviewed: number }, includeReviewed: boolean): string {
  const by = who.actor === 'system' ? 'Tributary' : who.actor.name;
  const again = includeReviewed ? tally.held : tally.held - tally.reviewed;
  const kept = includeReviewed
    ? `${plural(tally.reviewed, 'record')} people decided for or corrected ${tally.reviewed === 1 ? 'is' : 'are'} routed again too, keeping their corrections`
    : `${plural(tally.reviewed, 'record')} people decided for or corrected ${tally.reviewed === 1 ? 'keeps its' : 'keep their'} bucket, match and values`;
  return `${by} reprocessed ${formula}: ${plural(again, 'held record')} to be matched and routed again; ${kept}; sent records are not changed`;
}

export interface RunJobPayload { tenantId: string; formulaId: string; runId: string; correlationId: string }

/** How runs reach the job queue: the formula-run job definition behind it (server/jobs/formulaRun.ts). */
export interface RunQueue {
  queue(payload: RunJobPayload, startAfter?: Date): Promise<string | null>;
  /** the job's status as SPEC.md names it (attempt n of 10 while retrying); null when pg-boss no longer has it */
  status(jobId: string): Promise<JobRunStatus | null>;
  /** a job waiting out its retry delay starts at once; false when it does not wait so */
  retryNow(jobId: string): Promise<boolean>;
  /** the job will not start (again): an archived formula's runs */
  cancel(jobId: string): Promise<void>;
}

/** What a run's job knows about its own attempt. */
export interface RunAttempt {
  jobId: string;
  /** 0 on the first run, n on the nth retry */
  retry: number;
  retryLimit: number;
  lastTry: boolean;
  signal?: AbortSignal;
  progress?: RunControl['progress'];
  sliceMs?: number;
  othersWaiting?: RunControl['othersWaiting'];
}

/** A failure retrying may mend (a timeout, a server error, a rate limit, a dropped connection). */
export function isTransient(err: unknown): boolean {
  if (err instanceof FormulaProblem || err instanceof ConnectorInputError || err instanceof NotSupported || err instanceof SecretKeyError) return false;
  if (err instanceof ConnectionProblem) return err.transient;
  // anything else (a database hiccup, a bug that may be a race): the retries decide
  return true;
}

/** What a failed run tells users: the connector's words, never a stack. */
export function failureMessage(err: unknown): string {
  if (err instanceof FormulaProblem || err instanceof ConnectionProblem || err instanceof ConnectorInputError || err instanceof NotSupported) return err.message;
  return 'Something unexpected went wrong while running the formula.';
}

const OPEN_STATUSES: JobStatus[] = ['waiting', 'on-demand', 'running', 'retrying', 'applying-edits', 'clearing-data', 'finished-pulling', 'paused'];
const isOpen = (run: RunRow) => OPEN_STATUSES.includes(run.status) && !run.finishedOn;

/** why an archived formula's runs ended */
const ARCHIVED_RUN = 'Cancelled: the formula was archived.';

const RUN_LABEL: Record<RunKind, string> = {
  scheduled: 'Scheduled run', 'on-demand': 'Run on demand', 'run-once': 'Run once', file: 'File run', reprocess: 'Reprocessing',
};

export function formulaRunsService(deps: EngineDeps & { runs: RunQueue; formulaNotices?: FormulaNotices }) {
  const notFound = () => new DomainError('not-found', 'No such formula.');

  async function load(tenant: TenantScope, id: string): Promise<FormulaRow> {
    const row = await tenant.formulas.get(id);
    if (!row) throw notFound();
    return row;
  }

  async function runView(run: RunRow): Promise<RunView> {
    let retry: RunView['retry'] = null;
    let progress: RunView['progress'] = null;
    if (run.jobId && (run.status === 'retrying' || run.status === 'running' || run.status === 'applying-edits' || run.status === 'finished-pulling')) {
      const job = await deps.runs.status(run.jobId).catch(() => null);
      if (job?.status === 'retrying') retry = { attempt: job.attempt, of: job.of, nextTryAt: job.nextTryAt };
      if (job?.status === 'running' && job.progress) progress = { done: job.progress.done, ...(job.progress.message ? { message: job.progress.message } : {}) };
    }
    const { from, to, uploadId } = run.params;
    return {
      id: run.id, kind: run.kind, status: run.status, counts: run.counts,
      params: { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(uploadId ? { uploadId } : {}) },
      error: run.error, retry, progress, createdOn: run.createdOn.toISOString(), startedOn: run.startedOn?.toISOString() ?? null,
      finishedOn: run.finishedOn?.toISOString() ?? null, attempts: run.attempt,
    };
  }

  async function statusOf(tenant: TenantScope, row: FormulaRow): Promise<FormulaStatus> {
    const [last] = await tenant.runs.latest(row.id, 1);
    const groups = await tenant.records.tally(row.id);
    const buckets: Record<string, number> = {};
    for (const g of groups) {
      const key = g.customBucket ? `${g.bucket}/${g.customBucket}` : g.bucket;
      buckets[key] = (buckets[key] ?? 0) + g.count;
    }
    return {
      id: row.id, status: formulaListStatus(row), jobStatus: row.jobStatus, enabled: row.enabled, paused: row.paused,
      needsReprocess: row.needsReprocess, nextRunAt: row.nextRunAt?.toISOString() ?? null, lastError: row.lastError,
      lastRun: last ? await runView(last) : null, buckets, counts: cardCounts(groups),
    };
  }

  /** When a live formula next runs by its schedule; null for file-upload formulas, inactive, paused or archived ones. */
  async function nextScheduled(tenant: TenantScope, row: Pick<FormulaRow, 'id' | 'enabled' | 'paused' | 'usesFileUpload' | 'archivedOn'>, after = new Date()): Promise<Date | null> {
    if (!row.enabled || row.paused || row.usesFileUpload || row.archivedOn) return null;
    const part = await tenant.parts.get(row.id, 'schedule');
    const schedule = part ? v.safeParse(ScheduleSchema, part.body) : null;
    return schedule?.success ? nextRunAt(schedule.output, after) : null;
  }

  /** The job status a formula rests in when no run is under way. */
  const restingStatus = (row: Pick<FormulaRow, 'enabled' | 'paused' | 'usesFileUpload'>): JobStatus | null =>
    row.paused ? 'paused' : row.enabled ? (row.usesFileUpload ? 'waiting' : 'scheduled') : null;

  async function startRun(tenant: TenantScope, who: RunActor, formulaId: string, kind: RunKind, params: RunParams = {}): Promise<RunRow> {
    const run = await tenant.transaction(async (tx) => {
      const row = await tx.formulas.getForUpdate(formulaId);
      if (!row) throw notFound();
      if (row.isDraft) throw new DomainError('formula-incomplete', 'Activate the formula before running it.');
      if (row.archivedOn) throw new DomainError('formula-archived', `The formula ${formulaDisplayName(row)} is archived: it does not run.`);
      const open = (await tx.runs.open(row.id)).filter(isOpen);
      // files queue behind each other (every file must be read); other runs do not pile up
      if (kind !== 'file' && open.length) throw new DomainError('formula-busy', `${RUN_LABEL[open[0]!.kind]} of this formula is ${open[0]!.status}.`);
      const status: JobStatus = kind === 'on-demand' && !row.enabled ? 'on-demand' : kind === 'reprocess' ? 'applying-edits' : 'waiting';
      const created = await tx.runs.create({
        formulaId: row.id, kind, status, params: kind === 'reprocess' ? { ...params, wasPaused: row.paused, ...(who.actor === 'system' ? {} : { requestedBy: who.actor.name }) } : params,
        correlationId: who.correlationId, startedBy: who.actor === 'system' ? null : who.actor.userId,
      });
      // reprocessing pauses incoming data until it is done
      await tx.formulas.setRunState(row.id, { jobStatus: status, lastRunId: created.id, ...(kind === 'reprocess' ? { paused: true } : {}) });
      // reprocessing says who asked and what it will and will not change
      const tally = kind === 'reprocess' ? await tx.records.heldTally(row.id) : null;
      await recordEvent(tx, {
        actor: who.actor, type: 'run.requested', correlationId: who.correlationId, formulaId: row.id,
        description: tally ? reprocessDescription(who, formulaDisplayName(row), tally, params.includeReviewed === true)
          : `${RUN_LABEL[kind]} of ${formulaDisplayName(row)} requested`,
        details: { runId: created.id, kind, ...params, ...(tally ? { held: tally.held, reviewed: tally.reviewed } : {}) },
      });
      return created;
    });
    const jobId = await deps.runs.queue({ tenantId: tenant.tenantId, formulaId, runId: run.id, correlationId: who.correlationId });
    return (await tenant.runs.update(run.id, { jobId }))!;
  }

  /** The end of a run, good or bad: the run's row, the formula's resting state and the event. */
  async function finish(tenant: TenantScope, run: RunRow, row: FormulaRow, who: RunActor, failure: string | null): Promise<void> {
    await tenant.transaction(async (tx) => {
      const done = (await tx.runs.update(run.id, {
        status: failure ? 'errored' : 'finished', error: failure, finishedOn: new Date(),
      }))!;
      const fresh = (await tx.formulas.get(row.id)) ?? row;
      const restore = run.kind === 'reprocess' ? { paused: run.params.wasPaused ?? false, ...(failure ? {} : { needsReprocess: false }) } : {};
      const after = { ...fresh, ...restore };
      await tx.formulas.setRunState(row.id, {
        ...restore,
        // archived while its last batch was sent: it rests with no job status
        jobStatus: fresh.archivedOn ? null : failure ? 'errored' : restingStatus(after) ?? 'finished',
        lastError: failure,
        nextRunAt: failure ? null : await nextScheduled(tx, after),
      });
      const counts = done.counts;
      await recordEvent(tx, {
        actor: 'system', type: failure ? 'run.failed' : 'run.finished', correlationId: run.correlationId, formulaId: row.id,
        description: failure
          ? `${RUN_LABEL[run.kind]} of ${formulaDisplayName(row)} failed: ${failure}`
          : `${RUN_LABEL[run.kind]} of ${formulaDisplayName(row)}${run.params.requestedBy ? ` (asked for by ${run.params.requestedBy})` : ''} finished: `
            + `${counts.collected ?? 0} collected, ${(counts.created ?? 0) + (counts.updated ?? 0)} sent`
            + `${counts.reprocessed ? `, ${counts.reprocessed} reprocessed` : ''}`,
        details: { runId: run.id, kind: run.kind, counts, ...(failure ? { error: failure } : {}) },
      });
    });
    who.log.info({ runId: run.id, formulaId: row.id, failure }, failure ? 'run failed' : 'run finished');
  }

  /**
   * The formula's owner hears that it errored, once, when its run gives up. Not when a data source
   * of it needs reconnecting: the owners of the data source and of its formulas were told that when
   * it happened, and each run until it is reconnected would tell them again.
   */
  async function tellOwner(tenant: TenantScope, row: FormulaRow, failure: string): Promise<void> {
    if (!deps.formulaNotices) return;
    for (const id of [row.sourceDataSourceId, row.destinationDataSourceId]) {
      if (id && (await tenant.dataSources.get(id))?.needsReconnecting) return;
    }
    await deps.formulaNotices.formulaErrored(tenant, { id: row.id, name: formulaDisplayName(row) }, failure);
  }

  return {
    statusOf,
    runView,
    nextScheduled,
    startRun,

    async status(tenant: TenantScope, id: string): Promise<FormulaStatus> {
      return statusOf(tenant, await load(tenant, id));
    },

    async statuses(tenant: TenantScope): Promise<FormulaStatus[]> {
      return Promise.all((await tenant.formulas.list()).map((row) => statusOf(tenant, row)));
    },

    /** The run history: a page of the formula's runs, newest first. */
    async runs(tenant: TenantScope, id: string, page: { cursor?: string | undefined; limit?: number | undefined } = {}): Promise<RunHistory> {
      await load(tenant, id);
      const limit = page.limit ?? RUN_PAGE_SIZE;
      const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, 'date-time');
      if (after === null) throw new DomainError('bad-request', CURSOR_MESSAGE);
      const rows = await tenant.runs.page(id, limit + 1, after);
      const shown = rows.slice(0, limit);
      const last = shown.at(-1);
      return { runs: await Promise.all(shown.map(runView)), nextCursor: rows.length > limit && last ? encodeCursor(last.position, last.id) : null };
    },

    /** Run now, or once over a date range. */
    async run(tenant: TenantScope, who: RunActor, id: string, runOnce?: RunOnce): Promise<RunView> {
      const row = await load(tenant, id);
      if (row.usesFileUpload) throw new DomainError('bad-request', 'A file-upload formula runs when a file is uploaded to it.');
      return runView(await startRun(tenant, who, id, runOnce ? 'run-once' : 'on-demand', runOnce ? { from: runOnce.from, to: runOnce.to } : {}));
    },

    /** Reprocesses the held records; records a person decided for or corrected only with `includeReviewed`. */
    async reprocess(tenant: TenantScope, who: RunActor, id: string, opts: { includeReviewed?: boolean } = {}): Promise<RunView> {
      return runView(await startRun(tenant, who, id, 'reprocess', opts.includeReviewed ? { includeReviewed: true } : {}));
    },

    async dryRun(tenant: TenantScope, who: RunActor, id: string, limit: number): Promise<DryRunResult> {
      const row = await load(tenant, id);
      try {
        return await dryRun(tenant, deps, row, limit);
      } catch (err) {
        if (err instanceof FormulaProblem) throw new DomainError('formula-incomplete', err.message);
        throw connectorFailure(err, 'formula', who.log, id);
      }
    },

    /** The job of a run: works it for one slice; answers whether a continuation must follow. */
    async work(tenant: TenantScope, payload: RunJobPayload, attempt: RunAttempt, who: RunActor): Promise<{ continued: boolean }> {
      const run = await tenant.runs.get(payload.runId);
      const row = await tenant.formulas.get(payload.formulaId);
      // an archived formula's run was ended when it was archived; its job, if it still started, does nothing
      if (!run || !row || run.finishedOn || row.archivedOn) return { continued: false };
      if (row.paused && run.kind !== 'reprocess') {
        // paused: the run waits where it stopped; resume queues it again (unless it was ended meanwhile)
        if (await tenant.runs.updateOpen(run.id, { status: 'paused', jobId: attempt.jobId })) await tenant.formulas.setRunState(row.id, { jobStatus: 'paused' });
        return { continued: false };
      }
      const working: JobStatus = run.kind === 'reprocess' ? 'applying-edits' : 'running';
      // a run its formula's archiving ended since it was read is left ended, and not worked
      const started = await tenant.runs.updateOpen(run.id, { status: working, attempt: attempt.retry + 1, jobId: attempt.jobId, ...(run.startedOn ? {} : { startedOn: new Date() }) });
      if (!started) return { continued: false };
      await tenant.formulas.setRunState(row.id, { jobStatus: working, lastRunId: run.id });
      if (run.status === 'waiting' || run.status === 'on-demand' || (run.kind === 'reprocess' && attempt.retry === 0 && !run.params.cursor)) {
        await recordEvent(tenant, {
          actor: 'system', type: 'run.started', correlationId: run.correlationId, formulaId: row.id,
          description: `${RUN_LABEL[run.kind]} of ${formulaDisplayName(row)} started`, details: { runId: run.id, kind: run.kind },
        });
      }
      const control: RunControl = {
        ...(attempt.signal ? { signal: attempt.signal } : {}),
        ...(attempt.progress ? { progress: attempt.progress } : {}),
        ...(attempt.sliceMs !== undefined ? { sliceMs: attempt.sliceMs } : {}),
        ...(attempt.othersWaiting ? { othersWaiting: attempt.othersWaiting } : {}),
      };
      let result: RunResult;
      try {
        result = run.kind === 'reprocess' ? await reprocessHeld(tenant, deps, run, control) : await workRun(tenant, deps, run, control);
      } catch (err) {
        const message = failureMessage(err);
        if (err instanceof QuotaExhausted) {
          // a spent quota is not a failure: the run waits, with the reason on its card, until the vendor renews it
          await tenant.runs.update(run.id, { status: 'paused', error: message });
          await tenant.formulas.setRunState(row.id, { jobStatus: 'paused' });
          await recordEvent(tenant, {
            actor: 'system', type: 'run.paused', correlationId: run.correlationId, formulaId: row.id,
            description: `${RUN_LABEL[run.kind]} of ${formulaDisplayName(row)} paused: ${message}`,
            details: { runId: run.id, kind: run.kind, resumeAt: err.resumeAt.toISOString() },
          });
          await deps.runs.queue({ tenantId: tenant.tenantId, formulaId: row.id, runId: run.id, correlationId: run.correlationId }, err.resumeAt);
          return { continued: true };
        }
        if (!isTransient(err) || attempt.lastTry) {
          const final = attempt.lastTry && isTransient(err) ? `${message} (gave up after ${attempt.retry + 1} attempts)` : message;
          await finish(tenant, run, row, who, final);
          await tellOwner(tenant, row, final);
          throw new FinalRunFailure(final, err);
        }
        await tenant.runs.update(run.id, { status: 'retrying', error: message });
        await tenant.formulas.setRunState(row.id, { jobStatus: 'retrying' });
        // each failed attempt is in the activity history, with the reason in words
        await recordEvent(tenant, {
          actor: 'system', type: 'run.attempt-failed', correlationId: run.correlationId, formulaId: row.id,
          description: `${RUN_LABEL[run.kind]} of ${formulaDisplayName(row)} failed on attempt ${attempt.retry + 1}: ${message}. `
            + `It tries again (retry ${attempt.retry + 1} of ${attempt.retryLimit}).`,
          details: { runId: run.id, kind: run.kind, attempt: attempt.retry + 1, retry: attempt.retry + 1, of: attempt.retryLimit, error: message },
        });
        throw err;
      }
      if (!result.done) {
        await deps.runs.queue({ tenantId: tenant.tenantId, formulaId: row.id, runId: run.id, correlationId: run.correlationId });
        return { continued: true };
      }
      await finish(tenant, run, row, who, null);
      return { continued: false };
    },

    async deactivate(tenant: TenantScope, who: RunActor, id: string): Promise<FormulaStatus> {
      const row = await load(tenant, id);
      const updated = (await tenant.formulas.setRunState(row.id, { enabled: false, nextRunAt: null, jobStatus: row.jobStatus === 'scheduled' || row.jobStatus === 'waiting' ? null : row.jobStatus }))!;
      await recordEvent(tenant, { actor: who.actor, type: 'formula.deactivated', correlationId: who.correlationId, formulaId: id, description: `Deactivated the formula ${formulaDisplayName(row)}` });
      return statusOf(tenant, updated);
    },

    /**
     * An archived formula stops: its schedule ends and every run without an end (waiting, retrying,
     * paused, or under way, which stops after its batch) ends now as cancelled. Answers the runs'
     * jobs, to cancel once the archiving is committed.
     */
    async stopForArchive(tx: TenantScope, id: string): Promise<string[]> {
      const runs = await tx.runs.unfinished(id);
      for (const run of runs) await tx.runs.update(run.id, { status: 'finished', error: ARCHIVED_RUN, finishedOn: new Date() });
      await tx.formulas.setRunState(id, { enabled: false, paused: false, nextRunAt: null, jobStatus: null, lastError: null });
      return runs.flatMap((r) => (r.jobId ? [r.jobId] : []));
    },

    /** The jobs of an archived formula's runs: none starts. A job already under way finds its run ended and stops. */
    async cancelJobs(jobIds: string[], log: Logger): Promise<void> {
      for (const jobId of jobIds) {
        await deps.runs.cancel(jobId).catch((err: unknown) => log.warn({ err, jobId }, 'a run\'s job could not be cancelled; its run is ended and it will do nothing'));
      }
    },

    /** A formula goes live: its schedule starts. */
    async activateSchedule(tenant: TenantScope, id: string): Promise<void> {
      const row = await load(tenant, id);
      const live = { ...row, enabled: true };
      await tenant.formulas.setRunState(id, { enabled: true, nextRunAt: await nextScheduled(tenant, live), jobStatus: row.jobStatus ?? restingStatus(live) });
    },

    /** A file uploaded to a file-upload formula: its run, now if the formula is live, else when it is activated. */
    async queueFile(tenant: TenantScope, who: RunActor, id: string, uploadId: string): Promise<RunRow | null> {
      const row = await load(tenant, id);
      if (row.isDraft || row.archivedOn) return null;
      return startRun(tenant, who, id, 'file', { uploadId });
    },

    /** Files uploaded to a file-upload formula while it could not run (a draft): their runs, once it is live. */
    async queueWaitingFiles(tenant: TenantScope, who: RunActor, id: string): Promise<number> {
      const row = await load(tenant, id);
      if (!row.usesFileUpload || row.isDraft || row.archivedOn) return 0;
      const queued = new Set((await tenant.runs.open(id)).map((r) => r.params.uploadId));
      const waiting = (await tenant.uploads.forFormula(id, { waiting: true })).filter((u) => !queued.has(u.id));
      for (const upload of waiting) await startRun(tenant, who, id, 'file', { uploadId: upload.id });
      return waiting.length;
    },

    async pause(tenant: TenantScope, who: RunActor, id: string): Promise<FormulaStatus> {
      const row = await load(tenant, id);
      const running = (await tenant.runs.open(id)).some((r) => r.status === 'running' || r.status === 'applying-edits');
      const updated = (await tenant.formulas.setRunState(id, { paused: true, nextRunAt: null, ...(running ? {} : { jobStatus: 'paused' }) }))!;
      await recordEvent(tenant, { actor: who.actor, type: 'formula.paused', correlationId: who.correlationId, formulaId: id, description: `Paused the formula ${formulaDisplayName(row)}` });
      return statusOf(tenant, updated);
    },

    async resume(tenant: TenantScope, who: RunActor, id: string): Promise<FormulaStatus> {
      const row = await load(tenant, id);
      const live = { ...row, paused: false };
      let updated = (await tenant.formulas.setRunState(id, { paused: false, nextRunAt: await nextScheduled(tenant, live), jobStatus: restingStatus(live) }))!;
      // runs that stopped for the pause go on where they were
      for (const run of (await tenant.runs.open(id)).filter((r) => r.status === 'paused')) {
        await tenant.runs.update(run.id, { status: 'waiting' });
        await deps.runs.queue({ tenantId: tenant.tenantId, formulaId: id, runId: run.id, correlationId: who.correlationId });
        updated = (await tenant.formulas.setRunState(id, { jobStatus: 'waiting' }))!;
      }
      await recordEvent(tenant, { actor: who.actor, type: 'formula.resumed', correlationId: who.correlationId, formulaId: id, description: `Resumed the formula ${formulaDisplayName(row)}` });
      return statusOf(tenant, updated);
    },

    async clear(tenant: TenantScope, who: RunActor, id: string): Promise<FormulaStatus> {
      const row = await load(tenant, id);
      const open = (await tenant.runs.open(id)).filter(isOpen);
      if (open.length) throw new DomainError('formula-busy', `${RUN_LABEL[open[0]!.kind]} of this formula is ${open[0]!.status}.`);
      await tenant.formulas.setRunState(id, { jobStatus: 'clearing-data' });
      const removed = await tenant.transaction(async (tx) => {
        const n = await tx.records.clear(id);
        await tx.formulas.setRunState(id, { jobStatus: restingStatus(row) });
        await recordEvent(tx, {
          actor: who.actor, type: 'formula.cleared', correlationId: who.correlationId, formulaId: id,
          description: `Cleared ${n} record${n === 1 ? '' : 's'} of the formula ${formulaDisplayName(row)}`, details: { removed: n },
        });
        return n;
      });
      who.log.info({ formulaId: id, removed }, 'formula data cleared');
      return statusOf(tenant, await load(tenant, id));
    },

    /** A run waiting out its retry delay tries again at once; its count of attempts stays. */
    async retryNow(tenant: TenantScope, who: RunActor, id: string): Promise<FormulaStatus> {
      const row = await load(tenant, id);
      const waiting = (await tenant.runs.open(id)).find((r) => r.status === 'retrying' && r.jobId);
      if (!waiting || !(await deps.runs.retryNow(waiting.jobId!))) {
        throw new DomainError('formula-busy', `The formula ${formulaDisplayName(row)} is not waiting to try again.`);
      }
      await recordEvent(tenant, {
        actor: who.actor, type: 'run.retried-now', correlationId: who.correlationId, formulaId: id,
        description: `Asked the ${RUN_LABEL[waiting.kind].toLowerCase()} of ${formulaDisplayName(row)} to try again now`, details: { runId: waiting.id },
      });
      return statusOf(tenant, await load(tenant, id));
    },

    async dismissError(tenant: TenantScope, who: RunActor, id: string, retry: boolean): Promise<FormulaStatus> {
      const row = await load(tenant, id);
      await tenant.formulas.setRunState(id, { lastError: null, jobStatus: restingStatus(row), nextRunAt: await nextScheduled(tenant, row) });
      await recordEvent(tenant, {
        actor: who.actor, type: 'formula.error-dismissed', correlationId: who.correlationId, formulaId: id,
        description: `Dismissed the error of the formula ${formulaDisplayName(row)}${retry ? ' and ran it again' : ''}`, details: { error: row.lastError },
      });
      if (retry && !row.usesFileUpload) await startRun(tenant, who, id, 'on-demand');
      return statusOf(tenant, await load(tenant, id));
    },
  };
}

export type FormulaRunsService = ReturnType<typeof formulaRunsService>;

/** A run that failed for good: the job fails without further retries. */
export class FinalRunFailure extends Error {
  override readonly name = 'FinalRunFailure';
  constructor(message: string, readonly original: unknown) {
    super(message);
  }
}
