/**
 * Whole formulas through Constant Contact, Emma and Pardot (Account Engagement), with real workers
 * on real PostgreSQL and the local fakes (tests/support/vendors/constantContact.ts, emma.ts,
 * pardot.ts), one server for the three:
 * - the wizard's calls: connection test, objects, fields (custom ones included), a matching
 *   scenario the system's search cannot answer refused when saved with the reason, a dry run;
 * - each system as a source into the Sandbox CRM: a first run reads everything (a 429 in the
 *   middle waited out), a later run only what changed (Constant Contact's and Pardot's tokens
 *   expired between them: Constant Contact's rotated refresh token is kept);
 * - each system as a destination of a dropped file: the known record updated, the new one created,
 *   the one the vendor refuses in Exceptions with the vendor's words, and nobody who unsubscribed
 *   subscribed again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type FormulaEnd, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeSetup, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { CC_APP, CC_LIST, startFakeConstantContact, type FakeConstantContact } from '../support/vendors/constantContact.ts';
import { EMMA_ACCOUNT, EMMA_KEYS, startFakeEmma, type FakeEmma } from '../support/vendors/emma.ts';
import { PARDOT_SETTINGS, startFakePardot, type FakePardot } from '../support/vendors/pardot.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let cc: FakeConstantContact;
let em: FakeEmma;
let pi: FakePardot;
let admin: TenantSession;
let flat: string;
let crm: string;
let constantContact: string;
let emma: string;
let pardot: string;
let ccVendor: VendorFakeSetup<FakeConstantContact>;
let emmaVendor: VendorFakeSetup<FakeEmma>;
let pardotVendor: VendorFakeWithServer<FakePardot>;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);
const dropFile = (name: string, rows: string[][]) => dropCsv(server.config.dataDir, admin.tenantId, 'marketing-a', name, rows);

const runOnce = (formula: string) => runToEnd(send, formula);

type Ends = { source: FormulaEnd; destination: FormulaEnd };

/** A formula with its parts saved (a draft); `live` activates it. */
const formula = (ends: Ends, parts: Record<string, unknown>, live = true) => formulaBetween(send, ends, { ...AUTOSENDING_PARTS, ...parts }, live);

const failures = async (formulaId: string) => (await server.database.pool.query<{ state: string; bucket: string | null; error_reason: string | null; destination_record_id: string | null }>(
  'select state, bucket, error_reason, destination_record_id from records where formula_id = $1 order by state, error_reason', [formulaId])).rows;

beforeAll(async () => {
  [ccVendor, emmaVendor] = await Promise.all([withVendorFake('constant-contact', startFakeConstantContact), withVendorFake('emma', startFakeEmma)]);
  ({ fake: cc } = ccVendor);
  ({ fake: em } = emmaVendor);
  pardotVendor = await withVendorFake('pardot', startFakePardot, { server: { work: true, env: { RUN_SLICE_MS: '100000', ...ccVendor.env, ...emmaVendor.env } } });
  ({ fake: pi, server } = pardotVendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const create = async (body: unknown) => {
    const made = await send(DS, { method: 'POST', body });
    expect(made.status, await made.clone().text()).toBe(201);
    return (await json<{ id: string }>(made)).id;
  };
  flat = await create({ system: 'flat-file', displayName: 'Marketing A drop', settings: { folder: 'marketing-a' } });
  // Constant Contact through OAuth: the refresh token an Administrator pastes, the app in the settings
  constantContact = await create({ system: 'constant-contact', displayName: 'Riverside Constant Contact', settings: { clientId: CC_APP.clientId, clientSecret: CC_APP.clientSecret, refreshToken: cc.grant() } });
  emma = await create({ system: 'emma', displayName: 'Riverside Emma', settings: { accountId: EMMA_ACCOUNT, ...EMMA_KEYS } });
  pardot = await create({ system: 'pardot', displayName: 'Riverside Pardot', settings: { ...PARDOT_SETTINGS } });
  const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
  crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
}, 120_000);
afterAll(async () => {
  await pardotVendor?.close();
  await Promise.all([ccVendor?.close(), emmaVendor?.close()]);
});


const intoCrm = (source: string, first: string, last: string, email: string) => ({
  mapping: { fields: [
    { destination: 'firstName', kind: 'source', source: first }, { destination: 'lastName', kind: 'source', source: last },
    { destination: 'email', kind: 'source', source: email },
  ] },
  matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: email, destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
  _source: source,
});
const crmHas = async (email: string) => (await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: email }] }))[0]?.fields;

describe('the wizard with Constant Contact, Emma and Pardot', () => {
  it('tests each connection, lists its objects, describes its fields (custom ones included); the catalogue says source and destination', async () => {
    expect(await json(await send(`${DS}/${constantContact}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: 'Signed in to Constant Contact for Riverside Youth Arts.' });
    expect(await json(await send(`${DS}/${emma}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: `Signed in to Emma account ${EMMA_ACCOUNT} (5 member fields).` });
    expect(await json(await send(`${DS}/${pardot}/test`, { method: 'POST' }))).toMatchObject({ status: 'success', detail: `Signed in to Pardot business unit ${PARDOT_SETTINGS.businessUnitId}.` });
    const objects = async (id: string) => (await json<{ objects: { name: string }[] }>(await send(`${DS}/${id}/objects`))).objects.map((o) => o.name);
    expect([await objects(constantContact), await objects(emma), await objects(pardot)]).toEqual([['contacts'], ['members'], ['prospects', 'list-memberships']]);
    const fields = async (id: string, object: string) => (await json<{ fields: { name: string }[] }>(await send(`${DS}/${id}/objects/${object}/fields`))).fields.map((f) => f.name);
    expect(await fields(constantContact, 'contacts')).toEqual(expect.arrayContaining(['email_address', 'first_name', 'custom.volunteer_interest']));
    expect(await fields(emma, 'members')).toEqual(expect.arrayContaining(['email', 'first_name', 'volunteer_hours']));
    expect(await fields(pardot, 'prospects')).toEqual(expect.arrayContaining(['email', 'firstName', 'Volunteer_Interest__c']));
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.filter((s) => ['constant-contact', 'emma', 'pardot'].includes(s.system)).map((s) => s.does)).toEqual(['source and destination', 'source and destination', 'source and destination']);
  });

  it('refuses on save a matching scenario the destination\'s search cannot answer, with the reason; a dry run previews what a send would do', async () => {
    em.add({ email: 'preview.known@example.org', fields: { first_name: 'Known' } });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'preview-*.csv' }, destination: { dataSourceId: emma, object: 'members' } },
      {
        mapping: { fields: [{ destination: 'email', kind: 'source', source: 'Email' }, { destination: 'first_name', kind: 'source', source: 'First name' }] },
        'summary-fields': { fields: ['email', 'first_name'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      }, false);
    const byName = await send(`${F}/${id}/parts/matching`, { method: 'PUT', body: { scenarios: [{ name: 'Name', criteria: [{ source: 'First name', destination: 'first_name' }], matchReason: 'Same name', isPrimary: true }], advanced: false, autoPick: [] } });
    expect(byName.status).toBe(400);
    expect(await byName.json()).toMatchObject({ code: 'validation-failed', detail: 'Emma finds members by e-mail address only: the scenario "Name" compares first_name. Add the e-mail address to it.' });
    dropFile('preview-1.csv', [['First name', 'Email'], ['Known', 'PREVIEW.known@example.org'], ['New', 'preview.new@example.org']]);
    const dry = await send(`${F}/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 1, update: 1 });
    // a dry run writes nothing
    expect(em.seen.some((s) => s.path === '/members/add')).toBe(false);
  });
});

async function sourceRuns(o: {
  dataSourceId: string; object: string; parts: Record<string, unknown>;
  seed: (i: number) => void; later: () => void; throttle: () => void; between?: () => void; email: (i: number) => string; laterEmail: string;
  /** what the second run asked the vendor for: only what changed since the first */
  askedSince: () => unknown;
}) {
  for (let i = 0; i < 3; i++) o.seed(i);
  const { _source: _, ...parts } = o.parts;
  const id = await formula({ source: { dataSourceId: o.dataSourceId, object: o.object }, destination: { dataSourceId: crm, object: 'constituents' } }, parts);
  o.throttle();
  const first = await runOnce(id);
  expect(first.status, JSON.stringify(first)).toBe('finished');
  expect(first.counts).toMatchObject({ collected: 3, created: 3 });
  expect(await crmHas(o.email(1))).toMatchObject({ lastName: 'Tributary' });
  o.between?.();
  o.later();
  const second = await runOnce(id);
  expect(second.status, JSON.stringify(second)).toBe('finished');
  expect(second.counts.collected).toBeLessThanOrEqual(2);
  expect(o.askedSince()).toBeTruthy();
  expect(await crmHas(o.laterEmail)).toMatchObject({ firstName: 'Later' });
}

const failedFirst = async (id: string) => {
  const rows = await failures(id);
  expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
  return rows[0]!;
};

describe('Constant Contact', () => {
  it('contacts into the Sandbox CRM: every one on the first run (a 429 waited out), and after the token expired (its refresh token rotating) only what changed', async () => {
    let refreshes = 0;
    await sourceRuns({
      dataSourceId: constantContact, object: 'contacts', parts: intoCrm('cc', 'first_name', 'last_name', 'email_address'),
      seed: (i) => cc.add({ email: `cc${i}@example.org`, first: `Constant${i}`, last: 'Tributary' }),
      email: (i) => `cc${i}@example.org`,
      throttle: () => cc.throttle(1),
      between: () => { cc.expireTokens(); refreshes = cc.refreshes(); },
      later: () => cc.add({ email: 'cc.later@example.org', first: 'Later', last: 'Tributary' }),
      laterEmail: 'cc.later@example.org',
      askedSince: () => cc.seen.filter((r) => r.path === '/v3/contacts' && !r.query.email && !r.query.cursor).at(-1)?.query.updated_after,
    });
    expect(cc.refreshes()).toBe(refreshes + 1);
  });

  it('a file into Constant Contact: the contact who unsubscribed updated without signing up again, the new one signed up into the list, the one refused in Exceptions with its words', async () => {
    const left = cc.add({ email: 'left.cc@example.org', first: 'Left', permission: 'unsubscribed' });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'cc-contacts-*.csv' }, destination: { dataSourceId: constantContact, object: 'contacts', settings: { listId: CC_LIST } } },
      {
        mapping: { fields: [
          { destination: 'email_address', kind: 'source', source: 'Email' }, { destination: 'first_name', kind: 'source', source: 'First name' },
          { destination: 'last_name', kind: 'source', source: 'Last name' },
        ] },
        'summary-fields': { fields: ['email_address', 'first_name'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email_address' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      });
    dropFile('cc-contacts-1.csv', [['Email', 'First name', 'Last name'], ['LEFT.cc@example.org', 'Left', 'After'], ['joiner.cc@example.org', 'Joiner', 'New'], ['bad@@example', 'Bad', 'Address']]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(cc.contacts.get(left.contact_id)).toMatchObject({ last_name: 'After', email_address: { permission_to_send: 'unsubscribed' } });
    expect([...cc.contacts.values()].find((c) => c.email_address.address === 'joiner.cc@example.org')).toMatchObject({ first_name: 'Joiner', list_memberships: [CC_LIST] });
    expect(await failedFirst(id)).toMatchObject({ bucket: 'exception', error_reason: 'Constant Contact refused the contact: Email address bad@@example is invalid.' });
  });
});

describe('Emma', () => {
  it('members into the Sandbox CRM: every one on the first run (a 429 waited out), a later run only what changed', async () => {
    em.members.clear();
    await sourceRuns({
      dataSourceId: emma, object: 'members', parts: intoCrm('emma', 'first_name', 'last_name', 'email'),
      seed: (i) => em.add({ email: `em${i}@example.org`, fields: { first_name: `Emma${i}`, last_name: 'Tributary' } }),
      email: (i) => `em${i}@example.org`,
      throttle: () => em.throttle(1),
      later: () => em.add({ email: 'em.later@example.org', fields: { first_name: 'Later', last_name: 'Tributary' } }),
      laterEmail: 'em.later@example.org',
      // Emma's listing has no date filter: the second run reads every member and keeps only the one that changed
      askedSince: () => (em.seen.filter((r) => r.path === '/members').length ? 'read whole' : null),
    });
  });

  it('a file into Emma: the member who opted out updated and still opted out, the new one added, the one refused in Exceptions with its words', async () => {
    const out = em.add({ email: 'out.emma@example.org', status: 'opt-out', fields: { first_name: 'Out' } });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'emma-members-*.csv' }, destination: { dataSourceId: emma, object: 'members' } },
      {
        mapping: { fields: [
          { destination: 'email', kind: 'source', source: 'Email' }, { destination: 'first_name', kind: 'source', source: 'First name' },
          { destination: 'last_name', kind: 'source', source: 'Last name' },
        ] },
        'summary-fields': { fields: ['email', 'first_name'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      });
    dropFile('emma-members-1.csv', [['Email', 'First name', 'Last name'], ['OUT.emma@example.org', 'Out', 'Again'], ['joiner.emma@example.org', 'Joiner', 'New'], ['bad@@example', 'Bad', 'Address']]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(em.members.get(out.member_id)).toMatchObject({ status: 'opt-out', fields: { first_name: 'Out', last_name: 'Again' } });
    expect([...em.members.values()].find((m) => m.email === 'joiner.emma@example.org')).toMatchObject({ fields: { first_name: 'Joiner' } });
    expect(await failedFirst(id)).toMatchObject({ bucket: 'exception', error_reason: 'Emma refused the member: Invalid email address: bad@@example' });
  });
});

describe('Pardot', () => {
  it('prospects into the Sandbox CRM: every one on the first run (a 429 waited out), and after the token expired only what changed', async () => {
    let issued = 0;
    await sourceRuns({
      dataSourceId: pardot, object: 'prospects', parts: intoCrm('pardot', 'firstName', 'lastName', 'email'),
      seed: (i) => pi.add({ email: `pi${i}@example.org`, firstName: `Pardot${i}`, lastName: 'Tributary' }),
      email: (i) => `pi${i}@example.org`,
      throttle: () => pi.throttle(1),
      between: () => { pi.expireTokens(); issued = pi.tokensIssued(); },
      later: () => pi.add({ email: 'pi.later@example.org', firstName: 'Later', lastName: 'Tributary' }),
      laterEmail: 'pi.later@example.org',
      askedSince: () => pi.seen.filter((r) => r.path === '/api/v5/objects/prospects' && !r.query.email && !r.query.nextPageToken).at(-1)?.query.updatedAtAfterOrEqualTo,
    });
    expect(pi.tokensIssued()).toBe(issued + 1);
  });

  it('a file into Pardot: the prospect who opted out updated and still opted out, the new one upserted by e-mail, the one refused in Exceptions with its words', async () => {
    const out = pi.add({ email: 'out.pi@example.org', firstName: 'Out', optedOut: true });
    const id = await formula(
      { source: { dataSourceId: flat, object: 'pi-prospects-*.csv' }, destination: { dataSourceId: pardot, object: 'prospects' } },
      {
        mapping: { fields: [
          { destination: 'email', kind: 'source', source: 'Email' }, { destination: 'firstName', kind: 'source', source: 'First name' },
          { destination: 'lastName', kind: 'source', source: 'Last name' }, { destination: 'optedOut', kind: 'source', source: 'Opted out' },
        ] },
        'summary-fields': { fields: ['email', 'firstName'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      });
    dropFile('pi-prospects-1.csv', [['Email', 'First name', 'Last name', 'Opted out'], ['OUT.pi@example.org', 'Out', 'Again', 'false'], ['joiner.pi@example.org', 'Joiner', 'New', 'false'], ['bad@@example', 'Bad', 'Address', '']]);
    const done = await runOnce(id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(pi.prospects.get(out.id)).toMatchObject({ optedOut: true, lastName: 'Again' });
    expect([...pi.prospects.values()].find((p) => p.email === 'joiner.pi@example.org')).toMatchObject({ firstName: 'Joiner', optedOut: false });
    expect(await failedFirst(id)).toMatchObject({ bucket: 'exception', error_reason: 'Pardot refused the prospect: Invalid prospect email address: bad@@example (code 30)' });
  });
});
