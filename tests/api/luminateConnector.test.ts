/**
 * Luminate Online as a source and a destination through the connector kit, against the local fake
 * (tests/support/vendors/luminateOnline.ts), one test server for the file:
 * - contract: server calls posted as a form with api_key, v=1.0, response_format=json and the API
 *   administrator's login in the body; a bad login refused; constituents and donations changed
 *   since the watermark, paged (list_page_size, list_page_offset), a 429 and a 503 in the middle
 *   waited out; the fields listUserFields describes, custom ones included; search by e-mail or
 *   cons_id only; createOrUpdate by cons_id or e-mail, opt-in sent only when mapped, a refusal in
 *   Luminate's words;
 * - whole formulas: Luminate constituents → Sandbox CRM (first run, a later run with only the
 *   changes), and a dropped file → Luminate constituents (the known one updated and still opted
 *   out, the new one created, the refused one in Exceptions with Luminate's words).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { luminateOnlineConnector as lo } from '../../server/connectors/luminateOnline/connector.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { call } from '../support/api.ts';
import { pullAll } from '../support/connectorContext.ts';
import { AUTOSENDING_PARTS, dropCsv, formulaBetween, runToEnd, tenantSession, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { LUMINATE_SETTINGS, startFakeLuminate, type FakeLuminate } from '../support/vendors/luminateOnline.ts';

const URL_ = 'https://secure2.convio.net/riverside/site';
let fake: FakeLuminate;
let vendor: VendorFakeWithServer<FakeLuminate>;
let server: TestServer;

beforeAll(async () => {
  vendor = await withVendorFake('luminate-online', startFakeLuminate, { server: { work: true, env: { RUN_SLICE_MS: '100000' } } });
  ({ fake, server } = vendor);
}, 120_000);
afterAll(async () => {
  await vendor?.close();
});

const ctx = (more: Record<string, string> = {}): ConnectorContext => ({ tenant: {} as ConnectorContext['tenant'], settings: { url: URL_, ...LUMINATE_SETTINGS, ...more }, dataDir: '/tmp' });
const calls = (method: string) => fake.seen.filter((s) => s.method === method);

describe('the Luminate Online connector', () => {
  beforeEach(() => fake.clear());

  it('signs in with the API key and the API administrator\'s login in the form body; a bad login refused', async () => {
    await expect(lo.test(ctx())).resolves.toEqual({ detail: 'Signed in to Luminate Online as the API administrator.' });
    const [seen] = calls('listUserFields');
    expect(seen!.servlet).toBe('SRConsAPI');
    expect(Object.fromEntries(seen!.params)).toMatchObject({ v: '1.0', response_format: 'json', api_key: LUMINATE_SETTINGS.apiKey, login_name: LUMINATE_SETTINGS.loginName, login_password: LUMINATE_SETTINGS.loginPassword });
    expect([...seen!.query.keys()]).toEqual([]);
    const bad = await lo.test(ctx({ loginPassword: 'nope' })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConnectionProblem);
    expect(bad).toMatchObject({ code: 'clientdatasource-connection-failed' });
    expect((bad as Error).message).toBe('Luminate Online refused the API key or login (error 3: authorization failed: the API administrator\'s login is wrong or lacks the permission).');
    await expect(lo.test(ctx({ apiKey: 'nope' }))).rejects.toThrow('Luminate Online refused the API key or login (error 2: incorrect API key).');
    // the site's address is typed by a user: what it answered is not repeated
    expect((bad as Error).message).not.toContain('Login failed');
  });

  it('lists constituents and donations, and the fields listUserFields describes, custom ones included; opt-in said to be written only when mapped', async () => {
    expect((await lo.listObjects(ctx())).map((o) => o.name)).toEqual(['constituents', 'donations']);
    const fields = await lo.describeFields(ctx(), 'constituents');
    expect(fields).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'email.primary_address', type: 'email', searchable: true }), expect.objectContaining({ name: 'custom_string1', label: 'Chapter' }),
      expect.objectContaining({ name: 'name.last', required: true }), expect.objectContaining({ name: 'cons_id', readOnly: true }),
    ]));
    expect(fields.find((f) => f.name === 'email.accepts_email')!.label).toMatch(/written only when mapped/);
    expect((await lo.describeFields(ctx(), 'donations')).map((f) => f.name)).toEqual(expect.arrayContaining(['amount', 'date', 'donor.cons_id', 'donor.email']));
    await expect(lo.describeFields(ctx(), 'surveys')).rejects.toThrow(/surveys is not one of them yet/);
  });

  it('constituents changed since the watermark, a page at a time, a 429 and a 503 in the middle waited out; the watermark moves to the latest only at the end', async () => {
    const users = [0, 1, 2, 3, 4].map((i) => fake.user({ first: `Ada${i}`, last: 'Lovelace', email: `ada${i}@example.org`, city: 'London', custom: i === 0 ? 'North' : undefined }));
    const pages = lo.pull(ctx(), 'constituents', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const first = await pages.next();
    fake.throttle(1, 429);
    const second = await pages.next();
    fake.throttle(1, 503);
    const third = await pages.next();
    expect((await pages.next()).done).toBe(true);
    const records = [first, second, third].flatMap((p) => p.value!.records);
    expect(records.map((r) => r.id)).toEqual(users.map((u) => u.cons_id));
    expect(records[0]!.fields).toMatchObject({ cons_id: users[0]!.cons_id, 'name.first': 'Ada0', 'name.last': 'Lovelace', 'email.primary_address': 'ada0@example.org', 'email.accepts_email': true, 'primary_address.city': 'London', custom_string1: 'North' });
    expect(records[0]!.fields.modify_date).toBe('2026-03-01T12:01:00.000Z');
    const listed = calls('getUserChanges');
    expect(listed.map((c) => [c.params.get('list_page_size'), c.params.get('list_page_offset')])).toEqual([['2', '0'], ['2', '1'], ['2', '1'], ['2', '2'], ['2', '2']]);
    expect(listed[0]!.params.get('modify_start_date')).toBeNull();
    expect(listed[0]!.params.get('list_sort_column')).toBe('modify_date');
    expect(JSON.parse(first.value!.watermark!)).toEqual({ since: null, next: '2', latest: '2026-03-01T12:02:00.000Z' });
    const watermark = third.value!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-03-01T12:05:00.000Z', next: null, latest: null });

    fake.seen.length = 0;
    fake.edit(users[1]!.cons_id, { 'name.first': 'Augusta' });
    const again = (await pullAll(lo.pull(ctx(), 'constituents', watermark, {}))).flatMap((b) => b.records);
    // the watermark's own minute is read again, harmlessly, with what changed after it
    expect(again.map((r) => [r.id, r.fields['name.first']])).toEqual([[users[4]!.cons_id, 'Ada4'], [users[1]!.cons_id, 'Augusta']]);
    expect(calls('getUserChanges')[0]!.params.get('modify_start_date')).toBe('2026-03-01T12:05:00Z');
  });

  it('donations with their donor; a run once reads only its window', async () => {
    const ada = fake.user({ first: 'Ada', last: 'Lovelace', email: 'ada@example.org' });
    fake.donation(ada.cons_id, 25);
    const d2 = fake.donation(ada.cons_id, 40.5);
    fake.donation(ada.cons_id, 10);
    const all = (await pullAll(lo.pull(ctx(), 'donations', null, {}))).flatMap((b) => b.records);
    expect(all).toHaveLength(3);
    expect(all[1]).toEqual({ id: d2.transaction_id, fields: expect.objectContaining({ amount: 40.5, date: '2026-03-01', 'donor.cons_id': ada.cons_id, 'donor.name.first': 'Ada', 'donor.email': 'ada@example.org', form_name: 'Spring appeal' }) });
    expect(calls('getDonations')[0]!.servlet).toBe('SRDonationAPI');
    fake.seen.length = 0;
    const window = { from: new Date(Date.parse(String(d2.modify_date))), to: new Date(Date.parse(String(d2.modify_date)) + 30_000) };
    const got = (await pullAll(lo.pull(ctx(), 'donations', null, { window }))).flatMap((b) => b.records);
    expect(got.map((r) => r.id)).toEqual([d2.transaction_id]);
    expect(calls('getDonations')[0]!.params.get('modify_end_date')).toBe(window.to.toISOString().replace('.000Z', 'Z'));
  });

  it('finds constituents by e-mail or cons_id only; writes by cons_id or e-mail, opt-in only when mapped, a refusal in Luminate\'s words', async () => {
    const out = fake.user({ first: 'Out', last: 'Opted', email: 'out@example.org', optIn: false });
    expect(await lo.search(ctx(), 'constituents', { criteria: [{ field: 'email.primary_address', value: 'OUT@example.org' }] })).toEqual([expect.objectContaining({ id: out.cons_id })]);
    expect(await lo.search(ctx(), 'constituents', { criteria: [{ field: 'cons_id', value: out.cons_id }] })).toHaveLength(1);
    expect(await lo.search(ctx(), 'constituents', { criteria: [{ field: 'email.primary_address', value: 'nobody@example.org' }] })).toEqual([]);
    expect(await lo.matchingProblem!(ctx(), 'constituents', [{ name: 'Name', fields: ['name.first', 'name.last'] }])).toMatch(/finds constituents by e-mail address only: the scenario "Name"/);
    expect(await lo.matchingProblem!(ctx(), 'constituents', [{ name: 'E-mail', fields: ['email.primary_address'] }])).toBeNull();

    const results = await lo.upsert(ctx(), 'constituents', [
      { idempotencyKey: 'k1', id: out.cons_id, fields: { 'email.primary_address': 'out@example.org', 'name.last': 'Again', custom_string1: 'South' } },
      { idempotencyKey: 'k2', fields: { 'email.primary_address': 'new@example.org', 'name.first': 'New', 'name.last': 'Joiner', 'email.accepts_email': true } },
      { idempotencyKey: 'k3', fields: { 'email.primary_address': 'bad@@example', 'name.last': 'Bad' } },
    ]);
    expect(results.map((r) => [r.outcome, r.error])).toEqual([['updated', undefined], ['created', undefined], ['failed', 'Luminate Online refused the constituent: Invalid email address: bad@@example (error 1)']]);
    expect(fake.users.get(out.cons_id)).toMatchObject({ name: { last: 'Again' }, email: { accepts_email: false }, custom: { string: [{ id: 'custom_string1', content: 'South' }] } });
    const updates = calls('createOrUpdate');
    expect(updates[0]!.params.get('cons_id')).toBe(out.cons_id);
    expect(updates[0]!.params.has('email.accepts_email')).toBe(false);
    expect(updates[1]!.params.get('primary_email')).toBe('new@example.org');
    expect(updates[1]!.params.get('email.accepts_email')).toBe('true');
  });
});

describe('whole formulas through Luminate Online', () => {
  const DS = '/integrations/v1/data-sources';
  let admin: TenantSession;
  let luminate: string;
  let crm: string;
  const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
  const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
  const crmHas = async (email: string) => sandboxCrmStore(forTenant(server.database.db, admin.tenantId)).search('constituents', { criteria: [{ field: 'email', value: email }] });

  beforeAll(async () => {
    fake.clear();
    admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
    const made = await send(DS, { method: 'POST', body: { system: 'luminate-online', displayName: 'Riverside Luminate', settings: { url: URL_, ...LUMINATE_SETTINGS } } });
    expect(made.status, await made.clone().text()).toBe(201);
    luminate = (await json<{ id: string }>(made)).id;
    crm = (await json<{ dataSources: { id: string; system: string }[] }>(await send(DS))).dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  }, 60_000);

  it('constituents into the Sandbox CRM: everyone on the first run (a 429 waited out), only the changes on a later run', async () => {
    expect(await json(await send(`${DS}/${luminate}/test`, { method: 'POST' }))).toMatchObject({ status: 'success' });
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.find((s) => s.system === 'luminate-online')?.does).toBe('source and destination');
    expect((await json<{ objects: { name: string }[] }>(await send(`${DS}/${luminate}/objects`))).objects.map((o) => o.name)).toEqual(['constituents', 'donations']);
    const { fields } = await json<{ fields: { name: string; label: string }[] }>(await send(`${DS}/${luminate}/objects/constituents/fields`));
    expect(fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'custom_string1', label: 'Chapter' }), expect.objectContaining({ name: 'email.primary_address' })]));
    const people = [0, 1, 2].map((i) => fake.user({ first: `Lum${i}`, last: 'Tributary', email: `lum${i}@example.org`, city: 'Riverside' }));
    const id = await formulaBetween(send, { source: { dataSourceId: luminate, object: 'constituents' }, destination: { dataSourceId: crm, object: 'constituents' } }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'firstName', kind: 'source', source: 'name.first' }, { destination: 'lastName', kind: 'source', source: 'name.last' },
        { destination: 'email', kind: 'source', source: 'email.primary_address' }, { destination: 'city', kind: 'source', source: 'primary_address.city' },
      ] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'email.primary_address', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    });
    fake.throttle(1);
    const first = await runToEnd(send, id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, created: 3 });
    expect((await crmHas('lum1@example.org'))[0]!.fields).toMatchObject({ firstName: 'Lum1', lastName: 'Tributary' });

    fake.seen.length = 0;
    // moved house in Luminate: the same person, a new city
    fake.edit(people[0]!.cons_id, { 'primary_address.city': 'Lakeside' });
    const second = await runToEnd(send, id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // only what changed since the first run's latest (its own minute is asked again; unchanged, it is not collected twice)
    expect(second.counts.collected).toBe(1);
    expect(calls('getUserChanges')[0]!.params.get('modify_start_date')).toBe(new Date(Date.parse(people[2]!.modify_date)).toISOString().replace('.000Z', 'Z'));
    const changed = await crmHas('lum0@example.org');
    expect(changed).toHaveLength(1);
    expect(changed[0]!.fields).toMatchObject({ firstName: 'Lum0', city: 'Lakeside' });
  }, 120_000);

  it('a create is never doubled: the same key again writes nothing, and a key left under way by a crash finds the constituent by e-mail first', async () => {
    const saved: ConnectorContext = { tenant: forTenant(server.database.db, admin.tenantId), settings: { url: URL_, ...LUMINATE_SETTINGS }, dataSourceId: luminate, dataDir: '/tmp' };
    const item = { idempotencyKey: 'lo-once-1', fields: { 'email.primary_address': 'once.lo@example.org', 'name.last': 'Once' } };
    const [first] = await lo.upsert(saved, 'constituents', [item]);
    expect(first).toMatchObject({ outcome: 'created', replayed: false });
    fake.seen.length = 0;
    const [again] = await lo.upsert(saved, 'constituents', [item]);
    expect(again).toMatchObject({ id: first!.id, outcome: 'created', replayed: true });
    expect(calls('createOrUpdate')).toEqual([]);
    // the first try of another key was recorded as under way, Luminate created, and the worker died before our record
    const made = fake.user({ last: 'Crashed', email: 'crash.lo@example.org' });
    await saved.tenant.vendorState.beginWrite(luminate, 'constituents', 'lo-once-2');
    const [retry] = await lo.upsert(saved, 'constituents', [{ idempotencyKey: 'lo-once-2', fields: { 'email.primary_address': 'crash.lo@example.org', 'name.last': 'Crashed' } }]);
    expect(retry).toMatchObject({ id: made.cons_id, replayed: true });
    expect(calls('createOrUpdate')).toEqual([]);
    expect([...fake.users.values()].filter((u) => (u.email as { primary_address: string }).primary_address === 'once.lo@example.org')).toHaveLength(1);
  });

  it('a dropped file into Luminate constituents: the known one updated and still opted out, the new one created, the refused one in Exceptions with Luminate\'s words', async () => {
    const flatMade = await send(DS, { method: 'POST', body: { system: 'flat-file', displayName: 'Luminate drop', settings: { folder: 'luminate-in' } } });
    expect(flatMade.status, await flatMade.clone().text()).toBe(201);
    const flat = (await json<{ id: string }>(flatMade)).id;
    const known = fake.user({ first: 'Known', last: 'Before', email: 'known.lo@example.org', optIn: false });
    // a scenario Luminate cannot search is refused when saved, with the reason
    const refusedMatching = await formulaBetween(send, { source: { dataSourceId: flat, object: 'lo-*.csv' }, destination: { dataSourceId: luminate, object: 'constituents' } }, { mapping: AUTOSENDING_PARTS.mapping }, false);
    const badScenario = await send(`/web-api/v1/formulas/${refusedMatching}/parts/matching`, { method: 'PUT', body: { scenarios: [{ name: 'Name', criteria: [{ source: 'Last', destination: 'name.last' }], matchReason: 'Same name', isPrimary: true }], advanced: false, autoPick: [] } });
    expect(badScenario.status).toBe(400);
    expect(await badScenario.json()).toMatchObject({ code: 'validation-failed', detail: 'Luminate Online finds constituents by e-mail address only: the scenario "Name" compares name.last. Add the e-mail address to it.' });

    const id = await formulaBetween(send, { source: { dataSourceId: flat, object: 'lo-*.csv' }, destination: { dataSourceId: luminate, object: 'constituents' } }, {
      ...AUTOSENDING_PARTS,
      mapping: { fields: [
        { destination: 'email.primary_address', kind: 'source', source: 'Email' }, { destination: 'name.first', kind: 'source', source: 'First' },
        { destination: 'name.last', kind: 'source', source: 'Last' },
      ] },
      'summary-fields': { fields: ['email.primary_address', 'name.last'] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email.primary_address' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    }, false);
    dropCsv(server.config.dataDir, admin.tenantId, 'luminate-in', 'lo-1.csv', [['Email', 'First', 'Last'], ['KNOWN.lo@example.org', 'Known', 'After'], ['joiner.lo@example.org', 'Joiner', 'New'], ['bad@@example', 'Bad', 'Address']]);
    // a dry run searches Luminate and writes nothing
    const dry = await send(`/web-api/v1/formulas/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 2, update: 1 });
    expect(calls('createOrUpdate')).toEqual([]);
    expect(calls('getUser').length).toBeGreaterThan(0);
    const activated = await send(`/web-api/v1/formulas/${id}/activate`, { method: 'POST' });
    expect(activated.status, await activated.clone().text()).toBe(200);
    const done = await runToEnd(send, id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 1, updated: 1 });
    expect(fake.users.get(known.cons_id)).toMatchObject({ name: { first: 'Known', last: 'After' }, email: { accepts_email: false } });
    const joiner = [...fake.users.values()].filter((u) => (u.email as { primary_address: string }).primary_address === 'joiner.lo@example.org');
    expect(joiner).toHaveLength(1);
    expect(calls('createOrUpdate').every((c) => !c.params.has('email.accepts_email'))).toBe(true);
    const rows = (await server.database.pool.query<{ state: string; bucket: string | null; error_reason: string | null }>(
      'select state, bucket, error_reason from records where formula_id = $1 order by state', [id])).rows;
    expect(rows.map((r) => r.state)).toEqual(['failed', 'sent', 'sent']);
    expect(rows[0]).toMatchObject({ bucket: 'exception', error_reason: 'Luminate Online refused the constituent: Invalid email address: bad@@example (error 1)' });
  }, 120_000);
});
