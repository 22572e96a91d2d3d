/**
 * A local fake of GoFundMe Pro's API 2.0 (developers.classy.org), answering the calls Tributary
 * makes as documented: POST /oauth2/auth (client credentials in the form; `{ error, error_description }`
 * for a wrong client), then bearer-token calls to GET /2.0/organizations/{id} and its lists
 * (transactions, recurring-donation-plans, supporters, campaigns, fundraising-pages) as pages
 * `{ total, per_page, current_page, last_page, data }` with `page`, `per_page` (at most 100),
 * `sort=updated_at:asc` and `filter=updated_at>2026-03-01T12:00:00+0000`. An expired or unknown
 * token is 401 `{ error: "invalid_token" }`; a 429 carries Retry-After. Stamps are written as
 * API 2.0 writes them ("2026-03-01T12:00:00+0000"), amounts as decimals.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const GFM = { clientId: 'gfm-client', clientSecret: 'gfm-secret', organizationId: '424242' } as const;
export const GFM_LISTS = ['transactions', 'recurring-donation-plans', 'supporters', 'campaigns', 'fundraising-pages'] as const;
type List = (typeof GFM_LISTS)[number];
type Obj = Record<string, unknown> & { id: number; updated_at: string };

export interface GfmSeen { method: string; path: string; query: URLSearchParams; authorization: string | undefined }

export interface FakeGoFundMePro {
  url: string;
  seen: GfmSeen[];
  lists: Record<List, Obj[]>;
  /** tokens issued so far */
  tokens: string[];
  add(list: List, fields: Record<string, unknown>, updated: Date): Obj;
  /** every token issued so far stops working (expired) */
  expireTokens(): void;
  /** the next `n` list calls answer 429 */
  throttle(n: number): void;
  clear(): void;
  close(): Promise<void>;
}

export const gfmStamp = (d: Date) => `${d.toISOString().slice(0, 19)}+0000`;
const parseStamp = (s: string) => Date.parse(s.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));

export async function startFakeGoFundMePro(): Promise<FakeGoFundMePro> {
  const seen: GfmSeen[] = [];
  const lists = Object.fromEntries(GFM_LISTS.map((l) => [l, []])) as unknown as Record<List, Obj[]>;
  const live = new Set<string>();
  const tokens: string[] = [];
  let throttled = 0;
  let ids = 1000;

  const fake: FakeGoFundMePro = {
    url: '', seen, lists, tokens,
    add(list, fields, updated) {
      const o = { id: ++ids, created_at: gfmStamp(updated), ...fields, updated_at: gfmStamp(updated) } as Obj;
      lists[list].push(o);
      return o;
    },
    expireTokens() { live.clear(); },
    throttle(n) { throttled = n; },
    clear() { for (const l of GFM_LISTS) lists[l].length = 0; seen.length = 0; },
    close: async () => {},
  };

  const server = await startVendorServer((req, res) => {
    const q = req.url.searchParams;
    seen.push({ method: req.method, path: req.url.pathname, query: q, authorization: req.headers.authorization });
    if (req.method === 'POST' && req.url.pathname === '/oauth2/auth') {
      const f = new URLSearchParams(req.raw);
      if (!req.form || f.get('grant_type') !== 'client_credentials') return sendJson(res, 400, { error: 'unsupported_grant_type', error_description: 'The authorization grant type is not supported by the authorization server.' });
      if (f.get('client_id') !== GFM.clientId || f.get('client_secret') !== GFM.clientSecret) return sendJson(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
      const token = `gfm-access-${tokens.length + 1}`;
      tokens.push(token);
      live.add(token);
      return sendJson(res, 200, { access_token: token, token_type: 'bearer', expires_in: 3600 });
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!live.has(token)) return sendJson(res, 401, { error: 'invalid_token' });
    const org = /^\/2\.0\/organizations\/(\d+)(?:\/([a-z-]+))?$/.exec(req.url.pathname);
    if (req.method !== 'GET' || !org) return sendJson(res, 404, { error: 'Not Found' });
    if (org[1] !== GFM.organizationId) return sendJson(res, 404, { error: `Organization with id ${org[1]} not found` });
    if (!org[2]) return sendJson(res, 200, { id: Number(org[1]), name: 'Riverside Food Bank' });
    if (!(GFM_LISTS as readonly string[]).includes(org[2])) return sendJson(res, 404, { error: 'Not Found' });
    if (throttled > 0) { throttled--; return sendJson(res, 429, { error: 'Too Many Requests' }, { 'retry-after': '0' }); }
    const perPage = q.has('per_page') ? Number(q.get('per_page')) : 20;
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) return sendJson(res, 400, { error: { per_page: ['The per page must be between 1 and 100.'] } });
    let rows = [...lists[org[2] as List]];
    const filter = q.get('filter');
    if (filter) {
      const m = /^updated_at>(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000)$/.exec(filter);
      if (!m) return sendJson(res, 400, { error: { filter: [`Invalid filter: ${filter}`] } });
      rows = rows.filter((o) => parseStamp(o.updated_at) > parseStamp(m[1]!));
    }
    if (q.get('sort') === 'updated_at:asc') rows.sort((a, b) => parseStamp(a.updated_at) - parseStamp(b.updated_at) || a.id - b.id);
    const page = Number(q.get('page') ?? 1);
    const last = Math.max(1, Math.ceil(rows.length / perPage));
    sendJson(res, 200, { total: rows.length, per_page: perPage, current_page: page, last_page: last, data: rows.slice((page - 1) * perPage, page * perPage) });
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
