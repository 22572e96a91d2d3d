/**
 * Raiser's Edge NXT through SKY API, as a source and a destination.
 *
 * Source: constituents (`GET /constituent/v1/constituents`, `date_modified` on or after the
 * watermark) and gifts (`GET /gift/v1/gifts`, `last_modified`), page by page through `next_link`
 * as every SKY API list is read (lists.ts).
 *
 * Destination: constituents are searched with `/constituents/search` by lookup id, e-mail or name
 * (then read whole and compared on every criterion), created with their primary e-mail, phone and
 * address, and updated field by field (the e-mail, phone and address as child records). Gifts are
 * created against their constituent, in the destination's gift batch, with their fund, campaign
 * and appeal given by system record ID or by name (looked up in the Fundraising API's lists, once
 * a run). SKY API has no upsert key: every create goes through the kit's write ledger
 * (kit/writeOnce.ts).
 */
import { renxt } from '../../../src/domain/connectors/blackbaud.ts';
import {
  ConnectorInputError, type Connector, type ConnectorContext, type SearchCriterion, type SearchQuery, type SourceRecord,
  type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { meets } from '../kit/criteria.ts';
import { perRun } from '../kit/perRun.ts';
import { VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { writeLedger } from '../kit/writeOnce.ts';
import { skySession, skyTest, type Sky } from './client.ts';
import { SKY_PAGE as PAGE, skyListAll, skyPull, type ListAnswer, type SkyList } from './lists.ts';
import {
  addressBody, constituentBody, constituentRecord, giftRecord, RENXT_FIELDS, RENXT_REFERENCES, text, type RenxtObject,
} from './renxtFields.ts';

const NAME = "Raiser's Edge NXT";
/** candidates read whole per search: each costs one call of the daily quota */
const MAX_CANDIDATES = 10;

function objectOf(object: string): RenxtObject {
  if (object === 'constituents' || object === 'gifts') return object;
  throw new ConnectorInputError(`Tributary reads and writes Raiser's Edge NXT constituents and gifts; ${object} is not one of them yet.`);
}

const sky = (ctx: ConnectorContext): Sky => skySession(ctx, 'renxt', NAME);

const PULLS: Record<RenxtObject, SkyList> = {
  constituents: { path: '/constituent/v1/constituents', filter: 'date_modified', record: constituentRecord },
  gifts: { path: '/gift/v1/gifts', filter: 'last_modified', record: giftRecord },
};

const norm = (v: unknown) => (v === undefined || v === null ? '' : String(v)).trim().toLowerCase();
const digits = (v: unknown) => norm(v).replace(/\D/g, '');

function holds(record: SourceRecord, c: SearchCriterion): boolean {
  if (c.field === 'amount') return Number(record.fields.amount) === Number(String(c.value).replace(/[^0-9.-]/g, ''));
  const have = c.field === 'phone' ? digits(record.fields[c.field]) : norm(record.fields[c.field]);
  const want = c.field === 'phone' ? digits(c.value) : norm(c.value);
  if (!want) return false;
  return meets(have, want, c.operator);
}

async function constituentById(client: VendorClient, id: string): Promise<SourceRecord | null> {
  try {
    return constituentRecord(await client.call<Record<string, unknown>>({ path: `/constituent/v1/constituents/${encodeURIComponent(id)}` }));
  } catch (err) {
    if (err instanceof VendorRefusal && (err.status === 404 || err.status === 400)) return null;
    throw err;
  }
}

/**
 * One scenario's search: the most telling criterion goes to SKY API's search (lookup id, then
 * e-mail, then name), the hits are read whole, and only those that meet every criterion answer.
 */
async function searchConstituents(client: VendorClient, query: SearchQuery): Promise<SourceRecord[]> {
  const by = new Map(query.criteria.map((c) => [c.field, c]));
  const limit = Math.min(query.limit ?? MAX_CANDIDATES, MAX_CANDIDATES);
  const id = by.get('id');
  if (id) {
    const one = await constituentById(client, id.value.trim());
    return one && query.criteria.every((c) => holds(one, c)) ? [one] : [];
  }
  const lookupId = by.get('lookupId');
  const email = by.get('email');
  const first = by.get('firstName');
  const last = by.get('lastName');
  const search = lookupId ? { search_field: 'lookup_id', search_text: lookupId.value }
    : email ? { search_field: 'email_address', search_text: email.value }
      : last ? { search_field: 'name', search_text: [first?.operator === 'equals' || !first?.operator ? first?.value : undefined, last.value].filter(Boolean).join(' ') }
        : null;
  if (!search) {
    throw new ConnectorInputError(`Raiser's Edge NXT finds constituents by lookup ID, e-mail or last name; a scenario needs one of them (it has ${query.criteria.map((c) => c.field).join(', ')}).`);
  }
  const answer = await client.call<ListAnswer>({ path: '/constituent/v1/constituents/search', query: { ...search, search_text: search.search_text.trim(), limit: 25 } });
  const out: SourceRecord[] = [];
  for (const hit of answer.value ?? []) {
    if (out.length >= limit) break;
    const whole = await constituentById(client, String(hit.id));
    if (whole && query.criteria.every((c) => holds(whole, c))) out.push(whole);
  }
  return out;
}

/** A constituent's gifts: by its system record id, or its lookup id found first. */
async function searchGifts(client: VendorClient, query: SearchQuery): Promise<SourceRecord[]> {
  const byId = query.criteria.find((c) => c.field === 'constituentId');
  const byLookup = query.criteria.find((c) => c.field === 'constituentLookupId');
  if (!byId && !byLookup) throw new ConnectorInputError("Raiser's Edge NXT finds gifts by their constituent's system record ID or lookup ID.");
  const constituent = byId ? byId.value.trim() : (await searchConstituents(client, { criteria: [{ field: 'lookupId', value: byLookup!.value }], limit: 1 }))[0]?.id;
  if (!constituent) return [];
  const answer = await client.call<ListAnswer>({ path: '/gift/v1/gifts', query: { constituent_id: constituent, limit: PAGE } });
  return (answer.value ?? []).map(giftRecord)
    .map((g) => (byLookup ? { ...g, fields: { ...g.fields, constituentLookupId: byLookup.value.trim() } } : g))
    .filter((g) => query.criteria.every((c) => holds(g, c))).slice(0, query.limit ?? 25);
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  const which = objectOf(object);
  const { client } = sky(ctx);
  const answers: SourceRecord[][] = [];
  // one at a time: SKY API counts calls per second, and the client waits out its 429s
  for (const q of queries) answers.push(which === 'constituents' ? await searchConstituents(client, q) : await searchGifts(client, q));
  return answers;
}

type Obj = Record<string, unknown>;

interface Child { id: string; primary?: boolean; preferred?: boolean; inactive?: boolean }

/** Writes the e-mail, phone and address of an existing constituent as child records: the primary one changed, or a new primary one. */
async function writeChildren(client: VendorClient, constituentId: string, f: Obj): Promise<void> {
  const children: { field: string; path: string; list: string; body: () => Obj | null; main: (c: Child) => boolean }[] = [
    { field: 'email', path: 'emailaddresses', list: 'emailaddresses', body: () => (text(f.email) ? { address: text(f.email), type: 'Email' } : null), main: (c) => !!c.primary && !c.inactive },
    { field: 'phone', path: 'phones', list: 'phones', body: () => (text(f.phone) ? { number: text(f.phone), type: 'Home' } : null), main: (c) => !!c.primary && !c.inactive },
    { field: 'addressLine1', path: 'addresses', list: 'addresses', body: () => addressBody(f), main: (c) => !!c.preferred && !c.inactive },
  ];
  for (const child of children) {
    const touched = child.field === 'addressLine1' ? ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'].some((k) => k in f) : child.field in f;
    const body = child.body();
    // a blank value does not remove a child record: Raiser's Edge NXT keeps its history
    if (!touched || !body) continue;
    const existing = await client.call<{ value?: Child[] }>({ path: `/constituent/v1/constituents/${constituentId}/${child.list}` });
    const main = (existing.value ?? []).find(child.main);
    if (main) await client.call({ method: 'PATCH', path: `/constituent/v1/${child.path}/${main.id}`, json: body });
    else await client.call({ method: 'POST', path: `/constituent/v1/${child.path}`, json: { ...body, constituent_id: constituentId, ...(child.path === 'addresses' ? { preferred: true } : { primary: true }) } });
  }
}

/**
 * The environment's custom fields a constituent was given (`custom:<category>`), one custom field
 * record each. On an update (`existing`) the constituent's custom fields are read first (Custom
 * field list, one call) and a category it has already is edited in place (Custom field (Edit),
 * PATCH) when its value differs, so sending the same person again never stacks a second record.
 */
async function writeCustomFields(client: VendorClient, constituentId: string, f: Obj, existing = false): Promise<void> {
  const wanted = Object.entries(f).flatMap(([field, value]) => (field.startsWith('custom:') && text(value) ? [{ category: field.slice('custom:'.length), value: text(value) }] : []));
  if (!wanted.length) return;
  const held = existing
    ? (await client.call<{ value?: { id?: string | number; category?: string; value?: unknown }[] }>({ path: `/constituent/v1/constituents/${encodeURIComponent(constituentId)}/customfields` }))?.value ?? []
    : [];
  for (const { category, value } of wanted) {
    const same = held.find((h) => h.category === category);
    if (same?.id !== undefined) {
      if (text(same.value) !== value) await client.call({ method: 'PATCH', path: `/constituent/v1/constituents/customfields/${encodeURIComponent(String(same.id))}`, json: { value } });
    } else {
      await client.call({ method: 'POST', path: '/constituent/v1/constituents/customfields', json: { parent_id: constituentId, category, value } });
    }
  }
}

/** What a constituent create sends: the constituent with its primary e-mail, phone and address. */
function newConstituent(f: Obj): Obj {
  const email = text(f.email);
  const phone = text(f.phone);
  const address = addressBody(f);
  return Object.fromEntries(Object.entries({
    type: 'Individual',
    ...constituentBody(f),
    ...(email ? { email: { address: email, type: 'Email', primary: true } } : {}),
    ...(phone ? { phone: { number: phone, type: 'Home', primary: true } } : {}),
    ...(address ? { address: { ...address, preferred: true } } : {}),
  }).filter(([, v]) => v !== null && v !== undefined));
}

/** After a crash mid-create: the constituent the first try may have made, found by what it was to hold. */
async function findCreatedConstituent(client: VendorClient, f: Obj): Promise<string | null> {
  const criteria: SearchCriterion[] = [];
  for (const field of ['lookupId', 'email', 'firstName', 'lastName']) {
    const v = text(f[field]);
    if (v) criteria.push({ field, operator: 'equals', value: v });
  }
  if (!criteria.some((c) => c.field === 'lookupId' || c.field === 'email' || c.field === 'lastName')) return null;
  const found = await searchConstituents(client, { criteria, limit: 2 });
  return found.length === 1 ? found[0]!.id : null;
}

async function upsertConstituents(ctx: ConnectorContext, client: VendorClient, items: UpsertItem[]): Promise<UpsertResult[]> {
  const ledger = await writeLedger(ctx, 'constituents', items.filter((i) => !i.id).map((i) => i.idempotencyKey));
  const code = text(ctx.endSettings?.constituentCode);
  const results: UpsertResult[] = [];
  for (const item of items) {
    try {
      if (item.id) {
        const body = constituentBody(item.fields);
        if (Object.keys(body).length) await client.call({ method: 'PATCH', path: `/constituent/v1/constituents/${encodeURIComponent(item.id)}`, json: body });
        await writeChildren(client, item.id, item.fields);
        await writeCustomFields(client, item.id, item.fields, true);
        results.push({ idempotencyKey: item.idempotencyKey, id: item.id, outcome: 'updated', replayed: false });
        continue;
      }
      const { id, replayed } = await ledger.createOnce(item.idempotencyKey, () => findCreatedConstituent(client, item.fields), async () => {
        const made = await client.call<{ id?: string }>({ method: 'POST', path: '/constituent/v1/constituents', json: newConstituent(item.fields) });
        if (!made?.id) throw new VendorRefusal(NAME, 200, 'the create answered without an id');
        return String(made.id);
      });
      if (!replayed && code) await client.call({ method: 'POST', path: '/constituent/v1/constituentcodes', json: { constituent_id: id, description: code } });
      if (!replayed) await writeCustomFields(client, id, item.fields);
      results.push({ idempotencyKey: item.idempotencyKey, id, outcome: 'created', replayed });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error: `${NAME} refused the record: ${err.vendorMessage || `HTTP ${err.status}`}` });
    }
  }
  return results;
}

const amountOf = (v: unknown) => (typeof v === 'number' ? v : Number(String(v ?? '').replace(/[^0-9.-]/g, '')));
const dateOf = (v: unknown) => (v ? String(v).slice(0, 10) : undefined);

async function constituentIdFor(client: VendorClient, f: Obj, cache: Map<string, string | null>): Promise<string | null> {
  const direct = text(f.constituentId);
  if (direct) return direct;
  const lookup = text(f.constituentLookupId);
  if (!lookup) return null;
  if (!cache.has(lookup)) cache.set(lookup, (await searchConstituents(client, { criteria: [{ field: 'lookupId', value: lookup }], limit: 1 }))[0]?.id ?? null);
  return cache.get(lookup)!;
}

type Designation = 'fund' | 'campaign' | 'appeal';

/** The Fundraising API's lists a gift split's designations are named in: each entry's `description` is its name. */
const DESIGNATIONS: Record<Designation, { path: string; idField: 'fund_id' | 'campaign_id' | 'appeal_id' }> = {
  fund: { path: '/fundraising/v1/funds', idField: 'fund_id' },
  campaign: { path: '/fundraising/v1/campaigns', idField: 'campaign_id' },
  appeal: { path: '/fundraising/v1/appeals', idField: 'appeal_id' },
};

/** A designation's names (lower case) and the ids that carry each, every page of SKY API's list, read once a run. */
function designationNames(ctx: ConnectorContext, client: VendorClient, kind: Designation): Promise<Map<string, string[]>> {
  return perRun(ctx, `renxt:${kind}`, async () => {
    const out = new Map<string, string[]>();
    for (const item of await skyListAll(client, DESIGNATIONS[kind].path)) {
      const name = norm(item.description);
      if (name && item.id !== undefined && item.id !== null) out.set(name, [...(out.get(name) ?? []), String(item.id)]);
    }
    return out;
  });
}

/** The record's fund, campaign or appeal as an id: a system record ID as it is, a name looked up (case aside). */
async function designationId(ctx: ConnectorContext, client: VendorClient, kind: Designation, value: unknown): Promise<{ id: string | null | undefined } | { error: string }> {
  const v = text(value);
  // SKY API's system record IDs are whole numbers: such a value was already resolved
  if (!v || /^\d+$/.test(v)) return { id: v };
  const ids = (await designationNames(ctx, client, kind)).get(norm(v)) ?? [];
  if (ids.length === 1) return { id: ids[0]! };
  if (!ids.length) return { error: `No ${kind} named '${v}' in ${NAME}.` };
  return { error: `${NAME} has ${ids.length} ${kind}s named '${v}' (system record IDs ${ids.join(', ')}); give the one meant by its ID.` };
}

async function upsertGifts(ctx: ConnectorContext, client: VendorClient, items: UpsertItem[]): Promise<UpsertResult[]> {
  const ledger = await writeLedger(ctx, 'gifts', items.filter((i) => !i.id).map((i) => i.idempotencyKey));
  const prefix = text(ctx.endSettings?.giftBatchPrefix);
  const parents = new Map<string, string | null>();
  const results: UpsertResult[] = [];
  for (const item of items) {
    const f = item.fields;
    try {
      if (item.id) {
        const body = Object.fromEntries(Object.entries({
          ...('amount' in f ? { amount: { value: amountOf(f.amount) } } : {}), ...('date' in f ? { date: dateOf(f.date) } : {}), ...('lookupId' in f ? { lookup_id: text(f.lookupId) } : {}),
        }).filter(([, v]) => v !== undefined));
        if (Object.keys(body).length) await client.call({ method: 'PATCH', path: `/gift/v1/gifts/${encodeURIComponent(item.id)}`, json: body });
        results.push({ idempotencyKey: item.idempotencyKey, id: item.id, outcome: 'updated', replayed: false });
        continue;
      }
      const constituentId = await constituentIdFor(client, f, parents);
      if (!constituentId) {
        results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error: `${NAME} holds no constituent ${text(f.constituentLookupId) ?? ''} for this gift.`.replace('  ', ' ') });
        continue;
      }
      const split: Record<string, string | null | undefined> = {};
      let unknown: string | null = null;
      for (const kind of ['fund', 'campaign', 'appeal'] as const) {
        const found = await designationId(ctx, client, kind, f[kind]);
        if ('error' in found) { unknown = found.error; break; }
        split[DESIGNATIONS[kind].idField] = found.id;
      }
      if (unknown) {
        results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error: unknown });
        continue;
      }
      const amount = amountOf(f.amount);
      const date = dateOf(f.date);
      const { id, replayed } = await ledger.createOnce(item.idempotencyKey, async () => {
        // the gift the first try may have made: the constituent's gift of this amount on this date
        const theirs = await searchGifts(client, { criteria: [{ field: 'constituentId', value: constituentId }] });
        const same = theirs.filter((g) => Number(g.fields.amount) === amount && g.fields.date === date);
        return same.length === 1 ? same[0]!.id : null;
      }, async () => {
        const made = await client.call<{ id?: string }>({
          method: 'POST', path: '/gift/v1/gifts',
          json: Object.fromEntries(Object.entries({
            constituent_id: constituentId, amount: { value: amount }, date, type: text(f.type) ?? 'Donation', lookup_id: text(f.lookupId) ?? undefined,
            gift_splits: [{ amount: { value: amount }, fund_id: split.fund_id, campaign_id: split.campaign_id ?? undefined, appeal_id: split.appeal_id ?? undefined }],
            payments: [{ payment_method: text(f.paymentMethod) ?? 'Cash' }],
            batch_prefix: prefix ?? undefined,
          }).filter(([, v]) => v !== undefined)),
        });
        if (!made?.id) throw new VendorRefusal(NAME, 200, 'the create answered without an id');
        return String(made.id);
      });
      results.push({ idempotencyKey: item.idempotencyKey, id, outcome: 'created', replayed });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error: `${NAME} refused the gift: ${err.vendorMessage || `HTTP ${err.status}`}` });
    }
  }
  return results;
}

export const renxtConnector: Connector = {
  system: 'renxt',
  test(ctx) {
    return skyTest(ctx, 'renxt', NAME, '/constituent/v1/constituents');
  },
  async listObjects() {
    return renxt.objects.filter((o) => o.name === 'constituents' || o.name === 'gifts');
  },
  async describeFields(ctx, object) {
    const which = objectOf(object);
    if (which !== 'constituents') return RENXT_FIELDS[which];
    // the environment's own constituent custom fields, as SKY API lists their categories
    const { client } = sky(ctx);
    const categories = await client.call<{ value?: { name?: string; type?: string }[] }>({ path: '/constituent/v1/constituents/customfields/categories/details' });
    const custom = (categories.value ?? []).filter((c) => c.name).map((c) => ({
      name: `custom:${c.name}`, label: `${c.name} (custom field)`, type: (c.type === 'Number' || c.type === 'Currency' ? 'number' : c.type === 'Date' ? 'date' : 'string') as 'string',
    }));
    return [...RENXT_FIELDS.constituents, ...custom];
  },
  async *pull(ctx, object, since, options) {
    yield* skyPull(sky(ctx).client, PULLS[objectOf(object)], since, options);
  },
  search: searchOneOf(searchMany),
  searchMany,
  references: (object) => RENXT_REFERENCES[objectOf(object)],
  async upsert(ctx, object, items) {
    const which = objectOf(object);
    const { client } = sky(ctx);
    return which === 'constituents' ? upsertConstituents(ctx, client, items) : upsertGifts(ctx, client, items);
  },
  // the web view's record pages, in the environment the grant leads to
  async recordPage(ctx, object) {
    const environment = await sky(ctx).environment();
    if (!environment) return null;
    const area = objectOf(object) === 'constituents' ? 'constituent' : 'gift';
    return (id) => (/^\d{1,18}$/.test(id) ? `${RENXT_WEB_VIEW}/${area}/records/${id}?envid=${encodeURIComponent(environment)}` : null);
  },
};

/** Raiser's Edge NXT's web view, where its records have their pages */
export const RENXT_WEB_VIEW = 'https://host.nxt.blackbaud.com';
