/**
 * Engaging Networks (ENS REST API) as a source and a destination, on the connector kit. The API
 * user's token is posted to `/ens/service/authenticate` for a session token (`ens-auth-token`,
 * with `expires` in milliseconds), sent as the `ens-auth-token` header of later calls; the session
 * is kept per token and data centre in this process until a minute before it expires, and a 401
 * authenticates again once. Error bodies are `{ messageId, message }`.
 *
 * Source: supporters and transactions changed in a date range, through an export job
 * (`POST /ens/service/export/job` with the type and the dates, `GET /export/job/{id}` until its
 * status is COMPLETED, `GET /export/job/{id}/download` for its CSV). ENS dates are days: a pull
 * starts on the day the last one ended (that day's changes are read again, harmlessly).
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
import { awaitJob, exportBatches, readJobAt } from '../kit/exportJob.ts';
import { positionSince, type PullPosition } from '../kit/paging.ts';
import { vendorSession, type Session } from '../kit/session.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { expectJson, JSON_BODY, vendorFetch, vendorUrl } from '../vendorHttp.ts';

const NAME = 'Engaging Networks';

export const DATA_CENTRES: Record<string, string> = {
  'us': 'https://us.engagingnetworks.app',
  'ca': 'https://ca.engagingnetworks.app',
  'e-activist': 'https://www.e-activist.com',
};

type EnObject = 'supporters' | 'transactions';
const EXPORT_TYPE: Record<EnObject, string> = { supporters: 'SUPPORTER', transactions: 'TRANSACTION' };
const ID_COLUMN: Record<EnObject, string> = { supporters: 'Supporter ID', transactions: 'Transaction ID' };
const EMAIL = 'Email Address';
const ROWS = 500;
const EPOCH = '2000-01-01';

export const hostOf = (ctx: ConnectorContext) => DATA_CENTRES[ctx.settings.dataCentre ?? ''] ?? DATA_CENTRES.us!;

/** ENS's words: the message, with its id. */
export function ensMessageOf(body: unknown): string {
  const o = body as { message?: unknown; messageId?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.message !== 'string') return '';
  return (typeof o.messageId === 'string' && o.messageId ? `${o.message} (${o.messageId})` : o.message).slice(0, 500);
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

const TRANSACTION_FIELDS: FieldInfo[] = [
  { name: 'Transaction ID', label: 'Transaction ID', type: 'string', readOnly: true },
  { name: 'Supporter ID', label: 'Supporter ID', type: 'string', readOnly: true },
  { name: 'Email Address', label: 'E-mail address', type: 'email', readOnly: true },
  { name: 'Transaction Date', label: 'Transaction date', type: 'date', readOnly: true },
  { name: 'Amount', label: 'Amount', type: 'number', readOnly: true },
  { name: 'Currency', label: 'Currency', type: 'string', readOnly: true },
  { name: 'Transaction Type', label: 'Transaction type', type: 'string', readOnly: true },
  { name: 'Campaign ID', label: 'Campaign (page) ID', type: 'string', readOnly: true },
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

interface ExportJob { id?: string | number; status?: string; message?: string }

async function lookAtJob(client: VendorClient, id: string): Promise<ExportJob | null> {
  try {
    return await client.call<ExportJob>({ path: `/ens/service/export/job/${encodeURIComponent(id)}`, own: [404] });
  } catch (err) {
    if (err instanceof VendorRefusal && err.status === 404) return null;
    throw err;
  }
}

const day = (iso: string) => iso.slice(0, 10);

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const kind = objectOf(object);
  const client = ensClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? day(window.from.toISOString()) : EPOCH);
  let resume = readJobAt(at.next);
  const finished = (id: string) => awaitJob<ExportJob>({
    name: NAME, signal: ctx.signal, look: () => lookAtJob(client, id),
    state: (job) => { const s = (job.status ?? '').toUpperCase(); return s === 'COMPLETED' ? 'done' : s === 'FAILED' || s === 'ERROR' ? 'failed' : 'waiting'; },
    failed: (job) => `${NAME} could not export the ${kind}${job.message ? `: ${job.message}` : '.'}`,
  });
  let job = resume ? await finished(resume.job) : null;
  let to = resume?.to ?? '';
  if (!job) {
    resume = null;
    // the window's last day is the day before its end (the end is not included)
    to = window ? day(new Date(window.to.getTime() - 1).toISOString()) : day(new Date().toISOString());
    const created = await client.call<ExportJob>({ method: 'POST', path: '/ens/service/export/job', json: { type: EXPORT_TYPE[kind], startDate: from, endDate: to, format: 'CSV' } });
    if (created?.id === undefined || created.id === null) throw processingError(`${NAME} did not say which export job it started.`);
    job = await finished(String(created.id));
    if (!job) throw processingError(`${NAME} lost the export job it had just started. Try again later.`);
  }
  const id = String(job.id);
  const files = [() => client.text({ path: `/ens/service/export/job/${encodeURIComponent(id)}/download`, text: 'text/csv' })];
  for await (const batch of exportBatches({ name: NAME, job: id, to, files, idColumn: ID_COLUMN[kind], size: Math.max(1, options?.batchSize ?? ROWS), resume })) {
    const position: PullPosition = batch.last ? { since: to, next: null, latest: null } : { since: from, next: JSON.stringify(batch.next), latest: null };
    yield { records: batch.records, watermark: JSON.stringify(position) };
  }
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
