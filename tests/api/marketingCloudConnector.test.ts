/**
 * Salesforce Marketing Cloud data extension rows through the connector kit, against the local fake
 * (tests/support/vendors/salesforceMarketingCloud.ts): our requests as Marketing Cloud documents
 * them (client credentials at the tenant's auth host, REST at the answer's rest_instance_url, the
 * rowset paged with $page and $pageSize and filtered with $filter, the dataevents upsert) and its
 * answers parsed (rows as keys and values, errors with additionalErrors), a 429 in the middle and
 * an expired token.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { salesforceMarketingCloudConnector as sfmc } from '../../server/connectors/salesforceMarketingCloud/connector.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { DE_KEY, SFMC, startFakeMarketingCloud, type FakeMarketingCloud } from '../support/vendors/salesforceMarketingCloud.ts';
import { pullAll } from '../support/connectorContext.ts';

let mc: FakeMarketingCloud;
let vendor: VendorFakeSetup<FakeMarketingCloud>;

beforeAll(async () => {
  vendor = await withVendorFake('salesforce-marketing-cloud', startFakeMarketingCloud);
  mc = vendor.fake;
});
afterAll(async () => {
  await vendor?.close();
});

const ctx = (endSettings: Record<string, string> = { dataExtension: DE_KEY }, settings: Record<string, string> = {}): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings: { ...SFMC, ...settings }, dataDir: '/tmp', endSettings });
const all = pullAll;
const rowsets = () => mc.seen.filter((s) => s.path.endsWith('/rowset') && s.method === 'GET');

beforeEach(() => {
  mc.seen.length = 0;
  mc.dataExtensions.get(DE_KEY)!.rows.clear();
});

describe('signing in', () => {
  it('client credentials at the tenant\'s auth host with the business unit; the token kept, and obtained again once when it expired; refusals in words', async () => {
    await expect(sfmc.test(ctx())).resolves.toEqual({ detail: `Signed in to Salesforce Marketing Cloud business unit ${SFMC.accountId}.` });
    expect(mc.seen[0]).toMatchObject({ method: 'POST', path: '/v2/token', body: { grant_type: 'client_credentials', client_id: SFMC.clientId, client_secret: SFMC.clientSecret, account_id: Number(SFMC.accountId) } });
    mc.addRow(DE_KEY, { SubscriberKey: 'k1', EmailAddress: 'k1@example.org' });
    const before = mc.tokens();
    await sfmc.describeFields(ctx(), 'data-extensions');
    await sfmc.describeFields(ctx(), 'data-extensions');
    expect(mc.tokens()).toBe(before + 1);
    mc.expireTokens();
    const fields = await sfmc.describeFields(ctx(), 'data-extensions');
    expect(mc.tokens()).toBe(before + 2);
    expect(fields.find((f) => f.name === 'subscriberkey')).toMatchObject({ required: true, searchable: true });
    expect(fields.find((f) => f.name === 'emailaddress')).toMatchObject({ type: 'email' });
    // the wizard's look, without a formula: the data extensions the connection names
    const wizard = await sfmc.describeFields(ctx({}, { dataExtensions: ` ${DE_KEY} ` }), 'data-extensions');
    expect(wizard.map((f) => [f.name, f.required ?? false])).toEqual([['subscriberkey', false], ['modifieddate', false], ['emailaddress', false]]);
    await expect(sfmc.describeFields(ctx({}), 'data-extensions')).rejects.toThrow("Name the data extensions (their external keys) in the connection's settings: Marketing Cloud's REST API cannot list them.");
    const error = await sfmc.test(ctx({}, { clientSecret: 'nope' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionProblem);
    expect((error as Error).message).toMatch(/Salesforce Marketing Cloud/);
  });
});

describe('as a source', () => {
  it('rows changed since the watermark by the date field the settings name, paged with $page and $pageSize (a 429 waited out); every row when none is named', async () => {
    for (let i = 0; i < 5; i++) mc.addRow(DE_KEY, { SubscriberKey: `s${i}`, EmailAddress: `s${i}@example.org`, FirstName: `S${i}`, ModifiedDate: new Date(Date.UTC(2026, 0, 10, i)).toISOString() });
    mc.throttle(1, 0);
    const settings = { dataExtension: DE_KEY, modifiedField: 'ModifiedDate' };
    const batches = await all(sfmc.pull(ctx(), 'data-extensions', null, { batchSize: 2, settings }));
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => r.id)).toEqual(['s0', 's1', 's2', 's3', 's4']);
    expect(records[0]!.fields).toMatchObject({ subscriberkey: 's0', emailaddress: 's0@example.org', firstname: 'S0' });
    expect(rowsets().map((r) => r.query.$page)).toEqual(['1', '1', '2', '3']);
    expect(rowsets()[0]!.query).toMatchObject({ $pageSize: '2', $orderBy: 'modifieddate asc' });
    const end = JSON.parse(batches.at(-1)!.watermark!);
    expect(end).toEqual({ since: '2026-01-10T04:00:00.000Z', next: null, latest: null });
    mc.seen.length = 0;
    mc.addRow(DE_KEY, { SubscriberKey: 'later', EmailAddress: 'later@example.org', ModifiedDate: new Date(Date.UTC(2026, 0, 11)).toISOString() });
    const again = (await all(sfmc.pull(ctx(), 'data-extensions', batches.at(-1)!.watermark, { settings }))).flatMap((b) => b.records);
    expect(again.map((r) => r.id)).toEqual(['s4', 'later']);
    expect(rowsets()[0]!.query.$filter).toBe("modifieddate gte '2026-01-10T04:00:00.000Z'");
    const whole = (await all(sfmc.pull(ctx(), 'data-extensions', null, { settings: { dataExtension: DE_KEY } }))).flatMap((b) => b.records);
    expect(whole).toHaveLength(6);
  });
});

describe('as a destination', () => {
  it('rows found with $filter (values quoted), upserted by primary key; a request refused whole sent again row by row, Marketing Cloud\'s words on the row', async () => {
    mc.addRow(DE_KEY, { SubscriberKey: 'ada', EmailAddress: 'ada@analytical.example', FirstName: "O'Ada" });
    const [found, none] = await sfmc.searchMany!(ctx(), 'data-extensions', [
      { criteria: [{ field: 'EmailAddress', value: 'ADA@analytical.example' }, { field: 'firstname', value: "o'ada" }] },
      { criteria: [{ field: 'emailaddress', value: "x' or 1 eq '1" }] },
    ]);
    expect(found).toEqual([expect.objectContaining({ id: 'ada' })]);
    expect(none).toEqual([]);
    expect(rowsets()[0]!.query.$filter).toBe("EmailAddress eq 'ADA@analytical.example' and firstname eq 'o''ada'");
    const results = await sfmc.upsert(ctx(), 'data-extensions', [
      { idempotencyKey: 'a', id: 'ada', fields: { subscriberkey: 'ada', emailaddress: 'ada@analytical.example', lastname: 'Lovelace' } },
      { idempotencyKey: 'n', fields: { SubscriberKey: 'new', EmailAddress: 'new@example.org', FirstName: 'New' } },
      { idempotencyKey: 'b', fields: { subscriberkey: 'bad', emailaddress: 'bad@@example' } },
      { idempotencyKey: 'x', fields: { emailaddress: 'nokey@example.org' } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['updated', 'created', 'failed', 'failed']);
    expect(results[2]!.error).toBe('Salesforce Marketing Cloud refused the row: Unable to save rows for data extension ID Riverside_Supporters; The value for column [emailaddress] is not a valid email address: bad@@example');
    expect(results[3]!.error).toBe('Salesforce Marketing Cloud writes a row by its primary key, and this record has no subscriberkey.');
    const rows = mc.dataExtensions.get(DE_KEY)!.rows;
    expect(rows.get('ada')).toMatchObject({ lastname: 'Lovelace', firstname: "O'Ada" });
    expect(rows.get('new')).toMatchObject({ firstname: 'New' });
    const upserts = mc.seen.filter((s) => s.method === 'POST' && s.path.startsWith('/hub/v1/dataevents/'));
    expect(upserts.map((u) => (u.body as unknown[]).length)).toEqual([3, 1, 1, 1]);
    expect((upserts[0]!.body as unknown[])[1]).toEqual({ keys: { subscriberkey: 'new' }, values: { emailaddress: 'new@example.org', firstname: 'New' } });
    await expect(all(sfmc.pull(ctx({}), 'data-extensions', null, {}))).rejects.toThrow("Name the data extension (its external key) in the formula's settings.");
  });
});
