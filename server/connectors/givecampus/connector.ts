/**
 * GiveCampus as a source, on the connector kit: the Gift API at www.givecampus.com (sandbox.givecampus.com
 * in the sandbox, or the school's custom domain), a bearer API token valid only in the environment
 * (or custom domain) that issued it.
 *
 * What GiveCampus's public support articles say (support.givecampus.com):
 * - "GiveCampus Gift API Standard Field Definitions" (28763492065815): a gift's `id`, `donation_type`
 *   (challenge, donation, general, installment, match), `state` (authorized, paid, ...), `currency`,
 *   `value` (for an installment, the installment's amount), `project { id, type, name, unique_identifier }`,
 *   `payer_name` (its parts in `custom_fields.first_name` / `last_name`).
 * - "GiveCampus API Payload Examples" (40836868939415): the answer is a JSON array of gifts, each with
 *   `address { line1, line2, city, state, postal_code, country }`, `designations [{ id, name, amount,
 *   unique_identifier, write_in }]`, `constituent_identifier`, `email`, `anonymous`, amounts as decimal
 *   strings ("10.0").
 * - "GiveCampus API Parameters: A Deeper Dive" (29093649557527): gifts are queried by one of several
 *   timestamps: confirmed_at (the default), captured_at, deposited_at, updated_at.
 *
 * Not said publicly (the reference is behind a login), chosen here and kept in GIFT_API below: the
 * path, the query parameters' names, that the range's start is compared at whole seconds and that the
 * answer comes oldest change first. Tributary asks by `updated_at`, so a gift read once is read again
 * when it changes (captured, deposited, refunded).
 *
 * GiveCampus has no donor list: donors are the people on the gifts, one record per donor of a batch
 * (by constituent identifier, else e-mail address, else the gift).
 */
import { createHash } from 'node:crypto';
import { givecampus } from '../../../src/domain/connectors/fundraising.ts';
import { ConnectionProblem, ConnectorInputError, processingError, refused, sourceOnly, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord } from '../connector.ts';
import { changedSincePull } from '../kit/paging.ts';
import { sharedPacer } from '../kit/pace.ts';
import { vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { decimalAmount, isoStamp } from '../kit/values.ts';

const NAME = 'GiveCampus';

/**
 * The Gift API call as Tributary makes it. UNVERIFIED (the articles show the answer, not the request):
 * the path, `timestamp_type` choosing the timestamp, `start_date` (inclusive) and `end_date` (exclusive)
 * bounding it in ISO 8601 UTC, `page` (from 1) and `per_page` (at most 100), and that gifts come in the
 * chosen timestamp's order, oldest first.
 */
export const GIFT_API = {
  path: '/api/v1/gifts',
  timestamp: 'timestamp_type',
  start: 'start_date',
  end: 'end_date',
  page: 'page',
  perPage: 'per_page',
  /** the timestamp a pull follows: it changes whenever the gift does */
  by: 'updated_at',
  maxPerPage: 100,
} as const;
/** no public limit; a steady pace keeps 429s rare, and a 429 is waited out */
const CALLS_PER_SECOND = 5;

const OBJECTS = ['gifts', 'donors'] as const;
type GcObject = (typeof OBJECTS)[number];

function objectOf(object: string): GcObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as GcObject;
  throw new ConnectorInputError(`Tributary reads GiveCampus gifts and their donors; ${object} is not one of them yet.`);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const clean = (fields: Obj): Obj => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));

export function givecampusBase(settings: Record<string, string>): string {
  if (settings.customDomain) {
    let d = settings.customDomain.trim();
    while (d.endsWith('/')) d = d.slice(0, -1);
    return d;
  }
  return settings.environment === 'sandbox' ? 'https://sandbox.givecampus.com' : 'https://www.givecampus.com';
}

const where = (settings: Record<string, string>) => (settings.customDomain ? 'custom domain' : settings.environment ?? 'production');

/** GiveCampus's words from an error body: `message`, `error` or `errors`. */
export function givecampusMessageOf(body: unknown): string {
  const o = obj(Array.isArray(body) ? body[0] : body);
  for (const k of ['message', 'error', 'errors']) {
    const v = o[k];
    if (typeof v === 'string') return v.slice(0, 300);
    if (Array.isArray(v)) return v.map(String).join('; ').slice(0, 300);
  }
  return '';
}

/** A refused or expired token, in words: what to check and where a new one comes from. */
function tokenRefused(settings: Record<string, string>, status: number, words: string): ConnectionProblem {
  return refused(`GiveCampus refused the API token (HTTP ${status}${words ? `: ${words}` : ''}). It may have expired or been revoked, or belong to another environment `
    + `than ${where(settings)}: tokens work only where they were issued. Create a new one under School Dashboard > Integrations > API Keys and save it in this data source.`);
}

export function givecampusClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  const token = (ctx.settings.apiToken ?? '').trim();
  if (!token) throw refused('GiveCampus needs the API token (School Dashboard > Integrations > API Keys).');
  const base = givecampusBase(ctx.settings);
  return vendorClient({
    system: 'givecampus', name: NAME, baseUrl: base, signal: ctx.signal, network: ctx.network, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`givecampus:${createHash('sha256').update(`${base}|${token}`).digest('hex')}`, CALLS_PER_SECOND),
    credential: 'API token',
    auth: async () => ({ authorization: `Bearer ${token}` }),
    messageOf: givecampusMessageOf,
    refusal: (res, body) => (res.status === 401 ? tokenRefused(ctx.settings, 401, givecampusMessageOf(body)) : null),
  });
}



/** A date as sent: ISO 8601 to the second, in UTC. */
const rangeDate = (iso: string) => `${iso.slice(0, 19)}Z`;
/**
 * The range's start for gifts changed from `after` on: a second before it, so that the gifts of
 * `after`'s own second come again whether GiveCampus's start is inclusive or not, and at whatever
 * precision it compares (read again, they store nothing twice).
 */
const startOf = (after: string) => rangeDate(new Date(Date.parse(after.slice(0, 19) + 'Z') - 1000).toISOString());

/** "Human Being Fund (gcc-hbf) 10.00; Athletics 5.00": the designations as a person reads them. */
function designationsText(list: Obj[], currency: string): string | undefined {
  if (!list.length) return undefined;
  return list.map((d) => {
    const name = String(d.name ?? d.write_in ?? 'Designation');
    const code = d.unique_identifier ? ` (${String(d.unique_identifier)})` : '';
    const amount = decimalAmount(d.amount);
    return `${name}${code}${amount !== undefined ? ` ${amount.toFixed(2)} ${currency}` : ''}`;
  }).join('; ');
}

function donorFields(g: Obj): Obj {
  const custom = obj(g.custom_fields);
  const address = obj(g.address);
  return {
    constituent_identifier: g.constituent_identifier ?? g.constituent_identifer,
    payer_name: g.payer_name, first_name: custom.first_name, last_name: custom.last_name, email: typeof g.email === 'string' ? g.email.trim() : undefined,
    'address.line1': address.line1, 'address.line2': address.line2, 'address.city': address.city, 'address.state': address.state,
    'address.postal_code': address.postal_code, 'address.country': address.country,
  };
}

function giftRecord(g: Obj): SourceRecord {
  const currency = String(g.currency ?? 'USD').toUpperCase();
  const project = obj(g.project);
  const designations = (Array.isArray(g.designations) ? g.designations : []).map(obj);
  const first = designations[0] ?? {};
  const custom = obj(g.custom_fields);
  return {
    id: String(g.id),
    fields: clean({
      id: g.id, donation_type: g.donation_type, state: g.state, amount: decimalAmount(g.value), currency,
      date: isoStamp(g.confirmed_at)?.slice(0, 10), confirmed_at: isoStamp(g.confirmed_at), captured_at: isoStamp(g.captured_at), deposited_at: isoStamp(g.deposited_at), updated_at: isoStamp(g.updated_at),
      'project.id': project.id, 'project.type': project.type, 'project.name': project.name, 'project.unique_identifier': project.unique_identifier,
      ...donorFields(g),
      designations: designationsText(designations, currency), designation_count: designations.length,
      'designation.name': first.name ?? first.write_in, 'designation.unique_identifier': first.unique_identifier, 'designation.amount': decimalAmount(first.amount),
      anonymous: g.anonymous, card_type: g.card_type, fund_source: g.fund_source, donor_covered_payment_fee: decimalAmount(g.donor_covered_payment_fee),
      event_id: g.event_id, failure_reason: g.failure_reason, comment: custom.comment, in_honor_of: custom.in_honor_of, in_memory_of: custom.in_memory_of,
      matching_company: obj(g.matching_company).name,
    }),
  };
}

/** The donor of a gift: keyed by constituent identifier, else e-mail address, else the gift itself. */
function donorRecord(g: Obj): SourceRecord {
  const fields = clean({ ...donorFields(g), last_gift_id: g.id, last_gift_at: isoStamp(g.confirmed_at), updated_at: isoStamp(g.updated_at) });
  const email = typeof fields.email === 'string' ? fields.email.toLowerCase() : '';
  const id = fields.constituent_identifier ? `constituent:${String(fields.constituent_identifier)}` : email ? `email:${email}` : `gift:${String(g.id)}`;
  return { id, fields: { donor_key: id, ...fields } };
}

/** One record per donor of a batch: the latest gift's details win. */
function donorsOf(gifts: Obj[]): SourceRecord[] {
  const byKey = new Map<string, SourceRecord>();
  for (const g of gifts) {
    const d = donorRecord(g);
    byKey.delete(d.id);
    byKey.set(d.id, d);
  }
  return [...byKey.values()];
}

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });
const DONOR_FIELDS: FieldInfo[] = [
  ro('constituent_identifier', 'Constituent identifier'), ro('payer_name', 'Donor name'), ro('first_name', 'Donor first name'), ro('last_name', 'Donor last name'),
  ro('email', 'Donor e-mail', 'email'),
  ro('address.line1', 'Address line 1'), ro('address.line2', 'Address line 2'), ro('address.city', 'City'), ro('address.state', 'State'),
  ro('address.postal_code', 'Postal code'), ro('address.country', 'Country'),
];

export const GIVECAMPUS_FIELDS: Record<GcObject, FieldInfo[]> = {
  gifts: [
    ro('id', 'Gift ID'), ro('donation_type', 'Donation type (donation, installment, match, challenge, general)'), ro('state', 'State (authorized, paid, ...)'),
    ro('amount', 'Amount', 'number'), ro('currency', 'Currency'), ro('date', 'Gift date', 'date'),
    ro('confirmed_at', 'Confirmed at', 'datetime'), ro('captured_at', 'Captured at', 'datetime'), ro('deposited_at', 'Deposited at', 'datetime'), ro('updated_at', 'Updated at', 'datetime'),
    ro('project.id', 'Campaign or form ID'), ro('project.type', 'Campaign or form type'), ro('project.name', 'Campaign or form'), ro('project.unique_identifier', 'Campaign or form backend ID'),
    ...DONOR_FIELDS,
    ro('designations', 'Designations (name, code and amount of each)'), ro('designation_count', 'Number of designations', 'number'),
    ro('designation.name', 'First designation'), ro('designation.unique_identifier', 'First designation backend ID'), ro('designation.amount', 'First designation amount', 'number'),
    ro('anonymous', 'Anonymous', 'boolean'), ro('card_type', 'Payment method'), ro('fund_source', 'Fund source'), ro('donor_covered_payment_fee', 'Fee covered by donor', 'number'),
    ro('event_id', 'Event ID'), ro('failure_reason', 'Failure reason'), ro('comment', 'Comment'), ro('in_honor_of', 'In honor of'), ro('in_memory_of', 'In memory of'),
    ro('matching_company', 'Matching company'),
  ],
  donors: [
    ro('donor_key', 'Donor key (constituent identifier, else e-mail)'), ...DONOR_FIELDS,
    ro('last_gift_id', 'Latest gift ID'), ro('last_gift_at', 'Latest gift confirmed at', 'datetime'), ro('updated_at', 'Updated at', 'datetime'),
  ],
};

/**
 * Gifts changed since the watermark, oldest change first (the kit's changedSincePull): each next
 * request asks anew from the last page's latest change (startOf: the gifts of that second are read
 * again); only a page that ends no later than the second it started from goes on by number.
 */
async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const client = givecampusClient(ctx);
  const to = options?.window ? rangeDate(options.window.to.toISOString()) : undefined;
  const perPage = Math.max(1, Math.min(options?.batchSize ?? GIFT_API.maxPerPage, GIFT_API.maxPerPage));
  yield* changedSincePull<Obj>(
    since,
    options?.window,
    async (read) => {
      const answer = await client.call<unknown>({
        path: GIFT_API.path,
        query: {
          [GIFT_API.timestamp]: GIFT_API.by, [GIFT_API.start]: read.after ? startOf(read.after) : undefined, [GIFT_API.end]: to,
          [GIFT_API.page]: read.page, [GIFT_API.perPage]: perPage,
        },
      });
      if (!Array.isArray(answer)) throw processingError('GiveCampus answered the list of gifts with something other than a list of them; check the environment or custom domain.');
      const gifts = answer.map(obj);
      return { items: gifts, stamps: gifts.map((g) => isoStamp(g[GIFT_API.by]) ?? null), more: gifts.length === perPage };
    },
    (stamps, read) => {
      const last = stamps.at(-1) ?? null;
      return last !== null && (read.after === null || last.slice(0, 19) > read.after.slice(0, 19)) ? last : null;
    },
    (gifts) => (which === 'gifts' ? gifts.map(giftRecord) : donorsOf(gifts)),
  );
}

export const givecampusConnector: Connector = {
  system: 'givecampus',
  async test(ctx) {
    const answer = await givecampusClient(ctx).call<unknown>({ path: GIFT_API.path, query: { [GIFT_API.page]: 1, [GIFT_API.perPage]: 1 } });
    if (!Array.isArray(answer)) throw processingError('GiveCampus did not answer with a list of gifts; check the environment or custom domain.');
    return { detail: `GiveCampus accepted the API token (${where(ctx.settings)}) and answered with its gifts.` };
  },
  async listObjects() {
    return givecampus.objects;
  },
  async describeFields(_ctx, object) {
    return GIVECAMPUS_FIELDS[objectOf(object)];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  ...sourceOnly('GiveCampus'),
};
