/**
 * Engine throughput, printed, never asserted: records per second through the whole pipeline
 * (collect from flat files, transform, match, route, store, send with autosend) for incoming
 * records matched against a Sandbox CRM of many constituents, worked by real worker processes
 * (server/worker.ts, started as `npm run worker` starts it), once with one worker and once with two,
 * with each worker's peak memory.
 *
 * Setup: a scratch database on DATABASE_URL's server (else an embedded cluster under
 * .data/bench-engine), migrations and the demo seed, synthetic people loaded into the first demo
 * tenant's Sandbox CRM (tests/support/syntheticPeople.ts: 70% of incoming records are messy
 * copies of them), the incoming records as CSV files in a flat-file drop folder, and 4 live
 * formulas reading a quarter each (runs of one formula never overlap, so several let two workers
 * share the work), built through the services with the recommended matching, default routing
 * (discard below RECOMMENDED_DISCARD_BELOW, new and confident single matches to Ready) and autosend on.
 * Between the passes the records, runs and watermarks are reset and the constituents the first
 * pass wrote are restored as loaded; the load itself is kept.
 *
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/engineThroughput.ts`; smaller with
 * BENCH_ENGINE_CRM=100000 BENCH_ENGINE_RECORDS=20000 (BENCH_ENGINE_WORKERS=1,2 picks the passes;
 * BENCH_ENGINE_PROFILE=<folder> has each worker write a CPU profile there; BENCH_ENGINE_NODE_FLAGS adds
 * Node flags to the workers, such as --max-old-space-size=256).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import * as v from 'valibot';
import { FORMULA_PARTS, type FormulaPartName } from '../../src/domain/formula/parts.ts';
import { RECOMMENDED_DISCARD_BELOW } from '../../src/domain/formula/matchScore.ts';
import { recommendedMatching } from '../../src/domain/formula/recommendedScenarios.ts';
import { loadConfig } from '../../server/config.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { sandbox } from '../../server/connectors/sandboxCrm/fields.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import type { Database } from '../../server/db/database.ts';
import { forTenant, type TenantScope } from '../../server/db/tenancy.ts';
import { startJobs, type Jobs } from '../../server/jobs/boss.ts';
import { formulaRun } from '../../server/jobs/formulaRun.ts';
import { createLogger } from '../../server/log.ts';
import { formulaRunsService, type RunActor } from '../../server/services/formulaRuns.ts';
import { formulasService } from '../../server/services/formulas.ts';
import { benchDemo, n, scratchDatabase, type ScratchDatabase } from '../support/benchDatabase.ts';
import { loadSandboxConstituents, personAsConstituent } from '../support/sandboxBulk.ts';
import { COLUMN_FIELDS, generateIncoming, generatePeople, SOURCE_COLUMNS, type Person } from '../support/syntheticPeople.ts';
import { workerArgs } from '../support/workerProcess.ts';

export const RATE_TARGET = 20_000;
export const MEMORY_TARGET_MB = 512;

const ROOT = path.resolve(import.meta.dirname, '../..');
const SEED = 2026;
const FORMULAS = 4;
/** rows per file: a formula reads a few daily exports */
const FILE_ROWS = 5000;
const FOLDER = 'bench-engine';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Pass {
  workers: number;
  seconds: number;
  collected: number;
  sent: number;
  created: number;
  updated: number;
  held: number;
  failed: string[];
  peakMb: number[];
  /** average bytes a stored record takes: its row, and the JSON columns' share (as stored, compressed) */
  stored: Record<'row' | 'raw' | 'transformed' | 'matching' | 'candidates', number>;
  workerCpu: number;
  postgresCpu: number;
  load: string;
  /** the same minute's reference: rows per second COPY writes of the same incoming files (psql \\copy), and the load after the pass */
  copyRate: number | null;
  loadAfter: string;
}

// ------------------------------------------------------------------ processes

const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** user + system CPU seconds of a process; 0 when it is gone */
function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}

/** CPU seconds of this database's PostgreSQL backends by pid (readable when the server runs on this machine) */
function postgresCpu(database: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres:') && cmd.includes(` ${database} `)) out.set(Number(entry), cpuSeconds(Number(entry)));
    } catch { /* gone */ }
  }
  return out;
}

/**
 * Where PostgreSQL spends its time, when the server has pg_stat_statements loaded (a server started
 * with shared_preload_libraries=pg_stat_statements and the extension created in the admin database):
 * cleared before a pass, its top statements printed after, in milliseconds per collected record.
 */
async function statementsReset(admin: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    await c.query('select pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  } finally {
    await c.end();
  }
}

async function statementsReport(scratch: ScratchDatabase, collected: number): Promise<void> {
  const c = new pg.Client({ connectionString: scratch.admin });
  await c.connect();
  try {
    const { rows } = await c.query<{ total: number; calls: number; rows: number; hit: number; dirtied: number; wal: number; query: string }>(`
      select s.total_exec_time as total, s.calls::int, s.rows::int, s.shared_blks_hit::int as hit, s.shared_blks_dirtied::int as dirtied,
        s.wal_bytes::float8 as wal, s.query
      from pg_stat_statements s join pg_database d on d.oid = s.dbid
      where d.datname = $1 order by s.total_exec_time desc limit 15`, [scratch.name]);
    const all = rows.reduce((t, r) => t + r.total, 0);
    console.log(`engine: top statements by time (${(all / collected).toFixed(3)} ms per record in these):`);
    for (const r of rows) {
      console.log(`  ${(r.total / collected).toFixed(3)} ms/rec  ${r.calls} calls  ${r.rows} rows  ${(r.hit / collected).toFixed(1)} hit/rec  `
        + `${(r.dirtied / collected).toFixed(2)} dirtied/rec  ${(r.wal / collected).toFixed(0)} WAL B/rec  ${r.query.replace(/\s+/g, ' ').slice(0, 220)}`);
    }
  } finally {
    await c.end();
  }
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

interface Worker { child: ChildProcess; out(): string; exited: Promise<unknown> }

async function startWorker(env: Record<string, string>): Promise<Worker> {
  const { DATABASE_URL: _d, DATA_DIR: _dd, SECRET_KEY: _k, RUN_SLICE_MS: _s, ...rest } = process.env;
  // BENCH_ENGINE_PROFILE=<folder>: each worker writes a CPU profile there when it stops
  const profile = process.env.BENCH_ENGINE_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_ENGINE_PROFILE)}`] : [];
  const flags = (process.env.BENCH_ENGINE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...profile, ...flags, ...workerArgs()], {
    cwd: ROOT, env: { ...rest, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => { out = (out + String(d)).slice(-20_000); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const worker = { child, out: () => out, exited: new Promise((resolve) => child.on('close', resolve)) };
  const until = Date.now() + 60_000;
  while (!out.includes('"msg":"worker ready"')) {
    if (child.exitCode !== null || Date.now() > until) throw new Error(`a worker did not start: ${out}`);
    await sleep(100);
  }
  return worker;
}

async function stopWorker(w: Worker): Promise<void> {
  if (w.child.exitCode !== null) return;
  w.child.kill('SIGTERM');
  await Promise.race([w.exited, sleep(15_000)]);
  if (w.child.exitCode === null && w.child.signalCode === null) { w.child.kill('SIGKILL'); await w.exited; }
}

// ------------------------------------------------------------------ setup

const csvCell = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s);

/** The incoming records as files of FILE_ROWS rows, formula k reading `incoming-k-*.csv`; oldest first. */
function writeFiles(dir: string, rows: Record<string, string>[]): { patterns: string[]; files: number } {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const per = Math.ceil(rows.length / FORMULAS);
  const patterns: string[] = [];
  const t0 = Date.now() - 24 * 3600_000;
  let file = 0;
  for (let k = 0; k < FORMULAS; k++) {
    const mine = rows.slice(k * per, (k + 1) * per);
    patterns.push(`incoming-${k + 1}-*.csv`);
    for (let i = 0; i < mine.length; i += FILE_ROWS) {
      const lines = [SOURCE_COLUMNS.join(','), ...mine.slice(i, i + FILE_ROWS).map((r) => SOURCE_COLUMNS.map((c) => csvCell(r[c] ?? '')).join(','))];
      const name = path.join(dir, `incoming-${k + 1}-${String(i / FILE_ROWS + 1).padStart(3, '0')}.csv`);
      fs.writeFileSync(name, `${lines.join('\r\n')}\r\n`);
      const t = new Date(t0 + file++ * 1000);
      fs.utimesSync(name, t, t);
    }
  }
  return { patterns, files: file };
}

interface Setup {
  database: Database;
  scratch: ScratchDatabase;
  jobs: Jobs;
  tenant: TenantScope;
  people: Person[];
  formulaIds: string[];
  env: Record<string, string>;
  who: RunActor;
  runs: ReturnType<typeof formulaRunsService>;
}

async function setUp(scratch: Setup['scratch'], crmSize: number, records: number): Promise<Setup> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-bench-engine-'));
  const secretKey = randomBytes(32).toString('base64');
  const config = loadConfig({ DATA_DIR: dataDir, DATABASE_URL: scratch.url, SECRET_KEY: secretKey, LOG_LEVEL: 'silent' });
  const log = createLogger('silent');
  const secrets = createSecretBox(Buffer.from(secretKey, 'base64'));
  const { database, tenantId, userId, userName } = await benchDemo(scratch);
  const user = { id: userId, full_name: userName };
  const tenant = forTenant(database.db, tenantId);

  let started = performance.now();
  const people = generatePeople(crmSize, SEED);
  const load = await loadSandboxConstituents(database.db, tenant.tenantId, crmSize, (i) => personAsConstituent(people[i]!));
  console.log(`engine: ${n(load.imported)} synthetic constituents generated and loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  started = performance.now();
  const incoming = generateIncoming(people, records, SEED + 1);
  const { patterns, files } = writeFiles(dropFolderPath(dataDir, tenant.tenantId, FOLDER), incoming.map((r) => r.values));
  console.log(`engine: ${n(records)} incoming records (${n(incoming.filter((r) => r.truth).length)} messy copies of constituents) written as ${files} CSV files in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const jobs = await startJobs({ databaseUrl: scratch.url, db: database.db, log, config, secrets, work: false });
  const runs = formulaRunsService({
    secrets, config, runs: { queue: (p, startAfter) => jobs.enqueue(formulaRun, p, startAfter ? { startAfter } : {}), status: async () => null, retryNow: async () => false, cancel: async () => {} },
  });
  const formulas = formulasService({ box: secrets, config, runs });
  const correlationId = `bench-engine-${Date.now()}`;
  const actor = { userId: user.id, name: user.full_name, correlationId, log };
  const who: RunActor = { actor: { userId: user.id, name: user.full_name }, correlationId, log };

  const flat = crypto.randomUUID();
  await tenant.dataSources.insert({ id: flat, system: 'flat-file', displayName: 'Bench drop folder', settings: { folder: FOLDER }, createdBy: user.id, modifiedBy: user.id });
  const crm = (await tenant.dataSources.list()).find((d) => d.system === 'sandbox-crm')!.id;
  const parts: { [P in FormulaPartName]?: unknown } = {
    mapping: { fields: SOURCE_COLUMNS.map((c) => ({ destination: COLUMN_FIELDS[c], kind: 'source', source: c })) },
    matching: recommendedMatching({
      system: 'sandbox-crm', object: 'constituents', destinationFields: sandbox.fields.constituents, sourceFields: SOURCE_COLUMNS.map((name) => ({ name })),
    }),
    routing: { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: RECOMMENDED_DISCARD_BELOW, capitalizationIsDifference: false },
    // weekly, so the scheduler starts nothing of its own while the bench runs
    schedule: { mode: 'scheduled', frequency: 'weekly', day: 'monday', time: '06:30', timeZone: 'Europe/London' },
    autosend: { enabled: true },
  };
  const formulaIds: string[] = [];
  for (const [k, object] of patterns.entries()) {
    const { id } = await formulas.create(tenant, actor, { name: `Bench intake ${k + 1}`, usesFileUpload: false });
    await formulas.update(tenant, actor, id, {
      source: { dataSourceId: flat, object, settings: {} }, destination: { dataSourceId: crm, object: 'constituents', settings: {} }, confirmWipe: false,
    });
    for (const [part, body] of Object.entries(parts) as [FormulaPartName, unknown][]) {
      await formulas.putPart(tenant, actor, id, part, v.parse(FORMULA_PARTS[part].schema, body));
    }
    await formulas.activate(tenant, actor, id);
    formulaIds.push(id);
  }
  const scenarios = (parts.matching as ReturnType<typeof recommendedMatching>).scenarios.map((s) => `${s.name}${s.isPrimary ? '' : ' (secondary)'}`).join(', ');
  console.log(`engine: ${FORMULAS} live formulas of ${n(Math.ceil(records / FORMULAS))} records each; matching by ${scenarios}; discard below ${RECOMMENDED_DISCARD_BELOW}; autosend on`);
  return {
    database, scratch, jobs, tenant, people, formulaIds, who, runs,
    env: { DATABASE_URL: scratch.url, DATA_DIR: dataDir, SECRET_KEY: secretKey },
  };
}

/**
 * Back to the state before a pass: no records, runs or writes, watermarks cleared, and the
 * constituents the pass wrote as loaded (created ones deleted, updated ones loaded again).
 */
async function reset(s: Setup): Promise<void> {
  const q = (text: string, values: unknown[] = []) => s.database.pool.query(text, values);
  const tenantId = s.tenant.tenantId;
  const { rows: touched } = await q(`
    select c.id, c.lookup_id, w.outcome from sandbox_writes w join sandbox_constituents c on c.id = w.record_id
    where w.tenant_id = $1 and w.object = 'constituents'`, [tenantId]);
  const ids = [...new Set(touched.map((r) => r.id as string))];
  await q('delete from sandbox_constituents where tenant_id = $1 and id = any($2::uuid[])', [tenantId, ids]);
  const loaded = [...new Set(touched.filter((r) => r.outcome === 'updated' && /^C\d+$/.test(r.lookup_id)).map((r) => r.lookup_id as string))];
  for (let i = 0; i < loaded.length; i += 5000) {
    const rows = loaded.slice(i, i + 5000).map((id) => personAsConstituent(s.people[Number(id.slice(1)) - 1]!));
    await sandboxCrmStore(s.tenant).importConstituents(rows);
  }
  await q('delete from sandbox_writes where tenant_id = $1', [tenantId]);
  await q('delete from records where tenant_id = $1', [tenantId]);
  await q('delete from formula_runs where tenant_id = $1', [tenantId]);
  await q('update formulas set watermark = null where tenant_id = $1', [tenantId]);
  await q('vacuum analyze records, formula_runs, sandbox_writes, sandbox_constituents');
}

/**
 * The reference beside each figure: how many rows per second PostgreSQL's COPY stores of the same
 * incoming files on this machine in the same minute (into an unlogged table of text columns, by
 * psql's \copy), so a rate can be compared across machines. Null where psql is missing.
 */
function copyReference(s: Setup): number | null {
  const folder = dropFolderPath(s.env.DATA_DIR!, s.tenant.tenantId, FOLDER);
  const files = fs.readdirSync(folder).filter((f) => f.endsWith('.csv')).map((f) => path.join(folder, f));
  const psql = (command: string) => execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', s.scratch.url, '-c', command], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    psql(`drop table if exists bench_copy_reference; create unlogged table bench_copy_reference (${SOURCE_COLUMNS.map((_, i) => `c${i} text`).join(', ')})`);
    const rows = files.reduce((sum, file) => sum + fs.readFileSync(file, 'utf8').split('\r\n').filter(Boolean).length - 1, 0);
    const started = performance.now();
    for (const file of files) psql(`\\copy bench_copy_reference from '${file}' with (format csv, header true)`);
    const seconds = (performance.now() - started) / 1000;
    psql('drop table bench_copy_reference');
    return rows / seconds;
  } catch {
    return null;
  }
}

async function pass(s: Setup, workers: number, records: number): Promise<Pass> {
  const procs: Worker[] = [];
  try {
    for (let i = 0; i < workers; i++) procs.push(await startWorker(s.env));
    return await measure(s, procs, records);
  } finally {
    await Promise.all(procs.map(stopWorker));
  }
}

async function measure(s: Setup, procs: Worker[], records: number): Promise<Pass> {
  const workers = procs.length;
  const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
  const copyRate = copyReference(s);
  const cpu0 = procs.map((p) => cpuSeconds(p.child.pid!));
  // backends come and go with the pools: sampled while the pass runs, each one's latest figure kept
  const pg0 = postgresCpu(s.scratch.name);
  const statements = await statementsReset(s.scratch.admin);
  const pgNow = new Map(pg0);
  const samplePostgres = () => { for (const [pid, cpu] of postgresCpu(s.scratch.name)) pgNow.set(pid, cpu); };
  const started = performance.now();
  const runIds: string[] = [];
  for (const id of s.formulaIds) runIds.push((await s.runs.startRun(s.tenant, s.who, id, 'on-demand')).id);
  let lastReport = started;
  for (;;) {
    const { rows: [left] } = await s.database.pool.query<{ n: number }>('select count(*)::int as n from formula_runs where id = any($1::uuid[]) and finished_on is null', [runIds]);
    if (!left!.n) break;
    if (procs.some((p) => p.child.exitCode !== null)) throw new Error(`a worker stopped: ${procs.map((p) => p.out().slice(-2000)).join('\n')}`);
    if (performance.now() - lastReport > 30_000) {
      lastReport = performance.now();
      const { rows: [c] } = await s.database.pool.query<{ n: number }>("select count(*)::int as n from records where tenant_id = $1 and state = 'sent'", [s.tenant.tenantId]);
      console.log(`engine: ${workers} worker${workers > 1 ? 's' : ''}, ${((lastReport - started) / 1000).toFixed(0)} s: ${n(c!.n)} records sent so far`);
    }
    samplePostgres();
    await sleep(200);
  }
  const seconds = (performance.now() - started) / 1000;
  const peakMb = procs.map((p) => peakRssMb(p.child.pid!));
  const workerCpu = procs.reduce((sum, p, i) => sum + cpuSeconds(p.child.pid!) - cpu0[i]!, 0);
  samplePostgres();
  let postgres = 0;
  for (const [pid, now] of pgNow) postgres += now - (pg0.get(pid) ?? 0);

  const { rows } = await s.database.pool.query<{ status: string; counts: Record<string, number>; error: string | null }>(
    'select status, counts, error from formula_runs where id = any($1::uuid[])', [runIds]);
  const { rows: [stored] } = await s.database.pool.query<Pass['stored']>(`
    select avg(pg_column_size(r.*))::int as row, avg(pg_column_size(raw))::int as raw, avg(pg_column_size(transformed))::int as transformed,
      avg(pg_column_size(matching))::int as matching, avg(pg_column_size(candidates))::int as candidates
    from records r where tenant_id = $1`, [s.tenant.tenantId]);
  const sum = (k: string) => rows.reduce((t, r) => t + (r.counts[k] ?? 0), 0);
  if (statements) await statementsReport(s.scratch, sum('collected'));
  const failed = rows.filter((r) => r.status !== 'finished').map((r) => `${r.status}: ${r.error}`);
  const created = sum('created');
  const updated = sum('updated');
  const collected = sum('collected');
  if (collected !== records) failed.push(`collected ${collected} of ${records}`);
  return {
    workers, seconds, collected, sent: created + updated, created, updated, held: sum('state:needs-attention') + sum('state:omitted'),
    failed, peakMb, stored: stored!, workerCpu, postgresCpu: postgres, load, copyRate, loadAfter: os.loadavg().map((x) => x.toFixed(1)).join(' '),
  };
}

function report(passes: Pass[], crmSize: number, records: number): void {
  console.log(`engine: ${n(records)} records through the whole pipeline against ${n(crmSize)} constituents, on ${os.cpus().length} cores; targets >= ${n(RATE_TARGET)} records/s, < ${MEMORY_TARGET_MB} MB per worker`);
  const header = ['workers', 'wall s', 'collected/s', 'sent/s', 'created', 'updated', 'held', 'peak MB per worker', 'worker CPU s', 'PostgreSQL CPU s', 'load before/after', 'COPY rows/s', 'collected/COPY'];
  const rows = passes.map((p) => {
    const rate = p.collected / p.seconds;
    const peak = Math.max(...p.peakMb);
    return [
      String(p.workers), p.seconds.toFixed(1),
      `${n(rate)} ${rate >= RATE_TARGET ? 'PASS' : 'MISS'}`, n(p.sent / p.seconds), n(p.created), n(p.updated), n(p.held),
      `${p.peakMb.map((m) => m.toFixed(0)).join(' + ')} ${peak < MEMORY_TARGET_MB ? 'PASS' : 'MISS'}`,
      p.workerCpu.toFixed(1), p.postgresCpu.toFixed(1), `${p.load} / ${p.loadAfter}`,
      p.copyRate === null ? '-' : n(p.copyRate), p.copyRate === null ? '-' : (rate / p.copyRate).toFixed(3),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) console.log(`  ${row.map((c, i) => c.padEnd(widths[i]!)).join('  ')}`);
  for (const p of passes) {
    const [w, db] = [(1000 * p.workerCpu) / p.collected, (1000 * p.postgresCpu) / p.collected];
    console.log(`engine: ${p.workers} worker${p.workers > 1 ? 's' : ''}: CPU per record ${w.toFixed(2)} ms in the workers and ${db.toFixed(2)} ms in PostgreSQL; `
      + `at that cost ${os.cpus().length} idle cores top out near ${n((os.cpus().length * 1000) / (w + db))} records/s`);
  }
  const { stored } = passes.at(-1)!;
  console.log(`engine: a stored record takes ${n(stored.row)} bytes on average: raw ${n(stored.raw)}, transformed ${n(stored.transformed)}, matching ${n(stored.matching)}, candidates ${n(stored.candidates)}`);
  for (const p of passes) if (p.failed.length) console.log(`engine: ${p.workers} worker(s): NOT ALL RUNS FINISHED: ${p.failed.join('; ')}`);
}

export async function engineThroughputBench(): Promise<void> {
  const crmSize = Number(process.env.BENCH_ENGINE_CRM ?? 1_000_000);
  const records = Number(process.env.BENCH_ENGINE_RECORDS ?? 100_000);
  const counts = (process.env.BENCH_ENGINE_WORKERS ?? '1,2').split(',').map(Number).filter((x) => x > 0);
  const scratch = await scratchDatabase('engine');
  let s: Setup | undefined;
  try {
    s = await setUp(scratch, crmSize, records);
    const passes: Pass[] = [];
    for (const [i, workers] of counts.entries()) {
      if (i > 0) await reset(s);
      passes.push(await pass(s, workers, records));
    }
    report(passes, crmSize, records);
  } finally {
    await s?.jobs.stop();
    await s?.database.close();
    if (s) fs.rmSync(s.env.DATA_DIR!, { recursive: true, force: true });
    await scratch.drop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await engineThroughputBench();
