/**
 * A local fake of Stripe's API (docs.stripe.com/api), answering the calls Tributary makes as Stripe
 * documents them: a secret or restricted key as a bearer token; GET /v1/charges, /v1/payment_intents,
 * /v1/customers, /v1/subscriptions (canceled ones only with `status=canceled` or `all`), /v1/invoices
 * /v1/refunds, /v1/disputes, /v1/payouts and /v1/balance_transactions as list objects `{ object: 'list', data, has_more, url }`, newest first, with
 * `limit` (1 to 100, 10 when absent), `starting_after` (an id of the list; an unknown one is 404
 * resource_missing), `created[gte|gt|lte|lt]` (Unix seconds) and `expand[]=data.customer` on
 * charges, payment intents, subscriptions and invoices (anything else cannot be expanded: 400); GET
 * /v1/charges/{id} with `expand[]=customer`. Errors are `{ error: { type, code, message,
 * param } }`; a restricted key without the permission is 403; a 429 is Stripe's rate limit
 * (`code: rate_limit`, no Retry-After: Stripe asks for exponential backoff). Amounts are in the
 * currency's minor unit, currencies lower-case. Point Tributary at it with CONNECTOR_BASE_URL_STRIPE.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const STRIPE_KEY = 'sk_test_51RiversideFakeStripeKey000';
/** a restricted key that reads customers only */
export const STRIPE_CUSTOMERS_ONLY_KEY = 'rk_test_51RiversideCustomersOnlyKey00';
export const STRIPE_READ_KEY = 'rk_test_51RiversideReadKey0000000000';

type Obj = Record<string, unknown> & { id: string; created: number };
export interface StripeSeen { method: string; path: string; query: URLSearchParams; authorization: string | undefined; version: string | undefined }

export interface FakeStripe {
  url: string;
  seen: StripeSeen[];
  objects: { charges: Obj[]; payment_intents: Obj[]; customers: Obj[]; subscriptions: Obj[]; invoices: Obj[]; refunds: Obj[]; disputes: Obj[]; payouts: Obj[]; balance_transactions: Obj[] };
  customer(c: { name?: string; email?: string; created?: Date; phone?: string }): Obj;
  charge(c: { amount: number; currency?: string; customer?: string; billing?: { name?: string; email?: string }; created?: Date; description?: string }): Obj;
  /** refunds part or all of a charge: a refund object, and the charge's amount_refunded and refunded */
  refund(chargeId: string, amount?: number, created?: Date): Obj;
  /** the card holder disputes a charge: a dispute object, and the charge's `disputed` */
  dispute(chargeId: string, p?: { reason?: string; status?: string; created?: Date }): Obj;
  /** a payout to the bank, with its balance transaction */
  payout(p: { amount: number; arrival?: Date; status?: string; created?: Date }): Obj;
  /** a balance transaction of a charge: gross, Stripe's fee and net */
  balanceTransaction(p: { amount: number; fee: number; type?: string; source?: string; created?: Date }): Obj;
  paymentIntent(p: { amount: number; currency?: string; customer?: string; status?: string; created?: Date }): Obj;
  /** a subscription of one price, `quantity` times */
  subscription(p: { customer: string; unitAmount: number; quantity?: number; interval?: string; status?: string; created?: Date }): Obj;
  invoice(p: { customer: string; total: number; paid?: boolean; subscription?: string; created?: Date }): Obj;
  /** the next `n` calls answer 429 */
  throttle(n: number): void;
  clear(): void;
  close(): Promise<void>;
}

type Answer = [number, unknown];
const error = (status: number, type: string, message: string, more: Record<string, unknown> = {}): Answer => [status, { error: { type, message, ...more } }];
const randomId = (prefix: string) => `${prefix}_${Math.random().toString(36).slice(2, 12)}${Math.random().toString(36).slice(2, 12)}`;
const SINGULAR: Record<string, string> = { disputes: 'dispute', payouts: 'payout', balance_transactions: 'balance_transaction', charges: 'charge', payment_intents: 'payment_intent', customers: 'customer', subscriptions: 'subscription', invoices: 'invoice', refunds: 'refund' };
const EXPANDS_CUSTOMER = ['charges', 'payment_intents', 'subscriptions', 'invoices'];

export async function startFakeStripe(): Promise<FakeStripe> {
  const seen: StripeSeen[] = [];
  const objects: FakeStripe['objects'] = { charges: [], payment_intents: [], customers: [], subscriptions: [], invoices: [], refunds: [], disputes: [], payouts: [], balance_transactions: [] };
  let clock = Math.floor(Date.parse('2026-03-01T12:00:00Z') / 1000);
  const at = (d?: Date) => (d ? Math.floor(d.getTime() / 1000) : (clock += 1));
  let throttled = 0;

  const fake: FakeStripe = {
    url: '', seen, objects,
    customer(c) {
      const o: Obj = {
        id: randomId('cus'), object: 'customer', created: at(c.created), name: c.name ?? null, email: c.email ?? null, phone: c.phone ?? null,
        description: null, address: null, currency: 'usd', livemode: false, metadata: {},
      };
      objects.customers.push(o);
      return o;
    },
    charge(c) {
      const o: Obj = {
        id: randomId('ch'), object: 'charge', created: at(c.created), amount: c.amount, amount_captured: c.amount, amount_refunded: 0, refunded: false,
        currency: c.currency ?? 'usd', customer: c.customer ?? null, description: c.description ?? null, paid: true, status: 'succeeded', captured: true, disputed: false,
        billing_details: { name: c.billing?.name ?? null, email: c.billing?.email ?? null, phone: null, address: { line1: null, line2: null, city: null, state: null, postal_code: null, country: null } },
        payment_intent: randomId('pi'), payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242' } }, receipt_email: null,
        livemode: false, metadata: {},
      };
      objects.charges.push(o);
      return o;
    },
    refund(chargeId, amount, created) {
      const ch = objects.charges.find((c) => c.id === chargeId)!;
      const left = (ch.amount as number) - (ch.amount_refunded as number);
      const value = amount ?? left;
      ch.amount_refunded = (ch.amount_refunded as number) + value;
      ch.refunded = ch.amount_refunded === ch.amount;
      const r: Obj = { id: randomId('re'), object: 'refund', created: at(created), amount: value, currency: ch.currency, charge: ch.id, payment_intent: ch.payment_intent, reason: 'requested_by_customer', status: 'succeeded', metadata: {} };
      objects.refunds.push(r);
      return r;
    },
    dispute(chargeId, p = {}) {
      const ch = objects.charges.find((c) => c.id === chargeId)!;
      ch.disputed = true;
      const created = at(p.created);
      const d: Obj = {
        id: randomId('dp'), object: 'dispute', created, amount: ch.amount, currency: ch.currency, charge: ch.id, payment_intent: ch.payment_intent,
        reason: p.reason ?? 'fraudulent', status: p.status ?? 'needs_response', is_charge_refundable: false,
        evidence_details: { due_by: created + 7 * 86_400, has_evidence: false, past_due: false, submission_count: 0 }, livemode: false, metadata: {},
      };
      objects.disputes.push(d);
      return d;
    },
    payout(p) {
      const created = at(p.created);
      const txn = fake.balanceTransaction({ amount: -p.amount, fee: 0, type: 'payout', created: new Date(created * 1000) });
      const o: Obj = {
        id: randomId('po'), object: 'payout', created, amount: p.amount, currency: 'usd', arrival_date: p.arrival ? Math.floor(p.arrival.getTime() / 1000) : created + 2 * 86_400,
        status: p.status ?? 'paid', method: 'standard', type: 'bank_account', automatic: true, description: 'STRIPE PAYOUT', statement_descriptor: null,
        balance_transaction: txn.id, failure_code: null, failure_message: null, destination: randomId('ba'), livemode: false, metadata: {},
      };
      txn.source = o.id;
      objects.payouts.push(o);
      return o;
    },
    balanceTransaction(p) {
      const created = at(p.created);
      const o: Obj = {
        id: randomId('txn'), object: 'balance_transaction', created, available_on: created + 2 * 86_400, amount: p.amount, fee: p.fee, net: p.amount - p.fee,
        currency: 'usd', type: p.type ?? 'charge', reporting_category: p.type === 'payout' ? 'payout' : 'charge', status: 'available', description: null, source: p.source ?? null,
      };
      objects.balance_transactions.push(o);
      return o;
    },
    paymentIntent(p) {
      const status = p.status ?? 'succeeded';
      const o: Obj = {
        id: randomId('pi'), object: 'payment_intent', created: at(p.created), amount: p.amount, amount_received: status === 'succeeded' ? p.amount : 0, currency: p.currency ?? 'usd',
        customer: p.customer ?? null, description: null, status, latest_charge: status === 'succeeded' ? randomId('ch') : null, receipt_email: null, livemode: false, metadata: {},
      };
      objects.payment_intents.push(o);
      return o;
    },
    subscription(p) {
      const created = at(p.created);
      const canceled = p.status === 'canceled';
      const o: Obj = {
        id: randomId('sub'), object: 'subscription', created, start_date: created, customer: p.customer, status: p.status ?? 'active', currency: 'usd',
        cancel_at_period_end: false, canceled_at: canceled ? created + 86_400 : null, ended_at: canceled ? created + 86_400 : null, description: null, livemode: false, metadata: {},
        items: { object: 'list', has_more: false, url: '/v1/subscription_items', data: [{
          id: randomId('si'), object: 'subscription_item', quantity: p.quantity ?? 1,
          price: { id: randomId('price'), object: 'price', currency: 'usd', unit_amount: p.unitAmount, recurring: { interval: p.interval ?? 'month', interval_count: 1 } },
        }] },
      };
      objects.subscriptions.push(o);
      return o;
    },
    invoice(p) {
      const created = at(p.created);
      const customer = objects.customers.find((c) => c.id === p.customer);
      const o: Obj = {
        id: randomId('in'), object: 'invoice', created, customer: p.customer, customer_name: customer?.name ?? null, customer_email: customer?.email ?? null,
        number: `RIV-${String(objects.invoices.length + 1).padStart(4, '0')}`, status: p.paid === false ? 'open' : 'paid', currency: 'usd',
        total: p.total, amount_due: p.total, amount_paid: p.paid === false ? 0 : p.total, amount_remaining: p.paid === false ? p.total : 0,
        status_transitions: { paid_at: p.paid === false ? null : created }, due_date: null, description: null,
        parent: p.subscription ? { type: 'subscription_details', subscription_details: { subscription: p.subscription } } : null, livemode: false, metadata: {},
      };
      objects.invoices.push(o);
      return o;
    },
    throttle(n) { throttled = n; },
    clear() { for (const list of Object.values(objects)) list.length = 0; seen.length = 0; },
    close: async () => {},
  };

  function list(kind: keyof FakeStripe['objects'], q: URLSearchParams, key: string): Answer {
    if (key === STRIPE_CUSTOMERS_ONLY_KEY && kind !== 'customers') {
      return error(403, 'invalid_request_error', `The provided key '${key.slice(0, 8)}***${key.slice(-4)}' does not have the required permissions for this endpoint on account 'acct_1Riverside'. Having the 'rak_charge_read' permission would allow this request to continue.`);
    }
    const limit = q.has('limit') ? Number(q.get('limit')) : 10;
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      return error(400, 'invalid_request_error', 'Invalid integer: limit must be between 1 and 100.', { code: 'parameter_invalid_integer', param: 'limit' });
    }
    const expand = q.getAll('expand[]');
    for (const e of expand) {
      if (!(EXPANDS_CUSTOMER.includes(kind) && e === 'data.customer')) return error(400, 'invalid_request_error', `This property cannot be expanded (${e}).`, { param: 'expand' });
    }
    let rows = objects[kind].map((o, i) => ({ o, i }));
    for (const [op, test] of [['gte', (a: number, b: number) => a >= b], ['gt', (a: number, b: number) => a > b], ['lte', (a: number, b: number) => a <= b], ['lt', (a: number, b: number) => a < b]] as const) {
      const v = q.get(`created[${op}]`);
      if (v === null) continue;
      if (!/^\d+$/.test(v)) return error(400, 'invalid_request_error', `Invalid integer: ${v}`, { code: 'parameter_invalid_integer', param: `created[${op}]` });
      rows = rows.filter(({ o }) => test(o.created, Number(v)));
    }
    if (kind === 'subscriptions') {
      const status = q.get('status');
      rows = rows.filter(({ o }) => (status ? status === 'all' || o.status === status : o.status !== 'canceled'));
    }
    // newest first, as Stripe lists
    rows.sort((a, b) => b.o.created - a.o.created || b.i - a.i);
    const after = q.get('starting_after');
    if (after) {
      const at = rows.findIndex(({ o }) => o.id === after);
      if (at < 0) return error(404, 'invalid_request_error', `No such ${SINGULAR[kind]}: '${after}'`, { code: 'resource_missing', param: 'starting_after' });
      rows = rows.slice(at + 1);
    }
    const page = rows.slice(0, limit).map(({ o }) => {
      if (expand.includes('data.customer') && typeof o.customer === 'string') {
        return { ...o, customer: objects.customers.find((c) => c.id === o.customer) ?? o.customer };
      }
      return o;
    });
    return [200, { object: 'list', data: page, has_more: rows.length > limit, url: `/v1/${kind}` }];
  }

  /** GET /v1/charges/{id}, `expand[]=customer` */
  function charge(id: string, q: URLSearchParams): Answer {
    const o = objects.charges.find((c) => c.id === id);
    if (!o) return error(404, 'invalid_request_error', `No such charge: '${id}'`, { code: 'resource_missing', param: 'id' });
    for (const e of q.getAll('expand[]')) if (e !== 'customer') return error(400, 'invalid_request_error', `This property cannot be expanded (${e}).`, { param: 'expand' });
    const customer = q.getAll('expand[]').includes('customer') && typeof o.customer === 'string' ? objects.customers.find((c) => c.id === o.customer) ?? o.customer : o.customer;
    return [200, { ...o, customer }];
  }

  const server = await startVendorServer((req, res) => {
    const authorization = req.headers.authorization;
    const version = req.headers['stripe-version'] as string | undefined;
    seen.push({ method: req.method, path: req.url.pathname, query: req.url.searchParams, authorization, version });
    const key = /^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '';
    let answer: Answer;
    if (![STRIPE_KEY, STRIPE_READ_KEY, STRIPE_CUSTOMERS_ONLY_KEY].includes(key)) {
      answer = error(401, 'invalid_request_error', key ? `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(8)}${key.slice(-4)}` : 'You did not provide an API key.');
    } else if (throttled > 0) {
      throttled--;
      answer = error(429, 'invalid_request_error', 'Request rate limit exceeded. Learn more about rate limits here https://stripe.com/docs/rate-limits.', { code: 'rate_limit' });
    } else {
      const m = /^\/v1\/(charges|payment_intents|customers|subscriptions|invoices|refunds|disputes|payouts|balance_transactions)$/.exec(req.url.pathname);
      const one = /^\/v1\/charges\/([^/]+)$/.exec(req.url.pathname);
      answer = m && req.method === 'GET'
        ? list(m[1] as keyof FakeStripe['objects'], req.url.searchParams, key)
        : one && req.method === 'GET' ? charge(decodeURIComponent(one[1]!), req.url.searchParams)
        : error(404, 'invalid_request_error', `Unrecognized request URL (${req.method}: ${req.url.pathname}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`);
    }
    sendJson(res, answer[0], answer[1], { 'request-id': randomId('req') });
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
