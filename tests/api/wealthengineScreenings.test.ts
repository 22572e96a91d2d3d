/**
 * WealthEngine's screenings as a source, through its fake (tests/support/vendors/wealthengine.ts)
 * and the SKY API fake, one server for the file:
 * - formula 1 screens a dropped file of people into WealthEngine;
 * - formula 2 reads the screenings (the screened person's own values with the profile found) and
 *   updates the matching constituents of Raiser's Edge NXT by lookup ID: the gift capacity and net
 *   worth land in the constituent's custom fields; a person with no match is not passed on;
 * - a second run of formula 2 reads only the people screened since;
 * - people screened at the same instant are all read however the batches fall;
 * - a send that commits after a later one is still read (a run never reads past an open send);
 * - another tenant never sees these screenings.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext, PullBatch } from '../../server/connectors/connector.ts';
import { wealthengineConnector } from '../../server/connectors/wealthengine/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { pullAll } from '../support/connectorContext.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeSetup, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { SKY_APP, startFakeSkyApi, type FakeSkyApi } from '../support/vendors/skyApi.ts';
import { startFakeWealthEngine, WE_KEY, type FakeWealthEngine, type WeProfile } from '../support/vendors/wealthengine.ts';

const DS = '/integrations/v1/data-sources';
let weVendor: VendorFakeSetup<FakeWealthEngine>;
let skyVendor: VendorFakeWithServer<FakeSkyApi>;
let server: TestServer;
let we: FakeWealthEngine;
let sky: FakeSkyApi;
let admin: TenantSession;
let flat: string;
let wealth: string;
let renxt: string;
let screening: string;
let passingOn: string;
let adaProfile: WeProfile;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T>(res: Response) => res.json() as Promise<T>;
const create = async (body: unknown) => {
  const made = await send(DS, { method: 'POST', body });
  expect(made.status, await made.clone().text()).toBe(201);
  return (await json<{ id: string }>(made)).id;
};
const header = ['Lookup ID', 'First', 'Last', 'Email'];
const drop = (name: string, rows: string[][]) => dropCsv(server.config.dataDir, admin.tenantId, 'screening', name, [header, ...rows]);
/** a constituent's custom fields in the fake, by category */
const customOf = (constituentId: string) => Object.fromEntries(sky.customFields.filter((f) => f.parent_id === constituentId).map((f) => [f.category, f.value]));
const screeningsIn = (tenantId: string, batchSize?: number, since: string | null = null): Promise<PullBatch[]> => {
  const ctx = { tenant: forTenant(server.database.db, tenantId), settings: {}, dataSourceId: wealth, dataDir: '/tmp' } as ConnectorContext;
  return pullAll(wealthengineConnector.pull(ctx, 'screenings', since, batchSize ? { batchSize } : {}));
};

beforeAll(async () => {
  weVendor = await withVendorFake('wealthengine', startFakeWealthEngine);
  we = weVendor.fake;
  skyVendor = await withVendorFake('renxt', startFakeSkyApi, { server: { work: true, env: { RUN_SLICE_MS: '100000', ...weVendor.env } } });
  ({ fake: sky, server } = skyVendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  adaProfile = we.add({ email: 'ada@example.org', last_name: 'Lovelace', full_name: 'Ada Lovelace', networth: '$1MM-$2.5MM', gift_capacity: '$25K-$50K', p2g: '4|2 - Above average' });
  we.add({ email: 'emmy@example.org', last_name: 'Noether', full_name: 'Emmy Noether', networth: '$100K-$500K', gift_capacity: '$1K-$5K', p2g: '2|3 - Below average' });
  we.add({ email: 'grace@example.org', last_name: 'Hopper', full_name: 'Grace Hopper', networth: '$500K-$1MM', gift_capacity: '$10K-$15K', p2g: '3|5 - Average' });
  // Raiser's Edge NXT keeps the wealth values in custom fields of these categories
  sky.customFieldCategories.push({ name: 'Gift capacity', type: 'Text' }, { name: 'Net worth', type: 'Text' });
  flat = await create({ system: 'flat-file', displayName: 'Screening drop', settings: { folder: 'screening' } });
  wealth = await create({ system: 'wealthengine', displayName: 'WealthEngine', settings: { environment: 'production', apiKey: WE_KEY } });
  renxt = await create({
    system: 'renxt', displayName: 'Riverside RE NXT',
    settings: { clientId: SKY_APP.clientId, clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: sky.grant() },
  });
}, 120_000);
afterAll(async () => {
  await skyVendor?.close();
  await weVendor?.close();
});

describe('WealthEngine screenings passed on to Raiser\'s Edge NXT', () => {
  it('a second formula reads the people screened with their profiles and puts the wealth values on the matching constituents', async () => {
    const ada = sky.addConstituent({ first: 'Ada', last: 'Lovelace', email: 'ada.l@riverside.example', lookup_id: 'C-101' });
    const nobody = sky.addConstituent({ first: 'Nobody', last: 'Known', lookup_id: 'C-103' });
    const emmy = sky.addConstituent({ first: 'Emmy', last: 'Noether', lookup_id: 'C-104' });
    screening = await formulaBetween(send, { source: { dataSourceId: flat, object: 'people-*.csv' }, destination: { dataSourceId: wealth, object: 'profiles', settings: { profile: 'basic' } } }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'first_name', kind: 'source', source: 'First' }, { destination: 'last_name', kind: 'source', source: 'Last' },
        { destination: 'email', kind: 'source', source: 'Email' },
      ] },
      'summary-fields': { fields: ['first_name', 'last_name'] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    });
    drop('people-1.csv', [['C-101', 'Ada', 'Lovelace', 'ada@example.org'], ['C-103', 'Nobody', 'Known', 'nobody@example.org'], ['C-104', 'Emmy', 'Noether', 'emmy@example.org']]);
    expect((await runToEnd(send, screening)).counts).toMatchObject({ collected: 3, created: 3 });

    // the wizard offers WealthEngine as a source of its screenings, described with the profile and the screened record's fields
    const { objects } = await json<{ objects: { name: string }[] }>(await send(`${DS}/${wealth}/objects`));
    expect(objects.map((o) => o.name)).toEqual(['profiles', 'screenings']);
    const { fields } = await json<{ fields: { name: string }[] }>(await send(`${DS}/${wealth}/objects/screenings/fields`));
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['match_level', 'profile_id', 'net_worth', 'gift_capacity', 'p2g_score', 'screened_on', 'Lookup ID', 'Email', 'Last']));
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.find((x) => x.system === 'wealthengine')?.does).toBe('source and destination');

    passingOn = await formulaBetween(send, {
      source: { dataSourceId: wealth, object: 'screenings' }, destination: { dataSourceId: renxt, object: 'constituents', settings: { constituentCode: 'Donor' } },
    }, {
      ...AUTOSENDING_PARTS,
      routing: { ...AUTOSENDING_PARTS.routing, unmatched: 'needs-attention' as const },
      mapping: { fields: [
        { destination: 'lookupId', kind: 'source', source: 'Lookup ID' }, { destination: 'lastName', kind: 'source', source: 'Last' },
        { destination: 'custom:Gift capacity', kind: 'source', source: 'gift_capacity' }, { destination: 'custom:Net worth', kind: 'source', source: 'net_worth' },
      ] },
      'summary-fields': { fields: ['lastName'] },
      matching: { scenarios: [{ name: 'Lookup ID', criteria: [{ source: 'Lookup ID', destination: 'lookupId' }], matchReason: 'Same lookup ID', isPrimary: true }], advanced: false, autoPick: [] },
    });
    const done = await runToEnd(send, passingOn, 90_000);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    // Ada's and Emmy's profiles are passed on; Nobody had no match and is not
    expect(done.counts).toMatchObject({ collected: 2, updated: 2 });
    expect(customOf(ada.id)).toEqual({ 'Gift capacity': '$25K-$50K', 'Net worth': '$1MM-$2.5MM' });
    expect(customOf(emmy.id)).toEqual({ 'Gift capacity': '$1K-$5K', 'Net worth': '$100K-$500K' });
    expect(customOf(nobody.id)).toEqual({});
  }, 180_000);

  it('a second run reads only the people screened since, and a constituent screened again is edited, not given a second value', async () => {
    const ada = [...sky.constituents.values()].find((c) => c.lookup_id === 'C-101')!;
    const grace = sky.addConstituent({ first: 'Grace', last: 'Hopper', lookup_id: 'C-102' });
    drop('people-2.csv', [['C-102', 'Grace', 'Hopper', 'grace@example.org']]);
    expect((await runToEnd(send, screening)).counts).toMatchObject({ collected: 1, created: 1 });
    const searched = sky.seen.length;
    const done = await runToEnd(send, passingOn, 90_000);
    expect(done.counts).toMatchObject({ collected: 1, updated: 1 });
    expect(customOf(grace.id)).toEqual({ 'Gift capacity': '$10K-$15K', 'Net worth': '$500K-$1MM' });
    // Ada was not read again: no search for her lookup ID since the first run
    expect(sky.seen.slice(searched).some((s) => JSON.stringify(s).includes('C-101'))).toBe(false);
    expect(customOf(ada.id)).toEqual({ 'Gift capacity': '$25K-$50K', 'Net worth': '$1MM-$2.5MM' });

    // her wealth changes and she is screened again: the custom field she has is edited in place, not given a second record
    adaProfile.gift_capacity = '$50K-$100K';
    drop('people-3.csv', [['C-101', 'Augusta Ada', 'Lovelace', 'ada@example.org']]);
    expect((await runToEnd(send, screening)).counts).toMatchObject({ collected: 1 });
    expect((await runToEnd(send, passingOn, 90_000)).counts).toMatchObject({ collected: 1, updated: 1 });
    expect(customOf(ada.id)).toEqual({ 'Gift capacity': '$50K-$100K', 'Net worth': '$1MM-$2.5MM' });
    expect(sky.customFields.filter((f) => f.parent_id === ada.id)).toHaveLength(2);
  }, 180_000);

  it('reads people screened in the same instant whatever the batch size, and only this tenant\'s', async () => {
    const sent = (await server.database.pool.query<{ date_processed: Date }>("select date_processed from records where formula_id = $1 and raw->>'First' in ('Ada', 'Nobody', 'Emmy')", [screening])).rows;
    // Ada, Nobody and Emmy were sent in one statement: one instant, told apart by the tie-breaker
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.date_processed.toISOString())).size).toBe(1);
    const lookupIds = (batches: PullBatch[]) => batches.flatMap((b) => b.records.map((r) => r.fields['Lookup ID']));
    const whole = lookupIds(await screeningsIn(admin.tenantId));
    expect(whole).toEqual(expect.arrayContaining(['C-101', 'C-102', 'C-104']));
    expect(whole).not.toContain('C-103');
    for (const size of [1, 2]) expect(lookupIds(await screeningsIn(admin.tenantId, size)), `batches of ${size}`).toEqual(whole);
    const [first] = await screeningsIn(admin.tenantId);
    expect(first!.records.find((r) => r.fields.First === 'Ada')!.fields).toMatchObject({
      'Lookup ID': 'C-101', Email: 'ada@example.org', Last: 'Lovelace', match_level: 'E-mail', profile_id: '7000001', gift_capacity: '$25K-$50K', net_worth: '$1MM-$2.5MM',
    });

    // another tenant reading the same data source id finds nothing, though the rows are there
    const other = admin.tenantIds.find((t) => t !== admin.tenantId)!;
    expect(other).toBeTruthy();
    expect((await screeningsIn(other)).flatMap((b) => b.records)).toEqual([]);
    expect(await forTenant(server.database.db, other).screenings.sentSince(wealth, null, 100)).toEqual([]);
    expect(await forTenant(server.database.db, other).screenings.sourceFields(wealth)).toEqual([]);
    // nor can it name the data source in a formula of its own
    const foreign = await call(server.url, DS + `/${wealth}/objects/screenings/fields`, { headers: { ...admin.headers, tenantId: other } });
    expect(foreign.status).toBe(404);
  });

  it('reads a screening whose send commits after a later one was read: a run never reads past a send still open', async () => {
    const firstOf = (batches: PullBatch[]) => batches.flatMap((b) => b.records.map((r) => r.fields.First));
    const lastMark = (batches: PullBatch[], since: string | null) => batches.at(-1)?.watermark ?? since;
    const since = lastMark(await screeningsIn(admin.tenantId), null);
    expect(since).toBeTruthy();
    const mark = "update records set date_processed = now() where formula_id = $1 and raw->>'First' = $2 and state = 'sent'";
    // Emmy is sent again by a send whose transaction is still open (its time is its start) ...
    const open = new pg.Client({ connectionString: server.databaseUrl });
    await open.connect();
    try {
      await open.query('begin');
      expect((await open.query(mark, [screening, 'Emmy'])).rowCount).toBe(1);
      await new Promise((r) => setTimeout(r, 20));
      // ... while Grace's send, begun later, commits first
      expect((await server.database.pool.query(mark, [screening, 'Grace'])).rowCount).toBe(1);
      const meanwhile = await screeningsIn(admin.tenantId, undefined, since);
      expect(firstOf(meanwhile), 'read while Emmy\'s send is open').not.toContain('Grace');
      const next = lastMark(meanwhile, since);
      await open.query('commit');
      expect(firstOf(await screeningsIn(admin.tenantId, undefined, next))).toEqual(['Emmy', 'Grace']);
    } finally {
      await open.end();
    }
  });
});
