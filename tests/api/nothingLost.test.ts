/**
 * Nothing lost: real worker processes (`server/worker.ts`) on the test's PostgreSQL, the API in this
 * process without workers. A worker killed with SIGKILL while a run collects, or while it sends, is
 * replaced and the run finishes with every row of the file one record and every record written to
 * the Sandbox CRM exactly once; a file longer than a slice is read to its end; a destination failing
 * half-way makes the run retry ("attempt n of 10") and it then finishes with nothing lost or written
 * twice; two workers share the runs of several formulas of two tenants, one job per formula at a time.
 *
 * Files are small to keep the test short; the Sandbox CRM writes a send batch of 500 in one
 * transaction, so where a run must span several jobs its slices are short.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus, RunView } from '../../src/domain/api/formulas.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { formulaRun } from '../../server/jobs/formulaRun.ts';
import { call, sessionFor } from '../support/api.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { workerArgs, workerEnv } from '../support/workerProcess.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const F = '/web-api/v1/formulas';
const FOLDER = 'nothing-lost';
/** a dead worker's job is failed within its heartbeat (pg-boss's shortest, 10 s) and retried a second or two later */
const TIMINGS = { JOBS_SUPERVISE_SECONDS: '1', JOBS_HEARTBEAT_SECONDS: '10', JOBS_RETRY_DELAY_SECONDS: '1' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** slices shorter than any batch takes to read and store: a run of a few batches spans several */
const SHORT_SLICES = { RUN_SLICE_MS: '1' };

let server: TestServer;
let pool: pg.Pool;
/** the demo's two tenants, each with its Sandbox CRM and a drop folder */
const tenants: { id: string; headers: Record<string, string>; crm: string; flat: string }[] = [];

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs: number, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

const q = async <T extends pg.QueryResultRow = Record<string, unknown>>(text: string, values: unknown[] = []) => (await pool.query<T>(text, values)).rows;
const num = async (text: string, values: unknown[] = []) => Number((await q<{ n: string }>(text, values))[0]!.n);
const states = async (formulaId: string) => Object.fromEntries((await q<{ state: string; n: number }>(
  'select state, count(*)::int as n from records where formula_id = $1 group by 1', [formulaId])).map((r) => [r.state, r.n]));
const crmCount = (tenant: number) => num('select count(*) as n from sandbox_constituents where tenant_id = $1', [tenants[tenant]!.id]);

// ------------------------------------------------------------------ worker processes

interface Worker {
  name: string;
  child: ChildProcess;
  out(): string;
  /** the runs this process finished since the test took it */
  finishedRuns(): string[];
  exited: Promise<unknown>;
  /** the settings it was started with */
  env: string;
  /** left by a test that passed, for the next test that asks for a worker like it */
  idle: boolean;
  /** where in its output the test that took it began */
  from: number;
}
const workers: Worker[] = [];

/** `npm run worker` without npm, so SIGKILL reaches the worker itself */
async function startWorker(name: string, env: Record<string, string> = {}): Promise<Worker> {
  const child = spawn(process.execPath, workerArgs(), {
    cwd: ROOT,
    env: workerEnv(server, { ...TIMINGS, LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => { out += String(d); });
  child.stderr!.on('data', (d) => { out += String(d); });
  const worker: Worker = {
    name, child, out: () => out, env: JSON.stringify(env), idle: false, from: 0,
    exited: new Promise((resolve) => child.on('close', resolve)),
    finishedRuns: () => out.slice(worker.from).split('\n').filter((l) => l.includes('"msg":"run finished"')).map((l) => (JSON.parse(l) as { runId: string }).runId),
  };
  workers.push(worker);
  await until(`${name} to be ready`, async () => {
    if (child.exitCode !== null) throw new Error(`${name} exited: ${out}`);
    return out.includes('"msg":"worker ready"');
  }, 60_000);
  return worker;
}

const alive = (w: Worker) => w.child.exitCode === null && w.child.signalCode === null;

/**
 * A worker started with these settings: one an earlier test left idle, or a new one. Starting a
 * worker takes seconds (Node loads the whole server), and a worker works one run after another, so
 * the tests pass their workers on rather than each start its own.
 */
async function workerFor(name: string, env: Record<string, string> = {}): Promise<Worker> {
  // an idle worker still works the queues: none of other settings may take this test's runs
  await Promise.all(workers.filter((w) => w.idle && w.env !== JSON.stringify(env)).map(stop));
  const idle = workers.find((w) => w.idle && alive(w) && w.env === JSON.stringify(env));
  if (!idle) return startWorker(name, env);
  Object.assign(idle, { name, idle: false, from: idle.out().length });
  return idle;
}

/** The test is done with the worker: the next test may take it (afterAll stops it). */
function release(worker: Worker): void {
  worker.idle = true;
}

/**
 * pg-boss fails a job whose worker died once its last heartbeat is older than its heartbeat_seconds
 * (10 here, pg-boss's least). Rather than wait that out, the dead worker's job has its last heartbeat
 * moved back by that much: pg-boss's supervisor (every second here) still has to find it and fail it
 * for the run to go on.
 */
async function heartbeatLapses(runId: string): Promise<void> {
  const moved = await q(`update pgboss.job set heartbeat_on = heartbeat_on - heartbeat_seconds * interval '1 second'
    where name = $1 and state = 'active' and data->>'runId' = $2 and heartbeat_on is not null and heartbeat_seconds is not null
    returning id`, [formulaRun.name, runId]);
  expect(moved, 'the dead worker\'s job, active with a heartbeat').toHaveLength(1);
}

async function kill9(worker: Worker): Promise<void> {
  worker.child.kill('SIGKILL');
  await worker.exited;
}

async function stop(worker: Worker): Promise<void> {
  if (!alive(worker)) return;
  worker.child.kill('SIGTERM');
  await Promise.race([worker.exited, sleep(15_000)]);
  if (alive(worker)) await kill9(worker);
}

// ------------------------------------------------------------------ formulas and files

interface Supporters { name: string; rows: string[][]; fresh: string[]; known: number }

/**
 * A file of `fresh` supporters the CRM does not hold and `known` ones it holds once (by e-mail),
 * spread through the file. `knownFrom`: where in the CRM the known ones start, so files do not share them.
 */
async function supporters(tenant: number, tag: string, fresh: number, known: number, knownFrom: number): Promise<Supporters> {
  const held = await q<{ first_name: string | null; last_name: string; address: string }>(`
    select first_name, last_name, email as address from (
      select c.first_name, c.last_name, c.email, c.lookup_id, count(*) over (partition by lower(c.email)) as holders
      from sandbox_constituents c where c.tenant_id = $1 and c.email is not null
    ) c where holders = 1
    order by lookup_id offset $2 limit $3`, [tenants[tenant]!.id, knownFrom, known]);
  expect(held.length).toBe(known);
  const rows = Array.from({ length: fresh }, (_, i) => [`First${i}`, `Last${i}`, `${tag}-${i}@nothing-lost.example`]);
  const freshEmails = rows.map((r) => r[2]!);
  held.forEach((c, i) => rows.splice(Math.floor(((i + 0.5) * fresh) / known) + i, 0, [c.first_name ?? '', c.last_name, c.address]));
  const file = { name: `${tag}.csv`, rows, fresh: freshEmails, known };
  const dir = dropFolderPath(server.config.dataDir, tenants[tenant]!.id, FOLDER);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file.name), [['First name', 'Last name', 'Email'], ...rows].map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')).join('\n'));
  return file;
}

const api = (tenant: number, p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: tenants[tenant]!.headers });
const json = async <T>(res: Response) => res.json() as Promise<T>;

/** a live formula reading one file of the drop folder into the Sandbox CRM, sending new supporters and single matches at once */
async function liveFormula(tenant: number, file: Supporters, autosend = true): Promise<string> {
  const { id } = await json<{ id: string }>(await api(tenant, F, { method: 'POST', body: { name: `Nothing lost ${file.name}` } }));
  const t = tenants[tenant]!;
  const set = await api(tenant, `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: t.flat, object: file.name }, destination: { dataSourceId: t.crm, object: 'constituents' } } });
  expect(set.status, await set.clone().text()).toBe(200);
  const parts = {
    ...VALID_PARTS,
    routing: { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
    autosend: { enabled: autosend },
  };
  for (const [part, body] of Object.entries(parts)) {
    const put = await api(tenant, `${F}/${id}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  const live = await api(tenant, `${F}/${id}/activate`, { method: 'POST' });
  expect(live.status, await live.clone().text()).toBe(200);
  return id;
}

async function runNow(tenant: number, formulaId: string): Promise<RunView> {
  const res = await api(tenant, `${F}/${formulaId}/run`, { method: 'POST', body: {} });
  expect(res.status, await res.clone().text()).toBe(202);
  return json<RunView>(res);
}

async function runOf(tenant: number, formulaId: string, runId: string): Promise<RunView> {
  const { runs } = await json<{ runs: RunView[] }>(await api(tenant, `${F}/${formulaId}/runs`));
  return runs.find((r) => r.id === runId)!;
}

async function finished(tenant: number, formulaId: string, runId: string, timeoutMs: number): Promise<RunView> {
  try {
    return await until(`run ${runId} to finish`, async () => {
      const run = await runOf(tenant, formulaId, runId);
      return run.finishedOn ? run : undefined;
    }, timeoutMs, 250);
  } catch (err) {
    const jobs = await q(`select state, retry_count, started_on, completed_on from pgboss.job where name = $1 and data->>'runId' = $2`, [formulaRun.name, runId]);
    const logs = workers.map((w) => `${w.name}:\n${w.out().split('\n').slice(-10).join('\n')}`).join('\n');
    throw new Error(`${(err as Error).message}: ${JSON.stringify(await runOf(tenant, formulaId, runId))}, records ${JSON.stringify(await states(formulaId))}, `
      + `jobs ${JSON.stringify(jobs)}\n${logs}`);
  }
}

/**
 * Every row of the file is exactly one record, every record was sent, and the CRM holds each
 * written once: one new constituent per new supporter, one write per record, none left sending.
 */
async function expectNothingLost(tenant: number, formulaId: string, file: Supporters, run: RunView) {
  const tenantId = tenants[tenant]!.id;
  expect(run.status, JSON.stringify(run)).toBe('finished');
  const rows = file.rows.length;

  const records = await q<{ source_key: string; email: string }>(`select source_key, raw->>'Email' as email from records where formula_id = $1`, [formulaId]);
  expect(records.length).toBe(rows);
  // the source key is the file and its line; the header is line 1
  expect(new Set(records.map((r) => r.source_key))).toEqual(new Set(file.rows.map((_, i) => `${file.name}#${i + 2}`)));
  expect(records.map((r) => r.email).sort()).toEqual(file.rows.map((r) => r[2]).sort());
  expect(await states(formulaId)).toEqual({ sent: rows });

  const fresh = await q<{ email: string; n: number }>(`
    select lower(c.email) as email, count(*)::int as n from sandbox_constituents c
    where c.tenant_id = $1 and lower(c.email) = any($2::text[]) group by 1`, [tenantId, file.fresh]);
  expect(fresh.length).toBe(file.fresh.length);
  expect(fresh.filter((f) => f.n !== 1)).toEqual([]);

  const writes = await q<{ outcome: string; n: number }>(`
    select w.outcome, count(*)::int as n from sandbox_writes w join records r on r.tenant_id = w.tenant_id and r.idempotency_key = w.idempotency_key
    where r.formula_id = $1 group by 1`, [formulaId]);
  expect(Object.fromEntries(writes.map((w) => [w.outcome, w.n]))).toEqual({ created: file.fresh.length, updated: file.known });

  // the run's counts add up: rows read again after a kill count as collected and unchanged
  const counts = JSON.stringify(run.counts);
  expect(run.counts.created, counts).toBe(file.fresh.length);
  expect(run.counts.updated, counts).toBe(file.known);
  expect((run.counts.collected ?? 0) - (run.counts.unchanged ?? 0), counts).toBe(rows);
}

// ------------------------------------------------------------------ setup

beforeAll(async () => {
  server = await startTestServer({ env: TIMINGS });
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
  const admin = await sessionFor(server.url, 'administrator@demo.tributary.test');
  const me = await json<{ activeTenantId: string; tenants: { tenantId: string }[] }>(
    await call(server.url, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers }));
  const ids = [me.activeTenantId, ...me.tenants.map((t) => t.tenantId).filter((t) => t !== me.activeTenantId)];
  expect(ids.length).toBe(2);
  for (const id of ids) {
    const headers = { ...admin.headers, tenantId: id };
    const list = await json<{ dataSources: { id: string; system: string }[] }>(await call(server.url, '/integrations/v1/data-sources', { headers }));
    const made = await call(server.url, '/integrations/v1/data-sources', {
      method: 'POST', headers, body: { system: 'flat-file', displayName: 'Nothing lost drop', settings: { folder: FOLDER } },
    });
    expect(made.status, await made.clone().text()).toBe(201);
    tenants.push({ id, headers, crm: list.dataSources.find((d) => d.system === 'sandbox-crm')!.id, flat: (await json<{ id: string }>(made)).id });
  }
}, 120_000);

// a test that failed half-way leaves no worker to the next; one that passed leaves its idle ones
afterEach(async (ctx) => {
  const failed = ctx.task.result?.state === 'fail' || (ctx.task.result?.errors?.length ?? 0) > 0;
  for (const w of workers) if (alive(w) && (failed || !w.idle)) await kill9(w);
});

afterAll(async () => {
  await Promise.all(workers.map(stop));
  await pool?.end();
  await server?.close();
});

// ------------------------------------------------------------------ scenarios

describe('a worker killed with SIGKILL', () => {
  it('while the run collects: a new worker reads on, every row one record, every record sent once', async () => {
    // the worker starts while the file and formula are made: it has nothing to work until the run
    const starting = workerFor('collector 1');
    starting.catch(() => {});
    const file = await supporters(0, 'collect', 1800, 200, 0);
    const formula = await liveFormula(0, file);
    const crmBefore = await crmCount(0);
    const first = await starting;
    const run = await runNow(0, formula);
    const rows = file.rows.length;
    const stored = await until('10% to 60% of the rows stored', async () => {
      const n = await num('select count(*) as n from records where formula_id = $1', [formula]);
      if (n > rows * 0.6) throw new Error(`the run stored ${n} of ${rows} rows before it could be killed`);
      return n >= rows * 0.1 && n;
    }, 60_000, 20);
    await kill9(first);
    expect(await runOf(0, formula, run.id)).toMatchObject({ status: 'running', finishedOn: null });
    // the formula sends automatically: its Ready records are stored already claimed for sending, and
    // each batch is sent as it is stored
    const killed = await states(formula);
    expect(Object.keys(killed).every((state) => ['sending', 'sent'].includes(state)), JSON.stringify(killed)).toBe(true);
    expect((killed.sending ?? 0) + (killed.sent ?? 0)).toBeGreaterThanOrEqual(stored);
    expect(killed.sent ?? 0).toBeLessThan(rows);

    await heartbeatLapses(run.id);
    const second = await workerFor('collector 2');
    const done = await finished(0, formula, run.id, 120_000);
    release(second);
    await expectNothingLost(0, formula, file, done);
    expect(await crmCount(0) - crmBefore).toBe(file.fresh.length);
  }, 180_000);

  it('while the run sends: a new worker sends the interrupted batch again with its keys, nothing twice', async () => {
    const file = await supporters(0, 'send', 1350, 150, 200);
    const formula = await liveFormula(0, file);
    const crmBefore = await crmCount(0);
    const first = await workerFor('sender 1');
    const run = await runNow(0, formula);
    const rows = file.rows.length;
    // the worst moment: the CRM holds the whole batch, the records do not say so yet. A record of the
    // batch held here keeps the worker from marking it sent, however the destination writes.
    const holder = new pg.Client({ connectionString: server.databaseUrl });
    await holder.connect();
    try {
      await until('a batch taken for sending after some sent, one of its records held', async () => {
        const s = await states(formula);
        if (s.sent === rows) throw new Error('the run sent every record before it could be killed');
        if ((s.sent ?? 0) < rows * 0.1 || !s.sending) return false;
        await holder.query('begin');
        const held = await holder.query(`select id from records where formula_id = $1 and state = 'sending' order by id desc limit 1 for update`, [formula]);
        if (held.rowCount) return true;
        await holder.query('rollback');
        return false;
      }, 120_000, 20);
      const { pid } = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!;
      const waiting = await until('the worker to wait to mark the batch sent', async () => {
        const blocked = await q<{ pid: number }>('select pid from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [pid]);
        return blocked.length && blocked.map((b) => b.pid);
      }, 60_000, 20);
      await kill9(first);
      // its statement must not finish once the hold is gone
      await q('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [waiting]);
    } finally {
      await holder.query('rollback').catch(() => {});
      await holder.end();
    }
    // a formula that sends automatically sends each batch as it is stored: the run may still be collecting
    const killed = await runOf(0, formula, run.id);
    expect(killed).toMatchObject({ finishedOn: null });
    expect(['running', 'finished-pulling']).toContain(killed.status);
    const interrupted = await states(formula);
    expect(interrupted.sending).toBeGreaterThan(0);
    expect(await num(`select count(*) as n from records r where formula_id = $1 and state = 'sending'
      and not exists (select 1 from sandbox_writes w where w.tenant_id = r.tenant_id and w.idempotency_key = r.idempotency_key)`, [formula])).toBe(0);

    await heartbeatLapses(run.id);
    const second = await workerFor('sender 2');
    const done = await finished(0, formula, run.id, 120_000);
    release(second);
    await expectNothingLost(0, formula, file, done);
    expect(await crmCount(0) - crmBefore).toBe(file.fresh.length);
  }, 180_000);
});

describe('a destination failing half-way', () => {
  it('retries, attempt n of 10 with its next try, then sends every record exactly once', async () => {
    const file = await supporters(0, 'outage', 700, 100, 350);
    const formula = await liveFormula(0, file);
    const tenantId = tenants[0]!.id;
    const crmBefore = await crmCount(0);
    // past the first batch of 500: the CRM refuses new constituents once this run has added `fails` (a refused write rolls back)
    const fails = 500;
    await q(`create function nothing_lost_outage() returns trigger language plpgsql as $$
      begin
        if (select count(*) from sandbox_constituents where tenant_id = '${tenantId}') > ${crmBefore + fails} then
          raise exception 'The CRM is not answering.';
        end if;
        return new;
      end $$`);
    await q(`create trigger nothing_lost_outage after insert on sandbox_constituents for each row
      when (new.tenant_id = '${tenantId}') execute function nothing_lost_outage()`);
    const worker = await workerFor('outage');
    let run: RunView;
    try {
      run = await runNow(0, formula);
      const retrying = await until('the run to retry', async () => {
        const s = await json<FormulaStatus>(await api(0, `${F}/${formula}/status`));
        return s.lastRun?.id === run.id && s.lastRun.retry && s;
      }, 60_000, 100);
      expect(retrying).toMatchObject({ jobStatus: 'retrying', lastRun: { status: 'retrying', finishedOn: null, retry: { of: 10 } } });
      const { attempt, nextTryAt } = retrying.lastRun!.retry!;
      expect(attempt).toBeGreaterThanOrEqual(1);
      expect(attempt).toBeLessThanOrEqual(10);
      expect(Math.abs(Date.parse(nextTryAt) - Date.now())).toBeLessThan(60_000);
      // half-way: what was written stays written once, the rest waits
      const written = await crmCount(0) - crmBefore;
      expect(written).toBeGreaterThan(0);
      expect(written).toBeLessThanOrEqual(fails);
      expect(await num(`select count(*) as n from sandbox_writes w join records r on r.tenant_id = w.tenant_id and r.idempotency_key = w.idempotency_key
        where r.formula_id = $1 and w.outcome = 'created'`, [formula])).toBe(written);
      const pending = await states(formula);
      expect(Object.keys(pending).every((s) => ['sent', 'sending', 'ready'].includes(s)), JSON.stringify(pending)).toBe(true);
      expect(Object.values(pending).reduce((a, b) => a + b, 0)).toBe(file.rows.length);
      expect(pending.sent ?? 0).toBeLessThan(file.rows.length);
    } finally {
      await q('drop trigger if exists nothing_lost_outage on sandbox_constituents');
      await q('drop function if exists nothing_lost_outage()');
    }
    const done = await finished(0, formula, run.id, 120_000);
    release(worker);
    expect(done.retry).toBeNull();
    await expectNothingLost(0, formula, file, done);
    expect(await crmCount(0) - crmBefore).toBe(file.fresh.length);
  }, 180_000);
});

describe('a file that takes longer to read than a slice', () => {
  it('is read to its end, every row once', async () => {
    const file = await supporters(0, 'long', 3000, 0, 0);
    // held in Ready: only collecting is timed
    const formula = await liveFormula(0, file, false);
    const worker = await workerFor('short slices', SHORT_SLICES);
    const run = await runNow(0, formula);
    const done = await finished(0, formula, run.id, 60_000);
    release(worker);
    expect(done.status).toBe('finished');
    expect(await states(formula)).toEqual({ ready: file.rows.length });
    expect(done.counts).toMatchObject({ collected: file.rows.length, unchanged: 0 });
  }, 120_000);
});

describe('slices', () => {
  const jobsOf = (runId: string) => num(`select count(*) as n from pgboss.job where name = $1 and data->>'runId' = $2`, [formulaRun.name, runId]);

  it('a run goes on past its slice in the same job when no other run waits for a worker', async () => {
    const file = await supporters(0, 'alone', 3000, 0, 0);
    const formula = await liveFormula(0, file, false);
    const worker = await workerFor('alone', SHORT_SLICES);
    const run = await runNow(0, formula);
    const done = await finished(0, formula, run.id, 60_000);
    release(worker);
    expect(done.counts).toMatchObject({ collected: file.rows.length, unchanged: 0 });
    expect(await jobsOf(run.id)).toBe(1);
  }, 120_000);

  it('runs hand their rest to a continuation at each slice while another run waits, and each is read to its end once', async () => {
    // three runs, two at a time in one worker: the third waits, so the first two hand over
    const made = [];
    for (const n of [0, 1, 2]) {
      const file = await supporters(0, `waiting-${n}`, 3000, 0, 0);
      made.push({ file, formula: await liveFormula(0, file, false) });
    }
    const worker = await workerFor('waiting', SHORT_SLICES);
    const runs = [];
    for (const m of made) runs.push(await runNow(0, m.formula));
    const done = [];
    for (const [i, m] of made.entries()) done.push(await finished(0, m.formula, runs[i]!.id, 120_000));
    release(worker);
    for (const [i, m] of made.entries()) {
      expect(done[i]!.counts).toMatchObject({ collected: m.file.rows.length, unchanged: 0 });
      expect(await states(m.formula)).toEqual({ ready: m.file.rows.length });
    }
    const jobs = await Promise.all(runs.map((r) => jobsOf(r.id)));
    expect(jobs.reduce((a, b) => a + b, 0)).toBeGreaterThan(3);
  }, 180_000);
});

describe('two workers on one PostgreSQL', () => {
  it('share the runs of several formulas of two tenants, one job per formula at a time, nothing twice', async () => {
    // short slices: a run is worked by several jobs in turn (each sends at least a batch of 500), which either worker may take
    // the workers start while the files and formulas are made: they have nothing to work until the runs
    const starting = Promise.all([workerFor('worker A', SHORT_SLICES), workerFor('worker B', SHORT_SLICES)]);
    starting.catch(() => {});
    const formulas: { tenant: number; id: string; file: Supporters; runId: string }[] = [];
    const crmBefore = [await crmCount(0), await crmCount(1)];
    // six runs for two workers of two jobs each: while one worker holds two, runs wait for the other,
    // so both work at once whichever of them polls first (with four, one quick worker could take them in turn)
    for (const [tenant, n] of [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]] as const) {
      const file = await supporters(tenant, `shared-${tenant}-${n}`, 630, 70, 500 + n * 70);
      formulas.push({ tenant, id: await liveFormula(tenant, file), file, runId: '' });
    }
    const [a, b] = await starting;
    for (const f of formulas) f.runId = (await runNow(f.tenant, f.id)).id;
    // each run's job queued once more, as when a worker dies after queueing its continuation: it waits its turn
    for (const f of formulas) {
      expect(await server.jobs.enqueue(formulaRun, { tenantId: tenants[f.tenant]!.id, formulaId: f.id, runId: f.runId, correlationId: `again:${f.runId}` })).toEqual(expect.any(String));
    }

    const runs = [];
    for (const f of formulas) runs.push(await finished(f.tenant, f.id, f.runId, 150_000));
    // the second copies end too
    await until('every job to end', async () => (await num(`select count(*) as n from pgboss.job where name = $1 and state in ('created', 'retry', 'active')`, [formulaRun.name])) === 0, 30_000);
    release(a!);
    release(b!);
    for (const [i, f] of formulas.entries()) await expectNothingLost(f.tenant, f.id, f.file, runs[i]!);
    for (const tenant of [0, 1]) {
      const fresh = formulas.filter((f) => f.tenant === tenant).reduce((sum, f) => sum + f.file.fresh.length, 0);
      expect(await crmCount(tenant) - crmBefore[tenant]!).toBe(fresh);
    }

    // each run finished once, by one of the two
    expect([...a!.finishedRuns(), ...b!.finishedRuns()].sort()).toEqual(formulas.map((f) => f.runId).sort());

    // a formula's jobs one after another, never two at once, though several per run (continuations and the second copy)
    const jobs = await q<{ formula: string; started: Date; completed: Date; state: string }>(`
      select data->>'formulaId' as formula, started_on as started, completed_on as completed, state from pgboss.job
      where name = $1 and data->>'formulaId' = any($2::text[]) order by started_on`, [formulaRun.name, formulas.map((f) => f.id)]);
    expect(jobs.every((j) => j.state === 'completed'), JSON.stringify(jobs)).toBe(true);
    for (const f of formulas) {
      const mine = jobs.filter((j) => j.formula === f.id);
      expect(mine.length).toBeGreaterThan(2);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.started.getTime()).toBeGreaterThanOrEqual(mine[i - 1]!.completed.getTime());
    }

    // one process works at most `concurrency` runs at once: more jobs at once than that means both
    // workers were busy together (read from the jobs' own times, so a run too quick to catch in the act still counts)
    const perProcess = formulaRun.worker!.concurrency!;
    const edges = jobs.flatMap((j) => [[j.started.getTime(), 1], [j.completed.getTime(), -1]] as const).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let working = 0;
    let most = 0;
    for (const [, change] of edges) most = Math.max(most, (working += change));
    const timeline = jobs.map((j) => `${j.formula.slice(0, 4)} ${j.started.toISOString().slice(17, 23)}-${j.completed.toISOString().slice(17, 23)}`).join(', ');
    expect(most, `jobs worked at once; runs finished by A ${a!.finishedRuns().length}, by B ${b!.finishedRuns().length}; ${timeline}`).toBeGreaterThan(perProcess);
  }, 240_000);
});
