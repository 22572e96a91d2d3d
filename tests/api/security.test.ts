import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { SignJWT, decodeJwt, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const AM = '/account-management/v1';
let server: TestServer;
let base: string;
let admin: Session;
let signingKey: JWK;

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  admin = await sessionFor(base, 'administrator@demo.tributary.test');
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  const { rows } = await client.query("select material from identity_keys where kind = 'signing'");
  await client.end();
  const material = rows[0].material as JWK | { keys: JWK[] };
  signingKey = 'keys' in material ? material.keys[0]! : material;
});
afterAll(async () => { await server?.close(); });

const detailsPath = () => `${AM}/User/organization/${admin.orgId}/user`;
const withToken = (token: string) => ({ ...admin.headers, authorization: `Bearer ${token}` });

async function forge(overrides: { exp?: number; aud?: string; iss?: string; key?: JWK; kid?: string } = {}) {
  const real = decodeJwt(admin.tokens.access_token);
  const key = await importJWK(overrides.key ?? signingKey, 'RS256');
  return new SignJWT({ ...real, scope: real.scope as string })
    .setProtectedHeader({ alg: 'RS256', kid: overrides.kid ?? signingKey.kid!, typ: 'at+jwt' })
    .setIssuer(overrides.iss ?? (real.iss as string))
    .setAudience(overrides.aud ?? (real.aud as string))
    .setExpirationTime(overrides.exp ?? Math.floor(Date.now() / 1000) + 600)
    .setIssuedAt()
    .sign(key);
}

describe('bearer tokens', () => {
  it('accepts the provider\'s own token and a well-forged one signed with its key', async () => {
    expect((await call(base, detailsPath(), { headers: admin.headers })).status).toBe(200);
    expect((await call(base, detailsPath(), { headers: withToken(await forge()) })).status).toBe(200);
  });

  const cases: [string, () => Promise<string>][] = [
    ['expired', () => forge({ exp: Math.floor(Date.now() / 1000) - 120 })],
    ['for another audience', () => forge({ aud: 'https://someone-else.example' })],
    ['from a foreign issuer', () => forge({ iss: 'https://evil.example/' })],
    ['with a wrong signature', async () => {
      const { privateKey } = await generateKeyPair('RS256', { extractable: true });
      return forge({ key: { ...(await exportJWK(privateKey)), kid: signingKey.kid } });
    }],
    ['with alg none', async () => {
      const [, payload] = admin.tokens.access_token.split('.');
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      return `${header}.${payload}.`;
    }],
    ['with an HS256 signature keyed by the public key', async () => {
      const [, payload] = admin.tokens.access_token.split('.');
      const header = Buffer.from(JSON.stringify({ alg: 'HS256', kid: signingKey.kid })).toString('base64url');
      const { createHmac } = await import('node:crypto');
      const sig = createHmac('sha256', JSON.stringify({ kty: signingKey.kty, n: signingKey.n, e: signingKey.e })).update(`${header}.${payload}`).digest('base64url');
      return `${header}.${payload}.${sig}`;
    }],
    ['that is not a token', async () => 'not-a-token'],
  ];
  it.each(cases)('refuses a token %s with 401 problem', async (_name, make) => {
    const res = await call(base, detailsPath(), { headers: withToken(await make()) });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    const body = await res.json() as { title: string; detail: string };
    expect(body.title).toBe('unauthenticated');
  });

  it('says when a token has expired', async () => {
    const res = await call(base, detailsPath(), { headers: withToken(await forge({ exp: Math.floor(Date.now() / 1000) - 120 })) });
    expect(await res.json()).toMatchObject({ detail: 'The access token has expired.' });
  });

  it('ignores a key embedded in the token header', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const real = decodeJwt(admin.tokens.access_token);
    const token = await new SignJWT({ ...real }).setProtectedHeader({ alg: 'RS256', jwk: await exportJWK(publicKey) }).sign(privateKey);
    expect((await call(base, detailsPath(), { headers: withToken(token) })).status).toBe(401);
  });
});

describe('identity headers', () => {
  const mismatches: [string, Record<string, string>, number][] = [
    ['userId of someone else', { userId: 'auth0|someone-else' }, 403],
    ['userEmail of someone else', { userEmail: 'view.only@demo.tributary.test' }, 403],
    ['clientId of another application', { clientId: 'other-app' }, 403],
    ['orgId of another organisation', { orgId: '00000000-0000-4000-8000-000000000000' }, 403],
    ['orgId that is not an id', { orgId: 'demo' }, 400],
    ['tenantId that is not an id', { tenantId: '1 or 1=1' }, 400],
    ['tenantId the user does not belong to', { tenantId: '00000000-0000-4000-8000-000000000000' }, 403],
  ];
  it.each(mismatches)('refuses a %s', async (_name, extra, status) => {
    const res = await call(base, detailsPath(), { headers: { ...admin.headers, ...extra } });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });

  it.each(['orgId', 'clientId', 'userId', 'userEmail'])('requires the %s header', async (name) => {
    const headers = { ...admin.headers };
    delete headers[name];
    const res = await call(base, detailsPath(), { headers });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ title: 'bad-request', detail: `Header ${name} is required.` });
  });

  it('refuses a tenant the user belongs to only through a foreign tenant id', async () => {
    const noTenant = await sessionFor(base, 'no.tenants@demo.tributary.test');
    const me = await (await call(base, detailsPath(), { headers: admin.headers })).json() as { activeTenantId: string };
    const res = await call(base, `${AM}/user/organization/${admin.orgId}/user/active-tenant`, { headers: { ...noTenant.headers, tenantId: me.activeTenantId } });
    expect(res.status).toBe(403);
  });
});

describe('every response', () => {
  it('carries the security headers', async () => {
    for (const path of ['/health', detailsPath(), '/nowhere', '/.well-known/openid-configuration']) {
      const res = await call(base, path);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain("'unsafe-inline' 'self'");
      expect(csp.split(';').find((d) => d.trim().startsWith('script-src'))).not.toContain('unsafe-inline');
      expect(csp, path).toContain("frame-ancestors 'self'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), path).toBe('SAMEORIGIN');
    }
  });

  it('answers an unknown API path with a 404 problem, never a stack trace', async () => {
    const res = await call(base, '/web-api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404, title: 'not-found' });
  });

  it('refuses a body over the limit', async () => {
    const res = await call(base, `${AM}/user/active-tenant`, { method: 'PATCH', headers: admin.headers, body: JSON.stringify({ tenantId: 'x'.repeat(2_000_000) }) });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ title: 'payload-too-large' });
  });

  it('carries a request id and passes a correlation id through', async () => {
    const res = await call(base, '/health', { headers: { 'x-correlation-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-correlation-id')).toBe('abc-123');
  });
});

describe('health', () => {
  it('reports the database and the job queue', async () => {
    const res = await call(base, '/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok', database: { ok: true }, jobs: { ok: true } });
  });
});

describe('app configuration', () => {
  it('tells the browser where to sign in, with no secret in it', async () => {
    const res = await call(base, '/app-config.json');
    expect(res.status).toBe(200);
    const body = await res.json() as { auth: Record<string, string>; defaultSubdomain: string };
    expect(body).toMatchObject({ auth: { domain: base, clientId: 'tributary-app', audience: 'https://api.tributary.local' }, defaultSubdomain: 'demo' });
    expect(JSON.stringify(body)).not.toMatch(/secret|password/i);
  });
});
