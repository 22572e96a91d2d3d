/**
 * The embedded Auth0-compatible provider, driven with plain fetch exactly the way
 * @auth0/auth0-spa-js 2.27 talks to it: /authorize with PKCE, audience and auth0Client; the sign-in
 * page; form-encoded /oauth/token requests with an Auth0-Client header; refresh-token rotation and
 * reuse detection; /oauth/revoke; /v2/logout?client_id&returnTo.
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import pino from 'pino';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { loadConfig, type Config } from '../../server/config.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { freePort } from '../../server/db/embedded.ts';
import { hashPassword } from '../../server/identity/passwords.ts';
import { createIdentity, type Identity } from '../../server/identity/provider.ts';
import { recordEvent } from '../../server/services/events.ts';

const ADMIN_URL = (inject('pgAdminUrl') as string | undefined) ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PASSWORD = 'correct horse battery staple';
const SCOPE = 'openid profile email offline_access';
const AUTH0_CLIENT = Buffer.from(JSON.stringify({ name: 'auth0-react', version: '2.4.0' })).toString('base64');

const b64url = (b: Buffer) => b.toString('base64url');

interface Cookie { name: string; value: string; path: string }
/** A small cookie jar that honours cookie paths (oidc-provider scopes its interaction cookies by path). */
class CookieJar {
  cookies: Cookie[] = [];
  store(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((s) => s.trim());
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) || '/';
      const expired = attrs.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()) || value === '';
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.path === path));
      if (!expired) this.cookies.push({ name, value, path });
    }
  }
  header(url: string) {
    const { pathname } = new URL(url);
    return this.cookies
      .filter((c) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`) || c.path === '/')
      .map((c) => `${c.name}=${c.value}`).join('; ');
  }
}

let database: Database;
let dbName: string;
let server: http.Server;
let identity: Identity;
let config: Config;
let base: string;
let origin: string;
const logLines: { level: number; msg: string }[] = [];

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try { return await fn(client); } finally { await client.end(); }
}

async function userRow(email: string) {
  const { rows } = await database.pool.query<{ login_count: number; auth0_id: string }>(
    'select login_count, auth0_id from users where lower(email) = lower($1)', [email],
  );
  return rows[0]!;
}

beforeAll(async () => {
  dbName = `idtest_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`create database ${dbName}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  database = await openDatabase(url.toString());

  const pool = database.pool;
  const { rows: [org] } = await pool.query<{ id: string }>(
    "insert into organizations (name, subdomain) values ('Demo', 'demo') returning id",
  );
  await pool.query('insert into tenants (organization_id, name) values ($1, $2)', [org!.id, 'Main']);
  const hash = await hashPassword(PASSWORD);
  for (const [email, name] of [['Ada.Lovelace@Example.org', 'Ada Lovelace'], ['locked@example.org', 'Locked Out'], ['gone@example.org', 'Gone Away']]) {
    await pool.query(
      "insert into users (organization_id, auth0_id, email, full_name, password_hash) values ($1, 'auth0|' || gen_random_uuid(), $2, $3, $4)",
      [org!.id, email, name, hash],
    );
  }
  await pool.query("update users set deactivated_on = now() where email = 'gone@example.org'");
  // a hash from before the scrypt cost was raised
  await pool.query(
    "insert into users (organization_id, auth0_id, email, full_name, password_hash) values ($1, 'auth0|' || gen_random_uuid(), $2, $3, $4)",
    [org!.id, 'old.hash@example.org', 'Old Hash', await hashPassword(PASSWORD, { N: 2 ** 14, r: 8, p: 1 })],
  );

  const port = await freePort();
  config = loadConfig({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: url.toString(), LOG_LEVEL: 'silent' });
  base = config.publicUrl;
  origin = config.publicUrl;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  identity = await createIdentity({ config, db: database.db, pool, log: pino({ level: 'info' }, sink), recordEvent });
  server = http.createServer((req, res) => {
    if (identity.owns(new URL(req.url!, 'http://x').pathname)) identity.handle(req, res);
    else { res.statusCode = 404; res.end(); }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await database?.close();
  if (dbName) await admin((c) => c.query(`drop database if exists ${dbName} with (force)`));
});

function pkce() {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
}

/** The authorize URL as auth0-spa-js builds it (same parameters, same order, auth0Client last). */
function authorizeUrl(p: { challenge: string; state: string; nonce: string; redirectUri?: string; extra?: Record<string, string> }) {
  const params = new URLSearchParams({
    client_id: config.auth.clientId,
    redirect_uri: p.redirectUri ?? origin,
    audience: config.auth.audience,
    scope: SCOPE,
    ...p.extra,
    response_type: 'code',
    response_mode: 'query',
    state: p.state,
    nonce: p.nonce,
    code_challenge: p.challenge,
    code_challenge_method: 'S256',
  });
  return `${base}/authorize?${params}&auth0Client=${encodeURIComponent(AUTH0_CLIENT)}`;
}

async function get(url: string, jar: CookieJar) {
  const res = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header(url) } });
  jar.store(res);
  return res;
}

async function postForm(url: string, jar: CookieJar, body: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header(url), ...headers },
    body: new URLSearchParams(body),
  });
  jar.store(res);
  return res;
}

/** Follows redirects while they stay on the provider; returns the last response and where it pointed. */
async function follow(url: string, jar: CookieJar) {
  let current = url;
  for (let i = 0; i < 10; i++) {
    const res = await get(current, jar);
    const location = res.headers.get('location');
    if (!location) return { res, url: current };
    const next = new URL(location, current).toString();
    if (!next.startsWith(`${base}/authorize`) && !next.startsWith(`${base}/interaction/`)) return { res, url: next };
    current = next;
  }
  throw new Error('too many redirects');
}

/** A token request as auth0-spa-js sends it: form-encoded, with the Auth0-Client header, from the app's origin. */
async function tokenRequest(body: Record<string, string>) {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'auth0-client': AUTH0_CLIENT, origin },
    body: new URLSearchParams({ client_id: config.auth.clientId, ...body }),
  });
  return { res, json: await res.json() as Record<string, string> };
}

async function startSignIn(jar: CookieJar, extra?: Record<string, string>) {
  const { verifier, challenge } = pkce();
  const state = b64url(randomBytes(16));
  const nonce = b64url(randomBytes(16));
  const start = await follow(authorizeUrl({ challenge, state, nonce, extra }), jar);
  return { verifier, state, nonce, start };
}

async function signIn(jar: CookieJar, email = 'ada.lovelace@example.org') {
  const flow = await startSignIn(jar);
  expect(flow.start.res.status).toBe(200);
  const loginAction = `${flow.start.url}/login`;
  const done = await postForm(loginAction, jar, { email, password: PASSWORD }, { origin: base });
  expect(done.status).toBe(303);
  const back = await follow(new URL(done.headers.get('location')!, base).toString(), jar);
  const redirect = new URL(back.url);
  expect(redirect.origin).toBe(origin);
  expect(redirect.searchParams.get('state')).toBe(flow.state);
  const code = redirect.searchParams.get('code')!;
  const { res, json } = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: flow.verifier, redirect_uri: origin });
  expect(res.status).toBe(200);
  return { ...flow, tokens: json };
}

describe('embedded identity provider', () => {
  it('owns the Auth0 routes and publishes discovery with issuer `${publicUrl}/`', async () => {
    for (const p of ['/authorize', '/authorize/abc', '/oauth/token', '/v2/logout', '/v2/logout/confirm', '/.well-known/jwks.json',
      '/.well-known/openid-configuration', '/oauth/revoke', '/userinfo', '/interaction/abc', '/identity/static/autosubmit.js']) {
      expect(identity.owns(p), p).toBe(true);
    }
    for (const p of ['/', '/web-api/v1/x', '/account-management/v1/user', '/authorizer', '/assets/index.js']) {
      expect(identity.owns(p), p).toBe(false);
    }
    expect(identity.issuer).toBe(`${base}/`);
    const res = await fetch(`${base}/.well-known/openid-configuration`);
    const doc = await res.json() as Record<string, unknown>;
    expect(doc.issuer).toBe(`${base}/`);
    expect(doc.authorization_endpoint).toBe(`${base}/authorize`);
    expect(doc.token_endpoint).toBe(`${base}/oauth/token`);
    expect(doc.end_session_endpoint).toBe(`${base}/v2/logout`);
    expect(doc.jwks_uri).toBe(`${base}/.well-known/jwks.json`);
    expect(doc.revocation_endpoint).toBe(`${base}/oauth/revoke`);
    expect(doc.code_challenge_methods_supported).toEqual(['S256']);
    const jwks = await (await fetch(`${base}/.well-known/jwks.json`)).json() as { keys: { kid: string; d?: string }[] };
    expect(jwks.keys.map((k) => k.kid)).toEqual(identity.publicJwks.keys.map((k) => k.kid));
    expect(jwks.keys[0]!.d).toBeUndefined();
    expect(identity.publicJwks.keys[0]).not.toHaveProperty('d');
  });

  it('advertises only endpoints that answer', async () => {
    const doc = await (await fetch(`${base}/.well-known/openid-configuration`)).json() as Record<string, unknown>;
    const advertised = Object.entries(doc).filter(([key, value]) => (key.endsWith('_endpoint') || key === 'jwks_uri') && typeof value === 'string');
    expect(advertised.map(([key]) => key)).toEqual(expect.arrayContaining(['authorization_endpoint', 'token_endpoint', 'jwks_uri']));
    for (const [key, url] of advertised as [string, string][]) {
      expect(new URL(url).origin, key).toBe(base);
      // each is reached the way a client would: a GET, or a form POST for the endpoints that take one
      const answers = await Promise.all([
        fetch(url, { redirect: 'manual' }),
        fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' }),
      ]);
      expect(answers.some((a) => a.status !== 404), `${key} ${url}`).toBe(true);
    }
  });

  it('requires PKCE', async () => {
    const jar = new CookieJar();
    const url = new URL(authorizeUrl({ challenge: 'x', state: 's', nonce: 'n' }));
    url.searchParams.delete('code_challenge');
    url.searchParams.delete('code_challenge_method');
    const res = await get(url.toString(), jar);
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin).toBe(origin);
    expect(back.searchParams.get('error')).toBe('invalid_request');
  });

  it('signs in with the code flow and issues tokens the SDK accepts; refresh tokens rotate and reuse revokes the grant', async () => {
    const jar = new CookieJar();
    const flow = await startSignIn(jar);
    const page = flow.start.res;
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<title>Sign in to Tributary</title>');
    expect(html).toMatch(/<label for="email">/);
    expect(html).toMatch(/<input id="email" name="email" type="email"/);
    expect(html).toMatch(/<label for="password">/);
    expect(html).toMatch(/<input id="password" name="password" type="password"/);
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\son[a-z]+=/i);

    const loginAction = `${flow.start.url}/login`;
    const before = (await userRow('ada.lovelace@example.org')).login_count;

    const wrong = await postForm(loginAction, jar, { email: 'ada.lovelace@example.org', password: 'nope' }, { origin: base });
    expect(wrong.status).toBe(401);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain('<p role="alert"');
    expect(wrongHtml).toContain('Wrong e-mail or password.');

    const unknown = await postForm(loginAction, jar, { email: 'nobody@example.org', password: PASSWORD }, { origin: base });
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toContain('Wrong e-mail or password.');

    const deactivated = await postForm(loginAction, jar, { email: 'gone@example.org', password: PASSWORD }, { origin: base });
    expect(deactivated.status).toBe(401);

    // e-mail matched case-insensitively
    const ok = await postForm(loginAction, jar, { email: 'ADA.LOVELACE@example.org', password: PASSWORD }, { origin: base });
    expect(ok.status).toBe(303);
    expect((await userRow('ada.lovelace@example.org')).login_count).toBe(before + 1);

    const back = await follow(new URL(ok.headers.get('location')!, base).toString(), jar);
    const redirect = new URL(back.url);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(`${origin}/`);
    expect(redirect.searchParams.get('state')).toBe(flow.state);
    const code = redirect.searchParams.get('code');
    expect(code).toBeTruthy();

    const { res, json } = await tokenRequest({ grant_type: 'authorization_code', code: code!, code_verifier: flow.verifier, redirect_uri: origin });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(json.token_type).toBe('Bearer');
    expect(Number(json.expires_in)).toBeGreaterThan(3500);
    expect(Number(json.expires_in)).toBeLessThanOrEqual(3600);
    // oidc-provider keeps offline_access only with prompt=consent (OIDC Core 11); a refresh token is issued regardless
    expect(json.scope?.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(json.refresh_token).toBeTruthy();

    const keys = createLocalJWKSet(identity.publicJwks);
    const user = await userRow('ada.lovelace@example.org');
    const idToken = await jwtVerify(json.id_token!, keys, { issuer: `${base}/`, audience: config.auth.clientId, algorithms: ['RS256'] });
    expect(decodeProtectedHeader(json.id_token!).alg).toBe('RS256');
    expect(idToken.payload).toMatchObject({
      sub: user.auth0_id, email: 'Ada.Lovelace@Example.org', email_verified: true, name: 'Ada Lovelace', nonce: flow.nonce,
    });
    expect(typeof idToken.payload.iat).toBe('number');
    expect(typeof idToken.payload.exp).toBe('number');

    const at = await jwtVerify(json.access_token!, keys, { issuer: `${base}/`, audience: config.auth.audience, algorithms: ['RS256'] });
    expect(at.payload.sub).toBe(user.auth0_id);
    expect(at.payload.client_id).toBe(config.auth.clientId);
    expect(String(at.payload.scope).split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email']));
    expect(at.payload.exp! - at.payload.iat!).toBe(3600);

    // refresh as the SDK does it (client_id, grant_type, refresh_token, redirect_uri; no audience or scope)
    const first = json.refresh_token!;
    const refreshed = await tokenRequest({ redirect_uri: origin, grant_type: 'refresh_token', refresh_token: first });
    expect(refreshed.res.status).toBe(200);
    const second = refreshed.json.refresh_token!;
    expect(second).toBeTruthy();
    expect(second).not.toBe(first);
    const refreshedId = await jwtVerify(refreshed.json.id_token!, keys, { issuer: `${base}/`, audience: config.auth.clientId });
    expect(refreshedId.payload).toMatchObject({ sub: user.auth0_id, email: 'Ada.Lovelace@Example.org', name: 'Ada Lovelace' });
    const refreshedAt = await jwtVerify(refreshed.json.access_token!, keys, { issuer: `${base}/`, audience: config.auth.audience });
    expect(refreshedAt.payload.sub).toBe(user.auth0_id);

    // reuse of the consumed token: invalid_grant, and the whole grant is revoked
    const reuse = await tokenRequest({ redirect_uri: origin, grant_type: 'refresh_token', refresh_token: first });
    expect(reuse.res.status).toBe(400);
    expect(reuse.json.error).toBe('invalid_grant');
    const afterReuse = await tokenRequest({ redirect_uri: origin, grant_type: 'refresh_token', refresh_token: second });
    expect(afterReuse.res.status).toBe(400);
    expect(afterReuse.json.error).toBe('invalid_grant');
  });

  it('accepts an authorization code once; replaying it revokes what it issued', async () => {
    const jar = new CookieJar();
    const { tokens, verifier } = await signIn(jar);
    const { verifier: v2, challenge } = pkce();
    const silent = await follow(authorizeUrl({ challenge, state: 's', nonce: 'n' }), jar);
    const code = new URL(silent.url).searchParams.get('code')!;
    const first = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: v2, redirect_uri: origin });
    expect(first.res.status).toBe(200);
    const replay = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: v2, redirect_uri: origin });
    expect(replay.res.status).toBe(400);
    expect(replay.json.error).toBe('invalid_grant');
    const refresh = await tokenRequest({ redirect_uri: origin, grant_type: 'refresh_token', refresh_token: first.json.refresh_token! });
    expect(refresh.json.error).toBe('invalid_grant');
    expect(tokens.refresh_token).toBeTruthy();
    expect(verifier).not.toBe(v2);
  });

  it('rejects a wrong PKCE verifier and an unregistered redirect_uri', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const { challenge } = pkce();
    const silent = await follow(authorizeUrl({ challenge, state: 's', nonce: 'n' }), jar);
    const code = new URL(silent.url).searchParams.get('code')!;
    const wrong = await tokenRequest({ grant_type: 'authorization_code', code, code_verifier: pkce().verifier, redirect_uri: origin });
    expect(wrong.res.status).toBe(400);
    expect(wrong.json.error).toBe('invalid_grant');

    const bad = await get(authorizeUrl({ challenge, state: 's', nonce: 'n', redirectUri: 'https://evil.example/' }), jar);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('location')).toBeNull();
    const page = await bad.text();
    expect(page).toContain('Tributary was opened at an address it does not sign in from.');
    expect(page).toContain(`<a href="${base}">${base}</a>`);
    expect(page).not.toMatch(/redirect_uri|invalid_|did not match/);
  });

  it('accepts the origin with a trailing slash too, re-uses the session without a password, and revokes refresh tokens', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const count = (await userRow('ada.lovelace@example.org')).login_count;

    const { verifier, challenge } = pkce();
    const state = b64url(randomBytes(16));
    const silent = await follow(authorizeUrl({ challenge, state, nonce: 'n2', redirectUri: `${origin}/` }), jar);
    const back = new URL(silent.url);
    expect(back.searchParams.get('code')).toBeTruthy();
    expect((await userRow('ada.lovelace@example.org')).login_count).toBe(count);
    const { json } = await tokenRequest({
      grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, redirect_uri: `${origin}/`,
    });
    expect(json.refresh_token).toBeTruthy();

    const revoke = await fetch(`${base}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'auth0-client': AUTH0_CLIENT, origin },
      body: new URLSearchParams({ client_id: config.auth.clientId, token_type_hint: 'refresh_token', token: json.refresh_token! }),
    });
    expect(revoke.status).toBe(200);
    const after = await tokenRequest({ redirect_uri: origin, grant_type: 'refresh_token', refresh_token: json.refresh_token! });
    expect(after.res.status).toBe(400);
    expect(after.json.error).toBe('invalid_grant');
  });

  it('signs out at /v2/logout?client_id&returnTo through an auto-submitted form carrying logout=yes', async () => {
    const jar = new CookieJar();
    const { tokens } = await signIn(jar);

    const logoutUrl = `${base}/v2/logout?${new URLSearchParams({ client_id: config.auth.clientId, returnTo: origin })}&auth0Client=${encodeURIComponent(AUTH0_CLIENT)}`;
    const page = await get(logoutUrl, jar);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<script src="\/identity\/static\/autosubmit\.js" defer><\/script>/);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).toContain('data-autosubmit');
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!;
    const inputs = Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    expect(inputs.logout).toBe('yes');
    expect(inputs.xsrf).toBeTruthy();

    const script = await fetch(`${base}/identity/static/autosubmit.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(await script.text()).toContain('form[data-autosubmit]');

    const confirm = await postForm(new URL(action, base).toString(), jar, inputs, { origin: base });
    expect(confirm.status).toBe(303);
    expect(new URL(confirm.headers.get('location')!).href).toBe(new URL(origin).href);

    // the session is gone: the next authorize asks for the password again
    const next = await startSignIn(jar);
    expect(next.start.res.status).toBe(200);
    expect(next.start.url).toMatch(/\/interaction\//);
    // and the refresh token of that session's grant no longer works
    const refresh = await tokenRequest({ redirect_uri: origin, grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
    expect(refresh.json.error).toBe('invalid_grant');

    // signing out again with no session still returns to the app, without an inline script
    const noSession = await get(logoutUrl, jar);
    expect(noSession.status).toBe(200);
    const html2 = await noSession.text();
    expect(html2).not.toMatch(/<script(?![^>]*\bsrc=)/);
    const action2 = /<form method="post" action="([^"]+)"/.exec(html2)![1]!;
    const inputs2 = Object.fromEntries([...html2.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)].map((m) => [m[1]!, m[2]!]));
    const confirm2 = await postForm(new URL(action2.replace(/&amp;/g, '&'), base).toString(), jar, inputs2, { origin: base });
    expect(confirm2.status).toBe(303);
    expect(new URL(confirm2.headers.get('location')!).href).toBe(new URL(origin).href);
  });

  it('refuses a returnTo that is not an app origin', async () => {
    // as a browser opens it: the page, not the JSON error an API client gets
    const res = await fetch(`${base}/v2/logout?client_id=${config.auth.clientId}&returnTo=${encodeURIComponent('https://evil.example/')}`, {
      redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('<h1>Sign-out problem</h1>');
    expect(html).toContain(`<a href="${base}">Go to Tributary</a>`);
    expect(html).not.toMatch(/post_logout_redirect_uri|invalid_request|not registered/);
    expect(html).not.toMatch(/at \S+\.(js|ts):\d+/);
  });

  it('upgrades a password hash made with the older scrypt cost on the next successful sign-in', async () => {
    const hashOf = async () => (await database.pool.query<{ password_hash: string }>(
      "select password_hash from users where email = 'old.hash@example.org'")).rows[0]!.password_hash;
    const old = await hashOf();
    expect(old).toMatch(/^scrypt\$16384\$8\$1\$/);

    const jar = new CookieJar();
    const flow = await startSignIn(jar);
    const wrong = await postForm(`${flow.start.url}/login`, jar, { email: 'old.hash@example.org', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(await hashOf()).toBe(old);

    await signIn(new CookieJar(), 'old.hash@example.org');
    const upgraded = await hashOf();
    expect(upgraded).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    // the same password keeps working against the new hash
    await signIn(new CookieJar(), 'old.hash@example.org');
    expect(await hashOf()).toBe(upgraded);
  });

  it('rejects oversized or foreign sign-in posts and expired interactions', async () => {
    const jar = new CookieJar();
    const flow = await startSignIn(jar);
    const action = `${flow.start.url}/login`;
    const big = await postForm(action, jar, { email: 'a@b.c', password: 'x'.repeat(11 * 1024) });
    expect(big.status).toBe(413);
    const foreign = await postForm(action, jar, { email: 'ada.lovelace@example.org', password: PASSWORD }, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // without the interaction cookie (another browser) the page is refused
    const stranger = await postForm(action, new CookieJar(), { email: 'ada.lovelace@example.org', password: PASSWORD });
    expect(stranger.status).toBe(400);
    const unknown = await get(`${base}/interaction/does-not-exist`, jar);
    expect(unknown.status).toBe(400);
  });

  it('never shows a consent screen, even when prompt=consent is asked for', async () => {
    const jar = new CookieJar();
    await signIn(jar);
    const { verifier, challenge } = pkce();
    const flow = await follow(authorizeUrl({ challenge, state: 's', nonce: 'n', extra: { prompt: 'consent' } }), jar);
    const code = new URL(flow.url).searchParams.get('code');
    expect(code).toBeTruthy();
    const { res, json } = await tokenRequest({ grant_type: 'authorization_code', code: code!, code_verifier: verifier, redirect_uri: origin });
    expect(res.status).toBe(200);
    expect(json.refresh_token).toBeTruthy();
    expect(json.scope?.split(' ')).toEqual(expect.arrayContaining(['openid', 'profile', 'email', 'offline_access']));
  });

  it('agrees on one signing key when several processes start together', async () => {
    const { loadIdentityKeys } = await import('../../server/identity/keys.ts');
    const scratch = `idtest_${randomBytes(6).toString('hex')}`;
    await admin((c) => c.query(`create database ${scratch}`));
    const url = new URL(ADMIN_URL);
    url.pathname = `/${scratch}`;
    const other = await openDatabase(url.toString());
    try {
      const all = await Promise.all([1, 2, 3, 4].map(() => loadIdentityKeys(other.pool)));
      expect(new Set(all.map((k) => k.publicJwk.kid)).size).toBe(1);
      expect(new Set(all.map((k) => k.cookieKeys.join()))).toHaveProperty('size', 1);
    } finally {
      await other.close();
      await admin((c) => c.query(`drop database if exists ${scratch} with (force)`));
    }
  });

  it('keeps its signing key across restarts over the same database', async () => {
    const again = await createIdentity({ config, db: database.db, pool: database.pool, log: pino({ level: 'silent' }), recordEvent });
    expect(again.publicJwks.keys.map((k) => k.kid)).toEqual(identity.publicJwks.keys.map((k) => k.kid));
    expect(identity.publicJwks.keys[0]!.kid).toBeTruthy();
    expect(identity.publicJwks.keys[0]!.alg).toBe('RS256');
    const { rows } = await database.pool.query("select kind from identity_keys order by kind");
    expect(rows.map((r) => r.kind)).toEqual(['cookies', 'signing']);
  });

  it('logged nothing at error level', () => {
    expect(logLines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
