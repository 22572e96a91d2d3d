/**
 * A local fake of a Salesforce org with the Nonprofit Success Pack, answering the REST API
 * resources Tributary calls as Salesforce documents them (REST API Developer Guide):
 * - POST /services/oauth2/token: the username-password, refresh token and client credentials
 *   flows (consumer key and secret in the form), answered with access_token and instance_url;
 *   invalid_grant for a refused grant.
 * - /services/data/vXX.X/ with `Authorization: Bearer`: 401 INVALID_SESSION_ID otherwise. Every
 *   answer carries `Sforce-Limit-Info: api-usage=used/limit`; a spent allowance answers 403
 *   REQUEST_LIMIT_EXCEEDED; `throttle` answers 503 with Retry-After.
 * - GET / (the resources of the version, as "Resources by Version" lists them by name and URI).
 * - GET /sobjects and /sobjects/{object}/describe (fields with type, custom, nillable,
 *   createable, updateable, filterable, externalId...).
 * - GET /query?q=SOQL and /queryAll?q=SOQL (the latter answers deleted records too, IsDeleted true; a small SOQL parser: SELECT, FROM, WHERE with AND/OR/NOT, =, !=, <, <=,
 *   >, >=, LIKE, IN, string literals with SOQL's escapes, ORDER BY, LIMIT), paged as
 *   { totalSize, done, records, nextRecordsUrl } by the `Sforce-Query-Options: batchSize=N`
 *   header; GET /query/{locator} for the next page, 400 INVALID_QUERY_LOCATOR for one it does not hold.
 * - /composite/sobjects: POST creates, PATCH updates by id, PATCH /composite/sobjects/{object}/{field}
 *   upserts by an External ID; at most 200 records; per record { id, success, errors: [{ statusCode,
 *   message, fields }] } (and `created` for upserts), allOrNone honoured.
 * - Bulk API 2.0 ingest (/jobs/ingest): create (object, operation insert/update/upsert with
 *   externalIdFieldName, contentType CSV, lineEnding), PUT .../batches (text/csv, while Open), PATCH
 *   state UploadComplete or Aborted, GET the job (each look a step on: UploadComplete, InProgress,
 *   JobComplete, or Failed with errorMessage), GET successfulResults/ (sf__Id, sf__Created) and
 *   failedResults/ (sf__Id, sf__Error "CODE:message:fields --"), each with the row's own columns and
 *   not in the upload's order; an empty cell leaves a field, #N/A clears it.
 * Request URIs longer than 16,384 bytes answer 414. Error bodies are lists of { message, errorCode, fields? }. NPSP: a Contact created without an
 * AccountId gets a Household Account ("<LastName> Household"), as NPSP's triggers do; NPSP's import
 * object npsp__DataImport__c takes rows (Contact1 and Donation fields) that NPSP processes later; a duplicate
 * rule blocks a second Contact with the same Email (DUPLICATES_DETECTED).
 */
import type http from 'node:http';
import { parseCsv } from '../../../src/domain/csv.ts';
import { sendJson, startVendorServer } from './harness.ts';

export const SF_APP = { clientId: '3MVG9-consumer-key', clientSecret: 'sf-consumer-secret', username: 'integration@riverside.org', password: 'sf-pass', securityToken: 'sftoken' };
export const SF_INSTANCE = 'https://riverside.my.salesforce.com';

type Obj = Record<string, unknown>;
interface FieldDef { name: string; label: string; type: string; custom?: boolean; nillable?: boolean; createable?: boolean; updateable?: boolean; filterable?: boolean; externalId?: boolean; idLookup?: boolean; defaultedOnCreate?: boolean; calculated?: boolean; referenceTo?: string[] }

const f = (name: string, label: string, type: string, more: Partial<FieldDef> = {}): FieldDef => ({
  name, label, type, custom: name.endsWith('__c'), nillable: true, createable: true, updateable: true, filterable: true, externalId: false, idLookup: false, defaultedOnCreate: false, calculated: false, referenceTo: [], ...more,
});
const SYSTEM = (): FieldDef[] => [
  f('Id', 'Contact ID', 'id', { nillable: false, createable: false, updateable: false, idLookup: true, defaultedOnCreate: true }),
  f('IsDeleted', 'Deleted', 'boolean', { nillable: false, createable: false, updateable: false, defaultedOnCreate: true }),
  f('CreatedDate', 'Created Date', 'datetime', { nillable: false, createable: false, updateable: false, defaultedOnCreate: true }),
  f('SystemModstamp', 'System Modstamp', 'datetime', { nillable: false, createable: false, updateable: false, defaultedOnCreate: true }),
];

export const DESCRIBES: Record<string, { label: string; prefix: string; fields: FieldDef[] }> = {
  Contact: {
    label: 'Contact', prefix: '003',
    fields: [
      ...SYSTEM(),
      f('AccountId', 'Account ID', 'reference', { referenceTo: ['Account'] }),
      f('FirstName', 'First Name', 'string'),
      f('LastName', 'Last Name', 'string', { nillable: false }),
      f('Email', 'Email', 'email', { idLookup: true }),
      f('Phone', 'Business Phone', 'phone'),
      f('MailingStreet', 'Mailing Street', 'textarea', { filterable: true }),
      f('MailingCity', 'Mailing City', 'string'),
      f('MailingState', 'Mailing State/Province', 'string'),
      f('MailingPostalCode', 'Mailing Zip/Postal Code', 'string'),
      f('MailingCountry', 'Mailing Country', 'string'),
      f('MailingAddress', 'Mailing Address', 'address', { createable: false, updateable: false, filterable: false }),
      f('Birthdate', 'Birthdate', 'date'),
      f('HasOptedOutOfEmail', 'Email Opt Out', 'boolean', { nillable: false, defaultedOnCreate: true }),
      f('npe01__HomeEmail__c', 'Personal Email', 'email'),
      f('npe01__Preferred_Email__c', 'Preferred Email', 'picklist'),
      f('npo02__TotalOppAmount__c', 'Total Gifts', 'currency', { createable: false, updateable: false, calculated: true }),
      f('Tributary_Id__c', 'Tributary ID', 'string', { externalId: true, idLookup: true }),
      f('Volunteer_Skills__c', 'Volunteer Skills', 'string'),
    ],
  },
  Account: {
    label: 'Account', prefix: '001',
    fields: [
      ...SYSTEM().map((x) => (x.name === 'Id' ? { ...x, label: 'Account ID' } : x)),
      f('Name', 'Account Name', 'string', { nillable: false }),
      f('Type', 'Account Type', 'picklist'),
      f('npe01__SYSTEM_AccountType__c', 'Account Type (system)', 'string'),
      f('npo02__TotalOppAmount__c', 'Total Gifts', 'currency', { createable: false, updateable: false, calculated: true }),
    ],
  },
};

// NPSP's import object (NPSP Data Importer): Contact1, Household address and Donation fields, and what NPSP writes as it processes a row
DESCRIBES.npsp__DataImport__c = {
  label: 'NPSP Data Import', prefix: 'a0D',
  fields: [
    ...SYSTEM().map((x) => (x.name === 'Id' ? { ...x, label: 'Record ID' } : x)),
    f('npsp__Contact1_Firstname__c', 'Contact1 First Name', 'string'),
    f('npsp__Contact1_Lastname__c', 'Contact1 Last Name', 'string'),
    f('npsp__Contact1_Personal_Email__c', 'Contact1 Personal Email', 'email'),
    f('npsp__Contact1_Home_Phone__c', 'Contact1 Home Phone', 'phone'),
    f('npsp__Home_City__c', 'Home City', 'string'),
    f('npsp__Donation_Amount__c', 'Donation Amount', 'currency'),
    f('npsp__Donation_Date__c', 'Donation Date', 'date'),
    f('npsp__Donation_Donor__c', 'Donation Donor', 'picklist'),
    f('npsp__Donation_Stage__c', 'Donation Stage', 'picklist'),
    f('npsp__Donation_Campaign_Name__c', 'Donation Campaign Name', 'string'),
    f('npsp__Payment_Method__c', 'Payment Method', 'picklist'),
    f('npsp__Status__c', 'Status', 'picklist'),
    f('npsp__FailureInformation__c', 'Failure Information', 'textarea', { filterable: false }),
    f('npsp__ImportedDate__c', 'Imported Date', 'datetime'),
    f('npsp__Contact1Imported__c', 'Contact1 Imported', 'reference', { referenceTo: ['Contact'] }),
    f('npsp__Contact1ImportStatus__c', 'Contact1 Import Status', 'string'),
    f('npsp__DonationImported__c', 'Donation Imported', 'reference', { referenceTo: [] }),
    f('npsp__DonationImportStatus__c', 'Donation Import Status', 'string'),
  ],
};

export interface SfSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeSalesforce {
  url: string;
  seen: SfSeen[];
  /** the org's records by object, then id */
  records: Record<string, Map<string, Obj>>;
  /** every SOQL query asked, in order */
  queries: string[];
  /** the API versions the calls named */
  versions: Set<string>;
  /** a refresh token for a new grant (as Connect would save) */
  grant(): string;
  /** refresh tokens stop working */
  revoke(): void;
  /** access tokens stop working (a session timed out) */
  expireTokens(): void;
  /** the daily allowance (Sforce-Limit-Info's second number) and what is used of it */
  apiLimit: number;
  apiUsed: number;
  /** the next `n` API calls answer 503 with Retry-After `seconds` */
  throttle(n: number, seconds?: number): void;
  /** query locators are forgotten (they expire after 15 minutes at Salesforce) */
  forgetLocators(): void;
  /** a Contact entered in Salesforce (its Household Account made as NPSP would) */
  addContact(c: Obj): Obj;
  /** a record deleted in Salesforce: in the recycle bin (IsDeleted true, SystemModstamp moved), answered only by queryAll */
  remove(object: string, id: string): void;
  /** Bulk API 2.0 ingest jobs, in the order they were created */
  jobs: FakeBulkJob[];
  /** when set, the next job Salesforce processes fails as a whole with these words (state Failed, errorMessage) */
  failNextJob: string | null;
  /** the query resources asked, 'queryAll' for each queryAll */
  queried: string[];
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];
/** an answer body that is CSV (Bulk API results), not JSON */
class Csv { constructor(readonly text: string) {} }
const csvCell = (v: unknown) => `"${String(v ?? '').replaceAll('"', '""')}"`;

/** A Bulk API 2.0 ingest job as the fake keeps it. */
export interface FakeBulkJob {
  id: string; object: string; operation: string; externalIdFieldName?: string; lineEnding: string;
  state: 'Open' | 'UploadComplete' | 'InProgress' | 'JobComplete' | 'Failed' | 'Aborted';
  /** the CSV uploads, as sent */
  uploads: string[];
  columns: string[];
  successful: Obj[];
  failed: Obj[];
  errorMessage?: string;
}
const err = (status: number, errorCode: string, message: string, fields?: string[]): Answer => [status, [{ message, errorCode, ...(fields ? { fields } : {}) }]];

// ------------------------------------------------------------------ SOQL

type Tok = { k: 'id' | 'str' | 'num' | 'op' | 'lit'; v: string };

function tokenize(q: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < q.length) {
    const ch = q[i]!;
    if (/\s/.test(ch)) { i++; continue; }
    if (ch === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= q.length) throw new Error('unterminated string');
        const c = q[i]!;
        if (c === '\\') {
          const n = q[i + 1];
          const map: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', '"': '"', "'": "'", '\\': '\\', '%': '\\%', _: '\\_' };
          if (n === undefined || !(n in map)) throw new Error('invalid escape');
          s += map[n];
          i += 2;
          continue;
        }
        if (c === "'") { i++; break; }
        s += c;
        i++;
      }
      out.push({ k: 'str', v: s });
      continue;
    }
    const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2}))|^(\d{4}-\d{2}-\d{2})|^(-?\d+(?:\.\d+)?)|^(<=|>=|!=|=|<|>|\(|\)|,)|^([A-Za-z_][A-Za-z0-9_.]*)/.exec(q.slice(i));
    if (!m) throw new Error(`unexpected ${ch}`);
    if (m[1] || m[2]) out.push({ k: 'lit', v: m[0] });
    else if (m[3]) out.push({ k: 'num', v: m[0] });
    else if (m[4]) out.push({ k: 'op', v: m[0] });
    else out.push({ k: 'id', v: m[0] });
    i += m[0].length;
  }
  return out;
}

type Cond = { and: Cond[] } | { or: Cond[] } | { not: Cond } | { field: string; op: string; value: unknown };
export interface Soql { fields: string[]; object: string; where: Cond | null; order: { field: string; desc: boolean }[]; limit: number | null }

export function parseSoql(q: string): Soql {
  const t = tokenize(q);
  let p = 0;
  const peek = () => t[p];
  const kw = (w: string) => peek()?.k === 'id' && peek()!.v.toUpperCase() === w;
  const expect = (w: string) => { if (!kw(w)) throw new Error(`expected ${w}`); p++; };
  const ident = () => { const x = t[p++]; if (x?.k !== 'id') throw new Error('expected a name'); return x.v; };
  const value = (): unknown => {
    const x = t[p++];
    if (!x) throw new Error('expected a value');
    if (x.k === 'str') return { str: x.v };
    if (x.k === 'num') return Number(x.v);
    if (x.k === 'lit') return { lit: x.v };
    if (x.k === 'id' && /^(true|false)$/i.test(x.v)) return x.v.toLowerCase() === 'true';
    if (x.k === 'id' && /^null$/i.test(x.v)) return null;
    throw new Error(`unexpected ${x.v}`);
  };
  expect('SELECT');
  const fields = [ident()];
  while (peek()?.v === ',') { p++; fields.push(ident()); }
  expect('FROM');
  const object = ident();
  const factor = (): Cond => {
    if (peek()?.v === '(') { p++; const e = expr(); if (t[p++]?.v !== ')') throw new Error('expected )'); return e; }
    if (kw('NOT')) { p++; return { not: factor() }; }
    const field = ident();
    if (kw('LIKE')) { p++; const v = value(); return { field, op: 'LIKE', value: v }; }
    if (kw('IN')) {
      p++;
      if (t[p++]?.v !== '(') throw new Error('expected (');
      const vs = [value()];
      while (peek()?.v === ',') { p++; vs.push(value()); }
      if (t[p++]?.v !== ')') throw new Error('expected )');
      return { field, op: 'IN', value: vs };
    }
    const op = t[p++];
    if (op?.k !== 'op' || !['=', '!=', '<', '<=', '>', '>='].includes(op.v)) throw new Error('expected an operator');
    return { field, op: op.v, value: value() };
  };
  const term = (): Cond => { const xs = [factor()]; while (kw('AND')) { p++; xs.push(factor()); } return xs.length === 1 ? xs[0]! : { and: xs }; };
  const expr = (): Cond => { const xs = [term()]; while (kw('OR')) { p++; xs.push(term()); } return xs.length === 1 ? xs[0]! : { or: xs }; };
  let where: Cond | null = null;
  if (kw('WHERE')) { p++; where = expr(); }
  const order: Soql['order'] = [];
  if (kw('ORDER')) {
    p++; expect('BY');
    for (;;) {
      const field = ident();
      let desc = false;
      if (kw('ASC')) p++; else if (kw('DESC')) { p++; desc = true; }
      order.push({ field, desc });
      if (peek()?.v !== ',') break;
      p++;
    }
  }
  let limit: number | null = null;
  if (kw('LIMIT')) { p++; const n = t[p++]; if (n?.k !== 'num') throw new Error('expected a number'); limit = Number(n.v); }
  if (p !== t.length) throw new Error(`unexpected ${t[p]!.v}`);
  return { fields, object, where, order, limit };
}

const stampMs = (v: unknown) => Date.parse(String(v).replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));

function compare(have: unknown, want: unknown, type: string): number | null {
  if (want === null) return have === null || have === undefined ? 0 : 1;
  if (have === null || have === undefined) return null;
  if (type === 'datetime') return stampMs(have) - stampMs((want as { lit: string }).lit ?? want);
  if (typeof want === 'number') return Number(have) - want;
  if (typeof want === 'boolean') return have === want ? 0 : 1;
  const w = (want as { str?: string; lit?: string }).str ?? (want as { lit?: string }).lit ?? '';
  return String(have).toLowerCase().localeCompare(w.toLowerCase());
}

function likeRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && (pattern[i + 1] === '%' || pattern[i + 1] === '_')) { re += `\\${pattern[i + 1]}`; i++; continue; }
    re += c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'is');
}

function holds(c: Cond, r: Obj, types: Map<string, string>): boolean {
  if ('and' in c) return c.and.every((x) => holds(x, r, types));
  if ('or' in c) return c.or.some((x) => holds(x, r, types));
  if ('not' in c) return !holds(c.not, r, types);
  const type = types.get(c.field)!;
  const have = r[c.field];
  if (c.op === 'LIKE') return have !== null && have !== undefined && likeRegex((c.value as { str: string }).str).test(String(have));
  if (c.op === 'IN') return (c.value as unknown[]).some((v) => compare(have, v, type) === 0);
  const d = compare(have, c.value, type);
  if (c.op === '!=') return d !== 0;
  if (d === null) return false;
  return c.op === '=' ? d === 0 : c.op === '<' ? d < 0 : c.op === '<=' ? d <= 0 : c.op === '>' ? d > 0 : d >= 0;
}

function fieldsOf(c: Cond | null): string[] {
  if (!c) return [];
  if ('and' in c) return c.and.flatMap(fieldsOf);
  if ('or' in c) return c.or.flatMap(fieldsOf);
  if ('not' in c) return fieldsOf(c.not);
  return [c.field];
}

// ------------------------------------------------------------------ the org

export async function startFakeSalesforce(): Promise<FakeSalesforce> {
  const seen: SfSeen[] = [];
  const records: Record<string, Map<string, Obj>> = Object.fromEntries(Object.keys(DESCRIBES).map((o) => [o, new Map()]));
  const queries: string[] = [];
  const versions = new Set<string>();
  const queried: string[] = [];
  const locators = new Map<string, { rows: Obj[]; at: number; size: number }>();
  const refreshTokens = new Set<string>();
  const access = new Set<string>();
  let counter = 0;
  let throttled = 0;
  let throttleSeconds = 1;
  // SystemModstamp moves on a second with every change, as the org's (whole seconds) do
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const tick = () => { clock = Math.max(clock + 1000, Math.floor(Date.now() / 1000) * 1000); return new Date(clock).toISOString().replace('Z', '+0000'); };
  const newId = (object: string) => `${DESCRIBES[object]!.prefix}Rv${String(++counter).padStart(10, '0')}AAA`;

  const describeOf = (object: string) => DESCRIBES[object];
  const typesOf = (object: string) => new Map(describeOf(object)!.fields.map((x) => [x.name, x.type]));

  const view = (object: string, r: Obj, fields: string[]): Obj => ({
    attributes: { type: object, url: `/services/data/v62.0/sobjects/${object}/${String(r.Id)}` },
    ...Object.fromEntries(fields.map((x) => [x, r[x] ?? null])),
  });

  type SaveResult = { id?: string; success: boolean; errors: { statusCode: string; message: string; fields: string[] }[]; created?: boolean };
  // a failed item has no id (REST API Developer Guide, sObject Collections: response body example)
  const failed = (statusCode: string, message: string, fields: string[] = []): SaveResult => ({ success: false, errors: [{ statusCode, message, fields }] });

  /** checks a record's fields for a create or update; answers an error or null */
  const check = (object: string, body: Obj, op: 'create' | 'update'): SaveResult | null => {
    const d = describeOf(object)!;
    for (const k of Object.keys(body)) {
      if (k === 'attributes' || (k === 'id' && op === 'update')) continue;
      const def = d.fields.find((x) => x.name === k);
      if (!def) return failed('INVALID_FIELD', `No such column '${k}' on sobject of type ${object}`, [k]);
      if (op === 'create' ? !def.createable : !def.updateable) return failed('INVALID_FIELD_FOR_INSERT_UPDATE', `Unable to create/update fields: ${k}. Please check the security settings of this field and verify that it is read/write for your profile or permission set.`, [k]);
      // a lookup must name a record the org holds
      const to = def.referenceTo?.[0];
      if (to && body[k] && !records[to]?.has(String(body[k]))) return failed('INVALID_CROSS_REFERENCE_KEY', `invalid cross reference id`, [k]);
    }
    return null;
  };

  const create = (object: string, body: Obj): SaveResult => {
    const bad = check(object, body, 'create');
    if (bad) return bad;
    const d = describeOf(object)!;
    const missing = d.fields.filter((x) => x.createable && x.nillable === false && !x.defaultedOnCreate && x.type !== 'boolean' && (body[x.name] === undefined || body[x.name] === null || body[x.name] === '')).map((x) => x.name);
    if (missing.length) return failed('REQUIRED_FIELD_MISSING', `Required fields are missing: [${missing.join(', ')}]`, missing);
    if (object === 'Contact' && typeof body.Email === 'string' && [...records.Contact!.values()].some((c) => String(c.Email ?? '').toLowerCase() === (body.Email as string).toLowerCase())) {
      return failed('DUPLICATES_DETECTED', 'Use one of these records?', []);
    }
    const id = newId(object);
    const now = tick();
    const row: Obj = { Id: id, IsDeleted: false, CreatedDate: now, SystemModstamp: now };
    for (const x of d.fields) if (x.type === 'boolean' && x.createable && !(x.name in body)) row[x.name] = false;
    for (const [k, v] of Object.entries(body)) if (k !== 'attributes') row[k] = v;
    if (object === 'Contact' && !row.AccountId) {
      // NPSP's Household Account model: every Contact without an Account gets its household
      const hh = create('Account', { Name: `${String(row.LastName)} Household`, Type: 'Household', npe01__SYSTEM_AccountType__c: 'Household Account' });
      row.AccountId = hh.id;
    }
    records[object]!.set(id, row);
    return { id, success: true, errors: [] };
  };

  const update = (object: string, id: string, body: Obj): SaveResult => {
    const row = records[object]?.get(id);
    if (!row || row.IsDeleted === true) return failed('ENTITY_IS_DELETED', 'entity is deleted', []);
    const bad = check(object, body, 'update');
    if (bad) return bad;
    const d = describeOf(object)!;
    for (const x of d.fields) if (x.nillable === false && x.updateable && x.name in body && (body[x.name] === null || body[x.name] === '')) return failed('REQUIRED_FIELD_MISSING', `Required fields are missing: [${x.name}]`, [x.name]);
    for (const [k, v] of Object.entries(body)) if (k !== 'attributes' && k !== 'id') row[k] = v;
    row.SystemModstamp = tick();
    return { id, success: true, errors: [] };
  };

  const collection = (method: string, rest: string[], body: Obj): Answer => {
    const list = body.records;
    if (!Array.isArray(list)) return err(400, 'JSON_PARSER_ERROR', 'Cannot deserialize instance of List from null value records');
    if (list.length > 200) return err(400, 'EXCEEDED_ID_LIMIT', 'record limit reached. cannot submit more than 200 records into this call');
    if (method === 'PATCH' && rest.length === 2 && !describeOf(rest[0]!)?.fields.find((x) => x.name === rest[1] && x.externalId)) {
      return err(400, 'INVALID_FIELD', `Provided external ID field does not exist or is not accessible: ${rest[1]}`);
    }
    const allOrNone = body.allOrNone === true;
    const snapshot = allOrNone ? structuredClone(records) : null;
    const results: SaveResult[] = (list as Obj[]).map((r) => {
      const type = (r.attributes as { type?: string } | undefined)?.type;
      if (!type || !describeOf(type)) return failed('INVALID_TYPE', 'sObject type is missing or not supported');
      if (method === 'POST' && rest.length === 0) return r.id ? failed('INVALID_FIELD', 'cannot specify Id in an insert call', ['Id']) : create(type, r);
      if (method === 'PATCH' && rest.length === 0) return typeof r.id === 'string' ? update(type, r.id, r) : failed('MISSING_ARGUMENT', 'Id not specified in an update call', ['Id']);
      // upsert by External ID
      const [object, field] = rest as [string, string];
      if (type !== object) return failed('INVALID_TYPE', `Record type ${type} does not match ${object}`);
      return upsertOne(object, field, r);
    });
    if (allOrNone && results.some((r) => !r.success) && snapshot) {
      for (const k of Object.keys(records)) records[k] = snapshot[k]!;
      return [200, results.map((r) => (r.success ? { success: false, errors: [{ statusCode: 'ALL_OR_NONE_OPERATION_ROLLED_BACK', message: 'Record rolled back because not all records were valid and the request was using AllOrNone header', fields: [] }] } : r))];
    }
    return [200, results];
  };

  /** an upsert by External ID; `index` (the object's records by that field, lower case) spares a job's many rows a scan each */
  const upsertOne = (object: string, field: string, r: Obj, index?: Map<string, Obj[]>): SaveResult => {
    const key = r[field];
    if (key === undefined || key === null || key === '') return failed('MISSING_ARGUMENT', `${field} not specified`, [field]);
    const want = String(key).toLowerCase();
    const hits = index ? index.get(want) ?? [] : [...records[object]!.values()].filter((x) => String(x[field] ?? '').toLowerCase() === want);
    if (hits.length > 1) return failed('DUPLICATE_EXTERNAL_ID', `${field}: more than one record found for external id field: [${hits.map((h) => String(h.Id)).join(', ')}]`, [field]);
    if (hits.length === 1) return { ...update(object, String(hits[0]!.Id), r), created: false };
    const made = create(object, r);
    if (made.success) index?.set(want, [records[object]!.get(made.id!)!]);
    return { ...made, created: true };
  };

  /** a query; `all` (queryAll) answers deleted records too, as the recycle bin holds them */
  // ------------------------------------------------------------ Bulk API 2.0 ingest
  const jobs: FakeBulkJob[] = [];
  const jobInfo = (j: FakeBulkJob) => ({
    id: j.id, operation: j.operation, object: j.object, createdById: '005Rv0000000001', createdDate: '2026-11-01T00:00:00.000+0000', systemModstamp: '2026-11-01T00:00:00.000+0000',
    state: j.state, ...(j.externalIdFieldName ? { externalIdFieldName: j.externalIdFieldName } : {}), concurrencyMode: 'Parallel', contentType: 'CSV', apiVersion: 62.0,
    jobType: 'V2Ingest', contentUrl: `services/data/v62.0/jobs/ingest/${j.id}/batches`, lineEnding: j.lineEnding, columnDelimiter: 'COMMA',
    numberRecordsProcessed: j.successful.length + j.failed.length, numberRecordsFailed: j.failed.length, retries: 0, totalProcessingTime: 0,
    ...(j.errorMessage ? { errorMessage: j.errorMessage } : {}),
  });
  const typed = (object: string, name: string, text: string): unknown => {
    if (text === '#N/A') return null;
    const type = typesOf(object).get(name);
    if (type === 'boolean') return text.toLowerCase() === 'true';
    if (['int', 'double', 'currency', 'percent', 'long'].includes(type ?? '')) return Number(text);
    return text;
  };
  const errorCell = (r: SaveResult) => r.errors.map((e) => `${e.statusCode}:${e.message}:${e.fields.join(',')} --`).join(' ');
  /** Salesforce processes the job's rows: each a save of its own (partial success), results kept by row */
  const processJob = (j: FakeBulkJob) => {
    if (fake.failNextJob) { j.state = 'Failed'; j.errorMessage = fake.failNextJob; fake.failNextJob = null; return; }
    const index = new Map<string, Obj[]>();
    if (j.operation === 'upsert') {
      for (const x of records[j.object]!.values()) {
        const k = String(x[j.externalIdFieldName!] ?? '').toLowerCase();
        if (k) index.set(k, [...(index.get(k) ?? []), x]);
      }
    }
    for (const text of j.uploads) {
      const [header, ...rows] = parseCsv(text);
      j.columns = header ?? [];
      for (const cells of rows) {
        const original = Object.fromEntries(j.columns.map((c, i) => [c, cells[i] ?? '']));
        const body: Obj = {};
        for (const [k, v] of Object.entries(original)) if (v !== '') body[k] = typed(j.object, k, v);
        let r: SaveResult;
        if (j.operation === 'update') {
          const { Id, ...rest } = body;
          r = typeof Id === 'string' ? update(j.object, Id, { ...rest, id: Id }) : failed('MISSING_ARGUMENT', 'Id not specified in an update call', ['Id']);
        } else if (j.operation === 'upsert') r = upsertOne(j.object, j.externalIdFieldName!, body, index);
        else r = create(j.object, body);
        if (r.success) j.successful.push({ sf__Id: r.id, sf__Created: String(r.created ?? j.operation === 'insert'), ...original });
        else j.failed.push({ sf__Id: '', sf__Error: errorCell(r), ...original });
      }
    }
    j.state = 'JobComplete';
  };
  const resultsCsv = (j: FakeBulkJob, first: string[], rows: Obj[]) => {
    const columns = [...first, ...j.columns];
    // Salesforce does not keep the upload's order in results: the fake answers them last first
    return new Csv(`${[columns.map(csvCell).join(','), ...[...rows].reverse().map((r) => columns.map((c) => csvCell(r[c])).join(','))].join('\n')}\n`);
  };
  const bulk = (method: string, rest: string, body: Obj, raw: string, headers: http.IncomingHttpHeaders): Answer | null => {
    let m: RegExpMatchArray | null;
    if (method === 'POST' && /^\/jobs\/ingest\/?$/.test(rest)) {
      const object = String(body.object ?? '');
      const operation = String(body.operation ?? '');
      if (!describeOf(object)) return err(400, 'INVALIDJOB', `InvalidJob : Invalid object: ${object}`);
      if (!['insert', 'update', 'upsert', 'delete', 'hardDelete'].includes(operation)) return err(400, 'INVALIDJOB', `InvalidJob : Invalid operation: ${operation}`);
      if ((body.contentType ?? 'CSV') !== 'CSV') return err(400, 'INVALIDJOB', 'InvalidJob : Invalid content type');
      const ext = body.externalIdFieldName === undefined ? undefined : String(body.externalIdFieldName);
      if (operation === 'upsert' && !describeOf(object)!.fields.some((x) => x.name === ext && x.externalId)) {
        return err(400, 'INVALIDJOB', `InvalidJob : Field name provided, ${ext ?? ''} is not an External ID or indexed field for ${object}`);
      }
      const j: FakeBulkJob = { id: `750Rv${String(++counter).padStart(10, '0')}AAA`, object, operation, ...(ext ? { externalIdFieldName: ext } : {}), lineEnding: String(body.lineEnding ?? 'LF'), state: 'Open', uploads: [], columns: [], successful: [], failed: [] };
      jobs.push(j);
      return [200, jobInfo(j)];
    }
    if (!(m = rest.match(/^\/jobs\/ingest\/([A-Za-z0-9]+)(\/[A-Za-z]+)?\/?$/))) return null;
    const j = jobs.find((x) => x.id === m![1]);
    if (!j) return err(404, 'NOT_FOUND', 'The requested resource does not exist');
    const part = m[2] ?? '';
    if (method === 'PUT' && part === '/batches') {
      if (!String(headers['content-type'] ?? '').startsWith('text/csv')) return err(400, 'INVALIDJOB', 'InvalidJob : Unsupported content type: expected text/csv');
      if (j.state !== 'Open') return err(409, 'INVALIDJOBSTATE', `Job ${j.id} is not open for uploads: its state is ${j.state}`);
      j.uploads.push(raw);
      return [201, null];
    }
    if (method === 'PATCH' && part === '') {
      const to = String(body.state ?? '');
      if (to === 'UploadComplete' && j.state === 'Open') j.state = 'UploadComplete';
      else if (to === 'Aborted' && ['Open', 'UploadComplete', 'InProgress'].includes(j.state)) j.state = 'Aborted';
      else return err(400, 'INVALIDSTATUS', `Invalid state change from ${j.state} to ${to}`);
      return [200, jobInfo(j)];
    }
    if (method === 'GET' && part === '') {
      // each look finds the job a step further: UploadComplete, InProgress, then done
      if (j.state === 'InProgress') processJob(j);
      else if (j.state === 'UploadComplete') j.state = 'InProgress';
      return [200, jobInfo(j)];
    }
    if (method === 'GET' && (part === '/successfulResults' || part === '/failedResults')) {
      if (j.state !== 'JobComplete' && j.state !== 'Failed') return err(400, 'INVALIDJOBSTATE', `Job ${j.id} is not complete: its state is ${j.state}`);
      return part === '/successfulResults' ? [200, resultsCsv(j, ['sf__Id', 'sf__Created'], j.successful)] : [200, resultsCsv(j, ['sf__Id', 'sf__Error'], j.failed)];
    }
    return err(404, 'NOT_FOUND', 'The requested resource does not exist');
  };

  const query = (soql: string, batch: number, all = false): Answer => {
    queries.push(soql);
    let q: Soql;
    try { q = parseSoql(soql); } catch (e) { return err(400, 'MALFORMED_QUERY', (e as Error).message); }
    const d = describeOf(q.object);
    if (!d) return err(400, 'INVALID_TYPE', `sObject type '${q.object}' is not supported.`);
    const types = typesOf(q.object);
    for (const name of [...q.fields, ...fieldsOf(q.where), ...q.order.map((o) => o.field)]) {
      if (!types.has(name)) return err(400, 'INVALID_FIELD', `No such column '${name}' on entity '${q.object}'.`);
    }
    let rows = [...records[q.object]!.values()].filter((r) => (all || r.IsDeleted !== true) && (!q.where || holds(q.where, r, types)));
    rows.sort((a, b) => {
      for (const o of q.order) {
        const t = types.get(o.field);
        const x = a[o.field]; const y = b[o.field];
        const c = t === 'datetime' ? stampMs(x) - stampMs(y) : String(x ?? '').localeCompare(String(y ?? ''));
        if (c) return o.desc ? -c : c;
      }
      return 0;
    });
    if (q.limit !== null) rows = rows.slice(0, q.limit);
    const out = rows.map((r) => view(q.object, r, q.fields));
    return page(out, 0, batch);
  };

  const page = (rows: Obj[], at: number, size: number): Answer => {
    const records = rows.slice(at, at + size);
    const done = at + size >= rows.length;
    let next: string | undefined;
    if (!done) {
      const locator = `01gRv${String(++counter).padStart(13, '0')}`;
      locators.set(locator, { rows, at: at + size, size });
      next = `/services/data/v62.0/query/${locator}-${at + size}`;
    }
    return [200, { totalSize: rows.length, done, ...(next ? { nextRecordsUrl: next } : {}), records }];
  };

  const api = (method: string, rest: string, q: URLSearchParams, body: Obj, headers: http.IncomingHttpHeaders, raw: string): Answer => {
    let m: RegExpMatchArray | null;
    const job = bulk(method, rest, body, raw, headers);
    if (job) return job;
    const batch = Math.min(Math.max(Number(/batchSize=(\d+)/.exec(String(headers['sforce-query-options'] ?? ''))?.[1] ?? 2000), 200), 2000);
    if (method === 'GET' && (rest === '/query' || rest === '/query/')) return query(q.get('q') ?? '', batch);
    if (method === 'GET' && (rest === '/queryAll' || rest === '/queryAll/')) { queried.push('queryAll'); return query(q.get('q') ?? '', batch, true); }
    // queryAll's nextRecordsUrl says query too; either resource takes the locator
    if (method === 'GET' && (m = rest.match(/^\/query(?:All)?\/([A-Za-z0-9]+)-(\d+)$/))) {
      const l = locators.get(m[1]!);
      if (!l) return err(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
      return page(l.rows, l.at, l.size);
    }
    if (method === 'GET' && rest === '/') {
      return [200, Object.fromEntries(['sobjects', 'query', 'queryAll', 'composite', 'limits', 'search', 'analytics', 'tooling'].map((r) => [r, `/services/data/v62.0/${r}`]))];
    }
    if (method === 'GET' && rest === '/sobjects') {
      return [200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: [
        ...Object.entries(DESCRIBES).map(([name, d]) => ({ name, label: d.label, labelPlural: `${d.label}s`, keyPrefix: d.prefix, custom: name.endsWith('__c'), queryable: true, createable: true, updateable: true })),
        { name: 'npe03__Recurring_Donation__c', label: 'Recurring Donation', keyPrefix: 'a09', custom: true, queryable: true, createable: true, updateable: true },
        { name: 'Volunteer_Shift__c', label: 'Volunteer Shift', keyPrefix: 'a0B', custom: true, queryable: true, createable: true, updateable: true },
        { name: 'ApexLog', label: 'Apex Debug Log', keyPrefix: '07L', custom: false, queryable: false, createable: false, updateable: false },
      ] }];
    }
    if (method === 'GET' && (m = rest.match(/^\/sobjects\/([A-Za-z0-9_]+)\/describe\/?$/))) {
      const d = describeOf(m[1]!);
      if (!d) return err(404, 'NOT_FOUND', 'The requested resource does not exist');
      return [200, { name: m[1], label: d.label, keyPrefix: d.prefix, custom: m[1]!.endsWith('__c'), createable: true, queryable: true, replicateable: true, fields: d.fields }];
    }
    if ((method === 'POST' || method === 'PATCH') && (m = rest.match(/^\/composite\/sobjects(?:\/([A-Za-z0-9_]+)\/([A-Za-z0-9_]+))?$/))) {
      return collection(method, m[1] ? [m[1], m[2]!] : [], body);
    }
    return err(404, 'NOT_FOUND', 'The requested resource does not exist');
  };

  const token = (form: URLSearchParams): Answer => {
    if (form.get('client_id') !== SF_APP.clientId || form.get('client_secret') !== SF_APP.clientSecret) return [400, { error: 'invalid_client_id', error_description: 'client identifier invalid' }];
    const grant = form.get('grant_type');
    if (grant === 'password') {
      if (form.get('username') !== SF_APP.username || form.get('password') !== `${SF_APP.password}${SF_APP.securityToken}`) return [400, { error: 'invalid_grant', error_description: 'authentication failure' }];
    } else if (grant === 'refresh_token') {
      if (!refreshTokens.has(form.get('refresh_token') ?? '')) return [400, { error: 'invalid_grant', error_description: 'expired access/refresh token' }];
    } else if (grant !== 'client_credentials') return [400, { error: 'unsupported_grant_type', error_description: 'grant type not supported' }];
    const accessToken = `00DRv!sf-access-${++counter}`;
    access.add(accessToken);
    return [200, { access_token: accessToken, instance_url: SF_INSTANCE, id: `https://login.salesforce.com/id/00DRv0000000001/005Rv0000000001`, token_type: 'Bearer', issued_at: String(Date.now()), signature: 'c2lnbmF0dXJl' }];
  };

  const server = await startVendorServer((req, res) => {
    const { method, url, raw, body } = req;
    seen.push({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), body, headers: req.headers });
    const send = ([status, payload, headers]: Answer) => sendJson(res, status, payload, headers, 'application/json;charset=UTF-8');
    if (url.pathname === '/services/oauth2/token' && method === 'POST') return send(req.form ? token(new URLSearchParams(raw)) : [400, { error: 'invalid_request' }]);
    // the REST API takes request URIs of up to 16,384 bytes
    if (Buffer.byteLength(req.target) > 16_384) return send([414, [{ message: 'The request URI is too long.', errorCode: 'URI_TOO_LONG' }]]);
    const m = /^\/services\/data\/(v\d+\.\d)(\/.*)$/.exec(url.pathname);
    if (!m) return send(err(404, 'NOT_FOUND', 'The requested resource does not exist'));
    versions.add(m[1]!);
    if (!access.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return send(err(401, 'INVALID_SESSION_ID', 'Session expired or invalid'));
    const limit = { 'sforce-limit-info': `api-usage=${fake.apiUsed}/${fake.apiLimit}` };
    if (fake.apiUsed >= fake.apiLimit) return send([403, err(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.')[1], limit]);
    fake.apiUsed++;
    limit['sforce-limit-info'] = `api-usage=${fake.apiUsed}/${fake.apiLimit}`;
    if (throttled > 0) {
      throttled--;
      return send([503, [{ message: 'Server is temporarily unavailable. Try again later.', errorCode: 'SERVER_UNAVAILABLE' }], { ...limit, 'retry-after': String(throttleSeconds) }]);
    }
    const [status, payload, headers] = api(method, m[2]!, url.searchParams, (body && typeof body === 'object' ? body : {}) as Obj, req.headers, raw);
    if (payload instanceof Csv) {
      res.writeHead(status, { 'content-type': 'text/csv', ...limit, ...headers });
      return res.end(payload.text);
    }
    return send([status, payload, { ...limit, ...headers }]);
  });

  const fake: FakeSalesforce = {
    url: server.url, seen, records, queries, versions, jobs, failNextJob: null,
    apiLimit: 15000,
    apiUsed: 0,
    grant: () => { const t = `5Aep861-refresh-${++counter}`; refreshTokens.add(t); return t; },
    revoke: () => { refreshTokens.clear(); },
    expireTokens: () => { access.clear(); },
    throttle: (n, seconds = 1) => { throttled = n; throttleSeconds = seconds; },
    forgetLocators: () => { locators.clear(); },
    queried,
    remove(object, id) {
      const row = records[object]!.get(id)!;
      row.IsDeleted = true;
      row.SystemModstamp = tick();
    },
    addContact(c) {
      const r = create('Contact', c);
      if (!r.success) throw new Error(JSON.stringify(r.errors));
      return records.Contact!.get(r.id!)!;
    },
    close: server.close,
  };
  return fake;
}
