/**
 * A local fake of Blackbaud's SKY API for Raiser's Edge NXT, answering the endpoints Tributary
 * calls as Blackbaud documents them: the authorization code flow with PKCE (a consent page at
 * GET /oauth/authorize, where the user authorizes or cancels, then back to redirect_uri; the code
 * redeemed at POST /token, checked as tests/support/vendors/oauthServer.ts checks it), the OAuth
 * token endpoint (HTTP Basic application credentials, refresh tokens rotated on each use unless
 * `preserve_refresh_token=true`, `invalid_grant` for a revoked one, access tokens that expire
 * after `expires_in`), and the
 * constituent and gift APIs (the `Bb-Api-Subscription-Key` header on every call; lists as
 * `{ count, value, next_link }` with `limit`/`offset` and `date_modified`/`last_modified`;
 * constituent search; child records for e-mail addresses, phones and addresses; the Fundraising
 * API's lists of funds, campaigns and appeals, active ones unless `include_inactive=true`, which a
 * gift split's ids must name; error bodies as
 * a list of `{ message, error_name }`; 429 with Retry-After; a spent daily quota as 403 with
 * Retry-After). Point Tributary at it with CONNECTOR_BASE_URL_RENXT. Financial Edge NXT's General
 * Ledger API answers on the same host (tests/support/vendors/fenxt.ts).
 */
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';
import { codeGrants, type ConsentState } from './oauthServer.ts';

export const SKY_APP = { clientId: 'sky-app-id', clientSecret: 'sky-app-secret', subscriptionKey: 'sky-sub-key' };

interface Email { id: string; constituent_id: string; address: string; type: string; primary: boolean; inactive: boolean; do_not_email: boolean; date_modified: string }
interface Phone { id: string; constituent_id: string; number: string; type: string; primary: boolean; inactive: boolean; do_not_call: boolean; date_modified: string }
interface Address {
  id: string; constituent_id: string; address_lines: string; city?: string; state?: string; postal_code?: string; country?: string;
  type: string; preferred: boolean; inactive: boolean; formatted_address: string; date_modified: string;
}
export interface FakeConstituent {
  id: string; lookup_id: string; type: 'Individual' | 'Organization'; first?: string; last: string; middle?: string; title?: string;
  preferred_name?: string; name: string; date_added: string; date_modified: string; inactive: boolean; deceased: boolean;
}
export interface FakeGift {
  id: string; lookup_id?: string; constituent_id: string; amount: { value: number }; date: string; type: string;
  gift_splits: { id: string; amount: { value: number }; fund_id: string; campaign_id?: string; appeal_id?: string }[];
  payments: { payment_method: string }[]; batch_prefix?: string; batch_number?: string; date_added: string; date_modified: string;
}

/** a fund, campaign or appeal as the Fundraising API lists it: `description` is its name */
export interface FakeDesignation { id: string; description: string; lookup_id: string; inactive: boolean; date_added: string; date_modified: string }

export interface SkySeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeSkyApi {
  url: string;
  /** every authorize request the consent page answered (with the user's decision), its parameters */
  authorizeRequests: Record<string, string>[];
  /** every request, in order */
  seen: SkySeen[];
  constituents: Map<string, FakeConstituent>;
  emails: Email[];
  phones: Phone[];
  addresses: Address[];
  gifts: Map<string, FakeGift>;
  constituentCodes: { constituent_id: string; description: string }[];
  customFieldCategories: { name: string; type: string }[];
  customFields: { id: string; parent_id: string; category: string; value: string }[];
  /** the environment's funds, campaigns and appeals (a fund 12 "Annual Fund", a campaign 3 "Spring 2026", an appeal 7 "Spring mailing", and a few more) */
  funds: FakeDesignation[];
  campaigns: FakeDesignation[];
  appeals: FakeDesignation[];
  /** the refresh token the token endpoint accepts now (it rotates) */
  refreshToken(): string;
  /** a refresh token for a new grant (as a consent gives), which the fake accepts from now on */
  grant(): string;
  /** the grant is revoked: every refresh answers invalid_grant */
  revoke(): void;
  /** refreshes served */
  refreshes(): number;
  /** seconds each access token lives (3600 by default, as SKY API's do) */
  tokenLifetime: number;
  /** access tokens the fake stops accepting before their time (an early expiry) */
  expireTokens(): void;
  /** the next `n` API calls answer 429 with Retry-After `seconds` */
  throttle(n: number, seconds?: number): void;
  /** the next `n` API calls answer 500 */
  failNext(n: number): void;
  /** the daily quota is spent for `seconds` more: 403 with Retry-After */
  spendQuota(seconds: number): void;
  /** a token refresh waits this long before answering (to overlap two workers' refreshes) */
  tokenDelayMs: number;
  /** every API call waits this long before answering (a send slow enough to be interrupted) */
  apiDelayMs: number;
  /** adds a constituent as if entered in Raiser's Edge NXT */
  addConstituent(c: { first?: string; last: string; email?: string; phone?: string; address?: Partial<Address>; lookup_id?: string; date_modified?: string }): FakeConstituent;
  addGift(g: { constituent_id: string; amount: number; date: string; fund_id?: string; campaign_id?: string; appeal_id?: string; date_modified?: string }): FakeGift;
  /** a constituent as the API's GET answers it (primary e-mail, phone and preferred address) */
  view(id: string): Record<string, unknown> | null;
  close(): Promise<void>;
}

export type Answer = [number, unknown, Record<string, string>?];

/** A product's own endpoints on the same fake SKY API host (tests/support/vendors/fenxt.ts: the General Ledger API). */
export type SkyProductApi = (method: string, path: string, q: URLSearchParams, body: Record<string, unknown>) => Answer | undefined;

const iso = (d = new Date()) => d.toISOString();
/** SKY API's error body: a list of `{ message, error_name, error_code, raw_message }` */
export const error = (status: number, message: string, name = 'InvalidRequest'): Answer => [status, [{ message, error_name: name, error_code: status, raw_message: message }]];

/**
 * A SKY list page: `{ count, value, next_link }` from `limit` (at most `max`) and `offset`, the
 * next link keeping the request's other parameters.
 */
export function skyPage<T>(all: T[], q: URLSearchParams, path: string, max = 5000, byDefault = 500): Answer {
  const asked = q.get('limit');
  if (asked !== null && !(Number(asked) >= 1 && Number(asked) <= max)) return error(400, `The limit must be between 1 and ${max}.`, 'InvalidParameter');
  const limit = Number(asked ?? byDefault);
  const offset = Number(q.get('offset') ?? 0) || 0;
  const value = all.slice(offset, offset + limit);
  const next = offset + limit < all.length ? new URLSearchParams(q) : null;
  next?.set('offset', String(offset + limit));
  next?.set('limit', String(limit));
  return [200, { count: all.length, value, ...(next ? { next_link: `https://api.sky.blackbaud.com${path}?${next.toString()}` } : {}) }];
}

/**
 * The fake SKY API host; `product` answers a product's own endpoints beside Raiser's Edge NXT's,
 * and `system` is the product whose application signs in at the token endpoint.
 */
export async function startFakeSkyApi(opts: { system?: 'renxt' | 'fenxt'; product?: SkyProductApi } = {}): Promise<FakeSkyApi> {
  const system = opts.system ?? 'renxt';
  const seen: SkySeen[] = [];
  const constituents = new Map<string, FakeConstituent>();
  const emails: Email[] = [];
  const phones: Phone[] = [];
  const addresses: Address[] = [];
  const gifts = new Map<string, FakeGift>();
  const constituentCodes: { constituent_id: string; description: string }[] = [];
  const customFields: { id: string; parent_id: string; category: string; value: string }[] = [];
  const customFieldCategories = [{ name: 'Volunteer interest', type: 'Text' }, { name: 'First gift source', type: 'CodeTable' }];
  const designation = (id: string, description: string, lookup_id: string, inactive = false): FakeDesignation =>
    ({ id, description, lookup_id, inactive, date_added: '2024-01-15T10:00:00+00:00', date_modified: '2025-06-01T09:30:00+00:00' });
  const funds = [
    designation('12', 'Annual Fund', 'ANNUAL'), designation('13', 'Building Fund', 'BUILDING'), designation('14', 'Food Pantry', 'PANTRY'),
    designation('15', 'Capital Campaign 2019', 'CAP2019', true),
  ];
  const campaigns = [designation('3', 'Spring 2026', 'SPRING26'), designation('4', 'Annual Giving', 'ANNUAL')];
  const appeals = [designation('7', 'Spring mailing', 'SPRMAIL'), designation('8', 'Year-end letter', 'YEAREND')];
  let nextId = 280;
  const newId = () => String(nextId++);
  let refresh = 'sky-refresh-1';
  let generation = 1;
  let revoked = false;
  let refreshCount = 0;
  const access = new Map<string, number>(); // token -> expiry (ms)
  let throttled = 0;
  let throttleSeconds = 1;
  let failing = 0;
  let quotaUntil = 0;
  let clock = Date.parse('2026-11-01T00:00:00Z');
  // date_modified moves forward with every change, as the vendor's does
  // (strictly: two changes within one millisecond of the real clock still get different times)
  const tick = () => { clock = Math.max(clock + 1000, Date.now()); return iso(new Date(clock)); };

  const nameOf = (c: Pick<FakeConstituent, 'first' | 'last' | 'title'>) => [c.first, c.last].filter(Boolean).join(' ');
  const formatted = (a: Partial<Address>) => [a.address_lines, [a.city, a.state, a.postal_code].filter(Boolean).join(' '), a.country].filter(Boolean).join('\r\n');

  const view = (id: string): Record<string, unknown> | null => {
    const c = constituents.get(id);
    if (!c) return null;
    const email = emails.find((e) => e.constituent_id === id && e.primary && !e.inactive);
    const phone = phones.find((p) => p.constituent_id === id && p.primary && !p.inactive);
    const address = addresses.find((a) => a.constituent_id === id && a.preferred && !a.inactive);
    return {
      ...c,
      ...(email ? { email: { id: email.id, address: email.address, type: email.type, primary: true, do_not_email: email.do_not_email, inactive: false } } : {}),
      ...(phone ? { phone: { id: phone.id, number: phone.number, type: phone.type, primary: true, do_not_call: phone.do_not_call, inactive: false } } : {}),
      ...(address ? { address: { ...address } } : {}),
    };
  };

  const addEmail = (constituentId: string, address: string, type = 'Email', primary = true) => {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(address)) return null;
    if (primary) for (const e of emails) if (e.constituent_id === constituentId) e.primary = false;
    const e: Email = { id: newId(), constituent_id: constituentId, address, type, primary, inactive: false, do_not_email: false, date_modified: tick() };
    emails.push(e);
    return e;
  };
  const addPhone = (constituentId: string, number: string, type = 'Home', primary = true) => {
    if (primary) for (const p of phones) if (p.constituent_id === constituentId) p.primary = false;
    const p: Phone = { id: newId(), constituent_id: constituentId, number, type, primary, inactive: false, do_not_call: false, date_modified: tick() };
    phones.push(p);
    return p;
  };
  const addAddress = (constituentId: string, a: Partial<Address>) => {
    if (a.preferred !== false) for (const x of addresses) if (x.constituent_id === constituentId) x.preferred = false;
    const row: Address = {
      id: newId(), constituent_id: constituentId, address_lines: a.address_lines ?? '', city: a.city, state: a.state, postal_code: a.postal_code,
      country: a.country ?? 'United States', type: a.type ?? 'Home', preferred: a.preferred !== false, inactive: false, formatted_address: '', date_modified: tick(),
    };
    row.formatted_address = formatted(row);
    addresses.push(row);
    return row;
  };
  const touch = (id: string) => { const c = constituents.get(id); if (c) c.date_modified = tick(); };

  const createConstituent = (body: Record<string, unknown>): Answer => {
    const last = typeof body.last === 'string' ? body.last.trim() : '';
    const type = body.type === 'Organization' ? 'Organization' : 'Individual';
    if (type === 'Individual' && !last) return error(400, 'Last name is required for individuals.', 'MissingLastName');
    const email = body.email as { address?: string; type?: string } | undefined;
    if (email?.address && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email.address)) return error(400, `The email address '${email.address}' is not valid.`, 'InvalidEmailAddress');
    const id = newId();
    const now = tick();
    const c: FakeConstituent = {
      id, lookup_id: typeof body.lookup_id === 'string' && body.lookup_id ? body.lookup_id : String(1000 + Number(id)), type,
      ...(typeof body.first === 'string' ? { first: body.first } : {}), last,
      ...(typeof body.title === 'string' ? { title: body.title } : {}),
      ...(typeof body.middle === 'string' ? { middle: body.middle } : {}),
      ...(typeof body.preferred_name === 'string' ? { preferred_name: body.preferred_name } : {}),
      name: '', date_added: now, date_modified: now, inactive: false, deceased: false,
    };
    c.name = nameOf(c);
    constituents.set(id, c);
    if (email?.address) addEmail(id, email.address, email.type ?? 'Email');
    const phone = body.phone as { number?: string; type?: string } | undefined;
    if (phone?.number) addPhone(id, phone.number, phone.type ?? 'Home');
    const address = body.address as Partial<Address> | undefined;
    if (address && (address.address_lines || address.city || address.postal_code)) addAddress(id, address);
    return [200, { id }];
  };

  const page = <T>(all: T[], q: URLSearchParams, path: string): Answer => skyPage(all, q, path);

  const api = (method: string, path: string, q: URLSearchParams, body: Record<string, unknown>): Answer | undefined => {
    let m: RegExpMatchArray | null;
    if (method === 'GET' && path === '/constituent/v1/constituents') {
      const since = q.get('date_modified');
      const list = [...constituents.values()].filter((c) => !since || c.date_modified >= since)
        .sort((a, b) => (q.get('sort') === 'date_modified' ? a.date_modified.localeCompare(b.date_modified) : 0) || Number(a.id) - Number(b.id))
        .map((c) => view(c.id));
      return page(list, q, path);
    }
    if (method === 'GET' && path === '/constituent/v1/constituents/search') {
      const text = (q.get('search_text') ?? '').trim().toLowerCase();
      const field = q.get('search_field');
      if (!text) return error(400, 'search_text is required.');
      const hits = [...constituents.values()].filter((c) => {
        const v = view(c.id)!;
        const email = ((v.email as { address?: string } | undefined)?.address ?? '').toLowerCase();
        if (field === 'email_address') return email === text;
        if (field === 'lookup_id') return c.lookup_id.toLowerCase() === text;
        if (field === 'name') return c.name.toLowerCase().includes(text);
        return c.name.toLowerCase().includes(text) || email === text || c.lookup_id.toLowerCase() === text;
      }).map((c) => {
        const v = view(c.id)!;
        return {
          id: c.id, name: c.name, lookup_id: c.lookup_id, inactive: c.inactive, deceased: c.deceased,
          email: (v.email as { address?: string } | undefined)?.address, address: (v.address as Address | undefined)?.formatted_address,
        };
      });
      return page(hits, q, path);
    }
    if (method === 'GET' && path === '/constituent/v1/constituents/customfields/categories/details') {
      return [200, { count: customFieldCategories.length, value: customFieldCategories }];
    }
    if (method === 'POST' && path === '/constituent/v1/constituents') return createConstituent(body);
    if (method === 'POST' && path === '/constituent/v1/constituents/customfields') {
      const cid = String(body.parent_id ?? '');
      if (!constituents.has(cid)) return error(400, 'The constituent does not exist.', 'InvalidParentId');
      if (!customFieldCategories.some((c) => c.name === body.category)) return error(400, `The category '${String(body.category)}' does not exist.`, 'InvalidCategory');
      const id = newId();
      customFields.push({ id, parent_id: cid, category: String(body.category), value: String(body.value ?? '') });
      touch(cid);
      return [200, { id }];
    }
    // Custom field list (GET /constituents/{constituent_id}/customfields) and Custom field (Edit) (PATCH /constituents/customfields/{custom_field_id}, 200 without a body)
    if (method === 'GET' && (m = path.match(/^\/constituent\/v1\/constituents\/(\d+)\/customfields$/))) {
      if (!constituents.has(m[1]!)) return error(404, 'Constituent not found.', 'NotFound');
      const value = customFields.filter((f) => f.parent_id === m![1]);
      return [200, { count: value.length, value }];
    }
    if (method === 'PATCH' && (m = path.match(/^\/constituent\/v1\/constituents\/customfields\/(\d+)$/))) {
      const field = customFields.find((f) => f.id === m![1]);
      if (!field) return error(404, 'Custom field not found.', 'NotFound');
      if ('value' in body) field.value = String(body.value ?? '');
      touch(field.parent_id);
      return [200, null];
    }
    if ((m = path.match(/^\/constituent\/v1\/constituents\/(\d+)$/))) {
      const c = constituents.get(m[1]!);
      if (!c) return error(404, 'Constituent not found.', 'NotFound');
      if (method === 'GET') return [200, view(c.id)];
      if (method === 'PATCH') {
        for (const k of ['first', 'last', 'title', 'middle', 'preferred_name', 'lookup_id'] as const) {
          if (k in body) (c as unknown as Record<string, unknown>)[k] = body[k] ?? undefined;
        }
        if (c.type === 'Individual' && !c.last) return error(400, 'Last name is required for individuals.', 'MissingLastName');
        c.name = nameOf(c);
        c.date_modified = tick();
        return [200, null];
      }
    }
    if ((m = path.match(/^\/constituent\/v1\/constituents\/(\d+)\/(emailaddresses|phones|addresses)$/)) && method === 'GET') {
      if (!constituents.has(m[1]!)) return error(404, 'Constituent not found.', 'NotFound');
      const list = m[2] === 'emailaddresses' ? emails : m[2] === 'phones' ? phones : addresses;
      const value = (list as { constituent_id: string }[]).filter((x) => x.constituent_id === m![1]);
      return [200, { count: value.length, value }];
    }
    if (method === 'POST' && (m = path.match(/^\/constituent\/v1\/(emailaddresses|phones|addresses|constituentcodes)$/))) {
      const cid = String(body.constituent_id ?? '');
      if (!constituents.has(cid)) return error(400, 'The constituent does not exist.', 'InvalidConstituentId');
      let made: { id: string } | null;
      if (m[1] === 'emailaddresses') {
        made = addEmail(cid, String(body.address ?? ''), String(body.type ?? 'Email'), body.primary === true);
        if (!made) return error(400, `The email address '${String(body.address)}' is not valid.`, 'InvalidEmailAddress');
      } else if (m[1] === 'phones') made = addPhone(cid, String(body.number ?? ''), String(body.type ?? 'Home'), body.primary === true);
      else if (m[1] === 'addresses') made = addAddress(cid, body as Partial<Address>);
      else { constituentCodes.push({ constituent_id: cid, description: String(body.description ?? '') }); made = { id: newId() }; }
      touch(cid);
      return [200, { id: made.id }];
    }
    if (method === 'PATCH' && (m = path.match(/^\/constituent\/v1\/(emailaddresses|phones|addresses)\/(\d+)$/))) {
      const list = (m[1] === 'emailaddresses' ? emails : m[1] === 'phones' ? phones : addresses) as unknown as Record<string, unknown>[];
      const row = list.find((x) => x.id === m![2]);
      if (!row) return error(404, 'Not found.', 'NotFound');
      if (m[1] === 'emailaddresses' && typeof body.address === 'string' && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(body.address)) {
        return error(400, `The email address '${body.address}' is not valid.`, 'InvalidEmailAddress');
      }
      Object.assign(row, body, { date_modified: tick() });
      if (m[1] === 'addresses') row.formatted_address = formatted(row as Partial<Address>);
      touch(String(row.constituent_id));
      return [200, null];
    }
    const lists = { '/fundraising/v1/funds': funds, '/fundraising/v1/campaigns': campaigns, '/fundraising/v1/appeals': appeals } as Record<string, FakeDesignation[]>;
    if (method === 'GET' && lists[path]) {
      const list = lists[path]!.filter((d) => q.get('include_inactive') === 'true' || !d.inactive);
      return page(list, q, path);
    }
    if (method === 'GET' && path === '/gift/v1/gifts') {
      const since = q.get('last_modified');
      const cid = q.getAll('constituent_id');
      const list = [...gifts.values()].filter((g) => (!since || g.date_modified >= since) && (!cid.length || cid.includes(g.constituent_id)))
        .sort((a, b) => Number(a.id) - Number(b.id));
      return page(list, q, path);
    }
    if (method === 'POST' && path === '/gift/v1/gifts') {
      const cid = String(body.constituent_id ?? '');
      if (!constituents.has(cid)) return error(400, 'The constituent does not exist.', 'InvalidConstituentId');
      const amount = (body.amount as { value?: number } | undefined)?.value;
      if (typeof amount !== 'number' || !(amount > 0)) return error(400, 'The gift amount must be greater than zero.', 'InvalidAmount');
      const splits = (body.gift_splits as FakeGift['gift_splits'] | undefined) ?? [];
      if (!splits.length || splits.some((s) => !s.fund_id)) return error(400, 'Each gift split needs a fund.', 'MissingFund');
      for (const [field, list] of [['fund_id', funds], ['campaign_id', campaigns], ['appeal_id', appeals]] as const) {
        const bad = splits.find((s) => s[field] && !list.some((d) => d.id === s[field]));
        if (bad) return error(400, `The ${field} '${bad[field]}' does not exist.`, 'InvalidParameter');
      }
      const id = newId();
      const now = tick();
      gifts.set(id, {
        id, constituent_id: cid, amount: { value: amount }, date: String(body.date ?? now), type: String(body.type ?? 'Donation'),
        gift_splits: splits.map((s) => ({ ...s, id: newId() })), payments: (body.payments as FakeGift['payments']) ?? [{ payment_method: 'Cash' }],
        ...(typeof body.lookup_id === 'string' ? { lookup_id: body.lookup_id } : {}),
        ...(typeof body.batch_prefix === 'string' ? { batch_prefix: body.batch_prefix, batch_number: `${body.batch_prefix}-1` } : {}),
        date_added: now, date_modified: now,
      });
      return [200, { id }];
    }
    if ((m = path.match(/^\/gift\/v1\/gifts\/(\d+)$/))) {
      const g = gifts.get(m[1]!);
      if (!g) return error(404, 'Gift not found.', 'NotFound');
      if (method === 'GET') return [200, g];
      if (method === 'PATCH') {
        if (body.amount) g.amount = body.amount as { value: number };
        if (typeof body.date === 'string') g.date = body.date;
        if (typeof body.lookup_id === 'string') g.lookup_id = body.lookup_id;
        g.date_modified = tick();
        return [200, null];
      }
    }
    return undefined;
  };

  // the user decides on the consent page itself, so `consent` is never read here
  const consent: ConsentState = { consent: 'deny', authorizeRequests: [] };
  const grants = codeGrants(consent);
  let codeGrantCount = 0;

  const token = (headers: http.IncomingHttpHeaders, form: URLSearchParams): Answer => {
    const fields = Object.fromEntries(form);
    const unknownClient = grants.authenticate(system, headers.authorization, fields);
    if (unknownClient) return [unknownClient.status, unknownClient.body];
    if (form.get('grant_type') === 'refresh_token') {
      if (revoked || form.get('refresh_token') !== refresh) return [400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or expired.' }];
      refreshCount++;
      if (form.get('preserve_refresh_token') !== 'true') refresh = `sky-refresh-${++generation}`;
    } else {
      const refusal = grants.redeem(system, fields);
      if (refusal) return [refusal.status, refusal.body];
      // a consent is a new grant: its refresh token replaces any earlier one
      fake.grant();
      codeGrantCount++;
    }
    const accessToken = `sky-access-${generation}-${refreshCount}-${codeGrantCount}`;
    access.set(accessToken, Date.now() + fake.tokenLifetime * 1000);
    return [200, {
      access_token: accessToken, token_type: 'Bearer', expires_in: fake.tokenLifetime, refresh_token: refresh,
      refresh_token_expires_in: 31536000, environment_id: 'p-riverside', environment_name: 'Riverside Production', legal_entity_name: 'Riverside Food Bank',
    }];
  };

  /** Blackbaud's consent page, reduced to its question: the form sends the request back with the user's decision. */
  const consentPage = (q: URLSearchParams) => {
    const esc = (v: string) => v.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
    const hidden = [...q].map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join('');
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Authorize application | Blackbaud</title></head>
<body style="font-family: sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem"><main>
<h1>Authorize application</h1><p>Tributary (${esc(q.get('client_id') ?? '')}) would like to access Riverside Production (Riverside Food Bank).</p>
<form method="get" action="/oauth/authorize">${hidden}<button name="decision" value="grant">Authorize</button> <button name="decision" value="deny">Cancel</button></form>
</main></body></html>`;
  };

  const server = await startVendorServer(async (req, res) => {
    const { method, url, headers, raw, body } = req;
    seen.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), body, headers });
    const send = ([status, payload, extra]: Answer) => sendJson(res, status, payload, extra, 'application/json; charset=utf-8');
    if (url.pathname === '/oauth/authorize' && method === 'GET') {
      const decision = url.searchParams.get('decision');
      const query = Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'decision'));
      const answer = decision === 'grant' || decision === 'deny' ? grants.authorize(system, query, decision) : grants.problem(system, query);
      if (!answer) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return res.end(consentPage(url.searchParams));
      }
      if (!('redirect' in answer)) return send([answer.status, answer.body]);
      res.writeHead(302, { location: answer.redirect });
      return res.end();
    }
    if (url.pathname === '/token' && method === 'POST') {
      if (fake.tokenDelayMs) await new Promise((r) => setTimeout(r, fake.tokenDelayMs));
      return send(req.form ? token(headers, new URLSearchParams(raw)) : [400, { error: 'invalid_request' }]);
    }
    if (headers['bb-api-subscription-key'] !== SKY_APP.subscriptionKey) {
      return send([401, { statusCode: 401, message: 'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.' }]);
    }
    if (Date.now() < quotaUntil) {
      const left = Math.ceil((quotaUntil - Date.now()) / 1000);
      return send([403, { statusCode: 403, message: `Out of call volume quota. Quota will be replenished in ${new Date(left * 1000).toISOString().slice(11, 19)}.` }, { 'retry-after': String(left) }]);
    }
    if (throttled > 0) {
      throttled--;
      return send([429, { statusCode: 429, message: `Rate limit is exceeded. Try again in ${throttleSeconds} seconds.` }, { 'retry-after': String(throttleSeconds) }]);
    }
    if (fake.apiDelayMs) await new Promise((r) => setTimeout(r, fake.apiDelayMs));
    const auth = headers.authorization ?? '';
    const expiry = access.get(auth.replace(/^Bearer /, ''));
    if (!expiry || expiry < Date.now()) return send([401, { statusCode: 401, message: 'Authorization has been denied for this request.' }]);
    if (failing > 0) { failing--; return send([500, { statusCode: 500, message: 'An error has occurred.' }]); }
    const fields = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    const answer = api(method, url.pathname, url.searchParams, fields) ?? opts.product?.(method, url.pathname, url.searchParams, fields);
    return send(answer ?? [404, { statusCode: 404, message: 'Resource not found' }]);
  });

  const fake: FakeSkyApi = {
    url: server.url, seen, authorizeRequests: consent.authorizeRequests, constituents, emails, phones, addresses, gifts, constituentCodes, customFieldCategories, customFields,
    funds, campaigns, appeals,
    tokenLifetime: 3600,
    tokenDelayMs: 0,
    apiDelayMs: 0,
    refreshToken: () => refresh,
    grant: () => { revoked = false; refresh = `sky-refresh-${++generation}`; return refresh; },
    revoke: () => { revoked = true; },
    refreshes: () => refreshCount,
    expireTokens: () => { access.clear(); },
    throttle: (n, seconds = 1) => { throttled = n; throttleSeconds = seconds; },
    failNext: (n) => { failing = n; },
    spendQuota: (seconds) => { quotaUntil = Date.now() + seconds * 1000; },
    addConstituent(c) {
      const [, { id }] = createConstituent({ first: c.first, last: c.last, lookup_id: c.lookup_id, email: c.email ? { address: c.email } : undefined, phone: c.phone ? { number: c.phone } : undefined, address: c.address }) as [number, { id: string }];
      const row = constituents.get(id)!;
      if (c.date_modified) row.date_modified = c.date_modified;
      return row;
    },
    addGift(g) {
      const [, { id }] = api('POST', '/gift/v1/gifts', new URLSearchParams(), {
        constituent_id: g.constituent_id, amount: { value: g.amount }, date: g.date, type: 'Donation',
        gift_splits: [{ amount: { value: g.amount }, fund_id: g.fund_id ?? '12', campaign_id: g.campaign_id, appeal_id: g.appeal_id }],
      }) as [number, { id: string }];
      const row = gifts.get(id)!;
      if (g.date_modified) row.date_modified = g.date_modified;
      return row;
    },
    view,
    close: server.close,
  };
  return fake;
}
