/**
 * Constant Contact (API v3, https://api.cc.email/v3) as a source and a destination, on the
 * connector kit.
 *
 * Sign-in: OAuth 2.0 (Connect, with PKCE; consent at authz.constantcontact.com). The refresh token
 * is exchanged at /oauth2/default/v1/token with the application's id and secret as HTTP Basic;
 * Constant Contact rotates refresh tokens, and the kit's grant store saves each new one at once.
 * Limits: four calls a second per application, its API key (paced here), and a daily allowance; a 429 is waited
 * out through the client. Error bodies are lists of { error_key, error_message }.
 *
 * Source: contacts updated after the watermark (`updated_after`, every status), with their list
 * memberships, phone, street address and custom fields (`include=`), paged by the cursor in
 * `_links.next.href`. The answer is not promised in date order, so the watermark moves to the
 * latest `updated_at` seen only once the last page is stored; a pull under way keeps its cursor.
 *
 * Destination: contacts, found by e-mail only (`GET /contacts?email=`): a scenario without the
 * e-mail address is refused when saved. A new contact is created with `POST
 * /contacts/sign_up_form` (create or update by e-mail) into the destination settings' contact
 * list. Consent is the contact's: sign_up_form marks an existing contact as having given explicit
 * permission (an unsubscribed one too), so a contact that exists is never sent there; it is read
 * and written back whole with `PUT /contacts/{id}` (`update_source: Account`), its permission to
 * send and its lists as they were. Tributary never changes a contact's permission to send.
 * A send of CONSTANT_CONTACT_BULK_FROM or more new contacts (no match found) goes as one JSON import
 * activity (`/activities/contacts_json_import`) into that list, looked at until completed, the
 * contacts' ids read back afterwards by `updated_after`; an address of a contact who unsubscribed
 * is never imported but written alone, and matched contacts are written alone as above.
 *
 * Fields: the contact's own, and the account's custom fields from `/contact_custom_fields`.
 */
import { createHash } from 'node:crypto';
import { constantContact } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, processingError, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchQuery,
  type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { emailOnlyProblem, holdsAll } from '../kit/criteria.ts';
import { awaitJob } from '../kit/exportJob.ts';
import { once } from '../kit/memo.ts';
import { oauthSession, type OAuthSession } from '../kit/oauthSession.ts';
import { sharedPacer } from '../kit/pace.ts';
import { laterStamp, linkPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { eachRecord, failedResult, writtenResult, resultsInOrder } from '../kit/results.ts';
import { refreshTokenGrant } from '../kit/tokenExchange.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { oauthClient } from '../oauth/flow.ts';

const NAME = 'Constant Contact';
export const CONSTANT_CONTACT_API = 'https://api.cc.email';
export const CONSTANT_CONTACT_TOKEN_URL = 'https://authz.constantcontact.com/oauth2/default/v1/token';
/** contacts a page: the most /contacts answers */
export const CC_PAGE = 500;
const CALLS_PER_SECOND = 4;
/** access tokens live a day unless the answer says */
const TOKEN_LIFETIME_S = 86_400;
const INCLUDE = 'custom_fields,list_memberships,phone_numbers,street_addresses';

/** Constant Contact's words: each error's error_message (the key when there is none). */
export function ccMessageOf(body: unknown): string {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' ? [body] : [];
  return list.map((e) => {
    const o = (e ?? {}) as { error_message?: unknown; error_key?: unknown; error?: unknown };
    return typeof o.error_message === 'string' ? o.error_message : typeof o.error_key === 'string' ? o.error_key : typeof o.error === 'string' ? o.error : '';
  }).filter(Boolean).join('; ').slice(0, 500);
}

interface CC { client: VendorClient; session: OAuthSession }

export function constantContactSession(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): CC {
  const session = oauthSession({
    system: 'constant-contact', name: NAME, settings: ctx.settings, store: ctx.dataSourceId ? ctx.grant : undefined,
    exchange: (settings) => refreshTokenGrant({
      system: 'constant-contact', name: NAME, url: CONSTANT_CONTACT_TOKEN_URL, clientAuthentication: 'basic', settings, signal: ctx.signal, defaultLifetimeS: TOKEN_LIFETIME_S,
    }),
  });
  // the limit is the application's (its API key), whichever account it calls
  const key = createHash('sha256').update(`cc:${oauthClient('constant-contact', ctx.settings)?.clientId ?? ''}`).digest('hex');
  const client = vendorClient({
    system: 'constant-contact', name: NAME, baseUrl: CONSTANT_CONTACT_API, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`constant-contact:${key}`, CALLS_PER_SECOND),
    auth: async (force) => ({ authorization: `Bearer ${await session.accessToken(force)}` }),
    messageOf: ccMessageOf,
  });
  return { client, session };
}

interface CustomField { custom_field_id: string; name?: string; label?: string; type?: string }
interface Contact {
  contact_id: string;
  email_address?: { address?: string; permission_to_send?: string };
  first_name?: string; last_name?: string; job_title?: string; company_name?: string;
  phone_numbers?: { phone_number?: string; kind?: string }[];
  street_addresses?: { kind?: string; street?: string; city?: string; state?: string; postal_code?: string; country?: string }[];
  custom_fields?: { custom_field_id: string; value?: string }[];
  list_memberships?: string[];
  created_at?: string; updated_at?: string;
}

const PLAIN = ['first_name', 'last_name', 'job_title', 'company_name'] as const;
const ADDRESS = ['street', 'city', 'state', 'postal_code', 'country'] as const;

const FIXED: FieldInfo[] = [
  { name: 'contact_id', label: 'Contact ID', type: 'string', readOnly: true },
  { name: 'email_address', label: 'E-mail address', type: 'email', required: true, searchable: true },
  { name: 'first_name', label: 'First name', type: 'string' },
  { name: 'last_name', label: 'Last name', type: 'string' },
  { name: 'job_title', label: 'Job title', type: 'string' },
  { name: 'company_name', label: 'Company', type: 'string' },
  { name: 'phone_number', label: 'Phone', type: 'phone' },
  ...ADDRESS.map((p): FieldInfo => ({ name: `street_address.${p}`, label: `Address (${p.replace('_', ' ')})`, type: 'string' })),
  // consent is the contact's: read, never written
  { name: 'permission_to_send', label: 'Permission to send (read only: Tributary never changes a contact\'s consent)', type: 'string', readOnly: true },
  { name: 'list_memberships', label: 'Contact lists (read only; new contacts join the list the destination settings name)', type: 'string', readOnly: true },
  { name: 'created_at', label: 'Created', type: 'datetime', readOnly: true },
  { name: 'updated_at', label: 'Updated', type: 'datetime', readOnly: true },
];

const CF_TYPES: Record<string, FieldInfo['type']> = { date: 'date' };

function customFields(ctx: ConnectorContext, cc: CC): Promise<CustomField[]> {
  return once(ctx, 'constant-contact:custom-fields', async () => {
    const answer = await cc.client.call<{ custom_fields?: CustomField[] }>({ path: '/v3/contact_custom_fields', query: { limit: 100 } });
    return (answer.custom_fields ?? []).filter((f) => f.custom_field_id && f.name);
  });
}

const customKey = (f: CustomField) => `custom.${f.name}`;

function objectOf(object: string): 'contacts' {
  if (object === 'contacts') return object;
  throw new ConnectorInputError(`Tributary reads and writes Constant Contact contacts; ${object} is not one of them yet.`);
}

export function contactRecord(c: Contact, custom: CustomField[]): SourceRecord {
  const byId = new Map(custom.map((f) => [f.custom_field_id, f]));
  const address = c.street_addresses?.[0];
  const fields: Record<string, unknown> = {
    contact_id: c.contact_id, email_address: c.email_address?.address, permission_to_send: c.email_address?.permission_to_send,
    ...Object.fromEntries(PLAIN.map((k) => [k, c[k]])),
    phone_number: c.phone_numbers?.[0]?.phone_number,
    ...Object.fromEntries(ADDRESS.map((p) => [`street_address.${p}`, address?.[p]])),
    list_memberships: c.list_memberships?.length ? c.list_memberships.join(', ') : undefined,
    created_at: c.created_at, updated_at: c.updated_at,
  };
  for (const v of c.custom_fields ?? []) {
    const f = byId.get(v.custom_field_id);
    if (f) fields[customKey(f)] = v.value;
  }
  return { id: c.contact_id, fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== '')) };
}

/** ISO 8601 as Constant Contact takes it */
const iso = (d: string | Date) => new Date(d).toISOString();

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  objectOf(object);
  const cc = constantContactSession(ctx);
  const custom = await customFields(ctx, cc);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const limit = Math.min(options?.batchSize ?? CC_PAGE, CC_PAGE);
  const first = `/v3/contacts?${new URLSearchParams({
    status: 'all', include: INCLUDE, limit: String(limit),
    ...(from ? { updated_after: iso(from) } : {}),
    ...(window ? { updated_before: iso(window.to) } : {}),
  })}`;
  for await (const page of linkPages(at.next ?? first, async (link) => {
    const answer = await cc.client.call<{ contacts?: Contact[]; _links?: { next?: { href?: string } } }>({ path: link });
    return { items: answer.contacts ?? [], next: answer._links?.next?.href ?? null };
  })) {
    const records = page.items.map((c) => contactRecord(c, custom))
      .filter((r) => !window || !r.fields.updated_at || Date.parse(r.fields.updated_at as string) < window.to.getTime());
    for (const r of records) latest = laterStamp(latest, r.fields.updated_at ? iso(r.fields.updated_at as string) : null);
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

async function contactsByEmail(cc: CC, email: string): Promise<Contact[]> {
  const answer = await cc.client.call<{ contacts?: Contact[] }>({ path: '/v3/contacts', query: { email: email.trim(), status: 'all', include: INCLUDE } });
  return answer.contacts ?? [];
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  objectOf(object);
  const cc = constantContactSession(ctx);
  const custom = await customFields(ctx, cc);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const email = q.criteria.find((c) => c.field === 'email_address' && (c.operator ?? 'equals') === 'equals');
    const byId = q.criteria.find((c) => c.field === 'contact_id');
    if (!email && !byId) throw new ConnectorInputError('Constant Contact finds contacts by e-mail address only.');
    let found: Contact[] = [];
    if (email) found = email.value.trim() ? await contactsByEmail(cc, email.value) : [];
    else {
      try { found = [await cc.client.call<Contact>({ path: `/v3/contacts/${encodeURIComponent(byId!.value.trim())}`, query: { include: INCLUDE } })]; } catch (err) {
        if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
      }
    }
    // Constant Contact's e-mail search is exact; the scenario's other criteria are compared here
    out.push(found.map((c) => contactRecord(c, custom)).filter((r) => holdsAll(r.fields, q.criteria.filter((c) => c !== byId))).slice(0, q.limit ?? 10));
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

/** The mapped fields, as the parts of a contact they change (a field not mapped is left as it is). */
function parts(fields: Record<string, unknown>, custom: CustomField[]) {
  const byKey = new Map(custom.map((f) => [customKey(f), f]));
  const plain: Record<string, string> = {};
  const address: Record<string, string> = {};
  const customValues: { custom_field_id: string; value: string }[] = [];
  let phone: string | undefined;
  const unknown: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'email_address' || FIXED.some((f) => f.name === k && f.readOnly)) continue;
    if ((PLAIN as readonly string[]).includes(k)) plain[k] = text(v);
    else if (k === 'phone_number') phone = text(v);
    else if (k.startsWith('street_address.')) address[k.slice('street_address.'.length)] = text(v);
    else if (byKey.has(k)) customValues.push({ custom_field_id: byKey.get(k)!.custom_field_id, value: text(v) });
    else unknown.push(k);
  }
  return { email: text(fields.email_address), plain, address, customValues, phone, unknown };
}

/** From this many contacts that can go in an import, a send goes as one import activity instead of calls a contact. */
export const CONSTANT_CONTACT_BULK_FROM = 100;

const NO_LIST = 'Choose the Constant Contact list new contacts join (its contact list ID) in the formula\'s destination settings.';

interface Activity {
  activity_id?: string; state?: string; created_at?: string; percent_done?: number;
  activity_errors?: (string | { message?: string })[];
  status?: { items_total_count?: number; error_count?: number; correctable_count?: number; cannot_add_to_list_count?: number };
}
const activityErrors = (a: Activity | null | undefined) => (a?.activity_errors ?? []).map((e) => (typeof e === 'string' ? e : e?.message ?? '')).filter(Boolean);

/** A contact as the JSON import documents it: the e-mail, the contact's own fields, the home address, custom fields as `cf:<name>`. */
function importRow(p: ReturnType<typeof parts>, custom: CustomField[]): Record<string, string> {
  const nameOf = new Map(custom.map((f) => [f.custom_field_id, f.name!]));
  const row: Record<string, string> = { email: p.email, ...p.plain };
  if (p.phone !== undefined) row.phone = p.phone;
  for (const [k, v] of Object.entries(p.address)) row[`home_${k === 'postal_code' ? 'zip' : k}`] = v;
  for (const c of p.customValues) row[`cf:${nameOf.get(c.custom_field_id)}`] = c.value;
  // an empty value is left out: the import leaves what it is not given as it was
  return Object.fromEntries(Object.entries(row).filter(([k, v]) => k === 'email' || v !== ''));
}

/**
 * The addresses of the account's unsubscribed contacts, 500 a page. Constant Contact's guides
 * differ on whether an import may opt such a contact back in, so they are never sent in one.
 */
async function unsubscribedContacts(cc: CC): Promise<{ emails: Set<string> }> {
  const emails = new Set<string>();
  for await (const page of linkPages(`/v3/contacts?${new URLSearchParams({ status: 'unsubscribed', limit: String(CC_PAGE) })}`, async (link) => {
    const answer = await cc.client.call<{ contacts?: Contact[]; _links?: { next?: { href?: string } } }>({ path: link });
    return { items: answer.contacts ?? [], next: answer._links?.next?.href ?? null };
  })) {
    for (const c of page.items) {
      if (c.email_address?.address) emails.add(c.email_address.address.toLowerCase());
    }
  }
  return { emails };
}

/**
 * Many contacts at once: one POST /activities/contacts_json_import into the destination list,
 * looked at under /activities/{id} until completed. The import names no contacts, so their ids
 * are read afterwards from the contacts changed since it began (500 a page), matched by e-mail;
 * one not among them is looked for by its address, and else fails in the import's words.
 */
async function importContacts(ctx: ConnectorContext, cc: CC, custom: CustomField[], listId: string, ready: { item: UpsertItem; p: ReturnType<typeof parts> }[]): Promise<UpsertResult[]> {
  const began = Date.now();
  const started = await cc.client.call<Activity>({
    method: 'POST', path: '/v3/activities/contacts_json_import',
    json: { import_data: ready.map((r) => importRow(r.p, custom)), list_ids: [listId] },
  });
  if (!started?.activity_id) throw processingError('Constant Contact took the import without naming its activity.');
  const done = await awaitJob<Activity>({
    name: NAME, signal: ctx.signal, doing: 'importing the contacts',
    look: () => cc.client.call<Activity>({ path: `/v3/activities/${encodeURIComponent(started.activity_id!)}` }),
    state: (a) => (a.state === 'completed' ? 'done' : a.state === 'failed' || a.state === 'cancelled' || a.state === 'timed_out' ? 'failed' : 'waiting'),
    failed: (a) => `Constant Contact could not import the contacts (${a.state}): ${activityErrors(a).join('; ') || 'it gave no reason'}.`,
  });
  // from when the import began by either clock, a minute early: a few contacts too many cost nothing
  const since = Math.min(began, Date.parse(started.created_at ?? '') || began) - 60_000;
  const idOf = new Map<string, string>();
  for await (const page of linkPages(`/v3/contacts?${new URLSearchParams({ status: 'all', limit: String(CC_PAGE), updated_after: iso(new Date(since)) })}`, async (link) => {
    const answer = await cc.client.call<{ contacts?: Contact[]; _links?: { next?: { href?: string } } }>({ path: link });
    return { items: answer.contacts ?? [], next: answer._links?.next?.href ?? null };
  })) {
    for (const c of page.items) if (c.email_address?.address) idOf.set(c.email_address.address.toLowerCase(), c.contact_id);
  }
  const errors = activityErrors(done);
  const out: UpsertResult[] = [];
  for (const { item, p } of ready) {
    const email = p.email.toLowerCase();
    let id = idOf.get(email);
    if (!id) {
      // an import that changed nothing may leave the contact's date as it was
      try { id = (await contactsByEmail(cc, p.email))[0]?.contact_id; } catch (err) {
        if (!(err instanceof VendorRefusal)) throw err;
      }
    }
    if (id) { out.push(writtenResult(item, id, !item.id)); continue; }
    const said = errors.find((e) => e.toLowerCase().includes(email));
    out.push(failedResult(item, `Constant Contact did not import the contact: ${said ?? `no contact has the address ${p.email} after the import; check the address`}.`.replace(/\.\.$/, '.')));
  }
  return out;
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object);
  const cc = constantContactSession(ctx);
  const custom = await customFields(ctx, cc);
  const listId = ctx.endSettings?.listId?.trim() ?? '';
  // only contacts the engine found no match for: an import adds each contact to the list, and one
  // that exists keeps its lists as they are (written back whole, alone)
  const importable = items.map((item) => ({ item, p: parts(item.fields, custom) })).filter((r) => r.p.email && !r.p.unknown.length && !r.item.id);
  if (importable.length < CONSTANT_CONTACT_BULK_FROM) return eachRecord(NAME, 'contact', items, (item, fail) => writeOne(cc, custom, listId, item, fail));
  if (!listId) throw new ConnectorInputError(NO_LIST);
  // whoever unsubscribed is written on their own (PUT keeps the permission and the lists as they are)
  const left = await unsubscribedContacts(cc);
  const bulk = importable.filter((r) => !left.emails.has(r.p.email.toLowerCase()));
  const inBulk = new Set(bulk.map((r) => r.item));
  const results = resultsInOrder(items);
  if (bulk.length) results.add(await importContacts(ctx, cc, custom, listId, bulk));
  const alone = await eachRecord(NAME, 'contact', items.filter((i) => !inBulk.has(i)), (item, fail) => writeOne(cc, custom, listId, item, fail));
  results.add(alone);
  return results.all();
}

/** One contact on its own: read (by id, else by e-mail), then signed up when new or written back whole. */
async function writeOne(cc: CC, custom: CustomField[], listId: string, item: UpsertItem, fail: (error: string) => UpsertResult): Promise<UpsertResult> {
  const p = parts(item.fields, custom);
  if (p.unknown.length) return fail(`Constant Contact contacts have no field ${p.unknown.join(', ')}.`);
  // the contact as it is now: the one matched, else any with this address (never created twice)
  let current: Contact | null = null;
  if (item.id) current = await cc.client.call<Contact>({ path: `/v3/contacts/${encodeURIComponent(item.id)}`, query: { include: INCLUDE } });
  else if (p.email) current = (await contactsByEmail(cc, p.email))[0] ?? null;
  if (!current) {
    if (!p.email) return fail('Constant Contact creates a contact by its e-mail address, and this record has none.');
    if (!listId) throw new ConnectorInputError(NO_LIST);
    const made = await cc.client.call<{ contact_id?: string; action?: string }>({
      method: 'POST', path: '/v3/contacts/sign_up_form',
      json: {
        email_address: p.email, ...p.plain, list_memberships: [listId],
        ...(p.phone ? { phone_number: p.phone } : {}),
        ...(Object.keys(p.address).length ? { street_address: { kind: 'home', ...p.address } } : {}),
        ...(p.customValues.length ? { custom_fields: p.customValues } : {}),
      },
    });
    if (!made?.contact_id) throw new VendorRefusal(NAME, 200, 'the sign-up answered without a contact id');
    return writtenResult(item, made.contact_id, made.action !== 'updated');
  }
  // written back whole: PUT replaces the contact, so what is not mapped is sent as it was
  const customs = new Map((current.custom_fields ?? []).map((c) => [c.custom_field_id, c.value ?? '']));
  for (const c of p.customValues) customs.set(c.custom_field_id, c.value);
  const phones = current.phone_numbers ?? [];
  const addresses = current.street_addresses ?? [];
  const body = {
    // the address as Constant Contact has it, unless the record changes it
    email_address: { address: p.email && p.email.toLowerCase() !== (current.email_address?.address ?? '').toLowerCase() ? p.email : current.email_address?.address },
    ...Object.fromEntries(PLAIN.map((k) => [k, k in p.plain ? p.plain[k] : current[k]]).filter(([, v]) => v !== undefined)),
    ...(p.phone !== undefined ? { phone_numbers: p.phone ? [{ phone_number: p.phone, kind: phones[0]?.kind ?? 'home' }, ...phones.slice(1)] : phones.slice(1) } : phones.length ? { phone_numbers: phones } : {}),
    ...(Object.keys(p.address).length ? { street_addresses: [{ kind: 'home', ...addresses[0], ...p.address }, ...addresses.slice(1)] } : addresses.length ? { street_addresses: addresses } : {}),
    custom_fields: [...customs].map(([custom_field_id, value]) => ({ custom_field_id, value })).filter((c) => c.value !== ''),
    list_memberships: current.list_memberships ?? [],
    update_source: 'Account',
  };
  const saved = await cc.client.call<Contact>({ method: 'PUT', path: `/v3/contacts/${encodeURIComponent(current.contact_id)}`, json: body });
  return writtenResult(item, saved?.contact_id ?? current.contact_id, false);
}

export const constantContactConnector: Connector = {
  system: 'constant-contact',
  async test(ctx) {
    const cc = constantContactSession(ctx);
    await cc.session.exchangeNow();
    const summary = await cc.client.call<{ organization_name?: string }>({ path: '/v3/account/summary' });
    const rotated = cc.session.rotated();
    return {
      detail: `Signed in to ${NAME}${summary?.organization_name ? ` for ${summary.organization_name}` : ''}.`,
      ...(rotated ? { updatedSecrets: rotated } : {}),
    };
  },
  async listObjects() {
    return constantContact.objects.filter((o) => o.name === 'contacts');
  },
  async describeFields(ctx, object) {
    objectOf(object);
    const custom = await customFields(ctx, constantContactSession(ctx));
    return [...FIXED, ...custom.map((f): FieldInfo => ({ name: customKey(f), label: f.label || f.name!, type: CF_TYPES[f.type ?? ''] ?? 'string' }))];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== 'contacts') return `Tributary writes Constant Contact contacts; ${object} is not one of them yet.`;
    return emailOnlyProblem(NAME, 'contacts', 'email_address', 'contact_id', scenarios);
  },
};

