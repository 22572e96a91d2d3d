/**
 * Constant Contact, Emma and Pardot (Account Engagement) through the connector kit, against their
 * local fakes (tests/support/vendors/constantContact.ts, emma.ts, pardot.ts): our requests as each
 * vendor documents them (Constant Contact's rotating OAuth grant, `updated_after` and cursor links,
 * sign_up_form; Emma's HTTP Basic under the account's path, `start`/`end`, members/add; Pardot's
 * business unit header, `fields=`, `updatedAtAfterOrEqualTo` and `nextPageUrl`,
 * upsertLatestByEmail) and their documented answers parsed (pages, fields, error bodies), a 429 in
 * the middle, an expired token, and consent: nobody unsubscribed is subscribed again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConnectorContext, PullBatch, UpsertItem } from '../../server/connectors/connector.ts';
import { CONSTANT_CONTACT_BULK_FROM, constantContactConnector } from '../../server/connectors/constantContact/connector.ts';
import { EMMA_BULK_FROM, emmaConnector, emmaDate } from '../../server/connectors/emma/connector.ts';
import type { AccessToken, GrantStore } from '../../server/connectors/kit/grant.ts';
import { GrantRevoked, QuotaExhausted } from '../../server/connectors/kit/problems.ts';
import { authorizeUrl, exchangeCode } from '../../server/connectors/oauth/flow.ts';
import { pardotConnector } from '../../server/connectors/pardot/connector.ts';
import { OAUTH_VENDORS } from '../../src/domain/connectors/oauth.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { CC_APP, CC_LIST, startFakeConstantContact, type FakeConstantContact } from '../support/vendors/constantContact.ts';
import { EMMA_ACCOUNT, EMMA_GROUP, EMMA_KEYS, startFakeEmma, type FakeEmma } from '../support/vendors/emma.ts';
import { PARDOT_REFRESH_TOKEN, PARDOT_SETTINGS, startFakePardot, type FakePardot } from '../support/vendors/pardot.ts';
import { pullAll } from '../support/connectorContext.ts';

let ccVendor: VendorFakeSetup<FakeConstantContact>;
let emmaVendor: VendorFakeSetup<FakeEmma>;
let piVendor: VendorFakeSetup<FakePardot>;
let cc: FakeConstantContact;
let em: FakeEmma;
let pi: FakePardot;

beforeAll(async () => {
  [ccVendor, emmaVendor, piVendor] = await Promise.all([
    withVendorFake('constant-contact', startFakeConstantContact), withVendorFake('emma', startFakeEmma), withVendorFake('pardot', startFakePardot),
  ]);
  ({ fake: cc } = ccVendor);
  ({ fake: em } = emmaVendor);
  ({ fake: pi } = piVendor);
});
afterAll(async () => {
  await Promise.all([ccVendor?.close(), emmaVendor?.close(), piVendor?.close()]);
});

/**
 * A saved data source's grant, kept in memory: the settings with the refresh token as it is now,
 * the access token saved last, and whether the data source was marked as needing reconnecting.
 * (The real store, in PostgreSQL under an advisory lock, is the kit's and is tested with it.)
 */
function memoryGrant(settings: Record<string, string>) {
  const state = { settings: { ...settings }, token: null as AccessToken | null, reconnect: null as string | null };
  const store: GrantStore = {
    saved: async () => state.token,
    async refresh(fresh, refresh) {
      const good = fresh(state.settings, state.token);
      if (good) return { token: good, settings: state.settings };
      const outcome = await refresh(state.settings);
      state.settings = { ...state.settings, ...outcome.rotated };
      state.token = outcome.token;
      return { token: outcome.token, settings: state.settings };
    },
    async needsReconnecting(reason) { state.reconnect = reason; },
  };
  return { state, store };
}
const ctxWith = (settings: Record<string, string>, endSettings: Record<string, string> = {}, grant?: GrantStore): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings, dataDir: '/tmp', endSettings, ...(grant ? { grant, dataSourceId: 'ds-under-test' } : {}) });
const all = pullAll;

describe('Constant Contact', () => {
  let grant: ReturnType<typeof memoryGrant>;
  const ctx = (endSettings: Record<string, string> = { listId: CC_LIST }) => ctxWith(grant.state.settings, endSettings, grant.store);
  const api = () => cc.seen.filter((s) => s.path.startsWith('/v3/'));
  beforeEach(() => {
    cc.seen.length = 0;
    cc.contacts.clear();
    grant = memoryGrant({ clientId: CC_APP.clientId, clientSecret: CC_APP.clientSecret, refreshToken: cc.grant() });
  });

  it('connects through its consent page with PKCE: the code exchanged (HTTP Basic app credentials, the verifier) for the refresh token kept', async () => {
    const vendor = OAUTH_VENDORS['constant-contact']!;
    const redirectUri = 'https://tributary.example/integrations/oauth/callback';
    const codeVerifier = 'v'.repeat(43);
    const consent = new URL(authorizeUrl(vendor, {}, { clientId: CC_APP.clientId, redirectUri, state: 'st-1', codeVerifier }));
    expect(consent.pathname).toBe('/oauth2/default/v1/authorize');
    expect(consent.searchParams.get('scope')).toBe('account_read contact_data offline_access');
    const back = new URL(cc.authorize(consent.searchParams));
    expect(back.searchParams.get('state')).toBe('st-1');
    const granted = await exchangeCode(vendor, {}, CC_APP, { code: back.searchParams.get('code')!, redirectUri, codeVerifier });
    expect(granted.grant).toBe(cc.grant());
    // a code is good once
    await expect(exchangeCode(vendor, {}, CC_APP, { code: back.searchParams.get('code')!, redirectUri, codeVerifier })).rejects.toThrow('the authorization was not valid any more (invalid_grant)');
  });

  it('signs in with the refresh token (HTTP Basic app credentials) and keeps the rotated one; a grant no longer good needs reconnecting', async () => {
    const before = grant.state.settings.refreshToken;
    const tested = await constantContactConnector.test(ctxWith({ ...grant.state.settings }));
    expect(tested.detail).toBe('Signed in to Constant Contact for Riverside Youth Arts.');
    // tested before saving: the rotated token is handed back to be saved
    expect(tested.updatedSecrets).toEqual({ refreshToken: cc.grant() });
    const token = cc.seen.find((s) => s.path === '/oauth2/default/v1/token')!;
    expect(Buffer.from(token.headers.authorization!.slice(6), 'base64').toString()).toBe(`${CC_APP.clientId}:${CC_APP.clientSecret}`);
    expect(new URLSearchParams(String(token.body))).toEqual(new URLSearchParams({ grant_type: 'refresh_token', refresh_token: before! }));

    // the saved grant now holds an old token: refused, and the data source needs reconnecting
    const error = await constantContactConnector.describeFields(ctx(), 'contacts').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrantRevoked);
    expect(grant.state.reconnect).toMatch(/^Constant Contact no longer accepts this connection's sign-in/);
  });

  it('contacts updated after the watermark, with lists and custom fields, through the cursor links; a 429 and an expired token in the middle', async () => {
    for (let i = 0; i < 5; i++) cc.add({ email: `c${i}@example.org`, first: `C${i}`, last: 'Contact', volunteer: i === 0 ? 'Gardening' : undefined, updatedAt: new Date(Date.UTC(2026, 0, 10, 9, i)) });
    const fields = await constantContactConnector.describeFields(ctx(), 'contacts');
    expect(fields.find((f) => f.name === 'custom.volunteer_interest')).toMatchObject({ label: 'Volunteer interest' });
    expect(fields.find((f) => f.name === 'permission_to_send')).toMatchObject({ readOnly: true });
    const refreshes = cc.refreshes();
    const pull = constantContactConnector.pull(ctx(), 'contacts', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const first = await pull.next();
    cc.throttle(1);
    cc.expireTokens();
    const batches: PullBatch[] = [first.value as PullBatch];
    for (let b = await pull.next(); !b.done; b = await pull.next()) batches.push(b.value);
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => r.fields.email_address).sort()).toEqual([0, 1, 2, 3, 4].map((i) => `c${i}@example.org`));
    expect(records.find((r) => r.fields.email_address === 'c0@example.org')!.fields).toMatchObject({
      first_name: 'C0', 'custom.volunteer_interest': 'Gardening', list_memberships: CC_LIST, permission_to_send: 'implicit',
    });
    // refreshed once after it expired, the rotated refresh token kept
    expect(cc.refreshes()).toBe(refreshes + 1);
    expect(grant.state.settings.refreshToken).toBe(cc.grant());
    const lists = api().filter((s) => s.path === '/v3/contacts');
    expect(lists[0]!.query).toMatchObject({ status: 'all', limit: '2', include: 'custom_fields,list_memberships,phone_numbers,street_addresses' });
    expect(lists[0]!.query.updated_after).toBeUndefined();
    expect(lists.slice(1).every((l) => l.query.cursor)).toBe(true);
    // mid-pull the watermark keeps its filter and cursor; at the end it is the latest change seen
    expect(JSON.parse(batches[0]!.watermark!)).toMatchObject({ since: null, next: expect.stringMatching(/^\/v3\/contacts\?cursor=/) });
    const watermark = batches.at(-1)!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-01-10T09:04:00.000Z', next: null, latest: null });

    cc.seen.length = 0;
    cc.add({ email: 'later@example.org', updatedAt: new Date(Date.UTC(2026, 0, 10, 10)) });
    const again = (await all(constantContactConnector.pull(ctx(), 'contacts', watermark))).flatMap((b) => b.records);
    expect(again.map((r) => r.fields.email_address)).toEqual(['later@example.org']);
    expect(api().find((s) => s.path === '/v3/contacts')!.query.updated_after).toBe('2026-01-10T09:04:00.000Z');
  });

  it('finds contacts by e-mail; writes a new one through sign_up_form into the list, and one who unsubscribed with PUT, consent untouched; refusals in its words', async () => {
    const left = cc.add({ email: 'left@example.org', first: 'Left', permission: 'unsubscribed', volunteer: 'Events' });
    const [found, none] = await constantContactConnector.searchMany!(ctx(), 'contacts', [
      { criteria: [{ field: 'email_address', value: 'LEFT@example.org' }, { field: 'first_name', value: 'left' }] },
      { criteria: [{ field: 'email_address', value: 'nobody@example.org' }] },
    ]);
    expect(found!.map((r) => r.id)).toEqual([left.contact_id]);
    expect(none).toEqual([]);
    expect(api().filter((s) => s.path === '/v3/contacts').map((s) => s.query.email)).toEqual(['LEFT@example.org', 'nobody@example.org']);
    await expect(constantContactConnector.matchingProblem!(ctx(), 'contacts', [{ name: 'Name', fields: ['first_name', 'last_name'] }]))
      .resolves.toBe('Constant Contact finds contacts by e-mail address only: the scenario "Name" compares first_name, last_name. Add the e-mail address to it.');

    cc.seen.length = 0;
    const results = await constantContactConnector.upsert(ctx(), 'contacts', [
      { idempotencyKey: 'n', fields: { email_address: 'new@example.org', first_name: 'New', phone_number: '503-555-0101', 'street_address.city': 'Portland', 'custom.volunteer_interest': 'Tutoring' } },
      { idempotencyKey: 'l', id: left.contact_id, fields: { email_address: 'left@example.org', last_name: 'Still left' } },
      // not matched by the scenario, yet there: updated, not signed up
      { idempotencyKey: 'l2', fields: { email_address: 'Left@Example.org', job_title: 'Volunteer' } },
      { idempotencyKey: 'bad', fields: { email_address: 'bad@@example', first_name: 'Bad' } },
    ]);
    expect(results.map((r) => [r.idempotencyKey, r.outcome])).toEqual([['n', 'created'], ['l', 'updated'], ['l2', 'updated'], ['bad', 'failed']]);
    expect(results[3]!.error).toBe('Constant Contact refused the contact: Email address bad@@example is invalid.');
    const made = [...cc.contacts.values()].find((c) => c.email_address.address === 'new@example.org')!;
    expect(made).toMatchObject({ first_name: 'New', list_memberships: [CC_LIST], phone_numbers: [{ phone_number: '503-555-0101' }], street_addresses: [expect.objectContaining({ city: 'Portland' })] });
    expect(made.custom_fields).toEqual([{ custom_field_id: cc.customFields[0]!.custom_field_id, value: 'Tutoring' }]);
    // the one who unsubscribed: still unsubscribed, the rest kept and changed
    expect(cc.contacts.get(left.contact_id)).toMatchObject({
      email_address: { address: 'left@example.org', permission_to_send: 'unsubscribed' }, first_name: 'Left', last_name: 'Still left', job_title: 'Volunteer',
      custom_fields: [expect.objectContaining({ value: 'Events' })], list_memberships: [CC_LIST],
    });
    const signUps = cc.seen.filter((s) => s.path === '/v3/contacts/sign_up_form');
    expect(signUps.map((s) => (s.body as { email_address: string }).email_address)).toEqual(['new@example.org', 'bad@@example']);
    expect(signUps[0]!.body).toMatchObject({ list_memberships: [CC_LIST] });
    expect(cc.seen.filter((s) => s.method === 'PUT').every((s) => (s.body as { update_source?: string }).update_source === 'Account')).toBe(true);
    // a new contact without a list to join is a setting to choose, said in words
    await expect(constantContactConnector.upsert(ctx({}), 'contacts', [{ idempotencyKey: 'x', fields: { email_address: 'another@example.org' } }]))
      .rejects.toThrow("Choose the Constant Contact list new contacts join (its contact list ID) in the formula's destination settings.");
  });

  it('a large send of new contacts goes as one JSON import into the list, looked at until completed, the ids read back by updated_after; matched contacts and any address that unsubscribed stay on PUT; a refused address fails alone', async () => {
    const left = cc.add({ email: 'left.bulk@example.org', first: 'Left', permission: 'unsubscribed' });
    const known = cc.add({ email: 'known.bulk@example.org', first: 'Known', volunteer: 'Events' });
    const knownLists = [...(known.list_memberships ?? [])];
    cc.seen.length = 0;
    const items: UpsertItem[] = Array.from({ length: CONSTANT_CONTACT_BULK_FROM + 500 }, (_, i) => ({ idempotencyKey: `k${i}`, fields: { email_address: `bulk${i}@example.org`, first_name: `Bulk ${i}` } }));
    items[0]!.fields = { email_address: 'bulk0@example.org', first_name: 'Bulk 0', phone_number: '503-555-0100', 'street_address.city': 'Portland', 'street_address.postal_code': '97201', 'custom.volunteer_interest': 'Tutoring' };
    items.push({ idempotencyKey: 'known', id: known.contact_id, fields: { email_address: 'known.bulk@example.org', last_name: 'Known' } });
    // not matched by the engine, but its address is one that unsubscribed
    items.push({ idempotencyKey: 'left', fields: { email_address: 'left.bulk@example.org', last_name: 'Still left' } });
    items.push({ idempotencyKey: 'bad', fields: { email_address: 'bad@@example', first_name: 'Bad' } });
    items.push({ idempotencyKey: 'odd', fields: { email_address: 'odd@example.org', shoe_size: '9' } });
    const results = await constantContactConnector.upsert(ctx(), 'contacts', items);

    // one import, into the destination list, with the contacts as the import documents them
    const posted = api().filter((s) => s.path === '/v3/activities/contacts_json_import');
    expect(posted).toHaveLength(1);
    const sent = posted[0]!.body as { import_data: Record<string, string>[]; list_ids: string[] };
    expect(sent.list_ids).toEqual([CC_LIST]);
    expect(sent.import_data).toHaveLength(CONSTANT_CONTACT_BULK_FROM + 500 + 1);
    expect(sent.import_data[0]).toEqual({ email: 'bulk0@example.org', first_name: 'Bulk 0', phone: '503-555-0100', home_city: 'Portland', home_zip: '97201', 'cf:volunteer_interest': 'Tutoring' });
    expect(sent.import_data.map((r) => r.email)).not.toContain('left.bulk@example.org');
    expect(sent.import_data.map((r) => r.email)).not.toContain('known.bulk@example.org');
    // looked at until completed, then the contacts changed since read 500 a page
    expect(api().filter((s) => s.path.startsWith('/v3/activities/') && s.method === 'GET')).toHaveLength(2);
    const listed = api().filter((s) => s.path === '/v3/contacts' && s.method === 'GET');
    expect(listed.filter((s) => s.query.status === 'unsubscribed')).toHaveLength(1);
    const since = listed.find((s) => s.query.updated_after)!;
    expect(since.query).toMatchObject({ status: 'all', limit: '500' });
    expect(listed.filter((s) => s.query.cursor).length).toBeGreaterThanOrEqual(1);
    // the matched contact and the one who unsubscribed are written alone, their lists as they were; nobody signed up
    expect(api().filter((s) => s.path === '/v3/contacts/sign_up_form')).toHaveLength(0);
    expect(api().filter((s) => s.method === 'PUT').map((s) => s.path).sort()).toEqual([`/v3/contacts/${known.contact_id}`, `/v3/contacts/${left.contact_id}`].sort());

    const by = new Map(results.map((r) => [r.idempotencyKey, r]));
    expect(results).toHaveLength(items.length);
    const made = [...cc.contacts.values()].find((c) => c.email_address.address === 'bulk7@example.org')!;
    expect(by.get('k7')).toMatchObject({ outcome: 'created', id: made.contact_id });
    expect(made).toMatchObject({ first_name: 'Bulk 7', email_address: { permission_to_send: 'implicit' }, list_memberships: [CC_LIST] });
    const first = [...cc.contacts.values()].find((c) => c.email_address.address === 'bulk0@example.org')!;
    expect(by.get('k0')).toMatchObject({ outcome: 'created', id: first.contact_id });
    expect(first.custom_fields).toEqual([{ custom_field_id: cc.customFields[0]!.custom_field_id, value: 'Tutoring' }]);
    expect(by.get('known')).toMatchObject({ outcome: 'updated', id: known.contact_id });
    expect(cc.contacts.get(known.contact_id)).toMatchObject({ first_name: 'Known', last_name: 'Known', custom_fields: [expect.objectContaining({ value: 'Events' })] });
    expect(cc.contacts.get(known.contact_id)!.list_memberships).toEqual(knownLists);
    expect(by.get('left')).toMatchObject({ outcome: 'updated', id: left.contact_id });
    expect(cc.contacts.get(left.contact_id)).toMatchObject({ email_address: { permission_to_send: 'unsubscribed' }, last_name: 'Still left' });
    expect(by.get('bad')).toMatchObject({ outcome: 'failed', error: 'Constant Contact did not import the contact: Invalid email address: bad@@example.' });
    expect(by.get('odd')).toMatchObject({ outcome: 'failed', error: 'Constant Contact contacts have no field shoe_size.' });
    expect(results.filter((r) => r.outcome === 'created')).toHaveLength(CONSTANT_CONTACT_BULK_FROM + 500);
  });
});

describe('Emma', () => {
  const settings = { accountId: EMMA_ACCOUNT, ...EMMA_KEYS };
  const ctx = (endSettings: Record<string, string> = {}) => ctxWith(settings, endSettings);
  beforeEach(() => {
    em.seen.length = 0;
    em.members.clear();
  });

  it('HTTP Basic under the account\'s path; wrong keys and a wrong account refused in words; fields from /fields', async () => {
    await expect(emmaConnector.test(ctx())).resolves.toEqual({ detail: `Signed in to Emma account ${EMMA_ACCOUNT} (5 member fields).` });
    expect(em.seen[0]).toMatchObject({ method: 'GET', path: '/fields' });
    expect(Buffer.from(em.seen[0]!.headers.authorization!.slice(6), 'base64').toString()).toBe(`${EMMA_KEYS.publicApiKey}:${EMMA_KEYS.privateApiKey}`);
    await expect(emmaConnector.test(ctxWith({ ...settings, privateApiKey: 'nope' }))).rejects.toThrow('Emma refused the API keys (HTTP 401).');
    await expect(emmaConnector.test(ctxWith({ ...settings, accountId: '999' }))).rejects.toThrow('Emma has no account 999 for these keys.');
    const fields = await emmaConnector.describeFields(ctx(), 'members');
    expect(fields.find((f) => f.name === 'volunteer_hours')).toMatchObject({ label: 'Volunteer hours', type: 'number' });
    expect(fields.find((f) => f.name === 'email')).toMatchObject({ type: 'email', required: true, searchable: true });
    expect(fields.find((f) => f.name === 'status')).toMatchObject({ readOnly: true });
    expect(emmaDate('@D:2026-01-05T09:00:00')).toBe('2026-01-05T09:00:00.000Z');
  });

  it('members paged with start and end, those changed after the watermark kept; a 429 in the middle waited out', async () => {
    for (let i = 0; i < 5; i++) em.add({ email: `e${i}@example.org`, fields: { first_name: `E${i}` }, changedAt: new Date(Date.UTC(2026, 0, 10, 9, 4 - i)) });
    em.throttle(1);
    const batches = await all(emmaConnector.pull(ctx(), 'members', null, { batchSize: 2 }));
    expect(batches.flatMap((b) => b.records.map((r) => r.fields.email))).toEqual([0, 1, 2, 3, 4].map((i) => `e${i}@example.org`));
    expect(batches[0]!.records[0]!.fields).toMatchObject({ first_name: 'E0', status: 'active', last_modified_at: '2026-01-10T09:04:00.000Z' });
    const lists = em.seen.filter((s) => s.path === '/members');
    expect(lists.map((l) => [l.query.start, l.query.end])).toEqual([['0', '2'], ['0', '2'], ['2', '4'], ['4', '6']]);
    const watermark = batches.at(-1)!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-01-10T09:04:00.000Z', next: null, latest: null });
    em.add({ email: 'later@example.org', changedAt: new Date(Date.UTC(2026, 0, 10, 10)) });
    const again = (await all(emmaConnector.pull(ctx(), 'members', watermark))).flatMap((b) => b.records);
    expect(again.map((r) => r.fields.email)).toEqual(['later@example.org']);
  });

  it('finds a member by e-mail; members/add creates or updates, never the status of one who opted out; refusals in Emma\'s words', async () => {
    const out = em.add({ email: 'out@example.org', status: 'opt-out', fields: { first_name: 'Out' } });
    const [found, none] = await emmaConnector.searchMany!(ctx(), 'members', [
      { criteria: [{ field: 'email', value: 'OUT@example.org' }] }, { criteria: [{ field: 'email', value: 'none@example.org' }] },
    ]);
    expect(found!.map((r) => r.id)).toEqual([String(out.member_id)]);
    expect(none).toEqual([]);
    expect(em.seen.filter((s) => s.path.startsWith('/members/email/')).map((s) => s.path)).toEqual(['/members/email/OUT%40example.org', '/members/email/none%40example.org']);
    await expect(emmaConnector.matchingProblem!(ctx(), 'members', [{ name: 'Name', fields: ['first_name'] }])).resolves.toMatch(/^Emma finds members by e-mail address only/);

    const results = await emmaConnector.upsert(ctx({ groupId: EMMA_GROUP }), 'members', [
      { idempotencyKey: 'n', fields: { email: 'new@example.org', first_name: 'New', postal_code: '97201' } },
      { idempotencyKey: 'o', id: String(out.member_id), fields: { email: 'out@example.org', last_name: 'Still out' } },
      { idempotencyKey: 'b', fields: { email: 'bad@@example', first_name: 'Bad' } },
      { idempotencyKey: 'u', fields: { email: 'odd@example.org', shoe_size: '9' } },
    ]);
    expect(results.map((r) => [r.idempotencyKey, r.outcome])).toEqual([['n', 'created'], ['o', 'updated'], ['b', 'failed'], ['u', 'failed']]);
    expect(results[2]!.error).toBe('Emma refused the member: Invalid email address: bad@@example');
    expect(results[3]!.error).toBe('Emma has no member field shoe_size in this account.');
    expect(em.members.get(out.member_id)).toMatchObject({ status: 'opt-out', fields: { first_name: 'Out', last_name: 'Still out' } });
    expect([...em.members.values()].find((m) => m.email === 'new@example.org')).toMatchObject({ fields: { first_name: 'New', postal_code: '97201' }, groups: [Number(EMMA_GROUP)] });
    for (const add of em.seen.filter((s) => s.path === '/members/add')) expect(add.body).not.toHaveProperty('status');
  });

  it('a large send goes as one bulk import: looked at until finished, each member\'s id and whether it was added read from the import\'s members; one Emma skipped fails alone', async () => {
    const out = em.add({ email: 'out.bulk@example.org', status: 'opt-out', fields: { first_name: 'Out' } });
    const items: UpsertItem[] = Array.from({ length: EMMA_BULK_FROM + 450 }, (_, i) => ({ idempotencyKey: `k${i}`, fields: { email: `bulk${i}@example.org`, first_name: `Bulk ${i}` } }));
    items.push({ idempotencyKey: 'out', id: String(out.member_id), fields: { email: 'out.bulk@example.org', last_name: 'Still out' } });
    items.push({ idempotencyKey: 'bad', fields: { email: 'bad@@example', first_name: 'Bad' } });
    items.push({ idempotencyKey: 'odd', fields: { email: 'odd@example.org', shoe_size: '9' } });
    const results = await emmaConnector.upsert(ctx({ groupId: EMMA_GROUP }), 'members', items);

    expect(em.importsStarted).toBe(1);
    expect(em.seen.filter((c) => c.path === '/members/add')).toHaveLength(0);
    const sent = em.seen.find((c) => c.method === 'POST' && c.path === '/members')!.body as { members: { email: string; fields: Record<string, string> }[]; group_ids: number[] };
    expect(sent.members).toHaveLength(items.length - 1);
    expect(sent.members[0]).toEqual({ email: 'bulk0@example.org', fields: { first_name: 'Bulk 0' } });
    expect(sent.group_ids).toEqual([Number(EMMA_GROUP)]);
    // the import looked at until finished, then its members read 500 at a time
    expect(em.seen.filter((c) => /^\/members\/imports\/\d+$/.test(c.path)).length).toBe(2);
    expect(em.seen.filter((c) => /^\/members\/imports\/\d+\/members$/.test(c.path)).map((c) => [c.query.start, c.query.end])).toEqual([['0', '500'], ['500', '1000']]);

    const by = new Map(results.map((r) => [r.idempotencyKey, r]));
    const made = [...em.members.values()].find((m) => m.email === 'bulk7@example.org')!;
    expect(by.get('k7')).toMatchObject({ outcome: 'created', id: String(made.member_id) });
    expect(made).toMatchObject({ fields: { first_name: 'Bulk 7' }, groups: [Number(EMMA_GROUP)] });
    expect(by.get('out')).toMatchObject({ outcome: 'updated', id: String(out.member_id) });
    expect(em.members.get(out.member_id)).toMatchObject({ status: 'opt-out', fields: { first_name: 'Out', last_name: 'Still out' } });
    expect(by.get('bad')).toMatchObject({ outcome: 'failed', error: 'Emma skipped the member in its import (1 skipped): check the e-mail address.' });
    expect(by.get('odd')).toMatchObject({ outcome: 'failed', error: 'Emma has no member field shoe_size in this account.' });
    expect(results.filter((r) => r.outcome === 'created')).toHaveLength(EMMA_BULK_FROM + 450);
  });
});

describe('Pardot', () => {
  const ctx = () => ctxWith({ ...PARDOT_SETTINGS }, {}, memoryGrant({ ...PARDOT_SETTINGS }).store);
  const api = () => pi.seen.filter((s) => s.path.startsWith('/api/v5/'));
  beforeEach(() => {
    pi.seen.length = 0;
    pi.prospects.clear();
    pi.memberships.clear();
    pi.exhaust(false);
  });

  it('signs in through Salesforce, and every call carries the bearer token and the business unit; custom fields described as prospects name them', async () => {
    await expect(pardotConnector.test(ctx())).resolves.toEqual({ detail: `Signed in to Pardot business unit ${PARDOT_SETTINGS.businessUnitId}.` });
    expect(new URLSearchParams(String(pi.seen[0]!.body)).get('grant_type')).toBe('password');
    expect(api()[0]!.headers).toMatchObject({ authorization: expect.stringMatching(/^Bearer pi-access-/), 'pardot-business-unit-id': PARDOT_SETTINGS.businessUnitId });
    await expect(pardotConnector.test(ctxWith({ ...PARDOT_SETTINGS, password: 'nope' }))).rejects.toThrow('Salesforce refused the sign-in: authentication failure.');
    await expect(pardotConnector.test(ctxWith({ ...PARDOT_SETTINGS, businessUnitId: '0Uv5g000000ZZZZZZZ' })))
      .rejects.toThrow('Pardot does not know the business unit 0Uv5g000000ZZZZZZZ for this user (HTTP 401, code 181).');
    const fields = await pardotConnector.describeFields(ctx(), 'prospects');
    expect(fields.find((f) => f.name === 'Volunteer_Interest__c')).toMatchObject({ label: 'Volunteer interest' });
    expect(fields.find((f) => f.name === 'optedOut')!.label).toMatch(/consent/);
  });

  it('signs in with Connect\'s refresh token (Salesforce\'s web server flow, with pardot_api); one Salesforce refuses needs reconnecting', async () => {
    const vendor = OAUTH_VENDORS.pardot!;
    const consent = new URL(authorizeUrl(vendor, { environment: 'production' }, { clientId: PARDOT_SETTINGS.clientId, redirectUri: 'https://tributary.example/integrations/oauth/callback', state: 's', codeVerifier: 'v'.repeat(43) }));
    expect(consent.origin + consent.pathname).toBe(`${pi.url}/services/oauth2/authorize`);
    expect(consent.searchParams.get('scope')).toBe('api pardot_api refresh_token');
    expect(consent.searchParams.get('code_challenge_method')).toBe('S256');
    const { environment, businessUnitId, clientId, clientSecret } = PARDOT_SETTINGS;
    const oauth = { environment, businessUnitId, clientId, clientSecret, authenticationType: 'oauth', refreshToken: PARDOT_REFRESH_TOKEN };
    await expect(pardotConnector.test(ctxWith(oauth, {}, memoryGrant(oauth).store))).resolves.toEqual({ detail: `Signed in to Pardot business unit ${businessUnitId}.` });
    expect(Object.fromEntries(new URLSearchParams(String(pi.seen[0]!.body)))).toEqual({ grant_type: 'refresh_token', client_id: clientId, client_secret: clientSecret, refresh_token: PARDOT_REFRESH_TOKEN });
    const revoked = memoryGrant({ ...oauth, refreshToken: 'revoked' });
    await expect(pardotConnector.test(ctxWith(revoked.state.settings, {}, revoked.store))).rejects.toBeInstanceOf(GrantRevoked);
    expect(revoked.state.reconnect).toMatch(/^Pardot no longer accepts this connection's sign-in/);
  });

  it('prospects updated on or after the watermark, ordered by updatedAt, every field asked for, paged by nextPageUrl; a 429 and an expired token in the middle; a spent allowance pauses', async () => {
    for (let i = 0; i < 5; i++) pi.add({ email: `p${i}@example.org`, firstName: `P${i}`, Volunteer_Interest__c: 'Events', updatedAt: `2026-01-10T09:0${i}:00.000Z` });
    const c = ctx();
    const pull = pardotConnector.pull(c, 'prospects', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const batches: PullBatch[] = [(await pull.next()).value as PullBatch];
    pi.throttle(1);
    pi.expireTokens();
    const issued = pi.tokensIssued();
    for (let b = await pull.next(); !b.done; b = await pull.next()) batches.push(b.value);
    expect(batches.flatMap((b) => b.records.map((r) => r.fields.email))).toEqual([0, 1, 2, 3, 4].map((i) => `p${i}@example.org`));
    expect(batches[0]!.records[0]!.fields).toMatchObject({ firstName: 'P0', Volunteer_Interest__c: 'Events', optedOut: false, id: expect.any(String) });
    expect(pi.tokensIssued()).toBe(issued + 1);
    const lists = api().filter((s) => s.path === '/api/v5/objects/prospects');
    expect(lists[0]!.query).toMatchObject({ orderBy: 'updatedAt', limit: '2', fields: expect.stringContaining('email,') });
    expect(lists[0]!.query.fields).toContain('Volunteer_Interest__c');
    expect(lists.slice(1).every((l) => Object.keys(l.query).join() === 'nextPageToken')).toBe(true);
    const watermark = batches.at(-1)!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-01-10T09:04:00.000Z', next: null, latest: null });

    pi.seen.length = 0;
    pi.add({ email: 'later@example.org', updatedAt: '2026-01-10T10:00:00.000Z' });
    const again = (await all(pardotConnector.pull(c, 'prospects', watermark))).flatMap((b) => b.records);
    // the watermark's own moment read again (on or after), and what changed since
    expect(again.map((r) => r.fields.email)).toEqual(['p4@example.org', 'later@example.org']);
    expect(api().find((s) => s.path === '/api/v5/objects/prospects')!.query.updatedAtAfterOrEqualTo).toBe('2026-01-10T09:04:00.000Z');

    pi.exhaust(true);
    const spent = await all(pardotConnector.pull(c, 'prospects', watermark)).catch((e: unknown) => e);
    expect(spent).toBeInstanceOf(QuotaExhausted);
    expect((spent as Error).message).toMatch(/^Pardot's daily API allowance is spent/);
  });

  it('list memberships as a source, by updatedAt through nextPageUrl; read only', async () => {
    const ada = pi.add({ email: 'ada@example.org' });
    for (let i = 0; i < 3; i++) pi.join(ada.id, 100 + i, `2026-01-11T09:0${i}:00.000Z`);
    const batches = await all(pardotConnector.pull(ctx(), 'list-memberships', null, { batchSize: 2 }));
    expect(batches.flatMap((b) => b.records.map((r) => r.fields))).toEqual([0, 1, 2].map((i) => expect.objectContaining({ listId: 100 + i, prospectId: ada.id, optedOut: false })));
    expect(api().filter((s) => s.path === '/api/v5/objects/list-memberships')[0]!.query).toMatchObject({ fields: 'id,listId,prospectId,optedOut,createdAt,updatedAt', orderBy: 'updatedAt' });
    expect(JSON.parse(batches.at(-1)!.watermark!)).toMatchObject({ since: '2026-01-11T09:02:00.000Z' });
    expect((await pardotConnector.listObjects(ctx())).map((o) => o.name)).toEqual(['prospects', 'list-memberships']);
    await expect(pardotConnector.matchingProblem!(ctx(), 'list-memberships', [{ name: 'Id', fields: ['id'] }])).resolves.toBe('Tributary writes Pardot prospects; list-memberships are read only.');
  });

  it('finds prospects by e-mail; upserts by e-mail (upsertLatestByEmail), never opting back in one who opted out; refusals in Pardot\'s words', async () => {
    const out = pi.add({ email: 'out@example.org', firstName: 'Out', optedOut: true });
    const [found] = await pardotConnector.searchMany!(ctx(), 'prospects', [{ criteria: [{ field: 'email', value: 'OUT@example.org' }, { field: 'firstName', value: 'out' }] }]);
    expect(found!.map((r) => r.id)).toEqual([String(out.id)]);
    await expect(pardotConnector.matchingProblem!(ctx(), 'prospects', [{ name: 'Name', fields: ['lastName'] }])).resolves.toMatch(/^Pardot finds prospects by e-mail address only/);

    pi.seen.length = 0;
    const results = await pardotConnector.upsert(ctx(), 'prospects', [
      { idempotencyKey: 'n', fields: { email: 'new@example.org', firstName: 'New', Volunteer_Interest__c: 'Tutoring' } },
      { idempotencyKey: 'o', id: String(out.id), fields: { email: 'out@example.org', lastName: 'Still out', optedOut: 'false' } },
      { idempotencyKey: 'b', fields: { email: 'bad@@example', firstName: 'Bad' } },
    ]);
    expect(results.map((r) => [r.idempotencyKey, r.outcome])).toEqual([['n', 'created'], ['o', 'updated'], ['b', 'failed']]);
    expect(results[2]!.error).toBe('Pardot refused the prospect: Invalid prospect email address: bad@@example (code 30)');
    expect(pi.prospects.get(out.id)).toMatchObject({ optedOut: true, lastName: 'Still out' });
    expect([...pi.prospects.values()].find((p) => p.email === 'new@example.org')).toMatchObject({ firstName: 'New', Volunteer_Interest__c: 'Tutoring' });
    const upserts = pi.seen.filter((s) => s.path.endsWith('/do/upsertLatestByEmail'));
    expect(upserts[0]!.body).toEqual({ matchEmail: 'new@example.org', prospect: { email: 'new@example.org', firstName: 'New', Volunteer_Interest__c: 'Tutoring' } });
    expect((upserts[1]!.body as { prospect: Record<string, unknown> }).prospect).not.toHaveProperty('optedOut');
  });
});
