/**
 * Mobile Commons (Upland) as a source and a destination of profiles, on the connector kit: HTTP
 * Basic with the user's e-mail and password at https://secure.mcommons.com/api/ (with `company`
 * for a login with several companies). Answers are XML, read with the project's XML parser
 * (mobileCommons/xml.ts); a refusal is `<response success="false"><error id=".." message=".."/>`,
 * usually with HTTP 200.
 *
 * Source: profiles updated in a window (`GET /api/profiles?from=&to=&page=&limit=`), each with its
 * address and custom columns. The window ends when the pull starts; the next pull starts there,
 * and a pull stopped between pages goes on from the next page of the same window.
 *
 * Destination: profiles by phone number, Mobile Commons' own key: found with `GET
 * /api/profile?phone_number=` and written with `POST /api/profile_update` (a form), which creates
 * or updates the profile of that number, so sending one again changes the same profile. A scenario
 * without the phone number cannot be answered and is refused when saved. Consent is the
 * subscriber's: an opt-in path is sent only when the formula maps it, and nothing here opts anyone
 * out.
 */
import { mobileCommons } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, processingError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions,
  type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { lowered, meets } from '../kit/criteria.ts';
import { positionSince, type PullPosition } from '../kit/paging.ts';
import { vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { basic } from '../vendorHttp.ts';
import { child, children, parseXml, textOf, type XmlElement } from '../kit/xml.ts';

const NAME = 'Mobile Commons';
const BASE = 'https://secure.mcommons.com';
/** profiles a page */
export const MC_PAGE = 1000;
const OBJECT = 'profiles';
const XML = 'application/xml';

export function mobileCommonsClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  return vendorClient({
    system: 'mobile-commons', name: NAME, baseUrl: BASE, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    credential: 'e-mail and password',
    auth: async () => ({ authorization: basic(ctx.settings.username ?? '', ctx.settings.password ?? '') }),
    messageOf: (_body, text) => errorOf(parseXml(text))?.message ?? '',
  });
}

/** A refusal Mobile Commons answered: its error's id and words. */
export class McRefusal extends Error {
  override readonly name = 'McRefusal';
  constructor(readonly id: string, message: string) { super(message); }
}

function errorOf(doc: XmlElement | null): { id: string; message: string } | null {
  if (!doc || doc.name !== 'response' || doc.attributes.success !== 'false') return null;
  const e = child(doc, 'error');
  return { id: e?.attributes.id ?? '', message: e?.attributes.message ?? e?.text.trim() ?? '' };
}

/** Mobile Commons error ids that mean the login itself was refused */
const SIGN_IN = new Set(['1', '2']);

/** The answer read: its <response>, or the refusal thrown (a refused login as a refused connection). */
async function answer(client: VendorClient, req: Parameters<VendorClient['text']>[0]): Promise<XmlElement> {
  const doc = parseXml(await client.text(req));
  if (!doc || doc.name !== 'response') throw processingError(`${NAME} answered with something other than its XML.`);
  const error = errorOf(doc);
  if (error) {
    if (SIGN_IN.has(error.id)) throw refused(`${NAME} refused the e-mail and password${error.message ? `: ${error.message}` : '.'}`);
    throw new McRefusal(error.id, error.message || `error ${error.id}`);
  }
  if (doc.attributes.success !== 'true') throw processingError(`${NAME} did not answer as its API documents.`);
  return doc;
}

const company = (ctx: ConnectorContext): Record<string, string> => (ctx.settings.companyKey ? { company: ctx.settings.companyKey } : {});

function objectOf(object: string): void {
  if (object !== OBJECT) throw new ConnectorInputError(`Tributary reads and writes Mobile Commons profiles; ${object} is not one of them yet.`);
}

const ADDRESS = ['street1', 'street2', 'city', 'state', 'postal_code', 'country'] as const;
const FIXED: FieldInfo[] = [
  { name: 'id', label: 'Profile ID', type: 'string', readOnly: true },
  { name: 'phone_number', label: 'Phone number', type: 'phone', required: true, searchable: true },
  { name: 'email', label: 'E-mail address', type: 'email', searchable: true },
  { name: 'first_name', label: 'First name', type: 'string', searchable: true },
  { name: 'last_name', label: 'Last name', type: 'string', searchable: true },
  ...ADDRESS.map((a): FieldInfo => ({ name: a, label: a.replace('_', ' ').replace(/^\w/, (c) => c.toUpperCase()), type: 'string' })),
  // consent: sent only when mapped; it subscribes the number through that opt-in path
  { name: 'opt_in_path_id', label: 'Opt-in path ID (subscribes the number: map it only on purpose)', type: 'string' },
  { name: 'status', label: 'Status', type: 'string', readOnly: true },
  { name: 'opted_out_at', label: 'Opted out on', type: 'datetime', readOnly: true },
  { name: 'created_at', label: 'Created on', type: 'datetime', readOnly: true },
  { name: 'updated_at', label: 'Updated on', type: 'datetime', readOnly: true },
];
const READ_ONLY = new Set(FIXED.filter((f) => f.readOnly).map((f) => f.name));

export function profileRecord(p: XmlElement): SourceRecord {
  const fields: Record<string, string> = { id: p.attributes.id ?? '' };
  for (const name of ['phone_number', 'email', 'first_name', 'last_name', 'status', 'opted_out_at', 'created_at', 'updated_at']) fields[name] = textOf(p, name);
  const address = child(p, 'address');
  for (const a of ADDRESS) fields[a] = textOf(address, a);
  for (const c of children(child(p, 'custom_columns'), 'custom_column')) if (c.attributes.name) fields[c.attributes.name] = c.text.trim();
  return { id: fields.id!, fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== '')) };
}

/** Mobile Commons' times ("2026-01-05 09:00:00 UTC") as ISO 8601 */
const isoOf = (t: string) => { const ms = Date.parse(t.replace(' UTC', 'Z').replace(' ', 'T')); return Number.isNaN(ms) ? t : new Date(ms).toISOString(); };

async function profilesPage(ctx: ConnectorContext, client: VendorClient, query: Record<string, string | number>): Promise<XmlElement[]> {
  const doc = await answer(client, { path: '/api/profiles', query: { ...company(ctx), ...query }, text: XML });
  return children(child(doc, 'profiles'), 'profile');
}

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  objectOf(object);
  const client = mobileCommonsClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  // the window's end, kept while a pull goes on page by page
  const to = at.latest ?? (window ? window.to : new Date()).toISOString();
  const limit = Math.min(options?.batchSize ?? MC_PAGE, MC_PAGE);
  for (let page = at.next ? Number(at.next) : 1; ; page++) {
    const profiles = await profilesPage(ctx, client, { ...(from ? { from } : {}), to, page, limit });
    const records = profiles.map(profileRecord).map((r) => ({ ...r, fields: { ...r.fields, ...(['created_at', 'updated_at', 'opted_out_at'] as const).reduce((o, k) => (r.fields[k] ? { ...o, [k]: isoOf(String(r.fields[k])) } : o), {}) } }));
    const last = profiles.length < limit;
    const position: PullPosition = last ? { since: to, next: null, latest: null } : { since: from, next: String(page + 1), latest: to };
    yield { records, watermark: JSON.stringify(position) };
    if (last) return;
  }
}

const digits = (v: unknown) => lowered(v).replace(/\D/g, '');

async function profileByPhone(ctx: ConnectorContext, client: VendorClient, phone: string): Promise<SourceRecord | null> {
  try {
    const doc = await answer(client, { path: '/api/profile', query: { ...company(ctx), phone_number: phone }, text: XML });
    const p = child(doc, 'profile');
    return p ? profileRecord(p) : null;
  } catch (err) {
    // no profile has that number (Mobile Commons says so as an invalid number)
    if (err instanceof McRefusal) return null;
    throw err;
  }
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  objectOf(object);
  const client = mobileCommonsClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const phone = q.criteria.find((c) => c.field === 'phone_number' && (c.operator ?? 'equals') === 'equals');
    if (!phone) throw new ConnectorInputError('Mobile Commons finds profiles by phone number only.');
    const found = digits(phone.value) ? await profileByPhone(ctx, client, phone.value.trim()) : null;
    const cmp = (field: string, v: unknown) => (field === 'phone_number' ? digits(v).replace(/^1(?=\d{10}$)/, '') : lowered(v));
    out.push(found && q.criteria.every((c) => meets(cmp(c.field, found.fields[c.field]), cmp(c.field, c.value), c.operator)) ? [found] : []);
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object);
  const client = mobileCommonsClient(ctx);
  const results: UpsertResult[] = [];
  for (const item of items) {
    const fail = (error: string) => results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error });
    const form = new URLSearchParams(company(ctx));
    for (const [k, v] of Object.entries(item.fields)) if (!READ_ONLY.has(k) && text(v)) form.set(k, text(v));
    if (!form.get('phone_number')) { fail(`${NAME} keeps a profile by phone number, and this record has none.`); continue; }
    try {
      // Mobile Commons' own upsert by phone number: sending it again changes the same profile
      const doc = await answer(client, { method: 'POST', path: '/api/profile_update', body: { text: form.toString(), contentType: 'application/x-www-form-urlencoded' }, text: XML });
      const id = child(doc, 'profile')?.attributes.id;
      if (!id) throw processingError(`${NAME} did not say which profile it wrote.`);
      results.push({ idempotencyKey: item.idempotencyKey, id, outcome: item.id ? 'updated' : 'created', replayed: false });
    } catch (err) {
      if (!(err instanceof McRefusal)) throw err;
      fail(`${NAME} refused the profile: ${err.message}`);
    }
  }
  return results;
}

export const mobileCommonsConnector: Connector = {
  system: 'mobile-commons',
  async test(ctx) {
    try {
      await answer(mobileCommonsClient(ctx), { path: '/api/campaigns', query: company(ctx), text: XML });
    } catch (err) {
      if (err instanceof McRefusal) throw refused(`${NAME} refused the e-mail and password: ${err.message}`);
      throw err;
    }
    return { detail: 'Signed in to Mobile Commons.' };
  },
  async listObjects() {
    return mobileCommons.objects.filter((o) => o.name === OBJECT);
  },
  async describeFields(ctx, object) {
    objectOf(object);
    // custom columns are not listed by the API: those of the latest profiles name them
    const recent = await profilesPage(ctx, mobileCommonsClient(ctx), { page: 1, limit: 50 });
    const custom = new Set<string>();
    for (const p of recent) for (const c of children(child(p, 'custom_columns'), 'custom_column')) if (c.attributes.name) custom.add(c.attributes.name);
    return [...FIXED, ...[...custom].filter((n) => !FIXED.some((f) => f.name === n)).map((name): FieldInfo => ({ name, label: `${name} (custom column)`, type: 'string' }))];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== OBJECT) return `Tributary writes Mobile Commons profiles; ${object} is not one of them yet.`;
    for (const s of scenarios) {
      if (!s.fields.includes('phone_number')) {
        return `Mobile Commons finds profiles by phone number only: the scenario "${s.name}" compares ${s.fields.join(', ') || 'nothing'}. Add the phone number to it.`;
      }
    }
    return null;
  },
};
