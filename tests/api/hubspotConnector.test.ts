/**
 * HubSpot contacts, companies and deals through the connector kit, against the local fake
 * (tests/support/vendors/hubspot.ts): our requests as HubSpot documents them (the bearer token,
 * CRM search bodies sorted by the last-modified property, batch upsert by e-mail, the OAuth
 * refresh) and its documented answers parsed (search pages with `after`, the 10,000-result cap of
 * one search, properties, batch results, 207 and 400 error bodies), 429 in the middle, an expired
 * or invalid token, and the limits paced.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext, type PullBatch } from '../../server/connectors/connector.ts';
import { sealColumns } from '../../server/connectors/dataSources.ts';
import { HUBSPOT_SEARCH, hubspotConnector } from '../../server/connectors/hubspot/connector.ts';
import { GrantRevoked, QuotaExhausted } from '../../server/connectors/kit/problems.ts';
import { authorizeUrl, exchangeCode } from '../../server/connectors/oauth/flow.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import { OAUTH_VENDORS } from '../../src/domain/connectors/oauth.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { forTenant, type TenantScope } from '../../server/db/tenancy.ts';
import { createTestDatabase } from '../support/database.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { HUBSPOT_APP, HUBSPOT_TOKEN, startFakeHubSpot, type FakeHubSpot } from '../support/vendors/hubspot.ts';
import { contextFor, pullAll } from '../support/connectorContext.ts';

let scratch: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let tenant: TenantScope;
let hs: FakeHubSpot;
let vendor: VendorFakeSetup<FakeHubSpot>;
const box = createSecretBox(Buffer.alloc(32, 7));

beforeAll(async () => {
  [scratch, vendor] = await Promise.all([createTestDatabase(), withVendorFake('hubspot', startFakeHubSpot)]);
  hs = vendor.fake;
  database = await openDatabase(scratch.url);
  await seedDemo(database.db, async () => {});
  const { rows } = await database.pool.query<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]);
  tenant = forTenant(database.db, rows[0]!.id);
}, 60_000);
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
  await vendor?.close();
});

async function dataSource(settings: Record<string, string>, secrets: Record<string, string>): Promise<string> {
  const id = crypto.randomUUID();
  await tenant.dataSources.insert({ id, system: 'hubspot', displayName: `HubSpot ${id.slice(0, 8)}`, settings, ...sealColumns(box, tenant.tenantId, id, secrets) });
  return id;
}
const ctxFor = (id: string, endSettings: Record<string, string> = {}) => contextFor(tenant, box, id, endSettings);
const all = pullAll;
const api = () => hs.seen.filter((s) => !s.path.startsWith('/oauth/'));
const searches = () => api().filter((s) => s.path.endsWith('/search'));

let ds: string;
beforeEach(async () => {
  hs.seen.length = 0;
  hs.searchCap = 10_000;
  for (const m of Object.values(hs.records)) m.clear();
  ds = await dataSource({ authenticationType: 'private-app' }, { accessToken: HUBSPOT_TOKEN });
});

describe('signing in', () => {
  it('a private app\'s token as a bearer token; a token HubSpot does not know is refused in words', async () => {
    await expect(hubspotConnector.test(await ctxFor(ds))).resolves.toEqual({ detail: 'Signed in to HubSpot account 24681357.' });
    expect(api()[0]).toMatchObject({ method: 'GET', path: '/account-info/v3/details' });
    expect(api()[0]!.headers.authorization).toBe(`Bearer ${HUBSPOT_TOKEN}`);
    // a connection saved before OAuth came (no authentication type) is a private app's
    const old = await dataSource({}, { accessToken: HUBSPOT_TOKEN });
    await expect(hubspotConnector.test(await ctxFor(old))).resolves.toBeTruthy();
    const wrong = await dataSource({ authenticationType: 'private-app' }, { accessToken: 'pat-na1-99999999-2222-3333-4444-555555555555' });
    const error = await hubspotConnector.describeFields(await ctxFor(wrong), 'contacts').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionProblem);
    expect(error).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'HubSpot refused the access token (HTTP 401).' });
  });

  it('OAuth: the refresh token exchanged at /oauth/v1/token with the app in the body, the token reused, an expired one refreshed, a revoked grant needing reconnecting', async () => {
    const oauth = await dataSource({ authenticationType: 'oauth', clientId: HUBSPOT_APP.clientId }, { clientSecret: HUBSPOT_APP.clientSecret, refreshToken: hs.grant() });
    await expect(hubspotConnector.test(await ctxFor(oauth))).resolves.toEqual({ detail: 'Signed in to HubSpot account 24681357.' });
    const refresh = hs.seen.find((s) => s.path === '/oauth/v1/token')!;
    expect(refresh.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(refresh.body as string))).toMatchObject({ grant_type: 'refresh_token', client_id: HUBSPOT_APP.clientId, client_secret: HUBSPOT_APP.clientSecret });
    const before = hs.refreshes();
    await hubspotConnector.describeFields(await ctxFor(oauth), 'contacts');
    expect(hs.refreshes()).toBe(before);
    // HubSpot says the token expired (401 EXPIRED_AUTHENTICATION): refreshed once, and the call goes on
    hs.expireTokens();
    await expect(hubspotConnector.describeFields(await ctxFor(oauth), 'companies')).resolves.toBeTruthy();
    expect(hs.refreshes()).toBe(before + 1);
    hs.revoke();
    hs.expireTokens();
    const error = await hubspotConnector.describeFields(await ctxFor(oauth), 'deals').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantRevoked);
    expect((error as Error).message).toBe("HubSpot no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.");
    expect((await tenant.dataSources.get(oauth))!.needsReconnecting).toMatch(/needs reconnecting/);
  });

  it('Connect: the consent at /oauth/authorize with the CRM scopes and PKCE, the code exchanged at /oauth/v1/token for a refresh token that then signs in', async () => {
    const vendor = OAUTH_VENDORS.hubspot!;
    const redirectUri = 'https://tributary.example/integrations/oauth/callback';
    const verifier = 'v'.repeat(64);
    const consent = new URL(authorizeUrl(vendor, { authenticationType: 'oauth' }, { clientId: HUBSPOT_APP.clientId, redirectUri, state: 'st-1', codeVerifier: verifier }));
    expect(consent.pathname).toBe('/oauth/authorize');
    expect(consent.searchParams.get('scope')).toContain('crm.objects.contacts.write');
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    const back = new URL((await fetch(consent, { redirect: 'manual' })).headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('st-1');
    const granted = await exchangeCode(vendor, { authenticationType: 'oauth' }, HUBSPOT_APP, { code: back.searchParams.get('code')!, redirectUri, codeVerifier: verifier });
    const connected = await dataSource({ authenticationType: 'oauth', clientId: HUBSPOT_APP.clientId }, { clientSecret: HUBSPOT_APP.clientSecret, refreshToken: granted.grant });
    await expect(hubspotConnector.test(await ctxFor(connected))).resolves.toEqual({ detail: 'Signed in to HubSpot account 24681357.' });
  });

  it('a 429 is waited out (Retry-After); a spent daily limit pauses the formula', async () => {
    hs.throttle(1, 1);
    await expect(hubspotConnector.describeFields(await ctxFor(ds), 'contacts')).resolves.toBeTruthy();
    expect(api().filter((s) => s.path === '/crm/v3/properties/contacts')).toHaveLength(2);
    expect(api()[1]!.at - api()[0]!.at).toBeGreaterThanOrEqual(950);
    hs.dailySpent = true;
    const error = await hubspotConnector.describeFields(await ctxFor(ds), 'companies').catch((e: unknown) => e);
    hs.dailySpent = false;
    expect(error).toBeInstanceOf(QuotaExhausted);
    expect((error as Error).message).toMatch(/^HubSpot's daily API limit is spent; the formula tries again at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });
});

describe('fields', () => {
  it('every property of the object from /crm/v3/properties, custom ones included, hidden ones not; what HubSpot sets is read only', async () => {
    const fields = await hubspotConnector.describeFields(await ctxFor(ds), 'contacts');
    const by = new Map(fields.map((f) => [f.name, f]));
    expect(by.get('email')).toMatchObject({ type: 'email', required: true, searchable: true });
    expect(by.get('volunteer_interest')).toMatchObject({ label: 'Volunteer interest', searchable: true });
    expect(by.get('phone')).toMatchObject({ type: 'phone' });
    expect(by.get('lastmodifieddate')).toMatchObject({ type: 'datetime', readOnly: true });
    expect(by.get('hs_object_id')).toMatchObject({ readOnly: true });
    expect(by.get('message')?.searchable).toBeUndefined();
    expect(by.has('hs_internal_flag')).toBe(false);
    expect((await hubspotConnector.listObjects(await ctxFor(ds))).map((o) => o.name)).toEqual(['contacts', 'companies', 'deals']);
  });
});

describe('as a source', () => {
  it('searches by the last-modified property ascending, pages with after, restarts past the cap of one search, and a later pull reads only what changed', async () => {
    for (let i = 0; i < 7; i++) hs.add('contacts', { email: `c${i}@example.org`, firstname: `C${i}`, lastname: 'Source' }, new Date(Date.UTC(2026, 0, 10, 9, i)));
    hs.searchCap = 4;
    const cap = HUBSPOT_SEARCH.cap;
    HUBSPOT_SEARCH.cap = 4;
    let batches: PullBatch[];
    try {
      hs.throttle(1, 0);
      batches = await all(hubspotConnector.pull(await ctxFor(ds), 'contacts', null, { batchSize: 2 }));
    } finally {
      HUBSPOT_SEARCH.cap = cap;
    }
    const ids = batches.flatMap((b) => b.records.map((r) => r.fields.email));
    // every contact, in order; the one at the restart's date read twice, harmlessly
    expect([...new Set(ids)]).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `c${i}@example.org`));
    const bodies = searches().map((s) => s.body as { filterGroups?: { filters: { propertyName: string; operator: string; value: string }[] }[]; sorts: unknown; after?: string; limit: number; properties: string[] });
    expect(bodies[0]).toMatchObject({ sorts: [{ propertyName: 'lastmodifieddate', direction: 'ASCENDING' }], limit: 2 });
    expect(bodies[0]!.filterGroups).toBeUndefined();
    expect(bodies[0]!.properties).toEqual(expect.arrayContaining(['email', 'firstname', 'volunteer_interest', 'lastmodifieddate']));
    expect(bodies.map((b) => b.after ?? null)).toContain('2');
    // never a page past the cap: a new search from the latest date seen instead
    expect(bodies.every((b) => Number(b.after ?? 0) < 4)).toBe(true);
    const restart = bodies.find((b) => b.filterGroups)!;
    expect(restart.filterGroups![0]!.filters).toEqual([{ propertyName: 'lastmodifieddate', operator: 'GTE', value: String(Date.UTC(2026, 0, 10, 9, 3)) }]);
    // the 429 was asked again
    expect(searches().length).toBe(bodies.length);
    expect(hs.searchesPerSecond()).toBeLessThanOrEqual(5);

    const watermark = batches.at(-1)!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-01-10T09:06:00.000Z', next: null, latest: null });
    hs.seen.length = 0;
    const later = hs.add('contacts', { email: 'later@example.org', lastname: 'Later' });
    const again = (await all(hubspotConnector.pull(await ctxFor(ds), 'contacts', watermark, {}))).flatMap((b) => b.records);
    // from a minute before the latest change seen (HubSpot's search index lags its records a little)
    expect(again.map((r) => r.fields.email)).toEqual(['c5@example.org', 'c6@example.org', 'later@example.org']);
    expect(again.at(-1)!.id).toBe(later.id);
    expect((searches()[0]!.body as { filterGroups: { filters: unknown[] }[] }).filterGroups[0]!.filters).toEqual([{ propertyName: 'lastmodifieddate', operator: 'GTE', value: String(Date.UTC(2026, 0, 10, 9, 5)) }]);
  });

  it('companies and deals by hs_lastmodifieddate; a pull killed between batches goes on from the next page', async () => {
    for (let i = 0; i < 3; i++) hs.add('deals', { dealname: `Deal ${i}`, amount: String(100 * (i + 1)) }, new Date(Date.UTC(2026, 0, 11, i)));
    const ctx = await ctxFor(ds);
    const first = (await all(hubspotConnector.pull(ctx, 'deals', null, { batchSize: 2 })));
    expect(first.flatMap((b) => b.records.map((r) => r.fields.dealname))).toEqual(['Deal 0', 'Deal 1', 'Deal 2']);
    expect(first[0]!.records[0]!.fields).toMatchObject({ amount: '100', hs_object_id: first[0]!.records[0]!.id });
    expect((searches()[0]!.body as { sorts: unknown }).sorts).toEqual([{ propertyName: 'hs_lastmodifieddate', direction: 'ASCENDING' }]);
    const rest = await all(hubspotConnector.pull(ctx, 'deals', first[0]!.watermark, { batchSize: 2 }));
    expect(rest.flatMap((b) => b.records.map((r) => r.fields.dealname))).toEqual(['Deal 2']);
  });

  it('a run once reads only the window\'s changes, and a continuation goes on from the page its cursor names', async () => {
    for (let i = 0; i < 5; i++) hs.add('deals', { dealname: `Window ${i}` }, new Date(Date.UTC(2026, 0, 12, i)));
    const window = { from: new Date(Date.UTC(2026, 0, 12, 1)), to: new Date(Date.UTC(2026, 0, 12, 4)) };
    const ctx = await ctxFor(ds);
    const batches = await all(hubspotConnector.pull(ctx, 'deals', null, { batchSize: 2, window }));
    expect(batches.flatMap((b) => b.records.map((r) => r.fields.dealname))).toEqual(['Window 1', 'Window 2', 'Window 3']);
    expect((searches()[0]!.body as { filterGroups: unknown }).filterGroups).toEqual([{ filters: [
      { propertyName: 'hs_lastmodifieddate', operator: 'GTE', value: String(window.from.getTime()) }, { propertyName: 'hs_lastmodifieddate', operator: 'LT', value: String(window.to.getTime()) },
    ] }]);
    const rest = await all(hubspotConnector.pull(ctx, 'deals', batches[0]!.watermark, { batchSize: 2, window }));
    expect(rest.flatMap((b) => b.records.map((r) => r.fields.dealname))).toEqual(['Window 3']);
  });
});

describe('as a destination', () => {
  it('answers scenarios with the search API (EQ, CONTAINS_TOKEN), comparing each criterion on the whole value', async () => {
    const ada = hs.add('contacts', { email: 'ada@analytical.example', firstname: 'Ada', lastname: 'Lovelace', zip: '97201' });
    hs.add('contacts', { email: 'augusta@analytical.example', firstname: 'Augusta', lastname: 'Lovelace' });
    const [byEmail, byName, none] = await hubspotConnector.searchMany!(await ctxFor(ds), 'contacts', [
      { criteria: [{ field: 'email', value: 'ADA@analytical.example' }] },
      { criteria: [{ field: 'firstname', operator: 'starts-with', value: 'Ad' }, { field: 'lastname', value: 'Lovelace' }] },
      { criteria: [{ field: 'email', value: 'nobody@example.org' }] },
    ]);
    expect(byEmail).toEqual([expect.objectContaining({ id: ada.id, fields: expect.objectContaining({ firstname: 'Ada', zip: '97201' }) })]);
    expect(byName!.map((r) => r.id)).toEqual([ada.id]);
    expect(none).toEqual([]);
    expect((searches()[1]!.body as { filterGroups: unknown }).filterGroups).toEqual([{ filters: [
      { propertyName: 'firstname', operator: 'CONTAINS_TOKEN', value: 'Ad*' }, { propertyName: 'lastname', operator: 'EQ', value: 'Lovelace' },
    ] }]);
    // a batch of searches keeps to HubSpot's five a second
    await hubspotConnector.searchMany!(await ctxFor(ds), 'contacts', Array.from({ length: 7 }, (_, i) => ({ criteria: [{ field: 'email', value: `n${i}@example.org` }] })));
    expect(hs.searchesPerSecond()).toBeLessThanOrEqual(5);
  });

  it('refuses on save a scenario HubSpot cannot answer: a property it does not have, or more filters than a group takes', async () => {
    const ctx = await ctxFor(ds);
    await expect(hubspotConnector.matchingProblem!(ctx, 'contacts', [{ name: 'E-mail', fields: ['email'] }])).resolves.toBeNull();
    await expect(hubspotConnector.matchingProblem!(ctx, 'contacts', [{ name: 'Lookup', fields: ['lookupId'] }]))
      .resolves.toBe('HubSpot cannot search contacts by lookupId (not a property of contacts in this account): the scenario "Lookup" cannot be answered.');
    await expect(hubspotConnector.matchingProblem!(ctx, 'contacts', [{ name: 'All', fields: ['email', 'firstname', 'lastname', 'phone', 'city', 'zip', 'volunteer_interest'] }]))
      .resolves.toBe('HubSpot\'s search takes at most 6 criteria at once: the scenario "All" has 7.');
    await expect(hubspotConnector.matchingProblem!(ctx, 'deals', [{ name: 'Name', fields: ['dealname'] }])).resolves.toBe('Tributary writes HubSpot contacts and companies; deals are read only.');
  });

  it('contacts: batch upsert by e-mail and update by id; a batch HubSpot refuses is sent again record by record, the refusal on its record in HubSpot\'s words', async () => {
    const known = hs.add('contacts', { email: 'known@example.org', firstname: 'Known', lastname: 'Person' });
    const ctx = await ctxFor(ds);
    const results = await hubspotConnector.upsert(ctx, 'contacts', [
      { idempotencyKey: 'k1', fields: { email: 'Grace@Navy.example', firstname: 'Grace', lastname: 'Hopper' } },
      { idempotencyKey: 'k2', fields: { email: 'grace@@navy', firstname: 'Bad' } },
      { idempotencyKey: 'k3', id: known.id, fields: { phone: '503-555-0100' } },
      { idempotencyKey: 'k4', fields: { firstname: 'No e-mail' } },
      { idempotencyKey: 'k5', id: '999999', fields: { firstname: 'Gone' } },
    ]);
    expect(results.map((r) => [r.idempotencyKey, r.outcome])).toEqual([['k1', 'created'], ['k2', 'failed'], ['k3', 'updated'], ['k4', 'failed'], ['k5', 'failed']]);
    expect(results[1]!.error).toBe('HubSpot refused the contact: Property values were not valid: Email address grace@@navy is invalid');
    expect(results[3]!.error).toBe('HubSpot creates a contact by its e-mail address, and this record has none.');
    expect(results[4]!.error).toMatch(/^HubSpot refused the contact: Could not get some CONTACTS objects/);
    const grace = hs.records.contacts.get(results[0]!.id)!;
    expect(grace.properties).toMatchObject({ email: 'grace@navy.example', firstname: 'Grace', lastname: 'Hopper' });
    expect(hs.records.contacts.get(known.id)!.properties).toMatchObject({ phone: '503-555-0100', firstname: 'Known' });
    const upserts = api().filter((s) => s.path === '/crm/v3/objects/contacts/batch/upsert');
    // the batch of two, refused whole; then each alone
    expect(upserts.map((u) => (u.body as { inputs: unknown[] }).inputs.length)).toEqual([2, 1, 1]);
    expect((upserts[0]!.body as { inputs: unknown[] }).inputs[0]).toEqual({ idProperty: 'email', id: 'grace@navy.example', properties: { email: 'Grace@Navy.example', firstname: 'Grace', lastname: 'Hopper' } });
    // sending again updates: never a second contact
    const again = await hubspotConnector.upsert(ctx, 'contacts', [{ idempotencyKey: 'k1', fields: { email: 'grace@navy.example', firstname: 'Grace', lastname: 'Hopper' } }]);
    expect(again[0]).toMatchObject({ id: grace.id, outcome: 'updated' });
    expect([...hs.records.contacts.values()].filter((c) => c.properties.email === 'grace@navy.example')).toHaveLength(1);
    // the same e-mail twice in a batch (HubSpot refuses duplicate ids): each alone, the first creates and the second updates
    const twice = await hubspotConnector.upsert(ctx, 'contacts', [
      { idempotencyKey: 't1', fields: { email: 'twice@example.org', firstname: 'One' } }, { idempotencyKey: 't2', fields: { email: 'TWICE@example.org', lastname: 'Two' } },
    ]);
    expect(twice.map((r) => r.outcome)).toEqual(['created', 'updated']);
    expect(twice[0]!.id).toBe(twice[1]!.id);
  });

  it('companies: created once per idempotency key (the write ledger), updated by id; deals are not written', async () => {
    const ctx = await ctxFor(ds);
    const [made] = await hubspotConnector.upsert(ctx, 'companies', [{ idempotencyKey: 'co-1', fields: { name: 'Riverside Food Bank', domain: 'riverside.example' } }]);
    expect(made).toMatchObject({ outcome: 'created', replayed: false });
    const [replayed] = await hubspotConnector.upsert(await ctxFor(ds), 'companies', [{ idempotencyKey: 'co-1', fields: { name: 'Riverside Food Bank', domain: 'riverside.example' } }]);
    expect(replayed).toMatchObject({ id: made!.id, replayed: true });
    expect(api().filter((s) => s.method === 'POST' && s.path === '/crm/v3/objects/companies')).toHaveLength(1);
    const [bad] = await hubspotConnector.upsert(ctx, 'companies', [{ idempotencyKey: 'co-2', fields: { name: 'Numbers', annualrevenue: 'lots' } }]);
    expect(bad).toMatchObject({ outcome: 'failed', error: 'HubSpot refused the company: Property values were not valid: lots was not a valid number.' });
    const [updated] = await hubspotConnector.upsert(ctx, 'companies', [{ idempotencyKey: 'co-3', id: made!.id, fields: { city: 'Portland' } }]);
    expect(updated).toMatchObject({ outcome: 'updated' });
    expect(hs.records.companies.get(made!.id)!.properties.city).toBe('Portland');
    await expect(hubspotConnector.upsert(ctx, 'deals', [{ idempotencyKey: 'd', fields: { dealname: 'x' } }])).rejects.toThrow('Tributary writes HubSpot contacts and companies; deals are read only.');
  });

  it('companies upserted by the unique property the destination settings name; one that is not unique refused in HubSpot\'s words', async () => {
    const ctx = await ctxFor(ds, { uniqueProperty: 'member_id' });
    const [made, unkeyed] = await hubspotConnector.upsert(ctx, 'companies', [
      { idempotencyKey: 'u-1', fields: { name: 'Riverside Food Bank', member_id: 'M-7' } },
      { idempotencyKey: 'u-2', fields: { name: 'No member id' } },
    ]);
    expect(made).toMatchObject({ outcome: 'created' });
    expect(unkeyed).toMatchObject({ outcome: 'created' });
    const [again] = await hubspotConnector.upsert(ctx, 'companies', [{ idempotencyKey: 'u-3', fields: { name: 'Riverside Food Bank', city: 'Portland', member_id: 'M-7' } }]);
    expect(again).toMatchObject({ id: made!.id, outcome: 'updated' });
    expect(hs.records.companies.get(made!.id)!.properties).toMatchObject({ city: 'Portland', member_id: 'M-7' });
    expect((api().find((s) => s.path === '/crm/v3/objects/companies/batch/upsert')!.body as { inputs: unknown[] }).inputs).toEqual([{ idProperty: 'member_id', id: 'M-7', properties: { name: 'Riverside Food Bank', member_id: 'M-7' } }]);
    // the one without a member id was created once, through the ledger
    expect(api().filter((s) => s.method === 'POST' && s.path === '/crm/v3/objects/companies')).toHaveLength(1);
    const [refused] = await hubspotConnector.upsert(await ctxFor(ds, { uniqueProperty: 'city' }), 'contacts', [{ idempotencyKey: 'u-4', fields: { email: 'x@example.org', city: 'Salem' } }]);
    expect(refused).toMatchObject({ outcome: 'failed', error: 'HubSpot refused the contact: city is not a unique property' });
  });
});
