/**
 * Every system that Tributary only tests for now gets its settings, validation and a
 * test-connection call against its documented authentication endpoint; here each call goes to
 * a local fake of that endpoint (tests/support/vendorFakes.ts), through CONNECTOR_BASE_URL_*.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, connectorFor, secretKeys } from '../../src/domain/connectors/catalogue.ts';
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { baseUrlVariable } from '../../server/connectors/vendorHttp.ts';
import { freePort } from '../../server/db/embedded.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { FAKE_CREDENTIALS as C, FAKED_SYSTEMS, SALESFORCE_REPORTS, startVendorFakes, type VendorFakes } from '../support/vendorFakes.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let fakes: VendorFakes;
let admin: TenantSession;
let api: ReturnType<typeof integrations>;
const savedEnv: Record<string, string | undefined> = {};

/** Valid settings for each system, and one change the vendor refuses. */
const CASES: Partial<Record<SystemId, { settings: Record<string, string>; wrong: Record<string, string>; detail: RegExp }>> = {
  'mailchimp': { settings: { ...C.mailchimp }, wrong: { apiKey: 'ffffffffffffffffffffffffffffffff-us21' }, detail: /Everything's Chimpy/ },
  'gofundme-pro': { settings: { ...C.gofundmePro }, wrong: { clientSecret: 'nope' }, detail: /Riverside Food Bank/ },
  'emma': { settings: { ...C.emma }, wrong: { privateApiKey: 'nope' }, detail: /account 1700123/ },
  'encompass': { settings: { ...C.encompass }, wrong: { clientSecret: 'nope' }, detail: /access token/ },
  'engaging-networks': { settings: { dataCentre: 'us', ...C.engagingNetworks }, wrong: { apiToken: 'nope' }, detail: /accepted/ },
  'everyaction': { settings: { ...C.everyaction }, wrong: { databaseMode: '0' }, detail: /My Campaign/ },
  'renxt': { settings: { ...C.sky }, wrong: { subscriptionKey: 'nope' }, detail: /Riverside Production/ },
  'fenxt': { settings: { ...C.sky }, wrong: { refreshToken: 'nope' }, detail: /Financial Edge NXT/ },
  'bbcrm': { settings: { url: 'https://crm.riverside.org/bbappfx/appfxwebservice.asmx', ...C.appFx }, wrong: { password: 'nope' }, detail: /database BBInfinity/ },
  'altru': { settings: { url: 'https://altru.blackbaudhosting.com/12345ABC/appfxwebservice.asmx', ...C.appFx }, wrong: { database: 'Elsewhere' }, detail: /Altru/ },
  'salesforce': { settings: { environment: 'production', authenticationType: 'username-password', ...C.salesforce }, wrong: { securityToken: 'nope' }, detail: /riverside\.my\.salesforce\.com/ },
  'pardot': { settings: { environment: 'production', ...C.pardot, clientId: C.salesforce.clientId, clientSecret: C.salesforce.clientSecret, username: C.salesforce.username, password: C.salesforce.password, securityToken: C.salesforce.securityToken }, wrong: { businessUnitId: '0Uv5g000000ZZZZZZZ' }, detail: /business unit/ },
  'salesforce-marketing-cloud': { settings: { ...C.sfmc }, wrong: { clientSecret: 'nope' }, detail: /514009999/ },
  'stripe': { settings: { ...C.stripe }, wrong: { secretKey: 'sk_test_51WrongKeyForTheFakeStripe' }, detail: /test mode/ },
  'swoogo': { settings: { ...C.swoogo }, wrong: { consumerSecret: 'nope' }, detail: /access token/ },
  'mobile-commons': { settings: { ...C.mobileCommons }, wrong: { password: 'nope' }, detail: /Signed in/ },
  'givecampus': { settings: { environment: 'production', ...C.givecampus }, wrong: { apiToken: 'nope' }, detail: /production/ },
  'hubspot': { settings: { ...C.hubspot }, wrong: { accessToken: 'pat-na1-99999999-2222-3333-4444-555555555555' }, detail: /24681357/ },
  'luminate-online': { settings: { url: 'https://secure2.convio.net/riverside/site', ...C.luminate }, wrong: { loginPassword: 'nope' }, detail: /API administrator/ },
  'donordrive': { settings: { siteUrl: 'https://riverside.donordrive.com', ...C.donordrive }, wrong: { apiToken: 'nope' }, detail: /riverside\.donordrive\.com/ },
  'wealthengine': { settings: { environment: 'sandbox', ...C.wealthengine }, wrong: { apiKey: 'nope' }, detail: /sandbox/ },
};

const testOnly = CATALOGUE.filter((d) => d.support === 'connection-test').map((d) => d.system);

beforeAll(async () => {
  [server, fakes] = await Promise.all([startTestServer(), startVendorFakes()]);
  for (const system of testOnly) {
    const name = baseUrlVariable(system);
    savedEnv[name] = process.env[name];
    process.env[name] = `${fakes.url}/${system}`;
  }
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  api = integrations(server.url, admin.headers);
});
afterAll(async () => {
  for (const [k, v] of Object.entries(savedEnv)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  await server?.close();
  await fakes?.close();
});

const test = (system: SystemId, settings: Record<string, string>) => api('/data-sources/test', { method: 'POST', body: { system, settings } });

describe('vendor fakes', () => {
  it('cover every system that has a connection test (and every one has a case here)', () => {
    expect([...FAKED_SYSTEMS].sort()).toEqual([...testOnly].sort());
    expect(Object.keys(CASES).filter((s) => s !== 'constant-contact').sort()).toEqual(testOnly.filter((s) => s !== 'constant-contact').sort());
  });
});

describe.each(Object.entries(CASES) as [SystemId, NonNullable<(typeof CASES)[SystemId]>][])('%s connection test', (system, c) => {
  it('succeeds with the credentials the vendor accepts', async () => {
    const res = await test(system, c.settings);
    const body = await res.json() as { status: string; detail: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe('success');
    expect(body.detail).toMatch(c.detail);
    expect(fakes.seen.some((s) => s.system === system)).toBe(true);
  });

  it('reports refused credentials as Connection Failed (clientdatasource-connection-failed)', async () => {
    const res = await test(system, { ...c.settings, ...c.wrong });
    expect(res.status).toBe(422);
    const body = await res.json() as { title: string; code: string; detail: string };
    expect(body).toMatchObject({ title: 'connection-failed', code: 'clientdatasource-connection-failed' });
    // no secret, refused or right, is ever repeated back
    for (const key of secretKeys(connectorFor(system).settings)) {
      for (const v of [c.settings[key], c.wrong[key]]) if (v) expect(body.detail).not.toContain(v);
    }
  });

  it('reports an outage as Connection Error (processing-error)', async () => {
    fakes.outage.add(system);
    try {
      const res = await test(system, c.settings);
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ title: 'connection-error', code: 'processing-error' });
    } finally {
      fakes.outage.delete(system);
    }
  });
});

describe('failures to reach a vendor', () => {
  it('says the vendor refused the connection when nothing listens at its address', async () => {
    const name = baseUrlVariable('stripe');
    const before = process.env[name];
    process.env[name] = `http://127.0.0.1:${await freePort()}`;
    try {
      const res = await test('stripe', { ...C.stripe });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: expect.stringContaining('Stripe refused the connection') });
    } finally {
      process.env[name] = before;
    }
  });

  it('validates settings before calling anyone', async () => {
    const seenBefore = fakes.seen.length;
    const res = await test('mailchimp', { apiKey: 'no-datacentre' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'validation-failed', errors: { apiKey: expect.stringContaining('data centre') } });
    expect(fakes.seen.length).toBe(seenBefore);
  });
});

describe('Constant Contact refresh tokens', () => {
  it('keeps the rotated refresh token of a saved data source, so the next test still signs in', async () => {
    const created = await api('/data-sources', {
      method: 'POST',
      body: { system: 'constant-contact', displayName: 'Newsletter', settings: { ...C.constantContact, refreshToken: fakes.constantContactRefreshToken() } },
    });
    const { id } = await created.json() as { id: string };
    for (let i = 0; i < 3; i++) {
      const res = await api(`/data-sources/${id}/test`, { method: 'POST' });
      expect(res.status).toBe(200);
      expect((await res.json() as { detail: string }).detail).toContain('Riverside Youth Arts');
    }
    // the browser still sees only that a token is saved
    expect((await (await api(`/data-sources/${id}`)).json() as { settings: Record<string, unknown> }).settings.refreshToken).toEqual({ saved: true });
  });
});

describe('Salesforce reports', () => {
  let id: string;
  beforeAll(async () => {
    const created = await api('/data-sources', { method: 'POST', body: { system: 'salesforce', displayName: 'Salesforce', settings: CASES.salesforce!.settings } });
    ({ id } = await created.json() as { id: string });
  });
  const check = (reportId: string) => api(`/data-sources/${id}/salesforce/reports/${reportId}`);

  it('accepts a report with a standard date filter', async () => {
    const res = await check(SALESFORCE_REPORTS.good);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ reportId: SALESFORCE_REPORTS.good, name: 'Gifts this week', dateFilterColumn: 'CLOSE_DATE' });
  });
  it('answers Invalid Report ID for a malformed or unknown id', async () => {
    for (const reportId of ['not-a-report', '0015g00000AbCdEAAA', SALESFORCE_REPORTS.missing]) {
      const res = await check(reportId);
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ title: 'invalid-report-id' });
    }
  });
  it('answers Add Date Filter for a report without a standard date filter', async () => {
    expect(await (await check(SALESFORCE_REPORTS.noDateFilter)).json()).toMatchObject({ title: 'report-date-filter' });
  });
  it('answers Missing Access for a report the user cannot read', async () => {
    expect(await (await check(SALESFORCE_REPORTS.noAccess)).json()).toMatchObject({ title: 'report-missing-access' });
  });
});
