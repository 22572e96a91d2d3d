/**
 * Salesforce Marketing Cloud as a source and a destination of data extension rows, on the
 * connector kit. An installed package's client credentials are exchanged at the tenant's own
 * authentication host (`https://{subdomain}.auth.marketingcloudapis.com/v2/token`, JSON body with
 * `account_id` for a business unit); the answer's `rest_instance_url` is where the REST calls go.
 * The token is kept per package in this process until a minute before it expires (`expires_in`,
 * about 18 minutes) and obtained again once when a call is refused with it.
 *
 * Source: the rows of the data extension the formula names by external key
 * (`GET /data/v1/customobjectdata/key/{key}/rowset`, paged with `$page` and `$pageSize`, each row
 * its `keys` and `values`, names as Marketing Cloud answers them: lower case). With a date field
 * named in the source settings, only rows whose date is on or after the watermark are read
 * (`$filter`, `$orderBy` ascending) and the latest date read is the next watermark; without one
 * every row is read each time.
 *
 * Destination: rows upserted by the data extension's primary key (`POST
 * /hub/v1/dataevents/key:{key}/rowset`, up to 50 rows a request; a request Marketing Cloud refuses
 * whole is sent again row by row, so its words land on the row they concern). Matching scenarios are
 * answered by `$filter` on the rowset (equals, like for contains and starts-with; values quoted with
 * their quotes doubled). The primary key fields are those the destination settings name, else the
 * `keys` of the data extension's rows.
 */
import { createHash } from 'node:crypto';
import { salesforceMarketingCloud } from '../../../src/domain/connectors/salesforce.ts';
import {
  ConnectorInputError, processingError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions,
  type SearchCriterion, type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { lowered, meets } from '../kit/criteria.ts';
import { laterStamp, offsetPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { vendorSession, type Session } from '../kit/session.ts';
import { refusalWords, resultsInOrder, writtenResult } from '../kit/results.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { expectJson, JSON_BODY, vendorFetch, vendorUrl } from '../vendorHttp.ts';

const NAME = 'Salesforce Marketing Cloud';
/** rows a page: Marketing Cloud's most */
export const SFMC_PAGE = 2500;
/** rows an upsert request */
const UPSERT_ROWS = 50;
const OBJECT = 'data-extensions';

interface Token { access_token?: string; expires_in?: number; rest_instance_url?: string; error?: string; error_description?: string }

/** Marketing Cloud's words: the message and each additional error's. */
export function sfmcMessageOf(body: unknown): string {
  const o = body as { message?: unknown; errorcode?: unknown; additionalErrors?: { message?: unknown }[]; error_description?: unknown; error?: unknown } | null;
  if (!o || typeof o !== 'object') return '';
  const extra = (o.additionalErrors ?? []).map((e) => e.message).filter((m): m is string => typeof m === 'string' && !!m);
  const head = typeof o.message === 'string' ? o.message : typeof o.error_description === 'string' ? o.error_description : typeof o.error === 'string' ? o.error : '';
  return [head, ...extra].filter(Boolean).join('; ').slice(0, 500);
}

async function signIn(ctx: ConnectorContext): Promise<Session<{ rest: string }>> {
  const s = ctx.settings;
  const res = await vendorFetch('salesforce-marketing-cloud', NAME, `https://${s.subdomain}.auth.marketingcloudapis.com/v2/token`, {
    method: 'POST', headers: { ...JSON_BODY, accept: 'application/json' }, signal: ctx.signal,
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: s.clientSecret, ...(s.accountId ? { account_id: Number(s.accountId) } : {}) }),
  });
  const token = await expectJson<Token>(NAME, res, 'the client ID and secret');
  if (!token.access_token) throw refused(`${NAME} answered without an access token.`);
  if (!token.rest_instance_url) throw refused(`${NAME} answered without its REST address (rest_instance_url).`);
  return { token: token.access_token, expiresOn: Date.now() + (Number(token.expires_in) > 0 ? Number(token.expires_in) : 1080) * 1000, about: { rest: token.rest_instance_url } };
}

export function sfmcClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  if (!ctx.settings.subdomain || !/^[a-z0-9-]{4,60}$/i.test(ctx.settings.subdomain)) throw refused('Enter the subdomain of your Marketing Cloud authentication base URI.');
  // the auth host as called (a redirected one included), so a token is never offered to another host
  const auth = vendorUrl('salesforce-marketing-cloud', `https://${ctx.settings.subdomain}.auth.marketingcloudapis.com/v2/token`).url;
  const key = `sfmc:${createHash('sha256').update([auth, ctx.settings.clientId, ctx.settings.clientSecret, ctx.settings.accountId ?? ''].join('\n')).digest('hex')}`;
  let rest = '';
  const session = async (force: boolean) => {
    const s = await vendorSession(key, force, () => signIn(ctx));
    rest = s.about.rest;
    return s;
  };
  return vendorClient({
    system: 'salesforce-marketing-cloud', name: NAME, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    // the REST host the token's answer names (known once auth has run, before each call's URL is made)
    baseUrl: () => rest || `https://${ctx.settings.subdomain}.rest.marketingcloudapis.com`,
    auth: async (force) => ({ authorization: `Bearer ${(await session(force)).token}` }),
    messageOf: sfmcMessageOf,
  });
}

function keyOf(ctx: ConnectorContext, object: string, options?: PullOptions): string {
  if (object !== OBJECT) throw new ConnectorInputError(`Tributary reads and writes Marketing Cloud data extension rows; ${object} is not one of them yet.`);
  const key = (options?.settings?.dataExtension ?? ctx.endSettings?.dataExtension ?? '').trim();
  if (!key) throw new ConnectorInputError('Name the data extension (its external key) in the formula\'s settings.');
  return key;
}

interface Row { keys?: Record<string, unknown>; values?: Record<string, unknown> }
interface RowSet { page?: number; pageSize?: number; count?: number; items?: Row[] }

const path = (key: string) => `/data/v1/customobjectdata/key/${encodeURIComponent(key)}/rowset`;

export function rowRecord(row: Row): SourceRecord {
  const keys = row.keys ?? {};
  const fields = Object.fromEntries(Object.entries({ ...row.values, ...keys }).filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => [k.toLowerCase(), v]));
  return { id: Object.keys(keys).sort().map((k) => String(keys[k])).join('|'), fields };
}

/** a value as a $filter literal: quoted, its quotes doubled */
const literal = (v: string) => `'${v.replace(/'/g, "''")}'`;
const field = (name: string) => {
  if (!/^[A-Za-z_][\w ]{0,127}$/.test(name)) throw new ConnectorInputError(`'${name}' is not a data extension field name.`);
  return name.includes(' ') ? `"${name}"` : name;
};
function condition(c: SearchCriterion): string {
  const v = c.value.trim();
  if (c.operator === 'contains') return `${field(c.field)} like ${literal(`%${v}%`)}`;
  if (c.operator === 'starts-with') return `${field(c.field)} like ${literal(`${v}%`)}`;
  return `${field(c.field)} eq ${literal(v)}`;
}

async function rows(client: VendorClient, key: string, page: number, size: number, extra: Record<string, string> = {}): Promise<Row[]> {
  const answer = await client.call<RowSet>({ path: path(key), query: { $page: page, $pageSize: size, ...extra } });
  return answer.items ?? [];
}

async function describeOne(ctx: ConnectorContext, client: VendorClient, key: string): Promise<FieldInfo[]> {
  // the REST API describes a data extension by its rows: the first one's keys and values
  const [first] = await rows(client, key, 1, 1);
  if (!first) throw new ConnectorInputError(`The data extension ${key} has no rows yet, so Marketing Cloud's REST API cannot describe its fields.`);
  const primary = Object.keys(first.keys ?? {}).map((k) => k.toLowerCase());
  const named = (ctx.endSettings?.primaryKeys ?? '').split(',').map((k) => k.trim().toLowerCase()).filter(Boolean);
  const keys = named.length ? named : primary;
  return [...new Set([...primary, ...Object.keys(first.values ?? {}).map((k) => k.toLowerCase())])].map((name) => ({
    name, label: name, type: /email/.test(name) ? 'email' as const : /date/.test(name) ? 'datetime' as const : 'string' as const, searchable: true,
    ...(keys.includes(name) ? { required: true } : {}),
  }));
}

/** The formula's data extension, or (the wizard's look, without a formula) those the connection names, each field once. */
async function describe(ctx: ConnectorContext, client: VendorClient): Promise<FieldInfo[]> {
  const formula = (ctx.endSettings?.dataExtension ?? '').trim();
  const keys = formula ? [formula] : (ctx.settings.dataExtensions ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  if (!keys.length) throw new ConnectorInputError('Name the data extensions (their external keys) in the connection\'s settings: Marketing Cloud\'s REST API cannot list them.');
  const byName = new Map<string, FieldInfo>();
  for (const key of keys) {
    for (const f of await describeOne(ctx, client, key)) {
      if (byName.has(f.name)) continue;
      // a primary key of one of several data extensions is not required of every formula
      if (!formula) delete f.required;
      byName.set(f.name, f);
    }
  }
  return [...byName.values()];
}

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const key = keyOf(ctx, object, options);
  const dated = (options?.settings?.modifiedField ?? '').trim().toLowerCase();
  const client = sfmcClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const size = Math.min(options?.batchSize ?? SFMC_PAGE, SFMC_PAGE);
  const filters = [
    ...(dated && from ? [`${field(dated)} gte ${literal(from)}`] : []),
    ...(dated && window ? [`${field(dated)} lt ${literal(window.to.toISOString())}`] : []),
  ];
  const extra: Record<string, string> = { ...(filters.length ? { $filter: filters.join(' and ') } : {}), ...(dated ? { $orderBy: `${field(dated)} asc` } : {}) };
  const start = at.next ? Number(at.next) : 0;
  for await (const page of offsetPages((offset, limit) => rows(client, key, Math.floor(offset / limit) + 1, limit, extra), size, start)) {
    const records = page.items.map(rowRecord);
    if (dated) for (const r of records) { const d = r.fields[dated]; if (typeof d === 'string' && !Number.isNaN(Date.parse(d))) latest = laterStamp(latest, new Date(Date.parse(d)).toISOString()); }
    // without a date field every row is read again on each run: the position is only the page under way
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: dated ? latest ?? from : null, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  const key = keyOf(ctx, object);
  const client = sfmcClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    if (!q.criteria.length) { out.push([]); continue; }
    const found = (await rows(client, key, 1, 50, { $filter: q.criteria.map(condition).join(' and ') })).map(rowRecord);
    // Marketing Cloud compares without regard to case or spaces as it likes: every criterion held to the row
    out.push(found.filter((r) => q.criteria.every((c) => meets(lowered(r.fields[c.field.toLowerCase()]), lowered(c.value), c.operator))));
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString() : String(v).trim());

async function primaryKeys(ctx: ConnectorContext, client: VendorClient, key: string): Promise<string[]> {
  const named = (ctx.endSettings?.primaryKeys ?? '').split(',').map((k) => k.trim().toLowerCase()).filter(Boolean);
  if (named.length) return named;
  const [first] = await rows(client, key, 1, 1);
  const found = Object.keys(first?.keys ?? {}).map((k) => k.toLowerCase());
  if (!found.length) throw new ConnectorInputError(`Name the primary key fields of the data extension ${key} in the formula's settings: it has no rows to read them from.`);
  return found;
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  const key = keyOf(ctx, object);
  const client = sfmcClient(ctx);
  const pk = await primaryKeys(ctx, client, key);
  const results = resultsInOrder(items);
  const ready: { item: UpsertItem; row: Row; id: string }[] = [];
  for (const item of items) {
    const fields = Object.fromEntries(Object.entries(item.fields).map(([k, v]) => [k.toLowerCase(), text(v)]));
    const keys = Object.fromEntries(pk.map((k) => [k, fields[k] ?? '']));
    const missing = pk.filter((k) => !keys[k]);
    if (missing.length) {
      results.fail(item, `${NAME} writes a row by its primary key, and this record has no ${missing.join(', ')}.`);
      continue;
    }
    const values = Object.fromEntries(Object.entries(fields).filter(([k]) => !pk.includes(k)));
    ready.push({ item, row: { keys, values }, id: pk.map((k) => keys[k]).sort().join('|') });
  }
  const send = (batch: typeof ready) => client.call({ method: 'POST', path: `/hub/v1/dataevents/key:${encodeURIComponent(key)}/rowset`, json: batch.map((r) => r.row) });
  const done = (r: (typeof ready)[number]) => results.add([writtenResult(r.item, r.id, !r.item.id)]);
  for (let i = 0; i < ready.length; i += UPSERT_ROWS) {
    const batch = ready.slice(i, i + UPSERT_ROWS);
    try {
      await send(batch);
      batch.forEach(done);
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      // refused whole: each row alone, so the refusal lands on the row it concerns
      for (const r of batch) {
        try { await send([r]); done(r); } catch (one) {
          if (!(one instanceof VendorRefusal)) throw one;
          results.fail(r.item, refusalWords(NAME, 'row', one));
        }
      }
    }
  }
  return results.all();
}

export const salesforceMarketingCloudConnector: Connector = {
  system: 'salesforce-marketing-cloud',
  async test(ctx) {
    const s = await signIn(ctx);
    if (!s.token) throw processingError(`${NAME} answered without an access token.`);
    return { detail: `Signed in to ${NAME}${ctx.settings.accountId ? ` business unit ${ctx.settings.accountId}` : ''}.` };
  },
  async listObjects() {
    return salesforceMarketingCloud.objects.filter((o) => o.name === OBJECT);
  },
  async describeFields(ctx, object) {
    if (object !== OBJECT) keyOf(ctx, object);
    return describe(ctx, sfmcClient(ctx));
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object) {
    return object === OBJECT ? null : `Tributary writes Marketing Cloud data extension rows; ${object} is not one of them yet.`;
  },
};
