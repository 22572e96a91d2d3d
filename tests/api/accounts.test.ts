import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ROLES } from '../../src/domain/roles.ts';
import { DEMO_TENANTS, DEMO_USERS } from '../../server/db/seed.ts';
import { call, orgIdFor, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const AM = '/account-management/v1';
let server: TestServer;
let admin: Session;
let base: string;

/** the demo user whose role in the first tenant is this one */
const emailOf = (role: string) => DEMO_USERS.find((u) => u.roles[0]?.[0] === role)!.email;

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  admin = await sessionFor(base, emailOf('Administrator'));
});
afterAll(async () => { await server?.close(); });

async function details(s: Session, extra: Record<string, string> = {}) {
  return call(base, `${AM}/User/organization/${s.orgId}/user`, { headers: { ...s.headers, ...extra } });
}

describe('organisation by subdomain', () => {
  it('returns the organisation id of a known subdomain without sign-in', async () => {
    const res = await call(base, `${AM}/authentication/organization/subdomain/demo`);
    expect(res.status).toBe(200);
    const body = await res.json() as { organizationId: string };
    expect(body.organizationId).toMatch(/^[0-9a-f-]{36}$/);
  });
  it('answers an unknown subdomain with a 404 problem', async () => {
    const res = await call(base, `${AM}/authentication/organization/subdomain/nowhere`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(await res.json()).toMatchObject({ status: 404, title: 'unknown-subdomain' });
  });
  it('refuses a malformed subdomain without echoing it', async () => {
    const res = await call(base, `${AM}/authentication/organization/subdomain/${encodeURIComponent('<script>x')}`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('<script>');
  });
});

describe('current user details', () => {
  it('has every field of the current user and counts sign-ins', async () => {
    const res = await details(admin);
    expect(res.status).toBe(200);
    const body = await res.json() as Record<string, unknown>;
    for (const field of ['activeTenantId', 'policies', 'auth0Id', 'skuConnectorDetail', 'skuSubProduct', 'skuTopLevelProduct',
      'autoProvisioned', 'loginCount', 'createdOn', 'datasources', 'clientDatasources', 'policiesDefinitions',
      'organizationName', 'salesforceAccountID']) {
      expect(body, field).toHaveProperty(field);
    }
    expect(body.auth0Id).toBe(admin.auth0Id);
    expect(body.loginCount).toBe(1);
    expect(body.organizationName).toBe('Riverside Community Trust');
    expect((body.policies as Record<string, string[]>).usermanagement).toContain('view');

    const again = await sessionFor(base, emailOf('Administrator'));
    await call(base, `${AM}/user/user-cache/${encodeURIComponent(again.auth0Id)}`, { method: 'DELETE', headers: again.headers });
    const second = await (await details(again)).json() as { loginCount: number };
    expect(second.loginCount).toBe(2);
  });

  it('answers a user with no tenants with 404 and a user with no roles with 403', async () => {
    const noTenant = await sessionFor(base, 'no.tenants@demo.tributary.test');
    const r1 = await details(noTenant);
    expect(r1.status).toBe(404);
    expect(await r1.json()).toMatchObject({ title: 'no-tenants' });
    const noRoles = await sessionFor(base, 'no.roles@demo.tributary.test');
    const r2 = await details(noRoles);
    expect(r2.status).toBe(403);
    expect(await r2.json()).toMatchObject({ title: 'no-roles' });
  });

  it('refuses another organisation in the path', async () => {
    const res = await call(base, `${AM}/User/organization/00000000-0000-4000-8000-000000000000/user`, { headers: admin.headers });
    expect(res.status).toBe(403);
  });
});

describe('tenants and the active tenant', () => {
  it('lists the user\'s tenants with roles', async () => {
    const res = await call(base, `${AM}/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`, { headers: admin.headers });
    expect(res.status).toBe(200);
    const body = await res.json() as { tenants: { name: string; roles: string[] }[] };
    expect(body.tenants.map((t) => t.name)).toEqual(['Riverside Food Bank', 'Riverside Youth Arts']);
  });

  it('switches the active tenant, and refuses a tenant the user does not belong to', async () => {
    const power = await sessionFor(base, emailOf('Power User'));
    const tenants = await (await call(base, `${AM}/Tenant/organization/${power.orgId}/user/${encodeURIComponent(power.auth0Id)}`, { headers: power.headers })).json() as { activeTenantId: string; tenants: { tenantId: string; name: string }[] };
    const other = tenants.tenants.find((t) => t.tenantId !== tenants.activeTenantId)!;
    const patched = await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: power.headers, body: { tenantId: other.tenantId } });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({ activeTenantId: other.tenantId, roles: ['View Only'] });
    const active = await (await call(base, `${AM}/user/organization/${power.orgId}/user/active-tenant`, { headers: power.headers })).json() as { activeTenantId: string };
    expect(active.activeTenantId).toBe(other.tenantId);
    const me = await (await details(power)).json() as { activeTenantId: string; policies: Record<string, string[]> };
    expect(me.activeTenantId).toBe(other.tenantId);
    expect(me.policies.datasource).toEqual(['view']);

    const connections = await sessionFor(base, emailOf('Connection Manager'));
    const foreign = await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: connections.headers, body: { tenantId: other.tenantId } });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ title: 'no-tenant-access' });
  });

  it('rejects a malformed PATCH body with a clear problem and writes nothing', async () => {
    const before = await (await call(base, `${AM}/user/organization/${admin.orgId}/user/active-tenant`, { headers: admin.headers })).json();
    for (const body of ['{not json', JSON.stringify({ tenantId: 'x' }), JSON.stringify({})]) {
      const res = await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: admin.headers, body });
      expect(res.status).toBe(400);
      const problem = await res.json() as { title: string; detail: string };
      expect(problem.title).toBe('bad-request');
      expect(problem.detail.length).toBeGreaterThan(5);
    }
    const text = await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: { ...admin.headers, 'content-type': 'text/plain' }, body: 'tenantId' });
    expect(text.status).toBe(415);
    const after = await (await call(base, `${AM}/user/organization/${admin.orgId}/user/active-tenant`, { headers: admin.headers })).json();
    expect(after).toEqual(before);
  });

  it('lets a user read another user\'s tenants only with user-management permission in a shared tenant', async () => {
    const viewer = await sessionFor(base, emailOf('View Only'));
    const tenantId = (await (await details(viewer)).json() as { activeTenantId: string }).activeTenantId;
    const path = `${AM}/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`;
    expect((await call(base, path, { headers: { ...viewer.headers, tenantId } })).status).toBe(403);
    const manager = await sessionFor(base, emailOf('User Manager'));
    const managed = await call(base, path, { headers: { ...manager.headers, tenantId } });
    expect(managed.status, await managed.clone().text()).toBe(200);
    const elsewhere = await call(base, `${AM}/users/x`, { headers: manager.headers });
    expect(elsewhere.status).toBe(404);
  });

  it('shows a user manager only the tenants it shares with the user it reads', async () => {
    const manager = await sessionFor(base, emailOf('User Manager'));
    const tenantId = (await (await details(manager)).json() as { activeTenantId: string }).activeTenantId;
    const headers = { ...manager.headers, tenantId };
    // the administrator belongs to both demo tenants, the user manager to the first only
    const read = await call(base, `${AM}/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`, { headers });
    const body = await read.json() as { tenants: { tenantId: string; name: string }[] };
    expect(body.tenants.map((t) => t.name)).toEqual([DEMO_TENANTS[0]]);
    const own = await (await call(base, `${AM}/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`, { headers: admin.headers })).json() as { tenants: unknown[] };
    expect(own.tenants).toHaveLength(2);
    // the administrator's active tenant is named only when the manager shares it
    const other = (await (await call(base, `${AM}/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`, { headers: admin.headers })).json() as { tenants: { tenantId: string; name: string }[] })
      .tenants.find((t) => t.name === DEMO_TENANTS[1])!;
    await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: admin.headers, body: { tenantId: other.tenantId } });
    const active = await (await call(base, `${AM}/user/organization/${admin.orgId}/users/${encodeURIComponent(admin.auth0Id)}/active-tenant`, { headers })).json() as { activeTenantId: string | null };
    expect(active.activeTenantId).toBeNull();
    const first = body.tenants[0]!;
    await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: admin.headers, body: { tenantId: first.tenantId } });
  });

  it('accepts the bearer scheme in any case', async () => {
    const token = admin.headers.authorization!.replace(/^Bearer /, '');
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const res = await details(admin, { authorization: `${scheme} ${token}` });
      expect(res.status, scheme).toBe(200);
    }
  });

  it('deletes the user cache on logout for the caller only', async () => {
    const res = await call(base, `${AM}/user/user-cache/${encodeURIComponent(admin.auth0Id)}`, { method: 'DELETE', headers: admin.headers });
    expect(res.status).toBe(204);
    const viewer = await sessionFor(base, emailOf('View Only'));
    const other = await call(base, `${AM}/user/user-cache/${encodeURIComponent(admin.auth0Id)}`, { method: 'DELETE', headers: viewer.headers });
    expect(other.status).toBe(403);
  });
});

describe('each role\'s access', () => {
  it.each(ROLES)('%s reaches the user list only with user-management permission', async (role) => {
    const s = await sessionFor(base, emailOf(role));
    const me = await (await details(s)).json() as { activeTenantId: string; policies: Record<string, string[]> };
    const res = await call(base, `${AM}/user/organization/${s.orgId}/users`, { headers: { ...s.headers, tenantId: me.activeTenantId } });
    const allowed = role === 'Administrator' || role === 'User Manager';
    expect(res.status).toBe(allowed ? 200 : 403);
    expect(me.policies.usermanagement?.includes('view') ?? false).toBe(allowed);
    if (allowed) {
      const { users } = await res.json() as { users: { email: string }[] };
      expect(users.map((u) => u.email)).toContain(s.email);
      expect(users.map((u) => u.email)).not.toContain('no.tenants@demo.tributary.test');
    }
  });

  it('View Only overrides every other role', async () => {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    await client.query(`update memberships set roles = array['Administrator','View Only'] where user_id = (select id from users where email = 'view.only@demo.tributary.test')`);
    await client.end();
    const s = await sessionFor(base, emailOf('View Only'));
    const me = await (await details(s)).json() as { activeTenantId: string; policies: Record<string, string[]> };
    expect(me.policies.usermanagement).toBeUndefined();
    expect(me.policies.formula).toEqual(['view']);
    const res = await call(base, `${AM}/user/organization/${s.orgId}/users`, { headers: { ...s.headers, tenantId: me.activeTenantId } });
    expect(res.status).toBe(403);
  });

  it('temporary access past its expiry date is no access', async () => {
    const s = await sessionFor(base, emailOf('User Manager'));
    const me = await (await details(s)).json() as { activeTenantId: string };
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    await client.query(`update memberships set access_expires_on = now() - interval '1 minute' where user_id = (select id from users where email = $1)`, [s.email]);
    await client.end();
    const res = await call(base, `${AM}/user/organization/${s.orgId}/users`, { headers: { ...s.headers, tenantId: me.activeTenantId } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ title: 'no-tenant-access' });
    await call(base, `${AM}/user/user-cache/${encodeURIComponent(s.auth0Id)}`, { method: 'DELETE', headers: s.headers });
    expect((await details(s)).status).toBe(404);
  });
});

describe('subdomain lookup is public, the rest is not', () => {
  it('answers 401 without a token', async () => {
    const orgId = await orgIdFor(base);
    const res = await call(base, `${AM}/User/organization/${orgId}/user`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ title: 'unauthenticated', status: 401 });
  });
});
