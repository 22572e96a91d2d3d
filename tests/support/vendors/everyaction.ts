/**
 * A local fake of EveryAction (NGP VAN API v4) answering the endpoints Tributary calls as VAN
 * documents them (docs.ngpvan.com): HTTP Basic with the application name and "{API key}|{mode}";
 * POST /v4/echoes; changed-entity export jobs (GET /v4/changedEntityExportJobs/fields/{resource},
 * POST /v4/changedEntityExportJobs (dateChangedFrom in the last 90 days, dateChangedTo no later
 * than now; the CSV has the core fields and the requestedFields) → 201 Pending, GET …/{id} →
 * InProcess, then Complete with the CSV files' downloadUrl and dateExpired, served at /files/…
 * without credentials, `fileRows` rows a file);
 * POST /v4/people/find (302 with the VAN ID, 404 when no one matches); POST
 * /v4/people/findOrCreate (201 created, 200 matched: by e-mail, or first and last name with a phone
 * or ZIP code) and POST /v4/people/{vanId}; GET /v4/people/{vanId}?$expand=…; POST
 * /v4/contributions (201 { contributionId }; My Campaign only). Errors are `{ errors: [{ code,
 * text, properties }] }`; a throttled call answers 429 with Retry-After. Point Tributary at it with
 * CONNECTOR_BASE_URL_EVERYACTION.
 */
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const VAN_APP = 'TRIBUTARY.01.abcd';
export const VAN_KEY = 'ea-key-1234';

export interface VanPerson {
  vanId: number; firstName: string; lastName: string; middleName?: string; email?: string; phone?: string;
  addressLine1?: string; city?: string; stateOrProvince?: string; zipOrPostalCode?: string; changedAt: number;
}
export interface VanContribution { contributionId: number; vanId: number; amount: number; dateReceived: string; designationId?: number; paymentType: string; changedAt: number }
export interface VanSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders; mode: string }

export interface FakeEveryAction {
  url: string;
  seen: VanSeen[];
  people: Map<number, VanPerson>;
  contributions: Map<number, VanContribution>;
  addPerson(p: Omit<VanPerson, 'vanId' | 'changedAt'> & { changedAt?: Date }): VanPerson;
  addContribution(c: Omit<VanContribution, 'contributionId' | 'changedAt' | 'paymentType'> & { changedAt?: Date; paymentType?: string }): VanContribution;
  /** the next `n` API calls answer 429 with Retry-After `seconds` */
  throttle(n: number, seconds?: number): void;
  /** rows of one export file */
  fileRows: number;
  /** every export file given so far has expired */
  expireFiles(): void;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];
const vanError = (status: number, code: string, text: string, properties?: string[]): Answer => [status, { errors: [{ code, text, ...(properties ? { properties } : {}) }] }];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

/** [fieldName, fieldType, isCoreField]: core fields are always exported, the others only when requested */
const CONTACT_FIELDS = [
  ['VanID', 'N', true], ['FirstName', 'T', true], ['MiddleName', 'T', true], ['LastName', 'T', true], ['Email', 'T', true], ['Phone', 'T', false],
  ['AddressLine1', 'T', false], ['City', 'T', false], ['StateOrProvince', 'T', false], ['ZipOrPostal', 'T', false], ['DateCreated', 'D', true], ['DateModified', 'D', true],
] as const;
const CONTRIBUTION_FIELDS = [
  ['ContributionID', 'N', true], ['VanID', 'N', true], ['Amount', 'M', true], ['DateReceived', 'D', true], ['DesignationID', 'N', false], ['PaymentType', 'T', false],
  ['DateModified', 'D', true],
] as const;
/** VAN exports changes of the last 90 days */
const KEPT_MS = 90 * 86_400_000;

const cell = (v: unknown) => { const s = v === undefined || v === null ? '' : String(v); return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };

export async function startFakeEveryAction(): Promise<FakeEveryAction> {
  const seen: VanSeen[] = [];
  const people = new Map<number, VanPerson>();
  const contributions = new Map<number, VanContribution>();
  const jobs = new Map<number, { looks: number; resource: string; files: string[]; from: string; to: string; expires: number }>();
  const files = new Map<string, string>();
  let nextVan = 100_001;
  let nextContribution = 5_001;
  let nextJob = 900;
  let clock = Date.parse('2026-01-05T09:00:00Z');
  const stamp = (at?: Date) => (at ? at.getTime() : (clock = Math.max(clock + 1000, Date.now())));
  let throttled = 0;
  let throttleSeconds = 1;

  const fake: FakeEveryAction = {
    url: '', seen, people, contributions, fileRows: 1000,
    addPerson(p) {
      const person: VanPerson = { ...p, vanId: nextVan++, changedAt: stamp(p.changedAt) };
      people.set(person.vanId, person);
      return person;
    },
    addContribution(c) {
      const made: VanContribution = { paymentType: 'Cash', ...c, contributionId: nextContribution++, changedAt: stamp(c.changedAt) };
      contributions.set(made.contributionId, made);
      return made;
    },
    throttle(n, seconds = 1) { throttled = n; throttleSeconds = seconds; },
    expireFiles() { for (const j of jobs.values()) { j.expires = Date.now() - 1000; for (const f of j.files) files.delete(f); } },
    close: async () => {},
  };

  const personJson = (p: VanPerson) => ({
    vanId: p.vanId, firstName: p.firstName, lastName: p.lastName, middleName: p.middleName ?? null,
    emails: p.email ? [{ email: p.email, type: 'P', isPreferred: true }] : [],
    phones: p.phone ? [{ phoneNumber: p.phone, phoneType: 'H', isPreferred: true }] : [],
    addresses: p.addressLine1 || p.zipOrPostalCode ? [{ addressLine1: p.addressLine1 ?? null, city: p.city ?? null, stateOrProvince: p.stateOrProvince ?? null, zipOrPostalCode: p.zipOrPostalCode ?? null, countryCode: 'US' }] : [],
  });
  const iso = (ms: number) => new Date(ms).toISOString();
  const rowOf = (resource: string, x: VanPerson | VanContribution): unknown[] => {
    if (resource === 'Contacts') {
      const p = x as VanPerson;
      return [p.vanId, p.firstName, p.middleName, p.lastName, p.email, p.phone, p.addressLine1, p.city, p.stateOrProvince, p.zipOrPostalCode, iso(p.changedAt), iso(p.changedAt)];
    }
    const c = x as VanContribution;
    return [c.contributionId, c.vanId, c.amount.toFixed(2), c.dateReceived, c.designationId, c.paymentType, iso(c.changedAt)];
  };

  /** What findOrCreate and find read of a body: VAN's matching by e-mail, or names with a phone or ZIP. */
  const wanted = (b: Record<string, unknown>) => {
    const first = (b.emails as { email?: string }[] | undefined)?.[0]?.email;
    const phone = (b.phones as { phoneNumber?: string }[] | undefined)?.[0]?.phoneNumber;
    const address = (b.addresses as Record<string, string>[] | undefined)?.[0];
    return { firstName: b.firstName as string | undefined, lastName: b.lastName as string | undefined, middleName: b.middleName as string | undefined, email: first, phone, address };
  };
  const low = (v: unknown) => String(v ?? '').trim().toLowerCase();
  const match = (w: ReturnType<typeof wanted>): VanPerson | undefined => [...people.values()].find((p) =>
    (w.email && low(p.email) === low(w.email))
    || (w.firstName && w.lastName && low(p.firstName) === low(w.firstName) && low(p.lastName) === low(w.lastName)
      && ((w.phone && String(p.phone ?? '').replace(/\D/g, '') === w.phone.replace(/\D/g, '')) || (w.address?.zipOrPostalCode && p.zipOrPostalCode === w.address.zipOrPostalCode))));

  function write(person: VanPerson, w: ReturnType<typeof wanted>) {
    if (w.firstName) person.firstName = w.firstName;
    if (w.lastName) person.lastName = w.lastName;
    if (w.middleName) person.middleName = w.middleName;
    if (w.email) person.email = w.email;
    if (w.phone) person.phone = w.phone;
    if (w.address) Object.assign(person, Object.fromEntries(Object.entries(w.address).filter(([, v]) => v)));
    person.changedAt = stamp();
  }

  function route(method: string, path: string, q: URLSearchParams, body: unknown, mode: string): Answer | null {
    const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/v4/echoes') return [201, { message: b.message }];
    let m = /^\/v4\/changedEntityExportJobs\/fields\/(\w+)$/.exec(path);
    if (method === 'GET' && m) {
      const list = m[1] === 'Contacts' ? CONTACT_FIELDS : m[1] === 'Contributions' ? CONTRIBUTION_FIELDS : null;
      if (!list) return vanError(404, 'NOT_FOUND', `The resource type ${m[1]} does not exist.`);
      return [200, list.map(([fieldName, fieldType, isCoreField]) => ({ fieldName, fieldType, maxTextboxCharacters: fieldType === 'T' ? 50 : null, isCoreField, availableValues: null, bulkImportFields: [] }))];
    }
    if (method === 'POST' && path === '/v4/changedEntityExportJobs') {
      const resource = String(b.resourceType ?? '');
      if (resource !== 'Contacts' && resource !== 'Contributions') return vanError(400, 'INVALID_PARAMETER', `'resourceType' must be a changed entity resource.`, ['resourceType']);
      if (resource === 'Contributions' && mode === '0') return vanError(403, 'FORBIDDEN', 'Contributions are not available in this database mode.');
      const from = Date.parse(String(b.dateChangedFrom ?? ''));
      const now = Date.now();
      const to = b.dateChangedTo ? Date.parse(String(b.dateChangedTo)) : now;
      if (Number.isNaN(from) || Number.isNaN(to)) return vanError(400, 'INVALID_PARAMETER', "'dateChangedFrom' is required and must be a date.", ['dateChangedFrom']);
      if (from < now - KEPT_MS) return vanError(400, 'INVALID_PARAMETER', "'dateChangedFrom' must be in the last 90 days.", ['dateChangedFrom']);
      if (to <= from || to > now) return vanError(400, 'INVALID_PARAMETER', "'dateChangedTo' must be more recent than 'dateChangedFrom' and no later than the present.", ['dateChangedTo']);
      const list = resource === 'Contacts' ? CONTACT_FIELDS : CONTRIBUTION_FIELDS;
      const known = new Set<string>(list.map(([f]) => f));
      const requested = (b.requestedFields as string[] | undefined) ?? [];
      const unknown = requested.find((f) => !known.has(f));
      if (unknown) return vanError(400, 'INVALID_PARAMETER', `The field ${unknown} is not available for ${resource}.`, ['requestedFields']);
      // the core fields, and the others requested
      const columns = list.map(([f, , core], i) => [f, i, core] as const).filter(([f, , core]) => core || requested.includes(f));
      const source = resource === 'Contacts' ? [...people.values()] : [...contributions.values()];
      const rows = source.filter((x) => x.changedAt >= from && x.changedAt < to).sort((a, c) => a.changedAt - c.changedAt)
        .map((x) => { const all = rowOf(resource, x); return columns.map(([, i]) => all[i]); });
      const header = columns.map(([f]) => f);
      const id = nextJob++;
      const names: string[] = [];
      for (let i = 0; i === 0 || i < rows.length; i += fake.fileRows) {
        const name = `/files/changes-${id}-${names.length}.csv`;
        files.set(name, '\uFEFF' + [header, ...rows.slice(i, i + fake.fileRows)].map((r) => r.map(cell).join(',')).join('\r\n') + '\r\n');
        names.push(name);
      }
      jobs.set(id, { looks: 0, resource, files: names, from: iso(from), to: iso(to), expires: Date.now() + 86_400_000 });
      return [201, { exportJobId: id, jobStatus: 'Pending', dateChangedFrom: iso(from), dateChangedTo: iso(to), files: [], message: null, exportedRecordCount: null }];
    }
    m = /^\/v4\/changedEntityExportJobs\/(\d+)$/.exec(path);
    if (method === 'GET' && m) {
      const job = jobs.get(Number(m[1]));
      if (!job) return vanError(404, 'NOT_FOUND', 'The export job does not exist.');
      job.looks++;
      const done = job.looks > 1;
      return [200, {
        exportJobId: Number(m[1]), jobStatus: done ? 'Complete' : 'InProcess', dateChangedFrom: job.from, dateChangedTo: job.to, message: null,
        files: done ? job.files.map((f) => ({ downloadUrl: `https://ngpvan.blob.core.windows.net/exports${f}`, dateExpired: iso(job.expires) })) : [],
      }];
    }
    if (method === 'POST' && path === '/v4/people/find') {
      const found = match(wanted(b));
      return found ? [302, { vanId: found.vanId, status: 'Matched' }, { location: `/v4/people/${found.vanId}` }] : vanError(404, 'NOT_FOUND', 'No match was found.');
    }
    m = /^\/v4\/people\/(findOrCreate|\d+)$/.exec(path);
    if (m && method === 'POST') {
      const w = wanted(b);
      if (w.email && !EMAIL.test(w.email)) return vanError(400, 'INVALID_PARAMETER', `'${w.email}' is not a valid email address.`, ['emails[0].email']);
      if (m[1] !== 'findOrCreate') {
        const person = people.get(Number(m[1]));
        if (!person) return vanError(404, 'NOT_FOUND', 'The person does not exist.');
        write(person, w);
        return [200, { vanId: person.vanId, status: 'Processed' }];
      }
      const found = match(w);
      if (found) { write(found, w); return [200, { vanId: found.vanId, status: 'Processed' }]; }
      if (!w.lastName && !w.email) return vanError(400, 'INVALID_PARAMETER', 'A last name or an e-mail address is required to create a person.', ['lastName']);
      if (mode === '0') return [201, { vanId: null, status: 'UnmatchedStored' }];
      const made = fake.addPerson({ firstName: w.firstName ?? '', lastName: w.lastName ?? '', email: w.email, phone: w.phone, ...(w.address ?? {}) });
      return [201, { vanId: made.vanId, status: 'Processed' }];
    }
    if (m && method === 'GET') {
      const person = people.get(Number(m[1]));
      return person ? [200, personJson(person)] : vanError(404, 'NOT_FOUND', 'The person does not exist.');
    }
    if (method === 'POST' && path === '/v4/contributions') {
      if (mode === '0') return vanError(403, 'FORBIDDEN', 'Contributions are not available in this database mode.');
      const vanId = Number((b.contact as { vanId?: unknown } | undefined)?.vanId);
      if (!people.has(vanId)) return vanError(400, 'INVALID_PARAMETER', "'contact' must be an existing person.", ['contact.vanId']);
      const amount = Number(b.amount);
      if (!(amount > 0)) return vanError(400, 'INVALID_PARAMETER', "'amount' must be greater than 0.", ['amount']);
      const made = fake.addContribution({ vanId, amount, dateReceived: String(b.dateReceived ?? '').slice(0, 10), paymentType: String(b.paymentType ?? 'Cash'), designationId: (b.designation as { designationId?: number } | undefined)?.designationId });
      return [201, { contributionId: made.contributionId }];
    }
    void q;
    return null;
  }

  const server = await startVendorServer((req, res) => {
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const [user, ...rest] = auth ? Buffer.from(auth, 'base64').toString('utf8').split(':') : [];
    const [key, mode = ''] = rest.join(':').split('|');
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers, mode });
    // the export's files are where VAN stores them: fetched without credentials
    const file = /^\/exports(\/files\/.+)$/.exec(req.url.pathname)?.[1];
    if (req.method === 'GET' && file) {
      const text = files.get(file);
      if (text === undefined) { res.writeHead(404); res.end(); return; }
      res.writeHead(200, { 'content-type': 'text/csv' });
      res.end(text);
      return;
    }
    let answer: Answer | null;
    if (user !== VAN_APP || key !== VAN_KEY || (mode !== '0' && mode !== '1')) answer = vanError(401, 'UNAUTHORIZED', 'Authorization has been denied for this request.');
    else if (throttled > 0) { throttled--; answer = vanError(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded.'); answer[2] = { 'retry-after': String(throttleSeconds) }; }
    else answer = route(req.method, req.url.pathname, req.url.searchParams, req.body, mode);
    if (!answer) answer = vanError(404, 'NOT_FOUND', 'Resource not found.');
    const [status, body, headers] = answer;
    sendJson(res, status, body, headers ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
