/**
 * Mailchimp audience members through the connector kit, against the local fake
 * (tests/support/vendors/mailchimp.ts): our requests as Mailchimp documents them (HTTP Basic with
 * the key at its data centre, members listed since last_changed with offset and count, the
 * subscriber hash, PUT with status_if_new) and its documented answers parsed (member pages, merge
 * fields, problem documents), a 429 in the middle, an invalid key, and consent: a member who
 * unsubscribed is never subscribed again.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext, type UpsertItem } from '../../server/connectors/connector.ts';
import { MAILCHIMP_BATCH_FROM, mailchimpBase, mailchimpConnector, subscriberHash } from '../../server/connectors/mailchimp/connector.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { AUDIENCE, MAILCHIMP_ACCOUNT, MAILCHIMP_APP, MAILCHIMP_KEY, startFakeMailchimp, type FakeMailchimp } from '../support/vendors/mailchimp.ts';
import { authorizeUrl, exchangeCode } from '../../server/connectors/oauth/flow.ts';
import { OAUTH_VENDORS } from '../../src/domain/connectors/oauth.ts';
import { pullAll } from '../support/connectorContext.ts';

let mc: FakeMailchimp;
let vendor: VendorFakeSetup<FakeMailchimp>;

beforeAll(async () => {
  vendor = await withVendorFake('mailchimp', startFakeMailchimp);
  mc = vendor.fake;
});
afterAll(async () => {
  await vendor?.close();
});

// no data source: Mailchimp keeps no grant, and its PUT needs no write ledger
const ctx = (endSettings: Record<string, string> = { audienceId: AUDIENCE, status: 'subscribed' }, apiKey = MAILCHIMP_KEY): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings: { apiKey }, dataDir: '/tmp', endSettings });
const all = pullAll;
const calls = (path: RegExp) => mc.seen.filter((s) => path.test(s.path));

beforeEach(() => {
  mc.seen.length = 0;
  for (const m of mc.members.values()) m.clear();
});

describe('signing in', () => {
  it('HTTP Basic with the API key, at the data centre the key names; a key Mailchimp refuses is refused in its words', async () => {
    expect(mailchimpBase('0123-us21')).toBe('https://us21.api.mailchimp.com');
    expect(() => mailchimpBase('no-datacentre')).toThrow('A Mailchimp API key ends with its data centre, for example -us21.');
    await expect(mailchimpConnector.test(ctx())).resolves.toEqual({ detail: "Mailchimp answered: Everything's Chimpy!" });
    expect(mc.seen[0]!.path).toBe('/3.0/ping');
    expect(Buffer.from(mc.seen[0]!.headers.authorization!.slice(6), 'base64').toString()).toBe(`tributary:${MAILCHIMP_KEY}`);
    const error = await mailchimpConnector.test(ctx({}, 'ffffffffffffffffffffffffffffffff-us21')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionProblem);
    expect(error).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'Mailchimp refused the API key (HTTP 401).' });
  });
});

describe('signing in with OAuth (Connect)', () => {
  it('the consent at login.mailchimp.com/oauth2/authorize, no scopes and no PKCE; the code exchanged (app in the body) for the access token kept, as Mailchimp gives no refresh token', async () => {
    const vendor = OAUTH_VENDORS.mailchimp!;
    const redirectUri = 'https://tributary.example/integrations/oauth/callback';
    const consent = new URL(authorizeUrl(vendor, { authenticationType: 'oauth' }, { clientId: MAILCHIMP_APP.clientId, redirectUri, state: 'st-1', codeVerifier: 'v'.repeat(43) }));
    expect(consent.pathname).toBe('/oauth2/authorize');
    expect([consent.searchParams.get('scope'), consent.searchParams.get('code_challenge')]).toEqual([null, null]);
    const back = new URL((await fetch(consent, { redirect: 'manual' })).headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('st-1');
    const granted = await exchangeCode(vendor, { authenticationType: 'oauth' }, MAILCHIMP_APP, { code: back.searchParams.get('code')!, redirectUri, codeVerifier: 'v'.repeat(43) });
    expect(mc.accessTokens.has(granted.grant)).toBe(true);
    expect(Object.fromEntries(new URLSearchParams(String(mc.seen.find((c) => c.path === '/oauth2/token')!.body)))).toMatchObject({
      grant_type: 'authorization_code', client_id: MAILCHIMP_APP.clientId, client_secret: MAILCHIMP_APP.clientSecret, redirect_uri: redirectUri,
    });
    // a code is good once
    await expect(exchangeCode(vendor, { authenticationType: 'oauth' }, MAILCHIMP_APP, { code: back.searchParams.get('code')!, redirectUri, codeVerifier: '' }))
      .rejects.toThrow('the authorization was not valid any more (invalid_grant)');
  });

  it('the token as a bearer token at the data centre the metadata names (asked once); a token Mailchimp no longer knows is refused in words', async () => {
    const token = 'mc-oauth-granted-before';
    mc.accessTokens.add(token);
    const oauth = (accessToken: string): ConnectorContext => ({ tenant: {} as ConnectorContext['tenant'], settings: { authenticationType: 'oauth', accessToken }, dataDir: '/tmp', endSettings: { audienceId: AUDIENCE, status: 'subscribed' } });
    await expect(mailchimpConnector.test(oauth(token))).resolves.toEqual({ detail: `Mailchimp answered: Everything's Chimpy! (account ${MAILCHIMP_ACCOUNT})` });
    const metadata = mc.seen.filter((c) => c.path === '/oauth2/metadata');
    expect(metadata.map((c) => c.headers.authorization)).toEqual([`OAuth ${token}`]);
    expect(mc.seen.find((c) => c.path === '/3.0/ping')!.headers.authorization).toBe(`Bearer ${token}`);
    mc.add(AUDIENCE, { email: 'ada@analytical.example', merge: { FNAME: 'Ada' } });
    const pulled = (await all(mailchimpConnector.pull(oauth(token), 'members', null))).flatMap((b) => b.records);
    expect(pulled.map((r) => r.fields.email_address)).toEqual(['ada@analytical.example']);
    expect(mc.seen.filter((c) => c.path === '/oauth2/metadata')).toHaveLength(1);

    mc.accessTokens.delete(token);
    const error = await mailchimpConnector.test(oauth(token)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'Mailchimp refused the access token (HTTP 401).' });
    const unknown = await mailchimpConnector.test(oauth('mc-oauth-never-issued')).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'Mailchimp refused the access token (it was revoked, or the app was removed from the account): use Connect to Mailchimp again.' });
    await expect(mailchimpConnector.test(oauth(''))).rejects.toThrow('Not connected yet: use Connect to Mailchimp.');
  });
});

describe('fields', () => {
  it('the audience\'s merge fields (an address as its parts), the e-mail, the status said to change consent, and the tags', async () => {
    const fields = await mailchimpConnector.describeFields(ctx(), 'members');
    const by = new Map(fields.map((f) => [f.name, f]));
    expect(by.get('email_address')).toMatchObject({ type: 'email', required: true, searchable: true });
    expect(by.get('status')!.label).toMatch(/consent/);
    expect(by.get('VOLUNTEER')).toMatchObject({ label: 'Volunteer interest', type: 'string' });
    expect(by.get('PHONE')).toMatchObject({ type: 'phone' });
    expect([...by.keys()]).toEqual(expect.arrayContaining(['ADDRESS.addr1', 'ADDRESS.city', 'ADDRESS.zip', 'tags']));
    expect(by.get('id')).toMatchObject({ readOnly: true });
    expect(calls(/merge-fields/).map((c) => c.path)).toEqual([`/3.0/lists/${AUDIENCE}/merge-fields`]);
    // without an audience yet (the wizard's first look): every audience's merge fields, each once
    const any = (await mailchimpConnector.describeFields(ctx({}), 'members')).map((f) => f.name);
    expect(any).toEqual(expect.arrayContaining(['VOLUNTEER', 'CHAPTER', 'FNAME']));
    expect(any.filter((n) => n === 'FNAME')).toHaveLength(1);
    expect((await mailchimpConnector.listObjects(ctx())).map((o) => o.name)).toEqual(['members']);
  });
});

describe('as a source', () => {
  it('members changed since the watermark, sorted by last_changed, paged with offset and count, with merge fields and tags; a 429 in the middle waited out', async () => {
    for (let i = 0; i < 5; i++) {
      mc.add(AUDIENCE, { email: `m${i}@example.org`, merge: { FNAME: `M${i}`, ADDRESS: { addr1: `${i} Main St`, city: 'Portland', state: 'OR', zip: '97201', country: 'US' } }, tags: ['Volunteer'], changedAt: new Date(Date.UTC(2026, 0, 10, 9, i)) });
    }
    mc.throttle(1, 0);
    const batches = await all(mailchimpConnector.pull(ctx({ audienceId: AUDIENCE }), 'members', null, { batchSize: 2 }));
    const records = batches.flatMap((b) => b.records);
    expect(records.map((r) => r.fields.email_address)).toEqual([0, 1, 2, 3, 4].map((i) => `m${i}@example.org`));
    expect(records[0]).toEqual({ id: subscriberHash('m0@example.org'), fields: expect.objectContaining({
      email_address: 'm0@example.org', status: 'subscribed', FNAME: 'M0', 'ADDRESS.addr1': '0 Main St', 'ADDRESS.zip': '97201', tags: 'Volunteer',
    }) });
    const lists = calls(/\/members$/);
    // three pages, and the one the 429 answered asked again
    expect(lists).toHaveLength(4);
    expect(lists.map((l) => l.query.offset)).toEqual(['0', '0', '2', '4']);
    expect(lists[0]!.query).toMatchObject({ count: '2', sort_field: 'last_changed', sort_dir: 'ASC' });
    expect(lists[0]!.query.since_last_changed).toBeUndefined();
    expect(JSON.parse(batches[0]!.watermark!)).toMatchObject({ next: '2' });

    const watermark = batches.at(-1)!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-01-10T09:04:00.000Z', next: null, latest: null });
    mc.seen.length = 0;
    mc.add(AUDIENCE, { email: 'later@example.org', changedAt: new Date(Date.UTC(2026, 0, 10, 10)) });
    const again = (await all(mailchimpConnector.pull(ctx({ audienceId: AUDIENCE }), 'members', watermark, {}))).flatMap((b) => b.records);
    // the watermark's own second read again (Mailchimp's filter is "after"), and what changed since
    expect(again.map((r) => r.fields.email_address)).toEqual(['m4@example.org', 'later@example.org']);
    expect(calls(/\/members$/)[0]!.query.since_last_changed).toBe('2026-01-10T09:03:59+00:00');
  });

  it('a run once reads only the window\'s changes, and a continuation goes on from the offset its cursor names', async () => {
    for (let i = 0; i < 5; i++) mc.add(AUDIENCE, { email: `w${i}@example.org`, changedAt: new Date(Date.UTC(2026, 0, 12, i)) });
    const window = { from: new Date(Date.UTC(2026, 0, 12, 1)), to: new Date(Date.UTC(2026, 0, 12, 4)) };
    const c = ctx({ audienceId: AUDIENCE });
    const batches = await all(mailchimpConnector.pull(c, 'members', null, { batchSize: 2, window }));
    expect(batches.flatMap((b) => b.records.map((r) => r.fields.email_address))).toEqual(['w1@example.org', 'w2@example.org', 'w3@example.org']);
    expect(calls(/\/members$/)[0]!.query).toMatchObject({ since_last_changed: '2026-01-12T00:59:59+00:00', before_last_changed: '2026-01-12T04:00:00+00:00' });
    const rest = await all(mailchimpConnector.pull(c, 'members', batches[0]!.watermark, { batchSize: 2, window }));
    expect(rest.flatMap((b) => b.records.map((r) => r.fields.email_address))).toEqual(['w3@example.org']);
  });

  it('a formula without an audience is told to choose one', async () => {
    await expect(all(mailchimpConnector.pull(ctx({}), 'members', null, {}))).rejects.toThrow("Choose the Mailchimp audience (its audience ID) in the formula's settings.");
  });
});

describe('as a destination', () => {
  it('finds a member by e-mail through its subscriber hash; a scenario without the e-mail is refused on save', async () => {
    const ada = mc.add(AUDIENCE, { email: 'Ada@Analytical.example', merge: { FNAME: 'Ada', LNAME: 'Lovelace' } });
    const [found, none] = await mailchimpConnector.searchMany!(ctx(), 'members', [
      { criteria: [{ field: 'email_address', value: ' ada@analytical.EXAMPLE' }, { field: 'LNAME', value: 'lovelace' }] },
      { criteria: [{ field: 'email_address', value: 'nobody@example.org' }] },
    ]);
    expect(found).toEqual([expect.objectContaining({ id: ada.id, fields: expect.objectContaining({ FNAME: 'Ada' }) })]);
    expect(none).toEqual([]);
    expect(calls(/\/members\//).map((c) => c.path)).toEqual([
      `/3.0/lists/${AUDIENCE}/members/${subscriberHash('ada@analytical.example')}`, `/3.0/lists/${AUDIENCE}/members/${subscriberHash('nobody@example.org')}`,
    ]);
    await expect(mailchimpConnector.matchingProblem!(ctx(), 'members', [{ name: 'E-mail', fields: ['email_address', 'LNAME'] }])).resolves.toBeNull();
    await expect(mailchimpConnector.matchingProblem!(ctx(), 'members', [{ name: 'Name', fields: ['FNAME', 'LNAME'] }]))
      .resolves.toBe('Mailchimp finds audience members by e-mail address only: the scenario "Name" compares FNAME, LNAME. Add the e-mail address to it.');
  });

  it('PUT by subscriber hash with status_if_new; the status only when mapped, never to subscribe again a member who unsubscribed; refusals in Mailchimp\'s words', async () => {
    const left = mc.add(AUDIENCE, { email: 'left@example.org', status: 'unsubscribed', merge: { FNAME: 'Left' } });
    const stays = mc.add(AUDIENCE, { email: 'stays@example.org', status: 'subscribed' });
    const results = await mailchimpConnector.upsert(ctx({ audienceId: AUDIENCE, status: 'pending' }), 'members', [
      { idempotencyKey: 'n', fields: { email_address: 'New@Example.org', FNAME: 'New', 'ADDRESS.addr1': '1 Main St', 'ADDRESS.city': 'Portland', tags: 'Volunteer, Donor' } },
      { idempotencyKey: 'l', id: left.id, fields: { email_address: 'left@example.org', FNAME: 'Still left', status: 'subscribed' } },
      { idempotencyKey: 's', id: stays.id, fields: { email_address: 'stays@example.org', LNAME: 'Here' } },
      { idempotencyKey: 'f', fields: { email_address: 'fake@example', FNAME: 'Fake' } },
      { idempotencyKey: 'x', fields: { email_address: 'odd@example.org', status: 'maybe' } },
    ]);
    expect(results.map((r) => [r.idempotencyKey, r.outcome])).toEqual([['n', 'created'], ['l', 'updated'], ['s', 'updated'], ['f', 'failed'], ['x', 'failed']]);
    expect(results[3]!.error).toBe('Mailchimp refused the member: Invalid Resource: fake@example looks fake or invalid, please enter a real email address.');
    expect(results[4]!.error).toMatch(/^Mailchimp has no subscription status 'maybe'/);
    const audience = mc.members.get(AUDIENCE)!;
    const made = audience.get(subscriberHash('new@example.org'))!;
    expect(made).toMatchObject({ status: 'pending', merge_fields: expect.objectContaining({ FNAME: 'New', ADDRESS: expect.objectContaining({ addr1: '1 Main St', city: 'Portland' }) }) });
    expect(made.tags.map((t) => t.name)).toEqual(['Volunteer', 'Donor']);
    // the one who left keeps their status; the rest of the record is written
    expect(audience.get(left.id)).toMatchObject({ status: 'unsubscribed', merge_fields: expect.objectContaining({ FNAME: 'Still left' }) });
    expect(audience.get(stays.id)).toMatchObject({ status: 'subscribed', merge_fields: expect.objectContaining({ LNAME: 'Here' }) });
    const puts = mc.seen.filter((s) => s.method === 'PUT');
    expect(puts[0]).toMatchObject({ path: `/3.0/lists/${AUDIENCE}/members/${subscriberHash('new@example.org')}`, body: { email_address: 'New@Example.org', status_if_new: 'pending', merge_fields: expect.any(Object) } });
    for (const p of puts) expect((p.body as { status?: string }).status).toBeUndefined();
    // sending again writes the same member: Mailchimp's PUT is its own upsert
    await mailchimpConnector.upsert(ctx(), 'members', [{ idempotencyKey: 'n', fields: { email_address: 'new@example.org', FNAME: 'New' } }]);
    expect([...audience.values()].filter((m) => m.email_address.toLowerCase() === 'new@example.org')).toHaveLength(1);
  });
  it('a large send goes as one batch operation: each member\'s PUT and tags in one POST /3.0/batches, its results read from the signed link, refusals in Mailchimp\'s words; a mapped status still goes alone', async () => {
    const known = mc.add(AUDIENCE, { email: 'member0@example.org', status: 'subscribed', merge: { FNAME: 'Old' } });
    const left = mc.add(AUDIENCE, { email: 'left.batch@example.org', status: 'unsubscribed' });
    const items: UpsertItem[] = Array.from({ length: MAILCHIMP_BATCH_FROM }, (_, i) => ({
      idempotencyKey: `k${i}`, ...(i === 0 ? { id: known.id } : {}),
      fields: { email_address: i === 7 ? 'fake@example' : `member${i}@example.org`, FNAME: `Member ${i}`, ...(i % 50 === 1 ? { tags: 'Volunteer' } : {}) },
    }));
    items.push({ idempotencyKey: 'left', id: left.id, fields: { email_address: 'left.batch@example.org', FNAME: 'Left', status: 'subscribed' } });
    const results = await mailchimpConnector.upsert(ctx({ audienceId: AUDIENCE, status: 'pending' }), 'members', items);

    expect(mc.batchesStarted).toBe(1);
    const batch = mc.seen.find((c) => c.method === 'POST' && c.path === '/3.0/batches')!.body as { operations: { method: string; path: string; operation_id: string; body: string }[] };
    expect(batch.operations).toHaveLength(MAILCHIMP_BATCH_FROM + 2);
    expect(batch.operations[0]).toEqual({ method: 'PUT', path: `/lists/${AUDIENCE}/members/${subscriberHash('member0@example.org')}`, operation_id: 'member-0', body: JSON.stringify({ email_address: 'member0@example.org', status_if_new: 'pending', merge_fields: { FNAME: 'Member 0' } }) });
    expect(batch.operations.filter((o) => o.path.endsWith('/tags')).map((o) => JSON.parse(o.body))).toEqual([{ tags: [{ name: 'Volunteer', status: 'active' }] }, { tags: [{ name: 'Volunteer', status: 'active' }] }]);
    // looked at until finished, the results fetched without our credentials (the fake refuses any)
    expect(mc.seen.filter((c) => c.path.startsWith('/3.0/batches/')).length).toBeGreaterThan(1);
    expect(mc.seen.find((c) => c.path.endsWith('-response.tar.gz'))!.headers.authorization).toBeUndefined();

    expect(results).toHaveLength(items.length);
    expect(results[0]).toMatchObject({ idempotencyKey: 'k0', outcome: 'updated', id: subscriberHash('member0@example.org') });
    expect(results[1]).toMatchObject({ idempotencyKey: 'k1', outcome: 'created', id: subscriberHash('member1@example.org') });
    expect(results[7]).toMatchObject({ outcome: 'failed', error: 'Mailchimp refused the member: Invalid Resource: fake@example looks fake or invalid, please enter a real email address.' });
    expect(results.filter((r) => r.outcome === 'created')).toHaveLength(MAILCHIMP_BATCH_FROM - 2);
    const audience = mc.members.get(AUDIENCE)!;
    expect(audience.get(known.id)).toMatchObject({ status: 'subscribed', merge_fields: expect.objectContaining({ FNAME: 'Member 0' }) });
    expect(audience.get(subscriberHash('member99@example.org'))).toMatchObject({ status: 'pending' });
    expect(audience.get(subscriberHash('member51@example.org'))!.tags.map((t) => t.name)).toEqual(['Volunteer']);
    // the member whose status is mapped was read and written alone, and keeps having left
    expect(results.at(-1)).toMatchObject({ idempotencyKey: 'left', outcome: 'updated' });
    expect(audience.get(left.id)).toMatchObject({ status: 'unsubscribed', merge_fields: expect.objectContaining({ FNAME: 'Left' }) });
    expect(mc.seen.filter((c) => c.method === 'PUT').map((c) => c.path)).toEqual([`/3.0/lists/${AUDIENCE}/members/${left.id}`]);
  });
});
