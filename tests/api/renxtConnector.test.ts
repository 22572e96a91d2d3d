/**
 * Raiser's Edge NXT through the connector kit, against the local SKY API fake
 * (tests/support/vendors/skyApi.ts): our requests as Blackbaud documents them (contract), the
 * grant (one refresh per expiry across concurrent callers, rotated refresh tokens saved at once, a
 * revoked grant marking the data source as needing reconnecting), rate limits and failures (429
 * Retry-After waited for, server errors retried, a spent quota as QuotaExhausted), paging with
 * watermarks, searches answered as candidates, and writes never doubled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import type { ConnectorContext, UpsertItem } from '../../server/connectors/connector.ts';
import { connectionSettings, sealColumns } from '../../server/connectors/dataSources.ts';
import { GrantRevoked, QuotaExhausted } from '../../server/connectors/kit/problems.ts';
import { renxtConnector } from '../../server/connectors/skyApi/renxt.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { forTenant, type TenantScope } from '../../server/db/tenancy.ts';
import { createTestDatabase } from '../support/database.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { SKY_APP, startFakeSkyApi, type FakeSkyApi } from '../support/vendors/skyApi.ts';
import { contextFor, pullAll } from '../support/connectorContext.ts';

let scratch: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let tenant: TenantScope;
let sky: FakeSkyApi;
const box = createSecretBox(Buffer.alloc(32, 7));
let vendor: VendorFakeSetup<FakeSkyApi>;

beforeAll(async () => {
  [scratch, vendor] = await Promise.all([createTestDatabase(), withVendorFake('renxt', startFakeSkyApi)]);
  sky = vendor.fake;
  database = await openDatabase(scratch.url);
  await seedDemo(database.db, seedSandboxCrm);
  const { rows } = await database.pool.query<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]);
  tenant = forTenant(database.db, rows[0]!.id);
}, 60_000);
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
  await vendor?.close();
});

/** A saved Raiser's Edge NXT data source holding a fresh grant of the fake. */
async function dataSource(): Promise<string> {
  const id = crypto.randomUUID();
  await tenant.dataSources.insert({
    id, system: 'renxt', displayName: `RE NXT ${id.slice(0, 8)}`, settings: { clientId: SKY_APP.clientId },
    ...sealColumns(box, tenant.tenantId, id, { clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: sky.grant() }),
  });
  return id;
}

/** The context the engine builds for a data source: its settings as saved now, and its grant store. */
const ctxFor = (id: string, endSettings: Record<string, string> = {}) => contextFor(tenant, box, id, endSettings);

const all = pullAll;

const apiCalls = () => sky.seen.filter((s) => s.path !== '/token');
let ds: string;
beforeEach(async () => {
  sky.seen.length = 0;
  sky.tokenLifetime = 3600;
  sky.tokenDelayMs = 0;
  ds = await dataSource();
});

describe('the grant', () => {
  it('is refreshed once, its rotated refresh token saved at once, and its access token reused by later calls', async () => {
    const before = sky.refreshes();
    const first = await ctxFor(ds);
    await renxtConnector.listObjects(first);
    await renxtConnector.search(first, 'constituents', { criteria: [{ field: 'email', value: 'nobody@example.org' }] });
    // a later call (another job, another worker) reads the saved token: no second refresh
    await renxtConnector.search(await ctxFor(ds), 'constituents', { criteria: [{ field: 'email', value: 'nobody@example.org' }] });
    expect(sky.refreshes() - before).toBe(1);
    const row = (await tenant.dataSources.get(ds))!;
    expect(connectionSettings(box, row).refreshToken).toBe(sky.refreshToken());
    // the token request as SKY API documents it: HTTP Basic application credentials, a form body
    const token = sky.seen.find((s) => s.path === '/token')!;
    expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${SKY_APP.clientId}:${SKY_APP.clientSecret}`).toString('base64')}`);
    expect(new URLSearchParams(token.body as string).get('grant_type')).toBe('refresh_token');
    for (const call of apiCalls()) {
      expect(call.headers['bb-api-subscription-key']).toBe(SKY_APP.subscriptionKey);
      expect(call.headers.authorization).toMatch(/^Bearer sky-access-/);
    }
  });

  it('is refreshed by one caller at a time: callers that need it at once share one refresh and one rotation', async () => {
    sky.tokenDelayMs = 300;
    const before = sky.refreshes();
    const contexts = await Promise.all([ctxFor(ds), ctxFor(ds), ctxFor(ds)]);
    await Promise.all(contexts.map((c) => renxtConnector.search(c, 'constituents', { criteria: [{ field: 'lookupId', value: 'none' }] })));
    expect(sky.refreshes() - before).toBe(1);
    // the rotated refresh token saved is the one the fake accepts now
    expect(connectionSettings(box, (await tenant.dataSources.get(ds))!).refreshToken).toBe(sky.refreshToken());
  });

  it('is refreshed before it expires, and again when the vendor refuses a token early', async () => {
    sky.tokenLifetime = 30; // inside the minute's margin: every call refreshes first
    const ctx = await ctxFor(ds);
    const before = sky.refreshes();
    await renxtConnector.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] });
    await renxtConnector.search(await ctxFor(ds), 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] });
    expect(sky.refreshes() - before).toBe(2);
    sky.tokenLifetime = 3600;
    const fresh = await ctxFor(ds);
    await renxtConnector.search(fresh, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] });
    sky.expireTokens();
    const refreshed = sky.refreshes();
    await expect(renxtConnector.search(fresh, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] })).resolves.toEqual([]);
    expect(sky.refreshes() - refreshed).toBe(1);
  });

  it('revoked: the data source needs reconnecting, in words, and the call fails without a loop of refreshes', async () => {
    const ctx = await ctxFor(ds);
    sky.revoke();
    const tokenCalls = () => sky.seen.filter((s) => s.path === '/token').length;
    const error = await renxtConnector.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantRevoked);
    expect((error as Error).message).toBe("Raiser's Edge NXT no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.");
    expect(tokenCalls()).toBe(1);
    const row = (await tenant.dataSources.get(ds))!;
    expect(row.needsReconnecting).toMatch(/needs reconnecting/);
    expect(row.needsReconnectingOn).toBeInstanceOf(Date);
    sky.grant();
  });
});

describe('rate limits and failures', () => {
  it('429 waits for Retry-After and goes on; server errors are retried with backoff', async () => {
    const ctx = await ctxFor(ds);
    sky.throttle(2, 1);
    await expect(renxtConnector.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] })).resolves.toEqual([]);
    sky.failNext(2);
    await expect(renxtConnector.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] })).resolves.toEqual([]);
    // the two 429s, the two 500s and each successful try
    expect(apiCalls().filter((c) => c.path === '/constituent/v1/constituents/search')).toHaveLength(6);
  });

  it('a spent daily quota is QuotaExhausted, with when it renews', async () => {
    const ctx = await ctxFor(ds);
    await renxtConnector.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] });
    sky.spendQuota(3 * 3600);
    const error = await renxtConnector.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'x' }] }).catch((e: unknown) => e);
    sky.spendQuota(0);
    expect(error).toBeInstanceOf(QuotaExhausted);
    const at = (error as QuotaExhausted).resumeAt.getTime();
    expect(at).toBeGreaterThan(Date.now() + 2.9 * 3600_000);
    expect((error as Error).message).toMatch(/daily API quota is spent; the formula goes on at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });
});

describe('as a source', () => {
  it('pulls constituents changed since the watermark, page by page through next_link, with primary e-mail, phone and address', async () => {
    for (let i = 0; i < 5; i++) {
      sky.addConstituent({ first: `Page${i}`, last: 'Source', email: `page${i}@example.org`, phone: `503-555-010${i}`, address: { address_lines: `${i} Main St`, city: 'Portland', state: 'OR', postal_code: '97201' } });
    }
    const ctx = await ctxFor(ds);
    const batches = await all(renxtConnector.pull(ctx, 'constituents', null, { batchSize: 2 }));
    const records = batches.flatMap((b) => b.records);
    expect(records.length).toBeGreaterThanOrEqual(5);
    const page0 = records.find((r) => r.fields.firstName === 'Page0')!;
    expect(page0.fields).toMatchObject({
      lastName: 'Source', email: 'page0@example.org', phone: '503-555-0100', addressLine1: '0 Main St', city: 'Portland', state: 'OR', postalCode: '97201',
    });
    const lists = apiCalls().filter((c) => c.path === '/constituent/v1/constituents');
    expect(lists.length).toBe(batches.length);
    expect(lists.slice(1).every((c) => Number(c.query.offset) > 0)).toBe(true);
    expect(lists.every((c) => c.query.limit === '2')).toBe(true);
    // a later pull from the last watermark reads only what changed since
    const watermark = batches.at(-1)!.watermark!;
    sky.seen.length = 0;
    const changed = sky.addConstituent({ first: 'Later', last: 'Source' });
    const again = (await all(renxtConnector.pull(ctx, 'constituents', watermark, { batchSize: 50 }))).flatMap((b) => b.records);
    expect(again.map((r) => r.id)).toContain(changed.id);
    expect(again.map((r) => r.id)).not.toContain(page0.id);
    expect(apiCalls()[0]!.query.date_modified).toBe(JSON.parse(watermark).since);
  });

  it('a pull killed between batches goes on from the page after the last one stored', async () => {
    const ctx = await ctxFor(ds);
    const batches = await all(renxtConnector.pull(ctx, 'constituents', null, { batchSize: 2 }));
    const mid = batches[0]!.watermark!;
    expect(JSON.parse(mid).next).toMatch(/offset=2/);
    const rest = (await all(renxtConnector.pull(ctx, 'constituents', mid, { batchSize: 2 }))).flatMap((b) => b.records.map((r) => r.id));
    expect(rest).toEqual(batches.slice(1).flatMap((b) => b.records.map((r) => r.id)));
  });

  it('pulls gifts with constituent, fund, campaign, appeal, amount and date, filtered by last_modified', async () => {
    const donor = sky.addConstituent({ first: 'Gift', last: 'Giver' });
    const gift = sky.addGift({ constituent_id: donor.id, amount: 125, date: '2026-10-05T00:00:00', fund_id: '12', campaign_id: '3', appeal_id: '7' });
    const ctx = await ctxFor(ds);
    const since = new Date(Date.parse(gift.date_modified) - 1).toISOString();
    const records = (await all(renxtConnector.pull(ctx, 'gifts', JSON.stringify({ since }), {}))).flatMap((b) => b.records);
    expect(records).toEqual([expect.objectContaining({ id: gift.id, fields: expect.objectContaining({ constituentId: donor.id, amount: 125, date: '2026-10-05', fund: '12', campaign: '3', appeal: '7' }) })]);
    expect(apiCalls().find((c) => c.path === '/gift/v1/gifts')!.query.last_modified).toBe(since);
  });

  it('describes constituent fields with the environment\'s custom fields', async () => {
    const fields = await renxtConnector.describeFields(await ctxFor(ds), 'constituents');
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['lookupId', 'email', 'lastName', 'custom:Volunteer interest', 'custom:First gift source']));
  });
});

describe('as a destination', () => {
  it('searches by e-mail, lookup id and name, answering candidates with their fields', async () => {
    const ada = sky.addConstituent({ first: 'Ada', last: 'Lovelace', email: 'ada@analytical.example', lookup_id: 'AL-1', address: { address_lines: '1 Engine Row', postal_code: '97201' } });
    sky.addConstituent({ first: 'Augusta', last: 'Lovelace', email: 'augusta@analytical.example' });
    const ctx = await ctxFor(ds);
    const [byEmail, byLookup, byName, none] = await renxtConnector.searchMany!(ctx, 'constituents', [
      { criteria: [{ field: 'email', value: 'ADA@analytical.example' }] },
      { criteria: [{ field: 'lookupId', value: 'AL-1' }] },
      { criteria: [{ field: 'firstName', value: 'Ada' }, { field: 'lastName', value: 'Lovelace' }, { field: 'postalCode', value: '97201' }] },
      { criteria: [{ field: 'email', value: 'nobody@analytical.example' }] },
    ]);
    for (const found of [byEmail, byLookup, byName]) {
      expect(found).toEqual([expect.objectContaining({ id: ada.id, fields: expect.objectContaining({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@analytical.example', postalCode: '97201' }) })]);
    }
    expect(none).toEqual([]);
    const searches = apiCalls().filter((c) => c.path === '/constituent/v1/constituents/search').map((c) => [c.query.search_field, c.query.search_text]);
    expect(searches).toEqual([['email_address', 'ADA@analytical.example'], ['lookup_id', 'AL-1'], ['name', 'Ada Lovelace'], ['email_address', 'nobody@analytical.example']]);
  });

  it('creates a constituent with its e-mail, phone and address, its constituent code and custom field; the same key again writes nothing', async () => {
    const ctx = await ctxFor(ds, { constituentCode: 'Donor' });
    const item: UpsertItem = {
      idempotencyKey: `k-${ds}-1`,
      fields: { firstName: 'Grace', lastName: 'Hopper', email: 'grace@navy.example', phone: '503-555-0199', addressLine1: '9 Harbor Way', city: 'Arlington', state: 'VA', postalCode: '22201', 'custom:Volunteer interest': 'Tutoring' },
    };
    const [created] = await renxtConnector.upsert(ctx, 'constituents', [item]);
    expect(created).toMatchObject({ outcome: 'created', replayed: false });
    expect(sky.view(created!.id)).toMatchObject({
      first: 'Grace', last: 'Hopper', email: { address: 'grace@navy.example', primary: true }, phone: { number: '503-555-0199' },
      address: { address_lines: '9 Harbor Way', city: 'Arlington', state: 'VA', postal_code: '22201', preferred: true },
    });
    expect(sky.constituentCodes).toContainEqual({ constituent_id: created!.id, description: 'Donor' });
    expect(sky.customFields).toContainEqual(expect.objectContaining({ parent_id: created!.id, category: 'Volunteer interest', value: 'Tutoring' }));
    const create = apiCalls().find((c) => c.method === 'POST' && c.path === '/constituent/v1/constituents')!;
    expect(create.body).toEqual({
      type: 'Individual', first: 'Grace', last: 'Hopper', email: { address: 'grace@navy.example', type: 'Email', primary: true },
      phone: { number: '503-555-0199', type: 'Home', primary: true },
      address: { address_lines: '9 Harbor Way', city: 'Arlington', state: 'VA', postal_code: '22201', type: 'Home', preferred: true },
    });
    const count = sky.constituents.size;
    const [again] = await renxtConnector.upsert(await ctxFor(ds, { constituentCode: 'Donor' }), 'constituents', [item]);
    expect(again).toMatchObject({ id: created!.id, outcome: 'created', replayed: true });
    expect(sky.constituents.size).toBe(count);
  });

  it('after a crash between the vendor\'s answer and our record, a retry finds what was created instead of creating it again', async () => {
    const key = `k-${ds}-crash`;
    const fields = { firstName: 'Katherine', lastName: 'Johnson', email: 'katherine@nasa.example' };
    // the first try recorded the key as under way, Raiser's Edge NXT created, and the worker died
    await tenant.vendorState.beginWrite(ds, 'constituents', key);
    const first = sky.addConstituent({ first: 'Katherine', last: 'Johnson', email: 'katherine@nasa.example' });
    const count = sky.constituents.size;
    const [retry] = await renxtConnector.upsert(await ctxFor(ds), 'constituents', [{ idempotencyKey: key, fields }]);
    expect(retry).toMatchObject({ id: first.id, outcome: 'created', replayed: true });
    expect(sky.constituents.size).toBe(count);
    // and the ledger now answers at once
    expect((await tenant.vendorState.writes(ds, 'constituents', [key])).get(key)).toBe(first.id);
  });

  it('a refused record fails alone with the vendor\'s words, and its key stays free', async () => {
    const [bad, good] = await renxtConnector.upsert(await ctxFor(ds), 'constituents', [
      { idempotencyKey: `k-${ds}-bad`, fields: { lastName: 'Mailless', email: 'not-an-email' } },
      { idempotencyKey: `k-${ds}-good`, fields: { lastName: 'Mailful', email: 'mail@ful.example' } },
    ]);
    expect(bad).toMatchObject({ outcome: 'failed', error: "Raiser's Edge NXT refused the record: The email address 'not-an-email' is not valid." });
    expect(good).toMatchObject({ outcome: 'created' });
    expect((await tenant.vendorState.writes(ds, 'constituents', [`k-${ds}-bad`])).has(`k-${ds}-bad`)).toBe(false);
  });

  it('updates the fields it is given: the constituent, its primary e-mail as a child record, and nothing else', async () => {
    const c = sky.addConstituent({ first: 'Mary', last: 'Jackson', email: 'old@nasa.example', phone: '503-555-0111' });
    const [updated] = await renxtConnector.upsert(await ctxFor(ds), 'constituents', [{ idempotencyKey: `k-${ds}-u`, id: c.id, fields: { firstName: 'Mary W.', email: 'new@nasa.example' } }]);
    expect(updated).toMatchObject({ id: c.id, outcome: 'updated' });
    expect(sky.view(c.id)).toMatchObject({ first: 'Mary W.', last: 'Jackson', email: { address: 'new@nasa.example' }, phone: { number: '503-555-0111' } });
    const writes = apiCalls().filter((x) => x.method !== 'GET').map((x) => `${x.method} ${x.path.replace(/\/\d+/g, '/:id')}`);
    expect(writes).toEqual(['PATCH /constituent/v1/constituents/:id', 'PATCH /constituent/v1/emailaddresses/:id']);
  });

  it('creates gifts against their constituent found by lookup id, in the destination\'s gift batch', async () => {
    const donor = sky.addConstituent({ first: 'Gift', last: 'Batch', lookup_id: 'GB-1' });
    const ctx = await ctxFor(ds, { giftBatchPrefix: 'Tributary' });
    const key = `k-${ds}-gift`;
    const [made, orphan] = await renxtConnector.upsert(ctx, 'gifts', [
      { idempotencyKey: key, fields: { constituentLookupId: 'GB-1', amount: '50.00', date: '2026-11-02', fund: '12', campaign: '3' } },
      { idempotencyKey: `${key}-2`, fields: { constituentLookupId: 'NOBODY', amount: 5, date: '2026-11-02', fund: '12' } },
    ]);
    expect(made).toMatchObject({ outcome: 'created', replayed: false });
    expect(sky.gifts.get(made!.id)).toMatchObject({ constituent_id: donor.id, amount: { value: 50 }, batch_prefix: 'Tributary', gift_splits: [expect.objectContaining({ fund_id: '12', campaign_id: '3' })] });
    expect(orphan).toMatchObject({ outcome: 'failed', error: "Raiser's Edge NXT holds no constituent NOBODY for this gift." });
    expect(renxtConnector.references!('gifts').map((r) => r.field)).toEqual(['constituentId', 'constituentLookupId']);
    const [again] = await renxtConnector.upsert(await ctxFor(ds, { giftBatchPrefix: 'Tributary' }), 'gifts', [{ idempotencyKey: key, fields: { constituentLookupId: 'GB-1', amount: '50.00', date: '2026-11-02', fund: '12' } }]);
    expect(again).toMatchObject({ id: made!.id, replayed: true });
  });

  const fundraisingCalls = () => apiCalls().filter((c) => c.path.startsWith('/fundraising/')).map((c) => c.path);

  it('gifts name their fund, campaign and appeal: each is looked up by name, case aside, and each list is read once a run', async () => {
    const donor = sky.addConstituent({ first: 'Named', last: 'Designations', lookup_id: 'ND-1' });
    const ctx = await ctxFor(ds);
    const [first, second] = await renxtConnector.upsert(ctx, 'gifts', [
      { idempotencyKey: `k-${ds}-n1`, fields: { constituentLookupId: 'ND-1', amount: 40, date: '2026-11-04', fund: 'annual fund', campaign: 'SPRING 2026', appeal: ' Spring mailing ' } },
      { idempotencyKey: `k-${ds}-n2`, fields: { constituentLookupId: 'ND-1', amount: 60, date: '2026-11-05', fund: 'Building Fund', appeal: 'Year-end letter' } },
    ]);
    // the run's next batch, with the same context
    const [third] = await renxtConnector.upsert(ctx, 'gifts', [
      { idempotencyKey: `k-${ds}-n3`, fields: { constituentLookupId: 'ND-1', amount: 70, date: '2026-11-06', fund: 'Food Pantry', campaign: 'Annual Giving' } },
    ]);
    for (const r of [first, second, third]) expect(r).toMatchObject({ outcome: 'created' });
    expect(sky.gifts.get(first!.id)).toMatchObject({ constituent_id: donor.id, gift_splits: [expect.objectContaining({ fund_id: '12', campaign_id: '3', appeal_id: '7' })] });
    expect(sky.gifts.get(second!.id)!.gift_splits).toEqual([expect.objectContaining({ fund_id: '13', appeal_id: '8' })]);
    expect(sky.gifts.get(second!.id)!.gift_splits[0]).not.toHaveProperty('campaign_id');
    expect(sky.gifts.get(third!.id)!.gift_splits).toEqual([expect.objectContaining({ fund_id: '14', campaign_id: '4' })]);
    expect(fundraisingCalls().sort()).toEqual(['/fundraising/v1/appeals', '/fundraising/v1/campaigns', '/fundraising/v1/funds']);
    // another run reads them anew (a fund added in Raiser's Edge NXT since is found)
    sky.seen.length = 0;
    await renxtConnector.upsert(await ctxFor(ds), 'gifts', [{ idempotencyKey: `k-${ds}-n4`, fields: { constituentLookupId: 'ND-1', amount: 80, date: '2026-11-07', fund: 'Annual Fund' } }]);
    expect(fundraisingCalls()).toEqual(['/fundraising/v1/funds']);
  });

  it('a fund, campaign or appeal given by its system record ID is sent as it is, without reading the lists', async () => {
    sky.addConstituent({ first: 'Id', last: 'Designations', lookup_id: 'ID-1' });
    const [made] = await renxtConnector.upsert(await ctxFor(ds), 'gifts', [
      { idempotencyKey: `k-${ds}-i1`, fields: { constituentLookupId: 'ID-1', amount: 25, date: '2026-11-04', fund: '13', campaign: '4', appeal: '8' } },
    ]);
    expect(made).toMatchObject({ outcome: 'created' });
    expect(sky.gifts.get(made!.id)!.gift_splits).toEqual([expect.objectContaining({ fund_id: '13', campaign_id: '4', appeal_id: '8' })]);
    expect(fundraisingCalls()).toEqual([]);
  });

  it('a name Raiser\'s Edge NXT does not hold fails that record alone, in words, and nothing is written for it', async () => {
    sky.addConstituent({ first: 'Typo', last: 'Designations', lookup_id: 'TD-1' });
    sky.funds.push({ ...sky.funds[1]!, id: '16', lookup_id: 'BUILDING2' });
    try {
      const count = sky.gifts.size;
      const [badFund, good, badAppeal, twice] = await renxtConnector.upsert(await ctxFor(ds), 'gifts', [
        { idempotencyKey: `k-${ds}-t1`, fields: { constituentLookupId: 'TD-1', amount: 10, date: '2026-11-04', fund: 'Anual Fund' } },
        { idempotencyKey: `k-${ds}-t2`, fields: { constituentLookupId: 'TD-1', amount: 11, date: '2026-11-04', fund: 'Annual Fund', appeal: 'Spring mailing' } },
        { idempotencyKey: `k-${ds}-t3`, fields: { constituentLookupId: 'TD-1', amount: 12, date: '2026-11-04', fund: 'Annual Fund', appeal: 'Sprng mailing' } },
        { idempotencyKey: `k-${ds}-t4`, fields: { constituentLookupId: 'TD-1', amount: 13, date: '2026-11-04', fund: 'Building Fund' } },
      ]);
      expect(badFund).toMatchObject({ outcome: 'failed', id: '', error: "No fund named 'Anual Fund' in Raiser's Edge NXT." });
      expect(good).toMatchObject({ outcome: 'created' });
      expect(badAppeal).toMatchObject({ outcome: 'failed', error: "No appeal named 'Sprng mailing' in Raiser's Edge NXT." });
      expect(twice).toMatchObject({ outcome: 'failed', error: "Raiser's Edge NXT has 2 funds named 'Building Fund' (system record IDs 13, 16); give the one meant by its ID." });
      expect(sky.gifts.size).toBe(count + 1);
      expect(apiCalls().filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/gift/v1/gifts']);
      const keys = [`k-${ds}-t1`, `k-${ds}-t3`, `k-${ds}-t4`];
      expect([...(await tenant.vendorState.writes(ds, 'gifts', keys)).keys()]).toEqual([]);
    } finally {
      sky.funds.pop();
    }
  });
});

describe('the connection test', () => {
  it('signs in with the saved settings and names the environment; a wrong subscription key is refused', async () => {
    const ctx = await ctxFor(ds);
    await expect(renxtConnector.test(ctx)).resolves.toMatchObject({ detail: "Signed in to Raiser's Edge NXT (Riverside Production)." });
    await expect(renxtConnector.test({ ...(await ctxFor(ds)), settings: { ...(await ctxFor(ds)).settings, subscriptionKey: 'nope' } }))
      .rejects.toThrow("Raiser's Edge NXT refused the access token (HTTP 401).");
  });

  it('proves the refresh token itself, even while an access token got with it is saved', async () => {
    const ctx = await ctxFor(ds);
    await renxtConnector.test(ctx);
    expect(await tenant.vendorState.token(ds)).toBeTruthy();
    // revoked at Blackbaud since: the saved access token would still answer for up to an hour
    sky.revoke();
    await expect(renxtConnector.test(await ctxFor(ds))).rejects.toThrow(/needs reconnecting/);
    expect((await tenant.dataSources.get(ds))!.needsReconnecting).toMatch(/needs reconnecting/);
    sky.grant();
  });

  it('settings not saved yet keep their refresh token (the user has yet to save it)', async () => {
    const refreshToken = sky.grant();
    const settings = { clientId: SKY_APP.clientId, clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken };
    const outcome = await renxtConnector.test({ tenant, settings, dataDir: '/tmp' });
    expect(outcome.updatedSecrets).toBeUndefined();
    expect(sky.refreshToken()).toBe(refreshToken);
  });
});
