/**
 * A local fake of the Engaging Networks Services REST API, answering the endpoints Tributary calls
 * as ENS documents them (engagingnetworks.support/api/rest): POST /ens/service/authenticate with the
 * API user token as the body → `{ ens-auth-token, expires }` (milliseconds); every other call needs
 * the `ens-auth-token` header of a session not expired (401 `{ messageId, message }` otherwise);
 * GET /ens/service/supporter/fields; GET /ens/service/supporter?email= (404 when there is none)
 * and /supporter/{id}; POST /ens/service/supporter (creates or updates by e-mail address; an
 * address that is not one is refused); export jobs (POST /ens/service/export/job with type,
 * startDate and endDate as days, GET …/{id} QUEUED then COMPLETED, GET …/{id}/download as CSV). A
 * throttled call answers 429 with Retry-After. Point Tributary at it with
 * CONNECTOR_BASE_URL_ENGAGING_NETWORKS.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const ENS_TOKEN = '5b1c6a1e-en-token';

export interface EnSupporter { supporterId: number; fields: Record<string, string>; modifiedOn: number }
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
const ensError = (status: number, messageId: string, message: string): Answer => [status, { messageId, message }];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;
const FIELDS = ['Email Address', 'First Name', 'Last Name', 'Address 1', 'City', 'Region', 'Postcode', 'Country', 'Phone Number', 'Volunteer Interest'];
const cell = (v: unknown) => { const s = v === undefined || v === null ? '' : String(v); return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function startFakeEngagingNetworks(): Promise<FakeEngagingNetworks> {
  const seen: EnSeen[] = [];
  const supporters = new Map<number, EnSupporter>();
  const transactions = new Map<number, EnTransaction>();
  const sessions = new Map<string, number>();
  const jobs = new Map<string, { looks: number; csv: string }>();
  let nextSupporter = 212_200;
  let nextTransaction = 7_000;
  let authentications = 0;
  let throttled = 0;
  let throttleSeconds = 1;

  const fake: FakeEngagingNetworks = {
    url: '', seen, supporters, transactions,
    addSupporter(fields, modifiedOn) {
      const s: EnSupporter = { supporterId: nextSupporter++, fields: { ...fields }, modifiedOn: modifiedOn?.getTime() ?? Date.now() };
      supporters.set(s.supporterId, s);
      return s;
    },
    addTransaction(t) {
      const made: EnTransaction = { type: 'FUND_DONATION', ...t, transactionId: nextTransaction++, modifiedOn: t.modifiedOn?.getTime() ?? Date.now() };
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
      return found ? [200, supporterJson(found)] : ensError(404, 'supporter.notfound', 'No supporter found with that email address.');
    }
    let m = /^\/ens\/service\/supporter\/(\d+)$/.exec(path);
    if (method === 'GET' && m) {
      const found = supporters.get(Number(m[1]));
      return found ? [200, supporterJson(found)] : ensError(404, 'supporter.notfound', 'No supporter found with that ID.');
    }
    if (method === 'POST' && path === '/ens/service/supporter') {
      const email = String(b['Email Address'] ?? '');
      if (!EMAIL.test(email)) return ensError(400, 'supporter.email.invalid', `'${email}' is not a valid email address`);
      const unknown = Object.keys(b).find((k) => !FIELDS.includes(k));
      if (unknown) return ensError(400, 'supporter.field.unknown', `Unknown supporter field '${unknown}'`);
      const existing = byEmail(email);
      if (existing) {
        Object.assign(existing.fields, Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v)])));
        existing.modifiedOn = Date.now();
        return [200, { id: existing.supporterId }];
      }
      const made = fake.addSupporter(Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v)])));
      return [200, { id: made.supporterId }];
    }
    if (method === 'POST' && path === '/ens/service/export/job') {
      const type = String(b.type ?? '');
      const start = String(b.startDate ?? '');
      const end = String(b.endDate ?? '');
      if (type !== 'SUPPORTER' && type !== 'TRANSACTION') return ensError(400, 'export.type.invalid', `Unknown export type '${type}'`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end)) return ensError(400, 'export.date.invalid', 'startDate and endDate are dates as yyyy-MM-dd');
      const inRange = (ms: number) => dayOf(ms) >= start && dayOf(ms) <= end;
      let rows: unknown[][];
      let header: string[];
      if (type === 'SUPPORTER') {
        header = ['Supporter ID', ...FIELDS, 'Modified On'];
        rows = [...supporters.values()].filter((s) => inRange(s.modifiedOn)).sort((x, y) => x.modifiedOn - y.modifiedOn)
          .map((s) => [s.supporterId, ...FIELDS.map((f) => s.fields[f]), new Date(s.modifiedOn).toISOString()]);
      } else {
        header = ['Transaction ID', 'Supporter ID', 'Email Address', 'Transaction Date', 'Amount', 'Currency', 'Transaction Type'];
        rows = [...transactions.values()].filter((t) => inRange(t.modifiedOn)).sort((x, y) => x.modifiedOn - y.modifiedOn)
          .map((t) => [t.transactionId, t.supporterId, supporters.get(t.supporterId)?.fields['Email Address'], t.date, t.amount.toFixed(2), 'USD', t.type]);
      }
      const id = randomUUID();
      jobs.set(id, { looks: 0, csv: [header, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n' });
      return [200, { id, status: 'QUEUED' }];
    }
    m = /^\/ens\/service\/export\/job\/([0-9a-f-]+)(\/download)?$/.exec(path);
    if (method === 'GET' && m) {
      const job = jobs.get(m[1]!);
      if (!job) return ensError(404, 'export.notfound', 'No export job with that ID.');
      if (m[2]) return job.looks > 1 ? [200, job.csv, { 'content-type': 'text/csv' }] : ensError(409, 'export.notready', 'The export job has not completed.');
      job.looks++;
      return [200, { id: m[1], status: job.looks > 1 ? 'COMPLETED' : 'PROCESSING' }];
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    let answer: Answer | null;
    if (req.method === 'POST' && req.url.pathname === '/ens/service/authenticate') {
      if (req.raw.trim() !== ENS_TOKEN) answer = ensError(401, 'auth.invalid', 'Invalid API user token');
      else {
        authentications++;
        const token = randomUUID();
        sessions.set(token, Date.now() + 3_600_000);
        answer = [200, { 'ens-auth-token': token, expires: 3_600_000 }];
      }
    } else {
      const token = String(req.headers['ens-auth-token'] ?? '');
      if (!((sessions.get(token) ?? 0) > Date.now())) answer = ensError(401, 'auth.token.expired', 'The ens-auth-token is missing, invalid or has expired');
      else if (throttled > 0) { throttled--; answer = ensError(429, 'rate.limit', 'Too many requests'); answer[2] = { 'retry-after': String(throttleSeconds) }; }
      else answer = route(req.method, req.url.pathname, req.url.searchParams, req.body);
    }
    if (!answer) answer = ensError(404, 'notfound', 'Resource not found');
    const [status, body, headers] = answer;
    if (typeof body === 'string') { res.writeHead(status, { 'content-type': 'text/csv', ...headers }); res.end(body); return; }
    sendJson(res, status, body, headers ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
