/**
 * Formulas and their parts through /web-api/v1/formulas: drafts, source and destination, every
 * part's upsert, get and delete with SPEC's messages, atomic saves, the wipe on an object change,
 * 'needs reprocess', activation, the sample, each role and another tenant.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORMULA_PART_NAMES } from '../../src/domain/formula/parts.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { csvText } from '../support/flatFiles.ts';
import { ALL_PARTS, VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
let server: TestServer;
let base: string;
const sessions: Record<string, Session & { tenantId: string }> = {};
let otherTenant: string;
let fileSource: string;
let crm: string;

async function as(email: string) {
  const s = await sessionFor(base, email);
  const me = await (await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string; tenants: { tenantId: string }[] };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, path: string, init: { method?: string; body?: unknown } = {}) => call(base, path, { ...init, headers: sessions[who]!.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', producer: 'formula.producer@demo.tributary.test', viewer: 'view.only@demo.tributary.test',
    processor: 'data.processor@demo.tributary.test', connections: 'connection.manager@demo.tributary.test',
  })) sessions[who] = await as(email);
  const admin = sessions.admin!;
  const me = await (await call(base, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers })).json() as { tenants: { tenantId: string }[] };
  otherTenant = me.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
  const list = await json<{ dataSources: { id: string; system: string }[] }>(await send('admin', '/integrations/v1/data-sources'));
  crm = list.dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  fileSource = (await json<{ id: string }>(await send('admin', '/integrations/v1/data-sources', { method: 'POST', body: { system: 'file-upload', displayName: 'Uploads', settings: {} } }))).id;
});
afterAll(async () => { await server?.close(); });

async function draft(who = 'producer', name: string | null = 'Spring appeal donors') {
  const res = await send(who, F, { method: 'POST', body: { name } });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<{ id: string; isDraft: boolean; name: string | null; status: string; needsReprocess: boolean; parts: string[] }>(res);
}
const ends = { source: { dataSourceId: '', object: 'constituents', settings: {} }, destination: { dataSourceId: '', object: 'constituents', settings: {} } };

describe('a draft formula', () => {
  it('is created unnamed or named, listed, and read back', async () => {
    const unnamed = await draft('producer', null);
    expect(unnamed).toMatchObject({ name: null, isDraft: true, status: 'inactive', needsReprocess: false, parts: [] });
    const list = await json<{ formulas: { id: string }[] }>(await send('viewer', F));
    expect(list.formulas.map((f) => f.id)).toContain(unnamed.id);
    expect(await json(await send('viewer', `${F}/${unnamed.id}`))).toMatchObject({ id: unnamed.id });
  });

  it('takes a source and a destination with their objects, checking each system\'s role', async () => {
    const f = await draft();
    const res = await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { source: { ...ends.source, dataSourceId: crm }, destination: { ...ends.destination, dataSourceId: crm } } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await json(res)).toMatchObject({
      sourceDataSource: { dataSourceId: crm, system: 'sandbox-crm', object: 'constituents' },
      firstDestinationDataSource: { dataSourceId: crm, system: 'sandbox-crm', object: 'constituents' },
    });
    // a file upload cannot be a destination
    const wrong = await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { destination: { ...ends.destination, dataSourceId: fileSource } } });
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toMatchObject({ code: 'validation-failed', errors: { destination: expect.stringContaining('cannot be a destination') } });
    // a data source of another tenant is unknown here
    const otherDs = await json<{ dataSources: { id: string }[] }>(await call(base, '/integrations/v1/data-sources', { headers: { ...sessions.admin!.headers, tenantId: otherTenant } }));
    const foreign = await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { source: { ...ends.source, dataSourceId: otherDs.dataSources[0]!.id } } });
    expect(foreign.status).toBe(400);
  });
});

describe('every part', () => {
  it.each(FORMULA_PART_NAMES)('%s is saved, read back and removed', async (part) => {
    const f = await draft();
    expect((await send('producer', `${F}/${f.id}/parts/${part}`)).status).toBe(404);
    const saved = await send('producer', `${F}/${f.id}/parts/${part}`, { method: 'PUT', body: ALL_PARTS[part] });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const read = await json<{ part: string; body: unknown }>(await send('viewer', `${F}/${f.id}/parts/${part}`));
    expect(read).toMatchObject({ part, body: ALL_PARTS[part] });
    expect((await json<{ parts: string[] }>(await send('viewer', `${F}/${f.id}`))).parts).toEqual([part]);
    expect((await send('viewer', `${F}/${f.id}/parts/${part}`, { method: 'PUT', body: ALL_PARTS[part] })).status).toBe(403);
    expect((await send('producer', `${F}/${f.id}/parts/${part}`, { method: 'DELETE' })).status).toBe(204);
    expect((await send('producer', `${F}/${f.id}/parts/${part}`)).status).toBe(404);
  });

  it('is refused with the messages of SPEC.md section 5, and nothing is saved', async () => {
    const f = await draft();
    const cases: [string, unknown, string][] = [
      ['matching', { scenarios: [] }, 'You need to define at least one scenario'],
      ['matching', { scenarios: [{ name: 'x', criteria: [{ source: '', destination: 'email' }], matchReason: 'r', isPrimary: true }] }, 'Unable to save Record Match Search'],
      ['matching', { ...VALID_PARTS.matching, advanced: true }, 'Advanced Matching Settings need at least 2 scenarios'],
      ['transform', { fields: [{ destination: 'x', steps: [{ kind: 'concatenate', fields: ['a'], separator: 'space' }] }] }, 'Concatenation needs 2 to 10 fields'],
      ['transform', { fields: [{ destination: 'x', steps: [{ kind: 'split', splitter: '', position: 1 }] }] }, 'Split needs a splitter'],
      ['transform', { fields: [{ destination: 'x', steps: [{ kind: 'split', splitter: ',', position: 0 }] }] }, 'Split position must be greater than 0'],
      ['transform', { fields: [{ destination: 'x', steps: [{ kind: 'adjust-date', amount: 0, unit: 'day', direction: 'add' }] }] }, 'Date adjustment must be greater than 0'],
      ['mapping', { fields: [{ destination: 'x', kind: 'defined', value: 'abc' }] }, 'A defined value accepts only digits, periods and hyphens'],
      ['mapping', { fields: [{ destination: 'x', kind: 'ignored' }] }, 'Map at least one field'],
    ];
    for (const [part, body, message] of cases) {
      const res = await send('producer', `${F}/${f.id}/parts/${part}`, { method: 'PUT', body });
      expect(res.status, part).toBe(400);
      expect((await json<{ detail: string }>(res)).detail, part).toContain(message);
    }
    expect((await json<{ parts: string[] }>(await send('producer', `${F}/${f.id}`))).parts).toEqual([]);
  });
});

describe('edits with consequences', () => {
  it('changing the object wipes mapping, matching and routing, only after confirmation', async () => {
    const f = await draft();
    await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { source: { ...ends.source, dataSourceId: crm }, destination: { ...ends.destination, dataSourceId: crm } } });
    for (const part of ['mapping', 'matching', 'routing', 'autosend'] as const) {
      expect((await send('producer', `${F}/${f.id}/parts/${part}`, { method: 'PUT', body: VALID_PARTS[part] })).status).toBe(200);
    }
    const refused = await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { name: 'renamed', destination: { ...ends.destination, dataSourceId: crm, object: 'gifts' } } });
    expect(refused.status).toBe(409);
    expect(await json(refused)).toMatchObject({ title: 'formula-wipe-unconfirmed', wipes: ['mapping', 'matching', 'routing'] });
    // the refused save changed nothing, the name included
    const unchanged = await json<{ name: string; parts: string[]; firstDestinationDataSource: { object: string } }>(await send('producer', `${F}/${f.id}`));
    expect(unchanged).toMatchObject({ name: 'Spring appeal donors', firstDestinationDataSource: { object: 'constituents' } });
    expect(unchanged.parts.sort()).toEqual(['autosend', 'mapping', 'matching', 'routing']);
    const confirmed = await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { destination: { ...ends.destination, dataSourceId: crm, object: 'gifts' }, confirmWipe: true } });
    expect(confirmed.status).toBe(200);
    expect((await json<{ parts: string[] }>(confirmed)).parts).toEqual(['autosend']);
  });

  it('activates a complete draft, refuses an incomplete one, and marks a live formula that is edited', async () => {
    const f = await draft();
    const incomplete = await send('producer', `${F}/${f.id}/activate`, { method: 'POST' });
    expect(incomplete.status).toBe(422);
    expect(await json(incomplete)).toMatchObject({ title: 'formula-incomplete', missing: ['source', 'destination', 'mapping', 'matching', 'routing', 'schedule'] });
    await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { source: { ...ends.source, dataSourceId: crm }, destination: { ...ends.destination, dataSourceId: crm } } });
    for (const part of ['mapping', 'matching', 'routing', 'schedule'] as const) await send('producer', `${F}/${f.id}/parts/${part}`, { method: 'PUT', body: VALID_PARTS[part] });
    const live = await send('producer', `${F}/${f.id}/activate`, { method: 'POST' });
    expect(live.status, await live.clone().text()).toBe(200);
    expect(await json(live)).toMatchObject({ isDraft: false, status: 'active', needsReprocess: false });
    await send('producer', `${F}/${f.id}/parts/routing`, { method: 'PUT', body: { ...VALID_PARTS.routing, unmatched: 'needs-attention' } });
    expect(await json(await send('producer', `${F}/${f.id}`))).toMatchObject({ needsReprocess: true });
  });

  it('gives a file-upload formula its upload\'s rows as the sample, and no schedule', async () => {
    const f = await draft();
    const form = new FormData();
    form.append('file', new Blob([csvText(25)], { type: 'text/csv' }), 'supporters.csv');
    const uploaded = await json<{ id: string }>(await fetch(`${base}/flat-file-service/v1/uploads`, { method: 'POST', headers: sessions.producer!.headers, body: form }));
    await send('producer', `${F}/${f.id}`, { method: 'PATCH', body: { source: { dataSourceId: fileSource, object: uploaded.id, settings: {} }, sampleUploadId: uploaded.id } });
    const sample = await json<{ fields: string[]; rows: Record<string, string>[] }>(await send('producer', `${F}/${f.id}/sample`));
    expect(sample.fields).toEqual(['First name', 'Last name', 'Email', 'Amount']);
    expect(sample.rows).toHaveLength(20);
    expect((await json<{ usesFileUpload: boolean }>(await send('producer', `${F}/${f.id}`))).usesFileUpload).toBe(true);
    expect((await send('producer', `${F}/${f.id}/parts/schedule`, { method: 'PUT', body: VALID_PARTS.schedule })).status).toBe(400);
  });

  it('records what was done in the activity history', async () => {
    const f = await draft();
    await send('producer', `${F}/${f.id}/parts/autosend`, { method: 'PUT', body: VALID_PARTS.autosend });
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    const { rows } = await client.query('select type, actor_name, details from activity_events where formula_id = $1 order by at', [f.id]);
    await client.end();
    expect(rows.map((r) => r.type)).toEqual(['formula.created', 'formula.part.saved']);
    expect(rows[1]).toMatchObject({ actor_name: 'Fran Formula', details: { part: 'autosend' } });
  });
});

describe('who may do what', () => {
  it('lets view roles read, producers edit, and nobody else in; another tenant never sees it', async () => {
    const f = await draft();
    expect((await send('viewer', F, { method: 'POST', body: { name: 'x' } })).status).toBe(403);
    expect((await send('processor', `${F}/${f.id}`)).status).toBe(200);
    expect((await send('processor', `${F}/${f.id}`, { method: 'PATCH', body: { name: 'y' } })).status).toBe(403);
    expect((await send('connections', F)).status).toBe(403);
    expect((await send('viewer', `${F}/${f.id}`, { method: 'DELETE' })).status).toBe(403);
    const elsewhere = { ...sessions.admin!.headers, tenantId: otherTenant };
    expect((await call(base, `${F}/${f.id}`, { headers: elsewhere })).status).toBe(404);
    expect((await call(base, `${F}/${f.id}/parts/mapping`, { method: 'PUT', headers: elsewhere, body: VALID_PARTS.mapping })).status).toBe(404);
    expect((await json<{ formulas: { id: string }[] }>(await call(base, F, { headers: elsewhere }))).formulas.map((x) => x.id)).not.toContain(f.id);
    expect((await send('admin', `${F}/${f.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await send('admin', `${F}/${f.id}`)).status).toBe(404);
  });
});
