/**
 * WealthEngine as an enrichment destination, through its fake (tests/support/vendors/wealthengine.ts),
 * one server for the file:
 * - contract: the lookups as documented (path by e-mail, phone or address, basic or full; the
 *   APIKey header; the name with the lookup field), a profile found, no match (an outcome, not a
 *   refusal), a 429 in the middle waited out, a bad key refused in WealthEngine's words;
 * - a whole formula: a dropped file of people → WealthEngine: the profiles found on the records
 *   (match level, net worth, gift capacity), a person with no match sent as "No match", a refused
 *   lookup in Exceptions with WealthEngine's words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext } from '../../server/connectors/connector.ts';
import { NO_MATCH_ID, wealthengineConnector } from '../../server/connectors/wealthengine/connector.ts';
import { call } from '../support/api.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { startFakeWealthEngine, WE_KEY, type FakeWealthEngine } from '../support/vendors/wealthengine.ts';

const DS = '/integrations/v1/data-sources';
let vendor: VendorFakeWithServer<FakeWealthEngine>;
let server: TestServer;
let we: FakeWealthEngine;
let admin: TenantSession;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const ctx = (settings: Record<string, string>, endSettings: Record<string, string> = {}) =>
  ({ settings: { environment: 'production', ...settings }, endSettings, dataSourceId: 'we', dataDir: '/tmp' }) as unknown as ConnectorContext;
const item = (key: string, fields: Record<string, unknown>) => ({ idempotencyKey: key, fields });

beforeAll(async () => {
  vendor = await withVendorFake('wealthengine', startFakeWealthEngine, { server: { work: true, env: { RUN_SLICE_MS: '100000' } } });
  ({ fake: we, server } = vendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  we.add({ email: 'ada@example.org', last_name: 'Lovelace', full_name: 'Ada Lovelace', networth: '$1MM-$2.5MM', gift_capacity: '$25K-$50K', p2g: '4|2 - Above average' });
  we.add({ phone: '2025550143', last_name: 'Hopper', full_name: 'Grace Hopper', networth: '$500K-$1MM', gift_capacity: '$10K-$15K', p2g: '3|5 - Average' });
  we.add({ zip: '97322', last_name: 'Noether', full_name: 'Emmy Noether', networth: '$100K-$500K', gift_capacity: '$1K-$5K', p2g: '2|3 - Below average' });
}, 120_000);
afterAll(async () => { await vendor?.close(); });

describe('WealthEngine contract', () => {
  it('screens by e-mail, phone or address as documented: a profile found, no match as an outcome, a 429 waited out', async () => {
    we.seen.length = 0;
    we.throttle(1);
    const results = await wealthengineConnector.upsert(ctx({ apiKey: WE_KEY }, { profile: 'full' }), 'profiles', [
      item('a', { first_name: 'Ada', last_name: 'Lovelace', email: 'ADA@example.org', phone: '1' }),
      item('g', { first_name: 'Grace', last_name: 'Hopper', phone: '(202) 555-0143' }),
      item('e', { first_name: 'Emmy', last_name: 'Noether', address_line1: '1 Main St', city: 'Albany', state: 'OR', zip: '97322' }),
      item('n', { first_name: 'Nobody', last_name: 'Known', email: 'nobody@example.org' }),
    ]);
    expect(we.seen.map((s) => s.path)).toEqual([
      '/v1/profile/find_one/by_email/full', '/v1/profile/find_one/by_email/full', '/v1/profile/find_one/by_phone/full',
      '/v1/profile/find_one/by_address/full', '/v1/profile/find_one/by_email/full',
    ]);
    expect(we.seen.every((s) => s.authorization === `APIKey ${WE_KEY}`)).toBe(true);
    expect(we.seen[2]!.body).toEqual({ phone: '2025550143', first_name: 'Grace', last_name: 'Hopper' });
    expect(we.seen[3]!.body).toEqual({ first_name: 'Emmy', last_name: 'Noether', address_line1: '1 Main St', city: 'Albany', state: 'OR', zip: '97322' });
    expect(results.map((r) => [r.outcome, r.fields?.match_level])).toEqual([['created', 'E-mail'], ['created', 'Phone'], ['created', 'Address'], ['created', 'No match']]);
    expect(results[0]).toMatchObject({ id: '7000001', fields: { full_name: 'Ada Lovelace', net_worth: '$1MM-$2.5MM', gift_capacity: '$25K-$50K', p2g_score: '4|2 - Above average', total_realestate_value: '$1-$250K' } });
    expect(results[3]).toMatchObject({ id: NO_MATCH_ID, fields: { match_level: 'No match' } });
  });

  it('refuses a lookup WealthEngine cannot use in its words, and a bad key in its words', async () => {
    const [bad, none] = await wealthengineConnector.upsert(ctx({ apiKey: WE_KEY }), 'profiles', [
      item('z', { first_name: 'Zed', last_name: 'Zip', address_line1: '1 Main St', city: 'Albany', state: 'OR', zip: '9732' }),
      item('x', { first_name: 'No', last_name: 'Ways' }),
    ]);
    expect(bad).toMatchObject({ outcome: 'failed', error: 'WealthEngine refused the lookup: Invalid zip: 9732' });
    expect(none).toMatchObject({ outcome: 'failed', error: 'WealthEngine screens a person by e-mail address, phone or postal address, and this record has none.' });
    await expect(wealthengineConnector.test(ctx({ apiKey: 'nope' }))).rejects.toThrow('WealthEngine refused the API key: Invalid API key');
    await expect(wealthengineConnector.test(ctx({ apiKey: WE_KEY }))).resolves.toEqual({ detail: 'WealthEngine accepted the API key (production).' });
  });
});

describe('a formula into WealthEngine', () => {
  it('screens a dropped file of people: profiles on the records, a no-match person sent as such, a refused lookup in Exceptions', async () => {
    const create = async (body: unknown) => {
      const made = await send(DS, { method: 'POST', body });
      expect(made.status, await made.clone().text()).toBe(201);
      return ((await made.json()) as { id: string }).id;
    };
    const flat = await create({ system: 'flat-file', displayName: 'Screening drop', settings: { folder: 'screening' } });
    const dest = await create({ system: 'wealthengine', displayName: 'WealthEngine', settings: { environment: 'production', apiKey: WE_KEY } });
    expect(await (await send(`${DS}/${dest}/test`, { method: 'POST' })).json()).toMatchObject({ status: 'success', detail: 'WealthEngine accepted the API key (production).' });
    const objects = (await (await send(`${DS}/${dest}/objects`)).json()) as { objects: { name: string }[] };
    expect(objects.objects.map((o) => o.name)).toEqual(['profiles', 'screenings']);
    const id = await formulaBetween(send, { source: { dataSourceId: flat, object: 'people-*.csv' }, destination: { dataSourceId: dest, object: 'profiles', settings: { profile: 'basic' } } }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'first_name', kind: 'source', source: 'First' }, { destination: 'last_name', kind: 'source', source: 'Last' },
        { destination: 'email', kind: 'source', source: 'Email' }, { destination: 'zip', kind: 'source', source: 'Zip' },
        { destination: 'address_line1', kind: 'source', source: 'Street' },
      ] },
      'summary-fields': { fields: ['first_name', 'last_name'] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    });
    dropCsv(server.config.dataDir, admin.tenantId, 'screening', 'people-1.csv', [
      ['First', 'Last', 'Email', 'Street', 'Zip'],
      ['Ada', 'Lovelace', 'ada@example.org', '', ''],
      ['Nobody', 'Known', 'nobody@example.org', '', ''],
      ['Zed', 'Zip', '', '1 Main St', '9732'],
    ]);
    const done = await runToEnd(send, id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 2 });
    const rows = (await server.database.pool.query<{ id: string; state: string; bucket: string; error_reason: string | null; destination_record_id: string | null; candidates: { id: string; fields: Record<string, unknown> }[] }>(
      'select id, state, bucket, error_reason, destination_record_id, candidates from records where formula_id = $1 order by destination_record_id nulls last', [id])).rows;
    expect(rows.map((r) => [r.state, r.destination_record_id])).toEqual([['sent', '7000001'], ['sent', NO_MATCH_ID], ['failed', null]]);
    expect(rows[0]!.candidates.at(-1)).toMatchObject({ id: '7000001', fields: { match_level: 'E-mail', net_worth: '$1MM-$2.5MM', gift_capacity: '$25K-$50K' } });
    expect(rows[1]!.candidates.at(-1)).toMatchObject({ id: NO_MATCH_ID, fields: { match_level: 'No match' } });
    expect(rows[2]).toMatchObject({ bucket: 'exception', error_reason: 'WealthEngine refused the lookup: Invalid zip: 9732' });
    // the record review shows the profile found as the record's destination record
    const shown = (await (await send(`/web-api/v1/records/${id}/records/${rows[0]!.id}`)).json()) as { destination: { id: string; fields: Record<string, unknown> } | null };
    expect(shown.destination).toMatchObject({ id: '7000001', fields: { match_level: 'E-mail', gift_capacity: '$25K-$50K', p2g_score: '4|2 - Above average' } });
    const { systems } = (await (await send('/integrations/v1/systems')).json()) as { systems: { system: string; does: string }[] };
    expect(systems.find((x) => x.system === 'wealthengine')?.does).toBe('source and destination');
  });
});
