/**
 * Emptying a Sandbox CRM (DELETE /integrations/v1/data-sources/{id}/sandbox-crm/records): every
 * constituent and gift of the tenant's Sandbox CRM goes, the data source stays, and the activity
 * history says who did it. Only roles that may edit connections (SPEC.md section 6: Administrator,
 * Power User, Connection Manager) may; another tenant's Sandbox CRM and other data sources are
 * out of reach.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let pool: pg.Pool;
const sessions: Record<string, TenantSession> = {};

beforeAll(async () => {
  server = await startTestServer();
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', manager: 'connection.manager@demo.tributary.test', producer: 'formula.producer@demo.tributary.test',
    processor: 'data.processor@demo.tributary.test', viewer: 'view.only@demo.tributary.test',
  })) sessions[who] = await tenantSession(server.url, email);
}, 120_000);
afterAll(async () => {
  await pool?.end();
  await server?.close();
});

const api = (who: string, tenantId = sessions[who]!.tenantId) => integrations(server.url, sessions[who]!.withTenant(tenantId));
async function sourceOf(system: string, tenantId = sessions.admin!.tenantId): Promise<string> {
  const list = await (await api('admin', tenantId)('/data-sources')).json() as { dataSources: { id: string; system: string }[] };
  return list.dataSources.find((d) => d.system === system)!.id;
}
const held = async (tenantId: string) => (await pool.query<{ c: number; g: number }>(
  `select (select count(*)::int from sandbox_constituents where tenant_id = $1) as c, (select count(*)::int from sandbox_gifts where tenant_id = $1) as g`, [tenantId])).rows[0]!;
const empty = (who: string, id: string, tenantId?: string) => api(who, tenantId)(`/data-sources/${id}/sandbox-crm/records`, { method: 'DELETE' });

describe('emptying a Sandbox CRM', () => {
  it('is refused to roles that may not edit connections, deleting nothing', async () => {
    const tenantId = sessions.admin!.tenantId;
    const sandbox = await sourceOf('sandbox-crm');
    const before = await held(tenantId);
    expect(before.c).toBeGreaterThan(0);
    for (const who of ['producer', 'processor', 'viewer']) {
      const res = await empty(who, sandbox);
      expect(res.status, who).toBe(403);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await held(tenantId)).toEqual(before);
  });

  it('deletes every constituent and gift of the tenant, keeps the data source, and says so in the history', async () => {
    const tenantId = sessions.manager!.tenantId;
    const other = sessions.admin!.tenants.find((t) => t.tenantId !== tenantId)!.tenantId;
    const sandbox = await sourceOf('sandbox-crm', tenantId);
    const before = await held(tenantId);
    const otherBefore = await held(other);
    expect(before.g).toBeGreaterThan(0);

    const res = await empty('manager', sandbox);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ constituents: before.c, gifts: before.g });
    expect(await held(tenantId)).toEqual({ c: 0, g: 0 });
    // another tenant's stays whole
    expect(await held(other)).toEqual(otherBefore);
    expect((await api('admin', tenantId)(`/data-sources/${sandbox}`)).status).toBe(200);
    const { rows } = await pool.query<{ description: string }>(
      "select description from activity_events where tenant_id = $1 and type = 'datasource.emptied'", [tenantId]);
    expect(rows.map((r) => r.description)).toEqual([`Emptied the data source Sandbox CRM: ${before.c} constituents and ${before.g} gifts deleted`]);
    // empty already: nothing more to delete
    expect(await (await empty('admin', sandbox)).json()).toEqual({ constituents: 0, gifts: 0 });
  });

  it('reaches neither another tenant\'s Sandbox CRM nor another kind of data source', async () => {
    const other = sessions.admin!.tenants.find((t) => t.tenantId !== sessions.admin!.tenantId)!.tenantId;
    const theirs = await sourceOf('sandbox-crm', other);
    const before = await held(other);
    expect((await empty('admin', theirs)).status).toBe(404);
    expect(await held(other)).toEqual(before);
    const made = await api('admin')('/data-sources', { method: 'POST', body: { system: 'file-upload', displayName: 'Uploads to keep', settings: {} } });
    const upload = (await made.json() as { id: string }).id;
    const res = await empty('admin', upload);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'not-sandbox-crm' });
  });
});
