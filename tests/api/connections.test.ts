/**
 * The integrations service's data sources: create, read, edit, delete, validation, policies,
 * tenant isolation, delete refused while a formula uses the source, and credentials encrypted at
 * rest (read straight from the table).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_FIELD_MESSAGE } from '../../src/domain/connectors/fields.ts';
import { SANDBOX_CONSTITUENTS_PER_TENANT } from '../../server/connectors/sandboxCrm/seed.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let admin: TenantSession;
let api: ReturnType<typeof integrations>;
let pool: pg.Pool;

const SECRET = 'sk_test_4eC39HqLyjWDarjtT1zdp7dcSECRETVALUE';

beforeAll(async () => {
  server = await startTestServer();
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  api = integrations(server.url, admin.headers);
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await server?.close();
});

async function create(body: Record<string, unknown>, headers?: Record<string, string>) {
  return api('/data-sources', { method: 'POST', body, ...(headers ? { headers } : {}) });
}

describe('data sources', () => {
  it('lists the seeded Sandbox CRM of each demo tenant', async () => {
    const res = await api('/data-sources');
    expect(res.status).toBe(200);
    const { dataSources } = await res.json() as { dataSources: { system: string; displayName: string; modifiedOn: string }[] };
    expect(dataSources).toContainEqual(expect.objectContaining({ system: 'sandbox-crm', displayName: 'Sandbox CRM' }));
    const counts = await pool.query('select tenant_id, count(*)::int as n from sandbox_constituents group by tenant_id');
    expect(counts.rows).toHaveLength(2);
    for (const r of counts.rows) expect(r.n).toBe(SANDBOX_CONSTITUENTS_PER_TENANT);
  });

  it('creates a data source, returns it without its secrets, and keeps the secret encrypted at rest', async () => {
    const res = await create({ system: 'stripe', displayName: 'Stripe donations', settings: { secretKey: SECRET } });
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    const body = JSON.parse(text) as { id: string; settings: Record<string, unknown>; createdBy: string; modifiedOn: string };
    expect(body.settings).toEqual({ secretKey: { saved: true } });
    expect(body.createdBy).toBe('Ada Administrator');

    const read = await api(`/data-sources/${body.id}`);
    const readText = await read.text();
    expect(readText).not.toContain(SECRET);
    expect(JSON.parse(readText)).toMatchObject({ system: 'stripe', displayName: 'Stripe donations', settings: { secretKey: { saved: true } } });

    // straight from the table: no plaintext anywhere in the row, and a 12-byte IV and 16-byte tag
    const { rows } = await pool.query('select * from data_sources where id = $1', [body.id]);
    const row = rows[0];
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row.settings).toEqual({});
    expect(Buffer.isBuffer(row.secret_ciphertext)).toBe(true);
    expect(row.secret_ciphertext.toString('utf8')).not.toContain('sk_test');
    expect(row.secret_iv).toHaveLength(12);
    expect(row.secret_tag).toHaveLength(16);
    expect(row.secret_key_version).toMatch(/^k1:[0-9a-f]{16}$/);
    const dump = await pool.query("select count(*)::int as n from data_sources where position(convert_to('sk_test', 'UTF8') in secret_ciphertext) > 0");
    expect(dump.rows[0].n).toBe(0);
  });

  it('keeps a saved secret when an edit leaves it empty, and replaces it when a new one is given', async () => {
    const created = await (await create({
      system: 'sftp', displayName: 'Partner SFTP',
      settings: { host: 'sftp.example.org', port: '22', username: 'tributary', authenticationType: 'password', password: 'first-password', folder: '/out' },
    })).json() as { id: string };
    const before = (await pool.query('select secret_ciphertext from data_sources where id = $1', [created.id])).rows[0].secret_ciphertext as Buffer;

    // the same server: the saved password stays (a new address would need it again: connectionsSecurity.test.ts)
    const kept = await api(`/data-sources/${created.id}`, { method: 'PATCH', body: { displayName: 'Partner SFTP (renamed)', settings: { host: 'sftp.example.org', folder: '/in', password: '' } } });
    expect(kept.status).toBe(200);
    expect(await kept.json()).toMatchObject({ displayName: 'Partner SFTP (renamed)', settings: { host: 'sftp.example.org', password: { saved: true }, folder: '/in' } });
    const { openSecretsForTest } = await secretsReader();
    expect(await openSecretsForTest(created.id)).toEqual({ password: 'first-password' });
    const after = (await pool.query('select secret_ciphertext from data_sources where id = $1', [created.id])).rows[0].secret_ciphertext as Buffer;
    expect(after.equals(before)).toBe(false); // re-sealed with a fresh IV

    const replaced = await api(`/data-sources/${created.id}`, { method: 'PATCH', body: { settings: { password: 'second-password' } } });
    expect(replaced.status).toBe(200);
    expect(await openSecretsForTest(created.id)).toEqual({ password: 'second-password' });
  });

  it('says so when saved credentials were sealed with another key, and takes new ones', async () => {
    const { id } = await (await create({ system: 'stripe', displayName: 'Stripe (old key)', settings: { secretKey: SECRET } })).json() as { id: string };
    await pool.query("update data_sources set secret_key_version = 'k1:0000000000000000' where id = $1", [id]);
    const view = await (await api(`/data-sources/${id}`)).json() as { settings: Record<string, unknown> };
    expect(view.settings).toEqual({}); // not shown as saved: it must be entered again
    const test = await api(`/data-sources/${id}/test`, { method: 'POST' });
    expect(test.status).toBe(500);
    expect(await test.json()).toMatchObject({ title: 'connection-error', code: 'unknown', detail: expect.stringContaining('another secret key') });
    expect((await api(`/data-sources/${id}`, { method: 'PATCH', body: { displayName: 'Stripe (old key)' } })).status).toBe(400);
    const fixed = await api(`/data-sources/${id}`, { method: 'PATCH', body: { settings: { secretKey: SECRET } } });
    expect(fixed.status).toBe(200);
    expect((await fixed.json() as { settings: Record<string, unknown> }).settings).toEqual({ secretKey: { saved: true } });
  });

  it('validates every field with the catalogue schema: required, 150 characters, URL, e-mail', async () => {
    const missing = await create({ system: 'mailchimp', displayName: '', settings: {} });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ title: 'bad-request', code: 'validation-failed', detail: expect.stringContaining(CONNECTION_FIELD_MESSAGE) });

    const long = await create({ system: 'hubspot', displayName: 'HubSpot', settings: { accessToken: `pat-na1-${'a'.repeat(150)}` } });
    expect(long.status).toBe(400);
    expect(await long.json()).toMatchObject({ errors: { accessToken: CONNECTION_FIELD_MESSAGE } });

    const badUrl = await create({ system: 'http', displayName: 'API', settings: { url: 'not a url', authenticationType: 'none', paging: 'none' } });
    expect(((await badUrl.json()) as { errors: Record<string, string> }).errors.url).toMatch(/valid URL/);

    const badEmail = await create({ system: 'mobile-commons', displayName: 'SMS', settings: { username: 'not-an-email', password: 'x' } });
    expect(((await badEmail.json()) as { errors: Record<string, string> }).errors.username).toMatch(/e-mail/);

    const unknown = await create({ system: 'myspace', displayName: 'Old', settings: {} });
    expect(unknown.status).toBe(400);
  });

  it('refuses a second data source with the same name in the tenant', async () => {
    await create({ system: 'hubspot', displayName: 'HubSpot main', settings: { accessToken: 'pat-na1-11111111-2222-3333-4444-555555555555' } });
    const again = await create({ system: 'hubspot', displayName: 'hubspot MAIN', settings: { accessToken: 'pat-na1-11111111-2222-3333-4444-555555555555' } });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ title: 'datasource-name-taken' });
  });

  it('refuses to delete a data source a formula uses, naming the formula, and deletes it once unused', async () => {
    const ds = await (await create({ system: 'file-upload', displayName: 'Spreadsheets', settings: {} })).json() as { id: string };
    const formula = await pool.query('insert into formulas (tenant_id, name, is_draft, source_data_source_id) values ($1, $2, false, $3) returning id',
      [admin.tenantId, 'Weekly gifts', ds.id]);
    const refused = await api(`/data-sources/${ds.id}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    const problem = await refused.json() as { title: string; detail: string; usedBy: { name: string }[] };
    expect(problem.title).toBe('datasource-in-use');
    expect(problem.detail).toContain('Weekly gifts');
    expect(problem.usedBy).toEqual([{ id: formula.rows[0].id, name: 'Weekly gifts' }]);
    expect((await api(`/data-sources/${ds.id}`)).status).toBe(200);

    const view = await (await api(`/data-sources/${ds.id}`)).json() as { usedBy: unknown[] };
    expect(view.usedBy).toHaveLength(1);

    await pool.query('delete from formulas where id = $1', [formula.rows[0].id]);
    expect((await api(`/data-sources/${ds.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/data-sources/${ds.id}`)).status).toBe(404);
  });

  it('keeps tenants apart: another tenant\'s data source is a 404 for every call', async () => {
    const [, other] = admin.tenants;
    const otherApi = integrations(server.url, admin.withTenant(other!.tenantId));
    const mine = await (await create({ system: 'file-upload', displayName: 'Tenant one only', settings: {} })).json() as { id: string };
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/test'], ['GET', '/objects'], ['POST', '/objects/refresh'], ['GET', '/objects/x/fields']] as const) {
      const res = await otherApi(`/data-sources/${mine.id}${path}`, { method, ...(method === 'PATCH' ? { body: { displayName: 'stolen' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const list = await (await otherApi('/data-sources')).json() as { dataSources: { id: string }[] };
    expect(list.dataSources.map((d) => d.id)).not.toContain(mine.id);
    // and a test of unsaved settings cannot borrow its secrets
    const borrow = await otherApi('/data-sources/test', { method: 'POST', body: { system: 'file-upload', settings: {}, dataSourceId: mine.id } });
    expect(borrow.status).toBe(404);
  });

  it('applies the datasource policies of each role', async () => {
    const viewer = await tenantSession(server.url, 'view.only@demo.tributary.test');
    const asViewer = integrations(server.url, viewer.headers);
    expect((await asViewer('/data-sources')).status).toBe(200);
    expect((await asViewer('/data-sources', { method: 'POST', body: { system: 'file-upload', displayName: 'Nope', settings: {} } })).status).toBe(403);
    const processor = await tenantSession(server.url, 'data.processor@demo.tributary.test');
    expect((await integrations(server.url, processor.headers)('/data-sources')).status).toBe(403);
    const manager = await tenantSession(server.url, 'connection.manager@demo.tributary.test');
    const created = await integrations(server.url, manager.headers)('/data-sources', { method: 'POST', body: { system: 'file-upload', displayName: 'By the manager', settings: {} } });
    expect(created.status).toBe(201);
    expect((await integrations(server.url, viewer.headers)(`/data-sources/${(await created.json() as { id: string }).id}`, { method: 'DELETE' })).status).toBe(403);
  });

  it('serves the catalogue of every system with its fields and no secret values', async () => {
    const res = await api('/systems');
    const { systems } = await res.json() as { systems: { system: string; fields: { key: string; secret: boolean }[] }[] };
    expect(systems).toHaveLength(27);
    expect(systems.find((s) => s.system === 'sftp')!.fields.filter((f) => f.secret).map((f) => f.key)).toEqual(['password', 'privateKey', 'passphrase']);
  });
});

/** Opens a row's secrets with the server's key, as the server does (the test proves the row holds what was saved). */
async function secretsReader() {
  const { createSecretBox, loadSecretKey } = await import('../../server/connectors/secrets.ts');
  const { openSecrets } = await import('../../server/connectors/dataSources.ts');
  const box = createSecretBox(loadSecretKey({ secretKey: server.config.secretKey, dataDir: server.config.dataDir }));
  return {
    async openSecretsForTest(id: string) {
      const { rows } = await pool.query('select * from data_sources where id = $1', [id]);
      const r = rows[0];
      return openSecrets(box, {
        id: r.id, tenantId: r.tenant_id, secretCiphertext: r.secret_ciphertext, secretIv: r.secret_iv, secretTag: r.secret_tag, secretKeyVersion: r.secret_key_version,
      } as never);
    },
  };
}
