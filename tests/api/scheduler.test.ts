/**
 * Scheduled collection: activating a formula sets its next run by its schedule; the scheduler job
 * starts the runs that are due (once, however many workers ask), skips paused and inactive
 * formulas, and a run's end sets the following time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus } from '../../src/domain/api/formulas.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { claimDueFormulas } from '../../server/db/repositories/schedules.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { formulaScheduler } from '../../server/jobs/formulaScheduler.ts';
import { createLogger } from '../../server/log.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
let server: TestServer;
let admin: Session & { tenantId: string };
let crm: string;
let flat: string;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);
const status = async (id: string) => json<FormulaStatus>(await send(`${F}/${id}/status`));

/** Runs the scheduler's handler as its job would, with the server's queue. */
async function tick(): Promise<{ due: number; started: number }> {
  const ctx = {
    db: server.database.db, secrets: undefined as never, config: server.config, services: server.services, log: createLogger('silent'),
    job: { id: 'test', name: formulaScheduler.name, retry: 0, retryLimit: 0, lastTry: true, signal: new AbortController().signal },
    progress: async () => {}, enqueue: server.jobs.enqueue,
  };
  return (await formulaScheduler.handler({ correlationId: 'test:scheduler' }, ctx as never)) as { due: number; started: number };
}

async function liveFormula(schedule: unknown): Promise<string> {
  const id = (await json<{ id: string }>(await send(F, { method: 'POST', body: { name: `Scheduled ${Math.random().toString(36).slice(2, 8)}` } }))).id;
  expect((await send(`${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: flat, object: 'sched-*.csv' }, destination: { dataSourceId: crm, object: 'constituents' } } })).status).toBe(200);
  for (const [part, body] of Object.entries({ ...VALID_PARTS, schedule })) expect((await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body })).status).toBe(200);
  expect((await send(`${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
  return id;
}

beforeAll(async () => {
  server = await startTestServer({ work: true });
  const s = await sessionFor(server.url, 'administrator@demo.tributary.test');
  const me = await (await call(server.url, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  admin = { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
  const list = await json<{ dataSources: { id: string; system: string }[] }>(await send('/integrations/v1/data-sources'));
  crm = list.dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  flat = (await json<{ id: string }>(await send('/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Scheduled drop', settings: { folder: 'sched' } } }))).id;
  const dir = dropFolderPath(server.config.dataDir, admin.tenantId, 'sched');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'sched-1.csv'), 'First name,Last name,Email\nSam,Schedule,sam.schedule@example.org\n');
}, 120_000);
afterAll(async () => { await server?.close(); });

describe('scheduled collection', () => {
  it('sets the next run by the schedule when a formula goes live', async () => {
    const before = Date.now();
    const daily = await liveFormula({ mode: 'scheduled', frequency: 'daily', time: '06:30', timeZone: 'Europe/London' });
    const s = await status(daily);
    const next = new Date(s.nextRunAt!);
    expect(next.getTime()).toBeGreaterThan(before);
    expect(next.getTime() - before).toBeLessThanOrEqual(25 * 3600_000);
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', hour: '2-digit', minute: '2-digit' }).format(next)).toBe('06:30');
    const continuous = await status(await liveFormula({ mode: 'continuous' }));
    expect(new Date(continuous.nextRunAt!).getTime() - before).toBeLessThanOrEqual(5 * 60_000 + 5_000);
  }, 60_000);

  it('takes a live formula\'s new schedule at once: its next run moves to the new time', async () => {
    const id = await liveFormula({ mode: 'scheduled', frequency: 'daily', time: '06:30', timeZone: 'Europe/London' });
    const hhmm = (iso: string | null) => new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', weekday: 'long' }).format(new Date(iso!));
    const before = Date.now();
    expect((await send(`${F}/${id}/parts/schedule`, { method: 'PUT', body: { mode: 'scheduled', frequency: 'weekly', day: 'saturday', time: '14:00', timeZone: 'America/New_York' } })).status).toBe(200);
    const s = await status(id);
    expect(hhmm(s.nextRunAt)).toBe('Saturday 14:00');
    expect(new Date(s.nextRunAt!).getTime()).toBeGreaterThan(before);
    expect(new Date(s.nextRunAt!).getTime() - before).toBeLessThanOrEqual(7 * 24 * 3600_000 + 3600_000);
    // a paused formula holds no time: resuming reads the schedule
    expect((await send(`${F}/${id}/pause`, { method: 'POST' })).status).toBe(200);
    expect((await send(`${F}/${id}/parts/schedule`, { method: 'PUT', body: { mode: 'scheduled', frequency: 'daily', time: '09:15', timeZone: 'America/New_York' } })).status).toBe(200);
    expect((await status(id)).nextRunAt).toBeNull();
    expect((await send(`${F}/${id}/resume`, { method: 'POST' })).status).toBe(200);
    expect(hhmm((await status(id)).nextRunAt).slice(-5)).toBe('09:15');
  }, 60_000);

  it('starts due runs once, skips paused ones, and the run sets the following time', async () => {
    const due = await liveFormula({ mode: 'continuous' });
    const paused = await liveFormula({ mode: 'continuous' });
    expect((await send(`${F}/${paused}/pause`, { method: 'POST' })).status).toBe(200);
    const past = new Date(Date.now() - 60_000);
    await tenant().formulas.setRunState(due, { nextRunAt: past });
    await tenant().formulas.setRunState(paused, { nextRunAt: past });

    const first = await tick();
    expect(first.started).toBeGreaterThanOrEqual(1);
    // claimed: a second scheduler (another worker) finds nothing left to start for it
    expect((await claimDueFormulas(server.database.db, new Date())).map((f) => f.formulaId)).not.toContain(due);
    const [run] = await tenant().runs.latest(due, 1);
    expect(run?.kind).toBe('scheduled');
    expect(await tenant().runs.latest(paused, 1)).toEqual([]);

    const until = Date.now() + 60_000;
    let s = await status(due);
    while (!s.lastRun?.finishedOn && Date.now() < until) { await new Promise((r) => setTimeout(r, 250)); s = await status(due); }
    expect(s.lastRun).toMatchObject({ kind: 'scheduled', status: 'finished' });
    expect(s.lastRun!.counts.collected).toBe(1);
    expect(s).toMatchObject({ status: 'active', jobStatus: 'scheduled' });
    expect(new Date(s.nextRunAt!).getTime()).toBeGreaterThan(Date.now());
  }, 90_000);
});
