/**
 * A local fake of the Engaging Networks Services REST API, answering the endpoints Tributary calls
 * as ENS documents them (engagingnetworks.support/api/rest): POST /ens/service/authenticate with the
 * API user token as the body → `{ ens-auth-token, expires }` (milliseconds); every other call needs
 * the `ens-auth-token` header of a session not expired (401 `{ messageId, message }` otherwise);
 * GET /ens/service/supporter/fields; GET /ens/service/supporter?email= (404 when there is none)
 * and /supporter/{id}; POST /ens/service/supporter (creates or updates by e-mail address; an
 * address that is not one is refused); GET /ens/service/supporter/query?type=latestModified with
 * daysBack (1 to 32) and rows (at most 100) / start, answering `{ pagination, data: [{ supporterId,
 * emailAddress, createdOn, modifiedOn }] }` with dates as yyyy-MM-dd; and the Bulk Export API, GET
 * /ea-dataservice/export.service?token={private token}&startDate&endDate (MMDDYYYY)&type=csv,
 * transactions of those days as CSV (standardcsv column names), nothing of today (staged the next
 * morning). A
 * throttled call answers 429 with Retry-After. Point Tributary at it with
 * CONNECTOR_BASE_URL_ENGAGING_NETWORKS.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const ENS_TOKEN = '5b1c6a1e-en-token';
export const ENS_PRIVATE_TOKEN = '9f2d7c44-en-private';

export interface EnSupporter { supporterId: number; fields: Record<string, string>; createdOn: number; modifiedOn: number }
export interface EnTransaction { transactionId: number; supporterId: number; amount: number; date: string; type: string; modifiedOn: number }
export interface EnSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeEngagingNetworks {
  url: string;
  seen: EnSeen[];
  supporters: Map<number, EnSupporter>;
  transactions: Map<number, EnTransaction>;
  addSupporter(fields: Record<string, string>, modifiedOn?: Date): EnSupporter;
  addTransaction(t: Omit<EnTransaction, 'transactionId' | 'modifiedOn' | 'type'> & { modifiedOn?: Date; type?: string }): EnTransaction;
  /** every session given so far is expired: the next call with one answers 401 */
  expireSessions(): void;
  authentications(): number;
  /** the next `n` API calls answer 429 with Retry-After `seconds` */
  throttle(n: number, seconds?: number): void;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];
/** ENS's error body: its words and a numerical messageId */
const ensError = (status: number, messageId: number, message: string): Answer => [status, { messageId, message }];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;
const FIELDS = ['Email Address', 'First Name', 'Last Name', 'Address 1', 'City', 'Region', 'Postcode', 'Country', 'Phone Number', 'Volunteer Interest'];
const cell = (v: unknown) => { const s = v === undefined || v === null ? '' : String(v); return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function startFakeEngagingNetworks(): Promise<FakeEngagingNetworks> {
  const seen: EnSeen[] = [];
  const supporters = new Map<number, EnSupporter>();
  const transactions = new Map<number, EnTransaction>();
  const sessions = new Map<string, number>();
  let nextSupporter = 212_200;
  let nextTransaction = 7_000;
  let authentications = 0;
  let throttled = 0;
  let throttleSeconds = 1;

  const fake: FakeEngagingNetworks = {
    url: '', seen, supporters, transactions,
    addSupporter(fields, modifiedOn) {
      const at = modifiedOn?.getTime() ?? Date.now();
      const s: EnSupporter = { supporterId: nextSupporter++, fields: { ...fields }, createdOn: at, modifiedOn: at };
      supporters.set(s.supporterId, s);
      return s;
    },
    addTransaction(t) {
      const made: EnTransaction = { type: 'FCS', ...t, transactionId: nextTransaction++, modifiedOn: t.modifiedOn?.getTime() ?? Date.now() };
      transactions.set(made.transactionId, made);
      return made;
    },
    expireSessions() { for (const k of sessions.keys()) sessions.set(k, 0); },
    authentications: () => authentications,
    throttle(n, seconds = 1) { throttled = n; throttleSeconds = seconds; },
    close: async () => {},
  };

  const supporterJson = (s: EnSupporter) => ({ supporterId: s.supporterId, ...s.fields, modifiedOn: new Date(s.modifiedOn).toISOString(), questions: [] });
  const byEmail = (email: string) => [...supporters.values()].find((s) => (s.fields['Email Address'] ?? '').toLowerCase() === email.trim().toLowerCase());

  function route(method: string, path: string, q: URLSearchParams, body: unknown): Answer | null {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    if (method === 'GET' && path === '/ens/service/supporter/fields') return [200, FIELDS.map((name, i) => ({ id: 100 + i, name, tag: name, property: name.replace(/ (\w)/g, (_m, c: string) => c.toUpperCase()).replace(/^\w/, (c) => c.toLowerCase()) }))];
    if (method === 'GET' && path === '/ens/service/supporter') {
      const found = byEmail(q.get('email') ?? '');
      return found ? [200, supporterJson(found)] : ensError(404, 10000404, 'No supporter found with that email address.');
    }
    let m = /^\/ens\/service\/supporter\/(\d+)$/.exec(path);
    if (method === 'GET' && m) {
      const found = supporters.get(Number(m[1]));
      return found ? [200, supporterJson(found)] : ensError(404, 10000404, 'No supporter found with that ID.');
    }
    if (method === 'POST' && path === '/ens/service/supporter') {
      const email = String(b['Email Address'] ?? '');
      if (!EMAIL.test(email)) return ensError(400, 10000005, `'${email}' is not a valid email address`);
      const unknown = Object.keys(b).find((k) => !FIELDS.includes(k));
      if (unknown) return ensError(400, 10000006, `Unknown supporter field '${unknown}'`);
      const existing = byEmail(email);
      if (existing) {
        Object.assign(existing.fields, Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v)])));
        existing.modifiedOn = Date.now();
        return [200, { id: existing.supporterId }];
      }
      const made = fake.addSupporter(Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v)])));
      return [200, { id: made.supporterId }];
    }
    if (method === 'GET' && path === '/ens/service/supporter/query') {
      if (q.get('type') !== 'latestModified') return ensError(400, 10000010, `Unsupported query type '${q.get('type') ?? ''}'`);
      const daysBack = Number(q.get('daysBack'));
      if (!Number.isInteger(daysBack) || daysBack < 1 || daysBack > 32) return ensError(400, 10000011, 'daysBack must be between 1 and 32');
      const rows = q.has('rows') ? Number(q.get('rows')) : 20;
      if (!(rows >= 1 && rows <= 100)) return ensError(400, 10000012, 'rows must be at most 100');
      const start = Number(q.get('start') ?? 0);
      // the last daysBack days, today included
      const oldest = dayOf(Date.now() - (daysBack - 1) * 86_400_000);
      const matching = [...supporters.values()].filter((x) => dayOf(x.modifiedOn) >= oldest).sort((x, y) => x.modifiedOn - y.modifiedOn);
      return [200, {
        pagination: { start, rows, total: matching.length },
        data: matching.slice(start, start + rows).map((x) => ({ supporterId: x.supporterId, emailAddress: x.fields['Email Address'] ?? '', createdOn: dayOf(x.createdOn), modifiedOn: dayOf(x.modifiedOn) })),
        scores: [], summary: {},
      }];
    }
    return null;
  }

  /** The bulk export: transactions of whole days, up to yesterday (a day is staged the next morning). */
  function bulkExport(q: URLSearchParams): [number, string] {
    if (q.get('token') !== ENS_PRIVATE_TOKEN) return [403, 'Invalid token'];
    const date = (v: string | null) => (/^\d{8}$/.test(v ?? '') ? `${v!.slice(4)}-${v!.slice(0, 2)}-${v!.slice(2, 4)}` : null);
    const start = date(q.get('startDate'));
    const end = q.has('endDate') ? date(q.get('endDate')) : dayOf(Date.now() - 86_400_000);
    if (!start || !end) return [400, 'startDate and endDate must be MMDDYYYY'];
    if (q.get('type') !== 'csv') return [400, `Unsupported type '${q.get('type') ?? ''}'`];
    const staged = dayOf(Date.now() - 86_400_000);
    const header = ['Supporter ID', 'Supporter Email', 'Date Created', 'Date Modified', 'Campaign Number', 'Campaign Type', 'Campaign ID', 'Campaign Date', 'Campaign Time', 'Campaign Status', 'Campaign Data 1', 'Campaign Data 2', 'Campaign Data 3'];
    const rows = [...transactions.values()].filter((t) => dayOf(t.modifiedOn) >= start && dayOf(t.modifiedOn) <= end && dayOf(t.modifiedOn) <= staged)
      .sort((x, y) => x.modifiedOn - y.modifiedOn)
      .map((t) => {
        const s = supporters.get(t.supporterId);
        return [t.supporterId, s?.fields['Email Address'], s ? dayOf(s.createdOn) : '', s ? dayOf(s.modifiedOn) : '', 40_000 + t.transactionId, t.type, 'Spring appeal', t.date,
          new Date(t.modifiedOn).toISOString().slice(11, 16), 'success', `T${t.transactionId}`, 'USD', t.amount.toFixed(2)];
      });
    return [200, [header, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n'];
  }

  const server = await startVendorServer((req, res) => {
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    if (req.method === 'GET' && req.url.pathname === '/ea-dataservice/export.service') {
      const [status, text] = bulkExport(req.url.searchParams);
      res.writeHead(status, { 'content-type': status === 200 ? 'text/csv' : 'text/plain' });
      res.end(text);
      return;
    }
    let answer: Answer | null;
    if (req.method === 'POST' && req.url.pathname === '/ens/service/authenticate') {
      if (req.raw.trim() !== ENS_TOKEN) answer = ensError(401, 10000000, `Invalid api key [${req.raw.trim()}]`);
      else {
        authentications++;
        const token = randomUUID();
        sessions.set(token, Date.now() + 3_600_000);
        answer = [200, { 'ens-auth-token': token, expires: 3_600_000 }];
      }
    } else {
      const token = String(req.headers['ens-auth-token'] ?? '');
      if (!((sessions.get(token) ?? 0) > Date.now())) answer = ensError(401, 10000001, 'The ens-auth-token is missing, invalid or has expired');
      else if (throttled > 0) { throttled--; answer = ensError(429, 10000429, 'Too many requests'); answer[2] = { 'retry-after': String(throttleSeconds) }; }
      else answer = route(req.method, req.url.pathname, req.url.searchParams, req.body);
    }
    if (!answer) answer = ensError(404, 10000404, 'Resource not found');
    const [status, body, headers] = answer;
    if (typeof body === 'string') { res.writeHead(status, { 'content-type': 'text/csv', ...headers }); res.end(body); return; }
    sendJson(res, status, body, headers ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
