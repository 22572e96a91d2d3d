/**
 * A formula's lifecycle through /web-api/v1/formulas: archiving (it stops, with its waiting runs
 * ended, and keeps its records and history; neither the scheduler nor an upload runs it again),
 * unarchiving, deleting once archived (its records, runs and parts in one transaction, the count the
 * confirmation shows, an activity event that stays), copying as a new draft, each role, another
 * tenant, and the 404 and 409 answers.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus, FormulaView } from '../../src/domain/api/formulas.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { formulaScheduler } from '../../server/jobs/formulaScheduler.ts';
import { createLogger } from '../../server/log.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { csvText } from '../support/flatFiles.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
let server: TestServer;
let db: pg.Client;
const sessions: Record<string, Session & { tenantId: string }> = {};
let otherTenant: string;
let crm: string;
let flat: string;
let uploads: string;

async function as(email: string) {
  const s = await sessionFor(server.url, email);
  const me = await (await call(server.url, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: sessions[who]!.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, sessions.admin!.tenantId);
const status = async (id: string) => json<FormulaStatus>(await send('admin', `${F}/${id}/status`));
const count = async (table: string, id: string) => Number((await db.query(`select count(*) from ${table} where formula_id = $1`, [id])).rows[0].count);
const POST = { method: 'POST' };

/** Runs the scheduler's handler as its job would, with the server's queue. */
async function tick(): Promise<{ due: number; started: number }> {
  const ctx = {
    db: server.database.db, secrets: undefined as never, config: server.config, services: server.services, log: createLogger('silent'),
    job: { id: 'test', name: formulaScheduler.name, retry: 0, retryLimit: 0, lastTry: true, signal: new AbortController().signal },
    progress: async () => {}, enqueue: server.jobs.enqueue,
  };
  return (await formulaScheduler.handler({ correlationId: 'test:scheduler' }, ctx as never)) as { due: number; started: number };
}

/** A live formula reading the drop folder's CSV into the Sandbox CRM, every part saved. */
async function liveFormula(name = `Lifecycle ${Math.random().toString(36).slice(2, 8)}`): Promise<string> {
  const id = (await json<{ id: string }>(await send('producer', F, { method: 'POST', body: { name } }))).id;
  expect((await send('producer', `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: flat, object: 'life-*.csv' }, destination: { dataSourceId: crm, object: 'constituents' } } })).status).toBe(200);
  for (const [part, body] of Object.entries(VALID_PARTS)) expect((await send('producer', `${F}/${id}/parts/${part}`, { method: 'PUT', body })).status).toBe(200);
  const live = await send('producer', `${F}/${id}/activate`, POST);
  expect(live.status, await live.clone().text()).toBe(200);
  return id;
}

/** Runs it now and waits until the run has ended. */
async function runToEnd(id: string): Promise<FormulaStatus> {
  const res = await send('producer', `${F}/${id}/run`, { method: 'POST', body: {} });
  expect(res.status, await res.clone().text()).toBe(202);
  const until = Date.now() + 60_000;
  let s = await status(id);
  while (!s.lastRun?.finishedOn && Date.now() < until) { await new Promise((r) => setTimeout(r, 200)); s = await status(id); }
  expect(s.lastRun).toMatchObject({ status: 'finished', error: null });
  return s;
}

beforeAll(async () => {
  server = await startTestServer({ work: true });
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', producer: 'formula.producer@demo.tributary.test', viewer: 'view.only@demo.tributary.test',
    processor: 'data.processor@demo.tributary.test',
  })) sessions[who] = await as(email);
  const me = await (await send('admin', `/account-management/v1/User/organization/${sessions.admin!.orgId}/user`)).json() as { tenants: { tenantId: string }[] };
  otherTenant = me.tenants.find((t) => t.tenantId !== sessions.admin!.tenantId)!.tenantId;
  const list = await json<{ dataSources: { id: string; system: string }[] }>(await send('admin', '/integrations/v1/data-sources'));
  crm = list.dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  flat = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Lifecycle drop', settings: { folder: 'life' } } }))).id;
  uploads = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', { method: 'POST', body: { system: 'file-upload', displayName: 'Lifecycle uploads', settings: {} } }))).id;
  const dir = dropFolderPath(server.config.dataDir, sessions.admin!.tenantId, 'life');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'life-1.csv'), 'First name,Last name,Email\nAda,Archive,ada.archive@example.org\nBo,Archive,bo.archive@example.org\nCy,Archive,cy.archive@example.org\n');
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
}, 120_000);
afterAll(async () => { await db?.end(); await server?.close(); });

describe('archiving', () => {
  it('stops a live formula and keeps its records, runs and history; it can come back inactive', async () => {
    const id = await liveFormula();
    await runToEnd(id);
    expect(await count('records', id)).toBe(3);
    const archived = await send('producer', `${F}/${id}/archive`, POST);
    expect(archived.status, await archived.clone().text()).toBe(200);
    expect(await json<FormulaView>(archived)).toMatchObject({ id, isDraft: false, status: 'inactive', archivedOn: expect.any(String) });
    expect(await status(id)).toMatchObject({ enabled: false, paused: false, nextRunAt: null, jobStatus: null });
    expect(await count('records', id)).toBe(3);
    expect(await count('formula_runs', id)).toBe(1);
    const listed = (await json<{ formulas: FormulaView[] }>(await send('viewer', F))).formulas.find((f) => f.id === id);
    expect(listed?.archivedOn).toEqual(expect.any(String));

    const back = await send('producer', `${F}/${id}/unarchive`, POST);
    expect(back.status).toBe(200);
    expect(await json<FormulaView>(back)).toMatchObject({ archivedOn: null, status: 'inactive' });
    expect((await send('producer', `${F}/${id}/activate`, POST)).status).toBe(200);
    expect(await status(id)).toMatchObject({ enabled: true, status: 'active' });
    const { rows } = await db.query('select type from activity_events where formula_id = $1 order by at', [id]);
    expect(rows.map((r) => r.type)).toEqual(expect.arrayContaining(['formula.archived', 'formula.unarchived']));
  }, 90_000);

  it('is never run again: not on demand, not by the scheduler, not by an upload, not by activating it', async () => {
    const id = await liveFormula();
    expect((await send('producer', `${F}/${id}/archive`, POST)).status).toBe(200);
    const run = await send('producer', `${F}/${id}/run`, { method: 'POST', body: {} });
    expect(run.status).toBe(409);
    expect(run.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(run)).toMatchObject({ title: 'formula-archived', status: 409 });
    expect(await json(await send('producer', `${F}/${id}/activate`, POST))).toMatchObject({ title: 'formula-archived' });
    // even switched on with a time due (a stale write of another process): the scheduler starts nothing for it
    await tenant().formulas.setRunState(id, { enabled: true, nextRunAt: new Date(Date.now() - 60_000) });
    await tick();
    expect(await count('formula_runs', id)).toBe(0);

    // a file-upload formula, archived, takes no file
    const up = (await json<{ id: string }>(await send('producer', F, { method: 'POST', body: { name: 'Archived uploads' } }))).id;
    const form = new FormData();
    form.append('file', new Blob([csvText(5)], { type: 'text/csv' }), 'sample.csv');
    const sample = await json<{ id: string }>(await fetch(`${server.url}/flat-file-service/v1/uploads`, { method: 'POST', headers: sessions.producer!.headers, body: form }));
    expect((await send('producer', `${F}/${up}`, { method: 'PATCH', body: { source: { dataSourceId: uploads, object: sample.id, settings: {} }, destination: { dataSourceId: crm, object: 'constituents', settings: {} }, sampleUploadId: sample.id } })).status).toBe(200);
    for (const part of ['mapping', 'matching', 'routing'] as const) await send('producer', `${F}/${up}/parts/${part}`, { method: 'PUT', body: VALID_PARTS[part] });
    expect((await send('producer', `${F}/${up}/activate`, POST)).status).toBe(200);
    expect((await send('producer', `${F}/${up}/archive`, POST)).status).toBe(200);
    const file = new FormData();
    file.append('file', new Blob([csvText(7)], { type: 'text/csv' }), 'gala.csv');
    const refused = await fetch(`${server.url}/flat-file-service/v1/uploads?formulaId=${up}`, { method: 'POST', headers: sessions.producer!.headers, body: file });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ title: 'formula-archived' });
    expect(await count('formula_runs', up)).toBe(0);
  }, 90_000);

  it('ends the runs that wait, and a job that still starts does nothing', async () => {
    const id = await liveFormula();
    // paused: the run asked for waits where it is, unfinished
    expect((await send('producer', `${F}/${id}/pause`, POST)).status).toBe(200);
    expect((await send('producer', `${F}/${id}/run`, { method: 'POST', body: {} })).status).toBe(202);
    const [waiting] = await tenant().runs.latest(id, 1);
    expect(waiting?.finishedOn).toBeNull();
    expect((await send('producer', `${F}/${id}/archive`, POST)).status).toBe(200);
    const [ended] = await tenant().runs.latest(id, 1);
    expect(ended).toMatchObject({ id: waiting!.id, status: 'finished', error: 'Cancelled: the formula was archived.', finishedOn: expect.any(Date) });
    // a job that read the run just before the archive cannot bring it back as paused or running
    expect(await tenant().runs.updateOpen(waiting!.id, { status: 'paused' })).toBeUndefined();
    expect((await tenant().runs.get(waiting!.id))?.status).toBe('finished');
    // resuming does not bring the run back, and the run's job, worked once more, collects nothing
    await send('producer', `${F}/${id}/resume`, POST);
    const worked = await server.services.formulaRuns.work(tenant(), { tenantId: sessions.admin!.tenantId, formulaId: id, runId: waiting!.id, correlationId: 'test' },
      { jobId: 'test', retry: 0, retryLimit: 0, lastTry: true }, { actor: 'system', correlationId: 'test', log: createLogger('silent') });
    expect(worked).toEqual({ continued: false });
    expect(await count('records', id)).toBe(0);
    expect(await status(id)).toMatchObject({ enabled: false, nextRunAt: null });
  }, 90_000);

  it('answers 409 for a draft and for an archived formula, and unarchive 409 for one that is not', async () => {
    const draft = (await json<{ id: string }>(await send('producer', F, { method: 'POST', body: { name: 'Just a draft' } }))).id;
    expect(await json(await send('producer', `${F}/${draft}/archive`, POST))).toMatchObject({ title: 'formula-draft-not-archived', status: 409 });
    expect(await json(await send('producer', `${F}/${draft}/unarchive`, POST))).toMatchObject({ title: 'formula-not-archived', status: 409 });
    const id = await liveFormula();
    expect((await send('producer', `${F}/${id}/archive`, POST)).status).toBe(200);
    expect(await json(await send('producer', `${F}/${id}/archive`, POST))).toMatchObject({ title: 'formula-archived', status: 409 });
    // read-only while archived: its wizard's saves and every edit are refused, in words, and nothing changes
    const readOnly = { title: 'formula-archived', status: 409, detail: 'This formula is archived. Unarchive it to change it.' };
    const renamed = await send('producer', `${F}/${id}`, { method: 'PATCH', body: { name: 'Renamed while archived' } });
    expect(renamed.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(renamed)).toMatchObject(readOnly);
    expect(await json(await send('producer', `${F}/${id}/parts/mapping`, { method: 'PUT', body: VALID_PARTS.mapping }))).toMatchObject(readOnly);
    expect(await json(await send('producer', `${F}/${id}/parts/routing`, { method: 'DELETE' }))).toMatchObject(readOnly);
    const still = await json<FormulaView>(await send('producer', `${F}/${id}`));
    expect(still).toMatchObject({ name: expect.not.stringMatching(/Renamed/), parts: expect.arrayContaining(['routing']), needsReprocess: false });
    // unarchived, it can change again
    expect((await send('producer', `${F}/${id}/unarchive`, POST)).status).toBe(200);
    expect((await send('producer', `${F}/${id}`, { method: 'PATCH', body: { name: 'Renamed once back' } })).status).toBe(200);
  }, 60_000);
});

describe('deleting', () => {
  it('refuses a live formula, then deletes it once archived with its records, runs and parts, saying how many', async () => {
    const id = await liveFormula('Gala donors');
    await runToEnd(id);
    const live = await send('producer', `${F}/${id}`, { method: 'DELETE' });
    expect(live.status).toBe(409);
    expect(await json(live)).toMatchObject({ title: 'formula-not-archived' });
    expect((await send('producer', `${F}/${id}/archive`, POST)).status).toBe(200);
    // what the confirmation says
    expect(await json(await send('producer', `${F}/${id}/deletion`))).toEqual({ records: 3, runs: 1 });
    expect((await send('producer', `${F}/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await send('producer', `${F}/${id}`)).status).toBe(404);
    for (const table of ['records', 'formula_runs', 'formula_parts']) expect(await count(table, id), table).toBe(0);
    // the history keeps the formula's events, and says what went
    const { rows } = await db.query('select type, description, details from activity_events where formula_id = $1 order by at', [id]);
    expect(rows.map((r) => r.type)).toEqual(expect.arrayContaining(['formula.activated', 'formula.archived', 'formula.deleted']));
    expect(rows.at(-1)).toMatchObject({ type: 'formula.deleted', description: 'Deleted the formula Gala donors with 3 records', details: { records: 3, runs: 1, wasDraft: false } });
    expect((await send('producer', `${F}/${id}`, { method: 'DELETE' })).status).toBe(404);
  }, 90_000);

  it('still deletes a draft at once', async () => {
    const draft = (await json<{ id: string }>(await send('producer', F, { method: 'POST', body: {} }))).id;
    expect(await json(await send('producer', `${F}/${draft}/deletion`))).toEqual({ records: 0, runs: 0 });
    expect((await send('producer', `${F}/${draft}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('copying', () => {
  it('makes a draft "Copy of <name>" with the same sources and every part, and none of the records, runs, watermark or schedule', async () => {
    const id = await liveFormula('Spring appeal');
    await runToEnd(id);
    expect((await tenant().formulas.get(id))!.watermark).not.toBeNull();
    const res = await send('producer', `${F}/${id}/copy`, POST);
    expect(res.status, await res.clone().text()).toBe(201);
    const copy = await json<FormulaView>(res);
    const original = await json<FormulaView>(await send('producer', `${F}/${id}`));
    expect(copy).toMatchObject({
      name: 'Copy of Spring appeal', isDraft: true, status: 'inactive', archivedOn: null, usesFileUpload: false,
      sourceDataSource: original.sourceDataSource, firstDestinationDataSource: original.firstDestinationDataSource, parts: original.parts,
    });
    expect(copy.id).not.toBe(id);
    for (const part of original.parts) {
      const body = async (f: string) => (await json<{ body: unknown }>(await send('producer', `${F}/${f}/parts/${part}`))).body;
      expect(await body(copy.id), part).toEqual(await body(id));
    }
    expect(await count('records', copy.id)).toBe(0);
    expect(await count('formula_runs', copy.id)).toBe(0);
    expect(await tenant().formulas.get(copy.id)).toMatchObject({ watermark: null, enabled: false, nextRunAt: null, isDraft: true });
    // the original is untouched
    expect(await count('records', id)).toBe(3);
    const { rows } = await db.query('select type, details from activity_events where formula_id = $1', [copy.id]);
    expect(rows).toEqual([{ type: 'formula.created', details: { copiedFrom: id } }]);
  }, 90_000);
});

describe('who may do what', () => {
  it('lets roles that may delete formulas archive, unarchive and delete, and those that may create copy; nobody else; another tenant never', async () => {
    const id = await liveFormula();
    for (const who of ['viewer', 'processor']) {
      for (const [method, p] of [['POST', 'archive'], ['POST', 'unarchive'], ['POST', 'copy'], ['GET', 'deletion']] as const) {
        const res = await send(who, `${F}/${id}/${p}`, { method });
        expect(res.status, `${who} ${p}`).toBe(403);
        expect(res.headers.get('content-type')).toContain('application/problem+json');
      }
      expect((await send(who, `${F}/${id}`, { method: 'DELETE' })).status).toBe(403);
    }
    const elsewhere = { ...sessions.admin!.headers, tenantId: otherTenant };
    for (const [method, p] of [['POST', '/archive'], ['POST', '/unarchive'], ['POST', '/copy'], ['GET', '/deletion'], ['DELETE', '']] as const) {
      expect((await call(server.url, `${F}/${id}${p}`, { method, headers: elsewhere })).status, p).toBe(404);
      expect((await send('admin', `${F}/not-a-formula${p}`, { method })).status, p).toBe(404);
      expect((await send('admin', `${F}/00000000-0000-4000-8000-000000000000${p}`, { method })).status, p).toBe(404);
    }
    expect((await send('admin', `${F}/${id}/archive`, POST)).status).toBe(200);
    expect((await send('admin', `${F}/${id}/copy`, POST)).status).toBe(201);
    expect((await send('admin', `${F}/${id}`, { method: 'DELETE' })).status).toBe(204);
  }, 60_000);
});
