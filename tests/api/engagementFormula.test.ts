/**
 * Whole formulas through EveryAction, Engaging Networks, Salesforce Marketing Cloud and Mobile
 * Commons, with real workers on real PostgreSQL and the local fakes (tests/support/vendors/), one
 * server for all of them:
 * - each system as a source into the Sandbox CRM: a first run reads everything (a 429 in the
 *   middle waited out), a later run only what changed (after the session or token expired, where
 *   the system signs in with one);
 * - each system as a destination of a dropped file: the known record updated, the new one
 *   written, the one the vendor refuses in Exceptions with the vendor's words;
 * - a matching scenario the system's search cannot answer refused when saved, with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/domain/api/formulas.ts';
import { JOB_POLL } from '../../server/connectors/kit/exportJob.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { dropCsv, tenantSession, type TenantSession } from '../support/engineRun.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import type { TestServer } from '../support/server.ts';
import { startFakeEveryAction, VAN_APP, VAN_KEY, type FakeEveryAction } from '../support/vendors/everyaction.ts';
import { ENS_TOKEN, startFakeEngagingNetworks, type FakeEngagingNetworks } from '../support/vendors/engagingNetworks.ts';
import { withVendorFake, type VendorFakeSetup, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { MC_LOGIN, startFakeMobileCommons, type FakeMobileCommons } from '../support/vendors/mobileCommons.ts';
import { DE_KEY, SFMC, startFakeMarketingCloud, type FakeMarketingCloud } from '../support/vendors/salesforceMarketingCloud.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let van: FakeEveryAction;
let admin: TenantSession;
let flat: string;
let crm: string;
let everyaction: string;
let vanVendor: VendorFakeWithServer<FakeEveryAction>;
let en: FakeEngagingNetworks;
let engagingNetworks: string;
let mcloud: FakeMarketingCloud;
let marketingCloud: string;
let sms: FakeMobileCommons;
let mobileCommons: string;
const others: VendorFakeSetup<{ close(): Promise<void>; url: string }>[] = [];

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);
const dropFile = (name: string, rows: string[][]) => dropCsv(server.config.dataDir, admin.tenantId, 'engagement', name, rows);
const constituent = async (email: string) => (await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: email }] }))[0]?.fields;

async function waitForRun(formulaId: string, runId: string, timeoutMs = 60_000): Promise<RunView> {
  const stop = Date.now() + timeoutMs;
  for (;;) {
    const { runs } = await json<{ runs: RunView[] }>(await send(`${F}/${formulaId}/runs`));
    const run = runs.find((r) => r.id === runId);
    if (run?.finishedOn) return run;
    if (Date.now() > stop) throw new Error(`run ${runId} did not finish: ${JSON.stringify(run)}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
const runOnce = async (formula: string) => waitForRun(formula, (await json<RunView>(await send(`${F}/${formula}/run`, { method: 'POST', body: {} }))).id);

type End = { dataSourceId: string; object: string; settings?: Record<string, string> };
type Mapped = [destination: string, source: string][];

/** A live formula: mapped fields, one matching scenario (source field → destination field), autosend. */
async function formula(source: End, destination: End, mapped: Mapped, match: [string, string][] | null): Promise<string> {
  const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name: `Engagement ${Math.random().toString(36).slice(2, 8)}` } }));
  const res = await send(`${F}/${id}`, { method: 'PATCH', body: { source, destination } });
  expect(res.status, await res.clone().text()).toBe(200);
  const parts = {
    ...VALID_PARTS, transform: { fields: [] }, validation: { rules: [] },
    routing: { ...VALID_PARTS.routing, unmatched: 'ready' as const, singleMatch: 'ready' as const },
    schedule: { mode: 'continuous' as const }, autosend: { enabled: true },
    mapping: { fields: mapped.map(([d, s]) => ({ destination: d, kind: 'source', source: s })) },
    'summary-fields': { fields: mapped.slice(0, 2).map(([d]) => d) },
    matching: match
      ? { scenarios: [{ name: 'Same person', criteria: match.map(([s, d]) => ({ source: s, destination: d })), matchReason: 'Same person', isPrimary: true }], advanced: false, autoPick: [] }
      : { scenarios: [], advanced: false, autoPick: [] },
  };
  for (const [part, body] of Object.entries(parts)) {
    const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  const activated = await send(`${F}/${id}/activate`, { method: 'POST' });
  expect(activated.status, await activated.clone().text()).toBe(200);
  return id;
}
const toCrm = (system: string, object: string, mapped: Mapped, email: string, settings?: Record<string, string>) =>
  formula({ dataSourceId: system, object, ...(settings ? { settings } : {}) }, { dataSourceId: crm, object: 'constituents' }, mapped, [[email, 'email']]);

const outcomes = async (formulaId: string) => (await server.database.pool.query<{ state: string; bucket: string | null; error_reason: string | null }>(
  'select state, bucket, error_reason from records where formula_id = $1 order by state, error_reason', [formulaId])).rows;

beforeAll(async () => {
  JOB_POLL.firstMs = 5;
  const env: Record<string, string> = {};
  const started = async <F extends { close(): Promise<void>; url: string }>(setup: Promise<VendorFakeSetup<F>>): Promise<F> => {
    const v = await setup;
    others.push(v);
    Object.assign(env, v.env);
    return v.fake;
  };
  en = await started(withVendorFake('engaging-networks', startFakeEngagingNetworks));
  mcloud = await started(withVendorFake('salesforce-marketing-cloud', startFakeMarketingCloud));
  sms = await started(withVendorFake('mobile-commons', startFakeMobileCommons));
  vanVendor = await withVendorFake('everyaction', startFakeEveryAction, { server: { work: true, env: { RUN_SLICE_MS: '100000', ...env } } });
  ({ fake: van, server } = vanVendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const create = async (body: unknown) => {
    const made = await send(DS, { method: 'POST', body });
    expect(made.status, await made.clone().text()).toBe(201);
    return (await json<{ id: string }>(made)).id;
  };
  flat = await create({ system: 'flat-file', displayName: 'Engagement drop', settings: { folder: 'engagement' } });
  everyaction = await create({ system: 'everyaction', displayName: 'Riverside EveryAction', settings: { applicationName: VAN_APP, apiKey: VAN_KEY, databaseMode: '1' } });
  engagingNetworks = await create({ system: 'engaging-networks', displayName: 'Riverside Engaging Networks', settings: { dataCentre: 'us', apiToken: ENS_TOKEN } });
  marketingCloud = await create({ system: 'salesforce-marketing-cloud', displayName: 'Riverside Marketing Cloud', settings: { ...SFMC, dataExtensions: DE_KEY } });
  mobileCommons = await create({ system: 'mobile-commons', displayName: 'Riverside SMS', settings: { ...MC_LOGIN } });
  const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
  crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
}, 120_000);
afterAll(async () => {
  await vanVendor?.close();
  for (const o of others) await o.close();
});

describe('the wizard and the catalogue', () => {
  it('tests each connection, lists its objects and describes their fields through the API; the catalogue says each reads and writes records', async () => {
    for (const ds of [everyaction, engagingNetworks, marketingCloud, mobileCommons]) {
      expect(await json(await send(`${DS}/${ds}/test`, { method: 'POST' })), ds).toMatchObject({ status: 'success' });
    }
    const objects = async (id: string) => (await json<{ objects: { name: string }[] }>(await send(`${DS}/${id}/objects`))).objects.map((o) => o.name);
    expect(await objects(everyaction)).toEqual(['people', 'contributions']);
    expect(await objects(engagingNetworks)).toEqual(['supporters', 'transactions']);
    expect(await objects(marketingCloud)).toEqual(['data-extensions']);
    expect(await objects(mobileCommons)).toEqual(['profiles']);
    mcloud.addRow(DE_KEY, { SubscriberKey: 'wizard', EmailAddress: 'wizard@example.org', FirstName: 'Wiz' });
    sms.add({ phone: '5035550001', custom: { 'Favorite Color': 'Teal' } });
    const fields = async (id: string, object: string) => (await json<{ fields: { name: string }[] }>(await send(`${DS}/${id}/objects/${object}/fields`))).fields.map((f) => f.name);
    expect(await fields(everyaction, 'people')).toEqual(expect.arrayContaining(['VanID', 'FirstName', 'Email', 'DateModified']));
    expect(await fields(everyaction, 'contributions')).toEqual(expect.arrayContaining(['VanID', 'Amount', 'DateReceived']));
    expect(await fields(engagingNetworks, 'supporters')).toEqual(expect.arrayContaining(['Email Address', 'Volunteer Interest']));
    expect(await fields(marketingCloud, 'data-extensions')).toEqual(expect.arrayContaining(['subscriberkey', 'emailaddress', 'firstname']));
    expect(await fields(mobileCommons, 'profiles')).toEqual(expect.arrayContaining(['phone_number', 'opt_in_path_id', 'Favorite Color']));
    mcloud.dataExtensions.get(DE_KEY)!.rows.clear();
    sms.profiles.clear();
    sms.seen.length = 0;
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    const ours = ['everyaction', 'engaging-networks', 'salesforce-marketing-cloud', 'mobile-commons'];
    expect(systems.filter((s) => ours.includes(s.system)).map((s) => s.does)).toEqual(ours.map(() => 'source and destination'));
  });
});

describe('EveryAction', () => {
  it('people into the Sandbox CRM through export jobs: every one on the first run (a 429 waited out), a later run only what changed', async () => {
    for (let i = 0; i < 3; i++) van.addPerson({ firstName: `Van${i}`, lastName: 'Person', email: `van${i}@example.org`, changedAt: new Date(Date.now() - 2 * 86_400_000 + i * 3_600_000) });
    const id = await toCrm(everyaction, 'people', [['firstName', 'FirstName'], ['lastName', 'LastName'], ['email', 'Email']], 'Email');
    van.throttle(1, 0);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect(await constituent('van1@example.org')).toMatchObject({ firstName: 'Van1', lastName: 'Person' });
    van.addPerson({ firstName: 'Later', lastName: 'Person', email: 'van.later@example.org' });
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    expect(second.counts).toMatchObject({ collected: 1, created: 1 });
    // the second job asks only for what changed after the first one's window
    const jobs = van.seen.filter((x) => x.method === 'POST' && x.path === '/v4/changedEntityExportJobs').map((x) => x.body as { dateChangedFrom: string; dateChangedTo: string });
    expect(jobs.at(-1)!.dateChangedFrom).toBe(jobs.at(-2)!.dateChangedTo);
    expect(await constituent('van.later@example.org')).toMatchObject({ firstName: 'Later' });
  });

  it('a file into EveryAction people: the known person updated, the new one found-or-created, the one VAN refuses in Exceptions with its words; a name-only scenario refused on save', async () => {
    const known = van.addPerson({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@analytical.example' });
    const id = await formula({ dataSourceId: flat, object: 'van-people-*.csv' }, { dataSourceId: everyaction, object: 'people' },
      [['FirstName', 'First name'], ['LastName', 'Last name'], ['Email', 'Email'], ['Phone', 'Phone']], [['Email', 'Email']]);
    const byName = await send(`${F}/${id}/parts/matching`, { method: 'PUT', body: { scenarios: [{ name: 'Name', criteria: [{ source: 'First name', destination: 'FirstName' }, { source: 'Last name', destination: 'LastName' }], matchReason: 'Same name', isPrimary: true }], advanced: false, autoPick: [] } });
    expect(byName.status).toBe(400);
    expect(await byName.json()).toMatchObject({ detail: 'EveryAction finds people by VAN ID, by e-mail, or by first and last name with a phone number or ZIP code: the scenario "Name" compares FirstName, LastName.' });
    dropFile('van-people-1.csv', [
      ['First name', 'Last name', 'Email', 'Phone'],
      ['Ada', 'Lovelace', 'ADA@analytical.example', '503-555-0101'],
      ['Grace', 'Hopper', 'grace@navy.example', ''],
      ['Bad', 'Address', 'bad@@example', ''],
    ]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(van.people.get(known.vanId)).toMatchObject({ phone: '503-555-0101' });
    expect([...van.people.values()].find((p) => p.email === 'grace@navy.example')).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });
    const rows = await outcomes(id);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: "EveryAction refused the person: 'bad@@example' is not a valid email address. (emails[0].email)" });
  });
});

describe('Engaging Networks', () => {
  it('supporters into the Sandbox CRM through the supporter query: every one on the first run (a 429 waited out), and after the session expired only what changed since that day', async () => {
    for (let i = 0; i < 3; i++) en.addSupporter({ 'Email Address': `en${i}@example.org`, 'First Name': `En${i}`, 'Last Name': 'Supporter' }, new Date(Date.now() - (4 - i) * 86_400_000));
    const id = await toCrm(engagingNetworks, 'supporters', [['firstName', 'First Name'], ['lastName', 'Last Name'], ['email', 'Email Address']], 'Email Address');
    en.throttle(1, 0);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect(await constituent('en2@example.org')).toMatchObject({ firstName: 'En2', lastName: 'Supporter' });
    en.expireSessions();
    const signedIn = en.authentications();
    en.addSupporter({ 'Email Address': 'en.later@example.org', 'First Name': 'Later', 'Last Name': 'Supporter' });
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    expect(second.counts).toMatchObject({ collected: 1, created: 1 });
    expect(en.authentications()).toBe(signedIn + 1);
    // the first run reached back as far as ENS allows, the second only to the day the first ended
    const queries = en.seen.filter((x) => x.path === '/ens/service/supporter/query').map((x) => x.query.daysBack);
    expect([queries[0], queries.at(-1)]).toEqual(['32', '1']);
    expect(await constituent('en.later@example.org')).toMatchObject({ firstName: 'Later' });
  });

  it('a file into supporters: the known one updated, the new one created by e-mail, the one ENS refuses in Exceptions with its words', async () => {
    const known = en.addSupporter({ 'Email Address': 'ada@analytical.example', 'First Name': 'Ada', 'Last Name': 'Lovelace' });
    const id = await formula({ dataSourceId: flat, object: 'en-supporters-*.csv' }, { dataSourceId: engagingNetworks, object: 'supporters' },
      [['First Name', 'First name'], ['Last Name', 'Last name'], ['Email Address', 'Email'], ['City', 'City']], [['Email', 'Email Address']]);
    dropFile('en-supporters-1.csv', [
      ['First name', 'Last name', 'Email', 'City'],
      ['Ada', 'Lovelace', 'ADA@analytical.example', 'London'],
      ['Grace', 'Hopper', 'grace@navy.example', 'Arlington'],
      ['Bad', 'Address', 'bad@@example', ''],
    ]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(en.supporters.get(known.supporterId)!.fields).toMatchObject({ City: 'London' });
    expect([...en.supporters.values()].find((x) => x.fields['Email Address'] === 'grace@navy.example')?.fields).toMatchObject({ 'First Name': 'Grace' });
    const rows = await outcomes(id);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: "Engaging Networks refused the supporter: 'bad@@example' is not a valid email address (10000005)" });
  });
});

describe('Salesforce Marketing Cloud', () => {
  it('data extension rows into the Sandbox CRM: every one on the first run (a 429 waited out), and after the token expired only the rows changed since', async () => {
    for (let i = 0; i < 3; i++) mcloud.addRow(DE_KEY, { SubscriberKey: `de${i}`, EmailAddress: `de${i}@example.org`, FirstName: `De${i}`, LastName: 'Row', ModifiedDate: new Date(Date.UTC(2026, 0, 2, i)).toISOString() });
    const id = await toCrm(marketingCloud, 'data-extensions', [['firstName', 'firstname'], ['lastName', 'lastname'], ['email', 'emailaddress']], 'emailaddress', { dataExtension: DE_KEY, modifiedField: 'modifieddate' });
    mcloud.throttle(1, 0);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect(await constituent('de2@example.org')).toMatchObject({ firstName: 'De2', lastName: 'Row' });
    mcloud.expireTokens();
    const tokens = mcloud.tokens();
    mcloud.addRow(DE_KEY, { SubscriberKey: 'de.later', EmailAddress: 'de.later@example.org', FirstName: 'Later', LastName: 'Row', ModifiedDate: new Date(Date.UTC(2026, 0, 3)).toISOString() });
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // the newest, and perhaps the last of the first run (its own instant, read again harmlessly)
    expect(second.counts.collected).toBeGreaterThanOrEqual(1);
    expect(second.counts.collected).toBeLessThanOrEqual(2);
    expect(mcloud.tokens()).toBe(tokens + 1);
    const reads = mcloud.seen.filter((x) => x.method === 'GET' && x.path.endsWith('/rowset'));
    expect(reads.at(-1)!.query.$filter).toBe("modifieddate gte '2026-01-02T02:00:00.000Z'");
    expect(await constituent('de.later@example.org')).toMatchObject({ firstName: 'Later' });
  });

  it('a file into a data extension: the known row updated, the new one upserted by its primary key, the one Marketing Cloud refuses in Exceptions with its words', async () => {
    mcloud.addRow(DE_KEY, { SubscriberKey: 'ada', EmailAddress: 'ada@analytical.example', FirstName: 'Ada' });
    const id = await formula({ dataSourceId: flat, object: 'de-rows-*.csv' }, { dataSourceId: marketingCloud, object: 'data-extensions', settings: { dataExtension: DE_KEY } },
      [['subscriberkey', 'Key'], ['emailaddress', 'Email'], ['firstname', 'First name'], ['lastname', 'Last name']], [['Email', 'emailaddress']]);
    dropFile('de-rows-1.csv', [
      ['Key', 'Email', 'First name', 'Last name'],
      ['ada', 'ADA@analytical.example', 'Ada', 'Lovelace'],
      ['grace', 'grace@navy.example', 'Grace', 'Hopper'],
      ['bad', 'bad@@example', 'Bad', 'Address'],
    ]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    const rows = mcloud.dataExtensions.get(DE_KEY)!.rows;
    expect(rows.get('ada')).toMatchObject({ lastname: 'Lovelace' });
    expect(rows.get('grace')).toMatchObject({ firstname: 'Grace' });
    const records = await outcomes(id);
    expect(records.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(records[0]).toMatchObject({ bucket: 'exception', error_reason: 'Salesforce Marketing Cloud refused the row: Unable to save rows for data extension ID Riverside_Supporters; The value for column [emailaddress] is not a valid email address: bad@@example' });
  });
});

describe('Mobile Commons', () => {
  it('profiles into the Sandbox CRM: every one on the first run (a 429 waited out), a later run only what changed', async () => {
    for (let i = 0; i < 3; i++) sms.add({ phone: `50355501${i}0`, email: `sms${i}@example.org`, firstName: `Sms${i}`, lastName: 'Profile', updatedAt: new Date(Date.UTC(2026, 0, 2, i)) });
    const id = await toCrm(mobileCommons, 'profiles', [['firstName', 'first_name'], ['lastName', 'last_name'], ['email', 'email'], ['phone', 'phone_number']], 'email');
    sms.throttle(1, 0);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect(await constituent('sms1@example.org')).toMatchObject({ firstName: 'Sms1', lastName: 'Profile' });
    sms.add({ phone: '5035550999', email: 'sms.later@example.org', firstName: 'Later', lastName: 'Profile' });
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    expect(second.counts).toMatchObject({ collected: 1, created: 1 });
    const pages = sms.seen.filter((x) => x.path === '/api/profiles');
    expect(pages.at(-1)!.query.from).toBe(pages[0]!.query.to);
    expect(await constituent('sms.later@example.org')).toMatchObject({ firstName: 'Later' });
  });

  it('a file into profiles by phone number: the known one updated, the new one created, the one Mobile Commons refuses in Exceptions with its words; nobody opted in', async () => {
    const known = sms.add({ phone: '15035550401', firstName: 'Ada', lastName: 'Lovelace' });
    const id = await formula({ dataSourceId: flat, object: 'sms-profiles-*.csv' }, { dataSourceId: mobileCommons, object: 'profiles' },
      [['phone_number', 'Phone'], ['first_name', 'First name'], ['last_name', 'Last name'], ['email', 'Email']], [['Phone', 'phone_number']]);
    dropFile('sms-profiles-1.csv', [
      ['Phone', 'First name', 'Last name', 'Email'],
      ['(503) 555-0401', 'Ada', 'Lovelace', 'ada@analytical.example'],
      ['503-555-0402', 'Grace', 'Hopper', 'grace@navy.example'],
      ['503-555-0403', 'Bad', 'Address', 'bad@@example'],
    ]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(sms.profiles.get(known.id)).toMatchObject({ email: 'ada@analytical.example', optInPaths: [] });
    expect([...sms.profiles.values()].find((p) => p.phone === '15035550402')).toMatchObject({ firstName: 'Grace', optInPaths: [] });
    const rows = await outcomes(id);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: 'Mobile Commons refused the profile: Invalid email address: bad@@example' });
  });
});
