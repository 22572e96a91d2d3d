/**
 * A local fake of Luminate Online's server API at `/riverside/site`, answering the calls Tributary
 * makes as Luminate documents them: a form POST to `SRConsAPI` or `SRDonationAPI` with `method`,
 * `api_key`, `v=1.0`, `response_format=json`, `login_name` and `login_password` in the body (in the
 * query they are refused). SRConsAPI: listUserFields, getUser (`cons_id` or `primary_email`),
 * createOrUpdate (by `cons_id`: updates, never creates; by `primary_email`: updates the one found or
 * creates) and getUserChanges (`modify_start_date` inclusive, `modify_end_date` exclusive,
 * `list_page_size`, `list_page_offset` a page number, ascending by modify_date); SRDonationAPI:
 * getDonations alike, each donation with its donor. Errors are HTTP 403 with `{ errorResponse: {
 * code, message } }`; one item of a list is answered as an object, as Luminate's JSON does. Point
 * Tributary at it with CONNECTOR_BASE_URL_LUMINATE_ONLINE, the settings' URL ending in /riverside/site.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const LUMINATE_SITE = '/riverside/site';
export const LUMINATE_SETTINGS = { apiKey: 'lo-fake-api-key', loginName: 'tributary-api', loginPassword: 'lo-fake-password' };

type Obj = Record<string, unknown>;
export interface LuminateUser extends Obj { cons_id: string; modify_date: string }
export interface LuminateSeen { servlet: string; method: string; params: URLSearchParams; query: URLSearchParams }

export interface FakeLuminate {
  url: string;
  seen: LuminateSeen[];
  users: Map<string, LuminateUser>;
  donations: Obj[];
  user(u: { first?: string; last?: string; email: string; optIn?: boolean; city?: string; custom?: string }): LuminateUser;
  /** changes a constituent's fields (dot names), as an edit in Luminate would: its modify_date moves */
  edit(consId: string, change: Record<string, string>): void;
  donation(consId: string, amount: number): Obj;
  /** the next `n` calls answer `status` (429 or 503) with Retry-After: 0 */
  throttle(n: number, status?: number): void;
  clear(): void;
  close(): Promise<void>;
}

const FIELDS = [
  { name: 'cons_id', label: 'Constituent ID', valueType: 'TEXT' },
  { name: 'name.first', label: 'First Name', valueType: 'TEXT' },
  { name: 'name.last', label: 'Last Name', valueType: 'TEXT', required: 'true' },
  { name: 'email.primary_address', label: 'Email', valueType: 'EMAIL' },
  { name: 'email.accepts_email', label: 'Accepts Email', valueType: 'BOOLEAN' },
  { name: 'primary_address.city', label: 'City', valueType: 'TEXT' },
  { name: 'custom_string1', label: 'Chapter', valueType: 'TEXT' },
];

const error = (code: string, message: string): [number, Obj] => [403, { errorResponse: { code, message } }];
/** Luminate's JSON: a list of one is one object */
const listOf = (items: Obj[]) => (items.length === 1 ? items[0] : items);

function setPath(o: Obj, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = o;
  for (const k of keys.slice(0, -1)) at = (at[k] ??= {}) as Obj;
  at[keys.at(-1)!] = value;
}

export async function startFakeLuminate(): Promise<FakeLuminate> {
  const seen: LuminateSeen[] = [];
  const users = new Map<string, LuminateUser>();
  const donations: Obj[] = [];
  let clock = Date.parse('2026-03-01T12:00:00Z');
  let nextId = 1001;
  let throttled = 0;
  let throttleStatus = 429;
  // Luminate writes dates in the site's zone
  const now = () => new Date((clock += 60_000) - 6 * 3_600_000).toISOString().replace('Z', '-06:00');
  const byEmail = (email: string) => [...users.values()].find((u) => String((u.email as Obj).primary_address).toLowerCase() === email.toLowerCase());
  const toMs = (d: string) => Date.parse(d);

  function apply(u: LuminateUser, params: URLSearchParams) {
    for (const [k, v] of params) {
      if (['method', 'v', 'response_format', 'api_key', 'login_name', 'login_password', 'cons_id', 'primary_email'].includes(k)) continue;
      if (k.startsWith('custom_')) {
        const list = ((u.custom as Obj).string as Obj[]);
        const c = list.find((x) => x.id === k);
        if (c) c.content = v; else list.push({ id: k, content: v });
      } else setPath(u, k, k === 'email.accepts_email' ? v === 'true' : v);
    }
    u.modify_date = now();
  }

  function listing(items: Obj[], params: URLSearchParams): Obj[] {
    const from = params.get('modify_start_date');
    const to = params.get('modify_end_date');
    const size = Number(params.get('list_page_size') ?? 25);
    const page = Number(params.get('list_page_offset') ?? 0);
    const sorted = items
      .filter((i) => (!from || toMs(i.modify_date as string) >= toMs(from)) && (!to || toMs(i.modify_date as string) < toMs(to)))
      .sort((a, b) => toMs(a.modify_date as string) - toMs(b.modify_date as string));
    return sorted.slice(page * size, page * size + size);
  }

  function answer(servlet: string, p: URLSearchParams): [number, unknown] {
    const method = p.get('method') ?? '';
    if (servlet === 'SRConsAPI' && method === 'listUserFields') return [200, { listUserFieldsResponse: { field: FIELDS } }];
    if (servlet === 'SRConsAPI' && method === 'getUser') {
      const u = p.get('cons_id') ? users.get(p.get('cons_id')!) : byEmail(p.get('primary_email') ?? '');
      return u ? [200, { getConsResponse: u }] : error('16', 'Cannot access the user because no records match the search criteria.');
    }
    if (servlet === 'SRConsAPI' && method === 'getUserChanges') {
      return [200, { getUserChangesResponse: { user: listOf(listing([...users.values()], p)), total_number: users.size } }];
    }
    if (servlet === 'SRDonationAPI' && method === 'getDonations') {
      return [200, { getDonationsResponse: { donation: listOf(listing(donations, p)), total_number: donations.length } }];
    }
    if (servlet === 'SRConsAPI' && method === 'createOrUpdate') {
      const consId = p.get('cons_id');
      const email = p.get('primary_email') ?? '';
      if (email && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return error('1', `Invalid email address: ${email}`);
      let u = consId ? users.get(consId) : email ? byEmail(email) : undefined;
      if (consId && !u) return error('16', 'Cannot access the user because no records match the search criteria.');
      if (!u && !email) return error('9', 'One or more required parameters were missing from the request.');
      const created = !u;
      if (!u) {
        u = { cons_id: String(nextId++), name: {}, email: { primary_address: email, accepts_email: true }, primary_address: {}, custom: { string: [] }, creation_date: now(), modify_date: '' };
        users.set(u.cons_id, u);
      } else if (email) (u.email as Obj).primary_address = email;
      apply(u, p);
      return [200, { createOrUpdateConsResponse: { cons_id: u.cons_id, message: created ? 'User created.' : 'User updated.' } }];
    }
    return error('6', `No method specified or the method specified is invalid: ${method}.`);
  }

  const server = await startVendorServer((req, res) => {
    const m = /^\/riverside\/site\/(SRConsAPI|SRDonationAPI)$/.exec(req.url.pathname);
    const params = new URLSearchParams(req.form ? req.raw : '');
    seen.push({ servlet: m?.[1] ?? req.url.pathname, method: params.get('method') ?? '', params, query: req.url.searchParams });
    if (throttled > 0) { throttled--; return sendJson(res, throttleStatus, { errorResponse: { code: '1', message: 'Too many requests.' } }, { 'retry-after': '0' }); }
    if (req.method !== 'POST' || !m) return sendJson(res, 404, { errorResponse: { code: '1', message: 'Not found' } });
    if (req.url.searchParams.has('login_password') || req.url.searchParams.has('api_key')) return sendJson(res, 400, { errorResponse: { code: '1', message: 'credentials belong in the body' } });
    if (params.get('v') !== '1.0' || params.get('response_format') !== 'json') return sendJson(res, ...error('9', 'The v parameter must be 1.0.'));
    if (params.get('api_key') !== LUMINATE_SETTINGS.apiKey) return sendJson(res, ...error('2', 'Incorrect API key.'));
    if (params.get('login_name') !== LUMINATE_SETTINGS.loginName || params.get('login_password') !== LUMINATE_SETTINGS.loginPassword) {
      return sendJson(res, ...error('3', 'Login failed: the user name or password is incorrect.'));
    }
    const [status, body] = answer(m[1]!, params);
    return sendJson(res, status, body);
  });

  return {
    url: server.url, seen, users, donations,
    user(u) {
      const user: LuminateUser = {
        cons_id: String(nextId++), name: { first: u.first ?? null, last: u.last ?? null },
        email: { primary_address: u.email, accepts_email: u.optIn ?? true }, primary_address: { city: u.city ?? null },
        custom: { string: u.custom ? [{ id: 'custom_string1', content: u.custom }] : [] }, creation_date: now(), modify_date: '',
      };
      user.modify_date = user.creation_date as string;
      users.set(user.cons_id, user);
      return user;
    },
    edit(consId, change) {
      const u = users.get(consId)!;
      for (const [k, v] of Object.entries(change)) setPath(u, k, v);
      u.modify_date = now();
    },
    donation(consId, amount) {
      const u = users.get(consId)!;
      const date = now();
      const d = {
        transaction_id: String(5000 + donations.length), payment_date: date, modify_date: date, amount: { decimal: amount.toFixed(2), formatted: `$${amount.toFixed(2)}` },
        form_id: '1201', form_name: 'Spring appeal', tender_type: 'CREDIT_CARD', recurring: 'false',
        donor: { cons_id: u.cons_id, name: u.name, email: (u.email as Obj).primary_address },
      };
      donations.push(d);
      return d;
    },
    throttle(n, status = 429) { throttled = n; throttleStatus = status; },
    clear() { seen.length = 0; users.clear(); donations.length = 0; throttled = 0; },
    close: () => server.close(),
  };
}
