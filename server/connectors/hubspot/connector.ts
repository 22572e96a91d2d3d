/**
 * HubSpot CRM (API v3) as a source and a destination, on the connector kit (hubspot/client.ts).
 *
 * Source: contacts, companies and deals through the CRM search endpoint, filtered on the object's
 * last-modified property (`lastmodifieddate` for contacts, `hs_lastmodifieddate` for companies and
 * deals) on or after the watermark (less a minute for the search index to catch up), sorted
 * ascending, paged with `after`. One search answers at most
 * 10,000 results: before paging past them the search starts again from the latest modification
 * date seen (records of that very millisecond are read again, harmlessly). The watermark carries
 * the search's date and next `after` while a pull is under way, so a run killed between batches
 * goes on from the page after the last one stored.
 *
 * Destination: contacts and companies. Matching scenarios are answered by the search endpoint (one
 * filter group, every criterion a filter: EQ, or CONTAINS_TOKEN with wildcards); a scenario on a
 * property HubSpot does not have, or with more filters than a group takes, is refused when it is
 * saved. New records are written with batch upsert by a property with unique values (`idProperty`:
 * the destination settings' unique property, else a contact's e-mail), so sending one again updates
 * it; matched ones with batch update by id. A company with no unique property to upsert by is
 * created one by one through the kit's write ledger. A
 * batch HubSpot refuses as a whole is sent again record by record, so each refusal lands on its
 * own record with HubSpot's words.
 *
 * Fields: every property of the object (custom ones included) from `/crm/v3/properties/{object}`.
 */
import { hubspot } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchCriterion,
  type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { lowered, meets } from '../kit/criteria.ts';
import { oncePerAccount } from '../kit/memo.ts';
import { laterStamp, positionSince, type PullPosition } from '../kit/paging.ts';
import { resultsInOrder } from '../kit/results.ts';
import { VendorRefusal } from '../kit/vendorClient.ts';
import { writeLedger } from '../kit/writeOnce.ts';
import { hubspotSession, type HubSpot } from './client.ts';

const NAME = 'HubSpot';

type HubSpotObject = 'contacts' | 'companies' | 'deals';
const MODIFIED: Record<HubSpotObject, string> = { contacts: 'lastmodifieddate', companies: 'hs_lastmodifieddate', deals: 'hs_lastmodifieddate' };
const WRITABLE = new Set<HubSpotObject>(['contacts', 'companies']);
/** HubSpot's ids of its standard objects, as its record pages name them */
const OBJECT_TYPE_IDS: Record<HubSpotObject, string> = { contacts: '0-1', companies: '0-2', deals: '0-3' };

/** The search endpoint's limits: 200 results a page, 10,000 results a search, six filters a group. */
export const HUBSPOT_SEARCH = { pageSize: 200, cap: 10_000, filtersPerGroup: 6 };
/**
 * HubSpot's search index follows its records by a few moments: a new pull starts this much before
 * the latest change the last one saw, so a record changed just before it but indexed after it is
 * not missed (those read again are unchanged, and the engine stores nothing for them).
 */
export const HUBSPOT_INDEX_LAG_MS = 60_000;
/** batch endpoints take 100 inputs */
const BATCH = 100;
/** candidates a matching search answers */
const MAX_CANDIDATES = 10;

function objectOf(object: string, write = false): HubSpotObject {
  if (object === 'contacts' || object === 'companies' || object === 'deals') {
    if (write && !WRITABLE.has(object)) throw new ConnectorInputError(`Tributary writes HubSpot contacts and companies; ${object} are read only.`);
    return object;
  }
  throw new ConnectorInputError(`Tributary reads HubSpot contacts, companies and deals; ${object} is not one of them yet.`);
}

interface Property {
  name: string; label?: string; type?: string; fieldType?: string; hidden?: boolean; calculated?: boolean; hasUniqueValue?: boolean;
  modificationMetadata?: { readOnlyValue?: boolean };
}
interface SearchAnswer { total?: number; results?: { id: string; properties?: Record<string, string | null> }[]; paging?: { next?: { after?: string } } }

const TYPES: Record<string, FieldInfo['type']> = { number: 'number', date: 'date', datetime: 'datetime', bool: 'boolean' };

/** each object's properties are read once per context (a run keeps one for its end) */
const described = new WeakMap<ConnectorContext, Map<HubSpotObject, Promise<Property[]>>>();

function properties(ctx: ConnectorContext, hs: HubSpot, object: HubSpotObject): Promise<Property[]> {
  let byObject = described.get(ctx);
  if (!byObject) described.set(ctx, (byObject = new Map()));
  let list = byObject.get(object);
  if (!list) {
    list = hs.client.call<{ results?: Property[] }>({ path: `/crm/v3/properties/${object}` })
      .then((a) => (a.results ?? []).filter((p) => p.name && !p.hidden));
    list.catch(() => byObject!.delete(object));
    byObject.set(object, list);
  }
  return list;
}

function fieldOf(object: HubSpotObject, p: Property): FieldInfo {
  const type = p.name === 'email' ? 'email' : p.fieldType === 'phonenumber' ? 'phone' : TYPES[p.type ?? ''] ?? 'string';
  const readOnly = !!(p.modificationMetadata?.readOnlyValue || p.calculated || p.name === 'hs_object_id' || p.name === MODIFIED[object]);
  return {
    name: p.name, label: p.label || p.name, type,
    // a new contact is created by its e-mail (batch upsert by e-mail)
    ...(object === 'contacts' && p.name === 'email' ? { required: true } : {}),
    // every property can be a search filter, but HubSpot compares long texts only by token
    ...(p.fieldType !== 'textarea' ? { searchable: true } : {}),
    ...(readOnly ? { readOnly: true } : {}),
  };
}

const hs = (ctx: ConnectorContext) => hubspotSession(ctx);

const recordOf = (r: { id: string; properties?: Record<string, string | null> }): SourceRecord => ({
  id: String(r.id),
  fields: { hs_object_id: String(r.id), ...Object.fromEntries(Object.entries(r.properties ?? {}).filter(([, v]) => v !== null && v !== undefined && v !== '')) },
});

const millis = (iso: string) => String(Date.parse(iso));

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const which = objectOf(object);
  const modified = MODIFIED[which];
  const session = hs(ctx);
  const names = [...new Set([...(await properties(ctx, session, which)).map((p) => p.name), modified])];
  const at = positionSince(since);
  // a run once over a window keeps its own cursor: a continuation goes on where the last slice stopped
  const window = options?.window;
  let from = at.since ?? (window ? window.from.toISOString() : null);
  if (from && !at.next && !window) from = new Date(Date.parse(from) - HUBSPOT_INDEX_LAG_MS).toISOString();
  let after = at.next;
  let latest = at.latest;
  const limit = Math.min(options?.batchSize ?? HUBSPOT_SEARCH.pageSize, HUBSPOT_SEARCH.pageSize);
  for (;;) {
    const filters = [
      ...(from ? [{ propertyName: modified, operator: 'GTE', value: millis(from) }] : []),
      ...(window ? [{ propertyName: modified, operator: 'LT', value: millis(window.to.toISOString()) }] : []),
    ];
    const answer = await session.client.call<SearchAnswer>({
      method: 'POST', path: `/crm/v3/objects/${which}/search`, pace: session.searches,
      json: {
        ...(filters.length ? { filterGroups: [{ filters }] } : {}),
        sorts: [{ propertyName: modified, direction: 'ASCENDING' }],
        properties: names, limit, ...(after ? { after } : {}),
      },
    });
    const records = (answer.results ?? []).map(recordOf);
    for (const r of records) latest = laterStamp(latest, r.fields[modified] as string | undefined);
    const next = answer.paging?.next?.after ?? null;
    let position: PullPosition;
    if (next && Number(next) >= HUBSPOT_SEARCH.cap) {
      // the search answers no further: a new one from the latest date seen
      if (!latest || latest === from) {
        throw new ConnectorInputError(`More than ${HUBSPOT_SEARCH.cap} HubSpot ${which} share the modification date ${from}: HubSpot's search cannot page past them.`);
      }
      from = latest;
      after = null;
      position = { since: from, next: null, latest };
    } else if (next && records.length) {
      after = next;
      position = { since: from, next, latest };
    } else {
      yield { records, watermark: JSON.stringify({ since: latest ?? from, next: null, latest: null } satisfies PullPosition) };
      return;
    }
    yield { records, watermark: JSON.stringify(position) };
  }
}

const norm = lowered;

function holds(record: SourceRecord, c: SearchCriterion): boolean {
  const want = norm(c.value);
  return !!want && meets(norm(record.fields[c.field]), want, c.operator);
}

/** one filter per criterion: EQ, or CONTAINS_TOKEN with wildcards (HubSpot's partial match) */
const filterOf = (c: SearchCriterion) => {
  const value = c.value.trim();
  if (c.operator === 'contains') return { propertyName: c.field, operator: 'CONTAINS_TOKEN', value: `*${value}*` };
  if (c.operator === 'starts-with') return { propertyName: c.field, operator: 'CONTAINS_TOKEN', value: `${value}*` };
  return { propertyName: c.field, operator: 'EQ', value };
};

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  const which = objectOf(object);
  const session = hs(ctx);
  const names = (await properties(ctx, session, which)).map((p) => p.name);
  const answers: SourceRecord[][] = [];
  for (const q of queries) {
    const criteria = q.criteria.filter((c) => c.value.trim());
    if (!criteria.length) { answers.push([]); continue; }
    if (criteria.length > HUBSPOT_SEARCH.filtersPerGroup) throw new ConnectorInputError(`HubSpot's search takes at most ${HUBSPOT_SEARCH.filtersPerGroup} criteria in a scenario.`);
    const limit = Math.min(q.limit ?? MAX_CANDIDATES, 100);
    const answer = await session.client.call<SearchAnswer>({
      method: 'POST', path: `/crm/v3/objects/${which}/search`, pace: session.searches,
      json: { filterGroups: [{ filters: criteria.map(filterOf) }], properties: names, limit },
    });
    // HubSpot matches tokens; every criterion is compared again on the whole value
    answers.push((answer.results ?? []).map(recordOf).filter((r) => criteria.every((c) => holds(r, c))).slice(0, limit));
  }
  return answers;
}

/** a value as HubSpot's properties take it: text, '' to clear */
function propertyValue(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof Date) return v.toISOString();
  return String(v).trim();
}
const propertiesOf = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'hs_object_id').map(([k, v]) => [k, propertyValue(v)]));

interface BatchAnswer { status?: string; results?: { id: string; new?: boolean; properties?: Record<string, string | null> }[]; errors?: { message?: string }[]; numErrors?: number }

const refusedResult = (item: UpsertItem, what: string, err: VendorRefusal | string): UpsertResult => ({
  idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false,
  error: `${NAME} refused the ${what}: ${typeof err === 'string' ? err : err.vendorMessage || `HTTP ${err.status}`}`,
});

/**
 * A batch call, and when HubSpot refuses the batch (one bad record refuses them all, 400, or a
 * 207 with errors) each record alone, so the refusal lands on the record it concerns.
 */
async function inBatches(
  items: UpsertItem[], what: string,
  send: (chunk: UpsertItem[]) => Promise<BatchAnswer>,
  read: (chunk: UpsertItem[], answer: BatchAnswer) => UpsertResult[],
): Promise<UpsertResult[]> {
  const out: UpsertResult[] = [];
  for (let i = 0; i < items.length; i += BATCH) {
    const chunk = items.slice(i, i + BATCH);
    let answer: BatchAnswer | null = null;
    let refusal: VendorRefusal | null = null;
    try {
      answer = await send(chunk);
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      refusal = err;
    }
    if (answer && !answer.errors?.length && !answer.numErrors) { out.push(...read(chunk, answer)); continue; }
    if (chunk.length === 1) {
      out.push(refusedResult(chunk[0]!, what, refusal ?? (answer?.errors?.map((e) => e.message).filter(Boolean).join('; ') || 'the record was not written')));
      continue;
    }
    for (const item of chunk) out.push(...(await inBatches([item], what, send, read)));
  }
  return out;
}

async function updateById(session: HubSpot, object: HubSpotObject, items: UpsertItem[]): Promise<UpsertResult[]> {
  const what = object === 'contacts' ? 'contact' : 'company';
  return inBatches(items, what,
    (chunk) => session.client.call<BatchAnswer>({ method: 'POST', path: `/crm/v3/objects/${object}/batch/update`, json: { inputs: chunk.map((i) => ({ id: i.id, properties: propertiesOf(i.fields) })) } }),
    (chunk, answer) => {
      const done = new Set((answer.results ?? []).map((r) => String(r.id)));
      return chunk.map((i) => (done.has(i.id!)
        ? { idempotencyKey: i.idempotencyKey, id: i.id!, outcome: 'updated' as const, replayed: false }
        : refusedResult(i, what, 'HubSpot did not answer for this record')));
    });
}

/** Batch upsert by a property with unique values (`idProperty`): sending a record again updates it. */
async function upsertBy(session: HubSpot, object: HubSpotObject, property: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  const what = object === 'contacts' ? 'contact' : 'company';
  const key = (v: unknown) => (property === 'email' ? norm(v) : propertyValue(v));
  return inBatches(items, what,
    (chunk) => session.client.call<BatchAnswer>({
      method: 'POST', path: `/crm/v3/objects/${object}/batch/upsert`,
      json: { inputs: chunk.map((i) => ({ idProperty: property, id: key(i.fields[property]), properties: propertiesOf(i.fields) })) },
    }),
    (chunk, answer) => {
      const byKey = new Map((answer.results ?? []).map((r) => [key(r.properties?.[property]), r]));
      return chunk.map((i) => {
        const r = byKey.get(key(i.fields[property]));
        return r ? { idempotencyKey: i.idempotencyKey, id: String(r.id), outcome: r.new === false ? 'updated' as const : 'created' as const, replayed: false }
          : refusedResult(i, what, 'HubSpot did not answer for this record');
      });
    });
}

async function createCompanies(ctx: ConnectorContext, session: HubSpot, items: UpsertItem[]): Promise<UpsertResult[]> {
  const ledger = await writeLedger(ctx, 'companies', items.map((i) => i.idempotencyKey));
  const out: UpsertResult[] = [];
  for (const item of items) {
    try {
      const { id, replayed } = await ledger.createOnce(item.idempotencyKey, async () => {
        // what the first try may have created: the one company of this name (and domain)
        const criteria = (['name', 'domain'] as const).filter((k) => propertyValue(item.fields[k])).map((k) => ({ field: k, value: propertyValue(item.fields[k]) }));
        if (!criteria.length) return null;
        const [found] = await searchMany(ctx, 'companies', [{ criteria, limit: 2 }]);
        return found?.length === 1 ? found[0]!.id : null;
      }, async () => {
        const made = await session.client.call<{ id?: string }>({ method: 'POST', path: '/crm/v3/objects/companies', json: { properties: propertiesOf(item.fields) } });
        if (!made?.id) throw new VendorRefusal(NAME, 200, 'the create answered without an id');
        return String(made.id);
      });
      out.push({ idempotencyKey: item.idempotencyKey, id, outcome: 'created', replayed });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      out.push(refusedResult(item, 'company', err));
    }
  }
  return out;
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  const which = objectOf(object, true);
  const session = hs(ctx);
  const results = resultsInOrder(items);
  // the destination's unique property, else a contact's e-mail; companies without one are created once each
  const unique = ctx.endSettings?.uniqueProperty?.trim() || (which === 'contacts' ? 'email' : '');
  const byId = items.filter((i) => i.id);
  const fresh = items.filter((i) => !i.id);
  results.add(await updateById(session, which, byId));
  const keyed = unique ? fresh.filter((i) => propertyValue(i.fields[unique])) : [];
  const unkeyed = fresh.filter((i) => !keyed.includes(i));
  results.add(await upsertBy(session, which, unique, keyed));
  if (which === 'contacts') {
    for (const i of unkeyed) {
      results.fail(i, unique === 'email' ? 'HubSpot creates a contact by its e-mail address, and this record has none.' : `HubSpot creates a contact by its ${unique}, and this record has none.`);
    }
  } else {
    results.add(await createCompanies(ctx, session, unkeyed));
  }
  return results.all();
}

export const hubspotConnector: Connector = {
  system: 'hubspot',
  async test(ctx) {
    const session = hs(ctx);
    if (session.session) await session.session.exchangeNow();
    const body = await session.client.call<{ portalId?: number }>({ path: '/account-info/v3/details' });
    const rotated = session.session?.rotated();
    return { detail: `Signed in to HubSpot${body?.portalId ? ` account ${body.portalId}` : ''}.`, ...(rotated ? { updatedSecrets: rotated } : {}) };
  },
  async listObjects() {
    return hubspot.objects.filter((o) => o.name in MODIFIED);
  },
  // a record's page in the account's own app (app.hubspot.com, or app-eu1.hubspot.com for an account
  // hosted in the EU); the account's portal and domain are asked once, not for every review opened
  async recordPage(ctx, object) {
    const session = hs(ctx);
    const body = await oncePerAccount(`hubspot:${session.account}`, () => session.client.call<{ portalId?: number; uiDomain?: string }>({ path: '/account-info/v3/details' }));
    const domain = body?.uiDomain ?? 'app.hubspot.com';
    if (!Number.isSafeInteger(body?.portalId) || !/^app(?:-[a-z0-9]+)?\.hubspot\.com$/.test(domain)) return null;
    const type = OBJECT_TYPE_IDS[objectOf(object)];
    return (id) => (/^\d{1,20}$/.test(id) ? `https://${domain}/contacts/${body.portalId}/record/${type}/${id}` : null);
  },
  async describeFields(ctx, object) {
    const which = objectOf(object);
    return (await properties(ctx, hs(ctx), which)).map((p) => fieldOf(which, p));
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(ctx, object, scenarios) {
    let which: HubSpotObject;
    try { which = objectOf(object, true); } catch (err) {
      if (err instanceof ConnectorInputError) return err.message;
      throw err;
    }
    const known = new Set((await properties(ctx, hs(ctx), which)).map((p) => p.name));
    for (const s of scenarios) {
      const unknown = s.fields.filter((f) => !known.has(f));
      if (unknown.length) return `HubSpot cannot search ${which} by ${unknown.join(', ')} (not a property of ${which} in this account): the scenario "${s.name}" cannot be answered.`;
      if (s.fields.length > HUBSPOT_SEARCH.filtersPerGroup) {
        return `HubSpot's search takes at most ${HUBSPOT_SEARCH.filtersPerGroup} criteria at once: the scenario "${s.name}" has ${s.fields.length}.`;
      }
    }
    return null;
  },
};
