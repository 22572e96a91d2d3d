/**
 * Whole formulas through HubSpot and Mailchimp, with real workers on real PostgreSQL and the local
 * fakes (tests/support/vendors/hubspot.ts, mailchimp.ts), one server for both systems:
 * - the wizard's calls: connection test, objects, fields (custom ones included), a matching
 *   scenario the system's search cannot answer refused when saved with the reason, a dry run;
 * - each system as a source into the Sandbox CRM: a first run reads everything (a 429 in the
 *   middle waited out), a later run only what changed (after HubSpot's OAuth token expired);
 * - each system as a destination of a dropped file: the known record updated, the new one created,
 *   the one the vendor refuses in Exceptions with the vendor's words; Mailchimp never subscribes
 *   again a member who unsubscribed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type FormulaEnd, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeSetup, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { HUBSPOT_APP, HUBSPOT_PORTAL, startFakeHubSpot, type FakeHubSpot } from '../support/vendors/hubspot.ts';
import { AUDIENCE, MAILCHIMP_ACCOUNT, MAILCHIMP_APP, MAILCHIMP_KEY, startFakeMailchimp, type FakeMailchimp } from '../support/vendors/mailchimp.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let hs: FakeHubSpot;
let mc: FakeMailchimp;
let admin: TenantSession;
let flat: string;
let crm: string;
let hubspot: string;
let mailchimp: string;
let hubspotVendor: VendorFakeWithServer<FakeHubSpot>;
let mailchimpVendor: VendorFakeSetup<FakeMailchimp>;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);
const dropFile = (name: string, rows: string[][]) => dropCsv(server.config.dataDir, admin.tenantId, 'marketing', name, rows);

const runOnce = (formula: string) => runToEnd(send, formula);

type Ends = { source: FormulaEnd; destination: FormulaEnd };

/** A formula with its parts saved (a draft); `live` activates it. */
const formula = (ends: Ends, parts: Record<string, unknown>, live = true) => formulaBetween(send, ends, { ...AUTOSENDING_PARTS, ...parts }, live);

const failures = async (formulaId: string) => (await server.database.pool.query<{ state: string; bucket: string | null; error_reason: string | null; destination_record_id: string | null }>(
  'select state, bucket, error_reason, destination_record_id from records where formula_id = $1 order by state, error_reason', [formulaId])).rows;

/** An audience member as a Sandbox CRM constituent, matched by e-mail. */
const MEMBERS_INTO_CONSTITUENTS = {
  mapping: { fields: [
    { destination: 'firstName', kind: 'source', source: 'FNAME' }, { destination: 'lastName', kind: 'source', source: 'LNAME' },
    { destination: 'email', kind: 'source', source: 'email_address' },
  ] },
  matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'email_address', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
};

beforeAll(async () => {
  mailchimpVendor = await withVendorFake('mailchimp', startFakeMailchimp);
  mc = mailchimpVendor.fake;
  hubspotVendor = await withVendorFake('hubspot', startFakeHubSpot, { server: { work: true, env: { RUN_SLICE_MS: '100000', ...mailchimpVendor.env } } });
  ({ fake: hs, server } = hubspotVendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const create = async (body: unknown) => {
    const made = await send(DS, { method: 'POST', body });
    expect(made.status, await made.clone().text()).toBe(201);
    return (await json<{ id: string }>(made)).id;
  };
  flat = await create({ system: 'flat-file', displayName: 'Marketing drop', settings: { folder: 'marketing' } });
  // HubSpot through OAuth: the refresh token an Administrator pastes, the app in the settings
  hubspot = await create({ system: 'hubspot', displayName: 'Riverside HubSpot', settings: { authenticationType: 'oauth', clientId: HUBSPOT_APP.clientId, clientSecret: HUBSPOT_APP.clientSecret, refreshToken: hs.grant() } });
  mailchimp = await create({ system: 'mailchimp', displayName: 'Riverside Mailchimp', settings: { apiKey: MAILCHIMP_KEY } });
  const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
  crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
}, 120_000);
afterAll(async () => {
  await hubspotVendor?.close();
  await mailchimpVendor?.close();
});

describe('the wizard with HubSpot and Mailchimp', () => {
  it('tests each connection, lists its objects, describes its fields (custom ones included); the catalogue says source and destination', async () => {
    expect(await json(await send(`${DS}/${hubspot}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: 'Signed in to HubSpot account 24681357.' });
    expect(await json(await send(`${DS}/${mailchimp}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: "Mailchimp answered: Everything's Chimpy!" });
    const objects = async (id: string) => (await json<{ objects: { name: string }[] }>(await send(`${DS}/${id}/objects`))).objects.map((o) => o.name);
    expect(await objects(hubspot)).toEqual(['contacts', 'companies', 'deals']);
    expect(await objects(mailchimp)).toEqual(['members']);
    const fields = async (id: string, object: string) => (await json<{ fields: { name: string; searchable?: boolean }[] }>(await send(`${DS}/${id}/objects/${object}/fields`))).fields;
    expect(await fields(hubspot, 'contacts')).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'email', searchable: true }), expect.objectContaining({ name: 'volunteer_interest' })]));
    expect((await fields(mailchimp, 'members')).map((f) => f.name)).toEqual(expect.arrayContaining(['email_address', 'FNAME', 'VOLUNTEER', 'CHAPTER']));
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.filter((s) => s.system === 'hubspot' || s.system === 'mailchimp').map((s) => s.does)).toEqual(['source and destination', 'source and destination']);
  });

  it('refuses on save a matching scenario the destination\'s search cannot answer, with the reason; a dry run previews what a send would do', async () => {
    mc.add(AUDIENCE, { email: 'preview.known@example.org', merge: { FNAME: 'Known' } });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'preview-*.csv' }, destination: { dataSourceId: mailchimp, object: 'members', settings: { audienceId: AUDIENCE, status: 'subscribed' } } },
      {
        mapping: { fields: [{ destination: 'email_address', kind: 'source', source: 'Email' }, { destination: 'FNAME', kind: 'source', source: 'First name' }] },
        'summary-fields': { fields: ['email_address', 'FNAME'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email_address' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      }, false);
    const byName = await send(`${F}/${id}/parts/matching`, { method: 'PUT', body: { scenarios: [{ name: 'Name', criteria: [{ source: 'First name', destination: 'FNAME' }], matchReason: 'Same name', isPrimary: true }], advanced: false, autoPick: [] } });
    expect(byName.status).toBe(400);
    expect(await byName.json()).toMatchObject({ code: 'validation-failed', detail: 'Mailchimp finds audience members by e-mail address only: the scenario "Name" compares FNAME. Add the e-mail address to it.' });
    dropFile('preview-1.csv', [['First name', 'Email'], ['Known', 'PREVIEW.known@example.org'], ['New', 'preview.new@example.org']]);
    const dry = await send(`${F}/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 1, update: 1 });
    // a dry run writes nothing
    expect(mc.seen.some((s) => s.method === 'PUT')).toBe(false);
  });
});

describe('HubSpot', () => {
  it('contacts into the Sandbox CRM: every one on the first run (a 429 waited out), and after the OAuth token expired only what changed', async () => {
    for (let i = 0; i < 3; i++) hs.add('contacts', { email: `hs${i}@example.org`, firstname: `Hub${i}`, lastname: 'Spotted' });
    const id = await formula(
      { source: { dataSourceId: hubspot, object: 'contacts' }, destination: { dataSourceId: crm, object: 'constituents' } },
      {
        mapping: { fields: [
          { destination: 'firstName', kind: 'source', source: 'firstname' }, { destination: 'lastName', kind: 'source', source: 'lastname' },
          { destination: 'email', kind: 'source', source: 'email' },
        ] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      });
    hs.throttle(1, 0);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'hs1@example.org' }] }))[0]?.fields).toMatchObject({ firstName: 'Hub1', lastName: 'Spotted' });

    hs.expireTokens();
    const refreshes = hs.refreshes();
    hs.add('contacts', { email: 'hs.later@example.org', firstname: 'Later', lastname: 'Spotted' });
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // the newest, and the last one of the first run (the watermark's own millisecond, read again harmlessly)
    expect(second.counts.collected).toBeLessThanOrEqual(2);
    expect(hs.refreshes()).toBe(refreshes + 1);
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'hs.later@example.org' }] }))[0]?.fields).toMatchObject({ firstName: 'Later' });
  });

  it('a file into HubSpot contacts: the known contact updated, the new one upserted by e-mail, the one HubSpot refuses in Exceptions with its words', async () => {
    const known = hs.add('contacts', { email: 'ada@analytical.example', firstname: 'Ada', lastname: 'Lovelace' });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'hs-contacts-*.csv' }, destination: { dataSourceId: hubspot, object: 'contacts' } },
      {
        mapping: { fields: [
          { destination: 'firstname', kind: 'source', source: 'First name' }, { destination: 'lastname', kind: 'source', source: 'Last name' },
          { destination: 'email', kind: 'source', source: 'Email' }, { destination: 'phone', kind: 'source', source: 'Phone' },
        ] },
        'summary-fields': { fields: ['firstname', 'lastname', 'email'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      });
    dropFile('hs-contacts-1.csv', [
      ['First name', 'Last name', 'Email', 'Phone'],
      ['Ada', 'Lovelace', 'ADA@analytical.example', '503-555-0101'],
      ['Grace', 'Hopper', 'grace@navy.example', '503-555-0199'],
      ['Bad', 'Address', 'bad@@example', ''],
    ]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(hs.records.contacts.get(known.id)!.properties).toMatchObject({ phone: '503-555-0101' });
    expect([...hs.records.contacts.values()].find((c) => c.properties.email === 'grace@navy.example')?.properties).toMatchObject({ firstname: 'Grace', lastname: 'Hopper' });
    const rows = await failures(id);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: 'HubSpot refused the contact: Property values were not valid: Email address bad@@example is invalid' });

    // the review opens the contact on its page of the account's own app
    const { rows: [ada] } = await server.database.pool.query<{ id: string }>('select id from records where formula_id = $1 and destination_record_id = $2', [id, known.id]);
    const detail = await json<{ candidates: { id: string; page: string | null }[] }>(await send(`/web-api/v1/records/${id}/records/${ada!.id}`));
    expect(detail.candidates.find((c) => c.id === known.id)?.page).toBe(`https://app.hubspot.com/contacts/${HUBSPOT_PORTAL}/record/0-1/${known.id}`);
    // the account's portal and app domain are asked once, not again for every review opened
    const asked = () => hs.seen.filter((s) => s.path === '/account-info/v3/details').length;
    const before = asked();
    const again = await json<{ candidates: { id: string; page: string | null }[] }>(await send(`/web-api/v1/records/${id}/records/${ada!.id}`));
    expect(again.candidates.find((c) => c.id === known.id)?.page).toBe(`https://app.hubspot.com/contacts/${HUBSPOT_PORTAL}/record/0-1/${known.id}`);
    expect(asked()).toBe(before);
  });
});

describe('Mailchimp', () => {
  it('audience members into the Sandbox CRM: every one on the first run (a 429 waited out), a later run only what changed', async () => {
    for (let i = 0; i < 3; i++) mc.add(AUDIENCE, { email: `mc${i}@example.org`, merge: { FNAME: `Chimp${i}`, LNAME: 'Member' } });
    const id = await formula(
      { source: { dataSourceId: mailchimp, object: 'members', settings: { audienceId: AUDIENCE } }, destination: { dataSourceId: crm, object: 'constituents' } },
      MEMBERS_INTO_CONSTITUENTS);
    mc.throttle(1, 0);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts.collected).toBe(mc.members.get(AUDIENCE)!.size);
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'mc2@example.org' }] }))[0]?.fields).toMatchObject({ firstName: 'Chimp2', lastName: 'Member' });
    mc.add(AUDIENCE, { email: 'mc.later@example.org', merge: { FNAME: 'Later', LNAME: 'Member' } });
    const second = await runOnce(id);
    expect(second.counts.collected).toBeLessThan(first.counts.collected!);
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'mc.later@example.org' }] }))[0]?.fields).toMatchObject({ firstName: 'Later' });
  });

  it('Connect to Mailchimp through its consent page: the access token kept sealed, and the account\'s members reach the Sandbox CRM', async () => {
    const made = await send(DS, { method: 'POST', body: { system: 'mailchimp', displayName: 'Mailchimp by Connect', settings: { authenticationType: 'oauth', clientId: MAILCHIMP_APP.clientId, clientSecret: MAILCHIMP_APP.clientSecret } } });
    expect(made.status, await made.clone().text()).toBe(201);
    const id = (await json<{ id: string }>(made)).id;
    const started = await send(`${DS}/${id}/oauth/authorize`, { method: 'POST' });
    expect(started.status, await started.clone().text()).toBe(200);
    const consent = new URL((await json<{ authorizeUrl: string }>(started)).authorizeUrl);
    expect(consent.pathname).toBe('/oauth2/authorize');
    // the consent page grants at once and sends the browser to our callback, which sends it on to Connections
    const back = new URL((await fetch(consent, { redirect: 'manual' })).headers.get('location')!);
    const screen = new URL((await fetch(`${server.url}${back.pathname}${back.search}`, { redirect: 'manual' })).headers.get('location')!, server.url);
    const done = await send('/integrations/v1/oauth/complete', { method: 'POST', body: { state: screen.searchParams.get('oauthState'), code: screen.searchParams.get('oauthCode') } });
    expect(done.status, await done.clone().text()).toBe(200);
    expect(await json(done)).toEqual({ dataSourceId: id, detail: 'Connected to Mailchimp.' });
    const [token] = [...mc.accessTokens];
    const { rows: [sealed] } = await server.database.pool.query<{ secret_ciphertext: Buffer }>('select secret_ciphertext from data_sources where id = $1', [id]);
    expect(sealed!.secret_ciphertext.includes(Buffer.from(token!))).toBe(false);
    expect(await json(await send(`${DS}/${id}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: `Mailchimp answered: Everything's Chimpy! (account ${MAILCHIMP_ACCOUNT})` });

    mc.add(AUDIENCE, { email: 'connected@example.org', merge: { FNAME: 'Connie', LNAME: 'Nected' } });
    const formulaId = await formula(
      { source: { dataSourceId: id, object: 'members', settings: { audienceId: AUDIENCE } }, destination: { dataSourceId: crm, object: 'constituents' } },
      MEMBERS_INTO_CONSTITUENTS);
    const run = await runOnce(formulaId);
    expect(run.status, JSON.stringify(run)).toBe('finished');
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'connected@example.org' }] }))[0]?.fields).toMatchObject({ firstName: 'Connie', lastName: 'Nected' });
    expect(mc.seen.filter((c) => c.path.startsWith('/3.0/')).at(-1)!.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('a file into the audience: the member who unsubscribed is updated but not subscribed again, the new one added as the settings say, the one Mailchimp refuses in Exceptions with its words', async () => {
    const left = mc.add(AUDIENCE, { email: 'left@example.org', status: 'unsubscribed', merge: { FNAME: 'Left' } });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'mc-members-*.csv' }, destination: { dataSourceId: mailchimp, object: 'members', settings: { audienceId: AUDIENCE, status: 'pending' } } },
      {
        mapping: { fields: [
          { destination: 'email_address', kind: 'source', source: 'Email' }, { destination: 'FNAME', kind: 'source', source: 'First name' },
          { destination: 'LNAME', kind: 'source', source: 'Last name' }, { destination: 'status', kind: 'source', source: 'Status' },
        ] },
        'summary-fields': { fields: ['email_address', 'FNAME'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email_address' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      });
    dropFile('mc-members-1.csv', [
      ['Email', 'First name', 'Last name', 'Status'],
      ['LEFT@example.org', 'Left', 'Again', 'subscribed'],
      ['joiner@example.org', 'Joiner', 'New', ''],
      ['fake@example', 'Fake', 'Address', ''],
    ]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(mc.members.get(AUDIENCE)!.get(left.id)).toMatchObject({ status: 'unsubscribed', merge_fields: expect.objectContaining({ FNAME: 'Left', LNAME: 'Again' }) });
    expect([...mc.members.get(AUDIENCE)!.values()].find((m) => m.email_address === 'joiner@example.org')).toMatchObject({ status: 'pending', merge_fields: expect.objectContaining({ FNAME: 'Joiner' }) });
    const rows = await failures(id);
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: 'Mailchimp refused the member: Invalid Resource: fake@example looks fake or invalid, please enter a real email address.' });
  });
});
