/**
 * The integration engine through the API, with real workers on real PostgreSQL: a flat file of
 * supporters runs into the Sandbox CRM. Each record lands in its bucket and is sent once; the
 * watermark keeps a second run from collecting anything again; a dry run leaves no trace;
 * reprocessing re-routes the held records without adding or deleting any; pause, resume, clear,
 * a formula-level failure and dismissing it; activity events; another tenant sees nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus, RunView } from '../../src/domain/api/formulas.ts';
import type { RecordDetail, RecordPage } from '../../src/domain/api/records.ts';
import { refused, type Connector } from '../../server/connectors/connector.ts';
import { dropFolderPath, flatFileConnector } from '../../server/connectors/fileSources/flatFile.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { formulaRun } from '../../server/jobs/formulaRun.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { VALID_GIFT, VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
let server: TestServer;
let base: string;
const sessions: Record<string, Session & { tenantId: string }> = {};
let crm: string;
let flat: string;
let known: { id: string; email: string; lastName: string; firstName: string }[] = [];

async function as(email: string) {
  const s = await sessionFor(base, email);
  const me = await (await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string; tenants: { tenantId: string }[] };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, p: string, init: { method?: string; body?: unknown } = {}) => call(base, p, { ...init, headers: sessions[who]!.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, sessions.admin!.tenantId);

function dropFile(name: string, rows: string[][]) {
  const dir = dropFolderPath(server.config.dataDir, sessions.admin!.tenantId, 'engine');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, rows.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')).join('\n'));
  // a later file is newer than anything read before, whatever the file system's clock resolution
  const t = new Date(Date.now() + fs.readdirSync(dir).length * 1000);
  fs.utimesSync(file, t, t);
}

async function waitForRun(formulaId: string, runId: string, timeoutMs = 60_000): Promise<RunView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { runs } = await json<{ runs: RunView[] }>(await send('admin', `${F}/${formulaId}/runs`));
    const run = runs.find((r) => r.id === runId);
    if (run?.finishedOn) return run;
    if (Date.now() > until) throw new Error(`run ${runId} did not finish: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** runs the formula now and waits for the run to finish */
const runNow = async (formula: string) => waitForRun(formula, (await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }))).id);
const status = async (id: string) => json<FormulaStatus>(await send('admin', `${F}/${id}/status`));

async function liveFormula(parts: Partial<typeof VALID_PARTS> = {}, object = 'supporters-*.csv') {
  const created = await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: `Engine ${Math.random().toString(36).slice(2, 8)}` } }));
  const id = created.id;
  const res = await send('admin', `${F}/${id}`, {
    method: 'PATCH',
    body: { source: { dataSourceId: flat, object }, destination: { dataSourceId: crm, object: 'constituents' } },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const all = { ...VALID_PARTS, schedule: { mode: 'continuous' as const }, ...parts };
  for (const [part, body] of Object.entries(all)) {
    const put = await send('admin', `${F}/${id}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  const live = await send('admin', `${F}/${id}/activate`, { method: 'POST' });
  expect(live.status, await live.clone().text()).toBe(200);
  return id;
}

beforeAll(async () => {
  server = await startTestServer({ work: true, env: { RUN_SLICE_MS: '100000' } });
  base = server.url;
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', viewer: 'view.only@demo.tributary.test', processor: 'data.processor@demo.tributary.test',
  })) sessions[who] = await as(email);
  const list = await json<{ dataSources: { id: string; system: string }[] }>(await send('admin', '/integrations/v1/data-sources'));
  crm = list.dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  const made = await send('admin', '/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Engine drop', settings: { folder: 'engine' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  flat = (await json<{ id: string }>(made)).id;
  for await (const batch of sandboxCrmStore(tenant()).pull('constituents', null, 5)) {
    known = batch.records.map((r) => ({ id: r.id, email: String(r.fields.email), lastName: String(r.fields.lastName), firstName: String(r.fields.firstName ?? '') }));
    break;
  }
  expect(known.length).toBe(5);
}, 120_000);
afterAll(async () => { await server?.close(); });

const header = ['First name', 'Last name', 'Email'];
/** new records and single matches to Ready */
const READY_ROUTING: typeof VALID_PARTS.routing = { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false };

describe('a run from a flat file into the Sandbox CRM', () => {
  let formula: string;

  it('collects every row, buckets each record and sends the ready ones exactly once', async () => {
    formula = await liveFormula({
      routing: READY_ROUTING,
      autosend: { enabled: true },
    });
    const before = await sandboxCrmStore(tenant()).counts();
    dropFile('supporters-1.csv', [
      header,
      // two supporters the CRM knows, by e-mail (one with a different case)
      [known[0]!.firstName, known[0]!.lastName, known[0]!.email],
      [known[1]!.firstName, known[1]!.lastName, known[1]!.email.toUpperCase()],
      // two new ones
      ['Ada', 'Lovelace', 'ada.lovelace.engine@example.org'],
      ['Grace', 'hopper', 'grace.hopper.engine@example.org'],
      // a bad e-mail: its validation bucket
      ['Bad', 'Address', 'not-an-email'],
    ]);
    const run = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
    // the job wakes its worker as it is sent: the run may have started by the time the answer is made
    expect(run).toMatchObject({ kind: 'on-demand', status: expect.stringMatching(/^(waiting|running)$/) });
    const done = await waitForRun(formula, run.id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 5, created: 2, 'bucket:new': 2, 'bucket:validation-exception/Bad e-mail': 1 });
    expect((done.counts.updated ?? 0) + (done.counts['bucket:one-to-one-match'] ?? 0)).toBeGreaterThanOrEqual(2);

    const after = await sandboxCrmStore(tenant()).counts();
    expect(after.constituents - before.constituents).toBe(2);
    const s = await status(formula);
    expect(s).toMatchObject({ status: 'active', jobStatus: 'scheduled', enabled: true, lastError: null });
    expect(s.nextRunAt).not.toBeNull();
    expect(s.buckets['validation-exception/Bad e-mail']).toBe(1);
    const states = await tenant().records.countByState(formula);
    expect(states).toMatchObject({ sent: 4, failed: 1 });
    // the new supporter was written with the title case transform
    const [grace] = await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'grace.hopper.engine@example.org' }] });
    expect(grace?.fields.lastName).toBe('Hopper');
  }, 90_000);

  it('collects nothing again: the watermark moved past the file', async () => {
    const before = await sandboxCrmStore(tenant()).counts();
    const run = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
    const done = await waitForRun(formula, run.id);
    expect(done.status).toBe('finished');
    expect(done.counts.collected ?? 0).toBe(0);
    expect((await sandboxCrmStore(tenant()).counts()).constituents).toBe(before.constituents);
  }, 90_000);

  it('collects a new file, and a changed copy of a record already sent is written again as an update', async () => {
    dropFile('supporters-2.csv', [header, ['Ada', 'Lovelace-King', 'ada.lovelace.engine@example.org']]);
    const run = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
    const done = await waitForRun(formula, run.id);
    expect(done.counts).toMatchObject({ collected: 1, updated: 1 });
    const [ada] = await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'ada.lovelace.engine@example.org' }] });
    expect(ada?.fields.lastName).toBe('Lovelace-King');
  }, 90_000);

  it('records what happened as activity events', async () => {
    const rows = await tenant().events.page({ formulaId: formula, limit: 50 });
    const types = rows.map((r) => r.type);
    expect(types).toEqual(expect.arrayContaining(['formula.activated', 'run.requested', 'run.started', 'run.finished']));
    const all = await tenant().events.page({ limit: 200 });
    expect(all.find((r) => r.type === 'datasource.created' && r.details.dataSourceId === flat)).toMatchObject({ actorName: expect.any(String), description: 'Added the data source Engine drop' });
    const finished = rows.find((r) => r.type === 'run.finished')!;
    expect(finished.actorName).toBe('System');
    expect(finished.details).toMatchObject({ counts: expect.any(Object) });
  });
});

describe('a formula that sends automatically', () => {
  const autosending = (object: string) => liveFormula({
    routing: READY_ROUTING,
    autosend: { enabled: true },
  }, object);
  /** `body` (PL/pgSQL) run by a statement trigger on records while `work` runs */
  async function withTrigger(name: string, when: 'before' | 'after', body: string, work: () => Promise<void>): Promise<void> {
    const pool = server.database.pool;
    await pool.query(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`);
    await pool.query(`create trigger ${name} ${when} insert on records for each statement execute function ${name}()`);
    try {
      await work();
    } finally {
      await pool.query(`drop trigger if exists ${name} on records`);
      await pool.query(`drop function if exists ${name}()`);
    }
  }
  /** three batches of the engine's 1000 */
  const supportersFile = (name: string, word: string) =>
    dropFile(name, [header, ...Array.from({ length: 2500 }, (_, i) => [`${word}${i}`, `Auto${i}`, `${word.toLowerCase()}${i}.auto@example.org`])]);

  it('sends each batch as it is stored: the first records are in the CRM while the run still collects', async () => {
    const formula = await autosending('stream-*.csv');
    const pool = server.database.pool;
    await pool.query('create table engine_stream_probe (sent int not null)');
    try {
      // before each batch of records is stored: how many of the formula's records were sent by then
      await withTrigger('engine_stream_probe', 'before', `insert into engine_stream_probe select count(*) from records where formula_id = '${formula}' and state = 'sent';`, async () => {
        supportersFile('stream-1.csv', 'River');
        const done = await runNow(formula);
        expect(done.counts).toMatchObject({ collected: 2500, created: 2500 });
      });
      const { rows } = await pool.query<{ sent: number }>('select sent from engine_stream_probe');
      // the statements of this run (other formulas' runs may have stored too): the last batch found the first two sent
      expect(rows.map((r) => r.sent)).toContain(2000);
      expect(await tenant().records.countByState(formula)).toEqual({ sent: 2500 });
    } finally {
      await pool.query('drop table if exists engine_stream_probe');
    }
  }, 90_000);

  it('turned off while the run collects, holds in Ready what the run collects from then on', async () => {
    const formula = await autosending('turned-*.csv');
    // a person turns autosend off just as the run stores its first batch
    await withTrigger('engine_autosend_off', 'after', `update formula_parts set body = '{"enabled": false}' where formula_id = '${formula}' and part = 'autosend';`, async () => {
      supportersFile('turned-1.csv', 'Brook');
      const done = await runNow(formula);
      expect(done.status, JSON.stringify(done)).toBe('finished');
      expect(done.counts).toMatchObject({ collected: 2500, created: 1000 });
    });
    expect(await tenant().records.countByState(formula)).toEqual({ sent: 1000, ready: 1500 });
  }, 90_000);

  it('sends a stored batch before the source is told it was read: a source failing then leaves nothing claimed and unsent', async () => {
    const formula = await autosending('moved-*.csv');
    dropFile('moved-1.csv', [header, ['Ria', 'Moved', 'ria.moved@example.org'], ['Sam', 'Moved', 'sam.moved@example.org']]);
    // the source cannot move what was read (as an SFTP folder it may not write to): a failure retrying cannot mend
    const source = flatFileConnector as Connector;
    source.acknowledge = async () => { throw refused('Processed files cannot be moved to /processed.'); };
    try {
      expect((await runNow(formula)).status).toBe('errored');
      expect(await tenant().records.countByState(formula)).toEqual({ sent: 2 });
    } finally {
      delete source.acknowledge;
    }
  }, 90_000);
});

describe('the same new person twice in one file', () => {
  const crmByEmail = (email: string) => sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: email }] });
  const records = async (formula: string) => (await server.database.pool.query<{ id: string; source_key: string; bucket: string; state: string; matching: Record<string, unknown>; outcome: string | null }>(
    'select id, source_key, bucket, state, matching, outcome from records where formula_id = $1 order by source_key', [formula])).rows;
  const act = async (formula: string, action: string, ids: string[]) => {
    const res = await send('admin', `/web-api/v1/records/${formula}/actions/${action}`, { method: 'POST', body: { selection: { kind: 'ids', ids } } });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const eventually = async (done: () => Promise<boolean>) => {
    for (const until = Date.now() + 30_000; !(await done()) && Date.now() < until;) await new Promise((r) => setTimeout(r, 250));
  };
  /** a live formula holding Ready for review (or sending automatically) and its run over one registration twice, with another person between */
  async function twice(prefix: string, who: string, autosend = false) {
    const formula = await liveFormula({ routing: READY_ROUTING, ...(autosend ? { autosend: { enabled: true } } : {}) }, `${prefix}-*.csv`);
    dropFile(`${prefix}-1.csv`, [
      header,
      [who, 'Twice', `${who.toLowerCase()}.twice@example.org`],
      ['Other', 'Person', `other.${who.toLowerCase()}@example.org`],
      // the same registration again, the e-mail typed in capitals
      [who, 'Twice', `${who.toUpperCase()}.TWICE@example.org`],
    ]);
    const done = await runNow(formula);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    const [first, , copy] = await records(formula);
    return { formula, done, first: first!, copy: copy! };
  }

  it('sending automatically, creates one constituent: the copy is matched again against it and sent as an update', async () => {
    const { formula, done } = await twice('twice', 'Wren', true);
    expect(done.counts).toMatchObject({ collected: 3, created: 2, updated: 1 });
    expect(await crmByEmail('wren.twice@example.org')).toHaveLength(1);
    const rows = await records(formula);
    expect(rows.map((r) => [r.bucket, r.state, r.outcome])).toEqual([['new', 'sent', 'created'], ['new', 'sent', 'created'], ['one-to-one-match', 'sent', 'updated']]);
  }, 90_000);

  it('held for review, keeps the copy in Needs Attention naming the first; sent together, the copy waits for the first and is matched again against what it created', async () => {
    const { formula, first, copy } = await twice('review-twice', 'Lark');
    expect(first).toMatchObject({ bucket: 'new', state: 'ready' });
    expect(copy).toMatchObject({ bucket: 'new', state: 'needs-attention' });
    expect(copy.matching.routeReason).toBe(`Same person as ${first.source_key} in the same batch: matched again once that record is sent`);

    // a person sends both at once: sent together, both would be created
    await act(formula, 'send', [first.id, copy.id]);
    await eventually(async () => (await records(formula))[2]!.state === 'sent');
    const [sentFirst, , sentCopy] = await records(formula);
    expect(sentFirst).toMatchObject({ state: 'sent', outcome: 'created' });
    // found now, and sent as the person asked: an update of what the first created
    expect(sentCopy).toMatchObject({ bucket: 'one-to-one-match', state: 'sent', outcome: 'updated' });
    expect(sentCopy!.matching).not.toHaveProperty('copyOf');
    expect(await crmByEmail('lark.twice@example.org')).toHaveLength(1);
  }, 90_000);

  it('a copy added to Ready and sent after its first is matched again before it goes: an update, never a second record', async () => {
    const { formula, first, copy } = await twice('later-twice', 'Ibis');
    await act(formula, 'ready', [copy.id]);
    await act(formula, 'send', [first.id]);
    await eventually(async () => (await records(formula))[0]!.state === 'sent');
    await act(formula, 'send', [copy.id]);
    await eventually(async () => (await records(formula))[2]!.state === 'sent');
    expect((await records(formula))[2]).toMatchObject({ bucket: 'one-to-one-match', state: 'sent', outcome: 'updated' });
    expect(await crmByEmail('ibis.twice@example.org')).toHaveLength(1);
  }, 90_000);

  it('a copy a person treats as new is theirs to send: it no longer waits for the first', async () => {
    const { formula, first, copy } = await twice('own-twice', 'Tern');
    await act(formula, 'create-new', [copy.id]);
    await act(formula, 'send', [first.id, copy.id]);
    const both = async () => (await records(formula)).filter((r) => r.id === first.id || r.id === copy.id);
    await eventually(async () => (await both()).every((r) => r.state === 'sent'));
    expect((await both()).map((r) => [r.state, r.outcome])).toEqual([['sent', 'created'], ['sent', 'created']]);
    expect(await crmByEmail('tern.twice@example.org')).toHaveLength(2);
  }, 90_000);

  it('a dry run of a formula that sends automatically tells the copy will update what its first creates', async () => {
    const formula = await liveFormula({ routing: READY_ROUTING, autosend: { enabled: true } }, 'preview-twice-*.csv');
    dropFile('preview-twice-1.csv', [header, ['Kite', 'Twice', 'kite.twice@example.org'], ['Kite', 'Twice', 'KITE.TWICE@example.org']]);
    const res = await send('admin', `${F}/${formula}/dry-run`, { method: 'POST', body: { limit: 50 } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(res)).byOutcome).toMatchObject({ create: 1, update: 1, hold: 0 });
  }, 60_000);

  it('a copy whose first the destination refuses is matched again and goes its own way', async () => {
    const formula = await liveFormula({ routing: READY_ROUTING, autosend: { enabled: true } }, 'refused-twice-*.csv');
    // no last name: the Sandbox CRM refuses to create either
    dropFile('refused-twice-1.csv', [header, ['Rae', '', 'rae.nolast@example.org'], ['Rae', '', 'RAE.NOLAST@example.org']]);
    expect((await runNow(formula)).status).toBe('finished');
    const rows = await records(formula);
    expect(rows.map((r) => [r.bucket, r.state])).toEqual([['exception', 'failed'], ['exception', 'failed']]);
  }, 90_000);
});

describe('a file-upload formula', () => {
  it('runs every row of each file uploaded to it, then deletes the file and keeps its sample', async () => {
    const fileSource = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', {
      method: 'POST', body: { system: 'file-upload', displayName: `Uploads ${Math.random().toString(36).slice(2, 6)}`, settings: {} },
    }))).id;
    const created = await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: 'Gala sign-ups', usesFileUpload: true } }));
    const id = created.id;
    const upload = (name: string, rows: string[][]) => {
      const form = new FormData();
      form.append('file', new File([rows.map((r) => r.join(',')).join('\n')], name, { type: 'text/csv' }));
      return fetch(`${base}/flat-file-service/v1/uploads?formulaId=${id}`, { method: 'POST', headers: sessions.admin!.headers, body: form });
    };
    const rows = [header, ...Array.from({ length: 250 }, (_, i) => [`Guest${i}`, `Gala${i}`, `guest${i}.gala@example.org`])];
    // uploaded while the formula is a draft: kept, and run once it goes live
    const early = await upload('gala.csv', rows);
    expect(early.status, await early.clone().text()).toBe(201);
    const uploadId = (await json<{ id: string }>(early)).id;
    expect((await send('admin', `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: fileSource, object: uploadId }, destination: { dataSourceId: crm, object: 'constituents' }, sampleUploadId: uploadId } })).status).toBe(200);
    for (const [part, body] of Object.entries({ ...VALID_PARTS, schedule: undefined })) {
      if (!body) continue;
      expect((await send('admin', `${F}/${id}/parts/${part}`, { method: 'PUT', body })).status).toBe(200);
    }
    expect((await send('admin', `${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
    const until = Date.now() + 60_000;
    let s = await status(id);
    while (!(s.lastRun?.finishedOn) && Date.now() < until) { await new Promise((r) => setTimeout(r, 250)); s = await status(id); }
    expect(s.lastRun).toMatchObject({ kind: 'file', status: 'finished', params: { uploadId } });
    expect(s.lastRun!.counts.collected).toBe(250);
    expect(s.buckets.new).toBe(250);
    const kept = await tenant().uploads.get(uploadId);
    expect(kept?.fileKey).toBeNull();
    expect(kept?.sampleRows).toHaveLength(20);
  }, 90_000);

  it('a dry run reads the kept file up to the limit asked, not only its 20 sample rows', async () => {
    const fileSource = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', {
      method: 'POST', body: { system: 'file-upload', displayName: `Uploads ${Math.random().toString(36).slice(2, 6)}`, settings: {} },
    }))).id;
    const id = (await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: 'Fair sign-ups', usesFileUpload: true } }))).id;
    const form = new FormData();
    const rows = [header, ...Array.from({ length: 150 }, (_, i) => [`Visitor${i}`, `Fair${i}`, `visitor${i}.fair@example.org`])];
    form.append('file', new File([rows.map((r) => r.join(',')).join('\n')], 'fair.csv', { type: 'text/csv' }));
    const uploaded = await fetch(`${base}/flat-file-service/v1/uploads?formulaId=${id}`, { method: 'POST', headers: sessions.admin!.headers, body: form });
    expect(uploaded.status, await uploaded.clone().text()).toBe(201);
    const uploadId = (await json<{ id: string }>(uploaded)).id;
    expect((await send('admin', `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: fileSource, object: uploadId }, destination: { dataSourceId: crm, object: 'constituents' }, sampleUploadId: uploadId } })).status).toBe(200);
    for (const [part, body] of Object.entries({ ...VALID_PARTS, schedule: undefined })) {
      if (!body) continue;
      expect((await send('admin', `${F}/${id}/parts/${part}`, { method: 'PUT', body })).status).toBe(200);
    }
    const dry = async (limit?: number) => {
      const res = await send('admin', `${F}/${id}/dry-run`, { method: 'POST', body: limit === undefined ? {} : { limit } });
      expect(res.status, await res.clone().text()).toBe(200);
      return json<{ examined: number; byBucket: Record<string, number> }>(res);
    };
    expect((await dry(120)).examined).toBe(120);
    expect((await dry(500)).examined).toBe(150);
    expect((await dry()).examined).toBe(100);
    // nothing was collected: the file still waits for the formula's run
    expect((await tenant().uploads.get(uploadId))?.fileKey).toBeTruthy();
  }, 90_000);
});

describe('the same file uploaded to a formula twice', () => {
  const records = async (formula: string) => (await server.database.pool.query<{ id: string; source_key: string; bucket: string; state: string; matching: Record<string, unknown> | null; outcome: string | null }>(
    'select id, source_key, bucket, state, matching, outcome from records where formula_id = $1 order by source_key', [formula])).rows;
  const crmByEmail = (email: string) => sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: email }] });

  it('asks before taking it again, and sending the new people of both uploads creates each person once', async () => {
    const fileSource = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', {
      method: 'POST', body: { system: 'file-upload', displayName: `Uploads twice ${Math.random().toString(36).slice(2, 6)}`, settings: {} },
    }))).id;
    const id = (await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: 'Open day sign-ups', usesFileUpload: true } }))).id;
    const content = [header, ['Ivo', 'Twiceup', 'ivo.twiceup@example.org'], ['Una', 'Twiceup', 'una.twiceup@example.org'], ['Oda', 'Twiceup', 'oda.twiceup@example.org']]
      .map((r) => r.join(',')).join('\n');
    const upload = (again?: boolean) => {
      const form = new FormData();
      form.append('file', new File([content], 'open-day.csv', { type: 'text/csv' }));
      return fetch(`${base}/flat-file-service/v1/uploads?formulaId=${id}${again === undefined ? '' : `&again=${again}`}`, { method: 'POST', headers: sessions.admin!.headers, body: form });
    };
    const finished = async (uploadId: string) => {
      for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
        const { runs } = await json<{ runs: RunView[] }>(await send('admin', `${F}/${id}/runs`));
        const run = runs.find((r) => r.params.uploadId === uploadId);
        if (run?.finishedOn) return run;
      }
      throw new Error(`the run of upload ${uploadId} did not finish`);
    };
    const first = await upload();
    expect(first.status, await first.clone().text()).toBe(201);
    const firstId = (await json<{ id: string }>(first)).id;
    expect((await send('admin', `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: fileSource, object: firstId }, destination: { dataSourceId: crm, object: 'constituents' }, sampleUploadId: firstId } })).status).toBe(200);
    for (const [part, body] of Object.entries({ ...VALID_PARTS, routing: READY_ROUTING, schedule: undefined })) {
      if (body) expect((await send('admin', `${F}/${id}/parts/${part}`, { method: 'PUT', body })).status).toBe(200);
    }
    expect((await send('admin', `${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
    expect((await finished(firstId)).counts.collected).toBe(3);

    // the same bytes again: asked first, nothing kept and no run
    const asked = await upload();
    expect(asked.status).toBe(409);
    const problem = await json<{ title: string; previous: { id: string; fileName: string; uploadedOn: string; uploadedBy: string } }>(asked);
    const uploadedOn = (await tenant().uploads.get(firstId))!.createdOn.toISOString();
    expect(problem).toMatchObject({ title: 'upload-already-taken', previous: { id: firstId, fileName: 'open-day.csv', uploadedOn } });
    expect(problem.previous.uploadedBy).toMatch(/\w+ \w+/);
    expect((await tenant().uploads.forFormula(id)).map((u) => u.id)).toEqual([firstId]);

    // the person says yes: the rows come in again, each a copy of its first, waiting for it
    const again = await upload(true);
    expect(again.status, await again.clone().text()).toBe(201);
    const againId = (await json<{ id: string }>(again)).id;
    expect((await finished(againId)).counts.collected).toBe(3);
    const rows = await records(id);
    expect(rows).toHaveLength(6);
    const copies = rows.filter((r) => r.source_key.startsWith(againId));
    expect(copies.map((r) => [r.bucket, r.state, (r.matching?.copyOf as { sourceKey: string } | undefined)?.sourceKey])).toEqual(
      [2, 3, 4].map((line) => ['new', 'needs-attention', `${firstId}#${line}`]));
    expect(copies[0]!.matching!.routeReason).toBe(`Same person as ${firstId}#2, collected earlier and still to be sent: matched again once that record is sent`);
    // on the bucket screens the rows and the copy's reason name people, files and lines, not upload ids
    const listed = await json<RecordPage>(await send('admin', `/web-api/v1/records/${id}/query`, { method: 'POST', body: { scope: { view: 'new-records' }, limit: 10 } }));
    const ivo = listed.records.filter((r) => r.title === 'Ivo Twiceup · ivo.twiceup@example.org');
    expect(ivo.map((r) => r.sourcePosition).sort()).toEqual(['open-day.csv, line 2', 'open-day.csv, line 2']);
    const copyOfIvo = ivo.find((r) => r.sourceKey.startsWith(againId))!;
    const shown = await json<RecordDetail>(await send('admin', `/web-api/v1/records/${id}/records/${copyOfIvo.id}`));
    expect(shown.matching?.routeReason).toBe(
      'Same person as Ivo Twiceup · ivo.twiceup@example.org (open-day.csv, line 2), collected earlier and still to be sent: matched again once that record is sent');

    // a person sends everything of both uploads: each person is created once, their copy updates them
    const sent = await send('admin', `/web-api/v1/records/${id}/actions/send`, { method: 'POST', body: { selection: { kind: 'ids', ids: rows.map((r) => r.id) } } });
    expect(sent.status, await sent.clone().text()).toBe(200);
    for (const until = Date.now() + 60_000; Date.now() < until && !(await records(id)).every((r) => r.state === 'sent');) await new Promise((r) => setTimeout(r, 250));
    const after = await records(id);
    expect(after.filter((r) => r.source_key.startsWith(firstId)).map((r) => [r.state, r.outcome])).toEqual([1, 2, 3].map(() => ['sent', 'created']));
    expect(after.filter((r) => r.source_key.startsWith(againId)).map((r) => [r.state, r.outcome])).toEqual([1, 2, 3].map(() => ['sent', 'updated']));
    for (const who of ['ivo', 'una', 'oda']) expect(await crmByEmail(`${who}.twiceup@example.org`), who).toHaveLength(1);

    // a third time, after the first was sent: the destination holds them, so they match (this held before)
    const third = await upload(true);
    const thirdId = (await json<{ id: string }>(third)).id;
    await finished(thirdId);
    expect((await records(id)).filter((r) => r.source_key.startsWith(thirdId)).map((r) => r.bucket)).toEqual(['one-to-one-match', 'one-to-one-match', 'one-to-one-match']);
  }, 120_000);
});

describe('one row, two objects: a supporters file that carries a gift', () => {
  type Row = { id: string; source_key: string; bucket: string; state: string; outcome: string | null; destination_record_id: string | null; matching: Record<string, unknown> | null };
  const records = async (formula: string) => (await server.database.pool.query<Row>(
    'select id, source_key, bucket, state, outcome, destination_record_id, matching from records where formula_id = $1 order by source_key', [formula])).rows;
  const giftsOf = (constituentId: string) => sandboxCrmStore(tenant()).search('gifts', { criteria: [{ field: 'constituentId', value: constituentId }] });
  const crmByEmail = (email: string) => sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: email }] });

  it('writes the constituent and, after it, its gift linked to it; the gift waits for it meanwhile; a second upload doubles nothing', async () => {
    const fileSource = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', {
      method: 'POST', body: { system: 'file-upload', displayName: `Gift uploads ${Math.random().toString(36).slice(2, 6)}`, settings: {} },
    }))).id;
    const id = (await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: 'Spring gifts', usesFileUpload: true } }))).id;
    const content = [
      ['First name', 'Last name', 'Email', 'Gift amount', 'Gift date', 'Fund'],
      ['Gia', 'Giftrow', 'gia.giftrow@example.org', '25.00', '2026-03-14', 'Spring appeal'],
      ['Hal', 'Giftrow', 'hal.giftrow@example.org', '100', '2026-03-15', 'Building fund'],
      // a supporter without a gift: the constituent alone
      ['Ina', 'Giftrow', 'ina.giftrow@example.org', '', '', ''],
    ].map((r) => r.join(',')).join('\n');
    const upload = (again?: boolean) => {
      const form = new FormData();
      form.append('file', new File([content], 'spring-gifts.csv', { type: 'text/csv' }));
      return fetch(`${base}/flat-file-service/v1/uploads?formulaId=${id}${again ? '&again=true' : ''}`, { method: 'POST', headers: sessions.admin!.headers, body: form });
    };
    const finished = async (uploadId: string) => {
      for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 250))) {
        const { runs } = await json<{ runs: RunView[] }>(await send('admin', `${F}/${id}/runs`));
        const run = runs.find((r) => r.params.uploadId === uploadId);
        if (run?.finishedOn) return run;
      }
      throw new Error(`the run of upload ${uploadId} did not finish`);
    };
    // Send now is a job: done once every record of the upload is sent
    const sendAll = async (ids: string[], upload: string) => {
      const res = await send('processor', `/web-api/v1/records/${id}/actions/send`, { method: 'POST', body: { selection: { kind: 'ids', ids } } });
      expect(res.status, await res.clone().text()).toBe(200);
      for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        if ((await records(id)).filter((r) => r.source_key.startsWith(upload)).every((r) => r.state === 'sent' || r.state === 'failed')) return;
      }
    };

    const first = await upload();
    expect(first.status, await first.clone().text()).toBe(201);
    const firstId = (await json<{ id: string }>(first)).id;
    expect((await send('admin', `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: fileSource, object: firstId }, destination: { dataSourceId: crm, object: 'constituents' }, sampleUploadId: firstId } })).status).toBe(200);
    for (const [part, body] of Object.entries({ ...VALID_PARTS, routing: READY_ROUTING, schedule: undefined, gift: VALID_GIFT })) {
      if (body) expect((await send('admin', `${F}/${id}/parts/${part}`, { method: 'PUT', body })).status, part).toBe(200);
    }
    expect((await send('admin', `${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
    // three rows collected; two of them carry a gift, each waiting for its constituent
    expect((await finished(firstId)).counts).toMatchObject({ collected: 3, gifts: 2 });
    let rows = await records(id);
    expect(rows.map((r) => [r.source_key, r.bucket, r.state])).toEqual([
      [`${firstId}#2`, 'new', 'ready'], [`${firstId}#2#gift`, 'relationship-match', 'needs-attention'],
      [`${firstId}#3`, 'new', 'ready'], [`${firstId}#3#gift`, 'relationship-match', 'needs-attention'],
      [`${firstId}#4`, 'new', 'ready'],
    ]);
    // the related-records screen says what each gift waits for
    const waiting = await json<RecordPage>(await send('admin', `/web-api/v1/records/${id}/query`, { method: 'POST', body: { scope: { view: 'related-records' }, limit: 10 } }));
    expect(waiting.records.map((r) => r.errorReason)).toEqual(['Waiting for its constituent from the same row, which is not sent yet.', 'Waiting for its constituent from the same row, which is not sent yet.']);
    expect(waiting.records.map((r) => r.sourcePosition).sort()).toEqual(['spring-gifts.csv, line 2, its gift', 'spring-gifts.csv, line 3, its gift']);
    expect(waiting.records.map((r) => r.waitingFor?.object)).toEqual(['constituent', 'constituent']);

    // a person sends the constituents: each is created, then its gift is written against it in the same send
    await sendAll(rows.filter((r) => !r.source_key.endsWith('#gift')).map((r) => r.id), firstId);
    rows = await records(id);
    expect(rows.map((r) => [r.source_key, r.state, r.outcome])).toEqual([
      [`${firstId}#2`, 'sent', 'created'], [`${firstId}#2#gift`, 'sent', 'created'],
      [`${firstId}#3`, 'sent', 'created'], [`${firstId}#3#gift`, 'sent', 'created'],
      [`${firstId}#4`, 'sent', 'created'],
    ]);
    const [gia] = await crmByEmail('gia.giftrow@example.org');
    const [hal] = await crmByEmail('hal.giftrow@example.org');
    const [ina] = await crmByEmail('ina.giftrow@example.org');
    expect((await giftsOf(gia!.id)).map((g) => g.fields)).toEqual([expect.objectContaining({ constituentId: gia!.id, constituentLookupId: gia!.fields.lookupId, amount: '25.00', date: '2026-03-14', fund: 'Spring appeal' })]);
    expect((await giftsOf(hal!.id)).map((g) => g.fields)).toEqual([expect.objectContaining({ constituentId: hal!.id, amount: '100.00', date: '2026-03-15', fund: 'Building fund' })]);
    expect(await giftsOf(ina!.id)).toEqual([]);
    expect(rows.find((r) => r.source_key === `${firstId}#2#gift`)!.destination_record_id).toBe((await giftsOf(gia!.id))[0]!.id);

    // the same file again: the constituents are found, and so are their gifts; sending writes no second of either
    const again = await upload(true);
    expect(again.status, await again.clone().text()).toBe(201);
    const againId = (await json<{ id: string }>(again)).id;
    await finished(againId);
    const second = (await records(id)).filter((r) => r.source_key.startsWith(againId));
    expect(second.map((r) => [r.bucket, r.state])).toEqual([
      ['one-to-one-match', 'ready'], ['relationship-match', 'needs-attention'], ['one-to-one-match', 'ready'], ['relationship-match', 'needs-attention'], ['one-to-one-match', 'ready'],
    ]);
    await sendAll(second.filter((r) => !r.source_key.endsWith('#gift')).map((r) => r.id), againId);
    const after = (await records(id)).filter((r) => r.source_key.startsWith(againId));
    expect(after.map((r) => [r.state, r.outcome])).toEqual([1, 2, 3, 4, 5].map(() => ['sent', 'updated']));
    for (const who of ['gia', 'hal', 'ina']) expect(await crmByEmail(`${who}.giftrow@example.org`), who).toHaveLength(1);
    expect(await giftsOf(gia!.id)).toHaveLength(1);
    expect(await giftsOf(hal!.id)).toHaveLength(1);
  }, 120_000);

  it('a formula that sends automatically writes both in its run: the constituent, then its gift', async () => {
    const fileSource = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', {
      method: 'POST', body: { system: 'file-upload', displayName: `Gift uploads auto ${Math.random().toString(36).slice(2, 6)}`, settings: {} },
    }))).id;
    const id = (await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: 'Autumn gifts', usesFileUpload: true } }))).id;
    const form = new FormData();
    form.append('file', new File([['First name,Last name,Email,Gift amount,Gift date,Fund', 'Jo,Autogift,jo.autogift@example.org,40,2026-10-01,Autumn appeal'].join('\n')], 'autumn.csv', { type: 'text/csv' }));
    const uploaded = await fetch(`${base}/flat-file-service/v1/uploads?formulaId=${id}`, { method: 'POST', headers: sessions.admin!.headers, body: form });
    const uploadId = (await json<{ id: string }>(uploaded)).id;
    expect((await send('admin', `${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: fileSource, object: uploadId }, destination: { dataSourceId: crm, object: 'constituents' }, sampleUploadId: uploadId } })).status).toBe(200);
    for (const [part, body] of Object.entries({ ...VALID_PARTS, routing: READY_ROUTING, autosend: { enabled: true }, schedule: undefined, gift: VALID_GIFT })) {
      if (body) expect((await send('admin', `${F}/${id}/parts/${part}`, { method: 'PUT', body })).status, part).toBe(200);
    }
    expect((await send('admin', `${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
    const done = (rows: Row[]) => rows.length === 2 && rows.every((r) => r.state === 'sent');
    for (const until = Date.now() + 60_000; Date.now() < until && !done(await records(id)); await new Promise((r) => setTimeout(r, 100)));
    expect((await records(id)).map((r) => [r.source_key, r.state, r.outcome])).toEqual([[`${uploadId}#2`, 'sent', 'created'], [`${uploadId}#2#gift`, 'sent', 'created']]);
    const [jo] = await crmByEmail('jo.autogift@example.org');
    expect((await giftsOf(jo!.id)).map((g) => g.fields)).toEqual([expect.objectContaining({ amount: '40.00', date: '2026-10-01', fund: 'Autumn appeal' })]);
  }, 60_000);
});

describe('reprocessing keeps what people decided', () => {
  const NEEDS_ATTENTION: typeof VALID_PARTS.routing = { ...READY_ROUTING, unmatched: 'needs-attention', singleMatch: 'needs-attention' };
  type Row = { id: string; raw: Record<string, string>; bucket: string; state: string; destination_record_id: string | null; transformed: Record<string, unknown>; candidates: { id: string }[] };
  const byKey = async (formula: string): Promise<Record<string, Row>> => Object.fromEntries((await server.database.pool.query<Row>(
    'select id, raw, bucket, state, destination_record_id, transformed, candidates from records where formula_id = $1 order by id', [formula])).rows.map((r) => [r.raw['First name']!, r]));
  const act = async (formula: string, path: string, body: unknown, method = 'POST') => {
    const res = await send('processor', `/web-api/v1/records/${formula}/${path}`, { method, body });
    expect(res.status, await res.clone().text()).toBe(200);
  };
  const reprocess = async (formula: string, query = '') => waitForRun(formula, (await json<RunView>(await send('admin', `${F}/${formula}/reprocess${query}`, { method: 'POST' }))).id);

  it('a pick, Create new, Add to Ready and an inline correction stay; only untouched records are routed again unless asked; the history says who', async () => {
    const formula = await liveFormula({ routing: NEEDS_ATTENTION }, 'kept-*.csv');
    dropFile('kept-1.csv', [header,
      [known[3]!.firstName || 'Known', known[3]!.lastName, known[3]!.email],
      ['Nell', 'Keptready', 'nell.kept@example.org'], ['Cole', 'Keptnew', 'cole.kept@example.org'],
      ['Edda', 'Keptedit', 'edda.kept@example.org'], ['Otto', 'Untouched', 'otto.kept@example.org']]);
    expect((await runNow(formula)).status).toBe('finished');
    const knownName = known[3]!.firstName || 'Known';
    let r = await byKey(formula);
    expect(Object.values(r).map((x) => x.state)).toEqual(Array(5).fill('needs-attention'));

    await act(formula, `records/${r[knownName]!.id}/match`, { candidateId: r[knownName]!.candidates[0]!.id });
    await act(formula, 'actions/ready', { selection: { kind: 'ids', ids: [r.Nell!.id] } });
    await act(formula, 'actions/create-new', { selection: { kind: 'ids', ids: [r.Cole!.id] } });
    await act(formula, `records/${r.Edda!.id}`, { values: { firstName: 'Eddie' } }, 'PATCH');
    const decided = await byKey(formula);

    // the formula changes, so that everything would go to Needs Attention again
    expect((await send('admin', `${F}/${formula}/parts/routing`, { method: 'PUT', body: { ...NEEDS_ATTENTION, capitalizationIsDifference: true } })).status).toBe(200);
    const done = await reprocess(formula);
    expect(done.counts).toMatchObject({ reprocessed: 1 });
    r = await byKey(formula);
    expect(r[knownName]).toMatchObject({ bucket: 'one-to-one-match', state: 'ready', destination_record_id: decided[knownName]!.destination_record_id });
    expect(r.Nell).toMatchObject({ bucket: 'new', state: 'ready' });
    expect(r.Cole).toMatchObject({ bucket: 'new', state: 'ready' });
    expect(r.Edda).toMatchObject({ state: 'needs-attention' });
    expect(r.Edda!.transformed.firstName).toBe('Eddie');
    expect(r.Otto).toMatchObject({ bucket: 'new', state: 'needs-attention' });

    // the history says who reprocessed, and what it did and did not change
    const events = (await server.database.pool.query<{ type: string; actor_name: string; description: string }>(
      "select type, actor_name, description from activity_events where formula_id = $1 and type in ('run.requested', 'run.finished') order by at desc limit 2", [formula])).rows;
    const requested = events.find((e) => e.type === 'run.requested')!;
    expect(requested.actor_name).not.toBe('System');
    expect(requested.description).toMatch(new RegExp(`^${requested.actor_name} reprocessed .+: 1 held record to be matched and routed again; 4 records people decided for or corrected keep their bucket, match and values; sent records are not changed$`));
    expect(events.find((e) => e.type === 'run.finished')!.description).toContain(`(asked for by ${requested.actor_name})`);

    // asked to, reprocessing routes them all again; the correction still stands
    expect((await reprocess(formula, '?includeReviewed=true')).counts).toMatchObject({ reprocessed: 5 });
    r = await byKey(formula);
    expect(Object.values(r).map((x) => x.state)).toEqual(Array(5).fill('needs-attention'));
    expect(r.Edda!.transformed.firstName).toBe('Eddie');
    expect((await send('admin', `${F}/${formula}/reprocess?includeReviewed=maybe`, { method: 'POST' })).status).toBe(400);
  }, 120_000);
});

describe('a dry run', () => {
  it('shows what would happen, with counts per bucket and samples, and leaves no trace', async () => {
    const formula = await liveFormula({}, 'dry-*.csv');
    dropFile('dry-1.csv', [header, [known[2]!.firstName, known[2]!.lastName, known[2]!.email], ['New', 'Person', 'new.person.dry@example.org'], ['X', 'Y', 'nope']]);
    // it reads the source with the saved credentials: roles that only see the formula may not
    for (const who of ['viewer', 'processor']) expect((await send(who, `${F}/${formula}/dry-run`, { method: 'POST', body: { limit: 50 } })).status).toBe(403);
    const res = await send('admin', `${F}/${formula}/dry-run`, { method: 'POST', body: { limit: 50 } });
    expect(res.status, await res.clone().text()).toBe(200);
    const result = await json<{ examined: number; byBucket: Record<string, number>; byOutcome: Record<string, number>; samples: { outcome: string; bucket: string }[] }>(res);
    expect(result.examined).toBe(3);
    expect(result.byBucket).toMatchObject({ new: 1, 'validation-exception/Bad e-mail': 1 });
    expect(result.byOutcome).toMatchObject({ create: 1, exception: 1 });
    expect(result.samples).toHaveLength(3);
    expect(await tenant().records.countByBucket(formula)).toEqual([]);
    const s = await status(formula);
    expect(s.lastRun).toBeNull();
  }, 60_000);
});

describe('reprocessing after edits', () => {
  it('re-routes the held records, adds and deletes none, and clears needs reprocess', async () => {
    const formula = await liveFormula({}, 'held-*.csv');
    dropFile('held-1.csv', [header, ['Held', 'One', 'held.one@example.org'], ['Held', 'Two', 'held.two@example.org']]);
    const first = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
    await waitForRun(formula, first.id);
    // autosend is off: the two new records wait in Ready
    expect(await tenant().records.countByState(formula)).toEqual({ ready: 2 });

    const put = await send('admin', `${F}/${formula}/parts/routing`, {
      method: 'PUT', body: { kind: 'default', unmatched: 'needs-attention', singleMatch: 'needs-attention', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
    });
    expect(put.status).toBe(200);
    expect((await status(formula)).needsReprocess).toBe(true);

    const run = await json<RunView>(await send('admin', `${F}/${formula}/reprocess`, { method: 'POST' }));
    expect(run.kind).toBe('reprocess');
    const done = await waitForRun(formula, run.id);
    expect(done.counts).toMatchObject({ reprocessed: 2 });
    expect(await tenant().records.countByState(formula)).toEqual({ 'needs-attention': 2 });
    const s = await status(formula);
    expect(s).toMatchObject({ needsReprocess: false, paused: false });
  }, 90_000);
});

describe('controls', () => {
  it('pauses and resumes collection, clears data, and refuses a second run while one waits', async () => {
    const formula = await liveFormula({}, 'ctl-*.csv');
    let s = await json<FormulaStatus>(await send('admin', `${F}/${formula}/pause`, { method: 'POST' }));
    expect(s).toMatchObject({ status: 'paused', paused: true, nextRunAt: null });
    s = await json<FormulaStatus>(await send('admin', `${F}/${formula}/resume`, { method: 'POST' }));
    expect(s).toMatchObject({ status: 'active', paused: false });
    expect(s.nextRunAt).not.toBeNull();

    dropFile('ctl-1.csv', [header, ['Clear', 'Me', 'clear.me@example.org']]);
    const run = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
    await waitForRun(formula, run.id);
    expect(Object.values((await status(formula)).buckets).reduce((a, b) => a + b, 0)).toBe(1);

    const cleared = await send('admin', `${F}/${formula}/clear`, { method: 'POST' });
    expect(cleared.status, await cleared.clone().text()).toBe(200);
    expect((await json<FormulaStatus>(cleared)).buckets).toEqual({});

    s = await json<FormulaStatus>(await send('admin', `${F}/${formula}/deactivate`, { method: 'POST' }));
    expect(s).toMatchObject({ status: 'inactive', enabled: false, nextRunAt: null });
  }, 90_000);

  it('a formula-level failure errors the formula until a user dismisses it', async () => {
    const formula = await liveFormula({}, 'broken-*.csv');
    // its mapping is broken under it (as a stored part no longer valid would be): retrying cannot help
    await tenant().parts.upsert(formula, 'mapping', { fields: [] }, null);
    const run = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
    const done = await waitForRun(formula, run.id);
    expect(done.status).toBe('errored');
    expect(done.error).toMatch(/Mapping is no longer valid/);
    let s = await status(formula);
    expect(s).toMatchObject({ status: 'error', jobStatus: 'errored' });
    expect(s.lastError).toMatch(/Mapping is no longer valid/);
    s = await json<FormulaStatus>(await send('admin', `${F}/${formula}/dismiss-error`, { method: 'POST', body: {} }));
    expect(s).toMatchObject({ status: 'active', lastError: null });
  }, 90_000);

  it('retry now: a run waiting out its retry delay runs at once; a formula not waiting is told so; roles that may not run cannot', async () => {
    const formula = await liveFormula({}, 'soon-*.csv');
    dropFile('soon-1.csv', [header, ['Retry', 'Now', 'retry.now@example.org']]);
    const idle = await send('admin', `${F}/${formula}/retry-now`, { method: 'POST' });
    expect(idle.status).toBe(409);
    expect(await json<{ detail: string }>(idle)).toMatchObject({ title: 'formula-busy', detail: expect.stringContaining('is not waiting to try again') });
    // a run whose first attempt failed, its next try an hour away (as after a vendor's outage)
    const run = await tenant().runs.create({ formulaId: formula, kind: 'on-demand', status: 'retrying', params: {}, correlationId: 'retry-now-test', startedBy: null });
    await tenant().formulas.setRunState(formula, { jobStatus: 'retrying', lastRunId: run.id });
    const jobId = (await server.jobs.enqueue(formulaRun, { tenantId: tenant().tenantId, formulaId: formula, runId: run.id, correlationId: 'retry-now-test' },
      { startAfter: new Date(Date.now() + 3_600_000) }))!;
    await server.database.pool.query("update pgboss.job set state = 'retry', retry_count = 1 where id = $1", [jobId]);
    await tenant().runs.update(run.id, { jobId });
    for (const who of ['viewer', 'processor']) expect((await send(who, `${F}/${formula}/retry-now`, { method: 'POST' })).status).toBe(403);
    const now = await send('admin', `${F}/${formula}/retry-now`, { method: 'POST' });
    expect(now.status, await now.clone().text()).toBe(200);
    const done = await waitForRun(formula, run.id);
    expect(done).toMatchObject({ status: 'finished', counts: expect.objectContaining({ collected: 1 }) });
    const { rows } = await server.database.pool.query<{ description: string }>(
      "select description from activity_events where formula_id = $1 and type = 'run.retried-now'", [formula]);
    expect(rows).toHaveLength(1);
  }, 90_000);

  it('refuses run once over more than 30 days, and runs from roles that may not run', async () => {
    const formula = await liveFormula({}, 'ro-*.csv');
    const long = await send('admin', `${F}/${formula}/run`, { method: 'POST', body: { runOnce: { from: '2026-01-01', to: '2026-03-01' } } });
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('Run once covers at most 30 days');
    for (const who of ['viewer', 'processor']) {
      expect((await send(who, `${F}/${formula}/run`, { method: 'POST', body: {} })).status).toBe(403);
      expect((await send(who, `${F}/${formula}/pause`, { method: 'POST' })).status).toBe(403);
    }
    expect((await send('viewer', `${F}/${formula}/status`)).status).toBe(200);
  }, 60_000);

  it('another tenant cannot see or run the formula', async () => {
    const formula = await liveFormula({}, 'other-*.csv');
    const admin = sessions.admin!;
    const me = await (await call(base, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers })).json() as { tenants: { tenantId: string }[] };
    const other = me.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
    const headers = { ...admin.headers, tenantId: other };
    for (const [method, p] of [['GET', 'status'], ['GET', 'runs'], ['POST', 'run'], ['POST', 'pause'], ['POST', 'clear'], ['POST', 'dry-run'], ['POST', 'reprocess']] as const) {
      const res = await call(base, `${F}/${formula}/${p}`, { method, headers, ...(method === 'POST' ? { body: {} } : {}) });
      expect(res.status, `${method} ${p}`).toBe(404);
    }
    const { statuses } = await json<{ statuses: FormulaStatus[] }>(await call(base, `${F}/statuses`, { headers }));
    expect(statuses.map((x) => x.id)).not.toContain(formula);
  }, 60_000);
});
