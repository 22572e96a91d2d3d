/**
 * Salesforce objects through the connector kit, against the local fake org
 * (tests/support/vendors/salesforce.ts): our requests as Salesforce documents them (contract: the
 * token request, one API version, SOQL queries, sObject Collections bodies) and its documented
 * answers parsed (query pages with nextRecordsUrl, describe, per-record save results, error
 * lists, Sforce-Limit-Info), paging with watermarks, searches that no record value can rewrite,
 * writes never doubled, and the vendor's limits.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorContext, PullBatch, UpsertItem } from '../../server/connectors/connector.ts';
import { sealColumns } from '../../server/connectors/dataSources.ts';
import { GrantRevoked, QuotaExhausted } from '../../server/connectors/kit/problems.ts';
import { checkSalesforceReport, salesforceConnector } from '../../server/connectors/salesforce/connector.ts';
import { BULK_POLL, BULK_THRESHOLD } from '../../server/connectors/salesforce/bulk.ts';
import { limitInfo, salesforceApi, SALESFORCE_API_VERSION, salesforceTokenUrl } from '../../server/connectors/salesforce/client.ts';
import { soqlString } from '../../server/connectors/salesforce/soql.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { forTenant, type TenantScope } from '../../server/db/tenancy.ts';
import { createTestDatabase } from '../support/database.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { parseSoql, SF_APP, SF_INSTANCE, startFakeSalesforce, type FakeSalesforce } from '../support/vendors/salesforce.ts';
import { contextFor, pullAll } from '../support/connectorContext.ts';

let scratch: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let tenant: TenantScope;
let sf: FakeSalesforce;
const box = createSecretBox(Buffer.alloc(32, 9));
let vendor: VendorFakeSetup<FakeSalesforce>;
const PASSWORD = { environment: 'production', authenticationType: 'username-password', clientId: SF_APP.clientId, username: SF_APP.username };
const PASSWORD_SECRETS = { clientSecret: SF_APP.clientSecret, password: SF_APP.password, securityToken: SF_APP.securityToken };

beforeAll(async () => {
  [scratch, vendor] = await Promise.all([createTestDatabase(), withVendorFake('salesforce', startFakeSalesforce)]);
  sf = vendor.fake;
  database = await openDatabase(scratch.url);
  // the demo tenants without their Sandbox CRM's constituents: nothing here reads them
  await seedDemo(database.db, async () => {});
  const { rows } = await database.pool.query<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]);
  tenant = forTenant(database.db, rows[0]!.id);
}, 60_000);
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
  await vendor?.close();
});

async function dataSource(settings: Record<string, string> = PASSWORD, secrets: Record<string, string> = PASSWORD_SECRETS): Promise<string> {
  const id = crypto.randomUUID();
  await tenant.dataSources.insert({ id, system: 'salesforce', displayName: `SF ${id.slice(0, 8)}`, settings, ...sealColumns(box, tenant.tenantId, id, secrets) });
  return id;
}
const ctxFor = (id: string, endSettings: Record<string, string> = {}) => contextFor(tenant, box, id, endSettings);
/** the first batch only, as a run killed after storing it would have read */
async function firstOf(it: AsyncIterable<PullBatch>): Promise<PullBatch> {
  for await (const b of it) return b;
  throw new Error('no batch');
}
const all = pullAll;
const apiCalls = () => sf.seen.filter((s) => s.path !== '/services/oauth2/token');
const writes = () => apiCalls().filter((s) => s.method !== 'GET').map((s) => `${s.method} ${s.path}`);

let ds: string;
beforeEach(async () => {
  sf.seen.length = 0;
  sf.queries.length = 0;
  sf.apiUsed = 0;
  sf.records.Contact!.clear();
  sf.records.Account!.clear();
  ds = await dataSource();
});

describe('the client', () => {
  it('signs in at the login host\'s token endpoint, calls the instance under one API version, reads Sforce-Limit-Info, and reuses its token', async () => {
    const ctx = await ctxFor(ds);
    const api = salesforceApi(ctx);
    await api.call({ path: `/services/data/${SALESFORCE_API_VERSION}/sobjects` });
    await salesforceConnector.listObjects(await ctxFor(ds));
    const tokens = sf.seen.filter((s) => s.path === '/services/oauth2/token');
    expect(tokens).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(tokens[0]!.body as string))).toEqual({
      grant_type: 'password', client_id: SF_APP.clientId, client_secret: SF_APP.clientSecret, username: SF_APP.username, password: `${SF_APP.password}${SF_APP.securityToken}`,
    });
    expect(tokens[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...sf.versions]).toEqual([SALESFORCE_API_VERSION]);
    for (const c of apiCalls()) expect(c.headers.authorization).toMatch(/^Bearer 00DRv!sf-access-/);
    expect(api.usage()).toEqual({ used: 1, max: 15000 });
    // the instance URL from the token's answer is kept with the token, and serves another session that reuses it
    expect(api.instanceUrl()).toBe(SF_INSTANCE);
    const later = salesforceApi(await ctxFor(ds));
    await later.call({ path: `/services/data/${SALESFORCE_API_VERSION}/sobjects` });
    expect(later.instanceUrl()).toBe(SF_INSTANCE);
    expect(sf.seen.filter((s) => s.path === '/services/oauth2/token')).toHaveLength(1);
    expect(limitInfo('api-usage=25/5000; per-app-api-usage=17/250(appName=sample-connected-app)')).toEqual({ used: 25, max: 5000 });
    // a session Salesforce ended early (401 INVALID_SESSION_ID): signed in again once, and the call goes on
    sf.expireTokens();
    await expect(later.call({ path: `/services/data/${SALESFORCE_API_VERSION}/sobjects` })).resolves.toBeTruthy();
    expect(sf.seen.filter((s) => s.path === '/services/oauth2/token')).toHaveLength(2);
  });

  it('signs in at the login host of the org: production, a sandbox, or its My Domain', () => {
    expect(salesforceTokenUrl({ environment: 'production' })).toBe('https://login.salesforce.com/services/oauth2/token');
    expect(salesforceTokenUrl({ environment: 'sandbox' })).toBe('https://test.salesforce.com/services/oauth2/token');
    expect(salesforceTokenUrl({ environment: 'sandbox', customDomain: 'riverside--uat.sandbox.my.salesforce.com' })).toBe('https://riverside--uat.sandbox.my.salesforce.com/services/oauth2/token');
  });

  it('waits out 503 with Retry-After; a spent daily allowance (403 REQUEST_LIMIT_EXCEEDED) is QuotaExhausted', async () => {
    const ctx = await ctxFor(ds);
    sf.throttle(2, 0);
    await expect(salesforceConnector.describeFields(ctx, 'Contact')).resolves.toBeTruthy();
    expect(apiCalls().filter((c) => c.path.endsWith('/sobjects/Contact/describe'))).toHaveLength(3);
    sf.apiUsed = sf.apiLimit;
    const error = await salesforceConnector.search(await ctxFor(ds), 'Contact', { criteria: [{ field: 'Email', value: 'x@example.org' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExhausted);
    expect((error as Error).message).toMatch(/^Salesforce's daily API request allowance is spent \(15000 of 15000 requests used\); the formula goes on at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
  });

  it('a refresh token Salesforce refuses: the data source needs reconnecting, in words', async () => {
    const oauth = await dataSource({ environment: 'production', authenticationType: 'oauth', clientId: SF_APP.clientId }, { clientSecret: SF_APP.clientSecret, refreshToken: sf.grant() });
    await expect(salesforceConnector.listObjects(await ctxFor(oauth))).resolves.toBeTruthy();
    const refresh = sf.seen.find((s) => s.path === '/services/oauth2/token')!;
    expect(new URLSearchParams(refresh.body as string).get('grant_type')).toBe('refresh_token');
    sf.revoke();
    await tenant.vendorState.dropToken(oauth);
    const error = await salesforceConnector.listObjects(await ctxFor(oauth)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantRevoked);
    expect((error as Error).message).toBe("Salesforce no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.");
    expect((await tenant.dataSources.get(oauth))!.needsReconnecting).toMatch(/needs reconnecting/);
  });

  it('a refresh token Salesforce refuses while a report is checked or pulled: the data source needs reconnecting too', async () => {
    const REPORT = '00O5g000004GiftAAA';
    for (const meet of [
      (ctx: ConnectorContext) => checkSalesforceReport(ctx, REPORT),
      async (ctx: ConnectorContext) => { for await (const b of salesforceConnector.pull(ctx, 'Opportunity', null, { settings: { reportId: REPORT } })) void b; },
    ]) {
      const oauth = await dataSource({ environment: 'production', authenticationType: 'oauth', clientId: SF_APP.clientId }, { clientSecret: SF_APP.clientSecret, refreshToken: sf.grant() });
      sf.revoke();
      const error = await meet(await ctxFor(oauth)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GrantRevoked);
      expect((await tenant.dataSources.get(oauth))!.needsReconnecting).toMatch(/needs reconnecting/);
    }
  });
});

describe('objects and fields', () => {
  it('lists the org\'s queryable objects (custom ones included) and describes fields with custom fields, types and required ones', async () => {
    const ctx = await ctxFor(ds);
    const objects = (await salesforceConnector.listObjects(ctx)).map((o) => o.name);
    expect(objects).toEqual(['Account', 'Contact', 'npe03__Recurring_Donation__c', 'npsp__DataImport__c', 'Volunteer_Shift__c']);
    const fields = await salesforceConnector.describeFields(ctx, 'Contact');
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    expect(byName.LastName).toMatchObject({ type: 'string', required: true, searchable: true });
    expect(byName.Email).toMatchObject({ type: 'email', searchable: true });
    expect(byName.Birthdate).toMatchObject({ type: 'date' });
    expect(byName.Tributary_Id__c).toMatchObject({ label: 'Tributary ID (custom field)' });
    expect(byName.Volunteer_Skills__c).toBeTruthy();
    expect(byName.MailingAddress).toBeUndefined(); // a compound field: read and written through its parts
    await expect(salesforceConnector.describeFields(ctx, 'Nope__c')).rejects.toThrow('This Salesforce org has no object Nope__c.');
  });
});

describe('as a source', () => {
  it('reads any object by SOQL, page by page through nextRecordsUrl, with SystemModstamp as the watermark', async () => {
    for (let i = 0; i < 250; i++) sf.addContact({ FirstName: `P${i}`, LastName: 'Source', Email: `p${i}@example.org`, Volunteer_Skills__c: i === 0 ? 'Cooking' : null });
    const ctx = await ctxFor(ds);
    const batches = await all(salesforceConnector.pull(ctx, 'Contact', null, { batchSize: 200 }));
    expect(batches.map((b) => b.records.length)).toEqual([200, 50]);
    const first = batches[0]!.records[0]!;
    expect(first.id).toMatch(/^003/);
    expect(first.fields).toMatchObject({ FirstName: 'P0', LastName: 'Source', Email: 'p0@example.org', Volunteer_Skills__c: 'Cooking', AccountId: expect.stringMatching(/^001/) });
    expect(first.fields).not.toHaveProperty('attributes');
    const soql = parseSoql(sf.queries[0]!);
    expect(soql).toMatchObject({ object: 'Contact', where: null, order: [{ field: 'SystemModstamp', desc: false }, { field: 'Id', desc: false }] });
    expect(soql.fields).toEqual(expect.arrayContaining(['Id', 'Email', 'SystemModstamp', 'Tributary_Id__c']));
    const queries = apiCalls().filter((c) => c.path.includes('/query'));
    expect(queries.map((c) => c.headers['sforce-query-options'])).toEqual(['batchSize=200', 'batchSize=200']);
    expect(queries[1]!.path).toMatch(new RegExp(`^/services/data/${SALESFORCE_API_VERSION.replace('.', '\\.')}/query/01g`));
    // mid-pull, the watermark holds the next page; the last one, the latest SystemModstamp
    expect(JSON.parse(batches[0]!.watermark!)).toMatchObject({ next: expect.stringMatching(/\/query\/01g/) });
    const end = JSON.parse(batches[1]!.watermark!) as { since: string };
    expect(end.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    // a later pull reads only what changed since
    sf.queries.length = 0;
    const later = sf.addContact({ LastName: 'Later', Email: 'later@example.org' });
    const again = (await all(salesforceConnector.pull(ctx, 'Contact', batches[1]!.watermark, {}))).flatMap((b) => b.records.map((r) => r.id));
    expect(again).toContain(later.Id);
    expect(again).not.toContain(first.id);
    expect(parseSoql(sf.queries[0]!).where).toEqual({ field: 'SystemModstamp', op: '>=', value: { lit: end.since } });
  });

  it('reads through queryAll where the object allows it: a record deleted since the watermark comes with IsDeleted true, a deletion the engine omits', async () => {
    const kept = sf.addContact({ LastName: 'Kept', Email: 'kept@example.org' });
    const gone = sf.addContact({ LastName: 'Gone', Email: 'gone@example.org' });
    const ctx = await ctxFor(ds);
    const first = await all(salesforceConnector.pull(ctx, 'Contact', null, {}));
    sf.queried.length = 0;
    sf.remove('Contact', String(gone.Id));
    const again = (await all(salesforceConnector.pull(ctx, 'Contact', first.at(-1)!.watermark, {}))).flatMap((b) => b.records);
    expect(sf.queried).toEqual(['queryAll']);
    expect(apiCalls().some((c) => new RegExp(`^/services/data/${SALESFORCE_API_VERSION.replace('.', '\\.')}/queryAll$`).test(c.path))).toBe(true);
    const deleted = again.find((r) => r.id === gone.Id)!;
    expect(deleted.fields).toMatchObject({ LastName: 'Gone', IsDeleted: true });
    expect(salesforceConnector.deletion!(deleted.fields)).toBe('Deleted in Salesforce');
    expect(salesforceConnector.deletion!({ ...kept })).toBeNull();
    // a search never offers a deleted record as a match
    expect(await salesforceConnector.search(ctx, 'Contact', { criteria: [{ field: 'Email', operator: 'equals', value: 'gone@example.org' }] })).toEqual([]);
  });

  it('a pull killed between batches goes on from the next page; a link Salesforce let expire starts the same query again', async () => {
    for (let i = 0; i < 210; i++) sf.addContact({ LastName: `Resume${i}` });
    const ctx = await ctxFor(ds);
    const firstBatch = await firstOf(salesforceConnector.pull(ctx, 'Contact', null, { batchSize: 200 }));
    const rest = await all(salesforceConnector.pull(ctx, 'Contact', firstBatch.watermark, { batchSize: 200 }));
    expect(rest.flatMap((b) => b.records)).toHaveLength(10);
    expect(apiCalls().filter((c) => c.path.includes('/query')).at(-1)!.path).toBe(JSON.parse(firstBatch.watermark!).next);
    sf.forgetLocators();
    const restarted = (await all(salesforceConnector.pull(ctx, 'Contact', firstBatch.watermark, { batchSize: 200 }))).flatMap((b) => b.records);
    expect(restarted).toHaveLength(210);
  });

  it('run once reads only the window\'s changes and moves no watermark', async () => {
    sf.addContact({ LastName: 'Before' });
    const inside = sf.addContact({ LastName: 'Inside' });
    const ctx = await ctxFor(ds);
    const stamp = Date.parse(String(inside.SystemModstamp).replace('+0000', 'Z'));
    const window = { from: new Date(stamp), to: new Date(stamp + 1000) };
    const batches = await all(salesforceConnector.pull(ctx, 'Contact', '{"since":null}', { window }));
    expect(batches.flatMap((b) => b.records.map((r) => r.fields.LastName))).toEqual(['Inside']);
    expect(batches.every((b) => b.watermark === '{"since":null}')).toBe(true);
    expect(parseSoql(sf.queries.at(-1)!).where).toEqual({ and: [
      { field: 'SystemModstamp', op: '>=', value: { lit: `${window.from.toISOString().slice(0, 19)}Z` } },
      { field: 'SystemModstamp', op: '<', value: { lit: `${window.to.toISOString().slice(0, 19)}Z` } },
    ] });
  });

  it('keeps the report source: a formula naming a report reads its rows', async () => {
    await expect(all(salesforceConnector.pull(await ctxFor(ds), 'Contact', null, { settings: { reportId: 'not-a-report' } }))).rejects.toThrow('A report ID starts with 00O');
  });
});

describe('as a destination', () => {
  it('searches a batch\'s scenarios in one SOQL query, each value a literal: quotes and backslashes in a record cannot change the query', async () => {
    const ada = sf.addContact({ FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@analytical.example', MailingPostalCode: '97201' });
    const quoted = sf.addContact({ FirstName: "O'Brien", LastName: 'Back\\slash', Email: 'ob@example.org' });
    sf.addContact({ FirstName: 'Grace', LastName: 'Hopper', Email: 'grace@navy.example' });
    const attack = "x' OR LastName != 'y";
    const attack2 = "\\' OR Email != null OR Email = '";
    const ctx = await ctxFor(ds);
    const [byEmail, byName, withQuotes, injected, injected2, wrongType] = await salesforceConnector.searchMany!(ctx, 'Contact', [
      { criteria: [{ field: 'Email', value: 'ADA@analytical.example' }] },
      { criteria: [{ field: 'FirstName', value: 'Ada' }, { field: 'LastName', value: 'Lovelace' }, { field: 'MailingPostalCode', value: '97201' }] },
      { criteria: [{ field: 'FirstName', value: "O'Brien" }, { field: 'LastName', value: 'Back\\slash' }] },
      { criteria: [{ field: 'Email', value: attack }] },
      { criteria: [{ field: 'LastName', value: attack2, operator: 'contains' }] },
      { criteria: [{ field: 'Birthdate', value: "2020-01-01' OR Id != '" }] },
    ]);
    expect(byEmail).toEqual([expect.objectContaining({ id: ada.Id, fields: expect.objectContaining({ FirstName: 'Ada', Email: 'ada@analytical.example' }) })]);
    expect(byName!.map((r) => r.id)).toEqual([ada.Id]);
    expect(withQuotes!.map((r) => r.id)).toEqual([quoted.Id]);
    expect(injected).toEqual([]);
    expect(injected2).toEqual([]);
    expect(wrongType).toEqual([]);
    // one query for the batch, and the values in it are the records' values, whole, as literals
    expect(sf.queries).toHaveLength(1);
    const where = parseSoql(sf.queries[0]!).where as { or: unknown[] };
    expect(where.or).toHaveLength(5);
    expect(where.or[3]).toEqual({ field: 'Email', op: '=', value: { str: attack } });
    expect(where.or[4]).toEqual({ field: 'LastName', op: 'LIKE', value: { str: `%${attack2}%` } });
    expect(sf.queries[0]).toContain(soqlString(attack));
    await expect(salesforceConnector.search(ctx, 'Contact', { criteria: [{ field: "Email = '' OR Id", value: 'x' }] })).rejects.toThrow("Salesforce's Contact has no field Email = '' OR Id.");
  });

  it('a batch\'s answer cut short by its LIMIT: each search is asked alone, so no candidate is missed', async () => {
    for (let i = 0; i < 45; i++) sf.addContact({ LastName: 'Smith', Email: `smith${i}@example.org` });
    const last = sf.addContact({ LastName: 'Zed', Email: 'zed@example.org' });
    const [smiths, zed] = await salesforceConnector.searchMany!(await ctxFor(ds), 'Contact', [
      { criteria: [{ field: 'LastName', value: 'Smith' }] }, { criteria: [{ field: 'Email', value: 'zed@example.org' }] },
    ]);
    expect(smiths).toHaveLength(10);
    expect(zed!.map((r) => r.id)).toEqual([last.Id]);
    expect(sf.queries).toHaveLength(3);
  });

  it('a batch of searches goes in as few queries as fit Salesforce\'s request URI (16,384 bytes) and 50 searches each', async () => {
    const long = (i: number) => ({ criteria: [{ field: 'Email', value: `${'x'.repeat(400)}${i}@example.org` }] });
    await salesforceConnector.searchMany!(await ctxFor(ds), 'Contact', Array.from({ length: 120 }, (_, i) => long(i)));
    const uris = apiCalls().filter((c) => c.path.endsWith('/query')).map((c) => new URL(`${SF_INSTANCE}${c.path}?q=${encodeURIComponent(c.query.q!)}`).toString());
    expect(uris.length).toBeGreaterThan(3);
    expect(uris.length).toBeLessThan(12);
    for (const uri of uris) expect(Buffer.byteLength(uri)).toBeLessThanOrEqual(16_384);
    sf.seen.length = 0;
    await salesforceConnector.searchMany!(await ctxFor(ds), 'Contact', Array.from({ length: 120 }, (_, i) => ({ criteria: [{ field: 'Email', value: `s${i}@example.org` }] })));
    expect(apiCalls().filter((c) => c.path.endsWith('/query'))).toHaveLength(3);
  });

  it('creates with sObject Collections, allOrNone false: refused records fail alone with Salesforce\'s words; NPSP gives each Contact its Household Account; the same keys again write nothing', async () => {
    sf.addContact({ LastName: 'Existing', Email: 'taken@example.org' });
    const items: UpsertItem[] = [
      { idempotencyKey: `${ds}-1`, fields: { FirstName: 'Grace', LastName: 'Hopper', Email: 'grace@navy.example', Birthdate: '1906-12-09', HasOptedOutOfEmail: 'no' } },
      { idempotencyKey: `${ds}-2`, fields: { FirstName: 'Nameless', Email: 'nameless@example.org' } },
      { idempotencyKey: `${ds}-3`, fields: { LastName: 'Twin', Email: 'TAKEN@example.org' } },
      { idempotencyKey: `${ds}-4`, fields: { LastName: 'Calc', npo02__TotalOppAmount__c: 5 } },
    ];
    const results = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', items);
    expect(results[0]).toMatchObject({ outcome: 'created', replayed: false, id: expect.stringMatching(/^003/) });
    expect(results[1]).toMatchObject({ outcome: 'failed', error: 'Salesforce refused the record: REQUIRED_FIELD_MISSING: Required fields are missing: [LastName] (LastName)' });
    expect(results[2]).toMatchObject({ outcome: 'failed', error: 'Salesforce refused the record: DUPLICATES_DETECTED: Use one of these records?' });
    expect(results[3]).toMatchObject({ outcome: 'failed', error: 'Salesforce does not let Tributary write npo02__TotalOppAmount__c of a Contact.' });
    const grace = sf.records.Contact!.get(results[0]!.id)!;
    expect(grace).toMatchObject({ FirstName: 'Grace', Birthdate: '1906-12-09', HasOptedOutOfEmail: false });
    expect(sf.records.Account!.get(String(grace.AccountId))).toMatchObject({ Name: 'Hopper Household', npe01__SYSTEM_AccountType__c: 'Household Account' });
    const post = apiCalls().find((c) => c.method === 'POST')!;
    expect(post.path).toBe(`/services/data/${SALESFORCE_API_VERSION}/composite/sobjects`);
    expect(post.body).toEqual({ allOrNone: false, records: [
      { attributes: { type: 'Contact' }, FirstName: 'Grace', LastName: 'Hopper', Email: 'grace@navy.example', Birthdate: '1906-12-09', HasOptedOutOfEmail: false },
      { attributes: { type: 'Contact' }, FirstName: 'Nameless', Email: 'nameless@example.org' },
      { attributes: { type: 'Contact' }, LastName: 'Twin', Email: 'TAKEN@example.org' },
    ] });
    // refused keys stay free; the created one answers from the ledger
    expect((await tenant.vendorState.writes(ds, 'Contact', [`${ds}-2`])).has(`${ds}-2`)).toBe(false);
    sf.seen.length = 0;
    const [again] = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', [items[0]!]);
    expect(again).toMatchObject({ id: results[0]!.id, outcome: 'created', replayed: true });
    expect(writes()).toEqual([]);
  });

  it('sends 200 records a request', async () => {
    const items = Array.from({ length: 201 }, (_, i): UpsertItem => ({ idempotencyKey: `${ds}-many-${i}`, fields: { LastName: `Many${i}` } }));
    const results = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', items);
    expect(results.every((r) => r.outcome === 'created')).toBe(true);
    const posts = apiCalls().filter((c) => c.method === 'POST');
    expect(posts.map((p) => (p.body as { records: unknown[] }).records.length)).toEqual([200, 1]);
  });

  it('after a crash between Salesforce\'s answer and our record, a retry finds what was created instead of creating it again', async () => {
    const key = `${ds}-crash`;
    await tenant.vendorState.beginWrite(ds, 'Contact', key);
    const first = sf.addContact({ FirstName: 'Katherine', LastName: 'Johnson', Email: 'katherine@nasa.example' });
    const [retry] = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', [{ idempotencyKey: key, fields: { FirstName: 'Katherine', LastName: 'Johnson', Email: 'katherine@nasa.example' } }]);
    expect(retry).toMatchObject({ id: first.Id, outcome: 'created', replayed: true });
    expect(writes()).toEqual([]);
  });

  it('upserts by the External ID field the formula names, and updates existing records by id', async () => {
    const ctx = await ctxFor(ds, { externalIdField: 'Tributary_Id__c' });
    const item: UpsertItem = { idempotencyKey: `${ds}-ext`, fields: { LastName: 'Easley', Email: 'annie@nasa.example', Tributary_Id__c: 'T-1' } };
    const [made] = await salesforceConnector.upsert(ctx, 'Contact', [item]);
    expect(made).toMatchObject({ outcome: 'created' });
    const [again] = await salesforceConnector.upsert(await ctxFor(ds, { externalIdField: 'Tributary_Id__c' }), 'Contact', [{ ...item, fields: { ...item.fields, FirstName: 'Annie' } }]);
    expect(again).toMatchObject({ id: made!.id, outcome: 'updated' });
    expect([...sf.records.Contact!.values()].filter((c) => c.Tributary_Id__c === 'T-1')).toHaveLength(1);
    expect(writes()).toEqual([`PATCH /services/data/${SALESFORCE_API_VERSION}/composite/sobjects/Contact/Tributary_Id__c`, `PATCH /services/data/${SALESFORCE_API_VERSION}/composite/sobjects/Contact/Tributary_Id__c`]);

    sf.seen.length = 0;
    const [updated, cleared] = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', [
      { idempotencyKey: `${ds}-u`, id: made!.id, fields: { Phone: '503-555-0100' } },
      { idempotencyKey: `${ds}-u2`, id: made!.id, fields: { LastName: null } },
    ]);
    expect(updated).toMatchObject({ id: made!.id, outcome: 'updated' });
    expect(sf.records.Contact!.get(made!.id)).toMatchObject({ Phone: '503-555-0100' });
    expect(cleared).toMatchObject({ outcome: 'failed', error: 'Salesforce refused the record: REQUIRED_FIELD_MISSING: Required fields are missing: [LastName] (LastName)' });
    expect(apiCalls().find((c) => c.method === 'PATCH')!.body).toEqual({ allOrNone: false, records: [
      { attributes: { type: 'Contact' }, Phone: '503-555-0100', id: made!.id }, { attributes: { type: 'Contact' }, LastName: null, id: made!.id },
    ] });
    await expect(salesforceConnector.upsert(await ctxFor(ds, { externalIdField: 'Email' }), 'Contact', [item])).rejects.toThrow("Salesforce's Contact has no External ID field Email.");
    // an update with nothing to change sends nothing
    sf.seen.length = 0;
    await expect(salesforceConnector.upsert(await ctxFor(ds), 'Contact', [{ idempotencyKey: `${ds}-same`, id: made!.id, fields: {} }])).resolves.toEqual([
      { idempotencyKey: `${ds}-same`, id: made!.id, outcome: 'updated', replayed: false },
    ]);
    expect(writes()).toEqual([]);
  });

  it('more than 2,000 upserts by External ID, or updates, in one send go through a Bulk API 2.0 job: quoted CSV, results found again by their reference, refusals in Salesforce\'s words, nothing doubled on retry', async () => {
    const ctx = await ctxFor(ds, { externalIdField: 'Tributary_Id__c' });
    BULK_POLL.firstMs = 5;
    const n = BULK_THRESHOLD + 2;
    const items: UpsertItem[] = Array.from({ length: n }, (_, i) => ({
      idempotencyKey: `${ds}-bulk-${i}`,
      fields: i === 7 ? { FirstName: 'No', Tributary_Id__c: 'B-7' }
        : { FirstName: i === 0 ? 'Ann "Nan", of\nthe Lakes' : `B${i}`, LastName: `Bulk${i}`, Tributary_Id__c: `B-${i}` },
    }));
    const results = await salesforceConnector.upsert(ctx, 'Contact', items);
    const v = SALESFORCE_API_VERSION;
    expect(writes()).toEqual([`POST /services/data/${v}/jobs/ingest`, `PUT /services/data/${v}/jobs/ingest/${sf.jobs[0]!.id}/batches`, `PATCH /services/data/${v}/jobs/ingest/${sf.jobs[0]!.id}`]);
    expect(apiCalls().find((c) => c.path.endsWith('/jobs/ingest'))!.body).toEqual({ object: 'Contact', operation: 'upsert', externalIdFieldName: 'Tributary_Id__c', contentType: 'CSV', lineEnding: 'LF', columnDelimiter: 'COMMA' });
    expect(apiCalls().find((c) => c.method === 'PUT')!.headers['content-type']).toBe('text/csv');
    expect(apiCalls().find((c) => c.method === 'PATCH')!.body).toEqual({ state: 'UploadComplete' });
    expect(sf.jobs[0]!.state).toBe('JobComplete');
    // each record's result is its own, though Salesforce answers them in another order
    const byExt = new Map([...sf.records.Contact!.values()].map((c) => [c.Tributary_Id__c, c]));
    expect(byExt.get('B-0')).toMatchObject({ FirstName: 'Ann "Nan", of\nthe Lakes', LastName: 'Bulk0' });
    expect(results[0]).toMatchObject({ idempotencyKey: `${ds}-bulk-0`, id: byExt.get('B-0')!.Id, outcome: 'created' });
    expect(results[n - 1]).toMatchObject({ id: byExt.get(`B-${n - 1}`)!.Id, outcome: 'created' });
    expect(results[7]).toEqual({ idempotencyKey: `${ds}-bulk-7`, id: '', outcome: 'failed', replayed: false, error: 'Salesforce refused the record: REQUIRED_FIELD_MISSING:Required fields are missing: [LastName]:LastName --' });
    expect(results.filter((r) => r.outcome === 'created')).toHaveLength(n - 1);
    expect(sf.records.Contact!.size).toBe(n - 1);

    // the same send again (a retry after a crash): the same External IDs, updated, none created twice
    const again = await salesforceConnector.upsert(await ctxFor(ds, { externalIdField: 'Tributary_Id__c' }), 'Contact', items);
    expect(sf.records.Contact!.size).toBe(n - 1);
    expect(again[0]).toMatchObject({ id: results[0]!.id, outcome: 'updated' });

    // updates by id: a job of operation update, each found again by its Id; a value cleared is Bulk API's #N/A
    sf.seen.length = 0;
    const ids = results.filter((r) => r.outcome === 'created').map((r) => r.id);
    const updates = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', ids.map((id, i) => ({ idempotencyKey: `${ds}-bu-${i}`, id, fields: { Phone: `503-555-${i}`, Volunteer_Skills__c: null } })));
    expect(sf.jobs[2]).toMatchObject({ operation: 'update', state: 'JobComplete' });
    expect(sf.jobs[2]!.uploads[0]!.split('\n').slice(0, 2)).toEqual(['Id,Phone,Volunteer_Skills__c', `"${ids[0]}","503-555-0","#N/A"`]);
    expect(updates.every((u, i) => u.outcome === 'updated' && u.id === ids[i])).toBe(true);
    expect(sf.records.Contact!.get(ids[5]!)).toMatchObject({ Phone: '503-555-5', Volunteer_Skills__c: null });

    // a job Salesforce fails as a whole: every record is refused with the job's words
    sf.failNextJob = 'InvalidBatch : Failed to process query: the org is being upgraded';
    const refused = await salesforceConnector.upsert(await ctxFor(ds), 'Contact', ids.map((id, i) => ({ idempotencyKey: `${ds}-bf-${i}`, id, fields: { Phone: '1' } })));
    expect(new Set(refused.map((r) => r.error))).toEqual(new Set(['Salesforce refused the record: InvalidBatch : Failed to process query: the org is being upgraded']));
  });
});

describe('NPSP Data Import', () => {
  it('is listed when the org has NPSP; each record becomes a new import row through sObject Collections, never matched by Tributary, with what NPSP writes as it processes left blank', async () => {
    const ctx = await ctxFor(ds);
    expect(await salesforceConnector.listObjects(ctx)).toContainEqual({ name: 'npsp__DataImport__c', label: 'NPSP Data Import (rows for NPSP batch processing)' });
    const fields = await salesforceConnector.describeFields(ctx, 'npsp__DataImport__c');
    expect(fields.find((x) => x.name === 'npsp__Status__c')).toMatchObject({ readOnly: true });
    expect(fields.find((x) => x.name === 'npsp__Contact1Imported__c')).toMatchObject({ readOnly: true });
    expect(fields.find((x) => x.name === 'npsp__Donation_Amount__c')).not.toHaveProperty('readOnly');

    sf.seen.length = 0;
    sf.queries.length = 0;
    expect(await salesforceConnector.searchMany!(ctx, 'npsp__DataImport__c', [{ criteria: [{ field: 'npsp__Contact1_Personal_Email__c', operator: 'equals', value: 'ada@example.org' }] }])).toEqual([[]]);
    expect(sf.queries).toEqual([]);
    const [row, status] = await salesforceConnector.upsert(ctx, 'npsp__DataImport__c', [
      { idempotencyKey: `${ds}-di-1`, fields: { npsp__Contact1_Firstname__c: 'Ada', npsp__Contact1_Lastname__c: 'Lovelace', npsp__Contact1_Personal_Email__c: 'ada@example.org', npsp__Donation_Amount__c: '$1,250.50', npsp__Donation_Date__c: '2026-11-02', npsp__Donation_Donor__c: 'Contact1' } },
      { idempotencyKey: `${ds}-di-2`, fields: { npsp__Contact1_Lastname__c: 'Hopper', npsp__Status__c: 'Imported' } },
    ]);
    expect(row).toMatchObject({ outcome: 'created', id: expect.stringMatching(/^a0D/) });
    expect(status).toMatchObject({ outcome: 'failed', error: 'NPSP writes npsp__Status__c when it processes an import row: Tributary leaves it blank. Remove it from the mapping.' });
    expect(writes()).toEqual([`POST /services/data/${SALESFORCE_API_VERSION}/composite/sobjects`]);
    expect(sf.records.npsp__DataImport__c!.get(row!.id)).toMatchObject({
      npsp__Contact1_Lastname__c: 'Lovelace', npsp__Donation_Amount__c: 1250.5, npsp__Donation_Date__c: '2026-11-02', npsp__Donation_Donor__c: 'Contact1',
    });
    expect(sf.records.npsp__DataImport__c!.get(row!.id)!.npsp__Status__c).toBeUndefined();
    // the same keys again (a retry): the write ledger answers, nothing is written twice
    sf.seen.length = 0;
    await expect(salesforceConnector.upsert(ctx, 'npsp__DataImport__c', [{ idempotencyKey: `${ds}-di-1`, fields: { npsp__Contact1_Lastname__c: 'Lovelace' } }])).resolves.toEqual([
      { idempotencyKey: `${ds}-di-1`, id: row!.id, outcome: 'created', replayed: true },
    ]);
    expect(writes()).toEqual([]);
  });
});

describe('the connection test', () => {
  const testCalls = () => apiCalls().map((c) => `${c.method} ${c.path}`);

  it('signs in, calls the instance under the API version, and names the instance; a spent allowance says so, with the usage Salesforce reported', async () => {
    await expect(salesforceConnector.test(await ctxFor(ds))).resolves.toEqual({ detail: 'Signed in to Salesforce at riverside.my.salesforce.com.' });
    expect(testCalls()).toEqual([`GET /services/data/${SALESFORCE_API_VERSION}/`]);
    expect(apiCalls()[0]!.headers.authorization).toMatch(/^Bearer 00DRv!sf-access-/);
    sf.apiUsed = sf.apiLimit;
    const error = await salesforceConnector.test(await ctxFor(ds)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuotaExhausted);
    expect((error as Error).message).toMatch(/^Salesforce's daily API request allowance is spent \(15000 of 15000 requests used\);/);
  });

  it('proves a user name and password by signing in with them, even while a token from them is saved', async () => {
    await salesforceConnector.listObjects(await ctxFor(ds));
    const tokens = () => sf.seen.filter((s) => s.path === '/services/oauth2/token').length;
    const before = tokens();
    const saved = await ctxFor(ds);
    await expect(salesforceConnector.test({ ...saved, settings: { ...saved.settings, password: 'wrong' } })).rejects.toThrow('Salesforce refused the sign-in: authentication failure.');
    await expect(salesforceConnector.test(await ctxFor(ds))).resolves.toMatchObject({ detail: 'Signed in to Salesforce at riverside.my.salesforce.com.' });
    expect(tokens()).toBe(before + 2);
  });

  it('a refresh token Salesforce refuses during a test: the data source needs reconnecting, in the words records use', async () => {
    const oauth = await dataSource({ environment: 'production', authenticationType: 'oauth', clientId: SF_APP.clientId }, { clientSecret: SF_APP.clientSecret, refreshToken: sf.grant() });
    await expect(salesforceConnector.test(await ctxFor(oauth))).resolves.toMatchObject({ detail: 'Signed in to Salesforce at riverside.my.salesforce.com.' });
    sf.revoke();
    sf.expireTokens();
    const error = await salesforceConnector.test(await ctxFor(oauth)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantRevoked);
    expect((error as Error).message).toBe("Salesforce no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.");
    expect((await tenant.dataSources.get(oauth))!.needsReconnecting).toMatch(/needs reconnecting/);
  });
});
