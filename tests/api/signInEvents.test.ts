/**
 * The audit trail through /events-reporter/v1: sign-ins and refused sign-ins at the embedded
 * provider (each in every tenant of the user, the user as actor), refusals of a policy check, and
 * every change a user manager makes to a user.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_DEACTIVATED } from '../../server/db/accounts.ts';
import { DEMO_PASSWORD } from '../../server/db/seed.ts';
import { WRONG_CREDENTIALS } from '../../server/identity/provider.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { openSignInPage, postSignIn } from '../support/oidc.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const E = '/events-reporter/v1/events';
const AM = '/account-management/v1';
const FREE_FAILURES = 3;
let server: TestServer;
let base: string;
let db: pg.Client;
let admin: Session;
let adminUserId: string;
let foodBank: string;
let youthArts: string;
const since = new Date(Date.now() - 60_000).toISOString();

interface EventOut {
  id: string; at: string; actor: { userId: string | null; name: string }; type: string; description: string;
  details: Record<string, unknown>; correlationId: string;
}

/** The tenant's events of these filters, as the activity history screen reads them (an Administrator of both tenants). */
async function eventsIn(tenantId: string, filters: Record<string, string>): Promise<EventOut[]> {
  const q = new URLSearchParams({ from: since, to: new Date(Date.now() + 3_600_000).toISOString(), limit: '200', ...filters });
  const res = await call(base, `${E}?${q}`, { headers: { ...admin.headers, tenantId } });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { events: EventOut[] }).events;
}

interface Person { id: string; auth0Id: string; email: string; fullName: string }
let made = 0;
/** A user who signs in with the demo password, member of these tenants. */
async function person(fullName: string, memberships: { tenantId: string; roles: string[]; expires?: Date }[]): Promise<Person> {
  const email = `signin.${++made}.${Date.now()}@example.org`;
  const { rows: [row] } = await db.query<{ id: string; auth0_id: string }>(
    `insert into users (organization_id, auth0_id, email, full_name, password_hash)
     select organization_id, 'auth0|' || gen_random_uuid(), $1, $2, password_hash from users where email = 'administrator@demo.tributary.test'
     returning id, auth0_id`, [email, fullName]);
  for (const m of memberships) {
    await db.query('insert into memberships (user_id, tenant_id, roles, access_expires_on) values ($1, $2, $3, $4)', [row!.id, m.tenantId, m.roles, m.expires ?? null]);
  }
  return { id: row!.id, auth0Id: row!.auth0_id, email, fullName };
}

const alertOf = (html: string) => /<p role="alert"[^>]*>([^<]*)<\/p>/.exec(html)?.[1]?.replaceAll('&#39;', '\'');
async function attempt(email: string, password: string) {
  return postSignIn(await openSignInPage({ baseUrl: base }), { email, password });
}

beforeAll(async () => {
  server = await startTestServer({ env: { SIGNIN_FREE_FAILURES: String(FREE_FAILURES), SIGNIN_FIRST_DELAY_SECONDS: '600' } });
  base = server.url;
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  const tenants = (await db.query<{ id: string; name: string }>('select id, name from tenants')).rows;
  foodBank = tenants.find((t) => t.name === 'Riverside Food Bank')!.id;
  youthArts = tenants.find((t) => t.name === 'Riverside Youth Arts')!.id;
  admin = await sessionFor(base, 'administrator@demo.tributary.test');
  admin = { ...admin, headers: { ...admin.headers, tenantId: foodBank } };
  adminUserId = (await db.query<{ id: string }>('select id from users where email = $1', [admin.email])).rows[0]!.id;
});
afterAll(async () => {
  await db?.end();
  await server?.close();
});

describe('sign-ins (embedded provider)', () => {
  it('a sign-in is an event in every tenant of the user, the user its actor', async () => {
    const sam = await person('Sam Signin', [{ tenantId: foodBank, roles: ['Data Processor'] }, { tenantId: youthArts, roles: ['View Only'] }]);
    await sessionFor(base, sam.email);
    for (const tenantId of [foodBank, youthArts]) {
      const events = await eventsIn(tenantId, { type: 'signin.succeeded', actor: sam.id });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        actor: { userId: sam.id, name: 'Sam Signin' }, description: 'Sam Signin signed in',
        details: { auth0Id: sam.auth0Id, email: sam.email },
      });
      expect(events[0]!.correlationId).toBeTruthy();
    }
    // one sign-in, one correlation id across the tenants
    const [a] = await eventsIn(foodBank, { type: 'signin.succeeded', actor: sam.id });
    const [b] = await eventsIn(youthArts, { type: 'signin.succeeded', actor: sam.id });
    expect(a!.correlationId).toBe(b!.correlationId);
  });

  it('a wrong password is recorded for the user it names; an unknown e-mail nowhere', async () => {
    const wes = await person('Wes Wrong', [{ tenantId: foodBank, roles: ['View Only'] }, { tenantId: youthArts, roles: ['View Only'] }]);
    const wrong = await attempt(wes.email, 'not the password');
    expect(wrong.status).toBe(401);
    expect(alertOf(wrong.body)).toBe(WRONG_CREDENTIALS);
    for (const tenantId of [foodBank, youthArts]) {
      expect(await eventsIn(tenantId, { type: 'signin.refused', actor: wes.id })).toMatchObject([
        { actor: { userId: wes.id, name: 'Wes Wrong' }, description: 'Wes Wrong was refused sign-in: wrong password', details: { reason: 'wrong-password', email: wes.email } },
      ]);
    }
    const unknown = await attempt('nobody.here@example.org', DEMO_PASSWORD);
    expect(unknown.status).toBe(401);
    expect((await db.query("select 1 from activity_events where details->>'email' = 'nobody.here@example.org'")).rowCount).toBe(0);
  });

  it('too many attempts: refused, and recorded once while the e-mail waits', async () => {
    const tia = await person('Tia Throttled', [{ tenantId: foodBank, roles: ['View Only'] }]);
    for (let i = 0; i < FREE_FAILURES; i++) expect((await attempt(tia.email, `guess-${i}`)).status).toBe(401);
    const refused = [await attempt(tia.email, DEMO_PASSWORD), await attempt(tia.email, 'guess-again'), await attempt(tia.email, DEMO_PASSWORD)];
    expect(refused.map((r) => r.status)).toEqual([429, 429, 429]);
    const events = await eventsIn(foodBank, { type: 'signin.refused', actor: tia.id });
    expect(events.map((e) => e.details.reason)).toEqual(['throttled', ...Array(FREE_FAILURES).fill('wrong-password')]);
    expect(events[0]!.description).toBe('Tia Throttled was refused sign-in: too many attempts');
  });

  it('a deactivated account is refused with its reason, said only to whoever knows the password', async () => {
    const dee = await person('Dee Deactivated', [{ tenantId: foodBank, roles: ['Data Processor'] }, { tenantId: youthArts, roles: ['Data Processor'] }]);
    const off = await call(base, `${AM}/user/organization/${admin.orgId}/users/${encodeURIComponent(dee.auth0Id)}/deactivate`, { method: 'POST', headers: admin.headers });
    expect(off.status).toBe(200);

    const refused = await attempt(dee.email, DEMO_PASSWORD);
    expect(refused.status).toBe(401);
    expect(alertOf(refused.body)).toBe(ACCOUNT_DEACTIVATED);
    const guessed = await attempt(dee.email, 'a guess');
    expect(alertOf(guessed.body)).toBe(WRONG_CREDENTIALS);

    for (const tenantId of [foodBank, youthArts]) {
      const events = await eventsIn(tenantId, { type: 'signin.refused', actor: dee.id });
      expect(events.map((e) => e.details.reason)).toEqual(['wrong-password', 'account-deactivated']);
      expect(events[1]!.description).toBe('Dee Deactivated was refused sign-in: the account is deactivated');
    }
    expect(await eventsIn(foodBank, { type: 'signin.succeeded', actor: dee.id })).toEqual([]);
  });

  it('temporary access that has ended in every tenant is refused; ended in one, the user signs in', async () => {
    const day = 86_400_000;
    const yesterday = new Date(Date.now() - day);
    const ed = await person('Ed Expired', [
      { tenantId: foodBank, roles: ['View Only'], expires: yesterday }, { tenantId: youthArts, roles: ['View Only'], expires: new Date(Date.now() - 3 * day) },
    ]);
    const refused = await attempt(ed.email, DEMO_PASSWORD);
    expect(refused.status).toBe(403);
    expect(alertOf(refused.body)).toBe(`Your temporary access to Tributary ended on ${yesterday.toISOString().slice(0, 10)}. Please contact your administrator.`);
    for (const tenantId of [foodBank, youthArts]) {
      expect(await eventsIn(tenantId, { type: 'signin.refused', actor: ed.id })).toMatchObject([
        { description: 'Ed Expired was refused sign-in: temporary access has ended', details: { reason: 'access-expired' } },
      ]);
    }

    const half = await person('Hal Halfway', [
      { tenantId: foodBank, roles: ['View Only'], expires: yesterday }, { tenantId: youthArts, roles: ['View Only'], expires: new Date(Date.now() + day) },
    ]);
    await sessionFor(base, half.email);
    expect(await eventsIn(youthArts, { type: 'signin.succeeded', actor: half.id })).toHaveLength(1);
  });
});

describe('permission refusals', () => {
  it('a 403 of a policy check names the endpoint and the missing policy, in the tenant the request named', async () => {
    const viewer = await sessionFor(base, 'view.only@demo.tributary.test');
    const viewerId = (await db.query<{ id: string }>('select id from users where email = $1', [viewer.email])).rows[0]!.id;
    const res = await call(base, '/web-api/v1/formulas', { method: 'POST', headers: { ...viewer.headers, tenantId: foodBank }, body: { name: 'Not mine to make' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ title: 'forbidden', detail: 'You need formula create permission.' });
    const events = await eventsIn(foodBank, { type: 'permission.refused', actor: viewerId });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      actor: { userId: viewerId, name: 'Vic Viewer' },
      description: 'Vic Viewer was refused POST /web-api/v1/formulas: it needs formula create permission',
      details: { endpoint: 'POST /web-api/v1/formulas', path: '/web-api/v1/formulas', policy: { resource: 'formula', action: 'create' }, roles: ['View Only'] },
      correlationId: res.headers.get('x-correlation-id'),
    });

    // Pat is a Power User at the Food Bank and View Only at Youth Arts: refused in Youth Arts, recorded there only
    const pat = await sessionFor(base, 'power.user@demo.tributary.test');
    const patId = (await db.query<{ id: string }>('select id from users where email = $1', [pat.email])).rows[0]!.id;
    const id = (await db.query<{ id: string }>('select id from data_sources where tenant_id = $1 limit 1', [youthArts])).rows[0]!.id;
    const there = await call(base, `/integrations/v1/data-sources/${id}`, { method: 'DELETE', headers: { ...pat.headers, tenantId: youthArts } });
    expect(there.status).toBe(403);
    expect(await eventsIn(youthArts, { type: 'permission.refused', actor: patId })).toMatchObject([
      { details: { endpoint: 'DELETE /integrations/v1/data-sources/:id', path: `/integrations/v1/data-sources/${id}`, policy: { resource: 'datasource', action: 'delete' } } },
    ]);
    expect(await eventsIn(foodBank, { type: 'permission.refused', actor: patId })).toEqual([]);

    // allowed calls record nothing
    expect((await call(base, '/web-api/v1/formulas', { headers: { ...viewer.headers, tenantId: foodBank } })).status).toBe(200);
    expect(await eventsIn(foodBank, { type: 'permission.refused', actor: viewerId })).toHaveLength(1);
  });

  it('a refusal a service decides (no editing permission on records) is recorded too, with its reason', async () => {
    const viewer = await sessionFor(base, 'view.only@demo.tributary.test');
    const viewerId = (await db.query<{ id: string }>('select id from users where email = $1', [viewer.email])).rows[0]!.id;
    const formula = crypto.randomUUID();
    const res = await call(base, `/web-api/v1/records/${formula}/actions/ready`, {
      method: 'POST', headers: { ...viewer.headers, tenantId: foodBank }, body: { selection: { kind: 'ids', ids: [crypto.randomUUID()] } },
    });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ title: 'no-edit-permission', detail: 'You need records edit permission.' });
    const events = await eventsIn(foodBank, { type: 'permission.refused', actor: viewerId });
    expect(events.find((e) => e.correlationId === res.headers.get('x-correlation-id'))).toMatchObject({
      description: 'Vic Viewer was refused POST /web-api/v1/records/:formulaId/actions/ready: You need records edit permission.',
      details: { endpoint: 'POST /web-api/v1/records/:formulaId/actions/ready', reason: 'You need records edit permission.', roles: ['View Only'] },
    });
  });

  it('a failure to record the refusal leaves the answer as it was', async () => {
    const viewer = await sessionFor(base, 'view.only@demo.tributary.test');
    const headers = { ...viewer.headers, tenantId: foodBank };
    await db.query(`create or replace function refuse_refusals() returns trigger language plpgsql as $$
      begin if new.type = 'permission.refused' then raise exception 'no room for refusals'; end if; return new; end $$`);
    await db.query('create trigger refuse_refusals before insert on activity_events for each row execute function refuse_refusals()');
    try {
      const res = await call(base, '/web-api/v1/formulas', { method: 'POST', headers, body: { name: 'Still not mine' } });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(await res.json()).toMatchObject({ title: 'forbidden', status: 403, detail: 'You need formula create permission.' });
      expect((await db.query("select 1 from activity_events where type = 'permission.refused' and correlation_id = $1", [res.headers.get('x-correlation-id')])).rowCount).toBe(0);
    } finally {
      await db.query('drop trigger refuse_refusals on activity_events');
      await db.query('drop function refuse_refusals()');
    }
  });
});

describe('changes to users', () => {
  it('each change is an event in every tenant it touches, the user manager its actor', async () => {
    const users = `${AM}/user/organization/${admin.orgId}/users`;
    const send = (path: string, method: string, body?: unknown) => call(base, path, { method, headers: admin.headers, body });
    const body = (fullName: string, roles: string[]) => ({
      fullName, email: 'quinn.changes@example.org',
      memberships: [{ tenantId: foodBank, roles, accessExpiresOn: null }, { tenantId: youthArts, roles, accessExpiresOn: null }],
    });
    const created = await send(users, 'POST', body('Quinn Changes', ['View Only']));
    expect(created.status).toBe(201);
    const { auth0Id } = ((await created.json()) as { user: { auth0Id: string } }).user;
    const one = `${users}/${encodeURIComponent(auth0Id)}`;
    expect((await send(one, 'PUT', body('Quinn Changes', ['Data Processor']))).status).toBe(200);
    expect((await send(`${one}/deactivate`, 'POST')).status).toBe(200);
    expect((await send(`${one}/reactivate`, 'POST')).status).toBe(200);
    expect((await send(`${one}/password-reset`, 'POST')).status).toBe(200);
    expect((await send(`${one}/tenants/${youthArts}`, 'DELETE')).status).toBe(204);
    expect((await send(one, 'DELETE')).status).toBe(204);

    const types = async (tenantId: string) => (await eventsIn(tenantId, { actor: adminUserId, q: 'Quinn Changes' }))
      .filter((e) => e.details.user === auth0Id).map((e) => e.type).reverse();
    const before = ['user.created', 'user.updated', 'user.deactivated', 'user.reactivated', 'user.password.reset', 'user.removed'];
    expect(await types(foodBank)).toEqual([...before.slice(0, -1), 'user.deleted']);
    expect(await types(youthArts)).toEqual(before);
  });
});
