/**
 * EveryAction (NGP VAN API v4) as a source and a destination, on the connector kit: HTTP Basic
 * with the application name and "{API key}|{database mode}" at https://api.securevan.com/v4, the
 * mode the connection names (0 Voter File, 1 My Campaign) on every call. Error bodies are
 * `{ errors: [{ code, text, properties }] }`.
 *
 * Source: people (`Contacts`) and contributions changed in a window, through changed-entity export
 * jobs: `POST /changedEntityExportJobs` asks for the fields the resource does not always export
 * (core ones come anyway) from no further back than VAN keeps changes (90 days) to no later than
 * now, `GET /changedEntityExportJobs/{id}` is polled until the job is complete, and each CSV
 * file it lists is downloaded (from where VAN says, without our credentials) and read with the
 * project's CSV parser. The watermark is the end of the last window read, with the job, file and row while a
 * pull is under way, so a run stopped between batches goes on from the row after the last one
 * stored (a job VAN no longer has is asked for again).
 *
 * Destination: people by `POST /people/findOrCreate` (VAN's own matching by name, e-mail, phone
 * and address, so sending one again finds the person it created), a matched person by
 * `POST /people/{vanId}`; contributions by `POST /contributions` through the kit's write ledger.
 * Matching scenarios are answered with `POST /people/find` (302 with the VAN ID, 404 when no one
 * matches) and only in the combinations VAN matches on; others are refused when saved. VAN keeps
 * contributions in My Campaign only: a Voter File connection reads and writes people.
 */
import { everyaction } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, processingError, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchQuery,
  type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { awaitJob, exportBatches, readJobAt } from '../kit/exportJob.ts';
import { lowered, meets } from '../kit/criteria.ts';
import { positionSince, type PullPosition } from '../kit/paging.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { writeLedger } from '../kit/writeOnce.ts';
import { basic, VENDOR_DATA_MAX_BYTES, vendorFetch } from '../vendorHttp.ts';

const NAME = 'EveryAction';
const BASE = 'https://api.securevan.com';

type VanObject = 'people' | 'contributions';
const RESOURCE: Record<VanObject, string> = { people: 'Contacts', contributions: 'Contributions' };
const ID_COLUMN: Record<VanObject, string> = { people: 'VanID', contributions: 'ContributionID' };
/** rows a batch when the formula does not say */
const ROWS = 500;
/** VAN exports changes of the last 90 days only (dateChangedFrom "must be in the last 90 days") */
const KEPT_MS = 90 * 86_400_000;
/** room for the time between our clock and VAN's receiving the job */
const KEPT_MARGIN_MS = 10 * 60_000;

/** VAN's words: each error's text, with the properties it concerns. */
export function vanMessageOf(body: unknown): string {
  const errors = (body as { errors?: { code?: string; text?: string; properties?: string[] }[] } | null)?.errors;
  if (!Array.isArray(errors)) return '';
  return errors.map((e) => [e.text ?? e.code ?? '', e.properties?.length ? `(${e.properties.join(', ')})` : ''].filter(Boolean).join(' ')).filter(Boolean).join('; ').slice(0, 500);
}

const modeOf = (ctx: ConnectorContext) => (ctx.settings.databaseMode === '0' ? '0' : '1');

interface VanClient { client: VendorClient; lastStatus(): number }

export function everyactionClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VanClient {
  let status = 0;
  const client = vendorClient({
    system: 'everyaction', name: NAME, baseUrl: BASE, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    credential: 'application name and API key',
    auth: async () => ({ authorization: basic(ctx.settings.applicationName ?? '', `${ctx.settings.apiKey ?? ''}|${modeOf(ctx)}`) }),
    messageOf: vanMessageOf,
    observe: (res) => { status = res.status; },
  });
  return { client, lastStatus: () => status };
}

function objectOf(ctx: ConnectorContext, object: string): VanObject {
  if (object !== 'people' && object !== 'contributions') {
    throw new ConnectorInputError(`Tributary reads and writes EveryAction people and contributions; ${object} is not one of them yet.`);
  }
  if (object === 'contributions' && modeOf(ctx) === '0') {
    throw new ConnectorInputError('EveryAction keeps contributions in My Campaign (database mode 1); this connection uses the Voter File (mode 0).');
  }
  return object;
}

interface ExportField { fieldName?: string; fieldType?: string; maxTextboxCharacters?: number | null; isCoreField?: boolean }
interface ExportJob { exportJobId?: number; jobStatus?: string; message?: string | null; files?: { downloadUrl?: string; dateExpired?: string }[]; dateChangedTo?: string }

const FIELD_TYPES: Record<string, FieldInfo['type']> = { N: 'number', M: 'number', D: 'date', B: 'boolean' };

/** What findOrCreate takes, by the name the export's columns give it. */
const PERSON_WRITE: FieldInfo[] = [
  { name: 'VanID', label: 'VAN ID', type: 'string', readOnly: true, searchable: true },
  { name: 'FirstName', label: 'First name', type: 'string', searchable: true },
  { name: 'MiddleName', label: 'Middle name', type: 'string' },
  { name: 'LastName', label: 'Last name', type: 'string', searchable: true },
  { name: 'DateOfBirth', label: 'Date of birth', type: 'date' },
  { name: 'Email', label: 'E-mail address', type: 'email', searchable: true },
  { name: 'Phone', label: 'Phone number', type: 'phone', searchable: true },
  { name: 'AddressLine1', label: 'Address line 1', type: 'string' },
  { name: 'AddressLine2', label: 'Address line 2', type: 'string' },
  { name: 'City', label: 'City', type: 'string' },
  { name: 'StateOrProvince', label: 'State or province', type: 'string' },
  { name: 'ZipOrPostal', label: 'ZIP or postal code', type: 'string', searchable: true },
  { name: 'CountryCode', label: 'Country code', type: 'string' },
];
const CONTRIBUTION_WRITE: FieldInfo[] = [
  { name: 'ContributionID', label: 'Contribution ID', type: 'string', readOnly: true },
  { name: 'VanID', label: 'VAN ID of the contributor', type: 'string', required: true },
  { name: 'Amount', label: 'Amount', type: 'number', required: true },
  { name: 'DateReceived', label: 'Date received', type: 'date', required: true },
  { name: 'DesignationID', label: 'Designation ID', type: 'string' },
  { name: 'PaymentType', label: 'Payment type (Cash, Check, Credit Card…)', type: 'string' },
];

async function exportFields(client: VendorClient, object: VanObject): Promise<ExportField[]> {
  return client.call<ExportField[]>({ path: `/v4/changedEntityExportJobs/fields/${RESOURCE[object]}` });
}

async function describe(client: VendorClient, object: VanObject): Promise<FieldInfo[]> {
  const written = object === 'people' ? PERSON_WRITE : CONTRIBUTION_WRITE;
  const out = [...written];
  const known = new Set(out.map((f) => f.name));
  for (const f of await exportFields(client, object)) {
    if (!f.fieldName || known.has(f.fieldName)) continue;
    known.add(f.fieldName);
    // read from VAN's export; not a property findOrCreate or a contribution takes
    out.push({ name: f.fieldName, label: f.fieldName, type: FIELD_TYPES[f.fieldType ?? ''] ?? 'string', readOnly: true });
  }
  return out;
}

async function lookAtJob(client: VendorClient, id: string): Promise<ExportJob | null> {
  try {
    return await client.call<ExportJob>({ path: `/v4/changedEntityExportJobs/${encodeURIComponent(id)}`, own: [404] });
  } catch (err) {
    if (err instanceof VendorRefusal && err.status === 404) return null;
    throw err;
  }
}

const finishedJob = (ctx: ConnectorContext, client: VendorClient, id: string) => awaitJob<ExportJob>({
  name: NAME, signal: ctx.signal, look: () => lookAtJob(client, id),
  state: (job) => { const s = (job.jobStatus ?? '').toLowerCase(); return s === 'complete' ? 'done' : s === 'error' ? 'failed' : 'waiting'; },
  failed: (job) => `${NAME} could not export the changes${job.message ? `: ${job.message}` : '.'}`,
});

async function download(ctx: ConnectorContext, url: string): Promise<string> {
  // the file lives where VAN put it (its storage host): fetched without our credentials
  const res = await vendorFetch('everyaction', NAME, url, { headers: { accept: 'text/csv' }, maxBytes: VENDOR_DATA_MAX_BYTES, signal: ctx.signal });
  const text = await res.text();
  if (res.status !== 200) throw processingError(`${NAME}'s export file could not be downloaded (HTTP ${res.status}).`);
  return text;
}

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  const kind = objectOf(ctx, object);
  const { client } = everyactionClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  // the oldest change VAN still exports: a first pull, or one after a long pause, starts there
  const kept = new Date(Date.now() - KEPT_MS + KEPT_MARGIN_MS).toISOString();
  const asked = at.since ?? (window ? window.from.toISOString() : kept);
  const from = Date.parse(asked) < Date.parse(kept) ? kept : asked;
  let resume = readJobAt(at.next);
  let job: ExportJob | null = resume ? await finishedJob(ctx, client, resume.job) : null;
  // files VAN no longer keeps (each has its expiry) cannot be read again
  if (job?.files?.some((f) => f.dateExpired && Date.parse(f.dateExpired) <= Date.now())) job = null;
  let to = resume?.to ?? '';
  if (!job) {
    // a job VAN no longer has, or whose files expired, is asked for again
    resume = null;
    // VAN takes no dateChangedTo later than the present
    to = new Date(Math.min((window ? window.to : new Date()).getTime(), Date.now())).toISOString();
    if (Date.parse(to) <= Date.parse(from)) {
      throw new ConnectorInputError(`${NAME} exports changes of the last 90 days only; this window ended on ${to.slice(0, 10)}.`);
    }
    // core fields are always exported; the others only when asked for
    const fields = (await exportFields(client, kind)).filter((f) => f.fieldName && f.isCoreField === false).map((f) => f.fieldName!);
    const created = await client.call<ExportJob>({
      method: 'POST', path: '/v4/changedEntityExportJobs',
      json: { dateChangedFrom: from, dateChangedTo: to, resourceType: RESOURCE[kind], requestedFields: fields, excludeChangesFromSelf: false },
    });
    if (!created.exportJobId) throw processingError(`${NAME} did not say which export job it started.`);
    job = await finishedJob(ctx, client, String(created.exportJobId));
    if (!job) throw processingError(`${NAME} lost the export job it had just started. Try again later.`);
  }
  const urls = (job.files ?? []).map((f) => f.downloadUrl).filter((u): u is string => !!u);
  for await (const batch of exportBatches({
    name: NAME, job: String(job.exportJobId), to, files: urls.map((u) => () => download(ctx, u)), idColumn: ID_COLUMN[kind],
    size: Math.max(1, options?.batchSize ?? ROWS), resume,
  })) {
    const position: PullPosition = batch.last ? { since: to, next: null, latest: null } : { since: from, next: JSON.stringify(batch.next), latest: null };
    yield { records: batch.records, watermark: JSON.stringify(position) };
  }
}

/** A person as findOrCreate takes it, from the record's fields named as the export names them. */
function personBody(fields: Record<string, unknown>): Record<string, unknown> {
  const t = (k: string) => { const v = fields[k]; return v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim(); };
  const body: Record<string, unknown> = {};
  for (const [k, prop] of [['FirstName', 'firstName'], ['MiddleName', 'middleName'], ['LastName', 'lastName'], ['DateOfBirth', 'dateOfBirth']] as const) if (t(k)) body[prop] = t(k);
  if (t('Email')) body.emails = [{ email: t('Email') }];
  if (t('Phone')) body.phones = [{ phoneNumber: t('Phone') }];
  const address = Object.fromEntries(([['AddressLine1', 'addressLine1'], ['AddressLine2', 'addressLine2'], ['City', 'city'], ['StateOrProvince', 'stateOrProvince'], ['ZipOrPostal', 'zipOrPostalCode'], ['CountryCode', 'countryCode']] as const)
    .filter(([k]) => t(k)).map(([k, prop]) => [prop, t(k)]));
  if (Object.keys(address).length) body.addresses = [address];
  return body;
}

interface VanPerson {
  vanId?: number; firstName?: string; middleName?: string; lastName?: string; dateOfBirth?: string;
  emails?: { email?: string }[]; phones?: { phoneNumber?: string }[];
  addresses?: { addressLine1?: string; addressLine2?: string; city?: string; stateOrProvince?: string; zipOrPostalCode?: string; countryCode?: string }[];
}

export function personRecord(p: VanPerson): SourceRecord {
  const a = p.addresses?.[0] ?? {};
  const fields = {
    VanID: p.vanId, FirstName: p.firstName, MiddleName: p.middleName, LastName: p.lastName, DateOfBirth: p.dateOfBirth?.slice(0, 10),
    Email: p.emails?.[0]?.email, Phone: p.phones?.[0]?.phoneNumber, AddressLine1: a.addressLine1, AddressLine2: a.addressLine2, City: a.city,
    StateOrProvince: a.stateOrProvince, ZipOrPostal: a.zipOrPostalCode, CountryCode: a.countryCode,
  };
  return { id: String(p.vanId ?? ''), fields: Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => [k, String(v)])) };
}

/** The combinations of fields VAN matches a person on (besides the VAN ID itself). */
const MATCHED_ON = [['Email'], ['FirstName', 'LastName', 'Phone'], ['FirstName', 'LastName', 'ZipOrPostal']];
const answerable = (fields: string[]) => fields.includes('VanID') || MATCHED_ON.some((combo) => combo.every((f) => fields.includes(f)));

const digits = (v: string) => v.replace(/\D/g, '');
const compared = (field: string, v: unknown) => (field === 'Phone' ? digits(lowered(v)) : lowered(v));

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  if (objectOf(ctx, object) !== 'people') throw new ConnectorInputError('EveryAction finds people only; a contribution is written for a person found.');
  const { client } = everyactionClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const fields = q.criteria.map((c) => c.field);
    if (!answerable(fields)) throw new ConnectorInputError('EveryAction finds people by VAN ID, by e-mail, or by first and last name with a phone number or ZIP code.');
    const byId = q.criteria.find((c) => c.field === 'VanID');
    let vanId: string | null = byId ? byId.value.trim() : null;
    if (!byId) {
      const wanted = Object.fromEntries(q.criteria.filter((c) => (c.operator ?? 'equals') === 'equals').map((c) => [c.field, c.value]));
      try {
        await client.call({ method: 'POST', path: '/v4/people/find', json: personBody(wanted), own: [302, 404] });
        vanId = null;
      } catch (err) {
        if (!(err instanceof VendorRefusal) || (err.status !== 302 && err.status !== 404)) throw err;
        vanId = err.status === 302 ? String((err.body as { vanId?: number } | undefined)?.vanId ?? '') || null : null;
      }
    }
    let record: SourceRecord | null = null;
    if (vanId) {
      try {
        record = personRecord(await client.call<VanPerson>({ path: `/v4/people/${encodeURIComponent(vanId)}`, query: { $expand: 'emails,phones,addresses' }, own: [404] }));
      } catch (err) {
        if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
      }
    }
    // VAN matches more loosely than a scenario means: every criterion is held to the person found
    out.push(record && q.criteria.every((c) => meets(compared(c.field, record!.fields[c.field]), compared(c.field, c.value), c.operator)) ? [record] : []);
  }
  return out;
}

async function upsertPeople(ctx: ConnectorContext, items: UpsertItem[]): Promise<UpsertResult[]> {
  const van = everyactionClient(ctx);
  const results: UpsertResult[] = [];
  for (const item of items) {
    const body = personBody(item.fields);
    try {
      // VAN's own upsert: findOrCreate finds again the person an earlier try created
      const answer = await van.client.call<{ vanId?: number; status?: string }>({
        method: 'POST', path: item.id ? `/v4/people/${encodeURIComponent(item.id)}` : '/v4/people/findOrCreate', json: body,
      });
      if (!answer?.vanId) {
        // the Voter File stores a person it cannot match for review, and creates no one
        results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error: `${NAME} did not match the person to anyone and created no one (${answer?.status ?? 'no status'}).` });
        continue;
      }
      results.push({ idempotencyKey: item.idempotencyKey, id: String(answer.vanId), outcome: !item.id && van.lastStatus() === 201 ? 'created' : 'updated', replayed: false });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error: `${NAME} refused the person: ${err.vendorMessage || `HTTP ${err.status}`}` });
    }
  }
  return results;
}

async function upsertContributions(ctx: ConnectorContext, items: UpsertItem[]): Promise<UpsertResult[]> {
  const { client } = everyactionClient(ctx);
  const ledger = await writeLedger(ctx, 'contributions', items.map((i) => i.idempotencyKey));
  const results: UpsertResult[] = [];
  for (const item of items) {
    const fail = (error: string) => results.push({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error });
    const f = (k: string) => String(item.fields[k] ?? '').trim();
    if (item.id) { fail(`${NAME} does not change a contribution once it is recorded (contribution ${item.id}).`); continue; }
    if (!f('VanID')) { fail(`${NAME} records a contribution for a person: this record has no VAN ID.`); continue; }
    const amount = Number(f('Amount'));
    if (!f('Amount') || !Number.isFinite(amount)) { fail(`${NAME} needs the contribution's amount as a number.`); continue; }
    const date = item.fields.DateReceived instanceof Date ? item.fields.DateReceived.toISOString() : f('DateReceived');
    try {
      const { id, replayed } = await ledger.createOnce(item.idempotencyKey, async () => null, async () => {
        const answer = await client.call<{ contributionId?: number }>({
          method: 'POST', path: '/v4/contributions',
          json: {
            contact: { vanId: Number(f('VanID')) || f('VanID') }, amount, dateReceived: date,
            ...(f('DesignationID') ? { designation: { designationId: Number(f('DesignationID')) || f('DesignationID') } } : {}),
            paymentType: f('PaymentType') || 'Cash',
          },
        });
        if (!answer?.contributionId) throw processingError(`${NAME} did not say which contribution it recorded.`);
        return String(answer.contributionId);
      });
      results.push({ idempotencyKey: item.idempotencyKey, id, outcome: 'created', replayed });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      fail(`${NAME} refused the contribution: ${err.vendorMessage || `HTTP ${err.status}`}`);
    }
  }
  return results;
}

export const everyactionConnector: Connector = {
  system: 'everyaction',
  async test(ctx) {
    const message = 'Hello from Tributary';
    const body = await everyactionClient(ctx).client.call<{ message?: string }>({ method: 'POST', path: '/v4/echoes', json: { message } });
    if (body?.message !== message) throw processingError('EveryAction did not echo the test message.');
    return { detail: `EveryAction accepted the API key (${modeOf(ctx) === '0' ? 'Voter File' : 'My Campaign'} database).` };
  },
  async listObjects(ctx) {
    return everyaction.objects.filter((o) => o.name === 'people' || (o.name === 'contributions' && modeOf(ctx) === '1'));
  },
  async describeFields(ctx, object) {
    return describe(everyactionClient(ctx).client, objectOf(ctx, object));
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  async upsert(ctx, object, items) {
    return objectOf(ctx, object) === 'people' ? upsertPeople(ctx, items) : upsertContributions(ctx, items);
  },
  references(object) {
    return object === 'contributions' ? [{ field: 'VanID', object: 'people', by: 'VanID', label: 'person' }] : [];
  },
  async matchingProblem(_ctx, object, scenarios) {
    if (object === 'contributions') return scenarios.length ? 'EveryAction finds people, not contributions: a formula of contributions is written without matching scenarios.' : null;
    if (object !== 'people') return `Tributary writes EveryAction people and contributions; ${object} is not one of them yet.`;
    for (const s of scenarios) {
      if (!answerable(s.fields)) {
        return `EveryAction finds people by VAN ID, by e-mail, or by first and last name with a phone number or ZIP code: the scenario "${s.name}" compares ${s.fields.join(', ') || 'nothing'}.`;
      }
    }
    return null;
  },
};
