/**
 * A local fake of Swoogo's API (developer.swoogo.com), answering the calls Tributary makes as Swoogo
 * documents them: POST /api/v1/oauth2/token.json with HTTP Basic of the URL-encoded key and secret
 * and `grant_type=client_credentials` (a bearer token and its `expires_at`); GET /api/v1/events,
 * and /api/v1/{registrants|sessions|speakers|sponsors|transactions} with the `event_id` they need
 * (400 without it, 404 for an event the account does not have), each with `fields` (only those
 * answered, and id), `search` (conditions joined by `&`, operators = != >= <= > <), `sort` (`-` for
 * descending), `page` and `per-page`, in Yii's envelope `{ items, _links, _meta: { totalCount,
 * pageCount, currentPage, perPage } }`. Times are Swoogo's `YYYY-MM-DD HH:MM:SS`. Errors are
 * `{ name, message, code, status }`; a 429 carries X-Rate-Limit-* headers. Point Tributary at it
 * with CONNECTOR_BASE_URL_SWOOGO.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const SWOOGO_CREDENTIALS = { consumerKey: 'riverside key+1', consumerSecret: 'riverside/secret=' };
const KINDS = ['events', 'registrants', 'sessions', 'speakers', 'sponsors', 'transactions'] as const;
export type SwoogoKind = (typeof KINDS)[number];
type Obj = Record<string, unknown> & { id: number };
export interface SwoogoSeen { method: string; path: string; query: URLSearchParams; authorization: string | undefined }

export interface FakeSwoogo {
  url: string;
  seen: SwoogoSeen[];
  objects: Record<SwoogoKind, Obj[]>;
  /** a record of `kind` (an event's id in `event_id` for the others), stamped with the fake's clock */
  add(kind: SwoogoKind, fields: Record<string, unknown>): Obj;
  /** changes a record, moving its updated_at on */
  touch(kind: SwoogoKind, id: number, fields: Record<string, unknown>): Obj;
  /** the access tokens issued so far are refused from now on (expired) */
  expireTokens(): void;
  /** tokens issued so far */
  tokens: number;
  /** the next `n` calls answer 429 */
  throttle(n: number): void;
  clear(): void;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];
const error = (status: number, name: string, message: string): Answer => [status, { name, message, code: 0, status }];

export async function startFakeSwoogo(): Promise<FakeSwoogo> {
  const seen: SwoogoSeen[] = [];
  const objects = Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as Record<SwoogoKind, Obj[]>;
  let clock = Date.parse('2026-03-01T12:00:00Z');
  const stamp = () => new Date((clock += 60_000)).toISOString().slice(0, 19).replace('T', ' ');
  let nextId = 1000;
  let valid = new Set<string>();
  let throttled = 0;

  const fake: FakeSwoogo = {
    url: '', seen, objects, tokens: 0,
    add(kind, fields) {
      const at = stamp();
      const o: Obj = { id: nextId++, created_at: at, updated_at: at, ...fields };
      objects[kind].push(o);
      return o;
    },
    touch(kind, id, fields) {
      const o = objects[kind].find((x) => x.id === id)!;
      Object.assign(o, fields, { updated_at: stamp() });
      return o;
    },
    expireTokens() { valid = new Set(); },
    throttle(n) { throttled = n; },
    clear() { for (const k of KINDS) objects[k].length = 0; seen.length = 0; },
    close: async () => {},
  };

  function token(authorization: string | undefined, form: URLSearchParams): Answer {
    const m = /^Basic (.+)$/.exec(authorization ?? '');
    const [key, secret] = m ? Buffer.from(m[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
    if (form.get('grant_type') !== 'client_credentials') return error(400, 'Bad Request', 'The grant type is unsupported.');
    if (key !== SWOOGO_CREDENTIALS.consumerKey || secret !== SWOOGO_CREDENTIALS.consumerSecret) return error(401, 'Unauthorized', 'The consumer key or secret is not valid.');
    const t = `swoogo-token-${++fake.tokens}`;
    valid.add(t);
    return [200, { access_token: t, type: 'bearer', expires_at: new Date(Date.now() + 30 * 60_000).toISOString().slice(0, 19).replace('T', ' ') }];
  }

  function list(kind: SwoogoKind, q: URLSearchParams): Answer {
    let rows = [...objects[kind]];
    if (kind !== 'events') {
      const event = q.get('event_id');
      if (!event) return error(400, 'Bad Request', 'Missing required parameters: event_id');
      if (!objects.events.some((e) => String(e.id) === event)) return error(404, 'Not Found', `Event ${event} could not be found.`);
      rows = rows.filter((r) => String(r.event_id) === event);
    }
    for (const cond of (q.get('search') ?? '').split('&').filter(Boolean)) {
      const m = /^([a-z_]+)(>=|<=|!=|>|<|=)(.*)$/.exec(cond);
      if (!m) return error(400, 'Bad Request', `Invalid search condition: ${cond}`);
      const [, field, op, value] = m as unknown as [string, string, string, string];
      rows = rows.filter((r) => {
        const v = String(r[field] ?? '');
        return op === '=' ? v === value : op === '!=' ? v !== value : op === '>=' ? v >= value : op === '<=' ? v <= value : op === '>' ? v > value : v < value;
      });
    }
    const sort = q.get('sort');
    if (sort) {
      const desc = sort.startsWith('-');
      const field = sort.replace(/^-/, '');
      rows.sort((a, b) => (String(a[field]) < String(b[field]) ? -1 : String(a[field]) > String(b[field]) ? 1 : a.id - b.id) * (desc ? -1 : 1));
    }
    const perPage = Math.min(Math.max(Number(q.get('per-page') ?? 20) || 20, 1), 1000);
    const page = Math.max(Number(q.get('page') ?? 1) || 1, 1);
    const pageCount = Math.max(Math.ceil(rows.length / perPage), 1);
    const fields = q.get('fields')?.split(',');
    const items = rows.slice((page - 1) * perPage, page * perPage).map((r) => (fields ? Object.fromEntries(Object.entries(r).filter(([k]) => k === 'id' || fields.includes(k))) : r));
    return [200, { items, _links: { self: { href: `/api/v1/${kind}?page=${page}` } }, _meta: { totalCount: rows.length, pageCount, currentPage: page, perPage } }];
  }

  const server = await startVendorServer((req, res) => {
    const authorization = req.headers.authorization;
    seen.push({ method: req.method, path: req.url.pathname, query: req.url.searchParams, authorization });
    let answer: Answer;
    if (req.method === 'POST' && req.url.pathname === '/api/v1/oauth2/token.json') {
      answer = token(authorization, new URLSearchParams(req.raw));
    } else if (throttled > 0) {
      throttled--;
      answer = [429, { name: 'Too Many Requests', message: 'Rate limit exceeded.', code: 0, status: 429 }, { 'x-rate-limit-limit': '2000', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': '0' }];
    } else if (!valid.has(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '')) {
      answer = error(401, 'Unauthorized', 'Your request was made with invalid credentials.');
    } else {
      const m = /^\/api\/v1\/([a-z]+)$/.exec(req.url.pathname);
      answer = m && req.method === 'GET' && (KINDS as readonly string[]).includes(m[1]!) ? list(m[1] as SwoogoKind, req.url.searchParams) : error(404, 'Not Found', 'Page not found.');
    }
    sendJson(res, answer[0], answer[1], answer[2] ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
