/**
 * Swoogo and Encompass as sources through the connector kit, against their local fakes
 * (tests/support/vendors/swoogo.ts, encompass.ts), with one test server for the file. Swoogo: our requests as Swoogo documents them (client-credentials
 * token of the URL-encoded key and secret, `event_id`, `fields`, `search=updated_at>=…`,
 * `sort=updated_at`, `page` and `per-page` while `_meta` says there are more), a 429 in the
 * middle, an expired token renewed, bad credentials refused in Swoogo's words; then a whole formula,
 * Swoogo registrants → the Sandbox CRM's constituents, first run and a later one reading only what
 * changed. Encompass: the community's client-credentials token, e-mail campaigns by the SPEC's
 * filter (under 60 days old; one campaign, or all sent within a week or month) and their recipients
 * with their opens, `startAt`/`maxResults` paging, a 429 and an expired token in the middle; a
 * whole formula of recipients into constituents, first run and a later one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { swoogoConnector } from '../../server/connectors/swoogo/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { pullAll } from '../support/connectorContext.ts';
import { connectedSource, type Send, type TenantSession, runToEnd } from '../support/engineRun.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { startFakeSwoogo, SWOOGO_CREDENTIALS, type FakeSwoogo } from '../support/vendors/swoogo.ts';
import { ENCOMPASS_CREDENTIALS, startFakeEncompass, type FakeEncompass } from '../support/vendors/encompass.ts';
import { encompassConnector } from '../../server/connectors/encompass/connector.ts';
import type { VendorFakeSetup } from '../support/vendors/harness.ts';

let sw: FakeSwoogo;
let enc: FakeEncompass;
let vendors: VendorFakeWithServer<FakeSwoogo>;
let encompassFake: VendorFakeSetup<FakeEncompass>;
let server: TestServer;

beforeAll(async () => {
  // both fakes, and one server sent to both
  encompassFake = await withVendorFake('encompass', startFakeEncompass);
  enc = encompassFake.fake;
  vendors = await withVendorFake('swoogo', startFakeSwoogo, { server: { work: true, env: { RUN_SLICE_MS: '100000', ...encompassFake.env } } });
  ({ fake: sw, server } = vendors);
}, 120_000);
afterAll(async () => {
  await vendors?.close();
  await encompassFake?.close();
});

const all = pullAll;
const swoogoCtx = (settings: Record<string, string> = SWOOGO_CREDENTIALS, endSettings: Record<string, string> = {}): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings, dataDir: '/tmp', endSettings });
const swoogoCalls = (path: string) => sw.seen.filter((s) => s.path === path);

describe('the Swoogo connector', () => {
  beforeEach(() => sw.clear());

  it('signs in with the URL-encoded key and secret; bad credentials refused in Swoogo\'s words', async () => {
    await expect(swoogoConnector.test(swoogoCtx())).resolves.toEqual({ detail: 'Swoogo issued an access token for these credentials and listed their events.' });
    const [token, events] = sw.seen;
    expect(token).toMatchObject({ method: 'POST', path: '/api/v1/oauth2/token.json' });
    expect(Buffer.from(token!.authorization!.replace('Basic ', ''), 'base64').toString()).toBe('riverside%20key%2B1:riverside%2Fsecret%3D');
    expect(events).toMatchObject({ method: 'GET', path: '/api/v1/events', authorization: `Bearer swoogo-token-${sw.tokens}` });
    const bad = await swoogoConnector.test(swoogoCtx({ ...SWOOGO_CREDENTIALS, consumerSecret: 'nope' })).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConnectionProblem);
    expect(bad).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'Swoogo refused the API key and secret (HTTP 401): The consumer key or secret is not valid.' });
    expect((await swoogoConnector.listObjects(swoogoCtx())).map((o) => o.name)).toEqual(['events', 'registrants', 'sessions', 'speakers', 'sponsors', 'transactions']);
  });

  it('one event\'s registrants: fields, updated since, oldest change first, every page; a 429 and an expired token in the middle; a later pull only what changed', async () => {
    const gala = sw.add('events', { name: 'Spring Gala', status: 'live', start_date: '2026-04-01', capacity: 200 });
    const other = sw.add('events', { name: 'Fun Run', status: 'live' });
    const ada = sw.add('registrants', { event_id: gala.id, email: 'ada@example.org', first_name: 'Ada', last_name: 'Lovelace', registration_status: 'confirmed', individual_gross: '125.00' });
    sw.add('registrants', { event_id: gala.id, email: 'grace@example.org', first_name: 'Grace', last_name: 'Hopper', registration_status: 'confirmed' });
    sw.add('registrants', { event_id: gala.id, email: 'alan@example.org', first_name: 'Alan', last_name: 'Turing', registration_status: 'pending' });
    sw.add('registrants', { event_id: other.id, email: 'runner@example.org', first_name: 'Fast', last_name: 'Runner' });

    const pages = swoogoConnector.pull(swoogoCtx(SWOOGO_CREDENTIALS, { eventId: String(gala.id) }), 'registrants', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const first = await pages.next();
    sw.throttle(1);
    sw.expireTokens();
    const second = await pages.next();
    expect((await pages.next()).done).toBe(true);
    const read = [...first.value!.records, ...second.value!.records];
    expect(read.map((r) => r.fields.email)).toEqual(['ada@example.org', 'grace@example.org', 'alan@example.org']);
    expect(read[0]).toEqual({ id: String(ada.id), fields: expect.objectContaining({
      event_id: String(gala.id), first_name: 'Ada', last_name: 'Lovelace', registration_status: 'confirmed', individual_gross: 125,
      created_at: '2026-03-01T12:03:00.000Z',
    }) });
    const lists = swoogoCalls('/api/v1/registrants');
    expect(Object.fromEntries(lists[0]!.query)).toMatchObject({ event_id: String(gala.id), sort: 'updated_at', page: '1', 'per-page': '2' });
    expect(lists[0]!.query.get('fields')).toContain('email,prefix,first_name,last_name');
    expect(lists[0]!.query.has('search')).toBe(false);
    // page 2: refused once for the rate, once for the expired token, then answered with a new token
    expect(lists.slice(1).map((c) => c.query.get('page'))).toEqual(['2', '2', '2']);
    expect(lists.at(-1)!.authorization).toBe(`Bearer swoogo-token-${sw.tokens}`);
    expect(JSON.parse(first.value!.watermark!)).toMatchObject({ since: null, next: `${gala.id}:2` });
    const watermark = second.value!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-03-01T12:05:00.000Z', next: null, latest: null });

    sw.seen.length = 0;
    sw.touch('registrants', ada.id, { registration_status: 'cancelled', cancelled_at: '2026-03-02 09:00:00' });
    const later = (await all(swoogoConnector.pull(swoogoCtx(SWOOGO_CREDENTIALS, { eventId: String(gala.id) }), 'registrants', watermark, {}))).flatMap((b) => b.records);
    // Alan's change is the watermark's own second, read again harmlessly
    expect(later.map((r) => [r.fields.email, r.fields.registration_status])).toEqual([['alan@example.org', 'pending'], ['ada@example.org', 'cancelled']]);
    expect(swoogoCalls('/api/v1/registrants')[0]!.query.get('search')).toBe('updated_at>=2026-03-01 12:05:00');
  });

  it('without an event ID, every event\'s sessions in turn by id; a pull stopped in one event goes on there', async () => {
    const a = sw.add('events', { name: 'A' });
    const b = sw.add('events', { name: 'B' });
    const c = sw.add('events', { name: 'C, no sessions' });
    sw.add('sessions', { event_id: a.id, name: 'Opening', date: '2026-04-01', capacity: 50 });
    sw.add('sessions', { event_id: b.id, name: 'Workshop 1' });
    const late = sw.add('sessions', { event_id: b.id, name: 'Workshop 2' });
    const batches = await all(swoogoConnector.pull(swoogoCtx(), 'sessions', null, { batchSize: 1 }));
    expect(batches.flatMap((x) => x.records).map((r) => r.fields.name)).toEqual(['Opening', 'Workshop 1', 'Workshop 2']);
    expect(batches[0]!.records[0]!.fields).toMatchObject({ capacity: 50, date: '2026-04-01', event_id: String(a.id) });
    expect(swoogoCalls('/api/v1/sessions').map((c) => c.query.get('event_id'))).toEqual([String(a.id), String(b.id), String(b.id), String(c.id)]);
    expect(late.event_id).toBe(b.id);
    // stopped after Workshop 1: the rest is Workshop 2 only
    const resumed = (await all(swoogoConnector.pull(swoogoCtx(), 'sessions', batches[1]!.watermark, { batchSize: 1 }))).flatMap((x) => x.records);
    expect(resumed.map((r) => r.fields.name)).toEqual(['Workshop 2']);
    const events = (await all(swoogoConnector.pull(swoogoCtx(), 'events', null, {}))).flatMap((x) => x.records);
    expect(events.map((r) => r.fields.name)).toEqual(['A', 'B', 'C, no sessions']);
    await expect(all(swoogoConnector.pull(swoogoCtx(SWOOGO_CREDENTIALS, { eventId: '999999' }), 'transactions', null, {}))).rejects.toThrow('Swoogo refused the request (HTTP 404): Event 999999 could not be found.');
  });
});

describe('a whole formula: Swoogo registrants → Sandbox CRM constituents', () => {
  const F = '/web-api/v1/formulas';
  const DS = '/integrations/v1/data-sources';
  let admin: TenantSession;
  let send: Send;
  const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
  const crm = () => sandboxCrmStore(forTenant(server.database.db, admin.tenantId));

  const runOnce = (formula: string) => runToEnd(send, formula);

  it('the wizard\'s calls, a first run writing each registrant once, a later run only the registrants changed since', async () => {
    sw.clear();
    let swoogo: string, crmId: string;
    ({ admin, send, sourceId: swoogo, crmId } = await connectedSource(server.url, 'swoogo', 'Riverside Swoogo', SWOOGO_CREDENTIALS));
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.find((s) => s.system === 'swoogo')?.does).toBe('source');

    const gala = sw.add('events', { name: 'Spring Gala' });
    const ada = sw.add('registrants', { event_id: gala.id, email: 'ada.swoogo@example.org', first_name: 'Ada', last_name: 'Lovelace', company: 'Analytical', registration_status: 'confirmed' });
    sw.add('registrants', { event_id: gala.id, email: 'grace.swoogo@example.org', first_name: 'Grace', last_name: 'Hopper', registration_status: 'confirmed' });
    sw.add('registrants', { event_id: gala.id, email: 'alan.swoogo@example.org', first_name: 'Alan', last_name: 'Turing', registration_status: 'confirmed' });

    const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name: 'Gala registrants' } }));
    const ends = { source: { dataSourceId: swoogo, object: 'registrants', settings: { eventId: String(gala.id) } }, destination: { dataSourceId: crmId, object: 'constituents', settings: {} } };
    expect((await send(`${F}/${id}`, { method: 'PATCH', body: ends })).status).toBe(200);
    const parts = {
      ...VALID_PARTS, transform: { fields: [] }, validation: { rules: [] },
      routing: { ...VALID_PARTS.routing, unmatched: 'ready' as const, singleMatch: 'ready' as const },
      schedule: { mode: 'continuous' as const }, autosend: { enabled: true },
      mapping: { fields: [
        { destination: 'firstName', kind: 'source', source: 'first_name' }, { destination: 'lastName', kind: 'source', source: 'last_name' },
        { destination: 'email', kind: 'source', source: 'email' },
      ] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    };
    for (const [part, body] of Object.entries(parts)) {
      const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
      expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
    }
    const fields = (await json<{ fields: { name: string; type: string }[] }>(await send(`${DS}/${swoogo}/objects/registrants/fields`))).fields;
    expect(fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'email', type: 'email' })]));
    const dry = await send(`${F}/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 3, exception: 0 });
    const activated = await send(`${F}/${id}/activate`, { method: 'POST' });
    expect(activated.status, await activated.clone().text()).toBe(200);

    sw.throttle(1);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3 });
    for (const email of ['ada.swoogo@example.org', 'grace.swoogo@example.org', 'alan.swoogo@example.org']) {
      expect(await crm().search('constituents', { criteria: [{ field: 'email', value: email }] }), email).toHaveLength(1);
    }

    sw.seen.length = 0;
    sw.touch('registrants', ada.id, { last_name: 'King' });
    sw.add('registrants', { event_id: gala.id, email: 'mary.swoogo@example.org', first_name: 'Mary', last_name: 'Somerville', registration_status: 'confirmed' });
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // Ada changed and Mary new; Alan (the watermark's own second) read again and found unchanged; Ada's new surname held for a person to confirm
    expect(second.counts).toMatchObject({ collected: 2, unchanged: 1, created: 1, 'state:needs-attention': 1 });
    expect(swoogoCalls('/api/v1/registrants')[0]!.query.get('search')).toMatch(/^updated_at>=2026-03-01 12:\d\d:00$/);
    const [adaC, ...more] = await crm().search('constituents', { criteria: [{ field: 'email', value: 'ada.swoogo@example.org' }] });
    expect(more).toEqual([]);
    expect(adaC!.fields).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    expect(await crm().search('constituents', { criteria: [{ field: 'email', value: 'mary.swoogo@example.org' }] })).toHaveLength(1);
    expect(await crm().search('constituents', { criteria: [{ field: 'email', value: 'alan.swoogo@example.org' }] })).toHaveLength(1);
  }, 120_000);
});

const encCtx = (endSettings: Record<string, string>, settings: Record<string, string> = ENCOMPASS_CREDENTIALS): ConnectorContext =>
  ({ tenant: {} as ConnectorContext['tenant'], settings, dataDir: '/tmp', endSettings });
const encCalls = (path: string) => enc.seen.filter((s) => s.path === path);
const people = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ email: `${tag}${i}@alumni.example`, first: `${tag}${i}`, last: 'Alum', constituentId: 9000 + i }));

describe('the Encompass connector', () => {
  beforeEach(() => enc.clear());

  it('signs in with the community\'s client credentials; bad ones refused in Encompass\'s words', async () => {
    await expect(encompassConnector.test(encCtx({}))).resolves.toEqual({ detail: 'Encompass issued an access token for these credentials.' });
    expect(enc.seen[0]).toMatchObject({ method: 'POST', path: '/oauth2/token', authorization: `Basic ${Buffer.from('riverside-community:enc-secret-1').toString('base64')}` });
    await expect(encompassConnector.test(encCtx({}, { ...ENCOMPASS_CREDENTIALS, clientSecret: 'nope' }))).rejects.toMatchObject({
      code: 'clientdatasource-connection-failed', message: 'Encompass refused the client ID and secret (HTTP 401): The client credentials are invalid for this community.',
    });
    expect((await encompassConnector.listObjects(encCtx({}))).map((o) => o.name)).toEqual(['emailCampaigns', 'emailRecipients']);
  });

  it('campaigns by the SPEC\'s filter: within a week, within a month, or a single one, never one 60 days old or more', async () => {
    const old = enc.campaign({ name: 'Spring news', daysAgo: 70, to: [] });
    const tenDays = enc.campaign({ name: 'Reunion', daysAgo: 10, to: [] });
    enc.campaign({ name: 'Giving Day', daysAgo: 5, to: [] });
    enc.campaign({ name: 'Thank you', daysAgo: 2, to: [] });
    const names = async (settings: Record<string, string>) => (await all(encompassConnector.pull(encCtx(settings), 'emailCampaigns', null, {}))).flatMap((b) => b.records.map((r) => r.fields.emailName));
    expect(await names({ campaignFilter: 'week' })).toEqual(['Giving Day', 'Thank you']);
    expect(await names({ campaignFilter: 'month' })).toEqual(['Reunion', 'Giving Day', 'Thank you']);
    expect(await names({ campaignFilter: 'single', campaignId: String(tenDays.id) })).toEqual(['Reunion']);
    expect(await names({ campaignFilter: 'single', campaignId: String(old.id) })).toEqual([]);
    const [week, , single] = encCalls('/v2/messages');
    const span = (c: typeof week) => Number(c!.query.get('toTimestamp')) - Number(c!.query.get('fromTimestamp'));
    expect(span(week)).toBe(7 * 86_400_000);
    expect(span(single)).toBe(60 * 86_400_000);
    expect(week!.query.get('startAt')).toBe('0');
    const record = (await all(encompassConnector.pull(encCtx({ campaignFilter: 'single', campaignId: String(tenDays.id) }), 'emailCampaigns', null, {})))[0]!.records[0]!;
    expect(record.fields).toMatchObject({ id: String(tenDays.id), subjectLine: 'Reunion!', fromAddress: 'alumni@riverside.edu', sentCount: 0, sentDate: new Date(tenDays.actualSendTimestamp as number).toISOString() });
    await expect(all(encompassConnector.pull(encCtx({}), 'emailCampaigns', null, {}))).rejects.toThrow('Choose which Encompass e-mail campaigns to read');
  });

  it('recipients with their opens, every page; a 429 and an expired token in the middle; a later pull only campaigns sent since', async () => {
    const first = enc.campaign({ name: 'Giving Day', daysAgo: 5, to: people(3, 'gd'), opened: ['GD1@alumni.example'] });
    const pages = encompassConnector.pull(encCtx({ campaignFilter: 'month' }), 'emailRecipients', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const one = await pages.next();
    enc.throttle(1);
    enc.expireTokens();
    const two = await pages.next();
    expect((await pages.next()).done).toBe(true);
    const read = [...one.value!.records, ...two.value!.records];
    expect(read.map((r) => [r.id, r.fields.emailAddress, r.fields.opened])).toEqual([
      [`${first.id}:9000`, 'gd0@alumni.example', false], [`${first.id}:9001`, 'gd1@alumni.example', true], [`${first.id}:9002`, 'gd2@alumni.example', false],
    ]);
    expect(read[1]!.fields).toMatchObject({ campaignId: String(first.id), campaignName: 'Giving Day', constituentId: '9001', firstName: 'gd1', lastName: 'Alum', classYear: '2001', firstOpen: expect.any(String) });
    const recipientCalls = encCalls(`/v2/messages/${first.id}/recipients`);
    expect(recipientCalls.map((c) => [c.query.get('startAt'), c.query.get('maxResults')])).toEqual([['0', '2'], ['2', '2'], ['2', '2'], ['2', '2']]);
    expect(recipientCalls.at(-1)!.authorization).toBe(`Bearer enc-token-${enc.tokens}`);
    expect(JSON.parse(one.value!.watermark!)).toMatchObject({ since: null, next: String(first.id) });
    const watermark = two.value!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: new Date(first.actualSendTimestamp as number).toISOString(), next: null, latest: null });

    const newer = enc.campaign({ name: 'Thank you', daysAgo: 1, to: people(1, 'ty') });
    const later = (await all(encompassConnector.pull(encCtx({ campaignFilter: 'month' }), 'emailRecipients', watermark, {}))).flatMap((b) => b.records);
    // the watermark's own campaign (its millisecond) read again harmlessly, then the new one
    expect(later.map((r) => r.fields.campaignId)).toEqual([String(first.id), String(first.id), String(first.id), String(newer.id)]);
    expect(encCalls('/v2/messages').at(-1)!.query.get('fromTimestamp')).toBe(String(first.actualSendTimestamp));
  });
});

describe('a whole formula: Encompass e-mail recipients → Sandbox CRM constituents', () => {
  const F = '/web-api/v1/formulas';
  const DS = '/integrations/v1/data-sources';
  let admin: TenantSession;
  let send: Send;
  const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
  const crm = () => sandboxCrmStore(forTenant(server.database.db, admin.tenantId));

  const runOnce = (formula: string) => runToEnd(send, formula);

  it('the wizard\'s calls, a first run writing each recipient once, a later run only the new campaign\'s recipients', async () => {
    enc.clear();
    let source: string, crmId: string;
    ({ admin, send, sourceId: source, crmId } = await connectedSource(server.url, 'encompass', 'Riverside Encompass', ENCOMPASS_CREDENTIALS));
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.find((s) => s.system === 'encompass')?.does).toBe('source');
    const givingDay = enc.campaign({ name: 'Giving Day', daysAgo: 5, to: people(2, 'wf'), opened: ['wf0@alumni.example'] });

    const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name: 'Campaign recipients' } }));
    const ends = { source: { dataSourceId: source, object: 'emailRecipients', settings: { campaignFilter: 'month' } }, destination: { dataSourceId: crmId, object: 'constituents', settings: {} } };
    expect((await send(`${F}/${id}`, { method: 'PATCH', body: ends })).status).toBe(200);
    const parts = {
      ...VALID_PARTS, transform: { fields: [] }, validation: { rules: [] },
      routing: { ...VALID_PARTS.routing, unmatched: 'ready' as const, singleMatch: 'ready' as const },
      schedule: { mode: 'continuous' as const }, autosend: { enabled: true },
      mapping: { fields: [
        { destination: 'firstName', kind: 'source', source: 'firstName' }, { destination: 'lastName', kind: 'source', source: 'lastName' },
        { destination: 'email', kind: 'source', source: 'emailAddress' },
      ] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'emailAddress', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
    };
    for (const [part, body] of Object.entries(parts)) {
      const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
      expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
    }
    const dry = await send(`${F}/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 2, exception: 0 });
    expect((await send(`${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);

    enc.throttle(1);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 2, created: 2 });

    enc.campaign({ name: 'Thank you', daysAgo: 1, to: [...people(1, 'wf'), ...people(1, 'tyf')] });
    enc.seen.length = 0;
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // the new campaign's two recipients (wf0 known already, tyf0 new); the first campaign's read again and found unchanged
    expect(second.counts).toMatchObject({ created: 1 });
    // campaigns sent from the first run's latest send on, not the whole month again
    expect(encCalls('/v2/messages').map((c) => c.query.get('fromTimestamp'))).toEqual([String(givingDay.actualSendTimestamp)]);
    for (const email of ['wf0@alumni.example', 'wf1@alumni.example', 'tyf0@alumni.example']) {
      expect(await crm().search('constituents', { criteria: [{ field: 'email', value: email }] }), email).toHaveLength(1);
    }
  }, 120_000);
});
