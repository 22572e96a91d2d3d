/**
 * The export service (/export-service/v1) with real workers on real PostgreSQL: records made by
 * the engine (a flat file run into buckets, as tests/api/engine.test.ts does), then exported as a
 * bucket and as a selection. The status goes from started to complete with every record written;
 * the CSV holds the right rows and columns, headed in words (destination fields by their labels,
 * the record's state apart from a US state 'State'), each record by its title and its file and
 * line, with formula-like cells neutralised (a title too); source values only when asked for; a new export
 * deletes the old file (410); a file past its 24 hours answers 410 and the sweeper deletes it;
 * another tenant's or another user's export is 404; a role without formula view gets 403; a
 * malformed request a problem.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS, EXPORT_GONE, type ExportView } from '../../src/domain/api/exportService.ts';
import type { RunView } from '../../src/domain/api/formulas.ts';
import { parseCsv } from '../../src/domain/csv.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { createLogger } from '../../server/log.ts';
import { exportFileStore, sweepExpiredExports, writeExport } from '../../server/services/exports.ts';
import type { FileStore } from '../../server/connectors/fileSources/fileStore.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
const X = '/export-service/v1/exports';
let server: TestServer;
let base: string;
const sessions: Record<string, Session & { tenantId: string }> = {};
let otherTenant: string;
let formula: string;
let known: { email: string; lastName: string; firstName: string }[] = [];

async function as(email: string) {
  const s = await sessionFor(base, email);
  const me = await (await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, p: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  call(base, p, { ...init, headers: { ...sessions[who]!.headers, ...init.headers } });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, sessions.admin!.tenantId);
const store = (): FileStore => exportFileStore(server.config);

const HYPERLINK = '=HYPERLINK("http://evil.example","Click")';

beforeAll(async () => {
  server = await startTestServer({ work: true, env: { RUN_SLICE_MS: '100000' } });
  base = server.url;
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', viewer: 'view.only@demo.tributary.test', connections: 'connection.manager@demo.tributary.test',
  })) sessions[who] = await as(email);
  const me = await json<{ tenants: { tenantId: string }[] }>(await send('admin', `/account-management/v1/User/organization/${sessions.admin!.orgId}/user`));
  otherTenant = me.tenants.find((t) => t.tenantId !== sessions.admin!.tenantId)!.tenantId;

  // a live formula from a flat file into the Sandbox CRM: new records held in Ready (autosend off),
  // a match in Needs Attention, a bad e-mail in its validation bucket
  const list = await json<{ dataSources: { id: string; system: string }[] }>(await send('admin', '/integrations/v1/data-sources'));
  const crm = list.dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  const made = await send('admin', '/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Export drop', settings: { folder: 'exports' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  const flat = (await json<{ id: string }>(made)).id;
  for await (const batch of sandboxCrmStore(tenant()).pull('constituents', null, 2)) {
    known = batch.records.map((r) => ({ email: String(r.fields.email), lastName: String(r.fields.lastName), firstName: String(r.fields.firstName ?? '') }));
    break;
  }
  formula = (await json<{ id: string }>(await send('admin', F, { method: 'POST', body: { name: 'Spring appeal' } }))).id;
  expect((await send('admin', `${F}/${formula}`, { method: 'PATCH', body: { source: { dataSourceId: flat, object: 'supporters-*.csv' }, destination: { dataSourceId: crm, object: 'constituents' } } })).status).toBe(200);
  // the US state too: a destination field labelled 'State', beside the record's own state
  const mapping = { fields: [...VALID_PARTS.mapping.fields, { destination: 'state', kind: 'source' as const, source: 'State' }] };
  for (const [part, body] of Object.entries({ ...VALID_PARTS, mapping, schedule: { mode: 'continuous' as const } })) {
    const put = await send('admin', `${F}/${formula}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  expect((await send('admin', `${F}/${formula}/activate`, { method: 'POST' })).status).toBe(200);

  const dir = dropFolderPath(server.config.dataDir, sessions.admin!.tenantId, 'exports');
  fs.mkdirSync(dir, { recursive: true });
  const rows = [
    ['First name', 'Last name', 'Email', 'State'],
    [known[0]!.firstName, known[0]!.lastName, known[0]!.email, 'VT'],
    ['Ada', 'Lovelace', 'ada.lovelace.export@example.org', 'MA'],
    [HYPERLINK, '-smith', 'plus.export@example.org', 'NY'],
    ['Bad', 'Address', 'not-an-email', 'CA'],
  ];
  fs.writeFileSync(path.join(dir, 'supporters-1.csv'), rows.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')).join('\n'));
  const run = await json<RunView>(await send('admin', `${F}/${formula}/run`, { method: 'POST', body: {} }));
  const until = Date.now() + 60_000;
  for (;;) {
    const { runs } = await json<{ runs: RunView[] }>(await send('admin', `${F}/${formula}/runs`));
    const done = runs.find((r) => r.id === run.id);
    if (done?.finishedOn) { expect(done.status, JSON.stringify(done)).toBe('finished'); break; }
    if (Date.now() > until) throw new Error('the run did not finish');
    await new Promise((r) => setTimeout(r, 250));
  }
}, 120_000);
afterAll(async () => { await server?.close(); });

/** polls an export until it is complete or failed; answers every status seen */
async function finished(who: string, id: string): Promise<{ last: ExportView; seen: ExportView[] }> {
  const seen: ExportView[] = [];
  const until = Date.now() + 30_000;
  for (;;) {
    const res = await send(who, `${X}/${id}`);
    expect(res.status).toBe(200);
    const e = await json<ExportView>(res);
    seen.push(e);
    if (e.status === 'complete' || e.status === 'error') return { last: e, seen };
    if (Date.now() > until) throw new Error(`export ${id} did not finish: ${JSON.stringify(e)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function start(who: string, body: unknown): Promise<ExportView> {
  const res = await send(who, X, { method: 'POST', body });
  expect(res.status, await res.clone().text()).toBe(202);
  return json<ExportView>(res);
}

async function download(who: string, id: string): Promise<{ res: Response; rows: string[][] }> {
  const res = await send(who, `${X}/${id}/download`);
  if (!res.ok) return { res, rows: [] };
  const bytes = new Uint8Array(await res.clone().arrayBuffer());
  // a byte order mark first, so Excel reads UTF-8 (TextDecoder drops it)
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return { res, rows: parseCsv(new TextDecoder().decode(bytes)) };
}

const byColumn = (rows: string[][]) => rows.slice(1).map((r) => Object.fromEntries(rows[0]!.map((h, i) => [h, r[i]])));

describe('exporting a bucket', () => {
  let first: ExportView;

  it('starts (202), progresses to complete, and writes every record of the view', async () => {
    first = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'ready-records' } } });
    expect(first).toMatchObject({ formulaId: formula, view: 'ready-records', status: 'started', written: 0, percent: 0, download: 'not-ready' });
    const { last, seen } = await finished('admin', first.id);
    const order = ['started', 'in-progress', 'complete'];
    const statuses = seen.map((s) => order.indexOf(s.status));
    expect(statuses.every((s, i) => s >= 0 && (i === 0 || s >= statuses[i - 1]!))).toBe(true);
    expect(last).toMatchObject({ status: 'complete', total: 2, written: 2, percent: 100, download: 'available', error: null });
    expect(Date.parse(last.expiresAt!) - Date.parse(last.finishedOn!)).toBe(24 * 3600_000);
    expect(last.fileName).toMatch(/^Spring-appeal-ready-records-\d{4}-\d{2}-\d{2}-\d{2}-\d{2}\.csv$/);
  }, 60_000);

  it('downloads the CSV as an attachment: headings in words, each record by name and line, neutralised cells', async () => {
    const { res, rows } = await download('admin', first.id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Spring-appeal-ready-records-.*\.csv"; filename\*=UTF-8''/);
    // the destination's labels, not field names; the record's state apart from the US state; no source values unless asked
    expect(rows[0]).toEqual([
      'Record', 'Source', 'Record id', 'Destination record id', 'Bucket', 'Record state', 'Date added', 'Date processed',
      'Match reasons', 'Error reason', 'Error date', 'Score', 'E-mail', 'First name', 'Last name', 'State',
    ]);
    expect(rows[0]!.slice(0, EXPORT_COLUMNS.length)).toEqual([...EXPORT_COLUMNS]);
    const records = byColumn(rows);
    expect(records).toHaveLength(2);
    const ada = records.find((r) => r['E-mail'] === 'ada.lovelace.export@example.org')!;
    expect(ada).toMatchObject({
      Record: 'Ada Lovelace · ada.lovelace.export@example.org', Source: 'supporters-1.csv, line 3',
      Bucket: 'New', 'Record state': 'Ready', State: 'MA', 'First name': 'Ada', 'Last name': 'Lovelace', 'Error reason': '', Score: '',
    });
    expect(ada['Record id']).toMatch(/^[\da-f-]{36}$/);
    expect(Number.isNaN(Date.parse(ada['Date added']!))).toBe(false);
    // a spreadsheet runs none: each starts with a single quote, the record's title too
    const evil = records.find((r) => r['E-mail'] === 'plus.export@example.org')!;
    expect(evil['First name']).toBe(`'${HYPERLINK}`);
    expect(evil['Last name']).toBe('\'-Smith');
    expect(evil.Record).toBe(`'${HYPERLINK} -Smith · plus.export@example.org`);
    expect(evil.Source).toBe('supporters-1.csv, line 4');
  });

  it('writes match reasons, error reasons and raw source values when asked', async () => {
    const matched = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'needs-attention-one-to-one' } }, includeRaw: true });
    expect((await finished('admin', matched.id)).last).toMatchObject({ status: 'complete', total: 1 });
    const { rows } = await download('admin', matched.id);
    expect(rows[0]).toEqual([
      ...EXPORT_COLUMNS, 'E-mail', 'First name', 'Last name', 'State', 'Source: Email', 'Source: First name', 'Source: Last name', 'Source: State',
    ]);
    const [one] = byColumn(rows);
    expect(one).toMatchObject({
      Source: 'supporters-1.csv, line 2', Bucket: 'One-to-one match', 'Match reasons': 'Same e-mail',
      'Source: Email': known[0]!.email, 'Source: State': 'VT', State: 'VT',
    });
    expect(Number(one!.Score)).toBeGreaterThan(0);

    const bad = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'validation-exceptions', customBucket: 'Bad e-mail' } } });
    expect((await finished('admin', bad.id)).last).toMatchObject({ status: 'complete', total: 1, view: 'validation-exceptions', customBucket: 'Bad e-mail' });
    const [failed] = byColumn((await download('admin', bad.id)).rows);
    expect(failed).toMatchObject({ Bucket: 'Validation exception / Bad e-mail', 'E-mail': 'not-an-email', Record: 'Bad Address · not-an-email' });
    // without the option, no source values
    expect(Object.keys(failed!).filter((h) => h.startsWith('Source: '))).toEqual([]);
    expect(failed!['Error reason']).not.toBe('');
  }, 60_000);

  it('applies the scope\'s filter: text and dates added', async () => {
    const text = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'ready-records', filter: { text: 'LOVELACE' } } } });
    expect((await finished('admin', text.id)).last).toMatchObject({ total: 1 });
    expect(byColumn((await download('admin', text.id)).rows).map((r) => r['First name'])).toEqual(['Ada']);
    const none = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'ready-records', filter: { addedFrom: new Date(Date.now() + 3600_000).toISOString() } } } });
    const done = (await finished('admin', none.id)).last;
    expect(done).toMatchObject({ status: 'complete', total: 0, written: 0, percent: 100 });
    expect((await download('admin', none.id)).rows).toEqual([[...EXPORT_COLUMNS]]);
  }, 60_000);
});

describe('exporting a selection', () => {
  it('writes only the chosen records of the formula', async () => {
    const { rows: ids } = await server.database.pool.query<{ id: string }>('select id from records where formula_id = $1 and bucket = $2', [formula, 'new']);
    expect(ids).toHaveLength(2);
    const chosen = [ids[0]!.id, crypto.randomUUID()];
    const e = await start('viewer', { formulaId: formula, selection: { kind: 'ids', ids: chosen } });
    expect(e.view).toBe('selection');
    const { last } = await finished('viewer', e.id);
    expect(last).toMatchObject({ status: 'complete', total: 1, written: 1 });
    const records = byColumn((await download('viewer', e.id)).rows);
    expect(records.map((r) => r['Record id'])).toEqual([ids[0]!.id]);
  }, 60_000);

  it('counts what it has written as it goes', async () => {
    const { rows: [user] } = await server.database.pool.query<{ id: string }>('select id from users where email = $1', ['administrator@demo.tributary.test']);
    // written by hand, a record a batch, with a store that reads the count after every chunk
    const row = await tenant().recordExports.insert({
      userId: user!.id, formulaId: formula, bucket: 'selection', status: 'started',
      selection: { selection: { kind: 'scope', scope: { view: 'new-records', filter: {} } }, includeRaw: false },
    });
    const inner = store();
    const counts: (number | null)[] = [];
    const watching: FileStore = {
      ...inner,
      put: async (key, content) => {
        async function* watched() {
          for await (const chunk of content as AsyncIterable<Uint8Array>) {
            const now = await tenant().recordExports.get(row.id);
            counts.push(now!.written);
            expect(now!.status).toBe('in-progress');
            yield chunk;
          }
        }
        return inner.put(key, watched());
      },
    };
    expect(await writeExport(tenant(), row.id, { store: watching, log: createLogger('silent'), batchSize: 1 })).toBe('complete');
    // the header, then each record: the count reads 0, 0, 1 before each chunk goes out
    expect(counts).toEqual([0, 0, 1]);
    expect(await tenant().recordExports.get(row.id)).toMatchObject({ status: 'complete', total: 2, written: 2 });
  });
});

describe('the download window', () => {
  it('a new export deletes the file of the last one: its download is 410', async () => {
    const older = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'ready-records' } } });
    await finished('admin', older.id);
    const olderKey = (await tenant().recordExports.get(older.id))!.fileKey!;
    expect(await store().size(olderKey)).toBeGreaterThan(0);
    expect((await download('admin', older.id)).res.status).toBe(200);

    const newer = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'new-records' } } });
    expect(await store().size(olderKey)).toBeNull();
    const gone = await send('admin', `${X}/${older.id}/download`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await gone.json()).toMatchObject({ title: 'export-gone', status: 410, detail: EXPORT_GONE.replaced });
    expect(await json<ExportView>(await send('admin', `${X}/${older.id}`))).toMatchObject({ status: 'complete', download: 'replaced' });
    expect((await finished('admin', newer.id)).last.download).toBe('available');

    const { exports } = await json<{ exports: ExportView[] }>(await send('admin', `${X}?formulaId=${formula}`));
    expect(exports[0]!.id).toBe(newer.id);
    expect(exports.filter((e) => e.download === 'available').map((e) => e.id)).toEqual([newer.id]);
  }, 60_000);

  it('after 24 hours the download is 410, and the sweeper deletes the file', async () => {
    const e = await start('viewer', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'ready-records' } } });
    await finished('viewer', e.id);
    const key = (await tenant().recordExports.get(e.id))!.fileKey!;
    // the sweeper leaves a file inside its window alone
    await sweepExpiredExports(server.database.db, store(), new Date(), createLogger('silent'));
    expect(await store().size(key)).toBeGreaterThan(0);
    await server.database.pool.query('update record_exports set expires_at = now() - interval \'1 second\' where id = $1', [e.id]);
    const gone = await send('viewer', `${X}/${e.id}/download`);
    expect(gone.status).toBe(410);
    expect(await gone.json()).toMatchObject({ title: 'export-gone', detail: EXPORT_GONE.expired });
    expect(await json<ExportView>(await send('viewer', `${X}/${e.id}`))).toMatchObject({ download: 'expired' });

    const another = await start('admin', { formulaId: formula, selection: { kind: 'ids', ids: [crypto.randomUUID()] } });
    await finished('admin', another.id);
    await server.database.pool.query('update record_exports set expires_at = now() - interval \'1 hour\' where id = $1', [another.id]);
    const anotherKey = (await tenant().recordExports.get(another.id))!.fileKey!;
    expect(await sweepExpiredExports(server.database.db, store(), new Date(), createLogger('silent'))).toBeGreaterThanOrEqual(1);
    expect(await store().size(anotherKey)).toBeNull();
    expect((await tenant().recordExports.get(another.id))!.fileKey).toBeNull();
  }, 60_000);

  it('the sweeper fails an export whose worker is gone for good, so nobody waits on it', async () => {
    const { rows: [user] } = await server.database.pool.query<{ id: string }>('select id from users where email = $1', ['administrator@demo.tributary.test']);
    const stuck = await tenant().recordExports.insert({
      userId: user!.id, formulaId: formula, bucket: 'ready-records', status: 'in-progress',
      selection: { selection: { kind: 'scope', scope: { view: 'ready-records', filter: {} } }, includeRaw: false },
    });
    const recent = await tenant().recordExports.insert({
      userId: user!.id, formulaId: formula, bucket: 'ready-records', status: 'in-progress',
      selection: { selection: { kind: 'scope', scope: { view: 'ready-records', filter: {} } }, includeRaw: false },
    });
    await server.database.pool.query('update record_exports set created_on = now() - interval \'4 hours\' where id = $1', [stuck.id]);
    await sweepExpiredExports(server.database.db, store(), new Date(), createLogger('silent'));
    expect(await tenant().recordExports.get(stuck.id)).toMatchObject({ status: 'error', error: 'The export was interrupted. Please start it again.' });
    expect((await tenant().recordExports.get(recent.id))!.status).toBe('in-progress');
  });
});

describe('who may export', () => {
  let mine: ExportView;
  beforeAll(async () => {
    mine = await start('admin', { formulaId: formula, selection: { kind: 'scope', scope: { view: 'exception' } } });
    await finished('admin', mine.id);
  }, 60_000);

  it('another tenant\'s export, or another user\'s, is not found', async () => {
    for (const p of [`${X}/${mine.id}`, `${X}/${mine.id}/download`]) {
      const other = await send('admin', p, { headers: { tenantId: otherTenant } });
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ title: 'not-found' });
      expect((await send('viewer', p)).status).toBe(404);
    }
    const started = await send('admin', X, { method: 'POST', headers: { tenantId: otherTenant }, body: { formulaId: formula, selection: { kind: 'ids', ids: [crypto.randomUUID()] } } });
    expect(started.status).toBe(404);
    expect((await send('admin', `${X}/not-an-id`)).status).toBe(404);
  });

  it('a role without formula view is refused (403)', async () => {
    for (const [method, p] of [['POST', X], ['GET', `${X}/${mine.id}`], ['GET', `${X}/${mine.id}/download`], ['GET', `${X}?formulaId=${formula}`]] as const) {
      const res = await send('connections', p, { method, ...(method === 'POST' ? { body: { formulaId: formula, selection: { kind: 'scope', scope: { view: 'exception' } } } } : {}) });
      expect(res.status, `${method} ${p}`).toBe(403);
    }
  });

  it('a malformed request is a problem naming what is wrong, never echoing it', async () => {
    for (const body of [
      { formulaId: formula, selection: { kind: 'scope', scope: { view: 'everything' } } },
      { formulaId: 'formula-1', selection: { kind: 'ids', ids: [crypto.randomUUID()] } },
      { formulaId: formula, selection: { kind: 'ids', ids: [] } },
      { formulaId: formula, selection: { kind: 'scope', scope: { view: 'validation-exceptions' } } },
      { formulaId: formula, selection: { kind: 'scope', scope: { view: 'ready-records', filter: { text: 'ab' } } } },
    ]) {
      const res = await send('admin', X, { method: 'POST', body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = await json<{ title: string; code: string; detail: string }>(res);
      expect(problem).toMatchObject({ title: 'bad-request', code: 'validation-failed' });
      expect(problem.detail).not.toContain('everything');
    }
    expect((await send('admin', `${X}?formulaId=nope`)).status).toBe(400);
    // a formula the tenant does not have
    expect((await send('admin', X, { method: 'POST', body: { formulaId: crypto.randomUUID(), selection: { kind: 'ids', ids: [crypto.randomUUID()] } } })).status).toBe(404);
  });
});
