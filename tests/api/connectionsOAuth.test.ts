/**
 * Connect with the vendor (OAuth 2.0 authorization code with PKCE, src/domain/connectors/oauth.ts)
 * against a local authorization server (tests/support/vendors/oauthServer.ts), reached through
 * CONNECTOR_BASE_URL_<SYSTEM>: the consent URL, the vendor's redirect through
 * PUBLIC_URL/integrations/oauth/callback to the Connections screen, the completion by the user who
 * started, the refresh token sealed, and every way it can fail said in words.
 */
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { baseUrlVariable } from '../../server/connectors/vendorHttp.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { OAUTH_APPS, startOAuthServer, type OAuthServer } from '../support/vendors/oauthServer.ts';

let server: TestServer;
let fake: OAuthServer;
let db: pg.Pool;
let admin: TenantSession;
let powerUser: TenantSession;
let viewer: TenantSession;
const ENV = ['renxt', 'fenxt', 'salesforce'].map((s) => baseUrlVariable(s as 'renxt')).concat(['OAUTH_CLIENT_ID_FENXT', 'OAUTH_CLIENT_SECRET_FENXT']);
const savedEnv = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));

beforeAll(async () => {
  [server, fake] = await Promise.all([startTestServer(), startOAuthServer()]);
  for (const system of ['renxt', 'fenxt', 'salesforce'] as const) process.env[baseUrlVariable(system)] = `${fake.url}/${system}`;
  db = new pg.Pool({ connectionString: server.databaseUrl, max: 1 });
  [admin, powerUser, viewer] = await Promise.all(['administrator', 'power.user', 'view.only'].map((u) => tenantSession(server.url, `${u}@demo.tributary.test`))) as [TenantSession, TenantSession, TenantSession];
});
afterAll(async () => {
  for (const [k, v] of Object.entries(savedEnv)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  await db?.end();
  await server?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.consent = 'grant';
  fake.tokenFailsWith = null;
  delete process.env.OAUTH_CLIENT_ID_FENXT;
  delete process.env.OAUTH_CLIENT_SECRET_FENXT;
});

const CALLBACK = () => `${server.url.replace('127.0.0.1', 'localhost')}/integrations/oauth/callback`;
let serial = 0;

async function createSource(session: TenantSession, system: string, settings: Record<string, string>, headers = session.headers) {
  const res = await integrations(server.url, headers)('/data-sources', { method: 'POST', body: { system, displayName: `OAuth ${system} ${++serial}`, settings } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json() as { id: string }).id;
}
const renxt = (session = admin, headers = session.headers) => createSource(session, 'renxt', { ...OAUTH_APPS.renxt, subscriptionKey: 'sky-sub-key' }, headers);

async function start(session: TenantSession, id: string, headers = session.headers) {
  return integrations(server.url, headers)(`/data-sources/${id}/oauth/authorize`, { method: 'POST' });
}

/** The browser's journey: the consent page (the fake answers at once), then our callback, which sends it on to the Connections screen. */
async function throughConsent(authorizeUrl: string): Promise<URLSearchParams> {
  const atVendor = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(atVendor.status).toBe(302);
  const back = new URL(atVendor.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK());
  const atCallback = await fetch(`${server.url}${back.pathname}${back.search}`, { redirect: 'manual' });
  expect(atCallback.status).toBe(302);
  const screen = new URL(atCallback.headers.get('location')!, server.url);
  expect(screen.pathname).toBe('/connections');
  return screen.searchParams;
}

const answerOf = (q: URLSearchParams) => ({
  state: q.get('oauthState')!, ...(q.get('oauthCode') ? { code: q.get('oauthCode')! } : {}), ...(q.get('oauthError') ? { error: q.get('oauthError')! } : {}),
});

async function complete(session: TenantSession, answer: Record<string, string>, headers = session.headers) {
  return integrations(server.url, headers)('/oauth/complete', { method: 'POST', body: answer });
}

async function connect(session: TenantSession, id: string) {
  const res = await start(session, id);
  expect(res.status, await res.clone().text()).toBe(200);
  return answerOf(await throughConsent((await res.json() as { authorizeUrl: string }).authorizeUrl));
}

const viewOf = async (id: string, session = admin) => (await integrations(server.url, session.headers)(`/data-sources/${id}`)).json() as Promise<{ settings: Record<string, unknown> }>;

describe("Connect to Raiser's Edge NXT", () => {
  it('sends the user to the consent page with a signed state and a PKCE challenge, and saves the refresh token sealed', async () => {
    const id = await renxt();
    const res = await start(admin, id);
    expect(res.status).toBe(200);
    const url = new URL((await res.json() as { authorizeUrl: string }).authorizeUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/renxt/oauth/authorize`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code', client_id: OAUTH_APPS.renxt.clientId, redirect_uri: CALLBACK(), code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    // SKY API grants the scopes the application is registered for
    expect(url.searchParams.has('scope')).toBe(false);

    const answer = answerOf(await throughConsent(url.toString()));
    expect(answer.state).toBe(url.searchParams.get('state'));
    const done = await complete(admin, answer);
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await done.json()).toEqual({ dataSourceId: id, detail: "Connected to Raiser's Edge NXT (Riverside Production)." });

    // the exchange: HTTP Basic application credentials, the same redirect_uri, the verifier of the challenge (the fake checks it)
    const exchange = fake.tokenRequests.at(-1)!;
    expect(exchange.authorization).toBe(`Basic ${Buffer.from(`${OAUTH_APPS.renxt.clientId}:${OAUTH_APPS.renxt.clientSecret}`).toString('base64')}`);
    expect(exchange.form).toMatchObject({ grant_type: 'authorization_code', code: answer.code, redirect_uri: CALLBACK() });
    expect(exchange.form.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);

    expect((await viewOf(id)).settings.refreshToken).toEqual({ saved: true });
    const token = fake.issuedRefreshTokens.at(-1)!;
    const { rows } = await db.query<{ secret_ciphertext: Buffer }>('select secret_ciphertext from data_sources where id = $1', [id]);
    expect(rows[0]!.secret_ciphertext.includes(Buffer.from(token))).toBe(false);
    // the activity history says who connected what
    const events = await db.query<{ description: string }>("select description from activity_events where type = 'datasource.connected' and details->>'dataSourceId' = $1", [id]);
    expect(events.rows.map((r) => r.description)).toEqual([`Connected the data source OAuth renxt ${serial} to Raiser's Edge NXT`]);
  });

  it('completes once: the same answer again says the attempt was already used', async () => {
    const id = await renxt();
    const answer = await connect(admin, id);
    expect((await complete(admin, answer)).status).toBe(200);
    const again = await complete(admin, answer);
    expect(again.status).toBe(422);
    expect(await again.json()).toMatchObject({
      title: 'oauth-not-connected', code: 'state-used', dataSourceId: id,
      detail: 'This connection attempt was already completed once. Connect again if you need to.',
    });
  });

  it('says in words that the user declined at the consent page, and connects nothing', async () => {
    const id = await renxt();
    fake.consent = 'deny';
    const answer = await connect(admin, id);
    expect(answer).toEqual({ state: expect.any(String), error: 'access_denied' });
    const res = await complete(admin, answer);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      code: 'access-denied', dataSourceId: id,
      detail: "You declined to give Tributary access at Raiser's Edge NXT, so nothing was connected. Connect again to give access.",
    });
    expect((await viewOf(id)).settings.refreshToken).toBeUndefined();
  });

  it('says an attempt expired when the vendor answered too late', async () => {
    const id = await renxt();
    const answer = await connect(admin, id);
    await db.query("update oauth_states set expires_on = now() - interval '1 second' where id = $1", [answer.state.split('.')[0]]);
    const res = await complete(admin, answer);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'state-expired', dataSourceId: id, detail: "This connection attempt expired before Raiser's Edge NXT answered. Connect again." });
    expect((await viewOf(id)).settings.refreshToken).toBeUndefined();
  });

  it('says why the exchange failed: the vendor down, or the application not accepted', async () => {
    const id = await renxt();
    fake.tokenFailsWith = 503;
    let res = await complete(admin, await connect(admin, id));
    expect(await res.json()).toMatchObject({
      code: 'exchange-failed', dataSourceId: id,
      detail: "Raiser's Edge NXT did not exchange the authorization for tokens: it answered with a server error (HTTP 503); try again later. Connect again.",
    });
    fake.tokenFailsWith = null;
    const wrongSecret = await createSource(admin, 'renxt', { clientId: OAUTH_APPS.renxt.clientId, clientSecret: 'not-the-secret', subscriptionKey: 'k' });
    res = await complete(admin, await connect(admin, wrongSecret));
    expect(await res.json()).toMatchObject({ code: 'exchange-failed', detail: expect.stringContaining("did not accept the application's ID and secret (HTTP 401)") });
  });

  it('refuses a state whose signature does not hold, without spending the real one', async () => {
    const id = await renxt();
    const answer = await connect(admin, id);
    const [attempt, sig] = answer.state.split('.') as [string, string];
    const forged = { ...answer, state: `${attempt}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}` };
    const res = await complete(admin, forged);
    expect(res.status).toBe(422);
    const body = await res.json() as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'state-invalid' });
    expect(body.dataSourceId).toBeUndefined();
    expect((await complete(admin, answer)).status).toBe(200);
  });
});

describe('before connecting', () => {
  it("a connection test says to use Connect, and calls nobody", async () => {
    const id = await renxt();
    const before = fake.tokenRequests.length;
    const res = await integrations(server.url, admin.headers)(`/data-sources/${id}/test`, { method: 'POST' });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ title: 'connection-failed', detail: "Not connected yet: use Connect to Raiser's Edge NXT." });
    expect(fake.tokenRequests.length).toBe(before);
  });
});

describe('bound to the user, the tenant and the data source', () => {
  it("does not complete a tenant's attempt in another tenant, which keeps nothing of it", async () => {
    const [tenantA, tenantB] = admin.tenants.map((t) => t.tenantId) as [string, string];
    const inA = await renxt(admin, admin.withTenant(tenantA));
    const inB = await renxt(admin, admin.withTenant(tenantB));
    const answer = await connect(admin, inA);
    const res = await complete(admin, answer, admin.withTenant(tenantB));
    expect(res.status).toBe(422);
    const body = await res.json() as Record<string, unknown>;
    expect(body).toMatchObject({ code: 'state-invalid', detail: expect.stringContaining('not valid here') });
    expect(body.dataSourceId).toBeUndefined();
    expect((await viewOf(inB, { ...admin, headers: admin.withTenant(tenantB) })).settings.refreshToken).toBeUndefined();
    // the attempt still belongs to tenant A, where it completes
    expect((await complete(admin, answer, admin.withTenant(tenantA))).status).toBe(200);
    // and a data source of tenant A cannot be started from tenant B
    expect((await start(admin, inA, admin.withTenant(tenantB))).status).toBe(404);
  });

  it('does not complete an attempt for someone other than the user who started it', async () => {
    const id = await renxt();
    const answer = await connect(admin, id);
    const res = await complete(powerUser, answer);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'state-invalid' });
    expect((await viewOf(id)).settings.refreshToken).toBeUndefined();
    expect((await complete(admin, answer)).status).toBe(200);
  });

  it('needs datasource edit to start and to complete', async () => {
    const id = await renxt();
    expect((await start(viewer, id)).status).toBe(403);
    expect((await complete(viewer, { state: `${crypto.randomUUID()}.${'A'.repeat(43)}`, code: 'x' })).status).toBe(403);
  });
});

describe("the application's credentials", () => {
  it('come from the server when the connection has none (OAUTH_CLIENT_ID_<SYSTEM>)', async () => {
    const id = await createSource(admin, 'fenxt', { subscriptionKey: 'sky-sub-key' });
    let res = await start(admin, id);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'validation-failed', errors: { clientId: expect.stringContaining('OAUTH_CLIENT_ID_FENXT') } });
    process.env.OAUTH_CLIENT_ID_FENXT = OAUTH_APPS.fenxt.clientId;
    process.env.OAUTH_CLIENT_SECRET_FENXT = OAUTH_APPS.fenxt.clientSecret;
    res = await start(admin, id);
    const url = new URL((await res.json() as { authorizeUrl: string }).authorizeUrl);
    expect(url.searchParams.get('client_id')).toBe(OAUTH_APPS.fenxt.clientId);
    const done = await complete(admin, answerOf(await throughConsent(url.toString())));
    expect(await done.json()).toEqual({ dataSourceId: id, detail: 'Connected to Financial Edge NXT (Riverside Production).' });
  });
});

describe('Connect to Salesforce', () => {
  it('uses the web server flow of the login host, asks for api and refresh_token, and sends the consumer key and secret in the body', async () => {
    const id = await createSource(admin, 'salesforce', { environment: 'production', authenticationType: 'oauth', ...OAUTH_APPS.salesforce });
    const res = await start(admin, id);
    const url = new URL((await res.json() as { authorizeUrl: string }).authorizeUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.url}/salesforce/services/oauth2/authorize`);
    expect(url.searchParams.get('scope')).toBe('api refresh_token');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    const done = await complete(admin, answerOf(await throughConsent(url.toString())));
    expect(await done.json()).toEqual({ dataSourceId: id, detail: 'Connected to Salesforce (https://riverside.my.salesforce.com).' });
    expect(fake.tokenRequests.at(-1)!.form).toMatchObject({ client_id: OAUTH_APPS.salesforce.clientId, client_secret: OAUTH_APPS.salesforce.clientSecret });
    expect(fake.tokenRequests.at(-1)!.authorization).toBeUndefined();

    // the connection now signs in with the refresh token Connect saved
    const tested = await integrations(server.url, admin.headers)(`/data-sources/${id}/test`, { method: 'POST' });
    expect(await tested.json()).toMatchObject({ status: 'success', detail: 'Signed in to Salesforce at riverside.my.salesforce.com.' });
    expect(fake.tokenRequests.at(-1)!.form).toMatchObject({ grant_type: 'refresh_token', refresh_token: fake.issuedRefreshTokens.at(-1) });
  });

  it('is not offered for a Salesforce connection that signs in with a user name and password', async () => {
    const id = await createSource(admin, 'salesforce', {
      environment: 'production', authenticationType: 'username-password', ...OAUTH_APPS.salesforce, username: 'a@riverside.org', password: 'p',
    });
    const res = await start(admin, id);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'not-supported' });
  });
});

describe('pasting a refresh token', () => {
  it('is for Administrators: anyone else is told to use Connect', async () => {
    const settings = { ...OAUTH_APPS.renxt, subscriptionKey: 'k', refreshToken: 'pasted-refresh-token' };
    const refused = await integrations(server.url, powerUser.headers)('/data-sources', { method: 'POST', body: { system: 'renxt', displayName: 'Pasted by a power user', settings } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ detail: "Only an Administrator can paste a token got elsewhere (a refresh token, or Mailchimp's access token). Use Connect instead." });
    const id = await renxt(powerUser);
    const edit = await integrations(server.url, powerUser.headers)(`/data-sources/${id}`, { method: 'PATCH', body: { settings } });
    expect(edit.status).toBe(403);
    const test = await integrations(server.url, powerUser.headers)('/data-sources/test', { method: 'POST', body: { system: 'renxt', settings } });
    expect(test.status).toBe(403);
    // connecting needs no pasting
    expect((await complete(powerUser, await connect(powerUser, id))).status).toBe(200);
    // an Administrator may
    const pasted = await createSource(admin, 'renxt', settings);
    expect((await viewOf(pasted)).settings.refreshToken).toEqual({ saved: true });
  });
});

describe('new credentials', () => {
  it('drop the access token got with the old ones: the next call signs in with the new', async () => {
    const id = await createSource(admin, 'salesforce', {
      environment: 'production', authenticationType: 'username-password', ...OAUTH_APPS.salesforce, username: 'a@riverside.org', password: 'old password',
    });
    const tenantId = (await db.query<{ tenant_id: string }>('select tenant_id from data_sources where id = $1', [id])).rows[0]!.tenant_id;
    const token = () => db.query('select 1 from vendor_tokens where data_source_id = $1', [id]);
    await db.query(`insert into vendor_tokens (data_source_id, tenant_id, "grant", ciphertext, iv, tag, key_version, expires_on)
      values ($1, $2, 'g', '\\x00', '\\x00', '\\x00', 'v1', now() + interval '1 hour')`, [id, tenantId]);
    // a rename keeps it
    expect((await integrations(server.url, admin.headers)(`/data-sources/${id}`, { method: 'PATCH', body: { displayName: `Renamed ${id.slice(0, 8)}` } })).status).toBe(200);
    expect((await token()).rowCount).toBe(1);
    const edit = await integrations(server.url, admin.headers)(`/data-sources/${id}`, { method: 'PATCH', body: { settings: { password: 'new password' } } });
    expect(edit.status, await edit.clone().text()).toBe(200);
    expect((await token()).rowCount).toBe(0);
  });
});
