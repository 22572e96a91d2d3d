/**
 * Nothing written twice to a vendor: a real worker process (`server/worker.ts`) sends a file of
 * new supporters into Raiser's Edge NXT (the local SKY API fake, slowed so the send takes a while)
 * and is killed with SIGKILL half-way through; a new worker takes the run up and finishes it. Every
 * supporter is then exactly one constituent in the fake: those created before the kill are answered
 * from the write ledger (or found by the search before create), never created again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/domain/api/formulas.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { formulaRun } from '../../server/jobs/formulaRun.ts';
import { call } from '../support/api.ts';
import { tenantSession } from '../support/engineRun.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { SKY_APP, startFakeSkyApi, type FakeSkyApi } from '../support/vendors/skyApi.ts';
import { workerArgs, workerEnv } from '../support/workerProcess.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const F = '/web-api/v1/formulas';
const FOLDER = 'nothing-lost-vendor';
// a heartbeat of 30 s: a worker starved of CPU by the rest of the suite keeps its job (its SKY API calls
// are paced, so the run's searches alone take seconds); the dead worker's heartbeat is lapsed by hand below
const TIMINGS = { JOBS_SUPERVISE_SECONDS: '1', JOBS_HEARTBEAT_SECONDS: '30', JOBS_RETRY_DELAY_SECONDS: '1' };
const ROWS = 40;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let vendor: VendorFakeWithServer<FakeSkyApi>;
let server: TestServer;
let sky: FakeSkyApi;
let headers: Record<string, string>;
let tenantId: string;
const children: ChildProcess[] = [];

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function startWorker(): Promise<{ child: ChildProcess; exited: Promise<unknown>; out: () => string }> {
  const child = spawn(process.execPath, workerArgs(), {
    cwd: ROOT,
    env: workerEnv(server, { ...TIMINGS, LOG_LEVEL: 'info', ...vendor.env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d) => { out += String(d); });
  child.stderr!.on('data', (d) => { out += String(d); });
  const exited = new Promise((resolve) => child.on('close', resolve));
  await until('the worker to be ready', () => {
    if (child.exitCode !== null) throw new Error(`the worker exited: ${out}`);
    return out.includes('"msg":"worker ready"');
  }, 60_000);
  return { child, exited, out: () => out };
}

const api = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers });
const json = async <T>(res: Response) => res.json() as Promise<T>;

beforeAll(async () => {
  vendor = await withVendorFake('renxt', startFakeSkyApi, { server: { env: TIMINGS } });
  ({ fake: sky, server } = vendor);
  ({ tenantId, headers } = await tenantSession(server.url, 'administrator@demo.tributary.test'));
}, 120_000);
afterEach(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await vendor?.close();
});

describe('a worker killed with SIGKILL while it sends to Raiser\'s Edge NXT', () => {
  it('is replaced, and every supporter is one constituent: none created twice, none lost', async () => {
    const flat = await json<{ id: string }>(await api('/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Vendor drop', settings: { folder: FOLDER } } }));
    const re = await api('/integrations/v1/data-sources', {
      method: 'POST',
      body: { system: 'renxt', displayName: 'RE NXT nothing lost', settings: { clientId: SKY_APP.clientId, clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: sky.grant() } },
    });
    expect(re.status, await re.clone().text()).toBe(201);
    const renxt = (await json<{ id: string }>(re)).id;
    const emails = Array.from({ length: ROWS }, (_, i) => `vendor-${i}@nothing-lost.example`);
    const dir = dropFolderPath(server.config.dataDir, tenantId, FOLDER);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'vendor.csv'), [['First name', 'Last name', 'Email'], ...emails.map((e, i) => [`First${i}`, `Last${i}`, e])].map((r) => r.join(',')).join('\n'));

    const { id: formula } = await json<{ id: string }>(await api(F, { method: 'POST', body: { name: 'Nothing lost into RE NXT' } }));
    const set = await api(`${F}/${formula}`, { method: 'PATCH', body: { source: { dataSourceId: flat.id, object: 'vendor.csv' }, destination: { dataSourceId: renxt, object: 'constituents' } } });
    expect(set.status, await set.clone().text()).toBe(200);
    const parts = { ...VALID_PARTS, routing: { ...VALID_PARTS.routing, unmatched: 'ready', singleMatch: 'ready' }, autosend: { enabled: true } };
    for (const [part, body] of Object.entries(parts)) expect((await api(`${F}/${formula}/parts/${part}`, { method: 'PUT', body })).status).toBe(200);
    expect((await api(`${F}/${formula}/activate`, { method: 'POST' })).status).toBe(200);

    const created = () => [...sky.constituents.values()].filter((c) => c.last.startsWith('Last')).length;
    const first = await startWorker();
    // each call of the fake takes a while: the send of 40 creates is under way for seconds
    sky.apiDelayMs = 60;
    const run = await json<RunView>(await api(`${F}/${formula}/run`, { method: 'POST', body: {} }));
    const before = await until('a quarter of the supporters created', () => {
      const n = created();
      if (n >= ROWS) throw new Error('the send finished before the worker could be killed');
      return n >= ROWS / 4 && n;
    }, 90_000).catch((err: Error) => {
      // what the worker was doing, for whoever reads the failure
      throw new Error(`${err.message}; ${created()} created, ${sky.seen.length} SKY API calls; the worker said:\n${first.out().slice(-4000)}`);
    });
    first.child.kill('SIGKILL');
    await first.exited;
    expect(created()).toBeLessThan(ROWS);
    expect(before).toBeGreaterThan(0);
    // the kill has landed: the rest need not be slow
    sky.apiDelayMs = 0;

    // pg-boss fails a dead worker's job once its last heartbeat is older than its heartbeat_seconds (30 here):
    // rather than wait that out, the job's last heartbeat is moved back by that much, and
    // pg-boss's supervisor (every second here) still has to find and fail it for the run to go on
    const lapsed = await server.database.pool.query(`update pgboss.job set heartbeat_on = heartbeat_on - heartbeat_seconds * interval '1 second'
      where name = $1 and state = 'active' and data->>'runId' = $2 and heartbeat_on is not null and heartbeat_seconds is not null
      returning id`, [formulaRun.name, run.id]);
    expect(lapsed.rowCount, 'the dead worker\'s job, active with a heartbeat').toBe(1);
    await startWorker();
    const done = await until('the run to finish', async () => {
      const { runs } = await json<{ runs: RunView[] }>(await api(`${F}/${formula}/runs`));
      const r = runs.find((x) => x.id === run.id);
      return r?.finishedOn ? r : undefined;
    }, 120_000);
    expect(done.status, JSON.stringify(done)).toBe('finished');

    // every supporter is exactly one constituent
    const byEmail = new Map<string, number>();
    for (const e of sky.emails) byEmail.set(e.address, (byEmail.get(e.address) ?? 0) + 1);
    expect(emails.filter((e) => byEmail.get(e) !== 1)).toEqual([]);
    expect(created()).toBe(ROWS);
    const creates = sky.seen.filter((c) => c.method === 'POST' && c.path === '/constituent/v1/constituents').length;
    expect(creates).toBe(ROWS);
    const { rows } = await server.database.pool.query<{ state: string; n: number }>('select state, count(*)::int as n from records where formula_id = $1 group by 1', [formula]);
    expect(Object.fromEntries(rows.map((r) => [r.state, r.n]))).toEqual({ sent: ROWS });
    // 14 s alone, but two worker processes start (each compiling the server's TypeScript) and 40
    // constituents of several SKY API calls each go out at SKY API's 10 calls a second: on a busy
    // machine past the project's 60 s, within the waits above
  }, 240_000);
});
