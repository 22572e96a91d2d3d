/**
 * Swoogo as a source, on the connector kit (developer.swoogo.com). Sign-in: OAuth 2.0 client
 * credentials, HTTP Basic of the URL-encoded API key and secret at /api/v1/oauth2/token.json; the
 * token lives 30 minutes (`expires_at`, or `expires_in`), is kept per account until a minute before
 * it ends, and is obtained again when a call is refused with it.
 *
 * Source: events, and each event's registrants, sessions, speakers, sponsors and transactions
 * (those lists need `event_id`: with the formula's Event ID only that event is read, else every
 * event in turn, by id). Each list asks for its fields (`fields=`), only the records updated since
 * the watermark (`search=updated_at>=…`, Swoogo's filter syntax, its times as it writes them:
 * `YYYY-MM-DD HH:MM:SS`, UTC), oldest change first (`sort=updated_at`), paged with `page` and
 * `per-page` (200 a page) while `_meta.currentPage` is under `_meta.pageCount`. The watermark keeps
 * its date while a pull is under way (the position is the event and page next to read) and moves
 * to the latest `updated_at` seen with the pull's last batch; a run once reads `updated_at` from
 * and before its window.
 *
 * Swoogo allows 2,000 credits every 10 minutes per credential, a list call costing 10: lists are
 * paced to 200 in 10 minutes per key; a 429 is waited out by the kit's client. Errors are Yii's
 * `{ name, message, code, status }` (a 422 a list of `{ field, message }`), told in Swoogo's words.
 */
import { createHash } from 'node:crypto';
import { swoogo } from '../../../src/domain/connectors/fundraising.ts';
import { ConnectorInputError, processingError, refused, transientProblem, sourceOnly, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord } from '../connector.ts';
import { laterStamp, positionSince, type PullPosition } from '../kit/paging.ts';
import { sharedPacer } from '../kit/pace.ts';
import { vendorSession, type Session } from '../kit/session.ts';
import { vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { basic, form, FORM, vendorFetch } from '../vendorHttp.ts';

const NAME = 'Swoogo';
/** records a page: Swoogo's most is 1,000, 200 with `expand`; 200 keeps a page's answer small */
export const SWOOGO_PAGE = 200;
const TOKEN_LIFETIME_S = 30 * 60;

type Obj = Record<string, unknown>;
const OBJECTS = ['events', 'registrants', 'sessions', 'speakers', 'sponsors', 'transactions'] as const;
type SwoogoObject = (typeof OBJECTS)[number];

function objectOf(object: string): SwoogoObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as SwoogoObject;
  throw new ConnectorInputError(`Tributary reads Swoogo events, registrants, sessions, speakers, sponsors and transactions; ${object} is not one of them.`);
}

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });
const STAMPS = [ro('created_at', 'Created', 'datetime'), ro('updated_at', 'Updated', 'datetime')];

export const SWOOGO_FIELDS: Record<SwoogoObject, FieldInfo[]> = {
  events: [
    ro('id', 'Event ID'), ro('name', 'Name'), ro('status', 'Status'), ro('start_date', 'Start date', 'date'), ro('end_date', 'End date', 'date'),
    ro('start_time', 'Start time'), ro('end_time', 'End time'), ro('timezone', 'Time zone'), ro('capacity', 'Capacity', 'number'), ro('url', 'Web address'), ...STAMPS,
  ],
  registrants: [
    ro('id', 'Registrant ID'), ro('event_id', 'Event ID'), ro('email', 'E-mail', 'email'), ro('prefix', 'Prefix'), ro('first_name', 'First name'), ro('last_name', 'Last name'),
    ro('company', 'Company'), ro('job_title', 'Job title'), ro('work_phone', 'Work phone', 'phone'), ro('mobile_phone', 'Mobile phone', 'phone'),
    ro('registration_status', 'Registration status'), ro('payment_status', 'Payment status'), ro('reg_type_id', 'Registrant type ID'),
    ro('individual_gross', 'Amount (gross)', 'number'), ro('group_balance_due', 'Balance due', 'number'),
    ro('registered_at', 'Registered', 'datetime'), ro('cancelled_at', 'Cancelled', 'datetime'), ro('checked_in_at', 'Checked in', 'datetime'), ...STAMPS,
  ],
  sessions: [
    ro('id', 'Session ID'), ro('event_id', 'Event ID'), ro('name', 'Name'), ro('date', 'Date', 'date'), ro('start_time', 'Start time'), ro('end_time', 'End time'),
    ro('capacity', 'Capacity', 'number'), ro('location_id', 'Location ID'), ...STAMPS,
  ],
  speakers: [
    ro('id', 'Speaker ID'), ro('event_id', 'Event ID'), ro('first_name', 'First name'), ro('last_name', 'Last name'), ro('email', 'E-mail', 'email'),
    ro('company', 'Company'), ro('job_title', 'Job title'), ...STAMPS,
  ],
  sponsors: [ro('id', 'Sponsor ID'), ro('event_id', 'Event ID'), ro('name', 'Name'), ro('website', 'Web site'), ro('level_id', 'Level ID'), ...STAMPS],
  transactions: [
    ro('id', 'Transaction ID'), ro('event_id', 'Event ID'), ro('registrant_id', 'Registrant ID'), ro('type', 'Type'), ro('amount', 'Amount', 'number'),
    ro('payment_method', 'Payment method'), ro('status', 'Status'), ...STAMPS,
  ],
};
const NUMBERS = new Set(['capacity', 'individual_gross', 'group_balance_due', 'amount']);

/** Swoogo's words: a message, or each field's message of a 422. */
export function swoogoMessageOf(body: unknown): string {
  if (Array.isArray(body)) return body.map((e) => (e && typeof e === 'object' ? [(e as Obj).field, (e as Obj).message].filter((x) => typeof x === 'string').join(': ') : '')).filter(Boolean).join('; ').slice(0, 500);
  if (body && typeof body === 'object') {
    const o = body as Obj;
    for (const k of ['message', 'error_description', 'error']) if (typeof o[k] === 'string' && o[k]) return (o[k] as string).slice(0, 500);
  }
  return '';
}

/** "2026-03-01 12:00:00" (Swoogo's UTC) → ISO 8601; a date alone stays a date. */
const isoOf = (v: unknown): string | undefined => {
  if (typeof v !== 'string' || !v) return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})$/.exec(v);
  return m ? `${m[1]}T${m[2]}.000Z` : v;
};
/** ISO 8601 → Swoogo's "YYYY-MM-DD HH:MM:SS" */
const swoogoTime = (iso: string | Date): string => (iso instanceof Date ? iso : new Date(iso)).toISOString().slice(0, 19).replace('T', ' ');

function recordOf(which: SwoogoObject, o: Obj): SourceRecord {
  const fields: Obj = {};
  for (const f of SWOOGO_FIELDS[which]) {
    let v = o[f.name];
    if (v === null || v === undefined || v === '') continue;
    if (f.type === 'datetime') v = isoOf(v);
    else if (NUMBERS.has(f.name) && typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) v = Number(v);
    else if (f.name.endsWith('id') && typeof v === 'number') v = String(v);
    fields[f.name] = v;
  }
  return { id: String(o.id), fields };
}

interface Token { access_token?: string; expires_at?: string; expires_in?: number }

async function signIn(ctx: ConnectorContext): Promise<Session> {
  const res = await vendorFetch('swoogo', NAME, 'https://api.swoogo.com/api/v1/oauth2/token.json', {
    method: 'POST', signal: ctx.signal,
    headers: { ...FORM, accept: 'application/json', authorization: basic(encodeURIComponent(ctx.settings.consumerKey!), encodeURIComponent(ctx.settings.consumerSecret!)) },
    body: form({ grant_type: 'client_credentials' }),
  });
  const text = await res.text();
  let body: unknown;
  try { body = text ? JSON.parse(text) : null; } catch { body = undefined; }
  if (res.status >= 500) throw transientProblem(processingError(`${NAME} answered with a server error (HTTP ${res.status}). Try again later.`));
  if (res.status !== 200) {
    const words = swoogoMessageOf(body);
    throw refused(`${NAME} refused the API key and secret (HTTP ${res.status})${words ? `: ${words}` : '.'}`);
  }
  const token = (body ?? {}) as Token;
  if (!token.access_token) throw refused(`${NAME} answered without an access token.`);
  const until = token.expires_at ? Date.parse(isoOf(token.expires_at) ?? '') : NaN;
  const expiresOn = Number.isFinite(until) ? until : Date.now() + (Number(token.expires_in) > 0 ? Number(token.expires_in) : TOKEN_LIFETIME_S) * 1000;
  return { token: token.access_token, expiresOn, about: {} };
}

function sessionKey(ctx: ConnectorContext): string {
  if (!ctx.settings.consumerKey || !ctx.settings.consumerSecret) throw refused('Swoogo needs the API key and secret (My Profile > API Credentials).');
  return `swoogo:${createHash('sha256').update([ctx.settings.consumerKey, ctx.settings.consumerSecret].join('\n')).digest('hex')}`;
}

export function swoogoClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  const key = sessionKey(ctx);
  return vendorClient({
    system: 'swoogo', name: NAME, baseUrl: 'https://api.swoogo.com', signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    // 2,000 credits in 10 minutes, a list costing 10
    pace: sharedPacer(key, 200, 600_000),
    auth: async (force) => ({ authorization: `Bearer ${(await vendorSession(key, force, () => signIn(ctx))).token}` }),
    messageOf: swoogoMessageOf,
  });
}

interface SwoogoList { items?: Obj[]; _meta?: { currentPage?: number; pageCount?: number } }

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const client = swoogoClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const perPage = Math.max(1, Math.min(options?.batchSize ?? SWOOGO_PAGE, SWOOGO_PAGE));
  const search = [from ? `updated_at>=${swoogoTime(from)}` : '', window ? `updated_at<${swoogoTime(window.to)}` : ''].filter(Boolean).join('&');
  const list = (path: string, page: number, query: Record<string, string | number | undefined>) => client.call<SwoogoList>({
    path, query: { ...query, page, 'per-page': perPage },
  });
  const under = (next: string): string => JSON.stringify({ since: from, next, latest } satisfies PullPosition);
  const done = (): string => JSON.stringify({ since: latest ?? from, next: null, latest: null } satisfies PullPosition);
  // where a pull stopped: `event:page` (no event for the events themselves)
  const [startEvent, startPage] = at.next ? [at.next.slice(0, at.next.lastIndexOf(':')), Number(at.next.slice(at.next.lastIndexOf(':') + 1)) || 1] : ['', 1];

  /** every page of one list, from `first` */
  async function* pages(path: string, first: number, query: Record<string, string | number | undefined>): AsyncIterable<{ records: SourceRecord[]; next: number | null }> {
    for (let page = first; ; page++) {
      const answer = await list(path, page, query);
      if (!answer || !Array.isArray(answer.items)) throw processingError(`Swoogo answered the list of ${which} with something other than a list.`);
      for (const o of answer.items) latest = laterStamp(latest, isoOf(o.updated_at) ?? null);
      const meta = answer._meta ?? {};
      const more = answer.items.length > 0 && typeof meta.currentPage === 'number' && typeof meta.pageCount === 'number' && meta.currentPage < meta.pageCount;
      yield { records: answer.items.map((o) => recordOf(which, o)), next: more ? page + 1 : null };
      if (!more) return;
    }
  }
  const fields = SWOOGO_FIELDS[which].map((f) => f.name).join(',');
  const filtered = { fields, search: search || undefined, sort: 'updated_at' };

  if (which === 'events') {
    for await (const p of pages('/api/v1/events', startPage, filtered)) yield { records: p.records, watermark: p.next ? under(`:${p.next}`) : done() };
    return;
  }
  // the events to read: the formula's one, or every event by id
  const chosen = (options?.settings?.eventId ?? ctx.endSettings?.eventId ?? '').trim();
  if (chosen && !/^\d+$/.test(chosen)) throw new ConnectorInputError('A Swoogo event ID is a number (the ID column of the event list).');
  let events: string[] = [];
  if (chosen) events = [chosen];
  else {
    for (let page = 1; ; page++) {
      const answer = await client.call<SwoogoList>({ path: '/api/v1/events', query: { fields: 'id', sort: 'id', page, 'per-page': SWOOGO_PAGE } });
      const items = Array.isArray(answer?.items) ? answer.items : [];
      events.push(...items.map((e) => String(e.id)));
      const meta = answer?._meta ?? {};
      if (!items.length || !(typeof meta.currentPage === 'number' && typeof meta.pageCount === 'number' && meta.currentPage < meta.pageCount)) break;
    }
  }
  const resumeAt = startEvent ? events.findIndex((e) => Number(e) >= Number(startEvent)) : 0;
  const left = resumeAt < 0 ? [] : events.slice(resumeAt);
  if (!left.length) { yield { records: [], watermark: done() }; return; }
  for (const [i, eventId] of left.entries()) {
    const first = eventId === startEvent ? startPage : 1;
    for await (const p of pages(`/api/v1/${which}`, first, { ...filtered, event_id: eventId })) {
      const after = p.next ? `${eventId}:${p.next}` : left[i + 1] ? `${left[i + 1]}:1` : null;
      yield { records: p.records, watermark: after ? under(after) : done() };
    }
  }
}

export const swoogoConnector: Connector = {
  system: 'swoogo',
  async test(ctx) {
    // signed in afresh first: refused credentials are said at once, in Swoogo's words
    await vendorSession(sessionKey(ctx), true, () => signIn(ctx));
    const answer = await swoogoClient(ctx).call<SwoogoList>({ path: '/api/v1/events', query: { fields: 'id,name', 'per-page': 1 } });
    if (!answer || !Array.isArray(answer.items)) throw refused('Swoogo answered without a list of events.');
    return { detail: 'Swoogo issued an access token for these credentials and listed their events.' };
  },
  async listObjects() {
    return swoogo.objects.filter((o) => (OBJECTS as readonly string[]).includes(o.name));
  },
  async describeFields(_ctx, object) {
    return SWOOGO_FIELDS[objectOf(object)];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  ...sourceOnly('Swoogo'),
};
