/**
 * Salesforce's connection test through the API against a local fake of its documented sign-in
 * (tests/support/vendorFakes.ts), through CONNECTOR_BASE_URL_*: success, refused settings, an
 * outage, nothing listening. Salesforce also pulls a report's rows (Analytics API), here from the
 * fake's report. No system is left that Tributary only tests: every other one has its own fake
 * and tests (tests/support/vendors/, tests/api/*Connector*.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorContext, PullOptions, SourceRecord } from '../../server/connectors/connector.ts';
import { salesforceConnector } from '../../server/connectors/salesforce/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
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
  'salesforce': { settings: { environment: 'production', authenticationType: 'username-password', ...C.salesforce }, wrong: { securityToken: 'nope' }, detail: /riverside\.my\.salesforce\.com/ },
};

/** the systems these fakes answer for: Salesforce's sign-in and reports (its objects have their own fake) */
const faked: SystemId[] = ['salesforce'];

beforeAll(async () => {
  [server, fakes] = await Promise.all([startTestServer(), startVendorFakes()]);
  for (const system of faked) {
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
  it('cover Salesforce\'s sign-in (and it has a case here); no system is left that Tributary only tests', () => {
    expect(CATALOGUE.filter((d) => d.support !== 'full')).toEqual([]);
    expect([...FAKED_SYSTEMS].sort()).toEqual([...faked].sort());
    expect(Object.keys(CASES).sort()).toEqual([...faked].sort());
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
    const name = baseUrlVariable('swoogo');
    const before = process.env[name];
    process.env[name] = `http://127.0.0.1:${await freePort()}`;
    try {
      const res = await test('swoogo', { ...C.swoogo });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: expect.stringContaining('Swoogo refused the connection') });
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

describe('Salesforce report rows', () => {
  const DAY = 86_400_000;
  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);
  const ctx = (): ConnectorContext => ({ tenant: forTenant(server.database.db, admin.tenantId), settings: CASES.salesforce!.settings, dataDir: server.config.dataDir });
  const gift = (n: number, daysAgo: number) => ({ id: `0065g00000Gift${String(n).padStart(4, '0')}`, name: `Gift ${n}`, amount: n * 10, closeDate: day(daysAgo) });
  async function pullAll(since: string | null, options: PullOptions = {}) {
    const records: SourceRecord[] = [];
    let watermark: string | null = since;
    for await (const b of salesforceConnector.pull(ctx(), 'Opportunity', since, { ...options, settings: { reportId: SALESFORCE_REPORTS.good, ...options.settings } })) {
      records.push(...b.records);
      watermark = b.watermark;
    }
    return { records, watermark };
  }
  beforeEach(() => {
    Object.assign(fakes.salesforceReport, { gifts: [gift(1, 40), gift(2, 10), gift(3, 3), gift(4, 0)], rowLimit: 2000, failWith: null, runs: [] });
  });

  it('reads every row up to today on the first pull, then from the watermark\'s day', async () => {
    const first = await pullAll(null);
    expect(first.records.map((r) => r.id)).toEqual(['0065g00000Gift0001', '0065g00000Gift0002', '0065g00000Gift0003', '0065g00000Gift0004']);
    expect(first.records[1]!.fields).toEqual({ OPPORTUNITY_ID: '0065g00000Gift0002', OPPORTUNITY_NAME: 'Gift 2', AMOUNT: 20, CLOSE_DATE: day(10) });
    expect(fakes.salesforceReport.runs).toEqual([{ column: 'CLOSE_DATE', durationValue: 'CUSTOM', startDate: '1900-01-01', endDate: day(-1) }]);
    expect(first.watermark).toBe(day(1));

    fakes.salesforceReport.runs.length = 0;
    const next = await pullAll(day(5));
    expect(next.records.map((r) => r.id)).toEqual(['0065g00000Gift0003', '0065g00000Gift0004']);
    expect(fakes.salesforceReport.runs[0]).toMatchObject({ startDate: day(5), endDate: day(-1) });
  });

  it('run once reads the window\'s days and moves no watermark', async () => {
    const window = { from: new Date(Date.now() - 15 * DAY), to: new Date(Date.now() - 2 * DAY) };
    const once = await pullAll(day(30), { window });
    expect(once.records.map((r) => r.fields.OPPORTUNITY_NAME)).toEqual(['Gift 2', 'Gift 3']);
    expect(fakes.salesforceReport.runs).toEqual([{ column: 'CLOSE_DATE', durationValue: 'CUSTOM', startDate: day(15), endDate: day(2) }]);
    expect(once.watermark).toBe(day(30));
  });

  it('splits a period whose rows do not fit in one run until every part does', async () => {
    fakes.salesforceReport.gifts = Array.from({ length: 12 }, (_, i) => gift(i + 1, 24 - i * 2));
    fakes.salesforceReport.rowLimit = 3;
    const { records } = await pullAll(day(30));
    expect(records.map((r) => r.fields.OPPORTUNITY_NAME)).toEqual(Array.from({ length: 12 }, (_, i) => `Gift ${i + 1}`));
    expect(fakes.salesforceReport.runs.length).toBeGreaterThan(4);

    // more rows on one day than a run answers cannot be split
    fakes.salesforceReport.gifts = [gift(1, 3), gift(2, 3), gift(3, 3), gift(4, 3)];
    await expect(pullAll(day(5))).rejects.toMatchObject({ code: 'processing-error', message: expect.stringContaining(`more than 2,000 rows dated ${day(3)}`) });
  });

  it('marks an outage or a rate limit as worth retrying, and a report without a date filter as not', async () => {
    for (const status of [503, 429]) {
      fakes.salesforceReport.failWith = status;
      await expect(pullAll(null)).rejects.toMatchObject({ code: 'processing-error', transient: true });
    }
    fakes.salesforceReport.failWith = null;
    fakes.outage.add('salesforce');
    try {
      await expect(pullAll(null)).rejects.toMatchObject({ code: 'processing-error', transient: true });
    } finally {
      fakes.outage.delete('salesforce');
    }
    await expect(pullAll(null, { settings: { reportId: SALESFORCE_REPORTS.noDateFilter } }))
      .rejects.toMatchObject({ code: 'clientdatasource-connection-failed', transient: false, message: expect.stringContaining('Add a standard date filter') });
    await expect(pullAll(null, { settings: { reportId: SALESFORCE_REPORTS.noAccess } })).rejects.toMatchObject({ message: expect.stringContaining('cannot read report') });
  });

  it('without a report, pulls the object through the REST API instead (tests/api/salesforceConnector.test.ts reads them)', async () => {
    fakes.seen.length = 0;
    // this fake answers sign-in and reports only: the object's describe is not found here
    await expect((async () => { for await (const b of salesforceConnector.pull(ctx(), 'Contact', null)) void b; })()).rejects.toThrow('This Salesforce org has no object Contact.');
    expect(fakes.seen.map((r) => r.path)).toContain('/services/data/v62.0/sobjects/Contact/describe');
  });
});
