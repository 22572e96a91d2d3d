/**
 * Salesforce objects as a source and a destination, through the REST API (client.ts).
 *
 * Objects and fields come from the org: `GET /sobjects` lists the objects (custom ones included),
 * `GET /sobjects/{object}/describe` their fields (custom fields included).
 *
 * Source: any object, read by SOQL (`/query?q=SELECT ... FROM {object} WHERE SystemModstamp >= ...
 * ORDER BY SystemModstamp, Id`), page by page through `nextRecordsUrl`. The watermark is the
 * latest SystemModstamp seen once a pull has read everything; while a pull is under way it also
 * carries the next page's link, so a run killed between batches goes on from the page after the
 * last one stored (a link Salesforce has let expire starts the same query again). Objects that
 * allow it (describe says replicateable, and they have IsDeleted) are read through queryAll, so a
 * record deleted since the watermark comes too, with IsDeleted true: the engine omits it ('Deleted
 * in Salesforce', connector.ts deletion) instead of creating or updating it in the destination.
 *
 * Destination: a batch's searches by the formula's matching scenarios are asked as one SOQL query
 * per 50 searches (their conditions OR'd, each value a literal of its field's type: soql.ts), and
 * the answer is shared out by checking each search's criteria. Writes go in sObject Collections of
 * 200 with allOrNone=false, so one refused record (REQUIRED_FIELD_MISSING, DUPLICATES_DETECTED, a
 * validation rule) fails alone with Salesforce's words. Where the formula names an External ID
 * field, new records are upserted by it (`PATCH /composite/sobjects/{object}/{field}`): a retry
 * updates what the first try created. Without one, creates go through the kit's write ledger: the
 * keys are recorded as under way before the collection is sent and its ids after, and a key found
 * under way (a crash in between) first looks for what the first try may have created. More than
 * BULK_THRESHOLD (2,000) updates, or upserts by External ID, in one send go through one Bulk API
 * 2.0 job each instead (bulk.ts), each record found again in the job's results by its Id or
 * External ID.
 *
 * NPSP: a Contact created without an Account is given its Household Account by NPSP's own
 * triggers in the org; its AccountId is answered with the Contact. NPSP's import object
 * `npsp__DataImport__c` is a destination for those who prefer NPSP's batch processing: each record
 * becomes a new import row (Contact1 and Donation fields, created through sObject Collections and
 * the write ledger; searches answer no candidates), and what NPSP writes as it processes a row
 * (npsp__Status__c, npsp__FailureInformation__c, the records it imported) is left blank for it.
 */
import {
  ConnectorInputError, type Connector, type ConnectorContext, type FieldReference, type PullBatch, type SearchCriterion, type SearchQuery, type SourceRecord,
  type UpsertItem, type UpsertResult,
} from '../connector.ts';
import type { ObjectInfo } from '../../../src/domain/connectors/types.ts';
import type { FieldInfo } from '../../../src/domain/api/integrations.ts';
import { meets } from '../kit/criteria.ts';
import { laterStamp, linkPages, pullPosition, type PullPosition } from '../kit/paging.ts';
import { VendorRefusal } from '../kit/vendorClient.ts';
import { BULK_THRESHOLD, bulkKey, bulkWrite } from './bulk.ts';
import { API_ROOT, errorWords, salesforceApi, type SalesforceApi, type SalesforceError } from './client.ts';
import { condition, isApiName, normalizeDateTime, selectable, soqlDateTime, soqlLiteral, type SfField } from './soql.ts';

const NAME = 'Salesforce';
/** sObject Collections take at most 200 records a request. */
export const COLLECTION_SIZE = 200;
/** Records one send's batch gives upsert: enough that more than BULK_THRESHOLD of one kind go as one Bulk API job. */
export const SALESFORCE_SEND_BATCH = 5000;
/** searches asked in one SOQL query */
export const SEARCHES_PER_QUERY = 50;
/** what a query's request URI may take of Salesforce's 16,384 bytes, leaving room for the host and path */
const URI_BUDGET = 15_000;
/** candidates answered per search */
const MAX_CANDIDATES = 10;

type Obj = Record<string, unknown>;

interface Describe { name: string; label?: string; fields: SfField[]; queryable?: boolean; replicateable?: boolean }
interface QueryAnswer { totalSize?: number; done?: boolean; nextRecordsUrl?: string; records?: Obj[] }
interface SaveResult { id?: string | null; success?: boolean; created?: boolean; errors?: SalesforceError[] }

/** describes are asked once per object per connector call */
const describes = new WeakMap<SalesforceApi, Map<string, Promise<Describe>>>();

async function describe(api: SalesforceApi, object: string): Promise<Describe> {
  if (!isApiName(object)) throw new ConnectorInputError(`${object} is not the name of a Salesforce object.`);
  let byObject = describes.get(api);
  if (!byObject) describes.set(api, (byObject = new Map()));
  let d = byObject.get(object);
  if (!d) {
    d = api.call<Describe>({ path: `${API_ROOT}/sobjects/${object}/describe` }).catch((err: unknown) => {
      byObject.delete(object);
      if (err instanceof VendorRefusal && err.status === 404) throw new ConnectorInputError(`This Salesforce org has no object ${object}.`);
      throw err;
    });
    byObject.set(object, d);
  }
  return d;
}

const fieldType = (f: SfField): FieldInfo['type'] => {
  switch (f.type) {
    case 'email': return 'email';
    case 'phone': return 'phone';
    case 'boolean': return 'boolean';
    case 'int': case 'double': case 'currency': case 'percent': case 'long': return 'number';
    case 'date': return 'date';
    case 'datetime': return 'datetime';
    default: return 'string';
  }
};

// ------------------------------------------------------------------ NPSP Data Import

/** NPSP's import object: rows NPSP's batch processing (the NPSP Data Importer) turns into Contacts, Households and Donations. */
export const NPSP_DATA_IMPORT = 'npsp__DataImport__c';
/** What NPSP writes on an import row as it processes it (its status, failure, and the records it matched or made): never Tributary. */
const NPSP_PROCESSING = /^npsp__(Status__c|FailureInformation__c|ImportedDate__c|[A-Za-z0-9_]+Imported__c|[A-Za-z0-9_]+ImportStatus__c)$/;
/** Whether NPSP, not Tributary, writes this field of the object. */
export const npspSets = (object: string, field: string) => object.toLowerCase() === NPSP_DATA_IMPORT.toLowerCase() && NPSP_PROCESSING.test(field);

export function fieldInfo(f: SfField, object = ''): FieldInfo {
  const required = f.createable === true && f.nillable === false && f.defaultedOnCreate !== true && f.type !== 'boolean';
  // neither a create nor an update may write it (Id, CreatedDate, formula fields), or NPSP writes it as it processes an import row
  const readOnly = (f.createable !== true && f.updateable !== true) || npspSets(object, f.name);
  return {
    name: f.name, label: f.custom ? `${f.label} (custom field)` : f.label, type: fieldType(f),
    ...(required ? { required: true } : {}), ...(f.filterable && f.type !== 'textarea' ? { searchable: true } : {}),
    ...(readOnly ? { readOnly: true } : {}),
  };
}

/** A record as Tributary reads it: its fields by API name (a related record's as Account.Name). */
export function recordOf(r: Obj): SourceRecord {
  const fields: Obj = {};
  const flatten = (prefix: string, o: Obj) => {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'attributes') continue;
      if (v && typeof v === 'object' && !Array.isArray(v) && 'attributes' in (v as Obj)) flatten(`${prefix}${k}.`, v as Obj);
      else fields[`${prefix}${k}`] = v;
    }
  };
  flatten('', r);
  return { id: String(r.Id ?? ''), fields };
}

// ------------------------------------------------------------------ objects and fields

/**
 * Lookups that name a parent record by its Salesforce Id (NPSP's among them): a record whose
 * parent the org does not hold yet waits in relationship-match instead of being refused.
 */
export const SALESFORCE_REFERENCES: Record<string, FieldReference[]> = {
  Contact: [{ field: 'AccountId', object: 'Account', by: 'Id', label: 'account' }],
  Opportunity: [
    { field: 'AccountId', object: 'Account', by: 'Id', label: 'account' },
    { field: 'ContactId', object: 'Contact', by: 'Id', label: 'contact' },
    { field: 'npsp__Primary_Contact__c', object: 'Contact', by: 'Id', label: 'contact' },
  ],
  npe01__OppPayment__c: [{ field: 'npe01__Opportunity__c', object: 'Opportunity', by: 'Id', label: 'opportunity' }],
  npe03__Recurring_Donation__c: [
    { field: 'npe03__Contact__c', object: 'Contact', by: 'Id', label: 'contact' },
    { field: 'npe03__Organization__c', object: 'Account', by: 'Id', label: 'account' },
  ],
  CampaignMember: [
    { field: 'CampaignId', object: 'Campaign', by: 'Id', label: 'campaign' },
    { field: 'ContactId', object: 'Contact', by: 'Id', label: 'contact' },
  ],
};

export async function listObjects(ctx: ConnectorContext, standard: ObjectInfo[]): Promise<ObjectInfo[]> {
  const api = salesforceApi(ctx);
  const answer = await api.call<{ sobjects?: { name: string; label: string; queryable?: boolean; custom?: boolean; createable?: boolean }[] }>({ path: `${API_ROOT}/sobjects` });
  const org = new Map((answer.sobjects ?? []).filter((o) => o.queryable).map((o) => [o.name, o]));
  // the objects donors and gifts live in first (those the org has), then the org's own custom objects
  const known = standard.filter((o) => org.has(o.name));
  const custom = [...org.values()].filter((o) => o.custom && !known.some((k) => k.name === o.name)).map((o) => ({ name: o.name, label: o.label }));
  return [...known, ...custom];
}

export async function describeFields(ctx: ConnectorContext, object: string): Promise<FieldInfo[]> {
  const d = await describe(salesforceApi(ctx), object);
  return selectable(d.fields).map((f) => fieldInfo(f, d.name));
}

// ------------------------------------------------------------------ source

type Position = PullPosition;

const positionOf = (watermark: string | null): Position => pullPosition(watermark, () => {
  throw new ConnectorInputError('The watermark is not one this connector wrote.');
});

const later = laterStamp;

const selectList = (d: Describe) => selectable(d.fields).map((f) => f.name).filter(isApiName);

/** Whether a pull of the object reads its deletions (queryAll): a replicateable, queryable object with IsDeleted. */
export const readsDeletions = (d: Pick<Describe, 'queryable' | 'replicateable' | 'fields'>) =>
  d.queryable !== false && d.replicateable === true && d.fields.some((f) => f.name === 'IsDeleted');

/** A record queryAll answered as deleted: its words for the omitted record. */
export const deletionOf = (fields: Record<string, unknown>): string | null => (fields.IsDeleted === true ? 'Deleted in Salesforce' : null);

export async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: Parameters<Connector['pull']>[3]): AsyncIterable<PullBatch> {
  const api = salesforceApi(ctx);
  const d = await describe(api, object);
  if (!d.fields.some((f) => f.name === 'SystemModstamp')) throw new ConnectorInputError(`Salesforce's ${object} has no SystemModstamp to follow changes by.`);
  const at = positionOf(since);
  const window = options?.window;
  const from = window ? soqlDateTime(window.from.toISOString()) : at.since;
  const where = [from ? `SystemModstamp >= ${from}` : null, window ? `SystemModstamp < ${soqlDateTime(window.to.toISOString())}` : null].filter(Boolean);
  const soql = `SELECT ${selectList(d).join(', ')} FROM ${d.name}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY SystemModstamp ASC, Id ASC`;
  // queryAll answers the records deleted since (IsDeleted true, in the recycle bin) as well, where
  // the object allows it: one describe calls replicateable, whose deletions Salesforce keeps
  const first = `${API_ROOT}/${readsDeletions(d) ? 'queryAll' : 'query'}?q=${encodeURIComponent(soql)}`;
  // Salesforce answers 200 to 2,000 records a page, as asked
  const batchSize = Math.min(Math.max(options?.batchSize ?? 2000, 200), 2000);
  const headers = { 'sforce-query-options': `batchSize=${batchSize}` };
  let latest = window ? null : at.latest;
  const fetch = async (link: string) => {
    let answer: QueryAnswer;
    try {
      answer = await api.call<QueryAnswer>({ path: link, headers });
    } catch (err) {
      // a saved link Salesforce no longer holds (query locators expire): the same query again
      if (link !== first && err instanceof VendorRefusal && /INVALID_QUERY_LOCATOR/.test(err.vendorMessage)) answer = await api.call<QueryAnswer>({ path: first, headers });
      else throw err;
    }
    return { items: answer.records ?? [], next: answer.done === false ? answer.nextRecordsUrl ?? null : null };
  };
  for await (const page of linkPages(at.next && !window ? at.next : first, fetch)) {
    const records = page.items.map(recordOf);
    for (const r of records) {
      const stamp = typeof r.fields.SystemModstamp === 'string' ? soqlDateTime(r.fields.SystemModstamp) : null;
      latest = later(latest, stamp);
    }
    const position: Position = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: window ? since : JSON.stringify(position) };
  }
}

// ------------------------------------------------------------------ destination: search

const lower = (v: unknown) => (v === null || v === undefined ? '' : String(v)).trim().toLowerCase();

/** Whether a record meets a criterion as Salesforce compares (text without regard to case). */
function holds(record: SourceRecord, field: SfField, c: SearchCriterion): boolean {
  const have = record.fields[field.name];
  const literal = soqlLiteral(field, c.value);
  if (field.type === 'boolean' || ['int', 'double', 'currency', 'percent', 'long'].includes(field.type)) return literal !== null && String(have) === literal;
  if (field.type === 'date') return literal !== null && String(have ?? '').slice(0, 10) === literal;
  if (field.type === 'datetime') return literal !== null && soqlDateTime(normalizeDateTime(String(have ?? ''))) === literal;
  return meets(lower(have), lower(c.value), c.operator);
}

function fieldNamed(d: Describe, name: string): SfField {
  const f = d.fields.find((x) => x.name.toLowerCase() === name.toLowerCase());
  if (!f || !isApiName(f.name)) throw new ConnectorInputError(`Salesforce's ${d.name} has no field ${name}.`);
  return f;
}

export const searchMany = (ctx: ConnectorContext, object: string, queries: SearchQuery[]) => searchOn(salesforceApi(ctx), object, queries);

async function searchOn(api: SalesforceApi, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  const d = await describe(api, object);
  const answers: SourceRecord[][] = queries.map(() => []);
  // an import row is never matched by Tributary: each record is a new row, and NPSP's batch
  // processing matches its Contact and Donation by the org's own Data Importer settings
  if (d.name === NPSP_DATA_IMPORT) return answers;
  // each search as a condition: all its criteria; one that cannot be a literal matches nothing
  const asked: { i: number; where: string; criteria: [SfField, SearchCriterion][] }[] = [];
  queries.forEach((q, i) => {
    if (!q.criteria.length) throw new ConnectorInputError('A search needs at least one criterion.');
    const criteria = q.criteria.map((c) => [fieldNamed(d, c.field), c] as [SfField, SearchCriterion]);
    const conditions = criteria.map(([f, c]) => condition(f, c));
    if (conditions.some((c) => c === null)) return;
    asked.push({ i, where: conditions.length > 1 ? `(${conditions.join(' AND ')})` : conditions[0]!, criteria });
  });
  const select = selectList(d).join(', ');
  const ask = async (chunk: typeof asked) => {
    const limit = Math.min(chunk.length * MAX_CANDIDATES * 2, 2000);
    const soql = `SELECT ${select} FROM ${d.name} WHERE ${chunk.map((c) => c.where).join(' OR ')} ORDER BY Id LIMIT ${limit}`;
    const found = (await api.call<QueryAnswer>({ path: `${API_ROOT}/query`, query: { q: soql } })).records?.map(recordOf) ?? [];
    return { found, full: found.length >= limit };
  };
  // Salesforce takes request URIs of up to 16,384 bytes: a chunk stops short of that, or at 50 searches
  const chunks: (typeof asked)[] = [];
  let size = 0;
  for (const a of asked) {
    const cost = encodeURIComponent(` OR ${a.where}`).length;
    const last = chunks.at(-1);
    if (!last || last.length >= SEARCHES_PER_QUERY || size + cost > URI_BUDGET) { chunks.push([a]); size = encodeURIComponent(select).length + 300 + cost; } else { last.push(a); size += cost; }
  }
  for (const chunk of chunks) {
    const { found, full } = await ask(chunk);
    for (const c of chunk) {
      const limit = Math.min(queries[c.i]!.limit ?? MAX_CANDIDATES, MAX_CANDIDATES);
      // an answer cut short by LIMIT may lack another search's records: that search is asked alone
      const mine = chunk.length > 1 && full ? (await ask([c])).found : found;
      answers[c.i] = mine.filter((r) => c.criteria.every(([f, crit]) => holds(r, f, crit))).slice(0, limit);
    }
  }
  return answers;
}

// ------------------------------------------------------------------ destination: writes

/** A value as Salesforce takes it for a field of this type (null clears). */
function valueFor(f: SfField, v: unknown): unknown {
  if (v === null || v === undefined || (typeof v === 'string' && v.trim() === '')) return null;
  if (['int', 'double', 'currency', 'percent', 'long'].includes(f.type)) {
    const n = typeof v === 'number' ? v : Number(String(v).replace(/[,$\s]/g, ''));
    return Number.isFinite(n) ? n : String(v);
  }
  if (f.type === 'boolean') {
    const s = String(v).trim().toLowerCase();
    return s === 'true' || s === 'yes' || s === '1' ? true : s === 'false' || s === 'no' || s === '0' ? false : String(v);
  }
  if (f.type === 'date') return String(v).slice(0, 10);
  return typeof v === 'string' ? v.trim() : v;
}

/** A record's body for a collection, or why it cannot be written. */
function bodyOf(d: Describe, fields: Obj, op: 'create' | 'update'): { body: Obj } | { error: string } {
  const body: Obj = { attributes: { type: d.name } };
  const missing: string[] = [];
  const readOnly: string[] = [];
  const npsp: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    const f = d.fields.find((x) => x.name.toLowerCase() === name.toLowerCase());
    if (!f) { missing.push(name); continue; }
    if (f.name === 'Id') continue;
    if (npspSets(d.name, f.name)) { npsp.push(f.name); continue; }
    if (!(op === 'create' ? f.createable : f.updateable)) { readOnly.push(f.name); continue; }
    const v = valueFor(f, value);
    if (v === null && op === 'create') continue;
    body[f.name] = v;
  }
  if (missing.length) return { error: `Salesforce's ${d.name} has no field ${missing.join(', ')}.` };
  if (npsp.length) return { error: `NPSP writes ${npsp.join(', ')} when it processes an import row: Tributary leaves ${npsp.length > 1 ? 'them' : 'it'} blank. Remove ${npsp.length > 1 ? 'them' : 'it'} from the mapping.` };
  if (readOnly.length) return { error: `Salesforce does not let Tributary write ${readOnly.join(', ')} of a ${d.name}${op === 'update' ? ' that exists' : ''}.` };
  return { body };
}

const refusedWords = (errors: SalesforceError[] | undefined) => `${NAME} refused the record: ${(errors ?? []).map(errorWords).join('; ') || 'no reason given'}`;

type Write = { item: UpsertItem; body: Obj };

/** Sends a collection request per 200 writes; answers each write's result in order (a whole request refused fails its writes with Salesforce's words). */
async function collections(api: SalesforceApi, writes: Write[], request: (records: Obj[]) => { method: 'POST' | 'PATCH'; path: string }): Promise<SaveResult[]> {
  const out: SaveResult[] = [];
  for (let i = 0; i < writes.length; i += COLLECTION_SIZE) {
    const chunk = writes.slice(i, i + COLLECTION_SIZE);
    const records = chunk.map((w) => w.body);
    const { method, path } = request(records);
    try {
      const results = await api.call<SaveResult[]>({ method, path, json: { allOrNone: false, records } });
      for (let n = 0; n < chunk.length; n++) out.push(results?.[n] ?? { success: false, errors: [{ message: 'Salesforce did not answer for this record.' }] });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      for (let n = 0; n < chunk.length; n++) out.push({ success: false, errors: [{ message: err.vendorMessage || `HTTP ${err.status}` }] });
    }
  }
  return out;
}

/** Writes through one Bulk API 2.0 job (bulk.ts); answers each row's result in order, as collections does. */
async function bulk(api: SalesforceApi, object: string, operation: 'update' | 'upsert', reference: string, rows: Obj[], signal?: AbortSignal): Promise<SaveResult[]> {
  const results = await bulkWrite(api, object, operation, reference, rows, signal ? { signal } : {});
  return rows.map((r) => {
    const x = results.get(bulkKey(r[reference]))!;
    // sf__Error is Salesforce's "CODE:message:fields --"
    return x.success ? { success: true, id: x.id ?? null, created: x.created ?? false } : { success: false, errors: [{ message: x.error ?? 'no reason given' }] };
  });
}

/** After a crash mid-create: the record the first try may have made, found by what it was to hold. */
async function findCreated(api: SalesforceApi, d: Describe, fields: Obj): Promise<string | null> {
  const criteria: SearchCriterion[] = [];
  const preferred = ['Email', 'LastName', 'FirstName', 'Name'];
  const names = [...preferred.filter((p) => p in fields), ...Object.keys(fields).filter((k) => !preferred.includes(k))];
  for (const name of names) {
    const f = d.fields.find((x) => x.name === name);
    if (!f || !f.filterable || f.type === 'textarea' || fields[name] === null || fields[name] === undefined || String(fields[name]).trim() === '') continue;
    criteria.push({ field: f.name, operator: 'equals', value: String(fields[name]) });
    if (criteria.length === 3) break;
  }
  if (!criteria.length) return null;
  const found = await searchOn(api, d.name, [{ criteria, limit: 2 }]);
  return found[0]!.length === 1 ? found[0]![0]!.id : null;
}

export async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  const api = salesforceApi(ctx);
  const d = await describe(api, object);
  const results = new Map<string, UpsertResult>();
  const fail = (item: UpsertItem, error: string) => results.set(item.idempotencyKey, { idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error });

  const externalName = ctx.endSettings?.externalIdField?.trim();
  const external = externalName ? d.fields.find((f) => f.name.toLowerCase() === externalName.toLowerCase()) : undefined;
  if (externalName && (!external || !external.externalId || !isApiName(external.name))) {
    throw new ConnectorInputError(`Salesforce's ${d.name} has no External ID field ${externalName}.`);
  }

  const updates: Write[] = [];
  const upserts: Write[] = [];
  const creates: Write[] = [];
  for (const item of items) {
    if (item.id) {
      const b = bodyOf(d, item.fields, 'update');
      if ('error' in b) fail(item, b.error);
      // nothing to change (every value kept as it is): nothing is sent
      else if (Object.keys(b.body).length === 1) results.set(item.idempotencyKey, { idempotencyKey: item.idempotencyKey, id: item.id, outcome: 'updated', replayed: false });
      else updates.push({ item, body: { ...b.body, id: item.id } });
      continue;
    }
    const b = bodyOf(d, item.fields, 'create');
    if ('error' in b) { fail(item, b.error); continue; }
    if (external && b.body[external.name] !== undefined && b.body[external.name] !== null) upserts.push({ item, body: b.body });
    else creates.push({ item, body: b.body });
  }

  // existing records: their changed fields
  const updated = updates.length > BULK_THRESHOLD
    ? await bulk(api, d.name, 'update', 'Id', updates.map((w) => { const { attributes: _, id, ...fields } = w.body; return { Id: id, ...fields }; }), ctx.signal)
    : await collections(api, updates, () => ({ method: 'PATCH', path: `${API_ROOT}/composite/sobjects` }));
  updates.forEach((w, n) => {
    const r = updated[n]!;
    if (r.success) results.set(w.item.idempotencyKey, { idempotencyKey: w.item.idempotencyKey, id: w.item.id!, outcome: 'updated', replayed: false });
    else fail(w.item, refusedWords(r.errors));
  });

  // new records with an External ID: upserted by it, so a retry never creates a second one
  const upserted = upserts.length > BULK_THRESHOLD
    ? await bulk(api, d.name, 'upsert', external!.name, upserts.map((w) => { const { attributes: _, ...fields } = w.body; return fields; }), ctx.signal)
    : await collections(api, upserts, () => ({ method: 'PATCH', path: `${API_ROOT}/composite/sobjects/${d.name}/${external?.name}` }));
  upserts.forEach((w, n) => {
    const r = upserted[n]!;
    if (r.success && r.id) results.set(w.item.idempotencyKey, { idempotencyKey: w.item.idempotencyKey, id: r.id, outcome: r.created === false ? 'updated' : 'created', replayed: false });
    else fail(w.item, refusedWords(r.errors));
  });

  // new records without one: through the write ledger
  if (creates.length) {
    const state = ctx.tenant.vendorState;
    const ds = ctx.dataSourceId;
    const known = ds ? await state.writes(ds, d.name, creates.map((w) => w.item.idempotencyKey)) : new Map<string, string | null>();
    const send: Write[] = [];
    for (const w of creates) {
      const key = w.item.idempotencyKey;
      const prior = known.get(key);
      if (prior) { results.set(key, { idempotencyKey: key, id: prior, outcome: 'created', replayed: true }); continue; }
      if (prior === null && ds) {
        const found = await findCreated(api, d, w.item.fields);
        if (found) {
          await state.finishWrite(ds, d.name, key, found);
          results.set(key, { idempotencyKey: key, id: found, outcome: 'created', replayed: true });
          continue;
        }
      }
      send.push(w);
    }
    // every key is recorded as under way before the collection is sent, and its id as soon as it answers
    if (ds) await state.beginWrites(ds, d.name, send.map((w) => w.item.idempotencyKey));
    const created = await collections(api, send, () => ({ method: 'POST', path: `${API_ROOT}/composite/sobjects` }));
    const made: { key: string; vendorId: string }[] = [];
    const refused: string[] = [];
    for (let n = 0; n < send.length; n++) {
      const w = send[n]!;
      const r = created[n]!;
      const key = w.item.idempotencyKey;
      if (r.success && r.id) {
        made.push({ key, vendorId: r.id });
        results.set(key, { idempotencyKey: key, id: r.id, outcome: 'created', replayed: false });
      } else {
        // a refusal created nothing: a later try starts afresh
        refused.push(key);
        fail(w.item, refusedWords(r.errors));
      }
    }
    if (ds) {
      await state.finishWrites(ds, d.name, made);
      await state.abandonWrites(ds, d.name, refused);
    }
  }
  return items.map((i) => results.get(i.idempotencyKey)!);
}
