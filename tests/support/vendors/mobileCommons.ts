/**
 * A local fake of the Mobile Commons REST API, answering the endpoints Tributary calls as Mobile
 * Commons documents them (mobilecommons.zendesk.com REST API): HTTP Basic with the user's e-mail
 * and password; every answer XML, `<response success="true">…` or `<response success="false"><error
 * id=".." message=".."/></response>` with HTTP 200 (a refused login is error 1); GET /api/campaigns;
 * GET /api/profiles with `from` and `to` (updated in that window), `page` (from 1) and `limit`; GET
 * /api/profile?phone_number= (error 5 "Invalid phone number" when no profile has it); POST
 * /api/profile_update (a form: creates or updates the profile of the phone number; custom columns
 * by name; an invalid e-mail is refused). A throttled call answers 429 with Retry-After. Point
 * Tributary at it with CONNECTOR_BASE_URL_MOBILE_COMMONS.
 */
import type http from 'node:http';
import { startVendorServer } from './harness.ts';

export const MC_LOGIN = { username: 'sms@riverside.org', password: 'mc-pass' };

export interface McProfile {
  id: number; phone: string; email?: string; firstName?: string; lastName?: string; city?: string; postalCode?: string;
  custom: Record<string, string>; status: string; optInPaths: string[]; createdAt: number; updatedAt: number;
}
export interface MobileSeen { method: string; path: string; query: Record<string, string>; form: Record<string, string>; headers: http.IncomingHttpHeaders }

export interface FakeMobileCommons {
  url: string;
  seen: MobileSeen[];
  profiles: Map<number, McProfile>;
  add(p: { phone: string; email?: string; firstName?: string; lastName?: string; city?: string; custom?: Record<string, string>; updatedAt?: Date; status?: string }): McProfile;
  throttle(n: number, seconds?: number): void;
  close(): Promise<void>;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const mcTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
const ok = (inner: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<response success="true">${inner}</response>`;
const fail = (id: number, message: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<response success="false"><error id="${id}" message="${esc(message)}"/></response>`;
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;
const digits = (v: string) => { const d = v.replace(/\D/g, ''); return d.length === 10 ? `1${d}` : d; };

export async function startFakeMobileCommons(): Promise<FakeMobileCommons> {
  const seen: MobileSeen[] = [];
  const profiles = new Map<number, McProfile>();
  let nextId = 340_001;
  let throttled = 0;
  let throttleSeconds = 1;
  let clock = 0;
  const stamp = () => (clock = Math.max(clock + 1000, Date.now()));

  const fake: FakeMobileCommons = {
    url: '', seen, profiles,
    add(p) {
      const at = p.updatedAt?.getTime() ?? stamp();
      const made: McProfile = {
        id: nextId++, phone: digits(p.phone), email: p.email, firstName: p.firstName, lastName: p.lastName, city: p.city, custom: { ...p.custom },
        status: p.status ?? 'Active Subscriber', optInPaths: [], createdAt: at, updatedAt: at,
      };
      profiles.set(made.id, made);
      return made;
    },
    throttle(n, seconds = 1) { throttled = n; throttleSeconds = seconds; },
    close: async () => {},
  };

  const profileXml = (p: McProfile) => `<profile id="${p.id}">`
    + `<first_name>${esc(p.firstName ?? '')}</first_name><last_name>${esc(p.lastName ?? '')}</last_name>`
    + `<phone_number>${p.phone}</phone_number><email>${esc(p.email ?? '')}</email><status>${esc(p.status)}</status>`
    + `<created_at>${mcTime(p.createdAt)}</created_at><updated_at>${mcTime(p.updatedAt)}</updated_at><opted_out_at></opted_out_at>`
    + `<source type="Keyword" id="1" name="JOIN"/>`
    + `<address><street1></street1><street2></street2><city>${esc(p.city ?? '')}</city><state></state><postal_code>${esc(p.postalCode ?? '')}</postal_code><country>US</country></address>`
    + `<custom_columns>${Object.entries(p.custom).map(([k, v]) => `<custom_column name="${esc(k)}">${esc(v)}</custom_column>`).join('')}</custom_columns>`
    + `<subscriptions></subscriptions></profile>`;
  const byPhone = (phone: string) => [...profiles.values()].find((p) => p.phone === digits(phone));

  function route(method: string, path: string, q: URLSearchParams, form: URLSearchParams): string | null {
    if (method === 'GET' && path === '/api/campaigns') return ok('<campaigns><campaign id="1" active="true"><name>Riverside SMS</name></campaign></campaigns>');
    if (method === 'GET' && path === '/api/profiles') {
      const from = q.get('from') ? Date.parse(q.get('from')!) : -Infinity;
      const to = q.get('to') ? Date.parse(q.get('to')!) : Infinity;
      if (Number.isNaN(from) || Number.isNaN(to)) return fail(3, 'Invalid date');
      const page = Math.max(1, Number(q.get('page') ?? 1));
      const limit = Math.min(1000, Number(q.get('limit') ?? 1000));
      const list = [...profiles.values()].filter((p) => p.updatedAt >= from && p.updatedAt <= to).sort((a, b) => a.id - b.id);
      const slice = list.slice((page - 1) * limit, page * limit);
      return ok(`<profiles num="${slice.length}" page="${page}">${slice.map(profileXml).join('')}</profiles>`);
    }
    if (method === 'GET' && path === '/api/profile') {
      const p = byPhone(q.get('phone_number') ?? '');
      return p ? ok(profileXml(p)) : fail(5, 'Invalid phone number');
    }
    if (method === 'POST' && path === '/api/profile_update') {
      const phone = form.get('phone_number') ?? '';
      if (digits(phone).length < 11) return fail(5, 'Invalid phone number');
      const email = form.get('email');
      if (email && !EMAIL.test(email)) return fail(7, `Invalid email address: ${email}`);
      const p = byPhone(phone) ?? fake.add({ phone });
      const set: Record<string, (v: string) => void> = {
        email: (v) => { p.email = v; }, first_name: (v) => { p.firstName = v; }, last_name: (v) => { p.lastName = v; },
        city: (v) => { p.city = v; }, postal_code: (v) => { p.postalCode = v; }, opt_in_path_id: (v) => { p.optInPaths.push(v); },
      };
      for (const [k, v] of form) {
        if (k === 'phone_number' || k === 'company') continue;
        if (set[k]) set[k]!(v); else p.custom[k] = v;
      }
      p.updatedAt = stamp();
      return ok(profileXml(p));
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    const form = new URLSearchParams(req.form ? req.raw : '');
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), form: Object.fromEntries(form), headers: req.headers });
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [user, ...rest] = auth ? Buffer.from(auth, 'base64').toString('utf8').split(':') : [];
    if (throttled > 0 && user) {
      throttled--;
      res.writeHead(429, { 'content-type': 'text/xml', 'retry-after': String(throttleSeconds) });
      res.end(fail(429, 'Too many requests'));
      return;
    }
    const body = user !== MC_LOGIN.username || rest.join(':') !== MC_LOGIN.password
      ? fail(1, 'Invalid username or password')
      : route(req.method, req.url.pathname, req.url.searchParams, form);
    if (body === null) { res.writeHead(404, { 'content-type': 'text/html' }); res.end('<html><body>Not Found</body></html>'); return; }
    res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
    res.end(body);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
