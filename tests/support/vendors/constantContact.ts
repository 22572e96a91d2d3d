/**
 * A local fake of Constant Contact's v3 API and its OAuth token endpoint, answering as Constant
 * Contact documents them (developer.constantcontact.com/api_guide):
 * - the consent (authorize(query) stands for GET /oauth2/default/v1/authorize and the user
 *   granting it: the application's client id, response_type=code, a PKCE S256 challenge and the
 *   offline_access scope are required) and POST /oauth2/default/v1/token with
 *   grant_type=authorization_code (the code once, the same redirect_uri, the challenge's verifier);
 * - POST /oauth2/default/v1/token: the application's id and secret as HTTP Basic,
 *   grant_type=refresh_token; refresh tokens rotate (each is good once; the answer carries the
 *   next), an unknown or used one is `400 invalid_grant`; access tokens live a day (expireTokens
 *   ends them early, and a call with one answers 401).
 * - GET /v3/account/summary; GET /v3/contact_custom_fields;
 * - GET /v3/contacts with `status`, `include`, `limit` (at most 500), `updated_after`,
 *   `updated_before` and `email`, paged by an opaque `cursor` named in `_links.next.href`;
 *   GET/PUT /v3/contacts/{contact_id} (PUT replaces the contact; `update_source` required);
 * - POST /v3/contacts/sign_up_form: create or update by e-mail (`list_memberships` required), and
 *   as documented it sets an existing contact's permission_to_send to explicit, unsubscribed or not.
 * - POST /v3/activities/contacts_json_import (`import_data` by `email`, the contact's own fields,
 *   `phone`, `home_*` address parts, custom fields as `cf:<name>`; `list_ids` required) answers 201
 *   with the activity `initialized`; GET /v3/activities/{activity_id} answers it `processing` at its
 *   first look and `completed` at the next, with its status counts and `activity_errors` for rows it
 *   refused (an invalid address). As documented, a new contact gets permission_to_send implicit and
 *   an existing one keeps its own; a contact who unsubscribed is not added to the lists
 *   (`cannot_add_to_list_count`). `status=unsubscribed` lists those who unsubscribed.
 * Errors are lists of { error_key, error_message }; throttle(n) answers 429 too_many_requests.
 */
import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const CC_APP = { clientId: 'cc-app-client', clientSecret: 'cc-app-secret' };
export const CC_LIST = '07936f78-662a-11eb-af0a-fa163e56c9b0';

export interface CcContact {
  contact_id: string;
  email_address: { address: string; permission_to_send: string };
  first_name?: string; last_name?: string; job_title?: string; company_name?: string;
  phone_numbers: { phone_number: string; kind: string }[];
  street_addresses: { kind: string; street?: string; city?: string; state?: string; postal_code?: string; country?: string }[];
  custom_fields: { custom_field_id: string; value: string }[];
  list_memberships: string[];
  created_at: string; updated_at: string;
}
export interface CcSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeConstantContact {
  url: string;
  seen: CcSeen[];
  contacts: Map<string, CcContact>;
  customFields: { custom_field_id: string; name: string; label: string; type: string }[];
  /** import activities started, by id */
  imports: Map<string, { looks: number; rows: Record<string, string>[] }>;
  /** the refresh token good now (each use hands out the next) */
  grant(): string;
  /** the consent page granting an authorize request: the redirect with its code and state, or with an error */
  authorize(query: URLSearchParams): string;
  refreshes(): number;
  expireTokens(): void;
  add(c: { email: string; first?: string; last?: string; permission?: string; volunteer?: string; updatedAt?: Date }): CcContact;
  throttle(n: number): void;
  close(): Promise<void>;
}

type Answer = [number, unknown];
const err = (status: number, key: string, message: string): Answer => [status, [{ error_key: key, error_message: message }]];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

export async function startFakeConstantContact(): Promise<FakeConstantContact> {
  const seen: CcSeen[] = [];
  const contacts = new Map<string, CcContact>();
  const customFields = [{ custom_field_id: 'b0f5c8f0-1c2d-11ee-9f3a-fa163e5bc304', name: 'volunteer_interest', label: 'Volunteer interest', type: 'string' }];
  let refresh = `cc-refresh-${randomUUID().slice(0, 8)}`;
  let refreshCount = 0;
  const tokens = new Map<string, number>();
  let throttled = 0;
  let clock = Date.parse('2026-01-05T09:00:00Z');
  const stamp = (at?: Date) => new Date(at ? at.getTime() : (clock = Math.max(clock + 1000, Date.now()))).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cursors = new Map<string, { list: CcContact[]; offset: number; limit: number }>();
  const codes = new Map<string, { redirectUri: string; challenge: string }>();
  const imports = new Map<string, { looks: number; rows: Record<string, string>[]; lists: string[]; created: string; status?: Record<string, number>; errors: string[] }>();

  const fake: FakeConstantContact = {
    url: '', seen, contacts, customFields, imports,
    grant: () => refresh,
    authorize(q) {
      const back = new URL(q.get('redirect_uri') ?? 'http://invalid/');
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      const scopes = (q.get('scope') ?? '').split(' ');
      if (q.get('client_id') !== CC_APP.clientId || q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge') || !scopes.includes('offline_access')) {
        back.searchParams.set('error', 'invalid_request');
        return back.toString();
      }
      const code = `cc-code-${randomUUID().slice(0, 8)}`;
      codes.set(code, { redirectUri: q.get('redirect_uri')!, challenge: q.get('code_challenge')! });
      back.searchParams.set('code', code);
      return back.toString();
    },
    refreshes: () => refreshCount,
    expireTokens() { for (const k of tokens.keys()) tokens.set(k, 0); },
    add(c) {
      const at = stamp(c.updatedAt);
      const contact: CcContact = {
        contact_id: randomUUID(), email_address: { address: c.email, permission_to_send: c.permission ?? 'implicit' },
        first_name: c.first, last_name: c.last, phone_numbers: [], street_addresses: [],
        custom_fields: c.volunteer ? [{ custom_field_id: customFields[0]!.custom_field_id, value: c.volunteer }] : [],
        list_memberships: [CC_LIST], created_at: at, updated_at: at,
      };
      contacts.set(contact.contact_id, contact);
      return contact;
    },
    throttle(n) { throttled = n; },
    close: async () => {},
  };

  const byEmail = (email: string) => [...contacts.values()].find((c) => c.email_address.address.toLowerCase() === email.trim().toLowerCase());
  const view = (c: CcContact, include: string) => {
    const inc = new Set(include.split(','));
    const { phone_numbers, street_addresses, custom_fields, list_memberships, ...rest } = c;
    return {
      ...rest, ...(inc.has('phone_numbers') ? { phone_numbers } : {}), ...(inc.has('street_addresses') ? { street_addresses } : {}),
      ...(inc.has('custom_fields') ? { custom_fields } : {}), ...(inc.has('list_memberships') ? { list_memberships } : {}),
    };
  };
  const page = (state: { list: CcContact[]; offset: number; limit: number }, include: string): Answer => {
    const items = state.list.slice(state.offset, state.offset + state.limit);
    let next: string | undefined;
    if (state.offset + state.limit < state.list.length) {
      const cursor = Buffer.from(randomUUID()).toString('base64url');
      cursors.set(cursor, { ...state, offset: state.offset + state.limit });
      next = `/v3/contacts?cursor=${cursor}`;
    }
    return [200, { contacts: items.map((c) => view(c, include)), ...(next ? { _links: { next: { href: next } } } : {}), contacts_count: state.list.length }];
  };
  let lastInclude = '';

  function route(method: string, path: string, q: URLSearchParams, body: Record<string, unknown>): Answer | null {
    if (method === 'GET' && path === '/v3/account/summary') return [200, { organization_name: 'Riverside Youth Arts', contact_email: 'office@riverside.example' }];
    if (method === 'GET' && path === '/v3/contact_custom_fields') return [200, { custom_fields: customFields }];
    if (method === 'GET' && path === '/v3/contacts') {
      const cursor = q.get('cursor');
      if (cursor) {
        const state = cursors.get(cursor);
        return state ? page(state, lastInclude) : err(400, 'contacts.api.bad.request', 'The cursor is not valid.');
      }
      const limit = Number(q.get('limit') ?? 50);
      if (limit > 500) return err(400, 'contacts.api.validation.error', 'limit must be at most 500.');
      let list = [...contacts.values()];
      if (q.get('status') === 'unsubscribed') list = list.filter((c) => c.email_address.permission_to_send === 'unsubscribed');
      else if (q.get('status') !== 'all') list = list.filter((c) => c.email_address.permission_to_send !== 'unsubscribed');
      const email = q.get('email');
      if (email) list = list.filter((c) => c.email_address.address.toLowerCase() === email.toLowerCase());
      const after = q.get('updated_after');
      const before = q.get('updated_before');
      if (after) list = list.filter((c) => Date.parse(c.updated_at) > Date.parse(after));
      if (before) list = list.filter((c) => Date.parse(c.updated_at) < Date.parse(before));
      // not promised in date order: newest first, as the account's contact list shows them
      list.sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at));
      lastInclude = q.get('include') ?? '';
      return page({ list, offset: 0, limit }, lastInclude);
    }
    if (method === 'POST' && path === '/v3/contacts/sign_up_form') {
      const email = typeof body.email_address === 'string' ? body.email_address : '';
      if (!EMAIL.test(email)) return err(400, 'contacts.api.validation.error', `Email address ${email} is invalid.`);
      const lists = body.list_memberships as string[] | undefined;
      if (!lists?.length) return err(400, 'contacts.api.validation.error', 'list_memberships is required.');
      if (lists.some((l) => l !== CC_LIST)) return err(404, 'contacts.api.not.found', 'List not found.');
      let c = byEmail(email);
      const created = !c;
      if (!c) c = fake.add({ email });
      // as documented: the contact is marked as having given explicit permission, unsubscribed or not
      c.email_address.permission_to_send = 'explicit';
      for (const k of ['first_name', 'last_name', 'job_title', 'company_name'] as const) if (typeof body[k] === 'string') c[k] = body[k] as string;
      if (typeof body.phone_number === 'string') c.phone_numbers = [{ phone_number: body.phone_number, kind: 'home' }];
      if (body.street_address) c.street_addresses = [body.street_address as CcContact['street_addresses'][number]];
      for (const cf of (body.custom_fields as { custom_field_id: string; value: string }[] | undefined) ?? []) {
        c.custom_fields = [...c.custom_fields.filter((x) => x.custom_field_id !== cf.custom_field_id), cf];
      }
      c.list_memberships = [...new Set([...c.list_memberships, ...lists])];
      c.updated_at = stamp();
      return [created ? 201 : 200, { contact_id: c.contact_id, action: created ? 'created' : 'updated' }];
    }
    if (method === 'POST' && path === '/v3/activities/contacts_json_import') {
      const rows = body.import_data as Record<string, string>[] | undefined;
      const lists = body.list_ids as string[] | undefined;
      if (!Array.isArray(rows) || !rows.length) return err(400, 'activities.api.validation.error', 'import_data is required.');
      if (!lists?.length) return err(400, 'activities.api.validation.error', 'list_ids is required.');
      if (lists.some((l) => l !== CC_LIST)) return err(404, 'activities.api.not.found', 'List not found.');
      if (rows.length > 40_000) return err(400, 'activities.api.validation.error', 'import_data holds more than 40000 contacts.');
      const id = randomUUID();
      const created = stamp();
      imports.set(id, { looks: 0, rows, lists, created, errors: [] });
      return [201, { activity_id: id, state: 'initialized', created_at: created, updated_at: created, percent_done: 0, activity_errors: [], _links: { self: { href: `/v3/activities/${id}` } } }];
    }
    const act = /^\/v3\/activities\/([0-9a-f-]{36})$/.exec(path);
    if (method === 'GET' && act) {
      const job = imports.get(act[1]!);
      if (!job) return err(404, 'activities.api.not.found', 'Activity not found.');
      job.looks++;
      if (job.looks === 1) return [200, { activity_id: act[1], state: 'processing', created_at: job.created, updated_at: stamp(), percent_done: 40, activity_errors: [] }];
      if (!job.status) {
        let refused = 0, notListed = 0;
        for (const row of job.rows) {
          const email = typeof row.email === 'string' ? row.email : '';
          if (!EMAIL.test(email)) { refused++; job.errors.push(`Invalid email address: ${email}`); continue; }
          let c = byEmail(email);
          // as documented: new contacts are implicit; an existing contact keeps its permission
          if (!c) { c = fake.add({ email, permission: 'implicit' }); c.list_memberships = []; }
          for (const k of ['first_name', 'last_name', 'job_title', 'company_name'] as const) if (row[k] !== undefined) c[k] = row[k];
          if (row.phone !== undefined) c.phone_numbers = [{ phone_number: row.phone, kind: 'other' }, ...c.phone_numbers.slice(1)];
          const home: Record<string, string> = {};
          for (const [part, key] of [['street', 'home_street'], ['city', 'home_city'], ['state', 'home_state'], ['postal_code', 'home_zip'], ['country', 'home_country']] as const) if (row[key] !== undefined) home[part] = row[key];
          if (Object.keys(home).length) c.street_addresses = [{ kind: 'home', ...c.street_addresses.find((a) => a.kind === 'home'), ...home }, ...c.street_addresses.filter((a) => a.kind !== 'home')];
          for (const [k, v] of Object.entries(row)) {
            if (!k.startsWith('cf:')) continue;
            const f = customFields.find((x) => x.name === k.slice(3));
            if (f) c.custom_fields = [...c.custom_fields.filter((x) => x.custom_field_id !== f.custom_field_id), { custom_field_id: f.custom_field_id, value: v }];
          }
          if (c.email_address.permission_to_send === 'unsubscribed') notListed++;
          else c.list_memberships = [...new Set([...c.list_memberships, ...job.lists])];
          c.updated_at = stamp();
        }
        job.status = { items_total_count: job.rows.length, person_count: job.rows.length - refused, error_count: 0, correctable_count: refused, cannot_add_to_list_count: notListed };
      }
      return [200, { activity_id: act[1], state: 'completed', created_at: job.created, started_at: job.created, completed_at: stamp(), updated_at: stamp(), percent_done: 100, activity_errors: job.errors, status: job.status }];
    }
    const m = /^\/v3\/contacts\/([0-9a-f-]{36})$/.exec(path);
    if (!m) return null;
    const c = contacts.get(m[1]!);
    if (!c) return err(404, 'contacts.api.not.found', 'Contact not found.');
    if (method === 'GET') return [200, view(c, q.get('include') ?? '')];
    if (method !== 'PUT') return null;
    if (body.update_source !== 'Account' && body.update_source !== 'Contact') return err(400, 'contacts.api.validation.error', 'update_source is required.');
    const address = (body.email_address as { address?: string } | undefined)?.address ?? '';
    if (!EMAIL.test(address)) return err(400, 'contacts.api.validation.error', `Email address ${address} is invalid.`);
    // PUT replaces the contact; the permission to send changes only when it is sent
    const permission = (body.email_address as { permission_to_send?: string }).permission_to_send;
    c.email_address = { address, permission_to_send: permission ?? c.email_address.permission_to_send };
    for (const k of ['first_name', 'last_name', 'job_title', 'company_name'] as const) c[k] = body[k] as string | undefined;
    c.phone_numbers = (body.phone_numbers as CcContact['phone_numbers'] | undefined) ?? [];
    c.street_addresses = (body.street_addresses as CcContact['street_addresses'] | undefined) ?? [];
    c.custom_fields = (body.custom_fields as CcContact['custom_fields'] | undefined) ?? [];
    c.list_memberships = (body.list_memberships as string[] | undefined) ?? [];
    c.updated_at = stamp();
    return [200, view(c, 'custom_fields,list_memberships,phone_numbers,street_addresses')];
  }

  const server = await startVendorServer((req, res) => {
    const path = req.url.pathname;
    seen.push({ method: req.method, path, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    if (req.method === 'POST' && path === '/oauth2/default/v1/token') {
      const form = new URLSearchParams(req.raw);
      const basic = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
      if (basic !== `${CC_APP.clientId}:${CC_APP.clientSecret}`) return sendJson(res, 401, { error: 'invalid_client', error_description: 'Client authentication failed.' });
      if (form.get('grant_type') === 'authorization_code') {
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (!issued || issued.redirectUri !== form.get('redirect_uri') || createHash('sha256').update(verifier, 'ascii').digest('base64url') !== issued.challenge) {
          return sendJson(res, 400, { error: 'invalid_grant', error_description: 'The authorization code is invalid or has expired.' });
        }
        refresh = `cc-refresh-${randomUUID().slice(0, 8)}`;
        const access = `cc-access-${randomUUID().slice(0, 8)}`;
        tokens.set(access, Date.now() + 86_400_000);
        return sendJson(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 86_400, refresh_token: refresh, scope: 'account_read contact_data offline_access' });
      }
      if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== refresh) {
        return sendJson(res, 400, { error: 'invalid_grant', error_description: 'The refresh token is invalid or expired.' });
      }
      refreshCount++;
      refresh = `cc-refresh-${randomUUID().slice(0, 8)}`;
      const access = `cc-access-${randomUUID().slice(0, 8)}`;
      tokens.set(access, Date.now() + 86_400_000);
      return sendJson(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 86_400, refresh_token: refresh, scope: 'account_read contact_data offline_access' });
    }
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!((tokens.get(token) ?? 0) > Date.now())) return sendJson(res, 401, [{ error_key: 'unauthorized', error_message: 'Unauthorized' }]);
    if (throttled > 0) { throttled--; return sendJson(res, 429, [{ error_key: 'too_many_requests', error_message: 'Too many requests. Rate limit exceeded.' }]); }
    const answer = route(req.method, path, req.url.searchParams, (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>)
      ?? err(404, 'not.found', 'Resource not found.');
    sendJson(res, answer[0], answer[1]);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
