/** User management (SPEC.md sections 5, 6 and 8): every rule and message, each role's reach, tenants kept apart. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { MESSAGES } from '../../src/domain/errors.ts';
import { ACCOUNT_DEACTIVATED_CODE, IDENTITY_ERRORS } from '../../src/domain/identity.ts';
import { ROLES } from '../../src/domain/roles.ts';
import { GRANT_MESSAGES, USER_MESSAGES } from '../../src/domain/users.ts';
import { DEMO_USERS } from '../../server/db/seed.ts';
import { consumeResetToken, createEmailConfirmationLink, createResetLink } from '../../server/identity/passwordReset.ts';
import { tokenRequest } from '../support/oidc.ts';
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

interface UserOut { auth0Id: string; fullName: string; email: string; pendingEmail?: string | null; roles: string[]; active: boolean; internal: boolean; tenants: { tenantId: string; roles: string[]; accessExpiresOn: string | null }[] }

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
    // a caller gives only roles they hold (User Manager is one they all have)
    const made = await send(s, users(s), 'POST', fresh([asMember(foodBank, ['User Manager'])]));
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
    const made = await create(admin, fresh([asMember(foodBank)]));
    const res = await send(admin, one(admin, made.auth0Id), 'PUT', { fullName: 'Renamed Person', email: 'renamed@example.org', memberships: [asMember(foodBank, ['Formula Producer'])] });
    expect(res.status).toBe(200);
    // the new address signs in once its owner confirms it (see 'a new sign-in e-mail')
    expect(((await res.json()) as { user: UserOut }).user).toMatchObject({ fullName: 'Renamed Person', email: made.email, pendingEmail: 'renamed@example.org', roles: ['Formula Producer'] });
    const taken = await send(admin, one(admin, made.auth0Id), 'PUT', { fullName: 'Renamed Person', email: emailOf('Administrator'), memberships: [asMember(foodBank, ['Formula Producer'])] });
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
    // the problem the app recognises by its code, and whose words it shows as it signs the user out
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(await refused.json()).toMatchObject({ code: ACCOUNT_DEACTIVATED_CODE, detail: IDENTITY_ERRORS['account-deactivated'] });
    const reset = await send(manager, one(manager, processor.auth0Id, '/password-reset'), 'POST');
    expect(reset.status).toBe(409);
    expect(await reset.json()).toMatchObject({ title: 'password-not-reset' });
    expect((await send(manager, one(manager, processor.auth0Id, '/reactivate'), 'POST')).status).toBe(200);
    // deactivation ended the sessions of the time before it: the user signs in again
    expect(await (await send(processor, me)).json()).toMatchObject({ status: 401, code: 'session-ended' });
    expect((await send(await session(emailOf('Data Processor')), me)).status).toBe(200);
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
    for (const [path, method, title] of [['/deactivate', 'POST', 'user-not-updated'], ['/password-reset', 'POST', 'password-not-reset']] as const) {
      const res = await send(manager, one(manager, power, path), method);
      expect(res.status, path).toBe(409);
      expect(await res.json()).toMatchObject({ title, detail: 'The user also belongs to tenants you do not manage.' });
    }
    // SPEC.md section 6 gives a user manager add, edit, deactivate and reactivate: deleting is an Administrator's
    expect((await send(manager, one(manager, power), 'DELETE')).status).toBe(403);
    const yourself = await send(admin, one(admin, admin.auth0Id), 'DELETE');
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
    const made = await create(manager, fresh([asMember(foodBank, ['User Manager'])]));
    expect((await send(manager, one(manager, made.auth0Id), 'DELETE')).status).toBe(403);
    expect((await send(admin, one(admin, made.auth0Id), 'DELETE')).status).toBe(204);
    expect((await send(manager, one(manager, made.auth0Id))).status).toBe(404);
    const events = await db.query('select description from activity_events where type = $1 and details->>\'user\' = $2', ['user.deleted', made.auth0Id]);
    expect(events.rows[0]?.description).toContain(made.fullName);
  });

  it('resets a password with a one-time link that the server log carries', async () => {
    const made = await create(manager, fresh([asMember(foodBank, ['User Manager'])]));
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
    const made = await create(manager, fresh([asMember(foodBank, ['User Manager'])]));
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
      ['', 'GET'], ['', 'PUT', fresh([asMember(foodBank, ['User Manager'])])], ['/deactivate', 'POST'], ['/reactivate', 'POST'],
      ['/tenants', 'DELETE'], ['/password-reset', 'POST'],
    ] as const) {
      const res = await send(manager, one(manager, elsewhere.auth0Id, path), method, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    // deleting is an Administrator's, who does not find them from this tenant either
    expect((await send(admin, one(admin, elsewhere.auth0Id), 'DELETE')).status).toBe(404);
    // nor by the administrator while their request names the other tenant's neighbour
    expect((await send(admin, one(admin, elsewhere.auth0Id))).status).toBe(404);
    const list = await (await send(manager, `${users(manager)}?pageSize=100`)).json() as { users: UserOut[] };
    expect(list.users.map((u) => u.auth0Id)).not.toContain(elsewhere.auth0Id);
  });
});

/** A user who signs in with the demo password, with these roles per tenant (made in the database, as a fixture). */
async function person(memberships: [tenantId: string, roles: string[]][]): Promise<Session> {
  const email = `holder${++n}@example.org`;
  const { rows: [row] } = await db.query<{ id: string }>(
    `insert into users (organization_id, auth0_id, email, full_name, password_hash)
     select organization_id, 'auth0|' || gen_random_uuid(), $1, $2, password_hash from users where email = $3
     returning id`, [email, `Holder Person${n}`, emailOf('Administrator')]);
  for (const [tenantId, roles] of memberships) await db.query('insert into memberships (user_id, tenant_id, roles) values ($1, $2, $3)', [row!.id, tenantId, roles]);
  return session(email, memberships[0]![0]);
}
const rolesIn = async (auth0Id: string, tenantId: string) => (await db.query<{ roles: string[] }>(
  'select roles from memberships m join users u on u.id = m.user_id where u.auth0_id = $1 and m.tenant_id = $2', [auth0Id, tenantId])).rows[0]?.roles;

describe('no role grants more than its holder has (SPEC.md section 6)', () => {
  const refusedWith = async (res: Response, detail: string) => {
    expect(res.status, await res.clone().text()).toBe(403);
    expect(await res.json()).toMatchObject({ title: 'forbidden', detail });
  };

  it('a user manager cannot make themself or anyone else an Administrator', async () => {
    const me = await send(manager, one(manager, manager.auth0Id), 'PUT', {
      fullName: 'Uma Manager', email: manager.email, memberships: [asMember(foodBank, ['User Manager', 'Administrator'])],
    });
    await refusedWith(me, GRANT_MESSAGES.self);
    expect(await rolesIn(manager.auth0Id, foodBank)).toEqual(['User Manager']);
    await refusedWith(await send(manager, users(manager), 'POST', fresh([asMember(foodBank, ['Administrator'])])), GRANT_MESSAGES.role('Administrator'));
    const colleague = await create(admin, fresh([asMember(foodBank, ['User Manager'])]));
    await refusedWith(await send(manager, one(manager, colleague.auth0Id), 'PUT', { fullName: colleague.fullName, email: colleague.email, memberships: [asMember(foodBank, ['Administrator'])] }),
      GRANT_MESSAGES.role('Administrator'));
    expect(await rolesIn(colleague.auth0Id, foodBank)).toEqual(['User Manager']);
  });

  it('gives only roles the caller holds in that tenant', async () => {
    await refusedWith(await send(manager, users(manager), 'POST', fresh([asMember(foodBank, ['Data Processor'])])), GRANT_MESSAGES.role('Data Processor'));
    // a user manager who is also a Data Processor can make one
    const processorManager = await person([[foodBank, ['User Manager', 'Data Processor']]]);
    const made = await create(processorManager, fresh([asMember(foodBank, ['Data Processor'])]));
    expect(made.roles).toEqual(['Data Processor']);
    await refusedWith(await send(processorManager, one(processorManager, made.auth0Id), 'PUT', { fullName: made.fullName, email: made.email, memberships: [asMember(foodBank, ['Power User'])] }),
      GRANT_MESSAGES.role('Power User'));
    // taking a role away is a user manager's to do
    const fewer = await send(manager, one(manager, made.auth0Id), 'PUT', { fullName: made.fullName, email: made.email, memberships: [asMember(foodBank, ['User Manager'])] });
    expect(fewer.status).toBe(200);
    // more time for a membership gives its roles again
    const until = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const temporary = await create(processorManager, fresh([asMember(foodBank, ['Data Processor'], until)]));
    await refusedWith(await send(manager, one(manager, temporary.auth0Id), 'PUT', { fullName: temporary.fullName, email: temporary.email, memberships: [asMember(foodBank, ['Data Processor'])] }),
      GRANT_MESSAGES.extend('Data Processor'));
    const sooner = new Date(Date.now() + 86_400_000).toISOString();
    expect((await send(manager, one(manager, temporary.auth0Id), 'PUT', { fullName: temporary.fullName, email: temporary.email, memberships: [asMember(foodBank, ['Data Processor'], sooner)] })).status).toBe(200);
  });

  it('only an Administrator changes an Administrator, who keeps their access', async () => {
    const chief = await create(admin, fresh([asMember(foodBank, ['Administrator'])]));
    await refusedWith(await send(manager, one(manager, chief.auth0Id), 'PUT', { fullName: chief.fullName, email: chief.email, memberships: [asMember(foodBank, ['User Manager'])] }),
      GRANT_MESSAGES.administrator);
    await refusedWith(await send(manager, one(manager, chief.auth0Id, `/tenants/${foodBank}`), 'DELETE'), GRANT_MESSAGES.administrator);
    await refusedWith(await send(manager, one(manager, chief.auth0Id, '/tenants'), 'DELETE'), GRANT_MESSAGES.administrator);
    await refusedWith(await send(manager, one(manager, chief.auth0Id, '/deactivate'), 'POST'), GRANT_MESSAGES.administratorAccount);
    await refusedWith(await send(manager, one(manager, chief.auth0Id, '/password-reset'), 'POST'), GRANT_MESSAGES.administratorAccount);
    await refusedWith(await send(manager, one(manager, chief.auth0Id), 'PUT', { fullName: 'Someone Else', email: chief.email, memberships: [asMember(foodBank, ['Administrator'])] }),
      GRANT_MESSAGES.administratorAccount);
    expect(await rolesIn(chief.auth0Id, foodBank)).toEqual(['Administrator']);
    const row = (await db.query('select full_name, deactivated_on from users where auth0_id = $1', [chief.auth0Id])).rows[0];
    expect(row).toMatchObject({ full_name: chief.fullName, deactivated_on: null });
    // an Administrator may
    expect((await send(admin, one(admin, chief.auth0Id), 'PUT', { fullName: chief.fullName, email: chief.email, memberships: [asMember(foodBank, ['User Manager'])] })).status).toBe(200);
  });

  it('nobody changes their own memberships, an Administrator neither', async () => {
    await refusedWith(await send(admin, one(admin, admin.auth0Id), 'PUT', {
      fullName: 'Ada Administrator', email: admin.email, memberships: [asMember(foodBank, ['Administrator', 'Data Processor'])],
    }), GRANT_MESSAGES.self);
    await refusedWith(await send(manager, one(manager, manager.auth0Id, `/tenants/${foodBank}`), 'DELETE'), GRANT_MESSAGES.self);
    expect(await rolesIn(manager.auth0Id, foodBank)).toEqual(['User Manager']);
  });
});

describe('the sign-in e-mail and name are the account\'s', () => {
  it('a user manager of one of the user\'s tenants changes neither', async () => {
    const power = await authOf(emailOf('Power User'));
    for (const change of [{ fullName: 'Mallory Power', email: emailOf('Power User') }, { fullName: 'Pat Power', email: 'mallory@example.org' }]) {
      const res = await send(manager, one(manager, power), 'PUT', { ...change, memberships: [asMember(foodBank, ['Power User'])] });
      expect(res.status).toBe(409);
      expect(await res.json()).toMatchObject({ title: 'user-not-updated', detail: 'The user also belongs to tenants you do not manage.' });
    }
    const row = (await db.query('select full_name, email, pending_email from users where auth0_id = $1', [power])).rows[0];
    expect(row).toEqual({ full_name: 'Pat Power', email: emailOf('Power User'), pending_email: null });
  });

  it('nor the e-mail of a user with roles they cannot give, which would let them take the account over', async () => {
    const processor = await create(admin, fresh([asMember(foodBank, ['Data Processor'])]));
    const res = await send(manager, one(manager, processor.auth0Id), 'PUT', { fullName: processor.fullName, email: 'mallory@example.org', memberships: [asMember(foodBank, ['Data Processor'])] });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ detail: GRANT_MESSAGES.coverEmail('Data Processor') });
  });

  it('a new sign-in e-mail signs in once its owner confirms it, and the sessions before end', async () => {
    const made = await person([[foodBank, ['Data Processor']]]);
    const newEmail = `confirmed${n}@example.org`;
    const res = await send(admin, one(admin, made.auth0Id), 'PUT', { fullName: `Holder Person${n}`, email: newEmail, memberships: [asMember(foodBank, ['Data Processor'])] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: UserOut }).user).toMatchObject({ email: made.email, pendingEmail: newEmail });
    // not yet: the old address still signs in, the new one does not
    await expect(sessionFor(base, newEmail)).rejects.toThrow(/sign-in failed/);
    const me = `${AM}/user/organization/${made.orgId}/user/active-tenant`;
    expect((await send(made, me)).status).toBe(200);

    const id = (await db.query<{ id: string }>('select id from users where auth0_id = $1', [made.auth0Id])).rows[0]!.id;
    const stored = await db.query('select 1 from oidc_payloads where kind = $1 and uid = $2', ['EmailConfirmation', id]);
    expect(stored.rowCount).toBe(1);
    const link = await createEmailConfirmationLink(drizzle(db) as never, id, newEmail, base);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    const token = new URL(link).searchParams.get('token')!;
    const confirm = await fetch(`${base}/confirm-email`, { method: 'POST', body: new URLSearchParams({ token }) });
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain(newEmail);
    expect((await fetch(`${base}/confirm-email`, { method: 'POST', body: new URLSearchParams({ token }) })).status).toBe(410);

    expect((await send({ ...made, headers: { ...made.headers, userEmail: newEmail } }, me)).status).toBe(401);
    await expect(tokenRequest(base, { grant_type: 'refresh_token', client_id: 'tributary-app', refresh_token: made.tokens.refresh_token! })).rejects.toThrow(/invalid_grant/);
    const again = await session(newEmail);
    expect((await send(again, me)).status).toBe(200);
  });
});

describe('a password reset, deactivation or removal ends the user\'s sessions at once', () => {
  const me = (s: Session) => `${AM}/user/organization/${s.orgId}/user/active-tenant`;
  const refresh = (s: Session) => tokenRequest(base, { grant_type: 'refresh_token', client_id: 'tributary-app', refresh_token: s.tokens.refresh_token! });

  it.each([
    ['a password reset', (auth0Id: string) => send(admin, one(admin, auth0Id, '/password-reset'), 'POST')],
    ['removal from a tenant', (auth0Id: string) => send(admin, one(admin, auth0Id, `/tenants/${youthArts}`), 'DELETE')],
    ['deactivation', (auth0Id: string) => send(admin, one(admin, auth0Id, '/deactivate'), 'POST')],
  ] as const)('%s', async (_what, change) => {
    const victim = await person([[foodBank, ['Data Processor']], [youthArts, ['Data Processor']]]);
    const second = await session(victim.email);
    expect((await send(victim, me(victim))).status).toBe(200);
    const refreshed = await refresh(second);
    expect(refreshed.access_token).toBeTruthy();
    expect((await change(victim.auth0Id)).status).toBeLessThan(300);
    // the access token, and one refreshed from the same sign-in, are refused at once
    const old = await send(victim, me(victim));
    expect(old.status).toBe(_what === 'deactivation' ? 403 : 401);
    const viaRefreshed = await send({ ...second, headers: { ...second.headers, authorization: `Bearer ${refreshed.access_token}` } }, me(victim));
    expect(viaRefreshed.status).toBe(_what === 'deactivation' ? 403 : 401);
    // and no refresh token of before works any more
    await expect(refresh(victim)).rejects.toThrow(/invalid_grant/);
    await expect(tokenRequest(base, { grant_type: 'refresh_token', client_id: 'tributary-app', refresh_token: refreshed.refresh_token! })).rejects.toThrow(/invalid_grant/);
    const left = await db.query(`select kind from oidc_payloads where payload->>'accountId' = $1 and kind in ('Session', 'Grant', 'RefreshToken')`, [victim.auth0Id]);
    expect(left.rows).toEqual([]);
    if (_what !== 'deactivation') expect((await send(await session(victim.email), me(victim))).status).toBe(200);
  });
});

describe('another organisation\'s people are never told of', () => {
  let outsider: string;
  let otherOutsider: string;
  beforeAll(async () => {
    outsider = `someone${Date.now()}@elsewhere.example`;
    otherOutsider = `someone.else${Date.now()}@elsewhere.example`;
    const { rows: [org] } = await db.query<{ id: string }>("insert into organizations (name, subdomain) values ('Elsewhere', $1) returning id", [`elsewhere${Date.now()}`]);
    for (const email of [outsider, otherOutsider]) {
      await db.query("insert into users (organization_id, auth0_id, email, full_name) values ($1, 'auth0|' || gen_random_uuid(), $2, 'Olga Outsider')", [org!.id, email]);
    }
  });

  it('creating a user answers the same whether or not the e-mail is an account of another organisation', async () => {
    const answer = async (email: string) => {
      const res = await send(admin, users(admin), 'POST', { fullName: 'Same Answer', email, memberships: [asMember(foodBank)] });
      const body = await res.json() as { user: UserOut };
      return { status: res.status, user: { ...body.user, auth0Id: '-', email: body.user.email === email ? 'the address' : body.user.email } };
    };
    const fresh = await answer(`nobody${Date.now()}@nowhere.example`);
    const taken = await answer(outsider);
    expect(fresh.status).toBe(201);
    expect(taken).toEqual(fresh);
    // the account elsewhere keeps its address; the new user signs in only once the address is free
    expect((await db.query('select full_name from users where lower(email) = lower($1)', [outsider])).rows).toEqual([{ full_name: 'Olga Outsider' }]);
    // listed and found like anyone else
    const found = await (await send(admin, `${users(admin)}?q=${encodeURIComponent(outsider)}`)).json() as { users: UserOut[] };
    expect(found.users).toMatchObject([{ email: outsider, pendingEmail: null, active: true }]);
    // this organisation's own address is still said to be in use
    expect((await send(admin, users(admin), 'POST', { fullName: 'Same Answer', email: outsider, memberships: [asMember(foodBank)] })).status).toBe(409);
  });

  it('a password reset of such a user goes out as any other, and its link refuses the address while it is taken', async () => {
    const made = await create(admin, { fullName: 'Second Try', email: `x${outsider}`, memberships: [asMember(foodBank)] });
    await db.query('update users set email = null, pending_email = $2 where auth0_id = $1', [made.auth0Id, outsider]);
    const res = await send(admin, one(admin, made.auth0Id, '/password-reset'), 'POST');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ delivery: 'server-log' });
    const id = (await db.query<{ id: string }>('select id from users where auth0_id = $1', [made.auth0Id])).rows[0]!.id;
    const token = new URL(await createResetLink(drizzle(db) as never, id, base)).searchParams.get('token')!;
    const set = await fetch(`${base}/reset-password`, { method: 'POST', body: new URLSearchParams({ token, password: 'a-long-new-password' }) });
    expect(set.status).toBe(409);
    expect(await set.text()).toContain('already signs in to another Tributary account');
  });

  it('changing a user\'s e-mail to another organisation\'s address answers as any change, and its confirmation is refused', async () => {
    const made = await create(admin, fresh([asMember(foodBank)]));
    const res = await send(admin, one(admin, made.auth0Id), 'PUT', { fullName: made.fullName, email: otherOutsider, memberships: [asMember(foodBank)] });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: UserOut }).user).toMatchObject({ email: made.email, pendingEmail: otherOutsider });
    const id = (await db.query<{ id: string }>('select id from users where auth0_id = $1', [made.auth0Id])).rows[0]!.id;
    const token = new URL(await createEmailConfirmationLink(drizzle(db) as never, id, otherOutsider, base)).searchParams.get('token')!;
    const confirm = await fetch(`${base}/confirm-email`, { method: 'POST', body: new URLSearchParams({ token }) });
    expect(confirm.status).toBe(409);
    expect((await db.query('select email from users where id = $1', [id])).rows[0]).toEqual({ email: made.email });
  });
});
