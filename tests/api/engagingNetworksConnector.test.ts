/**
 * Engaging Networks supporters and transactions through the connector kit, against the local fake
 * (tests/support/vendors/engagingNetworks.ts): our requests as ENS documents them (the API token
 * posted for a session token, the session header on every call and one authentication again when
 * it expired, the supporter query by days back, the bulk export of transactions by days, the
 * supporter by e-mail, POST /supporter) and its answers parsed (query pages, CSV, supporter JSON,
 * `{ messageId, message }` errors), a 429 in the middle.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { engagingNetworksConnector } from '../../server/connectors/engagingNetworks/connector.ts';
import { ENS_PRIVATE_TOKEN, ENS_TOKEN, startFakeEngagingNetworks, type FakeEngagingNetworks } from '../support/vendors/engagingNetworks.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { pullAll } from '../support/connectorContext.ts';

let en: FakeEngagingNetworks;
let vendor: VendorFakeSetup<FakeEngagingNetworks>;

beforeAll(async () => {
  vendor = await withVendorFake('engaging-networks', startFakeEngagingNetworks);
  en = vendor.fake;
});
afterAll(async () => {
  await vendor?.close();
});

const ctx = (settings: Record<string, string> = {}): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings: { dataCentre: 'us', apiToken: ENS_TOKEN, ...settings }, dataDir: '/tmp' });
const all = pullAll;
const calls = (path: RegExp) => en.seen.filter((s) => path.test(s.path));
const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);

beforeEach(() => {
  en.seen.length = 0;
  en.supporters.clear();
  en.transactions.clear();
});

describe('the session', () => {
  it('the API token posted for a session token, sent as ens-auth-token, kept between calls and renewed once when ENS says it expired; a refused token in words', async () => {
    await expect(engagingNetworksConnector.test(ctx())).resolves.toEqual({ detail: 'Engaging Networks accepted the API user token.' });
    expect(calls(/authenticate/)[0]).toMatchObject({ method: 'POST', body: ENS_TOKEN });
    en.seen.length = 0;
    await engagingNetworksConnector.describeFields(ctx(), 'supporters');
    await engagingNetworksConnector.describeFields(ctx(), 'supporters');
    // one session for both
    expect(calls(/authenticate/)).toHaveLength(1);
    const token = calls(/fields/)[0]!.headers['ens-auth-token'];
    expect(calls(/fields/)[1]!.headers['ens-auth-token']).toBe(token);
    en.expireSessions();
    const before = en.authentications();
    const fields = await engagingNetworksConnector.describeFields(ctx(), 'supporters');
    expect(en.authentications()).toBe(before + 1);
    expect(fields.find((f) => f.name === 'Email Address')).toMatchObject({ type: 'email', required: true, searchable: true });
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['Volunteer Interest', 'Phone Number', 'Supporter ID']));
    const error = await engagingNetworksConnector.test(ctx({ apiToken: 'nope' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionProblem);
    expect((error as Error).message).toMatch(/Engaging Networks/);
  });
});

describe('as a source', () => {
  it('supporters modified since the last pull through the supporter query (daysBack, 100 rows a page), each read whole, in batches (a 429 waited out); a first pull reaches back the 32 days ENS allows; the next starts on the day this one ended', async () => {
    for (let i = 0; i < 3; i++) en.addSupporter({ 'Email Address': `s${i}@example.org`, 'First Name': `S${i}`, 'Last Name': 'Supporter, Sr.' }, new Date(Date.now() - (5 - i) * DAY));
    en.addSupporter({ 'Email Address': 'old@example.org' }, new Date(Date.now() - 40 * DAY));
    en.throttle(1, 0);
    const batches = await all(engagingNetworksConnector.pull(ctx(), 'supporters', null, { batchSize: 2 }));
    expect(batches.flatMap((b) => b.records.map((r) => r.fields['Email Address']))).toEqual(['s0@example.org', 's1@example.org', 's2@example.org']);
    expect(batches[0]!.records[0]).toEqual({ id: expect.any(String), fields: expect.objectContaining({ 'First Name': 'S0', 'Last Name': 'Supporter, Sr.', 'Supporter ID': expect.any(String) }) });
    expect(calls(/supporter\/query$/)[0]!.query).toEqual({ type: 'latestModified', daysBack: '32', rows: '100', start: '0' });
    expect(calls(/export\/job/)).toHaveLength(0);
    const end = JSON.parse(batches.at(-1)!.watermark!);
    expect(end).toEqual({ since: today(), next: null, latest: null });
    // stopped after the first batch: goes on from the same page
    en.seen.length = 0;
    const rest = await all(engagingNetworksConnector.pull(ctx(), 'supporters', batches[0]!.watermark, { batchSize: 2 }));
    expect(rest.flatMap((b) => b.records.map((r) => r.fields['First Name']))).toEqual(['S0', 'S1', 'S2']);
    // a later pull asks for the days since the last one ended
    en.seen.length = 0;
    await all(engagingNetworksConnector.pull(ctx(), 'supporters', JSON.stringify({ since: new Date(Date.now() - 2 * DAY).toISOString().slice(0, 10), next: null, latest: null }), {}));
    expect(calls(/supporter\/query$/)[0]!.query).toMatchObject({ daysBack: '3' });
  });

  it('more than a page of supporters read page by page with start', async () => {
    for (let i = 0; i < 105; i++) en.addSupporter({ 'Email Address': `p${i}@example.org` }, new Date(Date.now() - DAY + i * 1000));
    const records = (await all(engagingNetworksConnector.pull(ctx(), 'supporters', null, { batchSize: 50 }))).flatMap((b) => b.records);
    expect(records).toHaveLength(105);
    expect(calls(/supporter\/query$/).map((c) => c.query.start)).toEqual(['0', '100']);
  });

  it('transactions of a run once\'s window through the bulk export with the private token (days as MMDDYYYY, type csv); none reaches into today; without the token, refused in words', async () => {
    const s = en.addSupporter({ 'Email Address': 'giver@example.org' });
    en.addTransaction({ supporterId: s.supporterId, amount: 10, date: '2026-01-10', modifiedOn: new Date(Date.UTC(2026, 0, 10, 15)) });
    en.addTransaction({ supporterId: s.supporterId, amount: 20, date: '2026-01-12', modifiedOn: new Date(Date.UTC(2026, 0, 12, 15)) });
    const window = { from: new Date(Date.UTC(2026, 0, 11)), to: new Date(Date.UTC(2026, 0, 13)) };
    const records = (await all(engagingNetworksConnector.pull(ctx({ privateToken: ENS_PRIVATE_TOKEN }), 'transactions', null, { window }))).flatMap((b) => b.records);
    expect(records).toEqual([expect.objectContaining({ fields: expect.objectContaining({ 'Campaign Type': 'FCS', 'Campaign Data 3': '20.00', 'Supporter Email': 'giver@example.org', 'Campaign Date': '2026-01-12' }) })]);
    expect(records[0]!.id).toBe(`${s.supporterId}|${records[0]!.fields['Campaign Number']}|FCS|2026-01-12|15:00`);
    expect(calls(/export\.service$/)[0]!.query).toEqual({ token: ENS_PRIVATE_TOKEN, startDate: '01112026', endDate: '01122026', type: 'csv' });

    // the bulk export holds days up to yesterday: today's waits for the next pull
    en.addTransaction({ supporterId: s.supporterId, amount: 30, date: today(), modifiedOn: new Date() });
    en.seen.length = 0;
    const batches = await all(engagingNetworksConnector.pull(ctx({ privateToken: ENS_PRIVATE_TOKEN }), 'transactions', JSON.stringify({ since: today(), next: null, latest: null }), {}));
    expect(batches.flatMap((b) => b.records)).toEqual([]);
    expect(calls(/export\.service$/)).toHaveLength(0);
    expect(JSON.parse(batches.at(-1)!.watermark!)).toMatchObject({ since: today() });

    await expect(all(engagingNetworksConnector.pull(ctx(), 'transactions', null, { window }))).rejects.toThrow("Engaging Networks exports transactions with the account's private token (Hello > Account settings > Tokens); this connection has none.");
  });
});

describe('as a destination', () => {
  it('supporters found by e-mail, each criterion held to the one found; written by e-mail (sending again changes the same one); ENS\'s words on a refusal; other scenarios refused on save', async () => {
    const ada = en.addSupporter({ 'Email Address': 'ada@analytical.example', 'First Name': 'Ada', 'Last Name': 'Lovelace' });
    const [found, wrong, none] = await engagingNetworksConnector.searchMany!(ctx(), 'supporters', [
      { criteria: [{ field: 'Email Address', value: 'ADA@analytical.example ' }, { field: 'Last Name', value: 'lovelace' }] },
      { criteria: [{ field: 'Email Address', value: 'ada@analytical.example' }, { field: 'Last Name', value: 'Byron' }] },
      { criteria: [{ field: 'Email Address', value: 'nobody@example.org' }] },
    ]);
    expect(found).toEqual([{ id: String(ada.supporterId), fields: expect.objectContaining({ 'First Name': 'Ada', 'Supporter ID': String(ada.supporterId) }) }]);
    expect(wrong).toEqual([]);
    expect(none).toEqual([]);
    expect(calls(/\/supporter$/)[0]!.query).toEqual({ email: 'ADA@analytical.example' });
    const results = await engagingNetworksConnector.upsert(ctx(), 'supporters', [
      { idempotencyKey: 'a', id: String(ada.supporterId), fields: { 'Email Address': 'ada@analytical.example', 'City': 'London' } },
      { idempotencyKey: 'n', fields: { 'Email Address': 'new@example.org', 'First Name': 'New' } },
      { idempotencyKey: 'b', fields: { 'Email Address': 'bad@@example', 'First Name': 'Bad' } },
      { idempotencyKey: 'x', fields: { 'First Name': 'No e-mail' } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['updated', 'created', 'failed', 'failed']);
    expect(results[2]!.error).toBe("Engaging Networks refused the supporter: 'bad@@example' is not a valid email address (10000005)");
    expect(results[3]!.error).toBe('Engaging Networks keeps a supporter by e-mail address, and this record has none.');
    expect(en.supporters.get(ada.supporterId)!.fields).toMatchObject({ City: 'London', 'First Name': 'Ada' });
    await engagingNetworksConnector.upsert(ctx(), 'supporters', [{ idempotencyKey: 'n', fields: { 'Email Address': 'new@example.org', 'First Name': 'New' } }]);
    expect([...en.supporters.values()].filter((s) => s.fields['Email Address'] === 'new@example.org')).toHaveLength(1);
    await expect(engagingNetworksConnector.matchingProblem!(ctx(), 'supporters', [{ name: 'Name', fields: ['First Name', 'Last Name'] }]))
      .resolves.toBe('Engaging Networks finds supporters by e-mail address or supporter ID only: the scenario "Name" compares First Name, Last Name. Add the e-mail address to it.');
  });
});
