/** User management (SPEC.md sections 5, 6 and 8): every rule and message, each role's reach, tenants kept apart. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { MESSAGES } from '../../src/domain/errors.ts';
import { ROLES } from '../../src/domain/roles.ts';
import { USER_MESSAGES } from '../../src/domain/users.ts';
import { DEMO_USERS } from '../../server/db/seed.ts';
import { consumeResetToken, createResetLink } from '../../server/identity/passwordReset.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { drizzle } from 'drizzle-orm/node-postgres';

const AM = '/account-management/v1';
const INTERNAL = 'staff.tributary.test';
let server: TestServer;
let base: string;
let db: pg.Client;
let admin: Session;
let manager: Session;
let foodBank: string;
let youthArts: string;

const emailOf = (role: string) => DEMO_USERS.find((u) => u.roles[0]?.[0] === role)!.email;

interface UserOut { auth0Id: string; fullName: string; email: string; roles: string[]; active: boolean; internal: boolean; tenants: { tenantId: string; roles: string[]; accessExpiresOn: string | null }[] }

/** A session whose requests name the Food Bank tenant (every demo role has one there). */
async function session(email: string, tenantId?: string): Promise<Session> {
  const s = await sessionFor(base, email);
  return { ...s, headers: { ...s.headers, tenantId: tenantId ?? foodBank } };
}

const users = (s: Session, suffix = '') => `${AM}/user/organization/${s.orgId}/users${suffix}`;
const one = (s: Session, auth0Id: string, suffix = '') => users(s, `/${encodeURIComponent(auth0Id)}${suffix}`);
const send = (s: Session, path: string, method = 'GET', body?: unknown) => call(base, path, { method, headers: s.headers, body });

let n = 0;
const fresh = (memberships: unknown[], extra: Record<string, unknown> = {}) => ({
  fullName: `Test Person${++n}`, email: `person${n}@example.org`, memberships, ...extra,
});
const asMember = (tenantId: string, roles: string[] = ['Data Processor'], accessExpiresOn: string | null = null) => ({ tenantId, roles, accessExpiresOn });

async function create(s: Session, body: unknown): Promise<UserOut> {
  const res = await send(s, users(s), 'POST', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { user: UserOut }).user;
}
const authOf = async (email: string) => (await db.query<{ auth0_id: string }>('select auth0_id from users where email = $1', [email])).rows[0]!.auth0_id;

beforeAll(async () => {
  server = await startTestServer({ env: { INTERNAL_EMAIL_DOMAIN: INTERNAL } });
  base = server.url;
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  const tenants = (await db.query<{ id: string; name: string }>('select id, name from tenants')).rows;
  foodBank = tenants.find((t) => t.name === 'Riverside Food Bank')!.id;
  youthArts = tenants.find((t) => t.name === 'Riverside Youth Arts')!.id;
  admin = await session(emailOf('Administrator'));
  manager = await session(emailOf('User Manager'));
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

describe('who may manage users (SPEC.md section 6)', () => {
  it.each(ROLES)('%s', async (role) => {
    const s = role === 'Administrator' ? admin : role === 'User Manager' ? manager : await session(emailOf(role));
    const allowed = role === 'Administrator' || role === 'User Manager';
    const list = await send(s, users(s));
    expect(list.status).toBe(allowed ? 200 : 403);
    const made = await send(s, users(s), 'POST', fresh([asMember(foodBank)]));
    expect(made.status).toBe(allowed ? 201 : 403);
    const target = await authOf('no.roles@demo.tributary.test');
    expect((await send(s, one(s, target))).status).toBe(allowed ? 200 : 403);
    expect((await send(s, one(s, target, '/password-reset'), 'POST')).status).toBe(allowed ? 200 : 403);
    if (!allowed) {
      expect((await send(s, one(s, target), 'PUT', fresh([asMember(foodBank)]))).status).toBe(403);
      expect((await send(s, one(s, target, '/deactivate'), 'POST')).status).toBe(403);
      expect((await send(s, one(s, target), 'DELETE')).status).toBe(403);
      expect((await send(s, one(s, target, '/tenants'), 'DELETE')).status).toBe(403);
    }
  });
});

describe('the list', () => {
  it('searches name and e-mail, pages by full name and marks internal staff', async () => {
    await create(admin, { fullName: 'Ingrid Insider', email: `ingrid@${INTERNAL}`, memberships: [asMember(foodBank)] });
    const found = await (await send(admin, `${users(admin)}?q=INSIDER`)).json() as { users: UserOut[]; total: number };
    expect(found.total).toBe(1);
    expect(found.users[0]).toMatchObject({ email: `ingrid@${INTERNAL}`, internal: true, roles: ['Data Processor'] });
    const byMail = await (await send(admin, `${users(admin)}?q=uma`)).json() as { users: UserOut[] };
    expect(byMail.users.map((u) => u.email)).toEqual([emailOf('User Manager')]);
    expect(byMail.users[0]!.internal).toBe(false);
    // % and _ are text, not patterns
    expect(((await (await send(admin, `${users(admin)}?q=%25`)).json()) as { total: number }).total).toBe(0);

    const all = await (await send(admin, `${users(admin)}?pageSize=100`)).json() as { users: UserOut[]; total: number };
    expect(all.users).toHaveLength(all.total);
    const p1 = await (await send(admin, `${users(admin)}?pageSize=3`)).json() as { users: UserOut[]; total: number; page: number };
    const p2 = await (await send(admin, `${users(admin)}?pageSize=3&page=2`)).json() as { users: UserOut[]; page: number };
    expect(p1).toMatchObject({ total: all.total, page: 1 });
    expect([...p1.users, ...p2.users].map((u) => u.email)).toEqual(all.users.slice(0, 6).map((u) => u.email));
    expect((await send(admin, `${users(admin)}?pageSize=101`)).status).toBe(400);
    expect((await send(admin, `${users(admin)}?page=0`)).status).toBe(400);
  });

  it('shows only the memberships of tenants the caller manages', async () => {
    const power = await authOf(emailOf('Power User'));
    const byAdmin = (await (await send(admin, one(admin, power))).json() as { user: UserOut }).user;
    expect(byAdmin.tenants.map((t) => t.tenantId).sort()).toEqual([foodBank, youthArts].sort());
    const byManager = (await (await send(manager, one(manager, power))).json() as { user: UserOut }).user;
    expect(byManager.tenants.map((t) => t.tenantId)).toEqual([foodBank]);
  });
});

describe('the user form\'s rules (SPEC.md section 5)', () => {
  const refused = async (body: unknown, message: string) => {
    const res = await send(admin, users(admin), 'POST', body);
    expect(res.status).toBe(400);
    const problem = await res.json() as { title: string; detail: string };
    expect(problem.title).toBe('bad-request');
    expect(problem.detail).toContain(message);
  };
  it('needs a full name of at least two words', () => refused(fresh([asMember(foodBank)], { fullName: 'Cher' }), USER_MESSAGES.fullName));
  it('needs a valid e-mail', () => refused(fresh([asMember(foodBank)], { email: 'not-an-address' }), USER_MESSAGES.email));
  it('needs at least 1 tenant', () => refused(fresh([]), USER_MESSAGES.tenants));
  it('needs at least 1 role per tenant', () => refused(fresh([asMember(foodBank), asMember(youthArts, [])]), USER_MESSAGES.roles));
  it('refuses View Only with another role', () => refused(fresh([asMember(foodBank, ['View Only', 'Data Processor'])]), USER_MESSAGES.viewOnly));
  it('refuses an expiry that is not a date', () => refused(fresh([asMember(foodBank, ['View Only'], 'soon')]), USER_MESSAGES.expiry));
  it('refuses a tenant twice', () => refused(fresh([asMember(foodBank), asMember(foodBank)]), USER_MESSAGES.duplicateTenant));
  it('refuses a full name holding a line break or another control character', async () => {
    for (const fullName of ['Ada\r\nLovelace', 'Ada\nBcc: eve@example.org', 'Ada\rLovelace', 'Ada\u0007 Lovelace', 'Ada \u202eecalevoL']) {
      await refused(fresh([asMember(foodBank)], { fullName }), USER_MESSAGES.fullNameCharacters);
    }
  });
  it('refuses an expiry PostgreSQL cannot store, or a day that is none', async () => {
    for (const expiry of ['0000-01-01', '2026-02-31', '2026-02-30T00:00:00Z', '0000-06-01T00:00:00Z', '10000-01-01']) {
      await refused(fresh([asMember(foodBank, ['View Only'], expiry)]), USER_MESSAGES.expiry);
    }
  });

  it('creates with roles per tenant and temporary access, and records the event', async () => {
    const until = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const made = await create(admin, fresh([asMember(foodBank, ['View Only'], until), asMember(youthArts, ['Formula Producer', 'Data Processor'])]));
    expect(made.tenants.find((t) => t.tenantId === foodBank)).toMatchObject({ roles: ['View Only'], accessExpiresOn: until });
    expect(made.tenants.find((t) => t.tenantId === youthArts)?.roles).toEqual(['Formula Producer', 'Data Processor']);
    expect(made.active).toBe(true);
    const events = await db.query('select tenant_id from activity_events where type = $1 and details->>\'user\' = $2', ['user.created', made.auth0Id]);
    expect(events.rows.map((r) => r.tenant_id).sort()).toEqual([foodBank, youthArts].sort());
  });

  it('refuses an e-mail already in use: "The user has not been created."', async () => {
    const res = await send(admin, users(admin), 'POST', fresh([asMember(foodBank)], { email: emailOf('View Only').toUpperCase() }));
    expect(res.status).toBe(409);
    const problem = await res.json() as { title: string };
    expect(problem.title).toBe('user-not-created');
    expect(MESSAGES.userNotCreated).toBe('The user has not been created.');
  });

  it('adds users only to tenants the caller manages', async () => {
    const res = await send(manager, users(manager), 'POST', fresh([asMember(foodBank), asMember(youthArts)]));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ title: 'no-tenant-access' });
  });
});

describe('changes', () => {
  it('updates name, e-mail and roles; a taken e-mail is "The user has not been updated."', async () => {
    const made = await create(manager, fresh([asMember(foodBank)]));
    const res = await send(manager, one(manager, made.auth0Id), 'PUT', { fullName: 'Renamed Person', email: 'renamed@example.org', memberships: [asMember(foodBank, ['Formula Producer'])] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: UserOut }).user).toMatchObject({ fullName: 'Renamed Person', email: 'renamed@example.org', roles: ['Formula Producer'] });
    const taken = await send(manager, one(manager, made.auth0Id), 'PUT', { fullName: 'Renamed Person', email: emailOf('Administrator'), memberships: [asMember(foodBank)] });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ title: 'user-not-updated' });
    const events = await db.query('select 1 from activity_events where type = $1 and details->>\'user\' = $2', ['user.updated', made.auth0Id]);
    expect(events.rowCount).toBe(1);
  });

  it('keeps the memberships of tenants the caller does not manage', async () => {
    const power = await authOf(emailOf('Power User'));
    const res = await send(manager, one(manager, power), 'PUT', { fullName: 'Pat Power', email: emailOf('Power User'), memberships: [asMember(foodBank, ['Power User'])] });
    expect(res.status).toBe(200);
    const rows = await db.query('select tenant_id, roles from memberships m join users u on u.id = m.user_id where u.auth0_id = $1', [power]);
    expect(rows.rows.find((r) => r.tenant_id === youthArts)?.roles).toEqual(['View Only']);
  });

  it('a change of roles holds from the user\'s next request', async () => {
    const connections = await session(emailOf('Connection Manager'));
    expect((await send(connections, users(connections))).status).toBe(403);
    const auth0Id = connections.auth0Id;
    await send(admin, one(admin, auth0Id), 'PUT', { fullName: 'Connie Connections', email: connections.email, memberships: [asMember(foodBank, ['User Manager'])] });
    expect((await send(connections, users(connections))).status).toBe(200);
    await send(admin, one(admin, auth0Id), 'PUT', { fullName: 'Connie Connections', email: connections.email, memberships: [asMember(foodBank, ['Connection Manager'])] });
    expect((await send(connections, users(connections))).status).toBe(403);
  });

  it('deactivation refuses the user\'s next request, reactivation lets them back', async () => {
    const processor = await session(emailOf('Data Processor'));
    const me = `${AM}/user/organization/${processor.orgId}/user/active-tenant`;
    expect((await send(processor, me)).status).toBe(200);
    const off = await send(manager, one(manager, processor.auth0Id, '/deactivate'), 'POST');
    expect(((await off.json()) as { user: UserOut }).user.active).toBe(false);
    const refused = await send(processor, me);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'account-deactivated', detail: expect.stringContaining('deactivated') });
    const reset = await send(manager, one(manager, processor.auth0Id, '/password-reset'), 'POST');
    expect(reset.status).toBe(409);
    expect(await reset.json()).toMatchObject({ title: 'password-not-reset' });
    expect((await send(manager, one(manager, processor.auth0Id, '/reactivate'), 'POST')).status).toBe(200);
    expect((await send(processor, me)).status).toBe(200);
    const events = await db.query('select type from activity_events where details->>\'user\' = $1 order by at', [processor.auth0Id]);
    expect(events.rows.map((r) => r.type)).toEqual(['user.deactivated', 'user.reactivated']);
  });

  it('temporary access past its expiry refuses the next request with a clear message', async () => {
    const made = await create(admin, fresh([asMember(foodBank)]));
    const viewer = await session(emailOf('View Only'));
    await send(admin, one(admin, viewer.auth0Id), 'PUT', {
      fullName: 'Vic Viewer', email: viewer.email, memberships: [asMember(foodBank, ['View Only'], new Date(Date.now() - 60_000).toISOString())],
    });
    const res = await send(viewer, `${AM}/user/organization/${viewer.orgId}/user/active-tenant`);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ title: 'no-tenant-access', code: 'access-expired', detail: expect.stringMatching(/temporary access to this tenant ended on \d{4}-\d{2}-\d{2}/) });
    // still managed: the expired member is listed and can be given more time
    expect((await send(admin, one(admin, viewer.auth0Id))).status).toBe(200);
    await send(admin, one(admin, viewer.auth0Id), 'PUT', { fullName: 'Vic Viewer', email: viewer.email, memberships: [asMember(foodBank, ['View Only'])] });
    expect((await send(viewer, `${AM}/user/organization/${viewer.orgId}/user/active-tenant`)).status).toBe(200);
    expect(made.active).toBe(true);
  });

  it('account-wide changes need every tenant of the user to be managed by the caller', async () => {
    const power = await authOf(emailOf('Power User'));
    for (const [path, method, title] of [['/deactivate', 'POST', 'user-not-updated'], ['', 'DELETE', 'user-not-deleted'], ['/password-reset', 'POST', 'password-not-reset']] as const) {
      const res = await send(manager, one(manager, power, path), method);
      expect(res.status, path).toBe(409);
      expect(await res.json()).toMatchObject({ title, detail: 'The user also belongs to tenants you do not manage.' });
    }
    const yourself = await send(manager, one(manager, manager.auth0Id), 'DELETE');
    expect(yourself.status).toBe(409);
    expect(await yourself.json()).toMatchObject({ title: 'user-not-deleted' });
    expect((await send(manager, one(manager, manager.auth0Id, '/deactivate'), 'POST')).status).toBe(409);
  });

  it('removes a user from one tenant or from all the caller manages', async () => {
    const made = await create(admin, fresh([asMember(foodBank), asMember(youthArts)]));
    expect((await send(manager, one(manager, made.auth0Id, `/tenants/${youthArts}`), 'DELETE')).status).toBe(403);
    expect((await send(admin, one(admin, made.auth0Id, `/tenants/${youthArts}`), 'DELETE')).status).toBe(204);
    const left = (await (await send(admin, one(admin, made.auth0Id))).json() as { user: UserOut }).user;
    expect(left.tenants.map((t) => t.tenantId)).toEqual([foodBank]);
    expect((await send(admin, one(admin, made.auth0Id, `/tenants/${youthArts}`), 'DELETE')).status).toBe(404);
    const twice = await create(admin, fresh([asMember(foodBank), asMember(youthArts)]));
    expect((await send(admin, one(admin, twice.auth0Id, '/tenants'), 'DELETE')).status).toBe(204);
    const rows = await db.query('select 1 from memberships m join users u on u.id = m.user_id where u.auth0_id = $1', [twice.auth0Id]);
    expect(rows.rowCount).toBe(0);
    expect((await send(admin, one(admin, twice.auth0Id))).status).toBe(404);
    const events = await db.query('select 1 from activity_events where type = $1 and details->>\'user\' = $2', ['user.removed', twice.auth0Id]);
    expect(events.rowCount).toBe(2);
  });

  it('deletes a user, and the events keep their name', async () => {
    const made = await create(manager, fresh([asMember(foodBank)]));
    expect((await send(manager, one(manager, made.auth0Id), 'DELETE')).status).toBe(204);
    expect((await send(manager, one(manager, made.auth0Id))).status).toBe(404);
    const events = await db.query('select description from activity_events where type = $1 and details->>\'user\' = $2', ['user.deleted', made.auth0Id]);
    expect(events.rows[0]?.description).toContain(made.fullName);
  });

  it('resets a password with a one-time link that the server log carries', async () => {
    const made = await create(manager, fresh([asMember(foodBank)]));
    const res = await send(manager, one(manager, made.auth0Id, '/password-reset'), 'POST');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ delivery: 'server-log' });
    const stored = await db.query('select uid from oidc_payloads where kind = $1', ['PasswordReset']);
    const id = (await db.query<{ id: string }>('select id from users where auth0_id = $1', [made.auth0Id])).rows[0]!.id;
    expect(stored.rows.map((r) => r.uid)).toContain(id);
    // the token is never stored, so a guessed one finds nothing
    expect(await consumeResetToken(drizzle(db) as never, 'guessed')).toBeUndefined();
  });

  it('the link sets a password once, and the user signs in with it', async () => {
    const made = await create(manager, fresh([asMember(foodBank)]));
    const id = (await db.query<{ id: string }>('select id from users where auth0_id = $1', [made.auth0Id])).rows[0]!.id;
    const link = await createResetLink(drizzle(db) as never, id, base);
    const token = new URL(link).searchParams.get('token')!;
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
    const post = (password: string) => fetch(`${base}/reset-password`, { method: 'POST', body: new URLSearchParams({ token, password }) });
    expect((await post('short')).status).toBe(400);
    expect((await post('a-long-new-password')).status).toBe(200);
    expect((await post('another-long-password')).status).toBe(410);
    const s = await sessionFor(base, made.email, 'a-long-new-password');
    expect(s.auth0Id).toBe(made.auth0Id);
  });
});

describe('tenants never see each other\'s people', () => {
  it('a user of another tenant is not found, for every call', async () => {
    const elsewhere = await create(admin, fresh([asMember(youthArts)]));
    for (const [path, method, body] of [
      ['', 'GET'], ['', 'PUT', fresh([asMember(foodBank)])], ['/deactivate', 'POST'], ['/reactivate', 'POST'], ['', 'DELETE'],
      ['/tenants', 'DELETE'], ['/password-reset', 'POST'],
    ] as const) {
      const res = await send(manager, one(manager, elsewhere.auth0Id, path), method, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // nor by the administrator while their request names the other tenant's neighbour
    expect((await send(admin, one(admin, elsewhere.auth0Id))).status).toBe(404);
    const list = await (await send(manager, `${users(manager)}?pageSize=100`)).json() as { users: UserOut[] };
    expect(list.users.map((u) => u.auth0Id)).not.toContain(elsewhere.auth0Id);
  });
});
