/**
 * A local fake of HubSpot's CRM API v3, answering the endpoints Tributary calls as HubSpot
 * documents them (developers.hubspot.com/docs/api/crm): a private app's bearer token, or OAuth
 * (POST /oauth/v1/token with client_id and client_secret in the body: grant_type=refresh_token,
 * or authorization_code with PKCE's code_verifier after GET /oauth/authorize; access tokens that
 * expire, a revoked refresh token answered 400 BAD_REFRESH_TOKEN); GET /account-info/v3/details;
 * GET /crm/v3/properties/{object} (custom properties included); POST /crm/v3/objects/{object}/search
 * (filter groups of filters with EQ, NEQ, GT, GTE, LT, LTE and CONTAINS_TOKEN, one sort, `limit` up
 * to 200, paged by `after`, and no further than 10,000 results: a page past them is a 400);
 * batch upsert by a unique property (`idProperty`; the same id twice in a batch refused), batch update by id (207 with errors for ids it
 * does not hold) and create. Errors are `{ status: 'error', message, category, correlationId }`; a
 * batch with one invalid property value is refused whole (400 VALIDATION_ERROR) as HubSpot does;
 * 429 carries Retry-After and the X-HubSpot-RateLimit headers. Point Tributary at it with
 * CONNECTOR_BASE_URL_HUBSPOT.
 */
import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const HUBSPOT_TOKEN = 'pat-na1-11111111-2222-3333-4444-555555555555';
export const HUBSPOT_APP = { clientId: 'hs-client-id', clientSecret: 'hs-client-secret' };
export const HUBSPOT_PORTAL = 24681357;

export type HsObject = 'contacts' | 'companies' | 'deals';
export interface HsRecord { id: string; properties: Record<string, string>; createdAt: string; updatedAt: string }
export interface HsProperty { name: string; label: string; type: string; fieldType: string; hidden?: boolean; calculated?: boolean; hasUniqueValue?: boolean; modificationMetadata: { readOnlyValue: boolean } }
export interface HsSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders; at: number }

export interface FakeHubSpot {
  url: string;
  seen: HsSeen[];
  records: Record<HsObject, Map<string, HsRecord>>;
  properties: Record<HsObject, HsProperty[]>;
  /** results one search answers at most (10,000, as HubSpot's) */
  searchCap: number;
  add(object: HsObject, properties: Record<string, string>, modifiedAt?: Date): HsRecord;
  /** a refresh token for a new grant, accepted from now on */
  grant(): string;
  revoke(): void;
  /** access tokens issued so far stop being accepted (401 EXPIRED_AUTHENTICATION) */
  expireTokens(): void;
  refreshes(): number;
  /** the next `n` API calls answer 429 (the ten-second limit) with Retry-After `seconds` */
  throttle(n: number, seconds?: number): void;
  /** the daily limit is spent: every API call answers 429 with policyName DAILY */
  dailySpent: boolean;
  /** the most searches that arrived within any one second (less 100 ms for the network's jitter) */
  searchesPerSecond(): number;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];

const MODIFIED: Record<HsObject, string> = { contacts: 'lastmodifieddate', companies: 'hs_lastmodifieddate', deals: 'hs_lastmodifieddate' };
const DEFAULTS: Record<HsObject, string[]> = {
  contacts: ['createdate', 'email', 'firstname', 'hs_object_id', 'lastmodifieddate', 'lastname'],
  companies: ['createdate', 'domain', 'hs_lastmodifieddate', 'hs_object_id', 'name'],
  deals: ['amount', 'closedate', 'createdate', 'dealname', 'dealstage', 'hs_lastmodifieddate', 'hs_object_id', 'pipeline'],
};

const prop = (name: string, label: string, type = 'string', fieldType = 'text', more: Partial<HsProperty> = {}): HsProperty =>
  ({ name, label, type, fieldType, modificationMetadata: { readOnlyValue: false }, ...more });
const readOnly = (name: string, label: string, type = 'datetime'): HsProperty => prop(name, label, type, 'text', { modificationMetadata: { readOnlyValue: true } });

const err = (status: number, message: string, category: string, more: Record<string, unknown> = {}): Answer =>
  [status, { status: 'error', message, correlationId: randomUUID(), category, ...more }];

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export async function startFakeHubSpot(): Promise<FakeHubSpot> {
  const seen: HsSeen[] = [];
  const records: Record<HsObject, Map<string, HsRecord>> = { contacts: new Map(), companies: new Map(), deals: new Map() };
  const properties: Record<HsObject, HsProperty[]> = {
    contacts: [
      readOnly('hs_object_id', 'Record ID', 'number'), prop('email', 'Email'), prop('firstname', 'First Name'), prop('lastname', 'Last Name'),
      prop('phone', 'Phone Number', 'string', 'phonenumber'), prop('city', 'City'), prop('zip', 'Postal Code'), prop('message', 'Message', 'string', 'textarea'),
      // a custom property of this account
      prop('volunteer_interest', 'Volunteer interest', 'enumeration', 'select'),
      readOnly('createdate', 'Create Date'), readOnly('lastmodifieddate', 'Last Modified Date'),
      prop('hs_internal_flag', 'Internal', 'string', 'text', { hidden: true }),
    ],
    companies: [
      readOnly('hs_object_id', 'Record ID', 'number'), prop('name', 'Company name'), prop('domain', 'Company Domain Name'), prop('city', 'City'),
      prop('annualrevenue', 'Annual Revenue', 'number', 'number'), prop('member_id', 'Member ID', 'string', 'text', { hasUniqueValue: true }),
      readOnly('createdate', 'Create Date'), readOnly('hs_lastmodifieddate', 'Last Modified Date'),
    ],
    deals: [
      readOnly('hs_object_id', 'Record ID', 'number'), prop('dealname', 'Deal Name'), prop('amount', 'Amount', 'number', 'number'), prop('dealstage', 'Deal Stage', 'enumeration', 'radio'),
      prop('pipeline', 'Pipeline', 'enumeration', 'select'), prop('closedate', 'Close Date', 'datetime', 'date'), readOnly('createdate', 'Create Date'), readOnly('hs_lastmodifieddate', 'Last Modified Date'),
    ],
  };
  let nextId = 1001;
  let clock = Date.parse('2026-01-05T09:00:00.000Z');
  // every write is a later millisecond than the one before
  const stamp = (at?: Date) => new Date(at ? at.getTime() : (clock = Math.max(clock + 1, Date.now()))).toISOString();
  const refreshTokens = new Set<string>(['hs-refresh-1']);
  const accessTokens = new Set<string>();
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  let refreshCount = 0;
  let throttled = 0;
  let throttleSeconds = 1;
  const searchStarts: number[] = [];

  const fake: FakeHubSpot = {
    url: '', seen, records, properties, searchCap: 10_000, dailySpent: false,
    add(object, props, modifiedAt) {
      const id = String(nextId++);
      const at = stamp(modifiedAt);
      const r: HsRecord = { id, properties: { ...props, hs_object_id: id, createdate: at, [MODIFIED[object]]: at }, createdAt: at, updatedAt: at };
      records[object].set(id, r);
      return r;
    },
    grant() { const t = `hs-refresh-${randomUUID()}`; refreshTokens.add(t); return t; },
    revoke() { refreshTokens.clear(); },
    expireTokens() { accessTokens.clear(); },
    refreshes: () => refreshCount,
    throttle(n, seconds = 1) { throttled = n; throttleSeconds = seconds; },
    searchesPerSecond() {
      // counted by arrival over half a second: a client that keeps to five a second never has six
      // arrive that close together, however late a busy machine delivers one of them (a 900 ms
      // window counted six once, when the first of a second's five arrived 100 ms late); a burst
      // without pacing arrives within milliseconds
      let most = 0;
      for (let i = 0; i < searchStarts.length; i++) most = Math.max(most, searchStarts.filter((t) => t >= searchStarts[i]! && t < searchStarts[i]! + 500).length);
      return most;
    },
    close: async () => {},
  };

  const issue = (refresh: string) => {
    const access = `hs-access-${randomUUID()}`;
    accessTokens.add(access);
    return [200, { access_token: access, refresh_token: refresh, expires_in: 1800, token_type: 'bearer' }] as Answer;
  };

  function token(form: URLSearchParams): Answer {
    if (form.get('client_id') !== HUBSPOT_APP.clientId || form.get('client_secret') !== HUBSPOT_APP.clientSecret) {
      return [400, { status: 'BAD_CLIENT_ID', message: 'missing or unknown client id', correlationId: randomUUID() }];
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (!refreshTokens.has(form.get('refresh_token') ?? '')) return [400, { status: 'BAD_REFRESH_TOKEN', message: 'missing or unknown refresh token', correlationId: randomUUID() }];
      refreshCount++;
      return issue(form.get('refresh_token')!);
    }
    if (form.get('grant_type') === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      if (!code || code.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
        return [400, { status: 'BAD_AUTH_CODE', message: 'missing or unknown auth code', correlationId: randomUUID() }];
      }
      const refresh = fake.grant();
      return issue(refresh);
    }
    return [400, { status: 'BAD_GRANT_TYPE', message: 'unknown grant type', correlationId: randomUUID() }];
  }

  const known = (object: HsObject, name: string) => properties[object].some((p) => p.name === name);
  const comparable = (v: string) => (/^\d{10,}$/.test(v) ? Number(v) : /^\d{4}-\d\d-\d\dT/.test(v) ? Date.parse(v) : v.toLowerCase());

  function matches(r: HsRecord, f: { propertyName: string; operator: string; value?: string }): boolean {
    const have = r.properties[f.propertyName];
    const want = String(f.value ?? '');
    if (f.operator === 'CONTAINS_TOKEN') {
      const pattern = new RegExp(`^${want.toLowerCase().replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
      return have !== undefined && (pattern.test(have.toLowerCase()) || have.toLowerCase().split(/[\s@.]+/).some((t) => pattern.test(t)));
    }
    if (have === undefined) return f.operator === 'NEQ';
    const a = comparable(have);
    const b = comparable(want);
    switch (f.operator) {
      case 'EQ': return a === b;
      case 'NEQ': return a !== b;
      case 'GT': return a > b;
      case 'GTE': return a >= b;
      case 'LT': return a < b;
      case 'LTE': return a <= b;
      default: return false;
    }
  }

  const view = (object: HsObject, r: HsRecord, names?: string[]) => ({
    id: r.id, createdAt: r.createdAt, updatedAt: r.updatedAt, archived: false,
    properties: Object.fromEntries((names?.length ? names : DEFAULTS[object]).map((n) => [n, r.properties[n] ?? null])),
  });

  function search(object: HsObject, body: { filterGroups?: { filters?: { propertyName: string; operator: string; value?: string }[] }[]; sorts?: { propertyName: string; direction?: string }[]; properties?: string[]; limit?: number; after?: string }): Answer {
    searchStarts.push(Date.now());
    const limit = body.limit ?? 10;
    if (limit > 200) return err(400, 'limit must be at most 200', 'VALIDATION_ERROR');
    const groups = body.filterGroups ?? [];
    if (groups.length > 5) return err(400, 'Too many filter groups (maximum 5)', 'VALIDATION_ERROR');
    for (const g of groups) {
      if ((g.filters ?? []).length > 6) return err(400, 'Too many filters in a filter group (maximum 6)', 'VALIDATION_ERROR');
      for (const f of g.filters ?? []) if (!known(object, f.propertyName)) return err(400, `There was a problem with the request. Property ${f.propertyName} does not exist.`, 'VALIDATION_ERROR');
    }
    const after = Number(body.after ?? 0);
    if (after + limit > fake.searchCap && after >= fake.searchCap) return err(400, `Search results are limited to ${fake.searchCap} records: use filters to narrow the search.`, 'VALIDATION_ERROR');
    let hits = [...records[object].values()].filter((r) => !groups.length || groups.some((g) => (g.filters ?? []).every((f) => matches(r, f))));
    const sort = body.sorts?.[0];
    if (sort) {
      const dir = sort.direction === 'DESCENDING' ? -1 : 1;
      hits = hits.sort((a, b) => {
        const x = comparable(a.properties[sort.propertyName] ?? '');
        const y = comparable(b.properties[sort.propertyName] ?? '');
        return (x < y ? -1 : x > y ? 1 : Number(a.id) - Number(b.id)) * dir;
      });
    } else hits.sort((a, b) => Number(a.id) - Number(b.id));
    const page = hits.slice(after, Math.min(after + limit, fake.searchCap));
    const nextAfter = after + page.length;
    return [200, {
      total: hits.length,
      results: page.map((r) => view(object, r, body.properties)),
      ...(nextAfter < hits.length ? { paging: { next: { after: String(nextAfter), link: `?after=${nextAfter}` } } } : {}),
    }];
  }

  /** HubSpot refuses a whole batch when one input has an invalid property value */
  function invalidProperties(object: HsObject, props: Record<string, unknown>): Answer | null {
    const problems: Record<string, unknown>[] = [];
    for (const [name, value] of Object.entries(props)) {
      const p = properties[object].find((x) => x.name === name);
      if (!p) problems.push({ isValid: false, message: `Property "${name}" does not exist`, error: 'PROPERTY_DOESNT_EXIST', name });
      else if (p.modificationMetadata.readOnlyValue) problems.push({ isValid: false, message: `"${name}" is a read only property; its value cannot be set.`, error: 'READ_ONLY_VALUE', name });
      else if (name === 'email' && value && !EMAIL.test(String(value))) problems.push({ isValid: false, message: `Email address ${String(value)} is invalid`, error: 'INVALID_EMAIL', name });
      else if (p.type === 'number' && value !== '' && Number.isNaN(Number(value))) problems.push({ isValid: false, message: `${String(value)} was not a valid number.`, error: 'INVALID_INTEGER', name });
    }
    return problems.length ? err(400, `Property values were not valid: ${JSON.stringify(problems)}`, 'VALIDATION_ERROR') : null;
  }

  const write = (object: HsObject, r: HsRecord, props: Record<string, string>) => {
    const at = stamp();
    for (const [k, v] of Object.entries(props)) { if (v === '') delete r.properties[k]; else r.properties[k] = v; }
    r.properties[MODIFIED[object]] = at;
    r.updatedAt = at;
  };

  function route(req: { method: string; path: string; query: URLSearchParams; body: unknown; headers: http.IncomingHttpHeaders; form: URLSearchParams }): Answer | null {
    const { method, path } = req;
    if (method === 'POST' && path === '/oauth/v1/token') return token(req.form);
    if (method === 'GET' && path === '/oauth/authorize') {
      const q = req.query;
      if (q.get('client_id') !== HUBSPOT_APP.clientId || !q.get('redirect_uri')) return [400, { status: 'error', message: 'Invalid client id' }];
      const code = `hs-code-${randomUUID()}`;
      codes.set(code, { challenge: q.get('code_challenge') ?? '', redirectUri: q.get('redirect_uri')! });
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return [302, null, { location: back.toString() }];
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (bearer.startsWith('hs-access-') && !accessTokens.has(bearer)) return err(401, 'The OAuth token used to make this call expired 1 second(s) ago.', 'EXPIRED_AUTHENTICATION');
    if (bearer !== HUBSPOT_TOKEN && !accessTokens.has(bearer)) {
      return err(401, 'Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview', 'INVALID_AUTHENTICATION');
    }
    if (fake.dailySpent) return [429, { status: 'error', message: 'You have reached your daily limit.', errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName: 'DAILY' }];
    if (throttled > 0) {
      throttled--;
      return [429, { status: 'error', message: 'You have reached your ten_secondly_rolling limit.', errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName: 'TEN_SECONDLY_ROLLING' },
        { 'retry-after': String(throttleSeconds), 'x-hubspot-ratelimit-max': '100', 'x-hubspot-ratelimit-remaining': '0', 'x-hubspot-ratelimit-interval-milliseconds': '10000' }];
    }
    if (method === 'GET' && path === '/account-info/v3/details') return [200, { portalId: HUBSPOT_PORTAL, accountType: 'STANDARD', timeZone: 'US/Eastern', companyCurrency: 'USD', uiDomain: 'app.hubspot.com', dataHostingLocation: 'na1' }];
    let m = /^\/crm\/v3\/properties\/(contacts|companies|deals)$/.exec(path);
    if (m && method === 'GET') return [200, { results: properties[m[1] as HsObject] }];
    m = /^\/crm\/v3\/objects\/(contacts|companies|deals)\/search$/.exec(path);
    if (m && method === 'POST') return search(m[1] as HsObject, req.body as never);
    m = /^\/crm\/v3\/objects\/(contacts|companies|deals)\/batch\/upsert$/.exec(path);
    if (m && method === 'POST') {
      const object = m[1] as HsObject;
      const inputs = (req.body as { inputs?: { idProperty?: string; id?: string; properties?: Record<string, string> }[] }).inputs ?? [];
      if (inputs.length > 100) return err(400, 'A batch holds at most 100 inputs', 'VALIDATION_ERROR');
      const ids = inputs.map((i) => String(i.id).toLowerCase());
      const twice = ids.filter((id, n) => ids.indexOf(id) !== n);
      if (twice.length) return err(400, `Duplicate IDs found in batch input: [${twice.join(', ')}]. IDs must be unique`, 'VALIDATION_ERROR');
      for (const i of inputs) {
        const p = properties[object].find((x) => x.name === i.idProperty);
        if (!p || (i.idProperty !== 'email' && !p.hasUniqueValue)) return err(400, `${i.idProperty} is not a unique property`, 'VALIDATION_ERROR');
        const bad = invalidProperties(object, { ...i.properties, [i.idProperty!]: i.id });
        if (bad) return bad;
      }
      const started = new Date().toISOString();
      const results = inputs.map((i) => {
        const existing = [...records[object].values()].find((r) => (r.properties[i.idProperty!] ?? '').toLowerCase() === String(i.id).toLowerCase());
        if (existing) { write(object, existing, i.properties ?? {}); return { ...view(object, existing, Object.keys(existing.properties)), new: false }; }
        const made = fake.add(object, { ...i.properties, [i.idProperty!]: String(i.id) });
        return { ...view(object, made, Object.keys(made.properties)), new: true };
      });
      return [200, { status: 'COMPLETE', results, startedAt: started, completedAt: new Date().toISOString() }];
    }
    m = /^\/crm\/v3\/objects\/(contacts|companies|deals)\/batch\/update$/.exec(path);
    if (m && method === 'POST') {
      const object = m[1] as HsObject;
      const inputs = (req.body as { inputs?: { id?: string; properties?: Record<string, string> }[] }).inputs ?? [];
      for (const i of inputs) { const bad = invalidProperties(object, i.properties ?? {}); if (bad) return bad; }
      const missing = inputs.filter((i) => !records[object].has(String(i.id))).map((i) => String(i.id));
      const results = inputs.filter((i) => records[object].has(String(i.id))).map((i) => {
        const r = records[object].get(String(i.id))!;
        write(object, r, i.properties ?? {});
        return view(object, r, Object.keys(r.properties));
      });
      const answer = { status: 'COMPLETE', results, startedAt: new Date().toISOString(), completedAt: new Date().toISOString() };
      if (!missing.length) return [200, answer];
      return [207, { ...answer, numErrors: 1, errors: [{ status: 'error', category: 'OBJECT_NOT_FOUND', message: `Could not get some ${object.toUpperCase()} objects, they may be deleted or not exist. Check that ids are valid.`, context: { ids: missing } }] }];
    }
    m = /^\/crm\/v3\/objects\/(contacts|companies|deals)$/.exec(path);
    if (m && method === 'POST') {
      const object = m[1] as HsObject;
      const props = (req.body as { properties?: Record<string, string> }).properties ?? {};
      const bad = invalidProperties(object, props);
      if (bad) return bad;
      const made = fake.add(object, Object.fromEntries(Object.entries(props).filter(([, v]) => v !== '')));
      return [201, view(object, made, Object.keys(made.properties))];
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers, at: Date.now() });
    const answer = route({
      method: req.method, path: req.url.pathname, query: req.url.searchParams, body: req.body, headers: req.headers,
      form: new URLSearchParams(req.form ? req.raw : ''),
    });
    if (!answer) return sendJson(res, 404, { status: 'error', message: `Unable to infer object type from: ${req.url.pathname}`, correlationId: randomUUID(), category: 'OBJECT_NOT_FOUND' });
    const [status, body, headers] = answer;
    if (status === 302) { res.writeHead(302, headers); res.end(); return; }
    sendJson(res, status, body, headers);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
