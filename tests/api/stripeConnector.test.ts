/**
 * Stripe as a source through the connector kit, against the local fake (tests/support/vendors/stripe.ts):
 * our requests as Stripe documents them (bearer key, list objects newest first, `created[gte]`,
 * `starting_after` while `has_more`, `limit=100`, `expand[]=data.customer` on charges), amounts from
 * the currency's minor unit, a 429 in the middle, a bad key and a key without the permission refused
 * in words; then a whole formula, Stripe charges → the Sandbox CRM's constituents with their gifts,
 * first run and a later one.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionProblem, type ConnectorContext } from '../../server/connectors/connector.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { amountOf, STRIPE_VERSION, stripeConnector } from '../../server/connectors/stripe/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { connectedSource, type Send, type TenantSession, runToEnd } from '../support/engineRun.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { STRIPE_CUSTOMERS_ONLY_KEY, STRIPE_KEY, STRIPE_READ_KEY, startFakeStripe, type FakeStripe } from '../support/vendors/stripe.ts';
import { pullAll } from '../support/connectorContext.ts';

let st: FakeStripe;
let vendor: VendorFakeWithServer<FakeStripe>;
let server: TestServer;

beforeAll(async () => {
  vendor = await withVendorFake('stripe', startFakeStripe, { server: { work: true, env: { RUN_SLICE_MS: '100000' } } });
  ({ fake: st, server } = vendor);
}, 120_000);
afterAll(async () => {
  await vendor?.close();
});

const ctx = (secretKey = STRIPE_KEY): ConnectorContext => ({ tenant: {} as ConnectorContext['tenant'], settings: { secretKey }, dataDir: '/tmp' });
const all = pullAll;
const lists = (path: string) => st.seen.filter((s) => s.path === path);
const day = (d: number, h = 12) => new Date(Date.UTC(2026, 2, d, h));

describe('the Stripe connector', () => {
  beforeEach(() => st.clear());

  it('signs in with a secret or restricted key as a bearer token; a bad key, and a key without the permission, refused in words', async () => {
    await expect(stripeConnector.test(ctx())).resolves.toEqual({ detail: 'Stripe accepted the key (test mode).' });
    await expect(stripeConnector.test(ctx(STRIPE_READ_KEY))).resolves.toEqual({ detail: 'Stripe accepted the key (test mode).' });
    expect(st.seen.map((s) => s.version)).toEqual([STRIPE_VERSION, STRIPE_VERSION]);
    expect(st.seen.map((s) => [s.path, s.query.get('limit'), s.authorization])).toEqual([
      ['/v1/charges', '1', `Bearer ${STRIPE_KEY}`], ['/v1/charges', '1', `Bearer ${STRIPE_READ_KEY}`],
    ]);
    const bad = await stripeConnector.test(ctx('sk_test_51NotAKeyStripeKnows000000')).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ConnectionProblem);
    expect(bad).toMatchObject({ code: 'clientdatasource-connection-failed', message: 'Stripe refused the secret key (HTTP 401).' });
    const narrow = await stripeConnector.test(ctx(STRIPE_CUSTOMERS_ONLY_KEY)).catch((e: unknown) => e);
    expect(narrow).toMatchObject({ code: 'clientdatasource-connection-failed' });
    expect((narrow as Error).message).toMatch(/^Stripe refused access \(HTTP 403\): The provided key 'rk_test_\*\*\*.+' does not have the required permissions/);
    // the customers-only key still reads customers
    await expect(all(stripeConnector.pull(ctx(STRIPE_CUSTOMERS_ONLY_KEY), 'customers', null, {}))).resolves.toHaveLength(1);
  });

  it('lists the objects it reads and their fields', async () => {
    expect((await stripeConnector.listObjects(ctx())).map((o) => o.name)).toEqual(['charges', 'payment_intents', 'customers', 'subscriptions', 'invoices', 'refunds', 'disputes', 'payouts', 'balance_transactions']);
    const fields = (await stripeConnector.describeFields(ctx(), 'charges')).map((f) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['amount', 'currency', 'refunded', 'amount_refunded', 'customer_email', 'customer_last_name', 'date']));
    await expect(stripeConnector.describeFields(ctx(), 'transfers')).rejects.toThrow('Tributary reads Stripe charges, payment intents, customers, subscriptions, invoices, refunds, disputes, payouts and balance transactions; transfers is not one of them yet.');
  });

  it('amounts from the currency\'s minor unit: cents become decimals, zero-decimal currencies stay whole', () => {
    expect(amountOf(1234, 'usd')).toBe(12.34);
    expect(amountOf(1234, 'JPY')).toBe(1234);
    expect(amountOf(5, 'eur')).toBe(0.05);
    expect(amountOf(12340, 'kwd')).toBe(12.34);
    expect(amountOf(null, 'usd')).toBeUndefined();
  });

  it('charges with their customer expanded, every page of the window, the watermark moved to the newest only at the end', async () => {
    const ada = st.customer({ name: 'Ada King Lovelace', email: 'ada@analytical.example', created: day(1) });
    for (let i = 0; i < 5; i++) st.charge({ amount: 1000 + i, currency: 'usd', customer: ada.id, created: day(2, 9 + i) });
    // a guest's charge: the name and e-mail from its billing details
    const guest = st.charge({ amount: 5000, currency: 'jpy', billing: { name: 'Grace Hopper', email: 'grace@navy.example' }, created: day(3) });
    const refunded = st.charge({ amount: 2500, currency: 'usd', customer: ada.id, created: day(4) });
    st.refund(refunded.id);
    const part = st.charge({ amount: 4000, currency: 'usd', customer: ada.id, created: day(5) });
    st.refund(part.id, 1500);

    const batches = await all(stripeConnector.pull(ctx(), 'charges', null, { batchSize: 3 }));
    expect(batches.flatMap((b) => b.records)).toHaveLength(8);
    const calls = lists('/v1/charges');
    expect(calls.map((c) => c.query.get('limit'))).toEqual(['3', '3', '3']);
    expect(calls[0]!.query.get('expand[]')).toBe('data.customer');
    expect(calls[0]!.query.has('created[gte]')).toBe(false);
    expect(calls[0]!.query.has('starting_after')).toBe(false);
    expect(calls[1]!.query.get('starting_after')).toBe(batches[0]!.records.at(-1)!.id);

    const by = new Map(batches.flatMap((b) => b.records).map((r) => [r.id, r.fields]));
    expect(by.get(guest.id)).toMatchObject({ amount: 5000, currency: 'JPY', customer_name: 'Grace Hopper', customer_first_name: 'Grace', customer_last_name: 'Hopper', customer_email: 'grace@navy.example', state: 'Paid', refunded: false });
    expect(by.get(refunded.id)).toMatchObject({ amount: 25, amount_refunded: 25, net_amount: 0, refunded: true, state: 'Refunded', customer: ada.id, customer_email: 'ada@analytical.example', customer_first_name: 'Ada King', customer_last_name: 'Lovelace' });
    expect(by.get(part.id)).toMatchObject({ amount: 40, amount_refunded: 15, net_amount: 25, refunded: false, state: 'Partly refunded (15 USD)', date: '2026-03-05', payment_method: 'card', card_brand: 'visa' });

    // the date stays while the window is read; the newest created once it is all read
    expect(JSON.parse(batches[0]!.watermark!)).toEqual({ since: null, next: batches[0]!.records.at(-1)!.id, latest: '2026-03-05T12:00:00.000Z' });
    const watermark = batches.at(-1)!.watermark!;
    expect(JSON.parse(watermark)).toEqual({ since: '2026-03-05T12:00:00.000Z', next: null, latest: null });

    st.seen.length = 0;
    const later = st.charge({ amount: 99, currency: 'usd', customer: ada.id, created: day(6) });
    // a charge read on the first pull, refunded since: read again, after the window's charges
    const early = st.objects.charges[0]!;
    st.refund(early.id, undefined, day(6, 13));
    const againBatches = await all(stripeConnector.pull(ctx(), 'charges', watermark, {}));
    const again = againBatches.flatMap((b) => b.records);
    // created[gte] reads the watermark's own second again, harmlessly
    expect(again.map((r) => r.id)).toEqual([later.id, part.id, early.id]);
    expect(again[2]!.fields).toMatchObject({ amount: 10, refunded: true, state: 'Refunded', customer_email: 'ada@analytical.example' });
    expect(JSON.parse(againBatches[0]!.watermark!)).toMatchObject({ since: '2026-03-05T12:00:00.000Z', next: 'refunds:' });
    expect(JSON.parse(againBatches.at(-1)!.watermark!)).toEqual({ since: '2026-03-06T12:00:00.000Z', next: null, latest: null });
    expect(lists('/v1/refunds')[0]!.query.get('created[gte]')).toBe(String(Date.UTC(2026, 2, 5, 12) / 1000));
    expect(lists(`/v1/charges/${early.id}`).map((c) => c.query.get('expand[]'))).toEqual(['customer']);
    expect(lists('/v1/charges')[0]!.query.get('created[gte]')).toBe(String(Date.UTC(2026, 2, 5, 12) / 1000));
    expect(lists('/v1/charges')[0]!.query.get('limit')).toBe('100');
  });

  it('a 429 in the middle of the pages is waited out', async () => {
    for (let i = 0; i < 4; i++) st.customer({ name: `Donor ${i}`, email: `d${i}@example.org`, created: day(10, i) });
    const pages = stripeConnector.pull(ctx(), 'customers', null, { batchSize: 2 })[Symbol.asyncIterator]();
    const first = await pages.next();
    st.throttle(1);
    const second = await pages.next();
    expect((await pages.next()).done).toBe(true);
    expect([...first.value!.records, ...second.value!.records].map((r) => r.fields.email)).toEqual(['d3@example.org', 'd2@example.org', 'd1@example.org', 'd0@example.org']);
    expect(lists('/v1/customers')).toHaveLength(3);
    expect(first.value!.records[0]!.fields).toMatchObject({ first_name: 'Donor', last_name: '3', currency: 'USD' });
  });

  it('a page cursor Stripe no longer knows (its customer deleted between slices) reads the window again from its newest; a revoked key stops the pull in words', async () => {
    for (let i = 0; i < 5; i++) st.customer({ name: `Gone ${i}`, email: `g${i}@example.org`, created: day(11, i) });
    const first = await stripeConnector.pull(ctx(), 'customers', null, { batchSize: 2 })[Symbol.asyncIterator]().next();
    const watermark = first.value!.watermark!;
    const cursor = JSON.parse(watermark).next as string;
    st.objects.customers.splice(st.objects.customers.findIndex((c) => c.id === cursor), 1);
    const rest = (await all(stripeConnector.pull(ctx(), 'customers', watermark, { batchSize: 2 }))).flatMap((b) => b.records.map((r) => r.fields.email));
    // g3 was the cursor: g4 (stored already) is read again
    expect(rest).toEqual(['g4@example.org', 'g2@example.org', 'g1@example.org', 'g0@example.org']);
    expect(lists('/v1/customers').slice(1).map((c) => c.query.get('starting_after'))).toEqual([cursor, null, expect.any(String)]);
    await expect(all(stripeConnector.pull(ctx('rk_test_51RevokedKeyStripeNoLongerKnows'), 'charges', null, {}))).rejects.toThrow('Stripe refused the restricted key (HTTP 401).');
  });

  it('refunds, and a run once reads only its window', async () => {
    const a = st.charge({ amount: 1000, created: day(12) });
    const b = st.charge({ amount: 2000, created: day(12) });
    st.refund(a.id, 400, day(13));
    const inWindow = st.refund(b.id, undefined, day(14));
    st.refund(a.id, 600, day(16));
    const window = { from: day(14), to: day(15) };
    const got = (await all(stripeConnector.pull(ctx(), 'refunds', null, { window }))).flatMap((x) => x.records);
    expect(got).toEqual([{ id: inWindow.id, fields: expect.objectContaining({ amount: 20, currency: 'USD', charge: b.id, reason: 'requested_by_customer', status: 'succeeded' }) }]);
    expect(Object.fromEntries(lists('/v1/refunds')[0]!.query)).toMatchObject({ 'created[gte]': String(day(14).getTime() / 1000), 'created[lt]': String(day(15).getTime() / 1000) });
  });
});

describe('payment intents, subscriptions and invoices', () => {
  beforeEach(() => st.clear());

  it('each with its customer expanded and its amounts turned into amounts; canceled subscriptions too', async () => {
    const ada = st.customer({ name: 'Ada Lovelace', email: 'ada@analytical.example', created: day(1) });
    const pi = st.paymentIntent({ amount: 4200, customer: ada.id, created: day(2) });
    const waiting = st.paymentIntent({ amount: 300000, currency: 'jpy', status: 'requires_payment_method', created: day(3) });
    const monthly = st.subscription({ customer: ada.id, unitAmount: 1500, quantity: 2, created: day(4) });
    const ended = st.subscription({ customer: ada.id, unitAmount: 999, interval: 'year', status: 'canceled', created: day(5) });
    const paid = st.invoice({ customer: ada.id, total: 3000, subscription: monthly.id, created: day(6) });
    const open = st.invoice({ customer: ada.id, total: 1250, paid: false, created: day(7) });

    const read = async (object: string) => (await all(stripeConnector.pull(ctx(), object, null, {}))).flatMap((b) => b.records);
    expect(await read('payment_intents')).toEqual([
      { id: waiting.id, fields: expect.objectContaining({ amount: 300000, amount_received: 0, currency: 'JPY', status: 'requires_payment_method' }) },
      { id: pi.id, fields: expect.objectContaining({ amount: 42, amount_received: 42, currency: 'USD', status: 'succeeded', customer: ada.id, customer_email: 'ada@analytical.example', customer_last_name: 'Lovelace', latest_charge: pi.latest_charge }) },
    ]);
    const subs = await read('subscriptions');
    expect(subs.map((r) => r.id)).toEqual([ended.id, monthly.id]);
    expect(subs[1]!.fields).toMatchObject({ amount: 30, currency: 'USD', interval: 'month', status: 'active', start_date: '2026-03-04', customer_name: 'Ada Lovelace' });
    expect(subs[0]!.fields).toMatchObject({ amount: 9.99, interval: 'year', status: 'canceled', canceled_at: '2026-03-06T12:00:00.000Z' });
    const invoices = await read('invoices');
    expect(invoices.map((r) => r.id)).toEqual([open.id, paid.id]);
    expect(invoices[1]!.fields).toMatchObject({ total: 30, amount_paid: 30, amount_remaining: 0, status: 'paid', subscription: monthly.id, paid_at: '2026-03-06T12:00:00.000Z', customer_email: 'ada@analytical.example' });
    expect(invoices[0]!.fields).toMatchObject({ total: 12.5, amount_paid: 0, amount_remaining: 12.5, status: 'open', number: 'RIV-0002' });
    for (const path of ['/v1/payment_intents', '/v1/subscriptions', '/v1/invoices']) expect(lists(path)[0]!.query.get('expand[]'), path).toBe('data.customer');
    expect(lists('/v1/subscriptions')[0]!.query.get('status')).toBe('all');
    const fields = (await stripeConnector.describeFields(ctx(), 'subscriptions')).map((f) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['amount', 'interval', 'status', 'customer_email']));
  });
});

describe('disputes, payouts and balance transactions', () => {
  beforeEach(() => st.clear());

  it('a later pull of charges reads the disputes opened since the watermark, after the refunds, and shows their charges disputed', async () => {
    const ada = st.customer({ name: 'Ada Lovelace', email: 'ada@analytical.example', created: day(1) });
    const gift = st.charge({ amount: 4000, customer: ada.id, created: day(2) });
    const kept = st.charge({ amount: 1500, customer: ada.id, created: day(3) });
    const first = await all(stripeConnector.pull(ctx(), 'charges', null, {}));
    expect(first.flatMap((b) => b.records).map((r) => r.fields.disputed)).toEqual([false, false]);
    expect(st.seen.some((s) => s.path === '/v1/disputes')).toBe(false);
    const watermark = first.at(-1)!.watermark!;
    const opened = st.dispute(gift.id, { reason: 'fraudulent', created: day(5) });
    st.seen.length = 0;
    const batches = await all(stripeConnector.pull(ctx(), 'charges', watermark, { batchSize: 1 }));
    const again = batches.flatMap((b) => b.records);
    // the watermark's own charge read again harmlessly, then the disputed one
    expect(again.map((r) => r.id)).toEqual([kept.id, gift.id]);
    expect(again[1]!.fields).toMatchObject({ amount: 40, disputed: true, state: 'Disputed', dispute_status: 'needs_response', dispute_reason: 'fraudulent', customer_email: 'ada@analytical.example' });
    expect(st.seen.map((s) => s.path)).toEqual(['/v1/charges', '/v1/refunds', '/v1/disputes', `/v1/charges/${gift.id}`]);
    expect(lists('/v1/disputes')[0]!.query.get('created[gte]')).toBe(String(day(3).getTime() / 1000));
    expect(batches.map((b) => JSON.parse(b.watermark!).next)).toEqual(['refunds:', 'disputes:', null]);
    // a pull stopped between the refunds and the disputes goes on with the disputes
    const resumed = (await all(stripeConnector.pull(ctx(), 'charges', batches[1]!.watermark, {}))).flatMap((b) => b.records);
    expect(resumed.map((r) => r.id)).toEqual([gift.id]);
    // disputes are an object of their own too
    expect((await all(stripeConnector.pull(ctx(), 'disputes', null, {}))).flatMap((b) => b.records)).toEqual([
      { id: opened.id, fields: expect.objectContaining({ amount: 40, currency: 'USD', charge: gift.id, reason: 'fraudulent', status: 'needs_response', evidence_due_by: '2026-03-12T12:00:00.000Z' }) },
    ]);
  });

  it('payouts and balance transactions, created since the watermark, paged, amounts turned into amounts', async () => {
    const fee = st.balanceTransaction({ amount: 10000, fee: 320, source: 'ch_1', created: day(1) });
    const payout = st.payout({ amount: 9680, arrival: day(4), created: day(2) });
    const payouts = (await all(stripeConnector.pull(ctx(), 'payouts', null, {}))).flatMap((b) => b.records);
    expect(payouts).toEqual([{ id: payout.id, fields: expect.objectContaining({
      amount: 96.8, currency: 'USD', arrival_date: '2026-03-04', status: 'paid', method: 'standard', type: 'bank_account', balance_transaction: payout.balance_transaction,
    }) }]);
    const batches = await all(stripeConnector.pull(ctx(), 'balance_transactions', null, { batchSize: 1 }));
    expect(batches.flatMap((b) => b.records).map((r) => [r.id, r.fields.amount, r.fields.fee, r.fields.net, r.fields.type])).toEqual([
      [payout.balance_transaction, -96.8, 0, -96.8, 'payout'], [fee.id, 100, 3.2, 96.8, 'charge'],
    ]);
    expect(lists('/v1/balance_transactions').map((c) => c.query.get('starting_after'))).toEqual([null, payout.balance_transaction]);
    const newer = st.payout({ amount: 500, created: day(6) });
    const watermark = (await all(stripeConnector.pull(ctx(), 'payouts', null, {}))).at(-1)!.watermark;
    expect(JSON.parse(watermark!)).toMatchObject({ since: '2026-03-06T12:00:00.000Z' });
    st.payout({ amount: 700, created: day(8) });
    const later = (await all(stripeConnector.pull(ctx(), 'payouts', watermark, {}))).flatMap((b) => b.records);
    // the watermark's own second read again, harmlessly
    expect(later.map((r) => r.fields.amount)).toEqual([7, 5]);
    expect(lists('/v1/payouts').at(-1)!.query.get('created[gte]')).toBe(String(day(6).getTime() / 1000));
    expect(newer.id).toBe(later[1]!.id);
  });
});

describe('a whole formula: Stripe charges → Sandbox CRM constituents and their gifts', () => {
  const F = '/web-api/v1/formulas';
  const DS = '/integrations/v1/data-sources';
  let admin: TenantSession;
  let send: Send;
  const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
  const crm = () => sandboxCrmStore(forTenant(server.database.db, admin.tenantId));

  const runOnce = (formula: string) => runToEnd(send, formula);

  it('the wizard\'s calls, a first run (a 429 waited out) writing each donor once with their gifts, the refunded one said so; a later run only the new charge and the one refunded since', async () => {
    st.clear();
    let stripe: string, crmId: string, tested: Record<string, unknown>;
    ({ admin, send, sourceId: stripe, crmId, tested } = await connectedSource(server.url, 'stripe', 'Riverside Stripe', { secretKey: STRIPE_READ_KEY }));
    expect(tested).toMatchObject({ status: 'success', detail: 'Stripe accepted the key (test mode).' });
    expect((await json<{ objects: { name: string }[] }>(await send(`${DS}/${stripe}/objects`))).objects.map((o) => o.name)).toEqual(['charges', 'payment_intents', 'customers', 'subscriptions', 'invoices', 'refunds', 'disputes', 'payouts', 'balance_transactions']);
    const { systems } = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.find((s) => s.system === 'stripe')?.does).toBe('source');

    const ada = st.customer({ name: 'Ada Lovelace', email: 'ada.stripe@example.org', created: day(1) });
    st.charge({ amount: 2500, customer: ada.id, created: day(2), description: 'Spring appeal' });
    const back = st.charge({ amount: 1000, customer: ada.id, created: day(3), description: 'Spring appeal' });
    st.refund(back.id);
    st.charge({ amount: 5000, billing: { name: 'Grace Hopper', email: 'grace.stripe@example.org' }, created: day(4), description: 'Building fund' });

    const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name: 'Stripe gifts' } }));
    expect((await send(`${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: stripe, object: 'charges' }, destination: { dataSourceId: crmId, object: 'constituents' } } })).status).toBe(200);
    const parts = {
      ...VALID_PARTS, transform: { fields: [] }, validation: { rules: [] },
      routing: { ...VALID_PARTS.routing, unmatched: 'ready' as const, singleMatch: 'ready' as const },
      schedule: { mode: 'continuous' as const }, autosend: { enabled: true },
      mapping: { fields: [
        { destination: 'firstName', kind: 'source', source: 'customer_first_name' }, { destination: 'lastName', kind: 'source', source: 'customer_last_name' },
        { destination: 'email', kind: 'source', source: 'customer_email' },
      ] },
      matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'customer_email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
      gift: { fields: [
        { destination: 'amount', kind: 'source', source: 'amount' }, { destination: 'date', kind: 'source', source: 'date' },
        { destination: 'fund', kind: 'source', source: 'description' }, { destination: 'type', kind: 'source', source: 'state' },
      ] },
    };
    for (const [part, body] of Object.entries(parts)) {
      const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
      expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
    }
    const fields = (await json<{ fields: { name: string; type: string }[] }>(await send(`${DS}/${stripe}/objects/charges/fields`))).fields;
    expect(fields).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'customer_email', type: 'email' }), expect.objectContaining({ name: 'amount', type: 'number' })]));
    // a dry run previews the donors and writes nothing
    const dry = await send(`${F}/${id}/dry-run`, { method: 'POST', body: { limit: 10 } });
    expect(dry.status, await dry.clone().text()).toBe(200);
    // two donors new, Ada's second charge her again; each gift held for its donor
    expect((await json<{ byOutcome: Record<string, number> }>(dry)).byOutcome).toMatchObject({ create: 2, update: 1, hold: 3, exception: 0 });
    expect(await crm().search('constituents', { criteria: [{ field: 'email', value: 'ada.stripe@example.org' }] })).toEqual([]);
    const activated = await send(`${F}/${id}/activate`, { method: 'POST' });
    expect(activated.status, await activated.clone().text()).toBe(200);

    st.throttle(1);
    const first = await runOnce(id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts).toMatchObject({ collected: 3, gifts: 3 });
    const [adaC, ...more] = await crm().search('constituents', { criteria: [{ field: 'email', value: 'ada.stripe@example.org' }] });
    expect(more).toEqual([]);
    expect(adaC!.fields).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace' });
    const adaGifts = (await crm().search('gifts', { criteria: [{ field: 'constituentId', value: adaC!.id }] })).map((g) => g.fields);
    expect(adaGifts).toEqual(expect.arrayContaining([
      expect.objectContaining({ amount: '25.00', date: '2026-03-02', fund: 'Spring appeal', type: 'Paid' }),
      expect.objectContaining({ amount: '10.00', date: '2026-03-03', type: 'Refunded' }),
    ]));
    expect(adaGifts).toHaveLength(2);
    const [grace] = await crm().search('constituents', { criteria: [{ field: 'email', value: 'grace.stripe@example.org' }] });
    expect((await crm().search('gifts', { criteria: [{ field: 'constituentId', value: grace!.id }] })).map((g) => g.fields)).toEqual([
      expect.objectContaining({ amount: '50.00', date: '2026-03-04', fund: 'Building fund' }),
    ]);

    st.seen.length = 0;
    st.charge({ amount: 700, customer: ada.id, created: day(6), description: 'Spring appeal' });
    // Ada's first gift refunded since the first run
    st.refund(st.objects.charges[0]!.id, undefined, day(6, 13));
    const second = await runOnce(id);
    expect(second.status, JSON.stringify(second)).toBe('finished');
    // the new charge, the newest of the first run (the watermark's own second, read again harmlessly), and the one refunded since
    expect(second.counts.collected).toBeLessThanOrEqual(3);
    expect(lists('/v1/charges')[0]!.query.get('created[gte]')).toBe(String(day(4).getTime() / 1000));
    expect(await crm().search('constituents', { criteria: [{ field: 'email', value: 'ada.stripe@example.org' }] })).toHaveLength(1);
    const after = (await crm().search('gifts', { criteria: [{ field: 'constituentId', value: adaC!.id }] })).map((g) => g.fields);
    expect(after).toHaveLength(3);
    expect(after).toEqual(expect.arrayContaining([
      expect.objectContaining({ amount: '25.00', date: '2026-03-02', type: 'Refunded' }), expect.objectContaining({ amount: '7.00', date: '2026-03-06', type: 'Paid' }),
    ]));
  }, 120_000);
});
