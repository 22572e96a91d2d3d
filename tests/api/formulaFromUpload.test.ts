/**
 * A Formula Producer starts a file-upload formula alone: every tenant has its built-in 'File
 * upload' data source (made with the tenant, and for tenants that existed, by migration 0025),
 * listed like the others and never deleted; POST /web-api/v1/formulas/from-upload makes a draft
 * file-upload formula from one of the tenant's uploads, for the roles that may create formulas.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, sessionFor, type Session } from '../support/api.ts';
import { csvText } from '../support/flatFiles.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let base: string;
const sessions: Record<string, Session & { tenantId: string }> = {};
let otherTenant: string;

async function as(email: string) {
  const s = await sessionFor(base, email);
  const me = await (await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, path: string, init: { method?: string; body?: unknown; tenantId?: string } = {}) =>
  call(base, path, { ...init, headers: { ...sessions[who]!.headers, ...(init.tenantId ? { tenantId: init.tenantId } : {}) } });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;

type ListItem = { id: string; system: string; displayName: string; builtIn?: boolean };
const builtIns = async (who: string, tenantId?: string) =>
  (await json<{ dataSources: ListItem[] }>(await send(who, DS, { ...(tenantId ? { tenantId } : {}) }))).dataSources.filter((d) => d.builtIn);

async function upload(who: string, fileName = 'spring donors.csv', tenantId?: string) {
  const form = new FormData();
  form.append('file', new Blob([csvText(25)], { type: 'text/csv' }), fileName);
  const res = await fetch(`${base}/flat-file-service/v1/uploads`, { method: 'POST', headers: { ...sessions[who]!.headers, ...(tenantId ? { tenantId } : {}) }, body: form });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<{ id: string; headers: string[] }>(res);
}

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
});
afterAll(async () => { await server?.close(); });

describe("each tenant's built-in 'File upload' data source", () => {
  it('is there in every tenant, once, listed like the others, and a Formula Producer sees it', async () => {
    const mine = await builtIns('producer');
    expect(mine).toEqual([expect.objectContaining({ system: 'file-upload', displayName: 'File upload', builtIn: true })]);
    const theirs = await builtIns('admin', otherTenant);
    expect(theirs).toHaveLength(1);
    expect(theirs[0]!.id).not.toBe(mine[0]!.id);
    // and a tenant made later has its own as it is made
    const pool = new pg.Pool({ connectionString: server.databaseUrl, max: 1 });
    try {
      const { rows: [t] } = await pool.query<{ id: string }>("insert into tenants (organization_id, name) select organization_id, 'Made later' from tenants limit 1 returning id");
      const { rows } = await pool.query('select system, display_name, built_in from data_sources where tenant_id = $1', [t!.id]);
      expect(rows).toEqual([{ system: 'file-upload', display_name: 'File upload', built_in: true }]);
      // a second one in a tenant is refused
      await expect(pool.query("insert into data_sources (tenant_id, system, display_name, built_in) values ($1, 'file-upload', 'Another', true)", [t!.id])).rejects.toThrow(/data_sources_tenant_built_in_idx/);
    } finally { await pool.end(); }
  });

  it('is given by migration 0025 to a tenant that existed before it, adopting a File upload data source of that name', async () => {
    const sql = readFileSync(new URL('../../server/db/migrations/0025_built_in_file_upload.sql', import.meta.url), 'utf8').split('--> statement-breakpoint');
    const backfill = sql.filter((s) => /^\s*(-- [^\n]*\n)?(UPDATE|INSERT INTO) "data_sources"/.test(s));
    expect(backfill).toHaveLength(2);
    const pool = new pg.Pool({ connectionString: server.databaseUrl, max: 1 });
    try {
      // two tenants as they were before the migration: one with no file upload source, one whose 'File upload' a manager added
      await pool.query('alter table tenants disable trigger tenants_built_in_data_sources');
      const { rows: [bare] } = await pool.query<{ id: string }>("insert into tenants (organization_id, name) select organization_id, 'Before 0025' from tenants limit 1 returning id");
      const { rows: [named] } = await pool.query<{ id: string }>("insert into tenants (organization_id, name) select organization_id, 'Before 0025, named' from tenants limit 1 returning id");
      await pool.query('alter table tenants enable trigger tenants_built_in_data_sources');
      await pool.query("insert into data_sources (tenant_id, system, display_name) values ($1, 'file-upload', 'File Upload')", [named!.id]);
      for (const statement of backfill) await pool.query(statement);
      const of = async (id: string) => (await pool.query('select display_name, built_in from data_sources where tenant_id = $1 order by display_name', [id])).rows;
      expect(await of(bare!.id)).toEqual([{ display_name: 'File upload', built_in: true }]);
      expect(await of(named!.id)).toEqual([{ display_name: 'File Upload', built_in: true }]);
      // run again, it adds nothing
      for (const statement of backfill) await pool.query(statement);
      expect(await of(bare!.id)).toHaveLength(1);
    } finally { await pool.end(); }
  });

  it('cannot be deleted, even by an Administrator', async () => {
    const [ds] = await builtIns('admin');
    const res = await send('admin', `${DS}/${ds!.id}`, { method: 'DELETE' });
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await json(res)).toMatchObject({ title: 'datasource-built-in', status: 409 });
    expect(await builtIns('admin')).toHaveLength(1);
  });

  it('does not tick the welcome page\'s "a data source" step on its own', async () => {
    // the other demo tenant, left with no data source but its built-in one
    const theirs = (await json<{ dataSources: ListItem[] }>(await send('admin', DS, { tenantId: otherTenant }))).dataSources;
    for (const d of theirs.filter((x) => !x.builtIn)) expect((await send('admin', `${DS}/${d.id}`, { method: 'DELETE', tenantId: otherTenant })).status).toBe(204);
    expect((await json<{ dataSources: ListItem[] }>(await send('admin', DS, { tenantId: otherTenant }))).dataSources.map((d) => d.displayName)).toEqual(['File upload']);
    const res = await send('admin', '/web-api/v1/data-queue/onboarding', { tenantId: otherTenant });
    expect(await json(res)).toMatchObject({ dataSource: false });
  });
});

describe('POST /web-api/v1/formulas/from-upload', () => {
  it('makes a Formula Producer a draft file-upload formula: the built-in source, the upload its sample, named after the file', async () => {
    const sample = await upload('producer');
    const res = await send('producer', `${F}/from-upload`, { method: 'POST', body: { uploadId: sample.id } });
    expect(res.status, await res.clone().text()).toBe(201);
    const [source] = await builtIns('producer');
    const formula = await json(res);
    expect(formula).toMatchObject({
      name: 'spring donors', isDraft: true, usesFileUpload: true, sampleUploadId: sample.id,
      sourceDataSource: { dataSourceId: source!.id, system: 'file-upload', object: sample.id },
      firstDestinationDataSource: null,
    });
    // the wizard's mapping reads the sample's columns from it
    const read = await json<{ sampleUploadId: string }>(await send('producer', `${F}/${formula.id as string}`));
    expect(read.sampleUploadId).toBe(sample.id);
    const columns = await json<{ headers: string[] }>(await send('producer', `/flat-file-service/v1/uploads/${read.sampleUploadId}`));
    expect(columns.headers).toEqual(sample.headers);
    // the built-in source is now in use, and still cannot be deleted
    expect((await send('admin', `${DS}/${source!.id}`, { method: 'DELETE' })).status).toBe(409);
  });

  it('is for the roles that may create formulas', async () => {
    const sample = await upload('admin');
    for (const [who, status] of [['admin', 201], ['producer', 201], ['viewer', 403], ['processor', 403], ['connections', 403]] as const) {
      const res = await send(who, `${F}/from-upload`, { method: 'POST', body: { uploadId: sample.id } });
      expect(res.status, who).toBe(status);
      if (status === 403) expect(res.headers.get('content-type'), who).toContain('application/problem+json');
    }
  });

  it("does not find another tenant's upload, nor one that does not exist", async () => {
    const theirs = await upload('admin', 'theirs.csv', otherTenant);
    for (const uploadId of [theirs.id, crypto.randomUUID()]) {
      const res = await send('producer', `${F}/from-upload`, { method: 'POST', body: { uploadId } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await json(res)).toMatchObject({ title: 'not-found', status: 404 });
    }
    // in its own tenant, it is found
    expect((await send('admin', `${F}/from-upload`, { method: 'POST', body: { uploadId: theirs.id }, tenantId: otherTenant })).status).toBe(201);
  });

  it('refuses a body without an upload id, not echoing it', async () => {
    const res = await send('producer', `${F}/from-upload`, { method: 'POST', body: { uploadId: '<script>' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.text()).not.toContain('<script>');
  });
});
