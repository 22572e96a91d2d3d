/**
 * Stripe as a source, on the connector kit: the secret key or a restricted read key (`rk_…`) as a
 * bearer token at https://api.stripe.com/v1. Stripe's error body is `{ error: { type, code,
 * message } }`; its 429 carries no Retry-After (Stripe asks for exponential backoff), which the
 * kit's client does; calls are paced to 25 a second per key (Stripe's test-mode read limit, the
 * lower of its two).
 *
 * Source: charges, payment intents, subscriptions and invoices (each with its customer expanded,
 * `expand[]=data.customer`; subscriptions canceled too, `status=all`), customers, refunds, disputes,
 * payouts and balance transactions created since the watermark (`created[gte]`), paged with `starting_after` while
 * `has_more` says so, 100 a page. Stripe lists newest first, so the watermark's date stays where
 * it was while the window is read (a page's position is its last id), and moves to the newest
 * `created` seen only with the window's last batch, once every page before it is stored; a run
 * once reads `created[gte]` to `created[lt]` of its window. Amounts are in the currency's minor
 * unit: turned into amounts (zero-decimal currencies such as JPY stay whole), the currency
 * upper-cased. A charge carries its customer's name and e-mail (the expanded customer's, else its
 * billing details'), and what was refunded of it; a later pull of charges also reads the refunds
 * made since the watermark, then the disputes opened since it, and reads their charges again (`GET
 * /v1/charges/{id}`), so a gift written before its refund or dispute is shown refunded or disputed
 * (a disputed charge carries its dispute's status and reason).
 *
 * Our own thin client on the kit: the `stripe` package is not among the project's packages.
 */
import { createHash } from 'node:crypto';
import { stripe } from '../../../src/domain/connectors/fundraising.ts';
import { ConnectorInputError, processingError, refused, sourceOnly, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord } from '../connector.ts';
import { cursorPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { sharedPacer } from '../kit/pace.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';

const NAME = 'Stripe';
/** objects a page: Stripe's most */
export const STRIPE_PAGE = 100;
const CALLS_PER_SECOND = 25;
/** the API version the records are read in, whatever the account's default: its shapes are those this file reads (an invoice's subscription at its top, a payment intent's latest_charge) */
export const STRIPE_VERSION = '2024-06-20';

const OBJECTS = ['charges', 'payment_intents', 'customers', 'subscriptions', 'invoices', 'refunds', 'disputes', 'payouts', 'balance_transactions'] as const;
type StripeObject = (typeof OBJECTS)[number];

function objectOf(object: string): StripeObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as StripeObject;
  throw new ConnectorInputError(`Tributary reads Stripe charges, payment intents, customers, subscriptions, invoices, refunds, disputes, payouts and balance transactions; ${object} is not one of them yet.`);
}

/** Stripe's words: the error's message, with its code when it has one. */
export function stripeMessageOf(body: unknown): string {
  const e = body && typeof body === 'object' ? (body as { error?: { type?: unknown; code?: unknown; message?: unknown } }).error : undefined;
  if (!e || typeof e !== 'object') return '';
  const message = typeof e.message === 'string' ? e.message : '';
  const code = typeof e.code === 'string' ? e.code : typeof e.type === 'string' ? e.type : '';
  return [message, code && `(${code})`].filter(Boolean).join(' ').slice(0, 500);
}

export function stripeClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  const key = (ctx.settings.secretKey ?? '').trim();
  if (!key) throw refused('Stripe needs a secret or restricted key.');
  return vendorClient({
    system: 'stripe', name: NAME, baseUrl: 'https://api.stripe.com', signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`stripe:${createHash('sha256').update(key).digest('hex')}`, CALLS_PER_SECOND),
    credential: key.startsWith('rk_') ? 'restricted key' : 'secret key',
    auth: async () => ({ authorization: `Bearer ${key}`, 'stripe-version': STRIPE_VERSION }),
    messageOf: stripeMessageOf,
  });
}

/** Currencies Stripe counts in whole units, and those it counts in thousandths (docs.stripe.com/currencies). */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** An amount in the currency's minor unit as an amount: 1234 USD → 12.34, 1234 JPY → 1234. */
export function amountOf(minor: unknown, currency: unknown): number | undefined {
  if (typeof minor !== 'number' || !Number.isFinite(minor)) return undefined;
  const c = String(currency ?? '').toUpperCase();
  const places = ZERO_DECIMAL.has(c) ? 0 : THREE_DECIMAL.has(c) ? 3 : 2;
  return Number((minor / 10 ** places).toFixed(places));
}

const iso = (seconds: unknown) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : undefined);
const seconds = (isoDate: string | Date) => Math.floor((isoDate instanceof Date ? isoDate.getTime() : Date.parse(isoDate)) / 1000);

/** "Ada King Lovelace" → first "Ada King", last "Lovelace" (the constituent's lastName is required). */
function nameParts(name: unknown): { first?: string; last?: string } {
  const words = typeof name === 'string' ? name.trim().split(/\s+/).filter(Boolean) : [];
  if (!words.length) return {};
  if (words.length === 1) return { last: words[0] };
  return { first: words.slice(0, -1).join(' '), last: words.at(-1) };
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

function clean(fields: Obj): Obj {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}

function metadata(m: unknown): Obj {
  return Object.fromEntries(Object.entries(obj(m)).map(([k, v]) => [`metadata.${k}`, v]));
}

function address(prefix: string, a: unknown): Obj {
  const o = obj(a);
  return { [`${prefix}line1`]: o.line1, [`${prefix}line2`]: o.line2, [`${prefix}city`]: o.city, [`${prefix}state`]: o.state, [`${prefix}postal_code`]: o.postal_code, [`${prefix}country`]: o.country };
}

export function customerRecord(c: Obj): SourceRecord {
  const { first, last } = nameParts(c.name);
  return {
    id: String(c.id),
    fields: clean({
      id: c.id, created: iso(c.created), name: c.name, first_name: first, last_name: last, email: c.email, phone: c.phone, description: c.description,
      currency: typeof c.currency === 'string' ? c.currency.toUpperCase() : undefined, ...address('address.', c.address), ...metadata(c.metadata),
    }),
  };
}

/** What became of a charge: refunded whole, in part, disputed by the card holder, or none of these. */
function refundState(c: Obj, currency: string): string {
  const refunded = typeof c.amount_refunded === 'number' ? c.amount_refunded : 0;
  if (c.refunded === true) return 'Refunded';
  if (c.disputed === true) return 'Disputed';
  if (refunded > 0) return `Partly refunded (${amountOf(refunded, currency)} ${currency})`;
  return c.status === 'succeeded' ? 'Paid' : c.status === 'failed' ? 'Failed' : c.status === 'pending' ? 'Pending' : '';
}

/** The customer of a charge, payment intent, subscription or invoice: expanded (an object), only its id, or none (a guest's); what the object itself says of the payer when the customer does not. */
function customerFields(o: Obj, payer: { name?: unknown; email?: unknown; phone?: unknown } = {}): Obj {
  const customer = obj(o.customer);
  const name = customer.name || payer.name;
  const { first, last } = nameParts(name);
  return {
    customer: typeof o.customer === 'string' ? o.customer : customer.id, customer_name: name, customer_first_name: first, customer_last_name: last,
    customer_email: customer.email || payer.email, customer_phone: customer.phone || payer.phone,
  };
}

/** A charge; `dispute`, when the charge is read for a dispute, adds what became of the dispute (a charge itself says only that it is disputed). */
export function chargeRecord(c: Obj, dispute?: Obj): SourceRecord {
  const currency = String(c.currency ?? '').toUpperCase();
  const billing = obj(c.billing_details);
  const amount = typeof c.amount === 'number' ? c.amount : 0;
  const refunded = typeof c.amount_refunded === 'number' ? c.amount_refunded : 0;
  const method = obj(c.payment_method_details);
  return {
    id: String(c.id),
    fields: clean({
      id: c.id, created: iso(c.created), date: iso(c.created)?.slice(0, 10),
      amount: amountOf(amount, currency), currency, amount_refunded: amountOf(refunded, currency), net_amount: amountOf(amount - refunded, currency),
      refunded: c.refunded === true, disputed: c.disputed === true || !!dispute, dispute_status: dispute?.status, dispute_reason: dispute?.reason,
      state: dispute && c.refunded !== true ? 'Disputed' : refundState(c, currency), status: c.status, paid: c.paid, description: c.description,
      statement_descriptor: c.statement_descriptor, payment_intent: c.payment_intent, invoice: c.invoice,
      payment_method: method.type, card_brand: obj(method.card).brand,
      ...customerFields(c, { name: billing.name, email: billing.email || c.receipt_email, phone: billing.phone }),
      ...address('billing_address.', billing.address), ...metadata(c.metadata),
    }),
  };
}

export function refundRecord(r: Obj): SourceRecord {
  const currency = String(r.currency ?? '').toUpperCase();
  return {
    id: String(r.id),
    fields: clean({
      id: r.id, created: iso(r.created), date: iso(r.created)?.slice(0, 10), amount: amountOf(r.amount, currency), currency,
      charge: r.charge, payment_intent: r.payment_intent, reason: r.reason, status: r.status, ...metadata(r.metadata),
    }),
  };
}

export function disputeRecord(d: Obj): SourceRecord {
  const currency = String(d.currency ?? '').toUpperCase();
  return {
    id: String(d.id),
    fields: clean({
      id: d.id, created: iso(d.created), date: iso(d.created)?.slice(0, 10), amount: amountOf(d.amount, currency), currency,
      charge: typeof d.charge === 'string' ? d.charge : obj(d.charge).id, payment_intent: d.payment_intent, reason: d.reason, status: d.status,
      evidence_due_by: iso(obj(d.evidence_details).due_by), ...metadata(d.metadata),
    }),
  };
}

export function payoutRecord(p: Obj): SourceRecord {
  const currency = String(p.currency ?? '').toUpperCase();
  return {
    id: String(p.id),
    fields: clean({
      id: p.id, created: iso(p.created), arrival_date: iso(p.arrival_date)?.slice(0, 10), amount: amountOf(p.amount, currency), currency,
      status: p.status, method: p.method, type: p.type, automatic: p.automatic, description: p.description, statement_descriptor: p.statement_descriptor,
      balance_transaction: typeof p.balance_transaction === 'string' ? p.balance_transaction : obj(p.balance_transaction).id,
      failure_code: p.failure_code, failure_message: p.failure_message, ...metadata(p.metadata),
    }),
  };
}

/** A movement of the balance: its gross amount, Stripe's fees and what is left of it (net), each an amount. */
export function balanceTransactionRecord(b: Obj): SourceRecord {
  const currency = String(b.currency ?? '').toUpperCase();
  return {
    id: String(b.id),
    fields: clean({
      id: b.id, created: iso(b.created), date: iso(b.created)?.slice(0, 10), available_on: iso(b.available_on)?.slice(0, 10),
      amount: amountOf(b.amount, currency), fee: amountOf(b.fee, currency), net: amountOf(b.net, currency), currency,
      type: b.type, reporting_category: b.reporting_category, status: b.status, description: b.description,
      source: typeof b.source === 'string' ? b.source : obj(b.source).id,
    }),
  };
}

export function paymentIntentRecord(p: Obj): SourceRecord {
  const currency = String(p.currency ?? '').toUpperCase();
  return {
    id: String(p.id),
    fields: clean({
      id: p.id, created: iso(p.created), date: iso(p.created)?.slice(0, 10), amount: amountOf(p.amount, currency), amount_received: amountOf(p.amount_received, currency),
      currency, status: p.status, description: p.description, latest_charge: typeof p.latest_charge === 'string' ? p.latest_charge : obj(p.latest_charge).id,
      invoice: p.invoice, ...customerFields(p, { email: p.receipt_email }), ...metadata(p.metadata),
    }),
  };
}

/** A subscription's amount each interval: its items' prices times their quantities. */
export function subscriptionRecord(s: Obj): SourceRecord {
  const items = (Array.isArray(obj(s.items).data) ? obj(s.items).data as unknown[] : []).map(obj);
  const prices = items.map((i) => ({ price: obj(i.price), quantity: typeof i.quantity === 'number' ? i.quantity : 1 }));
  const currency = String(s.currency ?? prices[0]?.price.currency ?? '').toUpperCase();
  const minor = prices.every((p) => typeof p.price.unit_amount === 'number') ? prices.reduce((sum, p) => sum + (p.price.unit_amount as number) * p.quantity, 0) : undefined;
  const recurring = obj(prices[0]?.price.recurring);
  return {
    id: String(s.id),
    fields: clean({
      id: s.id, created: iso(s.created), start_date: iso(s.start_date)?.slice(0, 10), status: s.status, amount: prices.length ? amountOf(minor, currency) : undefined, currency,
      interval: recurring.interval, interval_count: recurring.interval_count, cancel_at_period_end: s.cancel_at_period_end, canceled_at: iso(s.canceled_at), ended_at: iso(s.ended_at),
      description: s.description, ...customerFields(s), ...metadata(s.metadata),
    }),
  };
}

export function invoiceRecord(i: Obj): SourceRecord {
  const currency = String(i.currency ?? '').toUpperCase();
  const subscription = i.subscription ?? obj(obj(i.parent).subscription_details).subscription;
  return {
    id: String(i.id),
    fields: clean({
      id: i.id, created: iso(i.created), date: iso(i.created)?.slice(0, 10), number: i.number, status: i.status, currency,
      total: amountOf(i.total, currency), amount_due: amountOf(i.amount_due, currency), amount_paid: amountOf(i.amount_paid, currency), amount_remaining: amountOf(i.amount_remaining, currency),
      paid_at: iso(obj(i.status_transitions).paid_at), due_date: iso(i.due_date)?.slice(0, 10), description: i.description,
      subscription: typeof subscription === 'string' ? subscription : obj(subscription).id,
      ...customerFields(i, { name: i.customer_name, email: i.customer_email, phone: i.customer_phone }), ...metadata(i.metadata),
    }),
  };
}

const RECORD: Record<StripeObject, (o: Obj) => SourceRecord> = {
  charges: (c) => chargeRecord(c), payment_intents: paymentIntentRecord, customers: customerRecord, subscriptions: subscriptionRecord, invoices: invoiceRecord, refunds: refundRecord,
  disputes: disputeRecord, payouts: payoutRecord, balance_transactions: balanceTransactionRecord,
};
/** the objects whose customer comes expanded with them */
const EXPANDS_CUSTOMER = new Set<StripeObject>(['charges', 'payment_intents', 'subscriptions', 'invoices']);

const ADDRESS_FIELDS = (prefix: string, label: string): FieldInfo[] => [
  ['line1', 'line 1'], ['line2', 'line 2'], ['city', 'city'], ['state', 'state'], ['postal_code', 'postal code'], ['country', 'country'],
].map(([k, l]) => ({ name: `${prefix}${k}`, label: `${label} ${l}`, type: 'string' as const, readOnly: true }));

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });

const CUSTOMER_FIELDS: FieldInfo[] = [
  ro('customer', 'Customer ID'), ro('customer_name', 'Customer name'), ro('customer_first_name', 'Customer first name'), ro('customer_last_name', 'Customer last name'),
  ro('customer_email', 'Customer e-mail', 'email'), ro('customer_phone', 'Customer phone', 'phone'),
];

export const STRIPE_FIELDS: Record<StripeObject, FieldInfo[]> = {
  charges: [
    ro('id', 'Charge ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('amount', 'Amount', 'number'), ro('currency', 'Currency'),
    ro('amount_refunded', 'Amount refunded', 'number'), ro('net_amount', 'Amount less refunds', 'number'), ro('refunded', 'Refunded in full', 'boolean'),
    ro('disputed', 'Disputed', 'boolean'), ro('dispute_status', 'Dispute status'), ro('dispute_reason', 'Dispute reason'),
    ro('state', 'Paid, refunded, partly refunded or disputed'), ro('status', 'Status'), ro('paid', 'Paid', 'boolean'), ro('description', 'Description'),
    ro('statement_descriptor', 'Statement descriptor'), ro('payment_intent', 'Payment intent ID'), ro('invoice', 'Invoice ID'),
    ro('payment_method', 'Payment method'), ro('card_brand', 'Card brand'), ...CUSTOMER_FIELDS, ...ADDRESS_FIELDS('billing_address.', 'Billing address'),
  ],
  payment_intents: [
    ro('id', 'Payment intent ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('amount', 'Amount', 'number'),
    ro('amount_received', 'Amount received', 'number'), ro('currency', 'Currency'), ro('status', 'Status'), ro('description', 'Description'),
    ro('latest_charge', 'Latest charge ID'), ro('invoice', 'Invoice ID'), ...CUSTOMER_FIELDS,
  ],
  subscriptions: [
    ro('id', 'Subscription ID'), ro('created', 'Created', 'datetime'), ro('start_date', 'Start date', 'date'), ro('status', 'Status'),
    ro('amount', 'Amount each interval', 'number'), ro('currency', 'Currency'), ro('interval', 'Interval (day, week, month, year)'), ro('interval_count', 'Intervals between payments', 'number'),
    ro('cancel_at_period_end', 'Cancels at the end of the period', 'boolean'), ro('canceled_at', 'Canceled at', 'datetime'), ro('ended_at', 'Ended at', 'datetime'),
    ro('description', 'Description'), ...CUSTOMER_FIELDS,
  ],
  invoices: [
    ro('id', 'Invoice ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('number', 'Number'), ro('status', 'Status'), ro('currency', 'Currency'),
    ro('total', 'Total', 'number'), ro('amount_due', 'Amount due', 'number'), ro('amount_paid', 'Amount paid', 'number'), ro('amount_remaining', 'Amount remaining', 'number'),
    ro('paid_at', 'Paid at', 'datetime'), ro('due_date', 'Due date', 'date'), ro('description', 'Description'), ro('subscription', 'Subscription ID'), ...CUSTOMER_FIELDS,
  ],
  customers: [
    ro('id', 'Customer ID'), ro('created', 'Created', 'datetime'), ro('name', 'Name'), ro('first_name', 'First name'), ro('last_name', 'Last name'),
    ro('email', 'E-mail', 'email'), ro('phone', 'Phone', 'phone'), ro('description', 'Description'), ro('currency', 'Currency'), ...ADDRESS_FIELDS('address.', 'Address'),
  ],
  refunds: [
    ro('id', 'Refund ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('amount', 'Amount', 'number'), ro('currency', 'Currency'),
    ro('charge', 'Charge ID'), ro('payment_intent', 'Payment intent ID'), ro('reason', 'Reason'), ro('status', 'Status'),
  ],
  disputes: [
    ro('id', 'Dispute ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('amount', 'Amount', 'number'), ro('currency', 'Currency'),
    ro('charge', 'Charge ID'), ro('payment_intent', 'Payment intent ID'), ro('reason', 'Reason'), ro('status', 'Status'), ro('evidence_due_by', 'Evidence due by', 'datetime'),
  ],
  payouts: [
    ro('id', 'Payout ID'), ro('created', 'Created', 'datetime'), ro('arrival_date', 'Arrival date', 'date'), ro('amount', 'Amount', 'number'), ro('currency', 'Currency'),
    ro('status', 'Status'), ro('method', 'Method (standard or instant)'), ro('type', 'Type (bank account or card)'), ro('automatic', 'Automatic', 'boolean'),
    ro('description', 'Description'), ro('statement_descriptor', 'Statement descriptor'), ro('balance_transaction', 'Balance transaction ID'),
    ro('failure_code', 'Failure code'), ro('failure_message', 'Failure message'),
  ],
  balance_transactions: [
    ro('id', 'Balance transaction ID'), ro('created', 'Created', 'datetime'), ro('date', 'Date', 'date'), ro('available_on', 'Available on', 'date'),
    ro('amount', 'Gross amount', 'number'), ro('fee', 'Fees', 'number'), ro('net', 'Net amount', 'number'), ro('currency', 'Currency'),
    ro('type', 'Type'), ro('reporting_category', 'Reporting category'), ro('status', 'Status'), ro('description', 'Description'), ro('source', 'Source ID'),
  ],
};

interface StripeList { object?: string; data?: Obj[]; has_more?: boolean; url?: string }

/** A charges pull's position while it reads the refunds (then the disputes) made in its window: `refunds:` (`disputes:`) and that list's cursor. */
const REFUNDS = 'refunds:';
const DISPUTES = 'disputes:';

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const client = stripeClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const limit = Math.max(1, Math.min(options?.batchSize ?? STRIPE_PAGE, STRIPE_PAGE));
  const list = (kind: StripeObject, cursor: string | null) => client.call<StripeList>({
    path: `/v1/${kind}`,
    // a cursor Stripe no longer knows (the customer it names was deleted between slices) is told apart
    own: cursor ? [404] : [],
    query: {
      limit, starting_after: cursor ?? undefined,
      'created[gte]': from ? seconds(from) : undefined,
      'created[lt]': window ? seconds(window.to) : undefined,
      'expand[]': EXPANDS_CUSTOMER.has(kind) ? 'data.customer' : undefined,
      // Stripe leaves canceled subscriptions out unless asked
      status: kind === 'subscriptions' ? 'all' : undefined,
    },
  });
  const pages = (kind: StripeObject, from: string | null) => cursorPages(async (cursor) => {
    let answer: StripeList;
    try {
      answer = await list(kind, cursor);
    } catch (err) {
      if (!(cursor && err instanceof VendorRefusal && err.status === 404)) throw err;
      // the window read again from its newest: what was stored already is stored again harmlessly
      answer = await list(kind, null);
    }
    if (answer?.object !== 'list' || !Array.isArray(answer.data)) throw processingError(`Stripe answered the list of ${kind} with something other than a list.`);
    const items = answer.data;
    return { items, cursor: answer.has_more && items.length ? String(items.at(-1)!.id) : null };
  }, from);
  // newest first: the date moves only once the whole window is read and stored
  const done = (): string => JSON.stringify({ since: latest ?? from, next: null, latest: null } satisfies PullPosition);
  const under = (next: string): string => JSON.stringify({ since: from, next, latest } satisfies PullPosition);
  // charges read before: those refunded or disputed since are read again, so their gifts say so (a first read sees every charge as it is now)
  const refundsPass = which === 'charges' && !!from;
  const inRefunds = !!at.next?.startsWith(REFUNDS);
  const inDisputes = !!at.next?.startsWith(DISPUTES);

  if (!inRefunds && !inDisputes) {
    for await (const page of pages(which, at.next)) {
      const records = page.items.map((o) => RECORD[which](o));
      for (const o of page.items) {
        const created = iso(o.created);
        if (created && (!latest || created > latest)) latest = created;
      }
      const next = page.next ?? (refundsPass ? REFUNDS : null);
      yield { records, watermark: next ? under(next) : done() };
    }
  }
  if (!refundsPass) return;
  // the charges of a page of refunds or disputes, read again; a dispute's own status and reason go with its charge
  const chargesOf = async (items: Obj[], disputes: boolean): Promise<SourceRecord[]> => {
    const byCharge = new Map<string, Obj | undefined>();
    for (const o of items) {
      const id = typeof o.charge === 'string' ? o.charge : obj(o.charge).id;
      if (typeof id === 'string' && id) byCharge.set(id, disputes ? o : undefined);
    }
    const records: SourceRecord[] = [];
    for (const [id, dispute] of byCharge) {
      try {
        records.push(chargeRecord(await client.call<Obj>({ path: `/v1/charges/${encodeURIComponent(id)}`, query: { 'expand[]': 'customer' }, own: [404] }), dispute));
      } catch (err) {
        if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
      }
    }
    return records;
  };
  if (!inDisputes) {
    for await (const page of pages('refunds', inRefunds ? at.next!.slice(REFUNDS.length) || null : null)) {
      yield { records: await chargesOf(page.items, false), watermark: under(page.next ? REFUNDS + page.next : DISPUTES) };
    }
  }
  for await (const page of pages('disputes', inDisputes ? at.next!.slice(DISPUTES.length) || null : null)) {
    yield { records: await chargesOf(page.items, true), watermark: page.next ? under(DISPUTES + page.next) : done() };
  }
}

const keyMode = (key: string | undefined) => (/^(sk|rk)_live_/.test(key ?? '') ? 'live' : 'test');

export const stripeConnector: Connector = {
  system: 'stripe',
  async test(ctx) {
    // a charge is what a formula reads: a restricted key without charges read is told so in Stripe's words
    const body = await stripeClient(ctx).call<StripeList>({ path: '/v1/charges', query: { limit: 1 } });
    if (body?.object !== 'list') throw refused('Stripe answered without a list of charges.');
    return { detail: `Stripe accepted the key (${keyMode(ctx.settings.secretKey)} mode).` };
  },
  async listObjects() {
    return stripe.objects.filter((o) => (OBJECTS as readonly string[]).includes(o.name));
  },
  async describeFields(_ctx, object) {
    return STRIPE_FIELDS[objectOf(object)];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  ...sourceOnly('Stripe'),
};
