/**
 * Engaging Networks (ENS REST API) as a source and a destination, on the connector kit. The API
 * user's token is posted to `/ens/service/authenticate` for a session token (`ens-auth-token`,
 * with `expires` in milliseconds), sent as the `ens-auth-token` header of later calls; the session
 * is kept per token and data centre in this process until a minute before it expires, and a 401
 * authenticates again once. Error bodies are `{ messageId, message }`.
 *
 * Source: supporters modified since the last pull through the supporter query (`GET
 * /ens/service/supporter/query?type=latestModified&daysBack=…`, 1 to 32 days, 100 rows a page, each
 * supporter then read with `GET /supporter/{id}`); transactions of whole days through the Bulk
 * Export API (`GET /ea-dataservice/export.service` with the account's private token, MMDDYYYY
 * dates, `type=csv`), which holds days up to yesterday. ENS dates are days: a supporters pull
 * starts on the day the last one ended (that day read again, harmlessly), a transactions pull on
 * the day after. The REST export job (`/ens/service/exportjob`) runs a dashboard query by name and
 * takes no dates, so it is not used.
 *
 * Destination: supporters, found by e-mail (`GET /ens/service/supporter?email=`) or supporter ID,
 * written with `POST /ens/service/supporter` (ENS creates or updates by e-mail address, so sending
 * one again changes the same supporter). A scenario without the e-mail address or the supporter ID
 * cannot be answered and is refused when saved.
 *
 * Fields: the account's supporter fields (`GET /ens/service/supporter/fields`), custom ones included.
 */
import { createHash } from 'node:crypto';
import { engagingNetworks } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, processingError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions,
  type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { lowered, meets } from '../kit/criteria.ts';
import { exportBatches, readJobAt } from '../kit/exportJob.ts';
import { positionSince, type PullPosition } from '../kit/paging.ts';
import { vendorSession, type Session } from '../kit/session.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { expectJson, JSON_BODY, VENDOR_DATA_MAX_BYTES, vendorFetch, vendorUrl } from '../vendorHttp.ts';

const NAME = 'Engaging Networks';

export const DATA_CENTRES: Record<string, string> = {
  'us': 'https://us.engagingnetworks.app',
  'ca': 'https://ca.engagingnetworks.app',
  'e-activist': 'https://www.e-activist.com',
};

type EnObject = 'supporters' | 'transactions';
const EMAIL = 'Email Address';
const ROWS = 500;
/** a transactions pull with no watermark starts here */
const EPOCH = '2000-01-01';

export const hostOf = (ctx: ConnectorContext) => DATA_CENTRES[ctx.settings.dataCentre ?? ''] ?? DATA_CENTRES.us!;

/** ENS's words: the message, with its messageId. */
export function ensMessageOf(body: unknown): string {
  const o = body as { message?: unknown; messageId?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.message !== 'string') return '';
  // ENS documents messageId as a number; a string one is shown as well
  const id = typeof o.messageId === 'number' || (typeof o.messageId === 'string' && o.messageId) ? String(o.messageId) : '';
  return (id ? `${o.message} (${id})` : o.message).slice(0, 500);
}

async function authenticate(ctx: ConnectorContext): Promise<Session> {
  const res = await vendorFetch('engaging-networks', NAME, `${hostOf(ctx)}/ens/service/authenticate`, {
    method: 'POST', headers: { ...JSON_BODY, accept: 'application/json' }, body: ctx.settings.apiToken ?? '', signal: ctx.signal,
  });
  const body = await expectJson<{ 'ens-auth-token'?: string; expires?: number }>(NAME, res, 'the API user token');
  const token = body['ens-auth-token'];
  if (!token) throw refused(`${NAME} answered without a session token.`);
  return { token, expiresOn: Date.now() + (Number(body.expires) > 0 ? Number(body.expires) : 3_600_000), about: {} };
}

export function ensClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  // the host as called (a redirected one included), so a session is never offered to another host
  const key = createHash('sha256').update(`${vendorUrl('engaging-networks', hostOf(ctx)).url}\n${ctx.settings.apiToken ?? ''}`).digest('hex');
  return vendorClient({
    system: 'engaging-networks', name: NAME, baseUrl: hostOf(ctx), signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    credential: 'session token',
    // one session per token and data centre in this process; one ENS refused: authenticate again
    auth: async (force) => ({ 'ens-auth-token': (await vendorSession(`ens:${key}`, force, () => authenticate(ctx))).token }),
    messageOf: ensMessageOf,
  });
}

function objectOf(object: string, writing = false): EnObject {
  if (object === 'supporters' || (object === 'transactions' && !writing)) return object;
  throw new ConnectorInputError(writing
    ? `Tributary writes Engaging Networks supporters; ${object} is not one of them.`
    : `Tributary reads Engaging Networks supporters and transactions; ${object} is not one of them yet.`);
}

interface SupporterField { id?: number; name?: string; tag?: string; property?: string }

/** The bulk export's transaction columns (its "standardcsv" names): one row a piece of activity. */
const TRANSACTION_FIELDS: FieldInfo[] = [
  { name: 'Supporter ID', label: 'Supporter ID', type: 'string', readOnly: true },
  { name: 'Supporter Email', label: 'E-mail address', type: 'email', readOnly: true },
  { name: 'Campaign Number', label: 'Campaign number', type: 'string', readOnly: true },
  { name: 'Campaign Type', label: 'Campaign type (FCS, FCR, PET, EBC…)', type: 'string', readOnly: true },
  { name: 'Campaign ID', label: 'Campaign reference name', type: 'string', readOnly: true },
  { name: 'Campaign Date', label: 'Date', type: 'date', readOnly: true },
  { name: 'Campaign Time', label: 'Time (US Eastern)', type: 'string', readOnly: true },
  { name: 'Campaign Status', label: 'Status', type: 'string', readOnly: true },
  { name: 'Campaign Data 1', label: 'Campaign data 1 (by campaign type)', type: 'string', readOnly: true },
  { name: 'Campaign Data 2', label: 'Campaign data 2 (by campaign type)', type: 'string', readOnly: true },
  { name: 'Campaign Data 3', label: 'Campaign data 3 (by campaign type)', type: 'string', readOnly: true },
];

async function describe(client: VendorClient, object: EnObject): Promise<FieldInfo[]> {
  if (object === 'transactions') return TRANSACTION_FIELDS;
  const fields = await client.call<SupporterField[]>({ path: '/ens/service/supporter/fields' });
  const out: FieldInfo[] = [{ name: 'Supporter ID', label: 'Supporter ID', type: 'string', readOnly: true, searchable: true }];
  for (const f of fields ?? []) {
    if (!f.name || out.some((o) => o.name === f.name)) continue;
    const email = f.name === EMAIL;
    out.push({ name: f.name, label: f.name, type: email ? 'email' : /phone/i.test(f.name) ? 'phone' : 'string', ...(email ? { required: true, searchable: true } : {}) });
  }
  return out;
}

/** ENS's supporter query reaches back 1 to 32 days (`daysBack`), 100 rows a page */
const DAYS_BACK = 32;
const QUERY_ROWS = 100;
const DAY_MS = 86_400_000;
const day = (d: Date) => d.toISOString().slice(0, 10);
/** the bulk export's dates: MMDDYYYY */
const mmddyyyy = (iso: string) => `${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(0, 4)}`;

interface SupporterQuery { pagination?: { start?: number; rows?: number; total?: number }; data?: { supporterId?: number; emailAddress?: string; modifiedOn?: string }[] }

/**
 * Supporters modified since a day: `GET /supporter/query?type=latestModified&daysBack=…` (at most
 * 32 days, so a first pull or one after a longer pause starts 32 days back), paged 100 a time,
 * each supporter then read whole (`GET /supporter/{id}`), as the query answers only ids and dates.
 */
async function* pullSupporters(ctx: ConnectorContext, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const client = ensClient(ctx);
  const at = positionSince(since);
  const today = day(new Date());
  const oldest = day(new Date(Date.now() - (DAYS_BACK - 1) * DAY_MS));
  const asked = at.since ?? (options?.window ? day(options.window.from) : oldest);
  const from = asked < oldest ? oldest : asked;
  // the window's last day is the day before its end (the end is not included)
  const last = options?.window ? day(new Date(options.window.to.getTime() - 1)) : today;
  const daysBack = Math.min(DAYS_BACK, Math.max(1, Math.round((Date.parse(today) - Date.parse(from)) / DAY_MS) + 1));
  const size = Math.max(1, options?.batchSize ?? ROWS);
  let start = at.next && /^\d+$/.test(at.next) ? Number(at.next) : 0;
  for (;;) {
    const page = await client.call<SupporterQuery>({ path: '/ens/service/supporter/query', query: { type: 'latestModified', daysBack: String(daysBack), rows: String(QUERY_ROWS), start: String(start) } });
    const items = (page?.data ?? []).filter((x) => x.supporterId !== undefined && (!x.modifiedOn || (x.modifiedOn >= from && x.modifiedOn <= last)));
    const got = page?.data?.length ?? 0;
    const done = got < QUERY_ROWS || start + got >= (page?.pagination?.total ?? Infinity);
    for (let i = 0; i < items.length; i += size) {
      const records: SourceRecord[] = [];
      for (const item of items.slice(i, i + size)) {
        const found = await supporterBy(client, { id: String(item.supporterId) });
        if (found) records.push(supporterRecord(found));
      }
      const pageDone = i + size >= items.length;
      const position: PullPosition = pageDone && done ? { since: last, next: null, latest: null } : { since: from, next: pageDone ? String(start + got) : String(start), latest: null };
      yield { records, watermark: JSON.stringify(position) };
    }
    if (done) {
      if (!items.length) yield { records: [], watermark: JSON.stringify({ since: last, next: null, latest: null } satisfies PullPosition) };
      return;
    }
    start += got;
  }
}

/** a transaction row's own key: the supporter, the campaign and when */
const TRANSACTION_KEY = ['Supporter ID', 'Campaign Number', 'Campaign Type', 'Campaign Date', 'Campaign Time'];

/**
 * Transactions of whole days through the Bulk Export API (`GET /ea-dataservice/export.service`
 * with the account's private token, `startDate`/`endDate` as MMDDYYYY, `type=csv`): ENS stages a
 * day's data the next morning, so a pull reads up to yesterday and the next starts the day after.
 */
async function* pullTransactions(ctx: ConnectorContext, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const token = (ctx.settings.privateToken ?? '').trim();
  if (!token) throw new ConnectorInputError(`${NAME} exports transactions with the account's private token (Hello > Account settings > Tokens); this connection has none.`);
  const at = positionSince(since);
  const yesterday = day(new Date(Date.now() - DAY_MS));
  const from = at.since ?? (options?.window ? day(options.window.from) : EPOCH);
  const wanted = options?.window ? day(new Date(options.window.to.getTime() - 1)) : yesterday;
  const resume = readJobAt(at.next);
  const to = resume?.to ?? (wanted < yesterday ? wanted : yesterday);
  // nothing staged yet for these days
  if (to < from) { yield { records: [], watermark: JSON.stringify({ since: from, next: null, latest: null } satisfies PullPosition) }; return; }
  const next = day(new Date(Date.parse(to) + DAY_MS));
  const download = async () => {
    const url = new URL(`${hostOf(ctx)}/ea-dataservice/export.service`);
    for (const [k, v] of Object.entries({ token, startDate: mmddyyyy(from), endDate: mmddyyyy(to), type: 'csv' })) url.searchParams.set(k, v);
    const res = await vendorFetch('engaging-networks', NAME, url.toString(), { headers: { accept: 'text/csv' }, maxBytes: VENDOR_DATA_MAX_BYTES, signal: ctx.signal });
    const text = await res.text();
    if (res.status !== 200 || /^\s*</.test(text)) throw refused(`${NAME} refused the bulk export (HTTP ${res.status})${text && !/^\s*</.test(text) ? `: ${text.trim().slice(0, 300)}` : '.'}`);
    return text;
  };
  const job = `${from}..${to}`;
  for await (const batch of exportBatches({ name: NAME, job, to, files: [download], idColumn: 'Supporter ID', size: Math.max(1, options?.batchSize ?? ROWS), resume })) {
    const records = batch.records.map((r) => ({ ...r, id: TRANSACTION_KEY.map((k) => String(r.fields[k] ?? '')).join('|') }));
    const position: PullPosition = batch.last ? { since: next, next: null, latest: null } : { since: from, next: JSON.stringify(batch.next), latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

function pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  return objectOf(object) === 'supporters' ? pullSupporters(ctx, since, options) : pullTransactions(ctx, since, options);
}

type Supporter = Record<string, unknown> & { supporterId?: number | string };

export function supporterRecord(s: Supporter): SourceRecord {
  const fields: Record<string, unknown> = { 'Supporter ID': s.supporterId === undefined ? undefined : String(s.supporterId) };
  for (const [k, v] of Object.entries(s)) {
    if (k === 'supporterId' || v === null || v === undefined || v === '' || typeof v === 'object') continue;
    fields[k] = v;
  }
  return { id: String(s.supporterId ?? ''), fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) };
}

async function supporterBy(client: VendorClient, by: { email: string } | { id: string }): Promise<Supporter | null> {
  try {
    const answer = 'email' in by
      ? await client.call<Supporter | null>({ path: '/ens/service/supporter', query: { email: by.email }, own: [404] })
      : await client.call<Supporter | null>({ path: `/ens/service/supporter/${encodeURIComponent(by.id)}`, own: [404] });
    return answer && answer.supporterId !== undefined ? answer : null;
  } catch (err) {
    if (err instanceof VendorRefusal && err.status === 404) return null;
    throw err;
  }
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  objectOf(object, true);
  const client = ensClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const email = q.criteria.find((c) => c.field === EMAIL && (c.operator ?? 'equals') === 'equals');
    const byId = q.criteria.find((c) => c.field === 'Supporter ID');
    if (!email && !byId) throw new ConnectorInputError('Engaging Networks finds supporters by e-mail address or supporter ID only.');
    const value = (email ?? byId)!.value.trim();
    const found = value ? await supporterBy(client, email ? { email: value } : { id: value }) : null;
    const record = found ? supporterRecord(found) : null;
    out.push(record && q.criteria.every((c) => meets(lowered(record.fields[c.field]), lowered(c.value), c.operator)) ? [record] : []);
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object, true);
  const client = ensClient(ctx);
  const results: UpsertResult[] = [];
  for (const item of items) {
    const fail = (error: string) => results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error });
    const body: Record<string, string> = {};
    for (const [k, v] of Object.entries(item.fields)) if (k !== 'Supporter ID' && text(v)) body[k] = text(v);
    if (!body[EMAIL]) { fail(`${NAME} keeps a supporter by e-mail address, and this record has none.`); continue; }
    try {
      // ENS creates or updates by e-mail address: sending it again changes the same supporter
      const saved = await client.call<{ id?: number | string; supporterId?: number | string }>({ method: 'POST', path: '/ens/service/supporter', json: body });
      const id = saved?.id ?? saved?.supporterId;
      if (id === undefined || id === null) throw processingError(`${NAME} did not say which supporter it wrote.`);
      results.push({ idempotencyKey: item.idempotencyKey, id: String(id), outcome: item.id ? 'updated' : 'created', replayed: false });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      fail(`${NAME} refused the supporter: ${err.vendorMessage || `HTTP ${err.status}`}`);
    }
  }
  return results;
}

export const engagingNetworksConnector: Connector = {
  system: 'engaging-networks',
  async test(ctx) {
    await authenticate(ctx);
    return { detail: 'Engaging Networks accepted the API user token.' };
  },
  async listObjects() {
    return engagingNetworks.objects.filter((o) => o.name === 'supporters' || o.name === 'transactions');
  },
  async describeFields(ctx, object) {
    return describe(ensClient(ctx), objectOf(object));
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== 'supporters') return `Tributary writes Engaging Networks supporters; ${object} is not one of them.`;
    for (const s of scenarios) {
      if (!s.fields.includes(EMAIL) && !s.fields.includes('Supporter ID')) {
        return `Engaging Networks finds supporters by e-mail address or supporter ID only: the scenario "${s.name}" compares ${s.fields.join(', ') || 'nothing'}. Add the e-mail address to it.`;
      }
    }
    return null;
  },
};
