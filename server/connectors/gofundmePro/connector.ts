/**
 * GoFundMe Pro (formerly Classy) as a source, on the connector kit. Sign-in is OAuth 2.0 client
 * credentials at https://api.classy.org/oauth2/auth (client id and secret in the form); the access
 * token lasts `expires_in` seconds and is obtained again a minute before, or at once when API 2.0
 * refuses it (HTTP 401). Error bodies are `{ error: "…" }` or `{ error: { field: ["…"] } }`.
 *
 * Source: the organization's transactions, recurring donation plans, supporters, campaigns and
 * fundraising pages updated since the watermark (`filter=updated_at>…`, oldest change first with
 * `sort=updated_at:asc`), `per_page` (100 at most) at a time until `last_page`, each next request
 * filtered from the page's last change but one (pull below, on the kit's changedSincePull); the watermark moves to the latest
 * `updated_at` seen only with the last page. Transactions carry their donor's name
 * and e-mail (billing name, else the member's) and their amounts as amounts (Classy answers
 * decimals in the transaction's currency); the answers to a campaign's custom questions are not
 * read yet.
 */
import { createHash } from 'node:crypto';
import { gofundmePro } from '../../../src/domain/connectors/fundraising.ts';
import { ConnectorInputError, processingError, refused, sourceOnly, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord } from '../connector.ts';
import { changedSincePull } from '../kit/paging.ts';
import { sharedPacer } from '../kit/pace.ts';
import { vendorSession } from '../kit/session.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';
import { decimalAmount, isoStamp } from '../kit/values.ts';

const NAME = 'GoFundMe Pro';
const API = 'https://api.classy.org';
/** records a page: API 2.0's most */
export const GOFUNDME_PRO_PAGE = 100;
/** API 2.0 has no published per-second limit; a steady pace keeps its 429s rare */
const CALLS_PER_SECOND = 10;

const OBJECTS = ['transactions', 'recurring-donation-plans', 'supporters', 'campaigns', 'fundraising-pages'] as const;
type GfmObject = (typeof OBJECTS)[number];

function objectOf(object: string): GfmObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as GfmObject;
  throw new ConnectorInputError(`Tributary reads GoFundMe Pro transactions, recurring donation plans, supporters, campaigns and fundraising pages; ${object} is not one of them yet.`);
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const clean = (fields: Obj): Obj => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));

/** GoFundMe Pro's words: `error` as text, or each field's messages. */
export function gofundmeProMessageOf(body: unknown): string {
  const e = obj(body).error;
  if (typeof e === 'string') return [e, typeof obj(body).error_description === 'string' ? obj(body).error_description : ''].filter(Boolean).join(': ').slice(0, 500);
  const fields = Object.entries(obj(e)).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(' ') : String(v)}`);
  return fields.join('; ').slice(0, 500);
}

const keyOf = (ctx: ConnectorContext) => createHash('sha256').update(`${API}|${ctx.settings.clientId}|${ctx.settings.clientSecret}`).digest('hex');

async function signIn(ctx: ConnectorContext) {
  const res = await vendorFetch('gofundme-pro', NAME, `${API}/oauth2/auth`, {
    method: 'POST', headers: { ...FORM, accept: 'application/json' }, signal: ctx.signal,
    body: form({ grant_type: 'client_credentials', client_id: ctx.settings.clientId, client_secret: ctx.settings.clientSecret }),
  });
  const text = await res.text();
  let body: unknown;
  try { body = JSON.parse(text); } catch { body = undefined; }
  if (res.status >= 500) throw processingError(`${NAME} answered its sign-in with a server error (HTTP ${res.status}). Try again later.`);
  if (res.status !== 200) {
    const words = gofundmeProMessageOf(body);
    throw refused(`${NAME} refused the client ID and secret (HTTP ${res.status})${words ? `: ${words}` : '.'}`);
  }
  const answer = obj(body);
  const token = requireField(typeof answer.access_token === 'string' ? answer.access_token : undefined, NAME, 'an access token');
  const lifetime = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : 3600;
  return { token, expiresOn: Date.now() + lifetime * 1000, about: {} };
}

export function gofundmeProClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  if (!ctx.settings.clientId || !ctx.settings.clientSecret) throw refused('GoFundMe Pro needs the client ID and secret.');
  if (!/^\d+$/.test(ctx.settings.organizationId ?? '')) throw refused('GoFundMe Pro needs the organization ID (a number).');
  const key = keyOf(ctx);
  return vendorClient({
    system: 'gofundme-pro', name: NAME, baseUrl: API, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`gofundme-pro:${key}`, CALLS_PER_SECOND),
    auth: async (force) => ({ authorization: `Bearer ${(await vendorSession(`gofundme-pro:${key}`, force, () => signIn(ctx))).token}` }),
    messageOf: gofundmeProMessageOf,
  });
}



/** The filter's date as API 2.0 reads it: ISO 8601 to the second, in UTC. */
const filterDate = (iso: string) => `${iso.slice(0, 19)}+0000`;

function transactionRecord(t: Obj): SourceRecord {
  const currency = String(t.currency_code ?? t.raw_currency_code ?? 'USD').toUpperCase();
  const first = t.billing_first_name || t.member_first_name;
  const last = t.billing_last_name || t.member_last_name;
  return {
    id: String(t.id),
    fields: clean({
      id: t.id, status: t.status, purchased_at: isoStamp(t.purchased_at), date: isoStamp(t.purchased_at)?.slice(0, 10), updated_at: isoStamp(t.updated_at),
      amount: decimalAmount(t.total_gross_amount), donation_amount: decimalAmount(t.donation_gross_amount), fees_amount: decimalAmount(t.fees_amount), currency,
      frequency: t.frequency, campaign_id: t.campaign_id, fundraising_page_id: t.fundraising_page_id, recurring_donation_plan_id: t.recurring_donation_plan_id,
      supporter_id: t.supporter_id, first_name: first, last_name: last, email: t.member_email_address || t.billing_email_address, phone: t.member_phone,
      company: t.company_name, comment: t.comment, is_anonymous: t.is_anonymous,
      'billing_address.line1': t.billing_address1, 'billing_address.city': t.billing_city, 'billing_address.state': t.billing_state,
      'billing_address.postal_code': t.billing_postal_code, 'billing_address.country': t.billing_country,
    }),
  };
}

function planRecord(p: Obj): SourceRecord {
  return {
    id: String(p.id),
    fields: clean({
      id: p.id, status: p.status, frequency: p.frequency, amount: decimalAmount(p.amount), currency: String(p.currency_code ?? 'USD').toUpperCase(),
      created_at: isoStamp(p.created_at), updated_at: isoStamp(p.updated_at), next_processing_date: p.next_processing_date, canceled_at: isoStamp(p.canceled_at),
      campaign_id: p.campaign_id, supporter_id: p.supporter_id, first_name: p.billing_first_name, last_name: p.billing_last_name, email: p.member_email_address,
    }),
  };
}

function supporterRecord(s: Obj): SourceRecord {
  return {
    id: String(s.id),
    fields: clean({
      id: s.id, first_name: s.first_name, last_name: s.last_name, email: s.email_address, phone: s.phone, created_at: isoStamp(s.created_at), updated_at: isoStamp(s.updated_at),
      'address.line1': s.address1, 'address.line2': s.address2, 'address.city': s.city, 'address.state': s.state, 'address.postal_code': s.postal_code, 'address.country': s.country,
    }),
  };
}

function campaignRecord(c: Obj): SourceRecord {
  return {
    id: String(c.id),
    fields: clean({
      id: c.id, name: c.name, status: c.status, type: c.type, goal: decimalAmount(c.goal), currency: String(c.currency_code ?? 'USD').toUpperCase(),
      started_at: isoStamp(c.started_at), ended_at: isoStamp(c.ended_at), created_at: isoStamp(c.created_at), updated_at: isoStamp(c.updated_at), external_reference: c.internal_name,
    }),
  };
}

function pageRecord(p: Obj): SourceRecord {
  return {
    id: String(p.id),
    fields: clean({
      id: p.id, title: p.title, status: p.status, goal: decimalAmount(p.goal), campaign_id: p.campaign_id, team_id: p.fundraising_team_id, member_id: p.member_id,
      created_at: isoStamp(p.created_at), updated_at: isoStamp(p.updated_at),
    }),
  };
}

const RECORD: Record<GfmObject, (o: Obj) => SourceRecord> = {
  transactions: transactionRecord, 'recurring-donation-plans': planRecord, supporters: supporterRecord, campaigns: campaignRecord, 'fundraising-pages': pageRecord,
};

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });
const address = (prefix: string, label: string, parts: string[]): FieldInfo[] =>
  parts.map((k) => ro(`${prefix}${k}`, `${label} ${k.replace('_', ' ')}`));

export const GOFUNDME_PRO_FIELDS: Record<GfmObject, FieldInfo[]> = {
  transactions: [
    ro('id', 'Transaction ID'), ro('status', 'Status'), ro('purchased_at', 'Purchased at', 'datetime'), ro('date', 'Date', 'date'), ro('updated_at', 'Updated at', 'datetime'),
    ro('amount', 'Total amount', 'number'), ro('donation_amount', 'Donation amount', 'number'), ro('fees_amount', 'Fees', 'number'), ro('currency', 'Currency'),
    ro('frequency', 'Frequency'), ro('campaign_id', 'Campaign ID'), ro('fundraising_page_id', 'Fundraising page ID'), ro('recurring_donation_plan_id', 'Recurring plan ID'),
    ro('supporter_id', 'Supporter ID'), ro('first_name', 'Donor first name'), ro('last_name', 'Donor last name'), ro('email', 'Donor e-mail', 'email'), ro('phone', 'Donor phone', 'phone'),
    ro('company', 'Company'), ro('comment', 'Comment'), ro('is_anonymous', 'Anonymous', 'boolean'),
    ...address('billing_address.', 'Billing address', ['line1', 'city', 'state', 'postal_code', 'country']),
  ],
  'recurring-donation-plans': [
    ro('id', 'Plan ID'), ro('status', 'Status'), ro('frequency', 'Frequency'), ro('amount', 'Amount each time', 'number'), ro('currency', 'Currency'),
    ro('created_at', 'Created at', 'datetime'), ro('updated_at', 'Updated at', 'datetime'), ro('next_processing_date', 'Next payment', 'date'), ro('canceled_at', 'Canceled at', 'datetime'),
    ro('campaign_id', 'Campaign ID'), ro('supporter_id', 'Supporter ID'), ro('first_name', 'Donor first name'), ro('last_name', 'Donor last name'), ro('email', 'Donor e-mail', 'email'),
  ],
  supporters: [
    ro('id', 'Supporter ID'), ro('first_name', 'First name'), ro('last_name', 'Last name'), ro('email', 'E-mail', 'email'), ro('phone', 'Phone', 'phone'),
    ro('created_at', 'Created at', 'datetime'), ro('updated_at', 'Updated at', 'datetime'),
    ...address('address.', 'Address', ['line1', 'line2', 'city', 'state', 'postal_code', 'country']),
  ],
  campaigns: [
    ro('id', 'Campaign ID'), ro('name', 'Name'), ro('status', 'Status'), ro('type', 'Type'), ro('goal', 'Goal', 'number'), ro('currency', 'Currency'),
    ro('started_at', 'Starts', 'datetime'), ro('ended_at', 'Ends', 'datetime'), ro('created_at', 'Created at', 'datetime'), ro('updated_at', 'Updated at', 'datetime'),
    ro('external_reference', 'Internal name'),
  ],
  'fundraising-pages': [
    ro('id', 'Page ID'), ro('title', 'Title'), ro('status', 'Status'), ro('goal', 'Goal', 'number'), ro('campaign_id', 'Campaign ID'), ro('team_id', 'Team ID'),
    ro('member_id', 'Member ID'), ro('created_at', 'Created at', 'datetime'), ro('updated_at', 'Updated at', 'datetime'),
  ],
};

interface GfmPage { data?: Obj[]; current_page?: number; last_page?: number; per_page?: number; total?: number }

/**
 * Records changed after the watermark, oldest change first (the kit's changedSincePull): each next
 * request asks for what changed after the last page's last change but one (records sharing the
 * last change are read again), and only a page all of one change goes on by number.
 */
async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const client = gofundmeProClient(ctx);
  const perPage = Math.max(1, Math.min(options?.batchSize ?? GOFUNDME_PRO_PAGE, GOFUNDME_PRO_PAGE));
  yield* changedSincePull<Obj>(
    since,
    options?.window,
    async (read) => {
      const answer = await client.call<GfmPage>({
        path: `/2.0/organizations/${encodeURIComponent(ctx.settings.organizationId!)}/${which}`,
        query: { page: read.page, per_page: perPage, sort: 'updated_at:asc', filter: read.after ? `updated_at>${filterDate(read.after)}` : undefined },
      });
      if (!Array.isArray(answer?.data)) throw processingError(`GoFundMe Pro answered the list of ${which} with something other than a page of them.`);
      const more = typeof answer.last_page === 'number' ? read.page < answer.last_page : answer.data.length === perPage;
      return { items: answer.data, stamps: answer.data.map((o) => isoStamp(o.updated_at) ?? null), more };
    },
    (stamps) => {
      // the page's last change but one, in whole seconds as the filter compares them
      const lastSecond = stamps.at(-1)?.slice(0, 19) ?? null;
      return [...stamps].reverse().find((x) => x !== null && x.slice(0, 19) !== lastSecond) ?? null;
    },
    (items) => items.map((o) => RECORD[which](o)),
  );
}

export const gofundmeProConnector: Connector = {
  system: 'gofundme-pro',
  async test(ctx) {
    let org: Obj;
    try {
      org = obj(await gofundmeProClient(ctx).call({ path: `/2.0/organizations/${encodeURIComponent(ctx.settings.organizationId ?? '')}`, own: [404] }));
    } catch (err) {
      if (err instanceof VendorRefusal && err.status === 404) throw refused(`${NAME} has no organization ${ctx.settings.organizationId} for these credentials.`);
      throw err;
    }
    return { detail: `Signed in to ${NAME} for ${typeof org.name === 'string' ? org.name : `organization ${ctx.settings.organizationId}`}.` };
  },
  async listObjects() {
    return gofundmePro.objects;
  },
  async describeFields(_ctx, object) {
    return GOFUNDME_PRO_FIELDS[objectOf(object)];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  ...sourceOnly('GoFundMe Pro'),
};
