/**
 * A local fake of Salesforce Marketing Cloud, answering the endpoints Tributary calls as Marketing
 * Cloud documents them (developer.salesforce.com/docs/marketing/marketing-cloud): POST /v2/token
 * (client credentials in a JSON body, `account_id` for a business unit) → `{ access_token,
 * expires_in, rest_instance_url }`; REST calls with that bearer token (401 "Not Authorized" once it
 * expired); GET /data/v1/customobjectdata/key/{key}/rowset with `$page`, `$pageSize` (at most
 * 2500), `$filter` (eq, like, gte, lt… joined by `and`, values in single quotes) and `$orderBy`,
 * each row `{ keys, values }` with names in lower case; POST /hub/v1/dataevents/key:{key}/rowset
 * (upsert by primary key, refused whole with `{ message, errorcode, additionalErrors }` when a row
 * is bad). A throttled call answers 429 with Retry-After. Point Tributary at it with
 * CONNECTOR_BASE_URL_SALESFORCE_MARKETING_CLOUD.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const SFMC = { subdomain: 'mc563885gzs27c5t9-63k636ttgm', clientId: 'sfmc-client', clientSecret: 'sfmc-secret', accountId: '514009999' };
export const DE_KEY = 'Riverside_Supporters';

export interface DataExtension { primaryKeys: string[]; fields: string[]; rows: Map<string, Record<string, string>> }
export interface SfmcSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeMarketingCloud {
  url: string;
  seen: SfmcSeen[];
  dataExtensions: Map<string, DataExtension>;
  addRow(key: string, row: Record<string, string>): void;
  expireTokens(): void;
  tokens(): number;
  throttle(n: number, seconds?: number): void;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

export async function startFakeMarketingCloud(): Promise<FakeMarketingCloud> {
  const seen: SfmcSeen[] = [];
  const dataExtensions = new Map<string, DataExtension>([
    [DE_KEY, { primaryKeys: ['subscriberkey'], fields: ['subscriberkey', 'emailaddress', 'firstname', 'lastname', 'modifieddate'], rows: new Map() }],
  ]);
  const tokens = new Map<string, number>();
  let issued = 0;
  let throttled = 0;
  let throttleSeconds = 1;
  const fake: FakeMarketingCloud = {
    url: '', seen, dataExtensions,
    addRow(key, row) {
      const de = dataExtensions.get(key)!;
      const lower = Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));
      de.rows.set(de.primaryKeys.map((k) => lower[k]).join('|'), { modifieddate: new Date().toISOString(), ...lower });
    },
    expireTokens() { for (const k of tokens.keys()) tokens.set(k, 0); },
    tokens: () => issued,
    throttle(n, seconds = 1) { throttled = n; throttleSeconds = seconds; },
    close: async () => {},
  };

  /** `$filter` as Marketing Cloud reads it: conditions joined by `and` */
  function filterOf(text: string | null): ((row: Record<string, string>) => boolean) | string {
    if (!text) return () => true;
    const tests: ((row: Record<string, string>) => boolean)[] = [];
    for (const part of text.split(/ and /i)) {
      const m = /^\s*("[^"]+"|\w+) (eq|neq|like|gt|gte|lt|lte) '((?:[^']|'')*)'\s*$/i.exec(part);
      if (!m) return `Invalid filter: ${part}`;
      const name = m[1]!.replace(/"/g, '').toLowerCase();
      const want = m[3]!.replace(/''/g, "'");
      const op = m[2]!.toLowerCase();
      tests.push((row) => {
        const have = row[name] ?? '';
        if (op === 'eq') return have.toLowerCase() === want.toLowerCase();
        if (op === 'neq') return have.toLowerCase() !== want.toLowerCase();
        if (op === 'like') return new RegExp(`^${want.split('%').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'i').test(have);
        const [a, b] = [Date.parse(have), Date.parse(want)];
        return op === 'gt' ? a > b : op === 'gte' ? a >= b : op === 'lt' ? a < b : a <= b;
      });
    }
    return (row) => tests.every((t) => t(row));
  }

  function route(req: { method: string; path: string; q: URLSearchParams; body: unknown }): Answer | null {
    let m = /^\/data\/v1\/customobjectdata\/key\/([^/]+)\/rowset$/.exec(req.path);
    if (req.method === 'GET' && m) {
      const key = decodeURIComponent(m[1]!);
      const de = dataExtensions.get(key);
      if (!de) return [404, { message: `Data extension with key ${key} not found`, errorcode: 10002, documentation: '' }];
      const page = Number(req.q.get('$page') ?? 1);
      const size = Number(req.q.get('$pageSize') ?? 2500);
      if (size > 2500) return [400, { message: '$pageSize must be at most 2500', errorcode: 10001, documentation: '' }];
      const filter = filterOf(req.q.get('$filter'));
      if (typeof filter === 'string') return [400, { message: filter, errorcode: 10001, documentation: '' }];
      let list = [...de.rows.values()].filter(filter);
      const order = /^(\w+) (asc|desc)$/i.exec(req.q.get('$orderBy') ?? '');
      if (order) {
        const f = order[1]!.toLowerCase();
        list = list.sort((a, b) => String(a[f] ?? '').localeCompare(String(b[f] ?? '')) * (order[2]!.toLowerCase() === 'desc' ? -1 : 1));
      }
      const items = list.slice((page - 1) * size, page * size).map((row) => ({
        keys: Object.fromEntries(de.primaryKeys.map((k) => [k, row[k]])),
        values: Object.fromEntries(Object.entries(row).filter(([k]) => !de.primaryKeys.includes(k))),
      }));
      const token = randomUUID();
      return [200, {
        links: { self: `/v1/customobjectdata/token/${token}/rowset?$page=${page}`, ...(page * size < list.length ? { next: `/v1/customobjectdata/token/${token}/rowset?$page=${page + 1}` } : {}) },
        requestToken: token, tokenExpireDateUtc: new Date(Date.now() + 1_200_000).toISOString(), customObjectId: randomUUID(), customObjectKey: key,
        pageSize: size, page, count: list.length, top: 0, items,
      }];
    }
    m = /^\/hub\/v1\/dataevents\/key:([^/]+)\/rowset$/.exec(req.path);
    if (req.method === 'POST' && m) {
      const key = decodeURIComponent(m[1]!);
      const de = dataExtensions.get(key);
      if (!de) return [404, { message: `Data extension with key ${key} not found`, errorcode: 10002, documentation: '' }];
      const rows = req.body as { keys?: Record<string, string>; values?: Record<string, string> }[];
      if (!Array.isArray(rows)) return [400, { message: 'The request body must be an array of rows', errorcode: 10001, documentation: '' }];
      const errors: { message: string; errorcode: number }[] = [];
      for (const r of rows) {
        const all = Object.fromEntries(Object.entries({ ...r.values, ...r.keys }).map(([k, v]) => [k.toLowerCase(), String(v)]));
        for (const k of Object.keys(all)) if (!de.fields.includes(k)) errors.push({ message: `The column [${k}] does not exist in the data extension.`, errorcode: 10000 });
        for (const k of de.primaryKeys) if (!all[k]) errors.push({ message: `The primary key column [${k}] is required.`, errorcode: 10000 });
        if (all.emailaddress !== undefined && !EMAIL.test(all.emailaddress)) errors.push({ message: `The value for column [emailaddress] is not a valid email address: ${all.emailaddress}`, errorcode: 10000 });
      }
      if (errors.length) return [400, { message: `Unable to save rows for data extension ID ${key}`, errorcode: 10006, documentation: '', additionalErrors: errors }];
      for (const r of rows) {
        const all = Object.fromEntries(Object.entries({ ...r.values, ...r.keys }).map(([k, v]) => [k.toLowerCase(), String(v)]));
        const id = de.primaryKeys.map((k) => all[k]).join('|');
        de.rows.set(id, { ...de.rows.get(id), ...all, modifieddate: new Date().toISOString() });
      }
      return [200, rows];
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    let answer: Answer | null;
    if (req.method === 'POST' && req.url.pathname === '/v2/token') {
      const b = (req.body ?? {}) as Record<string, unknown>;
      if (b.grant_type !== 'client_credentials' || b.client_id !== SFMC.clientId || b.client_secret !== SFMC.clientSecret) answer = [401, { error: 'invalid_client', error_description: 'Invalid client ID. Use the client ID in Marketing Cloud Installed Packages.' }];
      else if (b.account_id !== undefined && b.account_id !== Number(SFMC.accountId)) answer = [401, { error: 'unauthorized_client', error_description: 'Insufficient privileges for the business unit.' }];
      else {
        issued++;
        const token = `sfmc-${randomUUID()}`;
        tokens.set(token, Date.now() + 1_080_000);
        answer = [200, { access_token: token, token_type: 'Bearer', expires_in: 1080, scope: 'data_extensions_read data_extensions_write', soap_instance_url: `${fake.url}/`, rest_instance_url: `${fake.url}/` }];
      }
    } else {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!((tokens.get(token) ?? 0) > Date.now())) answer = [401, { documentation: 'https://developer.salesforce.com/docs/atlas.en-us.mc-apis.meta/mc-apis/error-handling.htm', errorcode: 0, message: 'Not Authorized' }];
      else if (throttled > 0) { throttled--; answer = [429, { message: 'Too many requests', errorcode: 0, documentation: '' }, { 'retry-after': String(throttleSeconds) }]; }
      else answer = route({ method: req.method, path: req.url.pathname, q: req.url.searchParams, body: req.body });
    }
    if (!answer) answer = [404, { message: 'Resource not found', errorcode: 0, documentation: '' }];
    const [status, body, headers] = answer;
    sendJson(res, status, body, headers ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
