/**
 * Whole formulas through Salesforce, with real workers on real PostgreSQL and the local fake org
 * (tests/support/vendors/salesforce.ts): a flat file of supporters is collected, matched against
 * the org's Contacts by e-mail and last name, and sent: the known Contact is updated, the new one
 * is created with its NPSP Household Account, and one Salesforce refuses (its duplicate rule)
 * lands in Exceptions with Salesforce's words. Then Contacts are read from Salesforce into the
 * Sandbox CRM, and a later run reads only what changed since.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BULK_POLL, BULK_THRESHOLD } from '../../server/connectors/salesforce/bulk.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type FormulaEnd, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { SF_APP, SF_INSTANCE, startFakeSalesforce, type FakeSalesforce } from '../support/vendors/salesforce.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let sf: FakeSalesforce;
let admin: TenantSession;
let flat: string;
let org: string;
let vendor: VendorFakeWithServer<FakeSalesforce>;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);

const dropFile = (name: string, rows: string[][]) => dropCsv(server.config.dataDir, admin.tenantId, 'salesforce', name, rows);

const runOnce = (formula: string) => runToEnd(send, formula);

const liveFormula = (ends: { source: FormulaEnd; destination: FormulaEnd }, parts: Record<string, unknown>) => formulaBetween(send, ends, { ...AUTOSENDING_PARTS, ...parts });

beforeAll(async () => {
  vendor = await withVendorFake('salesforce', startFakeSalesforce, { server: { work: true, env: { RUN_SLICE_MS: '100000' } } });
  ({ fake: sf, server } = vendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const made = await send(DS, { method: 'POST', body: { system: 'flat-file', displayName: 'Salesforce drop', settings: { folder: 'salesforce' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  flat = (await json<{ id: string }>(made)).id;
  const created = await send(DS, {
    method: 'POST',
    body: { system: 'salesforce', displayName: 'Riverside Salesforce', settings: { environment: 'production', authenticationType: 'username-password', ...SF_APP } },
  });
  expect(created.status, await created.clone().text()).toBe(201);
  org = (await json<{ id: string }>(created)).id;
}, 120_000);
afterAll(async () => {
  await vendor?.close();
});

describe('the wizard\'s calls for a Salesforce data source', () => {
  it('test the connection, list the org\'s objects and describe their fields (custom fields included); the catalogue says source and destination', async () => {
    const tested = await json<{ status: string; detail: string }>(await send(`${DS}/${org}/test`, { method: 'POST' }));
    expect(tested).toMatchObject({ status: 'success', detail: 'Signed in to Salesforce at riverside.my.salesforce.com.' });
    const { objects } = await json<{ objects: { name: string }[] }>(await send(`${DS}/${org}/objects`));
    expect(objects.map((o) => o.name)).toEqual(expect.arrayContaining(['Contact', 'Account', 'npe03__Recurring_Donation__c']));
    const { fields } = await json<{ fields: { name: string; searchable?: boolean; required?: boolean }[] }>(await send(`${DS}/${org}/objects/Contact/fields`));
    expect(fields).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'Email', searchable: true }), expect.objectContaining({ name: 'LastName', required: true }), expect.objectContaining({ name: 'Tributary_Id__c' }),
    ]));
    const systems = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.systems.find((x) => x.system === 'salesforce')?.does).toBe('source and destination');
  });
});

describe('a flat file into Salesforce Contacts', () => {
  it('updates the Contact it holds, creates the new one with its Household Account, and puts the one Salesforce refuses in Exceptions with its words', async () => {
    const known = sf.addContact({ FirstName: 'Ada', LastName: 'Lovelace', Email: 'ada@analytical.example', Phone: '503-555-0100' });
    sf.addContact({ FirstName: 'Taken', LastName: 'Elsewhere', Email: 'shared@example.org' });
    const formula = await liveFormula(
      { source: { dataSourceId: flat, object: 'supporters-*.csv' }, destination: { dataSourceId: org, object: 'Contact', settings: { object: 'Contact' } } },
      {
        mapping: { fields: [
          { destination: 'FirstName', kind: 'source', source: 'First name' }, { destination: 'LastName', kind: 'source', source: 'Last name' },
          { destination: 'Email', kind: 'source', source: 'Email' }, { destination: 'Phone', kind: 'source', source: 'Phone' },
        ] },
        'summary-fields': { fields: ['FirstName', 'LastName', 'Email'] },
        matching: { scenarios: [{ name: 'E-mail and last name', criteria: [{ source: 'Email', destination: 'Email' }, { source: 'Last name', destination: 'LastName' }], matchReason: 'Same e-mail and last name', isPrimary: true }], advanced: false, autoPick: [] },
      },
    );
    const contacts = sf.records.Contact!.size;
    dropFile('supporters-1.csv', [
      ['First name', 'Last name', 'Email', 'Phone'],
      ['Ada', 'Lovelace', 'ADA@analytical.example', '503-555-0101'],
      ['Grace', 'Hopper', 'grace@navy.example', '503-555-0199'],
      ['Other', 'Person', 'shared@example.org', ''],
    ]);
    const done = await runOnce(formula);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });

    expect(sf.records.Contact!.size - contacts).toBe(1);
    const grace = [...sf.records.Contact!.values()].find((c) => c.LastName === 'Hopper')!;
    expect(grace).toMatchObject({ FirstName: 'Grace', Email: 'grace@navy.example', Phone: '503-555-0199' });
    expect(sf.records.Account!.get(String(grace.AccountId))).toMatchObject({ Name: 'Hopper Household', npe01__SYSTEM_AccountType__c: 'Household Account' });
    expect(sf.records.Contact!.get(String(known.Id))).toMatchObject({ Phone: '503-555-0101' });
    // the searches went as SOQL, the writes as sObject Collections
    expect(sf.seen.filter((c) => c.method !== 'GET' && c.path.includes('/services/data/')).map((c) => `${c.method} ${c.path.replace(/v\d+\.\d/, 'vXX.X')}`).sort())
      .toEqual(['PATCH /services/data/vXX.X/composite/sobjects', 'POST /services/data/vXX.X/composite/sobjects']);

    const rows = (await server.database.pool.query<{ destination_record_id: string | null; state: string; bucket: string | null; error_reason: string | null }>(
      'select destination_record_id, state, bucket, error_reason from records where formula_id = $1 order by state', [formula])).rows;
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: 'Salesforce refused the record: DUPLICATES_DETECTED: Use one of these records?' });
    expect(rows.map((r) => r.destination_record_id)).toEqual(expect.arrayContaining([known.Id, grace.Id]));

    // the review opens the Contact on its own page of the org, at <instance>/<Id>
    const { rows: [ada] } = await server.database.pool.query<{ id: string }>('select id from records where formula_id = $1 and destination_record_id = $2', [formula, known.Id]);
    const detail = await json<{ candidates: { id: string; page: string | null }[]; destination: { id: string; page: string | null } }>(await send(`/web-api/v1/records/${formula}/records/${ada!.id}`));
    expect(detail.candidates.find((c) => c.id === known.Id)?.page).toBe(`${SF_INSTANCE}/${String(known.Id)}`);
    expect(detail.destination).toMatchObject({ id: known.Id, page: `${SF_INSTANCE}/${String(known.Id)}` });
  });
});

describe('a large send into Salesforce', () => {
  it('more than 2,000 Ready Contacts sent at once are upserted by External ID in one Bulk API 2.0 job, each record marked with its own Contact', async () => {
    BULK_POLL.firstMs = 5;
    const formula = await liveFormula(
      { source: { dataSourceId: flat, object: 'bulk-*.csv' }, destination: { dataSourceId: org, object: 'Contact', settings: { object: 'Contact', externalIdField: 'Tributary_Id__c' } } },
      {
        mapping: { fields: [
          { destination: 'LastName', kind: 'source', source: 'Last name' }, { destination: 'Tributary_Id__c', kind: 'source', source: 'Member' },
        ] },
        'summary-fields': { fields: ['LastName'] },
        matching: { scenarios: [{ name: 'Member', criteria: [{ source: 'Member', destination: 'Tributary_Id__c' }], matchReason: 'Same member', isPrimary: true }], advanced: false, autoPick: [] },
        autosend: { enabled: false },
      },
    );
    const n = BULK_THRESHOLD + 1;
    dropFile('bulk-1.csv', [['Last name', 'Member'], ...Array.from({ length: n }, (_, i) => [`Member ${i}`, `M-${i}`])]);
    const jobs = sf.jobs.length;
    // collected and held in Ready; then the formula sends automatically, and its next run sends them all
    const held = await runOnce(formula);
    expect(held.counts).toMatchObject({ collected: n, 'state:ready': n });
    expect((await send(`${F}/${formula}/parts/autosend`, { method: 'PUT', body: { enabled: true } })).status).toBe(200);
    const done = await runOnce(formula);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ created: n });
    expect(sf.jobs.slice(jobs)).toEqual([expect.objectContaining({ operation: 'upsert', externalIdFieldName: 'Tributary_Id__c', state: 'JobComplete' })]);
    const { rows } = await server.database.pool.query<{ member: string; id: string }>(
      "select raw->>'Member' as member, destination_record_id as id from records where formula_id = $1 and state = 'sent'", [formula]);
    expect(rows).toHaveLength(n);
    const byMember = new Map([...sf.records.Contact!.values()].map((c) => [c.Tributary_Id__c, c.Id]));
    expect(rows.every((r) => byMember.get(r.member) === r.id)).toBe(true);
    // the org as it was: later tests read every Contact
    for (const [id, c] of sf.records.Contact!) {
      if (!String(c.Tributary_Id__c ?? '').startsWith('M-')) continue;
      sf.records.Account!.delete(String(c.AccountId));
      sf.records.Contact!.delete(id);
    }
  });
});

describe('a flat file of gifts into NPSP Data Import', () => {
  it('the wizard offers npsp__DataImport__c; each gift becomes a new import row with its Contact1 and Donation fields, its status left for NPSP to process', async () => {
    const { objects } = await json<{ objects: { name: string }[] }>(await send(`${DS}/${org}/objects`));
    expect(objects.map((o) => o.name)).toContain('npsp__DataImport__c');
    const formula = await liveFormula(
      { source: { dataSourceId: flat, object: 'gifts-*.csv' }, destination: { dataSourceId: org, object: 'npsp__DataImport__c', settings: { object: 'npsp__DataImport__c' } } },
      {
        mapping: { fields: [
          { destination: 'npsp__Contact1_Firstname__c', kind: 'source', source: 'First name' }, { destination: 'npsp__Contact1_Lastname__c', kind: 'source', source: 'Last name' },
          { destination: 'npsp__Contact1_Personal_Email__c', kind: 'source', source: 'Email' }, { destination: 'npsp__Donation_Amount__c', kind: 'source', source: 'Amount' },
          { destination: 'npsp__Donation_Date__c', kind: 'source', source: 'Date' },
        ] },
        'summary-fields': { fields: ['npsp__Contact1_Lastname__c', 'npsp__Donation_Amount__c'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'npsp__Contact1_Personal_Email__c' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      },
    );
    const rows = sf.records.npsp__DataImport__c!.size;
    // the same donor twice: two gifts, two import rows (NPSP matches the donor when it processes them)
    dropFile('gifts-1.csv', [['First name', 'Last name', 'Email', 'Amount', 'Date'], ['Mary', 'Jackson', 'mary@nasa.example', '50.00', '2026-11-03'], ['Mary', 'Jackson', 'mary@nasa.example', '75', '2026-11-04']]);
    const done = await runOnce(formula);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts, JSON.stringify(done.counts)).toMatchObject({ collected: 2, created: 2 });
    const made = [...sf.records.npsp__DataImport__c!.values()].slice(rows);
    expect(made).toHaveLength(2);
    expect(made.map((r) => [r.npsp__Contact1_Lastname__c, r.npsp__Contact1_Personal_Email__c, r.npsp__Donation_Amount__c, r.npsp__Donation_Date__c])).toEqual(expect.arrayContaining([
      ['Jackson', 'mary@nasa.example', 50, '2026-11-03'],
    ]));
    expect(made.every((r) => r.npsp__Status__c === undefined)).toBe(true);
    const sent = (await server.database.pool.query<{ id: string }>("select destination_record_id as id from records where formula_id = $1 and state = 'sent'", [formula])).rows;
    expect(sent.map((r) => r.id).sort()).toEqual(made.map((r) => r.Id).sort());
  });
});

describe('a Contact whose Account is not in Salesforce yet', () => {
  it('waits in relationship-match; one whose Account is there is created under it', async () => {
    const household = [...sf.records.Account!.values()][0]!;
    const formula = await liveFormula(
      { source: { dataSourceId: flat, object: 'members-*.csv' }, destination: { dataSourceId: org, object: 'Contact', settings: { object: 'Contact' } } },
      {
        mapping: { fields: [
          { destination: 'LastName', kind: 'source', source: 'Last name' }, { destination: 'Email', kind: 'source', source: 'Email' },
          { destination: 'AccountId', kind: 'source', source: 'Account' },
        ] },
        'summary-fields': { fields: ['LastName', 'Email'] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'Email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      },
    );
    dropFile('members-1.csv', [['Last name', 'Email', 'Account'], ['Member', 'member@example.org', String(household.Id)], ['Orphan', 'orphan@example.org', '001Rv0000009999AAA']]);
    const done = await runOnce(formula);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 2, created: 1, 'bucket:relationship-match': 1 });
    expect([...sf.records.Contact!.values()].find((c) => c.LastName === 'Member')).toMatchObject({ AccountId: household.Id });
    expect([...sf.records.Contact!.values()].some((c) => c.LastName === 'Orphan')).toBe(false);
  });
});

describe('Salesforce Contacts into the Sandbox CRM', () => {
  it('reads every Contact on the first run, and a later run only what changed since', async () => {
    const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
    const crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
    const formula = await liveFormula(
      { source: { dataSourceId: org, object: 'Contact', settings: { object: 'Contact' } }, destination: { dataSourceId: crm, object: 'constituents' } },
      {
        mapping: { fields: [
          { destination: 'firstName', kind: 'source', source: 'FirstName' }, { destination: 'lastName', kind: 'source', source: 'LastName' },
          { destination: 'email', kind: 'source', source: 'Email' },
        ] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      },
    );
    const first = await runOnce(formula);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts.collected).toBe(sf.records.Contact!.size);
    const grace = (await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'grace@navy.example' }] }))[0];
    expect(grace?.fields).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });

    sf.queries.length = 0;
    sf.addContact({ FirstName: 'Annie', LastName: 'Easley', Email: 'annie@nasa.example' });
    const second = await runOnce(formula);
    // the newest Contact, and those stamped in the same second as the watermark (read again, harmlessly)
    expect(second.counts.collected).toBeLessThan(first.counts.collected!);
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'annie@nasa.example' }] }))[0]?.fields).toMatchObject({ firstName: 'Annie', lastName: 'Easley' });
    expect(sf.queries.some((q) => /FROM Contact WHERE SystemModstamp >= \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ORDER BY SystemModstamp ASC, Id ASC$/.test(q))).toBe(true);

    // a Contact deleted in Salesforce (queryAll reads it, IsDeleted true) is omitted, saying so, never created
    const gone = sf.addContact({ FirstName: 'Gone', LastName: 'Deleted', Email: 'gone@deleted.example' });
    sf.remove('Contact', String(gone.Id));
    const third = await runOnce(formula);
    expect(third.status, JSON.stringify(third)).toBe('finished');
    expect(third.counts.created ?? 0).toBe(0);
    expect(await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'gone@deleted.example' }] })).toEqual([]);
    const omitted = (await server.database.pool.query<{ state: string; matching: { routeReason?: string } }>(
      "select state, matching from records where formula_id = $1 and raw->>'Id' = $2", [formula, gone.Id])).rows;
    expect(omitted).toEqual([expect.objectContaining({ state: 'omitted', matching: { routeReason: 'Deleted in Salesforce' } })]);
  });
});
