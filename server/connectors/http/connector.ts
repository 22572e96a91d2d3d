/**
 * The generic HTTP connector: a JSON API at a URL, with no authentication, HTTP Basic, a bearer
 * token or an API key header; records found at a path in each answer; paging by page number,
 * offset, a next link or a cursor; and a watermark sent as a query parameter and read back from
 * a record field. A formula adds its own query pairs to every request and may start its first
 * pull at a date; run once asks for a window's records and drops what changed after it.
 */
import { withoutForbiddenHeaders } from '../../../src/domain/connectors/headers.ts';
import {
  ConnectorInputError, NotSupported, processingError, refused, transientProblem,
  type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type SourceRecord,
} from '../connector.ts';
import { looksLikeEmail } from '../../../src/domain/emailAddress.ts';
import { PUBLIC_ONLY } from '../network.ts';
import { megabytes, outboundRequest } from '../outboundHttp.ts';
import { basic } from '../vendorHttp.ts';

/** A runaway API (a cursor that never ends) stops here. */
export const MAX_PAGES = 10_000;
/** One page of records; a larger one is refused (page through it instead). */
export const MAX_PAGE_BYTES = 10 * 1024 * 1024;

type Settings = Record<string, string>;

function authHeaders(s: Settings): Record<string, string> {
  switch (s.authenticationType) {
    case 'basic': return { authorization: basic(s.username ?? '', s.password ?? '') };
    case 'bearer': return { authorization: `Bearer ${s.token ?? ''}` };
    // a header name saved before the form refused connection and metadata headers is dropped here
    case 'api-key': return withoutForbiddenHeaders({ [s.apiKeyHeader || 'X-API-Key']: s.apiKey ?? '' });
    default: return {};
  }
}

/** A value at a dotted path ("data.items", "links.next"). */
export function at(body: unknown, path: string | undefined): unknown {
  if (!path) return body;
  let cur: unknown = body;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Nested objects flattened to dotted names; arrays kept as they are. */
export function flatten(value: Record<string, unknown>, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  for (const [k, v] of Object.entries(value)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v as Record<string, unknown>, key, out);
    else out[key] = v;
  }
  return out;
}

async function getJson(ctx: ConnectorContext, url: URL): Promise<unknown> {
  const res = await outboundRequest(url, {
    name: url.host,
    headers: authHeaders(ctx.settings),
    network: ctx.network ?? PUBLIC_ONLY,
    signal: ctx.signal,
  });
  // only the status is reported, never the body: the host is whatever the user typed
  const refuse = (problem: Error) => { res.discard(); return problem; };
  if (res.status === 401 || res.status === 403) throw refuse(refused(`${url.host} refused the credentials (HTTP ${res.status}).`));
  if (res.status >= 300 && res.status < 400) throw refuse(refused(`${url.host} redirected the request (HTTP ${res.status}); enter the final URL.`));
  if (res.status === 429 || res.status === 408) throw refuse(transientProblem(processingError(`${url.host} asked Tributary to slow down (HTTP ${res.status}).`)));
  if (res.status >= 400 && res.status < 500) throw refuse(refused(`${url.host} did not accept the request (HTTP ${res.status}); check the URL.`));
  if (res.status >= 500) throw refuse(transientProblem(processingError(`${url.host} answered with a server error (HTTP ${res.status}).`)));
  if (res.status < 200) throw refuse(processingError(`${url.host} answered with HTTP ${res.status}.`));
  const text = (await res.read(MAX_PAGE_BYTES, `${url.host} answered with more than ${megabytes(MAX_PAGE_BYTES)} in one page; use paging.`)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw processingError(`${url.host} did not answer with JSON.`);
  }
}

function recordsOf(body: unknown, s: Settings): Record<string, unknown>[] {
  const found = at(body, s.recordsPath);
  if (!Array.isArray(found)) {
    throw processingError(s.recordsPath ? `The answer has no array of records at "${s.recordsPath}".` : 'The answer is not an array of records; set the records path.');
  }
  return found.map((r) => (r && typeof r === 'object' && !Array.isArray(r) ? r as Record<string, unknown> : { value: r }));
}

const DATE = /^\d{4}-\d{2}-\d{2}/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** Compares two watermark values: as instants when both are dates, as numbers when both are, else as text. */
export function compareStamps(a: string, b: string): number {
  if (DATE.test(a) && DATE.test(b)) {
    const ta = Date.parse(a), tb = Date.parse(b);
    if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  }
  if (NUMBER.test(a) && NUMBER.test(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

const later = (a: string | null, b: string): string => (a === null || compareStamps(b, a) > 0 ? b : a);

/** A formula's extra query ("status=paid&campaign=spring") as pairs; names are the connection's to choose, values any. */
export function queryPairs(query: string | undefined): [string, string][] {
  if (!query) return [];
  return [...new URLSearchParams(query)].filter(([name]) => name !== '');
}

const withPairs = (url: URL, pairs: [string, string][]) => {
  for (const [name, value] of pairs) url.searchParams.set(name, value);
  return url;
};

/** Every page, following the paging the settings name; `pairs` go on every request. */
async function* pages(ctx: ConnectorContext, since: string | null, firstPageOnly = false, pairs: [string, string][] = []): AsyncIterable<Record<string, unknown>[]> {
  const s = ctx.settings;
  const start = new URL(s.url!);
  if (start.protocol !== 'https:' && start.protocol !== 'http:') throw refused('The URL must start with https:// or http://.');
  withPairs(start, pairs);
  if (since && s.sinceParam) start.searchParams.set(s.sinceParam, since);
  const size = Number(s.pageSize || 100);
  const paging = s.paging || 'none';
  let url = start;
  const seen = new Set<string>();
  for (let page = 0; page < MAX_PAGES; page++) {
    if (paging === 'page') {
      url = new URL(start);
      url.searchParams.set(s.pageParam || 'page', String(page + 1));
      if (s.limitParam) url.searchParams.set(s.limitParam, String(size));
    } else if (paging === 'offset') {
      url = new URL(start);
      url.searchParams.set(s.offsetParam || 'offset', String(page * size));
      if (s.limitParam) url.searchParams.set(s.limitParam, String(size));
    }
    const body = await getJson(ctx, url);
    const records = recordsOf(body, s);
    yield records;
    if (firstPageOnly || paging === 'none' || records.length === 0) return;
    if ((paging === 'page' || paging === 'offset') && records.length < size) return;
    if (paging === 'next-link') {
      const next = at(body, s.nextLinkPath || 'links.next');
      if (typeof next !== 'string' || next === '') return;
      const nextUrl = new URL(next, url);
      // credentials never go to another origin
      if (nextUrl.origin !== start.origin) throw processingError(`The next link leads to another site (${nextUrl.host}).`);
      if (seen.has(nextUrl.href)) throw processingError('The next link repeats a page already read.');
      seen.add(nextUrl.href);
      url = withPairs(nextUrl, pairs);
    } else if (paging === 'cursor') {
      const cursor = at(body, s.cursorPath || 'next_cursor');
      if (cursor === null || cursor === undefined || cursor === '' || cursor === false) return;
      if (seen.has(String(cursor))) throw processingError('The cursor repeats one already used.');
      seen.add(String(cursor));
      url = new URL(start);
      url.searchParams.set(s.cursorParam || 'cursor', String(cursor));
    }
  }
  throw processingError(`Stopped after ${MAX_PAGES} pages.`);
}

function toRecord(r: Record<string, unknown>, page: number, i: number): SourceRecord {
  const id = r.id ?? r._id ?? r.uuid;
  return { id: typeof id === 'string' || typeof id === 'number' ? String(id) : `${page}:${i}`, fields: flatten(r) };
}

function typeOf(v: unknown): FieldInfo['type'] {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return 'date';
    if (/^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v))) return 'datetime';
    if (looksLikeEmail(v)) return 'email';
  }
  return 'string';
}

export const httpConnector: Connector = {
  system: 'http',
  async test(ctx) {
    for await (const records of pages(ctx, null, true)) {
      return { detail: `${new URL(ctx.settings.url!).host} answered with ${records.length} record${records.length === 1 ? '' : 's'} on the first page.` };
    }
    return { detail: 'The API answered.' };
  },
  async listObjects(ctx) {
    return [{ name: 'records', label: `Records of ${new URL(ctx.settings.url!).pathname}` }];
  },
  async describeFields(ctx) {
    const fields = new Map<string, FieldInfo>();
    for await (const records of pages(ctx, null, true)) {
      for (const r of records) {
        for (const [name, value] of Object.entries(flatten(r))) {
          if (!fields.has(name) || (fields.get(name)!.type === 'string' && value !== null && value !== '')) {
            fields.set(name, { name, label: name, type: value === null || value === '' ? 'string' : typeOf(value) });
          }
        }
      }
    }
    return [...fields.values()];
  },
  async *pull(ctx, _object, since, options): AsyncIterable<PullBatch> {
    const { sinceParam, watermarkField: field } = ctx.settings;
    const { window, settings = {} } = options ?? {};
    const batchSize = options?.batchSize ?? 500;
    const stampOf = (r: Record<string, unknown>) => {
      const v = field ? at(r, field) : undefined;
      return typeof v === 'string' || typeof v === 'number' ? String(v) : null;
    };
    let from: string | null;
    let keep = (_r: Record<string, unknown>) => true;
    if (window) {
      if (!sinceParam && !field) {
        throw new ConnectorInputError('This connection cannot ask for the records changed within a period: set its watermark parameter or watermark field first.');
      }
      from = window.from.toISOString();
      const to = window.to.toISOString();
      // the API is asked from `from`; what it sends changed at or after `to` (the day after the range), or before `from` when it could not be asked, is dropped
      keep = (r) => {
        const stamp = stampOf(r);
        return stamp === null || (compareStamps(stamp, to) < 0 && (!!sinceParam || compareStamps(stamp, from!) >= 0));
      };
    } else {
      from = since ?? (settings.changedAfter || null);
    }
    let watermark: string | null = since;
    let page = 0;
    for await (const records of pages(ctx, from, false, queryPairs(settings.query))) {
      const wanted = records.filter(keep);
      if (!window) for (const r of wanted) {
        const stamp = stampOf(r);
        if (stamp !== null) watermark = later(watermark, stamp);
      }
      const converted = wanted.map((r, i) => toRecord(r, page, i));
      // pages may come in any order: the watermark moves only once every page is read
      for (let i = 0; i < converted.length; i += batchSize) yield { records: converted.slice(i, i + batchSize), watermark: since };
      page++;
    }
    yield { records: [], watermark };
  },
  async search() { throw new NotSupported('The HTTP connector', 'search'); },
  async upsert() { throw new NotSupported('The HTTP connector', 'writing records'); },
};
