/**
 * Luminate Online (Blackbaud) as a source and a destination, on the connector kit: server API
 * calls posted as a form to `{site}/SRConsAPI` (and `SRDonationAPI`), each carrying `api_key`,
 * `v=1.0`, `response_format=json` and the API administrator's `login_name` and `login_password`
 * in the body, so the credentials stay out of URLs and logs. An error is `{ errorResponse: { code,
 * message } }` (HTTP 403 mostly); its message is Luminate's words for the record it concerns. A
 * refused sign-in (codes 2 to 5) stops the run, told by its documented code and meaning only. A 429 or 503 is waited out by the kit's client; calls are
 * paced to ten a second per site (Luminate asks integrations not to flood a site).
 *
 * Source: constituents (`SRConsAPI` `getUserChanges`) and donations (`SRDonationAPI`
 * `getDonations`, each with its donor's cons_id, name and e-mail) modified since the watermark
 * (`modify_start_date`, `modify_end_date` for a run once), oldest first (`list_sort_column=modify_date`,
 * `list_ascending=true`), paged with `list_page_size` and `list_page_offset` like Luminate's other
 * list methods; the watermark keeps its date while the pages are read and moves to the latest
 * `modify_date` seen once the last page is stored. Luminate answers one item as an object and
 * several as a list: both are read. Nested fields are flattened to their dot names
 * (`name.first`, `email.primary_address`), custom fields to their ids (`custom_string1`), the names
 * `listUserFields` describes.
 *
 * Destination: constituents, found by e-mail (`getUser` with `primary_email`) or cons_id; other
 * matching scenarios are refused when saved. A write is `createOrUpdate`: by cons_id for a known
 * constituent (Luminate updates it and never creates), by `primary_email` for a new one, once per
 * idempotency key (kit/writeOnce.ts). Consent is the constituent's: `email.accepts_email` is sent
 * only when the formula maps it.
 */
import { createHash } from 'node:crypto';
import { luminateOnline } from '../../../src/domain/connectors/blackbaud.ts';
import {
  ConnectorInputError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchQuery,
  type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { emailOnlyProblem, holdsAll } from '../kit/criteria.ts';
import { once } from '../kit/memo.ts';
import { sharedPacer } from '../kit/pace.ts';
import { laterStamp, offsetPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { eachRecord, writtenResult } from '../kit/results.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { writeLedger } from '../kit/writeOnce.ts';

const NAME = 'Luminate Online';
/** records a page: kept small, as Luminate may answer fewer than asked on large lists */
export const LUMINATE_PAGE = 100;
const CALLS_PER_SECOND = 10;
/** Luminate's documented error codes of a refused call's authentication, in its documentation's words */
const SIGN_IN_CODES: Record<string, string> = {
  '2': 'incorrect API key',
  '3': 'authorization failed: the API administrator\'s login is wrong or lacks the permission',
  '4': 'request not allowed from this IP address (the site\'s API IP filter)',
  '5': 'the method is restricted',
};
/** no constituent matches the lookup (getUser, createOrUpdate by cons_id) */
const NO_MATCH = '16';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
/** Luminate's JSON: one item an object, several a list, none absent */
const many = (v: unknown): Obj[] => (Array.isArray(v) ? v.map(obj) : v && typeof v === 'object' ? [obj(v)] : []);

/** Luminate's words from an error body: its message, with its code. */
export function luminateMessageOf(body: unknown): string {
  const e = obj(obj(body).errorResponse);
  const message = typeof e.message === 'string' ? e.message : '';
  const code = e.code !== undefined ? String(e.code) : '';
  return [message, code && `(error ${code})`].filter(Boolean).join(' ').slice(0, 500);
}

/**
 * A refused sign-in or listing, in our words with Luminate's error code: the site's address is
 * typed by a user, so what it answered is not repeated outside a record's own refusal.
 */
function callRefused(method: string, code: string, status: number) {
  const which = /^\d{1,6}$/.test(code) ? `error ${code}` : `HTTP ${status}`;
  return SIGN_IN_CODES[code]
    ? refused(`${NAME} refused the API key or login (${which}: ${SIGN_IN_CODES[code]}).`)
    : refused(`${NAME} refused the ${method} call (${which}).`);
}

interface Luminate {
  call<T = Obj>(servlet: 'SRConsAPI' | 'SRDonationAPI', method: string, params?: Record<string, string | number | undefined>, opts?: { record?: boolean }): Promise<T>;
}

export function luminateClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): Luminate {
  const site = (ctx.settings.url ?? '').trim().replace(/\/$/, '');
  if (!/^https?:\/\//.test(site)) throw refused('The Luminate Online secure site URL is needed, ending in /site.');
  const { apiKey = '', loginName = '', loginPassword = '' } = ctx.settings;
  const path = new URL(site).pathname;
  const client: VendorClient = vendorClient({
    system: 'luminate-online', name: NAME, baseUrl: site, signal: ctx.signal, network: ctx.network, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`luminate:${createHash('sha256').update(`${site}:${apiKey}:${loginName}`).digest('hex')}`, CALLS_PER_SECOND),
    credential: 'API key or login',
    // the credentials travel in each call's form body
    auth: async () => ({}),
    messageOf: luminateMessageOf,
  });
  return {
    async call<T>(servlet: string, method: string, params: Record<string, string | number | undefined> = {}, o: { record?: boolean } = {}): Promise<T> {
      const form = new URLSearchParams({ method, v: '1.0', response_format: 'json', api_key: apiKey, login_name: loginName, login_password: loginPassword });
      for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') form.set(k, String(v));
      let body: Obj;
      try {
        body = await client.call<Obj>({ method: 'POST', path: `${path}/${servlet}`, body: { text: form.toString(), contentType: 'application/x-www-form-urlencoded' }, own: [400, 403, 404] });
      } catch (err) {
        if (!(err instanceof VendorRefusal)) throw err;
        const code = String(obj(obj(err.body).errorResponse).code ?? '');
        if (!!SIGN_IN_CODES[code] || !o.record) throw callRefused(method, code, err.status);
        throw err;
      }
      // an error answered with HTTP 200 (suppress_response_codes on the site)
      if (body && obj(body).errorResponse) {
        const code = String(obj(obj(body).errorResponse).code ?? '');
        if (!!SIGN_IN_CODES[code] || !o.record) throw callRefused(method, code, 200);
        throw new VendorRefusal(NAME, 200, luminateMessageOf(body), body);
      }
      return body as T;
    },
  } as Luminate;
}

const OBJECTS = ['constituents', 'donations'] as const;
type LuminateObject = (typeof OBJECTS)[number];
function objectOf(object: string): LuminateObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as LuminateObject;
  throw new ConnectorInputError(`Tributary reads Luminate Online constituents and donations and writes constituents; ${object} is not one of them yet.`);
}

/** a record's nested fields as dot names; custom fields (`custom: { string: [{ id, content }] }`) by their ids */
export function flatten(o: Obj, prefix = ''): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'custom' && !prefix) {
      for (const list of Object.values(obj(v))) for (const c of many(list)) if (typeof c.id === 'string') out[c.id] = c.content;
    } else if (v && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatten(v as Obj, `${prefix}${k}.`));
    else if (v !== undefined && v !== null && v !== '' && !Array.isArray(v)) out[`${prefix}${k}`] = v;
  }
  return out;
}

/** Luminate's dates (`2026-03-01T12:00:00.000-06:00`, or without a zone: the site's, read as UTC) as ISO 8601 */
export function luminateDate(v: unknown): string | null {
  if (typeof v !== 'string' || !v) return null;
  const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

export function constituentRecord(c: Obj): SourceRecord {
  const fields = flatten(c);
  for (const k of ['modify_date', 'creation_date']) if (fields[k]) fields[k] = luminateDate(fields[k]) ?? fields[k];
  return { id: String(c.cons_id), fields };
}

export function donationRecord(d: Obj): SourceRecord {
  const fields = flatten(d);
  for (const k of ['modify_date', 'payment_date']) if (fields[k]) fields[k] = luminateDate(fields[k]) ?? fields[k];
  if (typeof fields.payment_date === 'string') fields.date = fields.payment_date.slice(0, 10);
  if (fields['amount.decimal'] !== undefined) fields.amount = Number(fields['amount.decimal']);
  return { id: String(d.transaction_id ?? d.donation_id ?? d.id), fields };
}

const LIST: Record<LuminateObject, { servlet: 'SRConsAPI' | 'SRDonationAPI'; method: string; answer: string; item: string; record: (o: Obj) => SourceRecord }> = {
  constituents: { servlet: 'SRConsAPI', method: 'getUserChanges', answer: 'getUserChangesResponse', item: 'user', record: constituentRecord },
  donations: { servlet: 'SRDonationAPI', method: 'getDonations', answer: 'getDonationsResponse', item: 'donation', record: donationRecord },
};

/** a date as Luminate's list filters take it */
const stamp = (iso: string | Date) => (iso instanceof Date ? iso.toISOString() : iso).replace(/\.\d{3}Z$/, 'Z');

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = LIST[objectOf(object)];
  const lo = luminateClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const size = Math.max(1, Math.min(options?.batchSize ?? LUMINATE_PAGE, LUMINATE_PAGE));
  // an offset of records; its page number is what Luminate is asked for
  for await (const page of offsetPages(async (offset, limit) => {
    const answer = await lo.call<Obj>(which.servlet, which.method, {
      list_page_size: limit, list_page_offset: Math.floor(offset / limit), list_sort_column: 'modify_date', list_ascending: 'true',
      modify_start_date: from ? stamp(from) : undefined, modify_end_date: window ? stamp(window.to) : undefined,
    });
    const body = obj(answer[which.answer]);
    if (!answer[which.answer]) throw new VendorRefusal(NAME, 200, `the answer to ${which.method} was not a list`);
    return many(body[which.item]);
  }, size, at.next ? Number(at.next) : 0)) {
    const records = page.items.map(which.record);
    for (const r of records) latest = laterStamp(latest, r.fields.modify_date as string | undefined);
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

interface UserField { name?: string; label?: string; valueType?: string; required?: string | boolean }
const TYPES: Record<string, FieldInfo['type']> = { DATE: 'date', DATETIME: 'datetime', BOOLEAN: 'boolean', NUMBER: 'number', INTEGER: 'number', DECIMAL: 'number', EMAIL: 'email', PHONE: 'phone' };

function userFields(ctx: ConnectorContext, lo: Luminate): Promise<UserField[]> {
  return once(ctx, 'luminate:fields', async () => {
    const answer = await lo.call<Obj>('SRConsAPI', 'listUserFields', { include_all_fields: 'true' });
    if (!answer.listUserFieldsResponse) throw new VendorRefusal(NAME, 200, 'the answer to listUserFields named no fields');
    return many(obj(answer.listUserFieldsResponse).field).filter((f) => typeof f.name === 'string') as UserField[];
  });
}

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });
const OPT_IN = 'email.accepts_email';
const EMAIL = 'email.primary_address';

const DONATION_FIELDS: FieldInfo[] = [
  ro('transaction_id', 'Transaction ID'), ro('date', 'Date', 'date'), ro('payment_date', 'Paid at', 'datetime'), ro('modify_date', 'Modified', 'datetime'),
  ro('amount', 'Amount', 'number'), ro('amount.formatted', 'Amount as Luminate shows it'), ro('form_id', 'Donation form ID'), ro('campaign_name', 'Campaign'),
  ro('form_name', 'Donation form'), ro('tender_type', 'Payment method'), ro('recurring', 'Recurring', 'boolean'),
  ro('donor.cons_id', 'Donor cons ID'), ro('donor.name.first', 'Donor first name'), ro('donor.name.last', 'Donor last name'),
  ro('donor.email', 'Donor e-mail', 'email'), ro('donor.address.street1', 'Donor street'), ro('donor.address.city', 'Donor city'),
  ro('donor.address.state', 'Donor state'), ro('donor.address.zip', 'Donor ZIP/postal code'), ro('donor.address.country', 'Donor country'),
];

async function describeFields(ctx: ConnectorContext, object: string): Promise<FieldInfo[]> {
  if (objectOf(object) === 'donations') return DONATION_FIELDS;
  const own = await userFields(ctx, luminateClient(ctx));
  const fixed: FieldInfo[] = [ro('cons_id', 'Constituent ID'), ro('modify_date', 'Modified', 'datetime'), ro('creation_date', 'Created', 'datetime')];
  return [...fixed, ...own.filter((f) => !fixed.some((x) => x.name === f.name)).map((f): FieldInfo => {
    const name = f.name!;
    if (name === EMAIL) return { name, label: f.label || 'E-mail address', type: 'email', required: true, searchable: true };
    if (name === OPT_IN) return { name, label: `${f.label || 'Accepts e-mail'} (opt-in: written only when mapped; Tributary never changes it otherwise)`, type: 'boolean' };
    return { name, label: f.label || name, type: TYPES[(f.valueType ?? '').toUpperCase()] ?? 'string', ...(f.required === true || f.required === 'true' ? { required: true } : {}) };
  })];
}

async function userBy(lo: Luminate, by: { primary_email?: string; cons_id?: string }): Promise<Obj | null> {
  try {
    const answer = await lo.call<Obj>('SRConsAPI', 'getUser', by, { record: true });
    const user = obj(answer.getConsResponse);
    return user.cons_id !== undefined ? user : null;
  } catch (err) {
    // no such constituent: Luminate refuses the lookup with its code 16
    if (err instanceof VendorRefusal && String(obj(obj(err.body).errorResponse).code ?? '') === NO_MATCH) return null;
    throw err;
  }
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  if (objectOf(object) !== 'constituents') throw new ConnectorInputError('Tributary writes Luminate Online constituents only.');
  const lo = luminateClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const email = q.criteria.find((c) => c.field === EMAIL && (c.operator ?? 'equals') === 'equals');
    const byId = q.criteria.find((c) => c.field === 'cons_id');
    if (!email && !byId) throw new ConnectorInputError('Luminate Online finds constituents by e-mail address or cons_id only.');
    const value = (email ?? byId)!.value.trim();
    const user = value ? await userBy(lo, email ? { primary_email: value } : { cons_id: value }) : null;
    const record = user ? constituentRecord(user) : null;
    out.push(record && holdsAll(record.fields, q.criteria.filter((c) => c !== byId)) ? [record] : []);
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  if (objectOf(object) !== 'constituents') throw new ConnectorInputError('Tributary writes Luminate Online constituents only.');
  const lo = luminateClient(ctx);
  const known = new Set((await userFields(ctx, lo)).map((f) => f.name!));
  const ledger = await writeLedger(ctx, 'constituents', items.map((i) => i.idempotencyKey));
  return eachRecord(NAME, 'constituent', items, async (item, fail) => {
    const params: Record<string, string> = {};
    for (const [k, v] of Object.entries(item.fields)) {
      if (k === EMAIL || k === 'cons_id' || k === 'modify_date' || k === 'creation_date') continue;
      if (!known.has(k)) return fail(`Luminate Online has no constituent field ${k} on this site.`);
      params[k] = typeof v === 'boolean' ? String(v) : text(v);
    }
    const email = text(item.fields[EMAIL]);
    const write = async (by: Record<string, string>) => {
      const answer = await lo.call<Obj>('SRConsAPI', 'createOrUpdate', { ...params, ...(email ? { primary_email: email } : {}), ...by }, { record: true });
      const id = obj(answer.createOrUpdateConsResponse).cons_id;
      if (id === undefined || id === null || id === '') throw new VendorRefusal(NAME, 200, 'the answer named no constituent');
      return String(id);
    };
    if (item.id) return writtenResult(item, await write({ cons_id: item.id }), false);
    if (!email) return fail('Luminate Online creates a constituent by e-mail address, and this record has none.');
    const { id, replayed } = await ledger.createOnce(item.idempotencyKey, async () => {
      const user = await userBy(lo, { primary_email: email });
      return user ? String(user.cons_id) : null;
    }, () => write({}));
    return { ...writtenResult(item, id, true), replayed };
  });
}

export const luminateOnlineConnector: Connector = {
  system: 'luminate-online',
  async test(ctx) {
    const answer = await luminateClient(ctx).call<Obj>('SRConsAPI', 'listUserFields');
    if (!answer.listUserFieldsResponse) throw refused('Luminate Online did not answer as its API documents.');
    return { detail: 'Signed in to Luminate Online as the API administrator.' };
  },
  async listObjects() {
    return luminateOnline.objects.filter((o) => (OBJECTS as readonly string[]).includes(o.name));
  },
  describeFields,
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== 'constituents') return `Tributary writes Luminate Online constituents; ${object} is not one of them.`;
    return emailOnlyProblem(NAME, 'constituents', EMAIL, 'cons_id', scenarios);
  },
};
