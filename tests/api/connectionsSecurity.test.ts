/**
 * What a user with access to Connections could do with Tributary's outbound calls, and what
 * stops it: no private or loopback targets unless the operator allows them, never link-local or
 * cloud metadata ones however the address is written, no remote text in error messages, saved
 * secrets never sent to an address they were not entered for, no outbound calls by read-only
 * roles, and answers read only up to a limit. Local servers play the internal service, the
 * attacker's server and the vendor.
 */
import http from 'node:http';
import type net from 'node:net';
import zlib from 'node:zlib';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REENTER_SECRET_MESSAGE } from '../../src/domain/connectors/fields.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** the server as `npm start` runs it: no CONNECTOR_ALLOW_PRIVATE_HOSTS */
let strict: TestServer;
/** an installation that allows private hosts (an on-premises system) */
let open: TestServer;
let internal: http.Server;
let attacker: http.Server;
let internalBase: string;
let attackerBase: string;
const internalSeen: { path: string; auth: string | undefined }[] = [];
const attackerSeen: { path: string; auth: string | undefined }[] = [];

const BANNER = 'INTERNAL-BANNER-7f3a';
const MB = 1024 * 1024;

function appFxReply(databases: string[]) {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>
<GetAvailableREDatabasesReply xmlns="Blackbaud.AppFx.WebService.API.1"><Databases>${databases.map((d) => `<string>${d}</string>`).join('')}</Databases></GetAvailableREDatabasesReply>
</soap:Body></soap:Envelope>`;
}

/** Writes `total` bytes of a JSON array of records in chunks, without a content-length. */
function streamRecords(res: http.ServerResponse, total: number) {
  res.writeHead(200, { 'content-type': 'application/json' });
  const record = JSON.stringify({ id: 'r', note: 'x'.repeat(1000) });
  let written = 1;
  res.write('[');
  const more = () => {
    while (written < total) {
      const chunk = `${written > 1 ? ',' : ''}${record}`;
      written += chunk.length;
      if (!res.write(chunk)) { res.once('drain', more); return; }
    }
    res.end(']');
  };
  res.on('error', () => {});
  more();
}

function internalService(seen: typeof internalSeen) {
  return http.createServer((req, res) => {
    seen.push({ path: req.url!, auth: req.headers.authorization });
    req.resume();
    const json = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
    const path = new URL(req.url!, 'http://x').pathname;
    switch (path) {
      case '/records': return json(200, [{ id: 1, name: 'Ada' }]);
      case '/secret/records': return json(404, { message: BANNER, detail: BANNER });
      case '/refusing/appfxwebservice.asmx': return json(401, { message: BANNER, error_description: BANNER });
      case '/dbs/appfxwebservice.asmx':
        res.writeHead(200, { 'content-type': 'text/xml' });
        return res.end(appFxReply([`${BANNER}-db`]));
      case '/luminate/site/SRConsAPI': return json(200, { errorResponse: { code: '4', message: BANNER } });
      case '/big/records': return streamRecords(res, 15 * MB);
      case '/bomb/records': {
        // 50 MB of JSON that travels as about 50 KB
        const body = zlib.gzipSync(Buffer.from(`[${'0,'.repeat(25 * MB)}0]`));
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) });
        return res.end(body);
      }
      case '/big/appfxwebservice.asmx':
        res.writeHead(200, { 'content-type': 'text/xml' });
        return res.end(`<GetAvailableREDatabasesReply>${'<string>x</string>'.repeat(2 * MB / 17)}</GetAvailableREDatabasesReply>`);
      default: return json(404, { error: 'not found' });
    }
  });
}

const listen = (srv: http.Server) => new Promise<string>((resolve) => srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(srv.address() as net.AddressInfo).port}`)));

beforeAll(async () => {
  internal = internalService(internalSeen);
  attacker = internalService(attackerSeen);
  [strict, open, internalBase, attackerBase] = await Promise.all([
    startTestServer(),
    startTestServer({ env: { CONNECTOR_ALLOW_PRIVATE_HOSTS: 'true' } }),
    listen(internal),
    listen(attacker),
  ]);
});
afterAll(async () => {
  await strict?.close();
  await open?.close();
  await new Promise((r) => internal?.close(r));
  await new Promise((r) => attacker?.close(r));
});

const httpSettings = (url: string, extra: Record<string, string> = {}) => ({ url, authenticationType: 'none', paging: 'none', ...extra });

async function adminOf(server: TestServer) {
  const admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  return { admin, api: integrations(server.url, admin.headers) };
}

const testSettings = (api: ReturnType<typeof integrations>, system: string, settings: Record<string, string>, dataSourceId?: string) =>
  api('/data-sources/test', { method: 'POST', body: { system, settings, ...(dataSourceId ? { dataSourceId } : {}) } });

describe('private networks are refused unless the operator allows them', () => {
  it('refuses loopback however it is written, without connecting, under the default settings', async () => {
    const { api } = await adminOf(strict);
    const port = new URL(internalBase).port;
    const before = internalSeen.length;
    for (const url of [`http://127.0.0.1:${port}/records`, `http://localhost:${port}/records`, `http://[::ffff:127.0.0.1]:${port}/records`, `http://[::1]:${port}/records`, `http://2130706433:${port}/records`]) {
      const res = await testSettings(api, 'http', httpSettings(url));
      expect(res.status, url).toBe(422);
      expect(await res.json(), url).toMatchObject({ code: 'clientdatasource-connection-failed', detail: expect.stringMatching(/private network/) });
    }
    expect(internalSeen.length).toBe(before);
  });

  it('cannot be used to probe the host\'s own ports (its database, say)', async () => {
    const { api } = await adminOf(strict);
    const pgPort = new URL(strict.databaseUrl).port || '5432';
    const res = await testSettings(api, 'sftp', { host: '127.0.0.1', port: pgPort, username: 'postgres', authenticationType: 'password', password: 'x', folder: '/' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/private network/);
    const crm = await testSettings(api, 'bbcrm', { url: `${internalBase}/dbs/appfxwebservice.asmx`, database: 'BBInfinity', username: 'u', password: 'p' });
    expect(((await crm.json()) as { detail: string }).detail).toMatch(/private network/);
  });

  it('reaches a private host once CONNECTOR_ALLOW_PRIVATE_HOSTS=true', async () => {
    const { api } = await adminOf(open);
    const res = await testSettings(api, 'http', httpSettings(`${internalBase}/records`));
    expect(res.status).toBe(200);
  });
});

describe('link-local and cloud metadata addresses are refused always', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:169.254.169.254]/latest/meta-data/',
    'http://[::ffff:a9fe:a9fe]/computeMetadata/v1/',
    'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
    'http://[fd00:ec2::254]/latest/meta-data/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
  ])('%s, even where private hosts are allowed', async (url) => {
    const { api } = await adminOf(open);
    const res = await testSettings(api, 'http', httpSettings(url));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: expect.stringMatching(/is not allowed/) });
  });

  it('for Secure FTP too', async () => {
    const { api } = await adminOf(open);
    const res = await testSettings(api, 'sftp', { host: '[::ffff:a9fe:a9fe]', port: '22', username: 'u', authenticationType: 'password', password: 'x', folder: '/' });
    expect(((await res.json()) as { detail: string }).detail).toMatch(/is not allowed/);
  });
});

describe('error messages never repeat what the remote answered', () => {
  it('gives the status code and a reason of our own, for the HTTP connector and the vendors at a user\'s address', async () => {
    const { api } = await adminOf(open);
    const answers = [
      await testSettings(api, 'http', httpSettings(`${internalBase}/secret/records`)),
      await testSettings(api, 'bbcrm', { url: `${internalBase}/refusing/appfxwebservice.asmx`, database: 'BBInfinity', username: 'u', password: 'p' }),
      await testSettings(api, 'bbcrm', { url: `${internalBase}/dbs/appfxwebservice.asmx`, database: 'Elsewhere', username: 'u', password: 'p' }),
      await testSettings(api, 'luminate-online', { url: `${internalBase}/luminate/site`, apiKey: 'k', loginName: 'admin', loginPassword: 'p' }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(422);
      const body = await res.json() as { detail: string };
      expect(body.detail).not.toContain(BANNER);
    }
  });
});

describe('saved secrets are never sent to a new address', () => {
  let api: ReturnType<typeof integrations>;
  let id: string;
  const SAVED = 'saved-token-for-the-real-api';
  beforeAll(async () => {
    ({ api } = await adminOf(open));
    const res = await api('/data-sources', {
      method: 'POST',
      body: { system: 'http', displayName: 'Donations API', settings: httpSettings(`${internalBase}/records`, { authenticationType: 'bearer', token: SAVED }) },
    });
    expect(res.status).toBe(201);
    ({ id } = await res.json() as { id: string });
  });
  const leaked = () => attackerSeen.some((s) => s.auth?.includes(SAVED));

  it('a test of a saved source with a new URL asks for the token again and calls nobody', async () => {
    const before = attackerSeen.length;
    const res = await testSettings(api, 'http', httpSettings(`${attackerBase}/records`, { authenticationType: 'bearer', token: '' }), id);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'validation-failed', errors: { token: REENTER_SECRET_MESSAGE } });
    expect(attackerSeen.length).toBe(before);
    expect(leaked()).toBe(false);
  });

  it('an edit to a new URL asks for the token again and changes nothing', async () => {
    const res = await api(`/data-sources/${id}`, { method: 'PATCH', body: { settings: httpSettings(`${attackerBase}/records`, { authenticationType: 'bearer', token: '' }) } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ errors: { token: REENTER_SECRET_MESSAGE } });
    const view = await (await api(`/data-sources/${id}`)).json() as { settings: Record<string, unknown> };
    expect(view.settings.url).toBe(`${internalBase}/records`);
    await api(`/data-sources/${id}/test`, { method: 'POST' });
    expect(leaked()).toBe(false);
  });

  it('an edit of anything else keeps the token; a new URL with a new token takes only the new one there', async () => {
    const kept = await api(`/data-sources/${id}`, { method: 'PATCH', body: { displayName: 'Donations API (renamed)', settings: httpSettings(`${internalBase}/records`, { authenticationType: 'bearer', token: '' }) } });
    expect(kept.status).toBe(200);
    expect((await api(`/data-sources/${id}/test`, { method: 'POST' })).status).toBe(200);
    expect(internalSeen.at(-1)!.auth).toBe(`Bearer ${SAVED}`);

    const moved = await api(`/data-sources/${id}`, { method: 'PATCH', body: { settings: httpSettings(`${attackerBase}/records`, { authenticationType: 'bearer', token: 'token-for-the-new-api' }) } });
    expect(moved.status).toBe(200);
    expect((await api(`/data-sources/${id}/test`, { method: 'POST' })).status).toBe(200);
    expect(attackerSeen.at(-1)!.auth).toBe('Bearer token-for-the-new-api');
    expect(leaked()).toBe(false);
  });

  it('holds for every endpoint setting: an SFTP host or port, a GiveCampus or Salesforce custom domain', async () => {
    const cases: [string, Record<string, string>, Record<string, string>, string[]][] = [
      ['sftp', { host: 'sftp.partner.example', port: '22', username: 'u', authenticationType: 'password', password: 'sftp-pass', folder: '/' }, { host: 'sftp.attacker.example', password: '' }, ['password']],
      ['sftp', { host: 'sftp.partner.example', port: '22', username: 'u', authenticationType: 'password', password: 'sftp-pass', folder: '/' }, { port: '2222' }, ['password']],
      ['givecampus', { environment: 'production', apiToken: 'gc-token' }, { customDomain: 'https://giving.attacker.example' }, ['apiToken']],
      ['salesforce', { environment: 'production', authenticationType: 'username-password', customDomain: 'riverside.my.salesforce.com', clientId: 'c', clientSecret: 's', username: 'a@riverside.org', password: 'p' },
        { customDomain: 'attacker.my.salesforce.com' }, ['clientSecret', 'password']],
    ];
    for (const [system, settings, change, secrets] of cases) {
      const created = await api('/data-sources', { method: 'POST', body: { system, displayName: `${system} ${crypto.randomUUID()}`, settings } });
      expect(created.status).toBe(201);
      const { id: sourceId } = await created.json() as { id: string };
      const edit = { ...settings, ...Object.fromEntries(secrets.map((k) => [k, ''])), ...change };
      const patched = await api(`/data-sources/${sourceId}`, { method: 'PATCH', body: { settings: edit } });
      expect(patched.status, `${system} ${JSON.stringify(change)}`).toBe(400);
      const { errors } = await patched.json() as { errors: Record<string, string> };
      for (const k of secrets) expect(errors[k], `${system}.${k}`).toBe(REENTER_SECRET_MESSAGE);
      const tested = await testSettings(api, system, edit, sourceId);
      expect(tested.status).toBe(400);
    }
  });
});

describe('read-only roles cannot make Tributary call out', () => {
  let pool: pg.Pool;
  let id: string;
  let asAdmin: ReturnType<typeof integrations>;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: open.databaseUrl, max: 1 });
    const viewer = await tenantSession(open.url, 'view.only@demo.tributary.test');
    const admin = await tenantSession(open.url, 'administrator@demo.tributary.test');
    asAdmin = integrations(open.url, admin.withTenant(viewer.tenantId));
    const res = await asAdmin('/data-sources', { method: 'POST', body: { system: 'http', displayName: 'Read-only check', settings: httpSettings(`${internalBase}/records`, { authenticationType: 'bearer', token: 'ro-token' }) } });
    ({ id } = await res.json() as { id: string });
  });
  afterAll(async () => { await pool?.end(); });

  const refreshedOn = async () => (await pool.query('select objects_refreshed_on from data_sources where id = $1', [id])).rows[0].objects_refreshed_on;

  it.each(['view.only@demo.tributary.test', 'formula.producer@demo.tributary.test'])('%s may not test or refresh, and reads only the kept object list', async (email) => {
    const me = await tenantSession(open.url, email);
    const api = integrations(open.url, me.headers);
    const before = internalSeen.length;
    for (const [method, path] of [['POST', '/test'], ['POST', `/test?formulaId=${crypto.randomUUID()}`], ['POST', '/objects/refresh']] as const) {
      const res = await api(`/data-sources/${id}${path}`, { method });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    // nothing kept yet: reading the list would call the system, so it is refused too
    expect((await api(`/data-sources/${id}/objects`)).status).toBe(403);
    expect(await refreshedOn()).toBeNull();
    expect(internalSeen.length).toBe(before);
    // the data source itself stays readable
    expect((await api(`/data-sources/${id}`)).status).toBe(200);
  });

  it('an editor tests and refreshes; then the kept list is there for everyone with view', async () => {
    const manager = await tenantSession(open.url, 'connection.manager@demo.tributary.test');
    const api = integrations(open.url, manager.headers);
    expect((await api(`/data-sources/${id}/test`, { method: 'POST' })).status).toBe(200);
    expect(internalSeen.at(-1)!.auth).toBe('Bearer ro-token');
    expect((await api(`/data-sources/${id}/objects/refresh`, { method: 'POST' })).status).toBe(200);
    const viewer = await tenantSession(open.url, 'view.only@demo.tributary.test');
    const listed = await integrations(open.url, viewer.headers)(`/data-sources/${id}/objects`);
    expect(listed.status).toBe(200);
    expect((await listed.json() as { objects: unknown[] }).objects).toHaveLength(1);
  });
});

describe('answers are read only up to a limit', () => {
  it('refuses a page of more than 10 MB, also when it arrives compressed', async () => {
    const { api } = await adminOf(open);
    for (const path of ['/big/records', '/bomb/records']) {
      const res = await testSettings(api, 'http', httpSettings(`${internalBase}${path}`));
      expect(res.status, path).toBe(502);
      expect(await res.json()).toMatchObject({ code: 'processing-error', detail: expect.stringContaining('more than 10 MB in one page') });
    }
  });

  it('refuses a sign-in or test answer of more than 1 MB', async () => {
    const { api } = await adminOf(open);
    const res = await testSettings(api, 'bbcrm', { url: `${internalBase}/big/appfxwebservice.asmx`, database: 'BBInfinity', username: 'u', password: 'p' });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ code: 'processing-error', detail: expect.stringContaining('more than 1 MB') });
  });
});
