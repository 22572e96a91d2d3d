/**
 * A local fake of Encompass's token endpoint and Email Metric API v2, answering the calls Tributary
 * makes: POST /oauth2/token (HTTP Basic of the community's client ID and secret,
 * `grant_type=client_credentials`; `{ error, error_description }` when refused); GET /v2/messages
 * (`fromTimestamp`, `toTimestamp`: Unix milliseconds of the send, both required), GET
 * /v2/messages/{id}/recipients and /opens, each `{ data, startAt, maxResults, total }` with
 * `startAt` (from 0) and `maxResults` (1,000 when absent, at most 1,000). A 401 for a token it no
 * longer accepts, a 429 `{ message }` with Retry-After 0 when throttled. Point Tributary at it with
 * CONNECTOR_BASE_URL_ENCOMPASS.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const ENCOMPASS_CREDENTIALS = { clientId: 'riverside-community', clientSecret: 'enc-secret-1' };
type Obj = Record<string, unknown>;
export interface EncompassSeen { method: string; path: string; query: URLSearchParams; authorization: string | undefined }

export interface FakeEncompass {
  url: string;
  seen: EncompassSeen[];
  messages: (Obj & { id: number; actualSendTimestamp: number })[];
  recipients: Map<number, Obj[]>;
  opens: Map<number, Obj[]>;
  /** a campaign sent `daysAgo` days ago to these recipients, those in `opened` having opened it */
  campaign(p: { name: string; daysAgo: number; to: { email: string; first: string; last: string; constituentId: number }[]; opened?: string[] }): Obj & { id: number };
  expireTokens(): void;
  tokens: number;
  throttle(n: number): void;
  clear(): void;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];

export async function startFakeEncompass(): Promise<FakeEncompass> {
  const seen: EncompassSeen[] = [];
  let valid = new Set<string>();
  let throttled = 0;
  let nextId = 5000;
  const fake: FakeEncompass = {
    url: '', seen, messages: [], recipients: new Map(), opens: new Map(), tokens: 0,
    campaign(p) {
      const sent = Date.now() - p.daysAgo * 86_400_000;
      const m = {
        id: nextId++, subCommunityId: 12, emailName: p.name, fromName: 'Riverside Alumni', fromAddress: 'alumni@riverside.edu', subjectLine: `${p.name}!`, preHeader: null,
        sentCount: p.to.length, categoryName: 'Newsletter', scheduledDateTimestamp: sent, actualSendTimestamp: sent, dateAdded: sent - 3_600_000,
      };
      fake.messages.push(m);
      fake.recipients.set(m.id, p.to.map((r) => ({ constituentId: r.constituentId, emailAddress: r.email, firstName: r.first, lastName: r.last, classYear: 2001 })));
      fake.opens.set(m.id, (p.opened ?? []).map((email, i) => ({ emailAddress: email, timestamp: sent + (i + 1) * 60_000 })));
      return m;
    },
    expireTokens() { valid = new Set(); },
    throttle(n) { throttled = n; },
    clear() { fake.messages.length = 0; fake.recipients.clear(); fake.opens.clear(); seen.length = 0; },
    close: async () => {},
  };

  const page = (rows: Obj[], q: URLSearchParams): Answer => {
    const startAt = Math.max(Number(q.get('startAt') ?? 0) || 0, 0);
    const maxResults = Math.min(Math.max(Number(q.get('maxResults') ?? 1000) || 1, 1), 1000);
    return [200, { data: rows.slice(startAt, startAt + maxResults), maxResults, startAt, total: rows.length }];
  };

  const server = await startVendorServer((req, res) => {
    const authorization = req.headers.authorization;
    seen.push({ method: req.method, path: req.url.pathname, query: req.url.searchParams, authorization });
    let answer: Answer;
    if (req.method === 'POST' && req.url.pathname === '/oauth2/token') {
      const m = /^Basic (.+)$/.exec(authorization ?? '');
      const [id, secret] = m ? Buffer.from(m[1]!, 'base64').toString('utf8').split(':') : [];
      if (new URLSearchParams(req.raw).get('grant_type') !== 'client_credentials') answer = [400, { error: 'unsupported_grant_type' }];
      else if (id !== ENCOMPASS_CREDENTIALS.clientId || secret !== ENCOMPASS_CREDENTIALS.clientSecret) answer = [401, { error: 'invalid_client', error_description: 'The client credentials are invalid for this community.' }];
      else {
        const t = `enc-token-${++fake.tokens}`;
        valid.add(t);
        answer = [200, { access_token: t, token_type: 'Bearer', expires_in: 3600 }];
      }
    } else if (throttled > 0) {
      throttled--;
      answer = [429, { message: 'Too many requests.' }, { 'retry-after': '0' }];
    } else if (!valid.has(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '')) {
      answer = [401, { message: 'Authorization has been denied for this request.' }];
    } else if (req.method === 'GET' && req.url.pathname === '/v2/messages') {
      const from = Number(req.url.searchParams.get('fromTimestamp'));
      const to = Number(req.url.searchParams.get('toTimestamp'));
      answer = !req.url.searchParams.has('fromTimestamp') || !req.url.searchParams.has('toTimestamp') || !Number.isFinite(from) || !Number.isFinite(to)
        ? [400, { message: 'fromTimestamp and toTimestamp are required.' }]
        : page(fake.messages.filter((m) => m.actualSendTimestamp >= from && m.actualSendTimestamp <= to), req.url.searchParams);
    } else {
      const m = /^\/v2\/messages\/(\d+)\/(recipients|opens)$/.exec(req.url.pathname);
      const rows = m ? (m[2] === 'recipients' ? fake.recipients : fake.opens).get(Number(m[1])) : undefined;
      answer = rows && req.method === 'GET' ? page(rows, req.url.searchParams) : [404, { message: 'No message was found.' }];
    }
    sendJson(res, answer[0], answer[1], answer[2] ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
