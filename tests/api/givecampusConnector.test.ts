/**
 * GiveCampus as a source on the connector kit, against its local fake (tests/support/vendors/givecampus.ts),
 * with one test server for the file: the Gift API asked as the connector reads GiveCampus's articles
 * (a bearer token, gifts by `updated_at` from the watermark, page by page), gifts with their amounts as
 * amounts and designations readable, donors derived from the gifts, a gift changed while the pages are
 * read skipping no other, a 429 in the middle waited out, a revoked token refused in words; through the
 * API the connection test and what the systems list says; then a whole formula of gifts into the Sandbox
 * CRM's constituents with their gifts: a first run, a later one reading only what changed, and a run
 * after the token was revoked, failing in words.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext, type PullBatch } from '../../server/connectors/connector.ts';
import { givecampusBase, givecampusConnector } from '../../server/connectors/givecampus/connector.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { pullAll } from '../support/connectorContext.ts';
import { AUTOSENDING_PARTS, connectedSource, formulaBetween, runToEnd, sender, tenantSession, type Send, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { GC_TOKEN, startFakeGiveCampus, type FakeGiveCampus, type GiftInput } from '../support/vendors/givecampus.ts';

let gc: FakeGiveCampus;
let vendors: VendorFakeWithServer<FakeGiveCampus>;
let server: TestServer;

beforeAll(async () => {
  vendors = await withVendorFake('givecampus', startFakeGiveCampus, { server: { work: true, env: { RUN_SLICE_MS: '100000' } } });
  ({ fake: gc, server } = vendors);
}, 120_000);
afterAll(async () => { await vendors?.close(); });

const SETTINGS = { environment: 'production', apiToken: GC_TOKEN };
const context = (settings: Record<string, string> = SETTINGS): ConnectorContext => ({ tenant: {} as ConnectorContext['tenant'], settings, dataDir: '/tmp' });
const day = (d: number, h = 12) => new Date(Date.UTC(2026, 2, d, h));
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a refusal'); }, (e: unknown) => e as ConnectionProblem);
const giftCalls = () => gc.seen.filter((s) => s.path === '/api/v1/gifts');
const gift = (over: Partial<GiftInput> & { last: string; confirmed: Date }): GiftInput => ({ first: 'Annie', value: '10.0', ...over });
const REFUSED = /^GiveCampus refused the API token \(HTTP 401: Invalid or expired API token\)\. It may have expired or been revoked, or belong to another environment than production: tokens work only where they were issued\. Create a new one under School Dashboard > Integrations > API Keys and save it in this data source\.$/;

describe('the GiveCampus connector', () => {
  beforeEach(() => gc.clear());

  it('tests the API token against the Gift API; a revoked or expired token refused in words saying what to do', async () => {
    await expect(givecampusConnector.test(context())).resolves.toEqual({ detail: 'GiveCampus accepted the API token (production) and answered with its gifts.' });
    expect(giftCalls()[0]).toMatchObject({ method: 'GET', authorization: `Bearer ${GC_TOKEN}` });
    gc.revoke();
    const bad = await failure(givecampusConnector.test(context()));
    expect(bad).toMatchObject({ code: 'clientdatasource-connection-failed' });
    expect(bad.message).toMatch(REFUSED);
    // the base URL rules: production, sandbox, a custom domain
    expect(givecampusBase({ environment: 'production' })).toBe('https://www.givecampus.com');
    expect(givecampusBase({ environment: 'sandbox' })).toBe('https://sandbox.givecampus.com');
    expect(givecampusBase({ environment: 'production', customDomain: 'https://giving.example.edu/' })).toBe('https://giving.example.edu');
  });

  it('gifts changed since the watermark, oldest change first, page by page, amounts as amounts and designations readable; a 429 waited out; a later pull reads only what changed', async () => {
    const first = gc.add(gift({
      last: 'Edison', email: 'annie@example.edu', constituent: 'C-1001', value: '25.5', confirmed: day(1),
      designations: [{ name: 'Human Being Fund', amount: '20.5', unique_identifier: 'gcc-hbf' }, { name: 'Athletics', amount: '5.0' }],
      address: { line1: '1 Campus Way', city: 'Greendale', state: 'CO', postal_code: '33333' },
    }));
    for (let i = 2; i <= 5; i++) gc.add(gift({ last: `Donor${i}`, email: `donor${i}@example.edu`, value: `${i}0.0`, confirmed: day(i) }));
    const pages = givecampusConnector.pull(context(), 'gifts', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const one = await pages.next();
    gc.throttle(1);
    const batches: PullBatch[] = [one.value!];
    for (let r = await pages.next(); !r.done; r = await pages.next()) batches.push(r.value);
    // each page after the first asks again from a second before the last page's last change: the page's last gift is read twice
    expect(batches.map((b) => b.records.map((r) => r.fields.last_name))).toEqual([
      ['Edison', 'Donor2'], ['Donor2', 'Donor3'], ['Donor3', 'Donor4'], ['Donor4', 'Donor5'], ['Donor5'],
    ]);
    expect(batches[0]!.records[0]).toEqual({ id: String(first.id), fields: expect.objectContaining({
      id: first.id, amount: 25.5, currency: 'USD', state: 'authorized', donation_type: 'donation', date: '2026-03-01', confirmed_at: '2026-03-01T12:00:00.000Z',
      first_name: 'Annie', last_name: 'Edison', payer_name: 'Annie Edison', email: 'annie@example.edu', constituent_identifier: 'C-1001',
      'address.line1': '1 Campus Way', 'address.city': 'Greendale', 'address.postal_code': '33333', 'address.country': 'United States',
      'project.name': 'Annual Fund', 'project.unique_identifier': 'AF-2026',
      designations: 'Human Being Fund (gcc-hbf) 20.50 USD; Athletics 5.00 USD', designation_count: 2,
      'designation.name': 'Human Being Fund', 'designation.unique_identifier': 'gcc-hbf', 'designation.amount': 20.5,
    }) });
    // the 429 was waited out: the same request again
    const q = giftCalls().map((s) => [s.query.get('timestamp_type'), s.query.get('start_date'), s.query.get('page'), s.query.get('per_page')]);
    expect(q).toEqual([
      ['updated_at', null, '1', '2'],
      ['updated_at', '2026-03-02T11:59:59Z', '1', '2'], ['updated_at', '2026-03-02T11:59:59Z', '1', '2'],
      ['updated_at', '2026-03-03T11:59:59Z', '1', '2'], ['updated_at', '2026-03-04T11:59:59Z', '1', '2'], ['updated_at', '2026-03-05T11:59:59Z', '1', '2'],
    ]);
    const end = batches.at(-1)!.watermark!;
    expect(JSON.parse(end)).toEqual({ since: '2026-03-05T12:00:00.000Z', next: null, latest: null });

    // later: the first gift is deposited, and a new one comes
    gc.seen.length = 0;
    gc.change(first, { state: 'paid', captured_at: '2026-03-02T09:00:00.000-00:00', deposited_at: '2026-03-06T09:00:00.000-00:00' }, day(6));
    gc.add(gift({ last: 'Donor6', value: '60.0', confirmed: day(7) }));
    const later = (await pullAll(givecampusConnector.pull(context(), 'gifts', end, {}))).flatMap((b) => b.records);
    expect(later.map((r) => [r.fields.last_name, r.fields.state])).toEqual([['Donor5', 'authorized'], ['Edison', 'paid'], ['Donor6', 'authorized']]);
    expect(later[1]!.fields).toMatchObject({ deposited_at: '2026-03-06T09:00:00.000Z', captured_at: '2026-03-02T09:00:00.000Z', date: '2026-03-01' });
    expect(giftCalls()[0]!.query.get('start_date')).toBe('2026-03-05T11:59:59Z');
    expect(giftCalls()[0]!.query.get('per_page')).toBe('100');
  });

  it('a gift changed while the pages are read skips no other', async () => {
    const gifts = Array.from({ length: 6 }, (_, i) => gc.add(gift({ last: `Page${i}`, confirmed: day(i + 1) })));
    // three of one second: a page all of one change goes on by page number
    for (let i = 0; i < 3; i++) gc.add(gift({ last: `Tie${i}`, confirmed: day(20) }));
    const pages = givecampusConnector.pull(context(), 'gifts', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const read: string[] = [];
    const first = await pages.next();
    read.push(...first.value!.records.map((r: { fields: Record<string, unknown> }) => String(r.fields.last_name)));
    // the first page's first gift changes: it moves to the end, and every other slides one place back
    gc.change(gifts[0]!, { state: 'paid' }, day(25));
    let watermark = first.value!.watermark;
    for (let r = await pages.next(); !r.done; r = await pages.next()) {
      read.push(...r.value.records.map((x: { fields: Record<string, unknown> }) => String(x.fields.last_name)));
      watermark = r.value.watermark;
    }
    expect(new Set(read)).toEqual(new Set(['Page0', 'Page1', 'Page2', 'Page3', 'Page4', 'Page5', 'Tie0', 'Tie1', 'Tie2']));
    // before its change, then on the page where it moved, and once more as the last page's own second
    expect(read.filter((n) => n === 'Page0')).toHaveLength(3);
    expect(JSON.parse(watermark!)).toMatchObject({ since: '2026-03-25T12:00:00.000Z', next: null });
  });

  it('donors derived from the gifts, one per donor; fields described for the wizard; an unknown object refused in words', async () => {
    gc.add(gift({ last: 'Edison', email: 'Annie@Example.edu', value: '10.0', confirmed: day(1) }));
    gc.add(gift({ last: 'Edison', email: 'annie@example.edu', value: '15.0', confirmed: day(2), address: { city: 'Greendale' } }));
    gc.add(gift({ first: 'Troy', last: 'Barnes', constituent: 'C-7', value: '5.0', confirmed: day(3) }));
    gc.add(gift({ first: 'Abed', last: 'Nadir', value: '5.0', confirmed: day(4) }));
    const donors = (await pullAll(givecampusConnector.pull(context(), 'donors', null, {}))).flatMap((b) => b.records);
    expect(donors.map((d) => [d.id, d.fields.first_name, d.fields.last_name])).toEqual([
      ['email:annie@example.edu', 'Annie', 'Edison'], ['constituent:C-7', 'Troy', 'Barnes'], [expect.stringMatching(/^gift:\d+$/), 'Abed', 'Nadir'],
    ]);
    expect(donors[0]!.fields).toMatchObject({ 'address.city': 'Greendale', email: 'annie@example.edu' });
    const giftFields = await givecampusConnector.describeFields(context(), 'gifts');
    expect(giftFields).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'amount', type: 'number' }), expect.objectContaining({ name: 'date', type: 'date' }),
      expect.objectContaining({ name: 'email', type: 'email' }), expect.objectContaining({ name: 'designations' }),
    ]));
    expect((await givecampusConnector.describeFields(context(), 'donors')).map((f) => f.name)).toEqual(expect.arrayContaining(['first_name', 'last_name', 'email', 'address.line1']));
    await expect(givecampusConnector.describeFields(context(), 'events')).rejects.toThrow('events is not one of them yet');
  });
});

describe('GiveCampus through the API', () => {
  let admin: TenantSession;
  let send: Send;
  beforeAll(async () => {
    admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
    send = sender(server.url, admin);
  });
  beforeEach(() => gc.clear());
  const test = (settings: Record<string, string>) => send('/integrations/v1/data-sources/test', { method: 'POST', body: { system: 'givecampus', settings } });

  it('tests a connection: accepted, a refused token as Connection Failed in words (never repeated back), an outage as Connection Error', async () => {
    const ok = await test(SETTINGS);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ status: 'success', detail: expect.stringMatching(/production/) });
    const bad = await test({ ...SETTINGS, apiToken: 'nope-token' });
    expect(bad.status).toBe(422);
    const body = await bad.json() as { title: string; code: string; detail: string };
    expect(body).toMatchObject({ title: 'connection-failed', code: 'clientdatasource-connection-failed', detail: expect.stringContaining('School Dashboard > Integrations > API Keys') });
    expect(body.detail).not.toContain('nope-token');
    gc.outage = true;
    const down = await test(SETTINGS);
    expect(down.status).toBe(502);
    expect(await down.json()).toMatchObject({ title: 'connection-error', code: 'processing-error' });
  });

  it('is listed as a source, with gifts and donors; no system is listed as connection test only', async () => {
    const { systems } = await (await send('/integrations/v1/systems')).json() as { systems: { system: string; does: string; support: string; objects: { name: string }[] }[] };
    const it = systems.find((s) => s.system === 'givecampus')!;
    expect(it).toMatchObject({ does: 'source', support: 'full' });
    expect(it.objects.map((o) => o.name)).toEqual(['gifts', 'donors']);
    expect(systems.filter((s) => s.does === 'connection test only' || s.support !== 'full')).toEqual([]);
  });
});

describe('a whole formula: GiveCampus gifts into the Sandbox CRM\'s constituents with their gifts', () => {
  it('a first run (a 429 in the middle), a later run reading only what changed, and a revoked token failing the run in words', async () => {
    gc.clear();
    gc.add(gift({ first: 'Britta', last: 'Perry', email: 'britta.gc@example.edu', value: '25.0', confirmed: day(1), designations: [{ name: 'Annual Fund', amount: '25.0' }] }));
    gc.add(gift({ first: 'Britta', last: 'Perry', email: 'britta.gc@example.edu', value: '40.0', confirmed: day(2) }));
    gc.add(gift({ first: 'Shirley', last: 'Bennett', email: 'shirley.gc@example.edu', value: '12.5', confirmed: day(3) }));
    const { send, admin, sourceId, crmId } = await connectedSource(server.url, 'givecampus', 'Greendale GiveCampus', SETTINGS);
    const crm = () => sandboxCrmStore(forTenant(server.database.db, admin.tenantId));
    const objects = await (await send(`/integrations/v1/data-sources/${sourceId}/objects`)).json() as { objects: { name: string }[] };
    expect(objects.objects.map((o) => o.name)).toEqual(['gifts', 'donors']);
    const fields = await (await send(`/integrations/v1/data-sources/${sourceId}/objects/gifts/fields`)).json() as { fields: { name: string; type: string }[] };
    expect(fields.fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'amount', type: 'number' }), expect.objectContaining({ name: 'designations' })]));
    const id = await formulaBetween(send, { source: { dataSourceId: sourceId, object: 'gifts' }, destination: { dataSourceId: crmId, object: 'constituents' } }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'firstName', kind: 'source', source: 'first_name' }, { destination: 'lastName', kind: 'source', source: 'last_name' },
        { destination: 'email', kind: 'source', source: 'email' },
      ] },
      matching: { scenarios: [{ name: 'Donor', criteria: [{ source: 'email', destination: 'email' }], matchReason: 'Same donor', isPrimary: true }], advanced: false, autoPick: [] },
      gift: { fields: [{ destination: 'amount', kind: 'source', source: 'amount' }, { destination: 'date', kind: 'source', source: 'date' }] },
    });
    const giftsOf = async (email: string) => {
      const found = await crm().search('constituents', { criteria: [{ field: 'email', value: email }] });
      expect(found, email).toHaveLength(1);
      return (await crm().search('gifts', { criteria: [{ field: 'constituentId', value: found[0]!.id }] })).map((g) => g.fields);
    };

    gc.throttle(1);
    const first = await runToEnd(send, id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, gifts: 3 });
    expect(await giftsOf('britta.gc@example.edu')).toEqual(expect.arrayContaining([
      expect.objectContaining({ amount: '25.00', date: '2026-03-01' }), expect.objectContaining({ amount: '40.00', date: '2026-03-02' }),
    ]));
    expect(await giftsOf('shirley.gc@example.edu')).toEqual([expect.objectContaining({ amount: '12.50', date: '2026-03-03' })]);

    gc.seen.length = 0;
    gc.add(gift({ first: 'Shirley', last: 'Bennett', email: 'shirley.gc@example.edu', value: '7.0', confirmed: day(5) }));
    const second = await runToEnd(send, id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // from the watermark on: the new gift (the watermark's own gift, read again, is no new record)
    expect(giftCalls()[0]!.query.get('start_date')).toBe('2026-03-03T11:59:59Z');
    expect(second.counts).toMatchObject({ collected: 1, gifts: 1 });
    expect(await giftsOf('shirley.gc@example.edu')).toHaveLength(2);
    expect(await giftsOf('britta.gc@example.edu')).toHaveLength(2);

    gc.revoke();
    const third = await runToEnd(send, id);
    expect(third.status).toBe('errored');
    expect(third.error).toMatch(REFUSED);
  }, 120_000);
});
