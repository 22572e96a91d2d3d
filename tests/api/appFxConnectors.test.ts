/**
 * Blackbaud CRM and Altru (the Infinity platform's AppFx web service) against one local fake
 * serving both (tests/support/vendors/appFx.ts), one test server for the file:
 * - contract: SOAP envelopes as documented (SOAPAction, the database named in ClientAppInfo, the
 *   data list's changed-since parameter and MaxRows), paging past a page's rows, a SOAP fault in
 *   the vendor's words, refused credentials (401) in our words, a 429 and a 503 mid-read waited
 *   out, a create never doubled;
 * - the wizard's connection test through the API (success, wrong password, wrong database);
 * - whole formulas: Blackbaud CRM constituents → the Sandbox CRM (first run, later run with only
 *   what changed), and a dropped file → Altru constituents (the known one updated, the new one
 *   created, the refused one in Exceptions with Altru's words).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { altruConnector, APPFX_PAGE, bbcrmConnector } from '../../server/connectors/appFx/connector.ts';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { createSecretBox, loadSecretKey } from '../../server/connectors/secrets.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { contextFor, pullAll } from '../support/connectorContext.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { APPFX_IDS, APPFX_PATHS, APPFX_USER, startFakeAppFx, type FakeAppFx } from '../support/vendors/appFx.ts';
import { withVendorFake, type VendorFakeSetup, type VendorFakeWithServer } from '../support/vendors/harness.ts';

const DS = '/integrations/v1/data-sources';
const CRM_URL = `https://crm.riverside.org${APPFX_PATHS.bbcrm}`;
const ALTRU_URL = `https://altru.blackbaudhosting.com${APPFX_PATHS.altru}`;
const SETTINGS = { database: APPFX_USER.database, username: APPFX_USER.username, password: APPFX_USER.password };
const CONSTITUENT_DESTINATION = { searchListId: APPFX_IDS.constituentSearch, addFormId: APPFX_IDS.constituentAdd, editFormId: APPFX_IDS.constituentEdit };

let fx: FakeAppFx;
let bbVendor: VendorFakeSetup<FakeAppFx>;
let altruVendor: VendorFakeWithServer<FakeAppFx>;
let server: TestServer;
let admin: TenantSession;
let crmSource: string;
let altruDs: string;
let flat: string;
let sandbox: string;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);

beforeAll(async () => {
  // one fake for both systems: each system's base URL points at it, its path tells them apart
  bbVendor = await withVendorFake('bbcrm', startFakeAppFx);
  fx = bbVendor.fake;
  altruVendor = await withVendorFake('altru', async () => ({ ...fx, close: async () => {} }), { server: { work: true, env: { RUN_SLICE_MS: '100000', ...bbVendor.env } } });
  ({ server } = altruVendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const create = async (body: unknown) => {
    const made = await send(DS, { method: 'POST', body });
    expect(made.status, await made.clone().text()).toBe(201);
    return (await json<{ id: string }>(made)).id;
  };
  crmSource = await create({ system: 'bbcrm', displayName: 'Riverside CRM', settings: { url: CRM_URL, ...SETTINGS } });
  altruDs = await create({ system: 'altru', displayName: 'Riverside Altru', settings: { url: ALTRU_URL, ...SETTINGS } });
  flat = await create({ system: 'flat-file', displayName: 'Altru drop', settings: { folder: 'appfx' } });
  const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
  sandbox = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
}, 120_000);
afterAll(async () => {
  await altruVendor?.close();
  await bbVendor?.close();
});

const ctx = (url = CRM_URL, endSettings: Record<string, string> = {}, settings: Record<string, string> = {}): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings: { url, ...SETTINGS, ...settings }, dataDir: '/tmp', endSettings });
const listed = (since: string | null, options: Record<string, unknown> = {}) =>
  pullAll(bbcrmConnector.pull(ctx(), 'constituents', since, { settings: { dataListId: APPFX_IDS.constituentList }, ...options }));

describe('the AppFx web service, as Blackbaud CRM and Altru', () => {
  it('reads a data list in SOAP envelopes as documented, naming the database, page after page past MaxRows, then only what changed', async () => {
    fx.clear();
    const at = new Date('2026-03-01T10:00:00Z');
    // three changed at the same moment: a page boundary falls among them
    const rows = [0, 1, 2, 3, 4].map((i) => fx.add('bbcrm', 'constituents', { LOOKUPID: `8-1000${i}`, FIRSTNAME: `Ada${i}`, KEYNAME: 'Tributary', EMAILADDRESS: `ada${i}@example.org` }, i < 3 ? at : new Date(at.getTime() + i * 1000)));
    const batches = await listed(null, { batchSize: 2 });
    expect(batches.flatMap((b) => b.records.map((r) => r.id))).toEqual([...rows.slice(0, 3).map((r) => r.ID).sort((a, b) => a!.toLowerCase().localeCompare(b!.toLowerCase())), rows[3]!.ID, rows[4]!.ID]);
    expect(batches[0]!.records[0]!.fields).toMatchObject({ FIRSTNAME: expect.stringMatching(/^Ada/), KEYNAME: 'Tributary', DATECHANGED: '2026-03-01T10:00:00.000Z' });
    const calls = fx.seen.filter((s) => s.operation === 'DataListLoad');
    for (const c of calls) {
      expect(c).toMatchObject({
        site: 'bbcrm', soapAction: '"Blackbaud.AppFx.WebService.API.1/DataListLoad"', contentType: 'text/xml; charset=utf-8', database: APPFX_USER.database,
        attributes: { xmlns: 'Blackbaud.AppFx.WebService.API.1', IncludeMetaData: 'true' }, elements: { DataListID: APPFX_IDS.constituentList },
      });
    }
    expect(calls[0]!.raw).toContain('<ClientAppInfo REDatabaseToUse="BBInfinity" ClientAppName="Tributary"');
    // each page from the latest change read (inclusive); the page that found only rows read before asked again for more
    expect(calls.map((c) => [c.values.DATECHANGEDSINCE, c.elements.MaxRows])).toEqual([
      [undefined, '2'], ['2026-03-01T10:00:00.000Z', '2'], ['2026-03-01T10:00:00.000Z', '4'], ['2026-03-01T10:00:03.000Z', '2'], ['2026-03-01T10:00:04.000Z', '2'],
    ]);
    // the engine's batch size stays within MaxRows
    expect(APPFX_PAGE).toBe(500);
    const watermark = batches.at(-1)!.watermark;
    expect(JSON.parse(watermark!)).toMatchObject({ since: '2026-03-01T10:00:04.000Z', next: rows[4]!.ID });
    // a later read: only what changed since
    expect((await listed(watermark)).flatMap((b) => b.records)).toEqual([]);
    fx.change('bbcrm', 'constituents', rows[1]!.ID!, { FIRSTNAME: 'Changed' });
    expect((await listed(watermark)).flatMap((b) => b.records.map((r) => r.fields.FIRSTNAME))).toEqual(['Changed']);
  });

  it('waits out a 429 and a 503 in the middle of a read', async () => {
    fx.clear();
    for (let i = 0; i < 5; i++) fx.add('bbcrm', 'constituents', { FIRSTNAME: `T${i}`, KEYNAME: 'Throttled' });
    let page = 0;
    const got: string[] = [];
    for await (const batch of bbcrmConnector.pull(ctx(), 'constituents', null, { batchSize: 2, settings: { dataListId: APPFX_IDS.constituentList } })) {
      got.push(...batch.records.map((r) => String(r.fields.FIRSTNAME)));
      // the next page's first answer: a 503, then a 429
      if (page < 2) fx.throttle(1, page === 0 ? 503 : 429);
      page++;
    }
    expect(got).toEqual(['T0', 'T1', 'T2', 'T3', 'T4']);
    // every page answered once the refusals were waited out
    expect(fx.seen.filter((s) => s.operation === 'DataListLoad').length).toBe(5);
    expect(fx.refusedCalls()).toEqual([503, 429]);
  });

  it('refuses bad credentials (HTTP 401) in its own words, a wrong database in the vendor\'s fault, an unknown data list with the fault\'s words', async () => {
    const bad = await bbcrmConnector.test(ctx(CRM_URL, {}, { password: 'nope' })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConnectionProblem);
    expect(bad).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'Blackbaud CRM refused the user name and password (HTTP 401).' });
    await expect(altruConnector.test(ctx(ALTRU_URL))).resolves.toEqual({ detail: 'Signed in to Altru database BBInfinity.' });
    await expect(altruConnector.test(ctx(ALTRU_URL, {}, { database: 'Elsewhere' }))).rejects.toThrow('Altru has no database named Elsewhere that this user may use.');
    const other = await pullAll(bbcrmConnector.pull(ctx(CRM_URL, {}, { database: 'Elsewhere' }), 'constituents', null, { settings: { dataListId: APPFX_IDS.constituentList } })).catch((e: unknown) => e);
    expect((other as Error).message).toBe('Blackbaud CRM refused the request (HTTP 500): The database \'Elsewhere\' is not available on this web server.');
    const unknown = await pullAll(bbcrmConnector.pull(ctx(), 'constituents', null, { settings: { dataListId: '00000000-0000-4000-8000-000000000000' } })).catch((e: unknown) => e);
    expect((unknown as Error).message).toBe('Blackbaud CRM refused the request (HTTP 500): Data list with ID \'00000000-0000-4000-8000-000000000000\' was not found.');
    await expect(pullAll(bbcrmConnector.pull(ctx(), 'constituents', null, {}))).rejects.toThrow('Blackbaud CRM needs the ID (a GUID) of the data list to read in the formula\'s settings.');
    await expect(pullAll(bbcrmConnector.pull(ctx(), 'memberships', null, {}))).rejects.toThrow('Tributary reads Blackbaud CRM constituents and revenue; memberships is not one of them yet.');
  });

  it('Altru\'s memberships and revenue read from its own site; Altru writes constituents only', async () => {
    fx.clear();
    const ada = fx.add('altru', 'constituents', { FIRSTNAME: 'Ada', KEYNAME: 'King' });
    fx.add('altru', 'memberships', { CONSTITUENTID: ada.ID!, MEMBERSHIPPROGRAM: 'Museum', MEMBERSHIPLEVEL: 'Family', STATUS: 'Active', EXPIRATIONDATE: '2027-03-01' });
    fx.add('altru', 'revenue', { CONSTITUENTID: ada.ID!, AMOUNT: '120.00', DATE: '2026-03-01' });
    const read = async (object: string, dataListId: string) => (await pullAll(altruConnector.pull(ctx(ALTRU_URL), object, null, { settings: { dataListId } }))).flatMap((b) => b.records);
    expect((await read('memberships', APPFX_IDS.membershipList)).map((r) => r.fields)).toEqual([expect.objectContaining({ CONSTITUENTID: ada.ID, MEMBERSHIPLEVEL: 'Family', STATUS: 'Active' })]);
    expect((await read('revenue', APPFX_IDS.revenueList)).map((r) => r.fields.AMOUNT)).toEqual(['120.00']);
    expect(fx.seen.every((s) => s.site === 'altru')).toBe(true);
    await expect(altruConnector.upsert(ctx(ALTRU_URL, CONSTITUENT_DESTINATION), 'revenue', [])).rejects.toThrow('Tributary writes Altru constituents; revenue is not one of them yet.');
  });

  it('finds matches with a search list, creates with the add form once per key, updates with the edit form, a fault the record\'s error in the vendor\'s words', async () => {
    fx.clear();
    const known = fx.add('bbcrm', 'constituents', { LOOKUPID: '8-20001', FIRSTNAME: 'Grace', KEYNAME: 'Hopper', EMAILADDRESS: 'grace@example.org' });
    const id = await (async () => {
      const made = await send(DS, { method: 'POST', body: { system: 'bbcrm', displayName: 'Riverside CRM writes', settings: { url: CRM_URL, ...SETTINGS } } });
      return (await json<{ id: string }>(made)).id;
    })();
    const saved = await contextFor(tenant(), createSecretBox(loadSecretKey(server.config)), id, CONSTITUENT_DESTINATION);
    const found = await bbcrmConnector.search(saved, 'constituents', { criteria: [{ field: 'EMAILADDRESS', value: 'GRACE@example.org' }] });
    expect(found.map((r) => r.id)).toEqual([known.ID]);
    const search = fx.seen.find((s) => s.operation === 'SearchListLoad')!;
    expect(search).toMatchObject({ database: APPFX_USER.database, elements: { SearchListID: APPFX_IDS.constituentSearch }, values: { EMAILADDRESS: 'GRACE@example.org' } });
    const items = [
      { idempotencyKey: 'k-update', id: known.ID!, fields: { FIRSTNAME: 'Grace', KEYNAME: 'Hopper-Murray', EMAILADDRESS: 'grace@example.org' } },
      { idempotencyKey: 'k-new', fields: { LOOKUPID: '8-20002', FIRSTNAME: 'Alan', KEYNAME: 'Turing', EMAILADDRESS: 'alan@example.org' } },
      { idempotencyKey: 'k-bad', fields: { FIRSTNAME: 'Bad', KEYNAME: 'Address', EMAILADDRESS: 'bad@@example' } },
    ];
    const results = await bbcrmConnector.upsert(saved, 'constituents', items);
    expect(results.map((r) => [r.outcome, r.replayed])).toEqual([['updated', false], ['created', false], ['failed', false]]);
    expect(results[2]!.error).toBe('Blackbaud CRM refused the constituent: The e-mail address \'bad@@example\' is not a valid e-mail address.');
    expect(fx.records.bbcrm.constituents!.get(known.ID!)).toMatchObject({ KEYNAME: 'Hopper-Murray' });
    const saves = fx.seen.filter((s) => s.operation === 'DataFormSave');
    expect(saves.map((s) => [s.elements.FormID, s.elements.ID])).toEqual([
      [APPFX_IDS.constituentEdit, known.ID], [APPFX_IDS.constituentAdd, undefined], [APPFX_IDS.constituentAdd, undefined],
    ]);
    // the same key again: answered from the ledger, nothing written twice
    const again = await bbcrmConnector.upsert(saved, 'constituents', [items[1]!]);
    expect(again).toEqual([expect.objectContaining({ outcome: 'created', replayed: true, id: results[1]!.id })]);
    expect(fx.seen.filter((s) => s.operation === 'DataFormSave').length).toBe(3);
    expect([...fx.records.bbcrm.constituents!.values()].filter((r) => r.KEYNAME === 'Turing')).toHaveLength(1);
  });
});

describe('the wizard with Blackbaud CRM and Altru', () => {
  it('tests each connection, lists its objects and fields; the catalogue says source and destination', async () => {
    expect(await json(await send(`${DS}/${crmSource}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: 'Signed in to Blackbaud CRM database BBInfinity.' });
    expect(await json(await send(`${DS}/${altruDs}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: 'Signed in to Altru database BBInfinity.' });
    const wrong = await send(`${DS}/test`, { method: 'POST', body: { system: 'bbcrm', settings: { url: CRM_URL, ...SETTINGS, password: 'nope' } } });
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: 'Blackbaud CRM refused the user name and password (HTTP 401).' });
    const wrongDatabase = await send(`${DS}/test`, { method: 'POST', body: { system: 'altru', settings: { url: ALTRU_URL, ...SETTINGS, database: 'Elsewhere' } } });
    expect(wrongDatabase.status).toBe(422);
    expect(await wrongDatabase.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: 'Altru has no database named Elsewhere that this user may use.' });
    // an outage reads as a connection error, at once
    fx.outage = true;
    try {
      const down = await send(`${DS}/${crmSource}/test`, { method: 'POST' });
      expect(down.status).toBe(502);
      expect(await down.json()).toMatchObject({ title: 'connection-error', code: 'processing-error', detail: 'Blackbaud CRM answered with a server error (HTTP 500). Try again later.' });
    } finally {
      fx.outage = false;
    }
    const objects = async (id: string) => (await json<{ objects: { name: string }[] }>(await send(`${DS}/${id}/objects`))).objects.map((o) => o.name);
    expect([await objects(crmSource), await objects(altruDs)]).toEqual([['constituents', 'revenue'], ['constituents', 'revenue', 'memberships']]);
    const fields = (await json<{ fields: { name: string }[] }>(await send(`${DS}/${crmSource}/objects/constituents/fields`))).fields.map((f) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['ID', 'LOOKUPID', 'FIRSTNAME', 'KEYNAME', 'EMAILADDRESS', 'DATECHANGED']));
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.filter((s) => ['bbcrm', 'altru'].includes(s.system)).map((s) => s.does)).toEqual(['source and destination', 'source and destination']);
  });
});

describe('a dry run into Altru', () => {
  it('previews what a send would do (the known constituent updated, the new one created) and writes nothing', async () => {
    fx.clear();
    fx.add('altru', 'constituents', { FIRSTNAME: 'Known', KEYNAME: 'Preview', EMAILADDRESS: 'preview.known@example.org' });
    const id = await formulaBetween(send, {
      source: { dataSourceId: flat, object: 'preview-*.csv' },
      destination: { dataSourceId: altruDs, object: 'constituents', settings: CONSTITUENT_DESTINATION },
    }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [{ destination: 'EMAILADDRESS', kind: 'source', source: 'Email' }, { destination: 'KEYNAME', kind: 'source', source: 'Last name' }] },
      'summary-fields': { fields: ['EMAILADDRESS', 'KEYNAME'] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'EMAILADDRESS' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    }, false);
    dropCsv(server.config.dataDir, admin.tenantId, 'appfx', 'preview-1.csv', [['Email', 'Last name'], ['PREVIEW.known@example.org', 'Preview'], ['preview.new@example.org', 'New']]);
    const dry = await send(`/web-api/v1/formulas/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 1, update: 1 });
    expect(fx.seen.filter((s) => s.operation === 'SearchListLoad').length).toBeGreaterThan(0);
    expect(fx.seen.some((s) => s.operation === 'DataFormSave')).toBe(false);
  });
});

describe('whole formulas', () => {
  const crmHas = async (email: string) => (await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: email }] }))[0]?.fields;

  it('Blackbaud CRM constituents into the Sandbox CRM: every one on the first run (a 429 waited out), a later run only what changed', async () => {
    fx.clear();
    for (let i = 0; i < 3; i++) fx.add('bbcrm', 'constituents', { FIRSTNAME: `Crm${i}`, KEYNAME: 'Tributary', EMAILADDRESS: `crm${i}@example.org` });
    const id = await formulaBetween(send, {
      source: { dataSourceId: crmSource, object: 'constituents', settings: { dataListId: APPFX_IDS.constituentList } },
      destination: { dataSourceId: sandbox, object: 'constituents' },
    }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'firstName', kind: 'source', source: 'FIRSTNAME' }, { destination: 'lastName', kind: 'source', source: 'KEYNAME' },
        { destination: 'email', kind: 'source', source: 'EMAILADDRESS' },
      ] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'EMAILADDRESS', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    });
    fx.throttle(1);
    const first = await runToEnd(send, id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect(await crmHas('crm1@example.org')).toMatchObject({ firstName: 'Crm1', lastName: 'Tributary' });
    fx.add('bbcrm', 'constituents', { FIRSTNAME: 'Later', KEYNAME: 'Tributary', EMAILADDRESS: 'crm.later@example.org' });
    const second = await runToEnd(send, id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    expect(second.counts.collected).toBe(1);
    expect(fx.seen.filter((s) => s.operation === 'DataListLoad').at(-1)!.values.DATECHANGEDSINCE).toBeTruthy();
    expect(await crmHas('crm.later@example.org')).toMatchObject({ firstName: 'Later' });
  });

  it('a file into Altru constituents: the known one updated, the new one created, the refused one in Exceptions with Altru\'s words', async () => {
    fx.clear();
    const known = fx.add('altru', 'constituents', { LOOKUPID: '8-30001', FIRSTNAME: 'Known', KEYNAME: 'Before', EMAILADDRESS: 'known.altru@example.org' });
    const id = await formulaBetween(send, {
      source: { dataSourceId: flat, object: 'altru-*.csv' },
      destination: { dataSourceId: altruDs, object: 'constituents', settings: CONSTITUENT_DESTINATION },
    }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'EMAILADDRESS', kind: 'source', source: 'Email' }, { destination: 'FIRSTNAME', kind: 'source', source: 'First name' },
        { destination: 'KEYNAME', kind: 'source', source: 'Last name' },
      ] },
      'summary-fields': { fields: ['EMAILADDRESS', 'KEYNAME'] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'EMAILADDRESS' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    });
    dropCsv(server.config.dataDir, admin.tenantId, 'appfx', 'altru-1.csv', [['Email', 'First name', 'Last name'], ['KNOWN.altru@example.org', 'Known', 'After'], ['joiner.altru@example.org', 'Joiner', 'New'], ['bad@@example', 'Bad', 'Address']]);
    const done = await runToEnd(send, id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(fx.records.altru.constituents!.get(known.ID!)).toMatchObject({ KEYNAME: 'After' });
    expect([...fx.records.altru.constituents!.values()].filter((r) => r.EMAILADDRESS === 'joiner.altru@example.org')).toEqual([expect.objectContaining({ FIRSTNAME: 'Joiner', KEYNAME: 'New' })]);
    const rows = (await server.database.pool.query<{ state: string; bucket: string | null; error_reason: string | null }>(
      'select state, bucket, error_reason from records where formula_id = $1 order by state, error_reason', [id])).rows;
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: 'Altru refused the constituent: The e-mail address \'bad@@example\' is not a valid e-mail address.' });
    // every write named the database
    expect(fx.seen.filter((s) => s.site === 'altru').every((s) => s.database === APPFX_USER.database)).toBe(true);
  });
});
