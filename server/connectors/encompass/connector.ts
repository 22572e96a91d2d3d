/**
 * Encompass (Anthology, formerly iModules) as a source, on the connector kit: its e-mail
 * campaigns and their recipients, from the Email Metric API v2 (emapi.imodules.com/v2).
 *
 * Sign-in: OAuth 2.0 client credentials issued for the community (HTTP Basic of the client ID and
 * secret, `grant_type=client_credentials`, at api.imodules.com/oauth2/token); one token per
 * community's credentials, kept until a minute before `expires_in` ends and obtained again when a
 * call is refused with it.
 *
 * E-mail campaigns (`GET /v2/messages?fromTimestamp&toTimestamp`, Unix milliseconds of the send)
 * and each campaign's recipients (`GET /v2/messages/{id}/recipients`) with whether and when they
 * opened it (`GET /v2/messages/{id}/opens`), paged with `startAt` and `maxResults` (1,000 at most)
 * while `startAt` plus the page is under `total`. The formula's filter (SPEC section 9): only
 * campaigns less than 60 days old, and of those a single campaign, or all sent within the last week
 * or month. The watermark is the latest send read: a later run reads only campaigns sent since (its
 * own millisecond again, harmlessly); a run once reads its window within the filter.
 *
 * Not yet: constituents, events, event registrations and form submissions (the catalogue's other
 * objects), whose REST endpoints are not published where we could read them.
 */
import { createHash } from 'node:crypto';
import { encompass } from '../../../src/domain/connectors/engagement.ts';
import { ConnectorInputError, processingError, refused, transientProblem, sourceOnly, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord } from '../connector.ts';
import { laterStamp, positionSince, type PullPosition } from '../kit/paging.ts';
import { vendorSession, type Session } from '../kit/session.ts';
import { vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { basic, form, FORM, vendorFetch } from '../vendorHttp.ts';

const NAME = 'Encompass';
/** the Email Metric API's most a page */
export const ENCOMPASS_PAGE = 1000;
const DAY_MS = 86_400_000;
/** SPEC section 9: campaigns less than 60 days old */
export const CAMPAIGN_MAX_AGE_DAYS = 60;
const FILTER_DAYS = { week: 7, month: 30 } as const;

const OBJECTS = ['emailCampaigns', 'emailRecipients'] as const;
type EncompassObject = (typeof OBJECTS)[number];
type Obj = Record<string, unknown>;

function objectOf(object: string): EncompassObject {
  if ((OBJECTS as readonly string[]).includes(object)) return object as EncompassObject;
  throw new ConnectorInputError(`Tributary reads Encompass e-mail campaigns and their recipients; ${object} is not one of them yet.`);
}

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });
export const ENCOMPASS_FIELDS: Record<EncompassObject, FieldInfo[]> = {
  emailCampaigns: [
    ro('id', 'Campaign ID'), ro('emailName', 'Name'), ro('subjectLine', 'Subject'), ro('preHeader', 'Preheader'), ro('fromName', 'From name'),
    ro('fromAddress', 'From address', 'email'), ro('categoryName', 'Category'), ro('subCommunityId', 'Subcommunity ID'), ro('sentCount', 'Sent', 'number'),
    ro('scheduledDate', 'Scheduled', 'datetime'), ro('sentDate', 'Sent on', 'datetime'),
  ],
  emailRecipients: [
    ro('campaignId', 'Campaign ID'), ro('campaignName', 'Campaign name'), ro('sentDate', 'Sent on', 'datetime'), ro('constituentId', 'Constituent ID'),
    ro('emailAddress', 'E-mail', 'email'), ro('firstName', 'First name'), ro('lastName', 'Last name'), ro('classYear', 'Class year'),
    ro('opened', 'Opened', 'boolean'), ro('firstOpen', 'First opened', 'datetime'),
  ],
};

const isoMs = (v: unknown): string | undefined => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? new Date(v).toISOString() : undefined);
const clean = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ''));

export function campaignRecord(m: Obj): SourceRecord {
  return {
    id: String(m.id),
    fields: clean({
      id: String(m.id), emailName: m.emailName, subjectLine: m.subjectLine, preHeader: m.preHeader, fromName: m.fromName, fromAddress: m.fromAddress,
      categoryName: m.categoryName, subCommunityId: m.subCommunityId === undefined || m.subCommunityId === null ? undefined : String(m.subCommunityId),
      sentCount: m.sentCount, scheduledDate: isoMs(m.scheduledDateTimestamp), sentDate: isoMs(m.actualSendTimestamp),
    }),
  };
}

/** Encompass's words from an error body: `message`, `error_description` or `error`. */
export function encompassMessageOf(body: unknown): string {
  if (body && typeof body === 'object') {
    const o = body as Obj;
    for (const k of ['message', 'Message', 'error_description', 'error']) if (typeof o[k] === 'string' && o[k]) return (o[k] as string).slice(0, 500);
  }
  return '';
}

async function signIn(ctx: ConnectorContext): Promise<Session> {
  const res = await vendorFetch('encompass', NAME, 'https://api.imodules.com/oauth2/token', {
    method: 'POST', signal: ctx.signal,
    headers: { ...FORM, accept: 'application/json', authorization: basic(ctx.settings.clientId!, ctx.settings.clientSecret!) },
    body: form({ grant_type: 'client_credentials' }),
  });
  const text = await res.text();
  let body: { access_token?: string; expires_in?: number } & Obj = {};
  try { body = text ? JSON.parse(text) as typeof body : {}; } catch { /* said below */ }
  if (res.status >= 500) throw transientProblem(processingError(`${NAME} answered with a server error (HTTP ${res.status}). Try again later.`));
  if (res.status !== 200) {
    const words = encompassMessageOf(body);
    throw refused(`${NAME} refused the client ID and secret (HTTP ${res.status})${words ? `: ${words}` : '.'}`);
  }
  if (!body.access_token) throw refused(`${NAME} answered without an access token.`);
  return { token: body.access_token, expiresOn: Date.now() + (Number(body.expires_in) > 0 ? Number(body.expires_in) : 3600) * 1000, about: {} };
}

function sessionKey(ctx: ConnectorContext): string {
  if (!ctx.settings.clientId || !ctx.settings.clientSecret) throw refused('Encompass needs the client ID and secret issued for your community.');
  return `encompass:${createHash('sha256').update([ctx.settings.clientId, ctx.settings.clientSecret].join('\n')).digest('hex')}`;
}

export function encompassClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  const key = sessionKey(ctx);
  return vendorClient({
    system: 'encompass', name: NAME, baseUrl: 'https://emapi.imodules.com', signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    auth: async (force) => ({ authorization: `Bearer ${(await vendorSession(key, force, () => signIn(ctx))).token}` }),
    messageOf: encompassMessageOf,
  });
}

interface Page { data?: Obj[]; startAt?: number; total?: number }

/** Every page of one list, `startAt` and `maxResults` while the total says there is more. */
async function* pagesOf(client: VendorClient, path: string, query: Record<string, string | number | undefined>, size: number): AsyncIterable<{ items: Obj[]; more: boolean }> {
  for (let startAt = 0; ;) {
    const answer = await client.call<Page>({ path, query: { ...query, startAt, maxResults: size } });
    if (!answer || !Array.isArray(answer.data)) throw processingError(`${NAME} answered ${path} with something other than a list.`);
    startAt += answer.data.length;
    const more = answer.data.length > 0 && typeof answer.total === 'number' && startAt < answer.total;
    yield { items: answer.data, more };
    if (!more) return;
  }
}

/** The campaigns the formula's filter names, sent from `from` (never more than 60 days ago) up to `to`. */
async function campaigns(client: VendorClient, settings: Record<string, string>, from: string | null, to: Date, size: number): Promise<Obj[]> {
  const filter = settings.campaignFilter;
  if (filter !== 'single' && filter !== 'week' && filter !== 'month') throw new ConnectorInputError('Choose which Encompass e-mail campaigns to read: a single campaign, or all sent within a week or a month.');
  if (filter === 'single' && !settings.campaignId?.trim()) throw new ConnectorInputError('Name the Encompass campaign to read.');
  const oldest = to.getTime() - (filter === 'single' ? CAMPAIGN_MAX_AGE_DAYS : FILTER_DAYS[filter]) * DAY_MS;
  const fromMs = Math.max(oldest, from ? Date.parse(from) : 0);
  const found: Obj[] = [];
  for await (const page of pagesOf(client, '/v2/messages', { fromTimestamp: fromMs, toTimestamp: to.getTime() }, size)) {
    found.push(...page.items.filter((m) => filter !== 'single' || String(m.id) === settings.campaignId!.trim()));
  }
  return found.sort((a, b) => Number(a.actualSendTimestamp ?? 0) - Number(b.actualSendTimestamp ?? 0));
}

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const client = encompassClient(ctx);
  const settings = { ...ctx.endSettings, ...options?.settings };
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  const to = window?.to ?? new Date();
  const size = Math.max(1, Math.min(options?.batchSize ?? ENCOMPASS_PAGE, ENCOMPASS_PAGE));
  const chosen = await campaigns(client, settings, from, to, size);
  let latest: string | null = null;
  for (const m of chosen) latest = laterStamp(latest, isoMs(m.actualSendTimestamp) ?? null);
  const done = (): string => JSON.stringify({ since: latest ?? from, next: null, latest: null } satisfies PullPosition);
  const under = (next: string): string => JSON.stringify({ since: from, next, latest: null } satisfies PullPosition);

  if (which === 'emailCampaigns') {
    yield { records: chosen.map(campaignRecord), watermark: done() };
    return;
  }
  // a pull stopped part way goes on with the campaign it was reading (its recipients read again whole)
  const startAt = at.next ? Math.max(0, chosen.findIndex((m) => String(m.id) === at.next)) : 0;
  if (startAt >= chosen.length || !chosen.length) { yield { records: [], watermark: done() }; return; }
  for (let i = startAt; i < chosen.length; i++) {
    const m = chosen[i]!;
    const id = encodeURIComponent(String(m.id));
    const opens = new Map<string, number>();
    for await (const page of pagesOf(client, `/v2/messages/${id}/opens`, {}, ENCOMPASS_PAGE)) {
      for (const o of page.items) {
        const who = String(o.emailAddress ?? '').toLowerCase();
        const when = Number(o.timestamp ?? o.openTimestamp ?? 0);
        if (who && (!opens.has(who) || when < opens.get(who)!)) opens.set(who, when);
      }
    }
    const next = chosen[i + 1];
    for await (const page of pagesOf(client, `/v2/messages/${id}/recipients`, {}, size)) {
      const records = page.items.map((r): SourceRecord => {
        const email = String(r.emailAddress ?? '');
        const opened = opens.has(email.toLowerCase());
        return {
          id: `${m.id}:${r.constituentId ?? email}`,
          fields: clean({
            campaignId: String(m.id), campaignName: m.emailName, sentDate: isoMs(m.actualSendTimestamp),
            constituentId: r.constituentId === undefined || r.constituentId === null ? undefined : String(r.constituentId), emailAddress: email,
            firstName: r.firstName, lastName: r.lastName, classYear: r.classYear === undefined || r.classYear === null ? undefined : String(r.classYear),
            opened, firstOpen: opened ? isoMs(opens.get(email.toLowerCase())) : undefined,
          }),
        };
      });
      yield { records, watermark: page.more ? under(String(m.id)) : next ? under(String(next.id)) : done() };
    }
  }
}

export const encompassConnector: Connector = {
  system: 'encompass',
  async test(ctx) {
    await vendorSession(sessionKey(ctx), true, () => signIn(ctx));
    return { detail: 'Encompass issued an access token for these credentials.' };
  },
  async listObjects() {
    return encompass.objects.filter((o) => (OBJECTS as readonly string[]).includes(o.name));
  },
  async describeFields(_ctx, object) {
    return ENCOMPASS_FIELDS[objectOf(object)];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  ...sourceOnly('Encompass'),
};
