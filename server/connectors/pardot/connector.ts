/**
 * Pardot (Account Engagement) API v5 as a source and a destination, on the connector kit.
 *
 * Sign-in: Salesforce OAuth 2.0 at the login host (salesforce/client.ts's token exchange): the
 * refresh token Connect saved (web server flow with PKCE, scopes api, pardot_api and
 * refresh_token), or the username-password flow of the connection's connected app; the access
 * token is kept by the kit's grant store like Salesforce's. Every call goes to pi.pardot.com (pi.demo.pardot.com for a
 * sandbox) with the bearer token and the `Pardot-Business-Unit-Id` header. Error bodies are
 * `{ code, message }`: code 184 (an invalid or expired token, HTTP 401) refreshes the token once;
 * code 122 (the daily API allowance is spent) pauses the formula; a 429 (code 66, too many
 * requests at once) is waited out through the client.
 *
 * Source: prospects, and list memberships (which prospect is on which list, and opted out of it),
 * each changed on or after the watermark (`updatedAtAfterOrEqualTo`,
 * `orderBy=updatedAt`), every field named in `fields=` (v5 answers only the fields asked for),
 * paged with `nextPageUrl` (its `nextPageToken`). The watermark is the latest `updatedAt` seen; the
 * prospects of that very moment are read again, harmlessly.
 *
 * Destination: prospects, found by e-mail (`GET …/prospects?email=`, every prospect sharing the
 * address), so a scenario without it is refused when saved. A write is `POST
 * …/prospects/do/upsertLatestByEmail` (Pardot's own upsert: the most recently updated prospect with
 * the address, else a new one). Consent is the prospect's: `optedOut` is sent only when the
 * formula maps it, and never to opt back in a prospect who opted out.
 *
 * Fields: the prospect's standard fields and the business unit's custom fields
 * (`/objects/custom-fields`, written `{fieldId}__c` on a prospect).
 */
import { createHash } from 'node:crypto';
import { pardot } from '../../../src/domain/connectors/salesforce.ts';
import {
  ConnectorInputError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchQuery,
  type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { emailOnlyProblem, holdsAll } from '../kit/criteria.ts';
import { once } from '../kit/memo.ts';
import { oauthSession, type OAuthSession } from '../kit/oauthSession.ts';
import { sharedPacer } from '../kit/pace.ts';
import { QuotaExhausted } from '../kit/problems.ts';
import { laterStamp, linkPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { eachRecord, writtenResult } from '../kit/results.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { ASSUMED_TOKEN_LIFETIME_MS, exchangeToken } from '../salesforce/client.ts';

const NAME = 'Pardot';
/** prospects a page: the most v5 answers */
export const PARDOT_PAGE = 1000;
/** Account Engagement allows five requests at once per business unit; calls are paced to five a second */
const CALLS_PER_SECOND = 5;
const ROOT = '/api/v5/objects';

export const pardotHost = (settings: Record<string, string>) => (settings.environment === 'sandbox' ? 'https://pi.demo.pardot.com' : 'https://pi.pardot.com');

/** Pardot's words: "message (code N)". */
export function pardotMessageOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const o = body as { code?: unknown; message?: unknown };
  const message = typeof o.message === 'string' ? o.message : '';
  return `${message}${typeof o.code === 'number' ? ` (code ${o.code})` : ''}`.trim().slice(0, 500);
}

interface Pardot { client: VendorClient; session: OAuthSession }

export function pardotSession(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): Pardot {
  const businessUnit = (ctx.settings.businessUnitId ?? '').trim();
  if (!businessUnit) throw refused('Enter the Pardot business unit ID (Setup > Account Engagement > Business Unit Setup).');
  const session = oauthSession({
    system: 'pardot', name: NAME, settings: ctx.settings, store: ctx.dataSourceId ? ctx.grant : undefined,
    async exchange(settings) {
      // Connect's refresh token (a grant Salesforce refuses needs reconnecting), else the username-password flow
      const t = await exchangeToken('pardot', { ...settings, authenticationType: settings.authenticationType === 'oauth' ? 'oauth' : 'username-password' }, ctx.signal);
      return { token: { accessToken: t.accessToken, expiresOn: new Date(Date.now() + ASSUMED_TOKEN_LIFETIME_MS) } };
    },
  });
  const client = vendorClient({
    system: 'pardot', name: NAME, baseUrl: pardotHost(ctx.settings), signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`pardot:${createHash('sha256').update(businessUnit).digest('hex')}`, CALLS_PER_SECOND),
    auth: async (force) => ({ authorization: `Bearer ${await session.accessToken(force)}`, 'pardot-business-unit-id': businessUnit }),
    messageOf: pardotMessageOf,
    refusal(res, body) {
      // code 181: the business unit is not one this user reaches (answered with a 401, no token would mend it)
      if ((body as { code?: unknown } | null)?.code !== 181) return null;
      return refused(`${NAME} does not know the business unit ${businessUnit} for this user (HTTP ${res.status}, code 181). Check the business unit ID (Setup > Account Engagement > Business Unit Setup).`);
    },
    quota(res, body) {
      if ((body as { code?: unknown } | null)?.code !== 122) return null;
      // the allowance is per day (the business unit's time zone): look again in an hour
      const at = new Date(Date.now() + 60 * 60_000);
      return new QuotaExhausted(`${NAME}'s daily API allowance is spent (HTTP ${res.status}); the formula goes on at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC.`, at);
    },
  });
  return { client, session };
}

interface CustomField { id?: number; fieldId?: string; name?: string; type?: string }
type Prospect = Record<string, unknown> & { id?: number; email?: string; updatedAt?: string; optedOut?: boolean };

/** The prospect's standard fields (v5 names). */
const STANDARD: FieldInfo[] = [
  { name: 'id', label: 'Prospect ID', type: 'string', readOnly: true },
  { name: 'email', label: 'E-mail address', type: 'email', required: true, searchable: true },
  { name: 'salutation', label: 'Salutation', type: 'string' },
  { name: 'firstName', label: 'First name', type: 'string' },
  { name: 'lastName', label: 'Last name', type: 'string' },
  { name: 'company', label: 'Company', type: 'string' },
  { name: 'jobTitle', label: 'Job title', type: 'string' },
  { name: 'phone', label: 'Phone', type: 'phone' },
  { name: 'addressOne', label: 'Address line 1', type: 'string' },
  { name: 'addressTwo', label: 'Address line 2', type: 'string' },
  { name: 'city', label: 'City', type: 'string' },
  { name: 'state', label: 'State', type: 'string' },
  { name: 'zip', label: 'ZIP', type: 'string' },
  { name: 'country', label: 'Country', type: 'string' },
  { name: 'website', label: 'Website', type: 'string' },
  { name: 'source', label: 'Source', type: 'string' },
  { name: 'comments', label: 'Comments', type: 'string' },
  // consent: written only when mapped, and never to opt back in a prospect who opted out
  { name: 'optedOut', label: 'Opted out (changes consent: map it only on purpose; a prospect who opted out is never opted back in)', type: 'boolean' },
  { name: 'score', label: 'Score', type: 'number', readOnly: true },
  { name: 'grade', label: 'Grade', type: 'string', readOnly: true },
  { name: 'createdAt', label: 'Created', type: 'datetime', readOnly: true },
  { name: 'updatedAt', label: 'Updated', type: 'datetime', readOnly: true },
];
const CF_TYPES: Record<string, FieldInfo['type']> = { Number: 'number', Date: 'date' };

/** a custom field as a prospect names it */
const customName = (f: CustomField) => (f.fieldId!.endsWith('__c') ? f.fieldId! : `${f.fieldId}__c`);

function customFields(ctx: ConnectorContext, p: Pardot): Promise<CustomField[]> {
  return once(ctx, 'pardot:custom-fields', async () => {
    const out: CustomField[] = [];
    for await (const page of linkPages(`${ROOT}/custom-fields?fields=id,name,fieldId,type&limit=1000`, async (link) => {
      const answer = await p.client.call<{ values?: CustomField[]; nextPageUrl?: string | null }>({ path: link });
      return { items: answer.values ?? [], next: answer.nextPageUrl ?? null };
    })) out.push(...page.items.filter((f) => f.fieldId));
    return out;
  });
}

async function fieldNames(ctx: ConnectorContext, p: Pardot): Promise<string[]> {
  return [...STANDARD.map((f) => f.name), ...(await customFields(ctx, p)).map(customName)];
}

/** A list membership's fields (v5): read only, as a source. */
const MEMBERSHIP: FieldInfo[] = [
  { name: 'id', label: 'List membership ID', type: 'string', readOnly: true },
  { name: 'listId', label: 'List ID', type: 'string', readOnly: true },
  { name: 'prospectId', label: 'Prospect ID', type: 'string', readOnly: true },
  { name: 'optedOut', label: 'Opted out of the list', type: 'boolean', readOnly: true },
  { name: 'createdAt', label: 'Created', type: 'datetime', readOnly: true },
  { name: 'updatedAt', label: 'Updated', type: 'datetime', readOnly: true },
];
type PardotObject = 'prospects' | 'list-memberships';
const PATHS: Record<PardotObject, string> = { 'prospects': 'prospects', 'list-memberships': 'list-memberships' };

function objectOf(object: string, write = false): PardotObject {
  if (object === 'prospects') return object;
  if (object === 'list-memberships') {
    if (write) throw new ConnectorInputError('Tributary writes Pardot prospects; list memberships are read only.');
    return object;
  }
  throw new ConnectorInputError(`Tributary reads Pardot prospects and list memberships, and writes prospects; ${object} is not one of them yet.`);
}

export function prospectRecord(p: Prospect): SourceRecord {
  const fields = Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined && v !== null && v !== '' && typeof v !== 'object'));
  if (p.id !== undefined) fields.id = String(p.id);
  return { id: String(p.id), fields };
}

const isoOf = (v: unknown) => (typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? new Date(Date.parse(v)).toISOString() : null);

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const p = pardotSession(ctx);
  const names = which === 'prospects' ? await fieldNames(ctx, p) : MEMBERSHIP.map((f) => f.name);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const limit = Math.min(options?.batchSize ?? PARDOT_PAGE, PARDOT_PAGE);
  const first = `${ROOT}/${PATHS[which]}?${new URLSearchParams({
    fields: names.join(','), orderBy: 'updatedAt', limit: String(limit),
    ...(from ? { updatedAtAfterOrEqualTo: from } : {}),
    ...(window ? { updatedAtBefore: window.to.toISOString() } : {}),
  })}`;
  for await (const page of linkPages(at.next ?? first, async (link) => {
    const answer = await p.client.call<{ values?: Prospect[]; nextPageUrl?: string | null }>({ path: link });
    return { items: answer.values ?? [], next: answer.nextPageUrl ?? null };
  })) {
    const records = page.items.map(prospectRecord);
    for (const r of records) latest = laterStamp(latest, isoOf(r.fields.updatedAt));
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

async function prospectsByEmail(p: Pardot, names: string[], email: string): Promise<Prospect[]> {
  const answer = await p.client.call<{ values?: Prospect[] }>({ path: `${ROOT}/prospects`, query: { email: email.trim(), fields: names.join(','), orderBy: 'updatedAt desc' } });
  return answer.values ?? [];
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  objectOf(object, true);
  const p = pardotSession(ctx);
  const names = await fieldNames(ctx, p);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const email = q.criteria.find((c) => c.field === 'email' && (c.operator ?? 'equals') === 'equals');
    const byId = q.criteria.find((c) => c.field === 'id');
    if (!email && !byId) throw new ConnectorInputError('Pardot finds prospects by e-mail address only.');
    let found: Prospect[] = [];
    if (email) found = email.value.trim() ? await prospectsByEmail(p, names, email.value) : [];
    else {
      try { found = [await p.client.call<Prospect>({ path: `${ROOT}/prospects/${encodeURIComponent(byId!.value.trim())}`, query: { fields: names.join(',') } })]; } catch (err) {
        if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
      }
    }
    out.push(found.map(prospectRecord).filter((r) => holdsAll(r.fields, q.criteria.filter((c) => c !== byId))).slice(0, q.limit ?? 10));
  }
  return out;
}

function value(v: unknown, type: FieldInfo['type'] | undefined): unknown {
  if (v === undefined || v === null) return null;
  if (type === 'boolean') {
    if (typeof v === 'boolean') return v;
    const s = String(v).trim().toLowerCase();
    // an empty cell says nothing (consent above all is never set by a blank)
    return s === '' ? undefined : ['true', 'yes', '1', 'y'].includes(s);
  }
  if (type === 'number') return String(v).trim() === '' ? null : Number(v);
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  const s = String(v).trim();
  return s === '' ? null : s;
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object, true);
  const p = pardotSession(ctx);
  const custom = await customFields(ctx, p);
  const types = new Map<string, FieldInfo['type'] | undefined>([
    ...STANDARD.filter((f) => !f.readOnly).map((f) => [f.name, f.type] as const),
    ...custom.map((f) => [customName(f), CF_TYPES[f.type ?? ''] ?? 'string'] as const),
  ]);
  return eachRecord(NAME, 'prospect', items, async (item, fail) => {
    const email = String(item.fields.email ?? '').trim();
    if (!email) return fail('Pardot upserts a prospect by its e-mail address, and this record has none.');
    const prospect: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item.fields)) {
      if (STANDARD.some((f) => f.name === k && f.readOnly)) continue;
      if (!types.has(k)) return fail(`Pardot prospects have no field ${k} in this business unit.`);
      const given = value(v, types.get(k));
      if (given !== undefined) prospect[k] = given;
    }
    if (prospect.optedOut === false) {
      // consent is the prospect's: one who opted out is never opted back in by a formula
      const now = await prospectsByEmail(p, ['id', 'optedOut', 'updatedAt'], email);
      if (now[0]?.optedOut === true) delete prospect.optedOut;
    }
    const saved = await p.client.call<Prospect>({
      method: 'POST', path: `${ROOT}/prospects/do/upsertLatestByEmail`, query: { fields: 'id,email,createdAt,updatedAt' },
      json: { matchEmail: email, prospect: { ...prospect, email } },
    });
    if (saved?.id === undefined) throw new VendorRefusal(NAME, 200, 'the upsert answered without a prospect id');
    const created = !item.id && saved.createdAt !== undefined && saved.createdAt === saved.updatedAt;
    return writtenResult(item, String(saved.id), created);
  });
}

export const pardotConnector: Connector = {
  system: 'pardot',
  async test(ctx) {
    const p = pardotSession(ctx);
    await p.client.call({ path: `${ROOT}/prospects`, query: { fields: 'id', limit: 1 } });
    return { detail: `Signed in to Pardot business unit ${ctx.settings.businessUnitId}.` };
  },
  async listObjects() {
    return pardot.objects.filter((o) => o.name in PATHS);
  },
  async describeFields(ctx, object) {
    if (objectOf(object) === 'list-memberships') return MEMBERSHIP;
    const custom = await customFields(ctx, pardotSession(ctx));
    return [...STANDARD, ...custom.map((f): FieldInfo => ({ name: customName(f), label: f.name || f.fieldId!, type: CF_TYPES[f.type ?? ''] ?? 'string' }))];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== 'prospects') return `Tributary writes Pardot prospects; ${object} ${object === 'list-memberships' ? 'are read only' : 'is not one of them yet'}.`;
    return emailOnlyProblem(NAME, 'prospects', 'email', 'id', scenarios);
  },
};
