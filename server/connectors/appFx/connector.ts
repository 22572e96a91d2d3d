/**
 * Blackbaud CRM and Altru: the Infinity platform's AppFxWebService.asmx (SOAP 1.1, soap.ts),
 * answered with HTTP Basic credentials of a user, every request naming its database
 * (ClientAppInfo REDatabaseToUse). GetAvailableREDatabases proves the credentials and the database.
 *
 * Source (Blackbaud CRM: constituents and revenue; Altru: constituents, revenue and memberships):
 * DataListLoad of the data list the formula's source settings name, a list the site publishes
 * with a "changed since" parameter (DATECHANGEDSINCE) whose rows carry ID and DATECHANGED, oldest
 * change first. Infinity's data lists do not page: a page is MaxRows rows from the latest
 * DATECHANGED seen (inclusive), rows already read at that moment skipped by their ID, until a page
 * comes back short. The watermark is that moment and ID.
 *
 * Destination (Blackbaud CRM: constituents and revenue; Altru: constituents): SearchListLoad of
 * the formula's search list, its filter fields the matching scenario's fields (LOOKUPID,
 * EMAILADDRESS, KEYNAME, …); DataFormSave of the add form to create (once per idempotency key,
 * kit/writeOnce.ts), of the edit form with the record's ID to update. A SOAP fault on a write is
 * that record's error in the vendor's words.
 *
 * Not the kit's client: it answers JSON and retries an HTTP 500, where AppFx answers XML and
 * sends a fault (a refusal) as HTTP 500. The waits are the kit's (Retry-After, QuotaExhausted).
 */
import { createHash } from 'node:crypto';
import { altru, bbcrm } from '../../../src/domain/connectors/blackbaud.ts';
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import {
  ConnectorInputError, processingError, refused, searchOneOf, transientProblem, type Connector, type ConnectorContext, type FieldInfo,
  type PullBatch, type PullOptions, type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult,
} from '../connector.ts';
import { holdsAll } from '../kit/criteria.ts';
import { sharedPacer } from '../kit/pace.ts';
import { positionSince, type PullPosition } from '../kit/paging.ts';
import { QuotaExhausted, retryAfterMs } from '../kit/problems.ts';
import { eachRecord, writtenResult } from '../kit/results.ts';
import { MAX_ATTEMPTS, MAX_WAIT_MS, VendorRefusal } from '../kit/vendorClient.ts';
import { writeLedger } from '../kit/writeOnce.ts';
import { basic, VENDOR_DATA_MAX_BYTES, vendorFetch } from '../vendorHttp.ts';
import { child } from '../kit/xml.ts';
import { APPFX_NS, envelope, fieldValues, replyOf, rowsOf, textEl } from './soap.ts';

/** rows a DataListLoad answers at most (its MaxRows) */
export const APPFX_PAGE = 500;
/** the most rows one page is asked for when many changed at one moment */
const MAX_ROWS = 20 * APPFX_PAGE;
/** calls a second per web service and user: Blackbaud publishes no limit for a site's own server; kept modest */
const CALLS_PER_SECOND = 10;
const BACKOFF_MS = 250;

interface System { system: SystemId; name: string; source: readonly string[]; destination: readonly string[] }
const SYSTEMS: Record<'bbcrm' | 'altru', System> = {
  bbcrm: { system: 'bbcrm', name: 'Blackbaud CRM', source: ['constituents', 'revenue'], destination: ['constituents', 'revenue'] },
  altru: { system: 'altru', name: 'Altru', source: ['constituents', 'revenue', 'memberships'], destination: ['constituents'] },
};
const WHAT: Record<string, string> = { constituents: 'constituent', revenue: 'revenue', memberships: 'membership' };

export interface AppFxCallOptions { sleep?: (ms: number) => Promise<void> }

/** One SOAP call to the site's web service: its reply element, a fault as a VendorRefusal in the vendor's words. */
async function soap(s: System, ctx: ConnectorContext, operation: string, inner: string, attributes: Record<string, string> = {}, opts: AppFxCallOptions & { signIn?: boolean } = {}) {
  const url = (ctx.settings.url ?? '').trim();
  const database = (ctx.settings.database ?? '').trim();
  if (!url || !database) throw refused(`${s.name} needs the web service URL and the database name.`);
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pacer = sharedPacer(`appfx:${createHash('sha256').update(`${url}|${ctx.settings.username}`).digest('hex')}`, CALLS_PER_SECOND);
  const body = envelope(operation, database, inner, attributes);
  for (let attempt = 1; ; attempt++) {
    await pacer.take(ctx.signal);
    const res = await vendorFetch(s.system, s.name, url, {
      // a connection test's answer is a sign-in's: held to the smaller limit
      method: 'POST', network: ctx.network, signal: ctx.signal, ...(opts.signIn ? {} : { maxBytes: VENDOR_DATA_MAX_BYTES }), body,
      headers: {
        'content-type': 'text/xml; charset=utf-8', accept: 'text/xml', soapaction: `"${APPFX_NS}/${operation}"`,
        authorization: basic(ctx.settings.username ?? '', ctx.settings.password ?? ''),
      },
    });
    const text = await res.text();
    if (res.status === 401 || res.status === 403) throw refused(`${s.name} refused the user name and password (HTTP ${res.status}).`);
    if (res.status === 429 || res.status === 503) {
      const wait = retryAfterMs(res.header?.('retry-after')) ?? BACKOFF_MS * 2 ** (attempt - 1);
      if (wait > MAX_WAIT_MS) throw new QuotaExhausted(`${s.name} asked Tributary to wait ${Math.ceil(wait / 60_000)} minutes (HTTP ${res.status}); the formula goes on then.`, new Date(Date.now() + wait));
      // a connection test answers at once; a run waits
      if (attempt < MAX_ATTEMPTS && !opts.signIn) { await sleep(wait); continue; }
      throw transientProblem(processingError(`${s.name} asked Tributary to slow down (HTTP ${res.status}). Try again later.`));
    }
    const answer = replyOf(operation, text);
    if (answer?.fault) throw new VendorRefusal(s.name, res.status, answer.fault);
    if (res.status >= 500) {
      if (attempt < MAX_ATTEMPTS && !opts.signIn) { await sleep(BACKOFF_MS * 2 ** (attempt - 1)); continue; }
      throw transientProblem(processingError(`${s.name} answered with a server error (HTTP ${res.status}). Try again later.`));
    }
    if (res.status >= 300 && res.status < 400) throw refused(`${s.name} redirected the request elsewhere (HTTP ${res.status}); check the URL.`);
    if (res.status >= 400) throw refused(`${s.name} did not accept the request (HTTP ${res.status}); check the URL.`);
    if (!answer?.reply) throw processingError(`${s.name} did not answer ${operation} as an AppFx web service; check the URL.`);
    return answer.reply;
  }
}

function objectOf(s: System, object: string, role: 'source' | 'destination'): string {
  const known = role === 'source' ? s.source : s.destination;
  if (known.includes(object)) return object;
  throw new ConnectorInputError(`Tributary ${role === 'source' ? 'reads' : 'writes'} ${s.name} ${known.join(' and ')}; ${object} is not one of them yet.`);
}

/** An ID the formula's settings give (a data list, search list or form): Infinity names them by GUID. */
function specId(s: System, settings: Record<string, string> | undefined, key: string, what: string): string {
  const id = (settings?.[key] ?? '').trim();
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) throw new ConnectorInputError(`${s.name} needs the ID (a GUID) of the ${what} in the formula's settings.`);
  return id;
}

/** DATECHANGED as an ISO moment (the site's time written without a zone is read as UTC). */
function changedOf(v: string | undefined): string | null {
  if (!v) return null;
  const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

const clean = (row: Record<string, string>) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== ''));

async function* pull(s: System, ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined, opts: AppFxCallOptions = {}): AsyncIterable<PullBatch> {
  objectOf(s, object, 'source');
  const listId = specId(s, options?.settings ?? ctx.endSettings, 'dataListId', 'data list to read');
  const window = options?.window;
  const at = positionSince(since);
  let from = at.since ?? (window ? window.from.toISOString() : null);
  let afterId = at.next;
  const limit = Math.min(options?.batchSize ?? APPFX_PAGE, APPFX_PAGE);
  // more rows than a page changed at one moment: that page is asked again, larger, until it reaches past them
  let rowsAsked = limit;
  for (;;) {
    const params = from ? fieldValues({ DATECHANGEDSINCE: from }) : '';
    const reply = await soap(s, ctx, 'DataListLoad', textEl('DataListID', listId) + (params ? `<Parameters>${params}</Parameters>` : '') + textEl('MaxRows', String(rowsAsked)), { IncludeMetaData: 'true' }, opts);
    const rows = rowsOf(reply);
    const records: SourceRecord[] = [];
    let ended = rows.length < rowsAsked;
    for (const row of rows) {
      const changed = changedOf(row.DATECHANGED);
      if (!row.ID || !changed) throw processingError(`${s.name}'s data list answered a row without ID or DATECHANGED: the list must return both.`);
      // rows at the page's first moment that were read before
      if (from && (changed < from || (changed === from && afterId !== null && row.ID.toLowerCase() <= afterId.toLowerCase()))) continue;
      if (window && Date.parse(changed) >= window.to.getTime()) { ended = true; break; }
      records.push({ id: row.ID, fields: clean({ ...row, DATECHANGED: changed }) });
      from = changed;
      afterId = row.ID;
    }
    if (!records.length && !ended) {
      if (rowsAsked >= MAX_ROWS) throw processingError(`${s.name}'s data list answered ${rowsAsked} rows changed at the same moment; Tributary cannot read past them.`);
      rowsAsked = Math.min(rowsAsked * 2, MAX_ROWS);
      continue;
    }
    rowsAsked = limit;
    const position: PullPosition = { since: from, next: afterId, latest: null };
    yield { records, watermark: JSON.stringify(position) };
    if (ended) return;
  }
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

/** Records the search list answers for these criteria (held to them as Tributary means them). */
async function searchList(s: System, ctx: ConnectorContext, listId: string, criteria: SearchQuery['criteria'], limit: number, opts: AppFxCallOptions): Promise<SourceRecord[]> {
  const filter = Object.fromEntries(criteria.map((c) => [c.field, c.value.trim()]));
  const reply = await soap(s, ctx, 'SearchListLoad', textEl('SearchListID', listId) + `<Filter>${fieldValues(filter)}</Filter>` + textEl('MaxRecords', String(limit)), { IncludeMetaData: 'true' }, opts);
  return rowsOf(reply).filter((r) => r.ID).map((r) => ({ id: r.ID!, fields: clean(r) })).filter((r) => holdsAll(r.fields, criteria));
}

async function searchMany(s: System, ctx: ConnectorContext, object: string, queries: SearchQuery[], opts: AppFxCallOptions = {}): Promise<SourceRecord[][]> {
  objectOf(s, object, 'destination');
  const listId = specId(s, ctx.endSettings, 'searchListId', 'search list that finds matches');
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const criteria = q.criteria.filter((c) => c.value.trim());
    out.push(criteria.length ? await searchList(s, ctx, listId, criteria, q.limit ?? 10, opts) : []);
  }
  return out;
}

async function upsert(s: System, ctx: ConnectorContext, object: string, items: UpsertItem[], opts: AppFxCallOptions = {}): Promise<UpsertResult[]> {
  objectOf(s, object, 'destination');
  const addForm = specId(s, ctx.endSettings, 'addFormId', 'add form that creates records');
  const editForm = specId(s, ctx.endSettings, 'editFormId', 'edit form that updates records');
  const searchId = ctx.endSettings?.searchListId?.trim();
  const ledger = await writeLedger(ctx, `${s.system}:${object}`, items.map((i) => i.idempotencyKey));
  const values = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([k]) => k !== 'ID' && k !== 'DATECHANGED').map(([k, v]) => [k, text(v)]));
  const save = async (form: string, id: string | undefined, fields: Record<string, unknown>) => {
    const reply = await soap(s, ctx, 'DataFormSave', textEl('FormID', form) + (id ? textEl('ID', id) : '') + `<DataFormItem>${fieldValues(values(fields))}</DataFormItem>`, {}, opts);
    return (child(reply, 'ID')?.text ?? '').trim();
  };
  return eachRecord(s.name, WHAT[object]!, items, async (item) => {
    if (item.id) {
      await save(editForm, item.id, item.fields);
      return writtenResult(item, item.id, false);
    }
    const lookup = text(item.fields.LOOKUPID);
    const { id, replayed } = await ledger.createOnce(item.idempotencyKey,
      // what an earlier try may have created: found by its lookup ID, when the record has one
      async () => (lookup && searchId ? (await searchList(s, ctx, searchId, [{ field: 'LOOKUPID', value: lookup }], 1, opts))[0]?.id ?? null : null),
      async () => {
        const made = await save(addForm, undefined, item.fields);
        if (!made) throw processingError(`${s.name} saved the ${WHAT[object]} without answering its ID.`);
        return made;
      });
    return { ...writtenResult(item, id, true), replayed };
  });
}

const ro = (name: string, label: string, type: FieldInfo['type'] = 'string'): FieldInfo => ({ name, label, type, readOnly: true });
const rw = (name: string, label: string, type: FieldInfo['type'] = 'string', more: Partial<FieldInfo> = {}): FieldInfo => ({ name, label, type, searchable: true, ...more });

/** The fields of the lists and forms Tributary reads and writes, by their Infinity field IDs (a site's own list may answer more). */
export const APPFX_FIELDS: Record<string, FieldInfo[]> = {
  constituents: [
    ro('ID', 'System record ID'), rw('LOOKUPID', 'Lookup ID'), rw('FIRSTNAME', 'First name'), rw('KEYNAME', 'Last name (key name)', 'string', { required: true }),
    rw('EMAILADDRESS', 'E-mail address', 'email'), rw('PHONENUMBER', 'Phone', 'phone'), rw('ADDRESSBLOCK', 'Address'), rw('CITY', 'City'),
    rw('STATE', 'State'), rw('POSTCODE', 'ZIP/Postal code'), ro('DATECHANGED', 'Date changed', 'datetime'),
  ],
  revenue: [
    ro('ID', 'Revenue ID'), rw('LOOKUPID', 'Lookup ID'), rw('CONSTITUENTID', 'Constituent system record ID', 'string', { required: true }),
    rw('AMOUNT', 'Amount', 'number', { required: true }), rw('DATE', 'Date', 'date', { required: true }), rw('DESIGNATIONID', 'Designation'),
    rw('PAYMENTMETHODCODE', 'Payment method'), ro('DATECHANGED', 'Date changed', 'datetime'),
  ],
  memberships: [
    ro('ID', 'Membership ID'), ro('CONSTITUENTID', 'Constituent system record ID'), ro('MEMBERSHIPPROGRAM', 'Program'), ro('MEMBERSHIPLEVEL', 'Level'),
    ro('STATUS', 'Status'), ro('EXPIRATIONDATE', 'Expiration date', 'date'), ro('DATECHANGED', 'Date changed', 'datetime'),
  ],
};

function appFxConnector(s: System): Connector {
  const search = (ctx: ConnectorContext, object: string, queries: SearchQuery[]) => searchMany(s, ctx, object, queries);
  const def = s.system === 'bbcrm' ? bbcrm : altru;
  return {
    system: s.system,
    async test(ctx) {
      const reply = await soap(s, ctx, 'GetAvailableREDatabases', '', {}, { signIn: true });
      const databases = (child(reply, 'Databases')?.children ?? []).map((d) => d.text.trim());
      // the names it does offer are not repeated: they are the remote's words
      if (!databases.some((d) => d.toLowerCase() === ctx.settings.database!.trim().toLowerCase())) {
        throw refused(`${s.name} has no database named ${ctx.settings.database} that this user may use.`);
      }
      return { detail: `Signed in to ${s.name} database ${ctx.settings.database}.` };
    },
    async listObjects() { return def.objects; },
    async describeFields(_ctx, object) {
      if (!(object in APPFX_FIELDS) || (!s.source.includes(object) && !s.destination.includes(object))) objectOf(s, object, 'source');
      return APPFX_FIELDS[object]!;
    },
    pull: (ctx, object, since, options) => pull(s, ctx, object, since, options),
    search: searchOneOf(search),
    searchMany: search,
    upsert: (ctx, object, items) => upsert(s, ctx, object, items),
    references(object) {
      return object === 'revenue' ? [{ field: 'CONSTITUENTID', object: 'constituents', by: 'ID', label: 'constituent' }] : [];
    },
  };
}

export const bbcrmConnector = appFxConnector(SYSTEMS.bbcrm);
export const altruConnector = appFxConnector(SYSTEMS.altru);
