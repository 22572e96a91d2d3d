/**
 * A local fake of Account Engagement (Pardot) API v5 and the Salesforce token endpoint it signs in
 * through, answering as Salesforce documents them (developer.salesforce.com/docs/marketing/pardot):
 * - POST /services/oauth2/token, the username-password flow (client id and secret, password with
 *   the security token appended) or a refresh token Connect saved (REFRESH_TOKEN); `400
 *   invalid_grant` for anything else;
 * - every v5 call needs the bearer token (401 `{ code: 184 }` once expireTokens ended it) and the
 *   `Pardot-Business-Unit-Id` header (401 `{ code: 181 }`);
 * - GET /api/v5/objects/prospects: `fields` required (only those fields answered), `orderBy`,
 *   `updatedAtAfterOrEqualTo`, `updatedAtBefore`, `email`, `limit` (at most 1000), paged by
 *   `nextPageToken` with `nextPageUrl`; GET …/prospects/{id};
 * - GET /api/v5/objects/custom-fields; GET /api/v5/objects/list-memberships (the same query and paging);
 * - POST …/prospects/do/upsertLatestByEmail `{ matchEmail, prospect }`: the most recently updated
 *   prospect with that address, else a new one; an address Pardot cannot use is `400 { code: 30 }`.
 * throttle(n) answers 429 code 66 (too many requests at once); exhaust() answers code 122 (the
 * daily allowance spent).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const PARDOT_SETTINGS = {
  environment: 'production', businessUnitId: '0Uv5g000000ABCDEFG', clientId: '3MVG9-pardot-app', clientSecret: 'pardot-secret',
  username: 'marketing@riverside.org', password: 'pi-pass', securityToken: 'pitoken',
};

/** the refresh token of a Connect grant this fake accepts */
export const PARDOT_REFRESH_TOKEN = '5Aep861-pardot-refresh';

export type PardotProspect = Record<string, unknown> & { id: number; email: string; createdAt: string; updatedAt: string; optedOut: boolean };
export interface PardotMembership { id: number; listId: number; prospectId: number; optedOut: boolean; createdAt: string; updatedAt: string; [k: string]: unknown }
export interface PardotSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakePardot {
  url: string;
  seen: PardotSeen[];
  prospects: Map<number, PardotProspect>;
  memberships: Map<number, PardotMembership>;
  join(prospectId: number, listId: number, updatedAt?: string): PardotMembership;
  add(p: Partial<PardotProspect> & { email: string; updatedAt?: string }): PardotProspect;
  tokensIssued(): number;
  expireTokens(): void;
  throttle(n: number): void;
  exhaust(on: boolean): void;
  close(): Promise<void>;
}

const STANDARD = ['id', 'email', 'salutation', 'firstName', 'lastName', 'company', 'jobTitle', 'phone', 'addressOne', 'addressTwo', 'city', 'state', 'zip',
  'country', 'website', 'source', 'comments', 'optedOut', 'score', 'grade', 'createdAt', 'updatedAt'];
const CUSTOM = [{ id: 7001, name: 'Volunteer interest', fieldId: 'Volunteer_Interest', type: 'Text' }];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

export async function startFakePardot(): Promise<FakePardot> {
  const seen: PardotSeen[] = [];
  const prospects = new Map<number, PardotProspect>();
  const memberships = new Map<number, PardotMembership>();
  let nextMembership = 900_001;
  const tokens = new Set<string>();
  let issued = 0;
  let nextId = 5_000_001;
  let throttled = 0;
  let exhausted = false;
  let clock = Date.parse('2026-01-05T09:00:00Z');
  const stamp = () => new Date((clock = Math.max(clock + 1000, Date.now()))).toISOString();
  type Row = Record<string, unknown> & { id: number; updatedAt: string };
  const pages = new Map<string, { list: Row[]; offset: number; limit: number; fields: string[]; path: string }>();

  const fake: FakePardot = {
    url: '', seen, prospects, memberships,
    join(prospectId, listId, updatedAt) {
      const at = updatedAt ?? stamp();
      const m: PardotMembership = { id: nextMembership++, listId, prospectId, optedOut: false, createdAt: at, updatedAt: at };
      memberships.set(m.id, m);
      return m;
    },
    add(p) {
      const at = p.updatedAt ?? stamp();
      const prospect = { optedOut: false, ...p, id: nextId++, createdAt: at, updatedAt: at } as PardotProspect;
      prospects.set(prospect.id, prospect);
      return prospect;
    },
    tokensIssued: () => issued,
    expireTokens: () => tokens.clear(),
    throttle(n) { throttled = n; },
    exhaust(on) { exhausted = on; },
    close: async () => {},
  };

  const known = new Set([...STANDARD, ...CUSTOM.map((c) => `${c.fieldId}__c`)]);
  const pick = (p: Row, fields: string[]) => Object.fromEntries(fields.map((f) => [f, p[f] ?? null]));
  const page = (state: { list: Row[]; offset: number; limit: number; fields: string[]; path: string }): [number, unknown] => {
    const values = state.list.slice(state.offset, state.offset + state.limit).map((p) => pick(p, state.fields));
    let nextPageToken: string | null = null;
    if (state.offset + state.limit < state.list.length) {
      nextPageToken = randomUUID();
      pages.set(nextPageToken, { ...state, offset: state.offset + state.limit });
    }
    return [200, { values, nextPageToken, nextPageUrl: nextPageToken ? `https://pi.pardot.com${state.path}?nextPageToken=${nextPageToken}` : null }];
  };

  function route(method: string, path: string, q: URLSearchParams, body: Record<string, unknown>): [number, unknown] | null {
    if (method === 'GET' && path === '/api/v5/objects/custom-fields') return [200, { values: CUSTOM, nextPageToken: null, nextPageUrl: null }];
    if (method === 'GET' && (path === '/api/v5/objects/prospects' || path === '/api/v5/objects/list-memberships')) {
      const isProspects = path.endsWith('/prospects');
      const allowed = isProspects ? known : new Set(['id', 'listId', 'prospectId', 'optedOut', 'createdAt', 'updatedAt']);
      const token = q.get('nextPageToken');
      if (token) {
        const state = pages.get(token);
        return state ? page(state) : [400, { code: 24, message: 'Invalid nextPageToken' }];
      }
      const fields = (q.get('fields') ?? '').split(',').filter(Boolean);
      if (!fields.length) return [400, { code: 63, message: 'Missing required parameter: fields' }];
      const unknown = fields.filter((f) => !allowed.has(f));
      if (unknown.length) return [400, { code: 64, message: `Invalid field: ${unknown[0]}` }];
      const limit = Number(q.get('limit') ?? 200);
      if (limit > 1000) return [400, { code: 65, message: 'The limit must be at most 1000.' }];
      let list: Row[] = isProspects ? [...prospects.values()] : [...memberships.values()];
      const after = q.get('updatedAtAfterOrEqualTo');
      const before = q.get('updatedAtBefore');
      const email = q.get('email');
      if (after) list = list.filter((p) => Date.parse(p.updatedAt) >= Date.parse(after));
      if (before) list = list.filter((p) => Date.parse(p.updatedAt) < Date.parse(before));
      if (email) list = list.filter((p) => String(p.email).toLowerCase() === email.toLowerCase());
      const order = q.get('orderBy') ?? 'id';
      const desc = / desc$/i.test(order);
      const by = order.replace(/ (asc|desc)$/i, '');
      list.sort((a, b) => (by === 'updatedAt' ? Date.parse(a.updatedAt) - Date.parse(b.updatedAt) || a.id - b.id : a.id - b.id) * (desc ? -1 : 1));
      return page({ list, offset: 0, limit, fields, path });
    }
    const m = /^\/api\/v5\/objects\/prospects\/(\d+)$/.exec(path);
    if (method === 'GET' && m) {
      const p = prospects.get(Number(m[1]));
      return p ? [200, pick(p, (q.get('fields') ?? 'id').split(','))] : [404, { code: 404, message: 'Not Found' }];
    }
    if (method === 'POST' && path === '/api/v5/objects/prospects/do/upsertLatestByEmail') {
      const matchEmail = typeof body.matchEmail === 'string' ? body.matchEmail : '';
      const given = (body.prospect ?? {}) as Record<string, unknown>;
      if (!EMAIL.test(matchEmail)) return [400, { code: 30, message: `Invalid prospect email address: ${matchEmail}` }];
      const unknown = Object.keys(given).filter((k) => !known.has(k) || ['id', 'createdAt', 'updatedAt', 'score', 'grade'].includes(k));
      if (unknown.length) return [400, { code: 64, message: `Invalid field: ${unknown[0]}` }];
      const latest = [...prospects.values()].filter((p) => p.email.toLowerCase() === matchEmail.toLowerCase()).sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt))[0];
      let p: PardotProspect;
      if (latest) { Object.assign(latest, given); latest.updatedAt = stamp(); p = latest; }
      else p = fake.add({ ...given, email: matchEmail } as PardotProspect);
      return [200, pick(p, (q.get('fields') ?? 'id').split(','))];
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    const path = req.url.pathname;
    seen.push({ method: req.method, path, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    if (req.method === 'POST' && path === '/services/oauth2/token') {
      const f = new URLSearchParams(req.raw);
      const s = PARDOT_SETTINGS;
      if (f.get('client_id') !== s.clientId || f.get('client_secret') !== s.clientSecret) return sendJson(res, 400, { error: 'invalid_client_id', error_description: 'client identifier invalid' });
      const byPassword = f.get('grant_type') === 'password' && f.get('username') === s.username && f.get('password') === `${s.password}${s.securityToken}`;
      const byRefresh = f.get('grant_type') === 'refresh_token' && f.get('refresh_token') === PARDOT_REFRESH_TOKEN;
      if (!byPassword && !byRefresh) {
        return sendJson(res, 400, { error: 'invalid_grant', error_description: 'authentication failure' });
      }
      const token = `pi-access-${++issued}`;
      tokens.add(token);
      return sendJson(res, 200, { access_token: token, instance_url: 'https://riverside.my.salesforce.com', token_type: 'Bearer', issued_at: String(Date.now()) });
    }
    if (!tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return sendJson(res, 401, { code: 184, message: 'Access token is invalid, unknown, or malformed: Inactive token' });
    if (req.headers['pardot-business-unit-id'] !== PARDOT_SETTINGS.businessUnitId) return sendJson(res, 401, { code: 181, message: 'Invalid Business Unit ID' });
    if (exhausted) return sendJson(res, 429, { code: 122, message: 'Daily API rate limit met.' });
    if (throttled > 0) { throttled--; return sendJson(res, 429, { code: 66, message: 'Exceeded concurrent request limit.' }); }
    const answer = route(req.method, path, req.url.searchParams, (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>)
      ?? [404, { code: 404, message: 'Not Found' }];
    sendJson(res, answer[0], answer[1]);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
