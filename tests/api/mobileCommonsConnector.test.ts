/**
 * Mobile Commons profiles through the connector kit, against the local fake
 * (tests/support/vendors/mobileCommons.ts): our requests as Mobile Commons documents them (HTTP
 * Basic, profiles in a from/to window paged by page and limit, a profile by phone number,
 * profile_update as a form) and its XML answers read with the XML parser (profiles with address
 * and custom columns, `success="false"` errors), a 429 in the middle, consent left alone.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { mobileCommonsConnector as mobile } from '../../server/connectors/mobileCommons/connector.ts';
import { parseXml } from '../../server/connectors/kit/xml.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { MC_LOGIN, startFakeMobileCommons, type FakeMobileCommons } from '../support/vendors/mobileCommons.ts';
import { pullAll } from '../support/connectorContext.ts';

let mc: FakeMobileCommons;
let vendor: VendorFakeSetup<FakeMobileCommons>;

beforeAll(async () => {
  vendor = await withVendorFake('mobile-commons', startFakeMobileCommons);
  mc = vendor.fake;
});
afterAll(async () => {
  await vendor?.close();
});

const ctx = (settings: Record<string, string> = {}): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings: { ...MC_LOGIN, ...settings }, dataDir: '/tmp' });
const all = pullAll;
const calls = (path: string) => mc.seen.filter((s) => s.path === path);

beforeEach(() => {
  mc.seen.length = 0;
  mc.profiles.clear();
});

describe('signing in and reading XML', () => {
  it('HTTP Basic with the e-mail and password; a refused login (success="false", error 1) in words; broken XML is not read', async () => {
    await expect(mobile.test(ctx({ companyKey: 'ABC123' }))).resolves.toEqual({ detail: 'Signed in to Mobile Commons.' });
    expect(mc.seen[0]).toMatchObject({ path: '/api/campaigns', query: { company: 'ABC123' } });
    expect(Buffer.from(mc.seen[0]!.headers.authorization!.slice(6), 'base64').toString()).toBe(`${MC_LOGIN.username}:${MC_LOGIN.password}`);
    const error = await mobile.test(ctx({ password: 'nope' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionProblem);
    expect((error as Error).message).toBe('Mobile Commons refused the e-mail and password: Invalid username or password');
    expect(parseXml('<response success="true"><profile id="1"><email>a&amp;b@example.org</email>')).toBeNull();
    expect(parseXml('<response success="true"><x><![CDATA[<b>&]]></x></response>')!.children[0]!.text).toBe('<b>&');
  });
});

describe('as a source', () => {
  it('profiles updated in the window, paged by page and limit, with address and custom columns (a 429 waited out); the next pull starts where this window ended', async () => {
    for (let i = 0; i < 5; i++) mc.add({ phone: `503555010${i}`, email: `m${i}@example.org`, firstName: `M${i}`, lastName: 'Mobile & Co', city: 'Portland', custom: { 'Favorite Color': 'Blue' }, updatedAt: new Date(Date.UTC(2026, 0, 10, i)) });
    mc.throttle(1, 0);
    const batches = await all(mobile.pull(ctx(), 'profiles', null, { batchSize: 2 }));
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => r.fields.email)).toEqual([0, 1, 2, 3, 4].map((i) => `m${i}@example.org`));
    expect(records[0]!.fields).toMatchObject({ phone_number: '15035550100', last_name: 'Mobile & Co', city: 'Portland', 'Favorite Color': 'Blue', updated_at: '2026-01-10T00:00:00.000Z' });
    const pages = calls('/api/profiles');
    expect(pages.map((p) => p.query.page)).toEqual(['1', '1', '2', '3']);
    expect(pages[0]!.query.from).toBeUndefined();
    const end = JSON.parse(batches.at(-1)!.watermark!);
    expect(end.since).toBe(pages[0]!.query.to);
    expect(pages.every((p) => p.query.to === end.since)).toBe(true);
    // stopped after a page: the same window goes on from the next page
    mc.seen.length = 0;
    const rest = await all(mobile.pull(ctx(), 'profiles', batches[0]!.watermark, { batchSize: 2 }));
    expect(rest.flatMap((b) => b.records)).toHaveLength(3);
    expect(calls('/api/profiles')[0]!.query).toMatchObject({ page: '2', to: end.since });
    mc.seen.length = 0;
    mc.add({ phone: '5035550199', firstName: 'Later' });
    const later = (await all(mobile.pull(ctx(), 'profiles', batches.at(-1)!.watermark, {}))).flatMap((b) => b.records);
    expect(later.map((r) => r.fields.first_name)).toEqual(['Later']);
    expect(calls('/api/profiles')[0]!.query.from).toBe(end.since);
    const fields = (await mobile.describeFields(ctx(), 'profiles')).map((f) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['phone_number', 'opt_in_path_id', 'Favorite Color']));
  });
});

describe('as a destination', () => {
  it('profiles found by phone number; written with profile_update by phone (sending again changes the same profile); no opt-in unless mapped; refusals in Mobile Commons\' words', async () => {
    const known = mc.add({ phone: '15035550101', firstName: 'Ada', lastName: 'Lovelace' });
    const [found, wrong, none] = await mobile.searchMany!(ctx(), 'profiles', [
      { criteria: [{ field: 'phone_number', value: '(503) 555-0101' }, { field: 'last_name', value: 'lovelace' }] },
      { criteria: [{ field: 'phone_number', value: '503-555-0101' }, { field: 'last_name', value: 'Byron' }] },
      { criteria: [{ field: 'phone_number', value: '503-555-0000' }] },
    ]);
    expect(found).toEqual([expect.objectContaining({ id: String(known.id), fields: expect.objectContaining({ first_name: 'Ada' }) })]);
    expect(wrong).toEqual([]);
    expect(none).toEqual([]);
    expect(calls('/api/profile')[0]!.query).toEqual({ phone_number: '(503) 555-0101' });
    const results = await mobile.upsert(ctx(), 'profiles', [
      { idempotencyKey: 'k', id: String(known.id), fields: { phone_number: '503-555-0101', email: 'ada@analytical.example', 'Favorite Color': 'Green', status: 'ignored' } },
      { idempotencyKey: 'n', fields: { phone_number: '503-555-0102', first_name: 'New', opt_in_path_id: '12345' } },
      { idempotencyKey: 'b', fields: { phone_number: '503-555-0103', email: 'bad@@example' } },
      { idempotencyKey: 'x', fields: { first_name: 'No phone' } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['updated', 'created', 'failed', 'failed']);
    expect(results[2]!.error).toBe('Mobile Commons refused the profile: Invalid email address: bad@@example');
    expect(results[3]!.error).toBe('Mobile Commons keeps a profile by phone number, and this record has none.');
    expect(mc.profiles.get(known.id)).toMatchObject({ email: 'ada@analytical.example', custom: { 'Favorite Color': 'Green' }, optInPaths: [] });
    const updates = calls('/api/profile_update');
    expect(updates[0]!.form).toEqual({ phone_number: '503-555-0101', email: 'ada@analytical.example', 'Favorite Color': 'Green' });
    expect(updates[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(updates[1]!.form).toMatchObject({ opt_in_path_id: '12345' });
    await mobile.upsert(ctx(), 'profiles', [{ idempotencyKey: 'n', fields: { phone_number: '5035550102', first_name: 'New' } }]);
    expect([...mc.profiles.values()].filter((p) => p.phone === '15035550102')).toHaveLength(1);
    await expect(mobile.matchingProblem!(ctx(), 'profiles', [{ name: 'E-mail', fields: ['email'] }]))
      .resolves.toBe('Mobile Commons finds profiles by phone number only: the scenario "E-mail" compares email. Add the phone number to it.');
  });
});
