/**
 * A local fake of the Infinity platform's AppFxWebService.asmx, serving Blackbaud CRM
 * (/bbappfx/appfxwebservice.asmx) and Altru (/12345ABC/appfxwebservice.asmx) from one server, each
 * with its own records. As the Infinity technical reference documents it: SOAP 1.1 POSTs of
 * text/xml with SOAPAction "Blackbaud.AppFx.WebService.API.1/<Operation>" matching the body's
 * <OperationRequest>, HTTP Basic credentials (401 with an IIS page otherwise), the database named
 * by ClientAppInfo REDatabaseToUse (a fault when it names none or another); GetAvailableREDatabases,
 * DataListLoad (IncludeMetaData: the output fields; MaxRows; parameters as fv values), SearchListLoad
 * (filter fv values compared without regard to case; MaxRecords), DataFormSave (an add form answers
 * the new ID, an edit form takes the record's ID). A refusal is a soap:Fault with its faultstring,
 * sent as HTTP 500. Each data list here takes DATECHANGEDSINCE and answers rows oldest change first.
 * throttle(n, status) answers 429 or 503 with Retry-After: 0 to the next n calls.
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { child, children, find, parseXml, type XmlElement } from '../../../server/connectors/kit/xml.ts';
import { startVendorServer } from './harness.ts';

export const APPFX_USER = { username: 'RIVERSIDE\\tributary', password: 'crm-pass', database: 'BBInfinity' };
/** the site's spec IDs the formulas name: a changed-since data list per object, the constituent search list and forms */
export const APPFX_IDS = {
  constituentList: 'a1b2c3d4-0000-4000-8000-000000000001',
  revenueList: 'a1b2c3d4-0000-4000-8000-000000000002',
  membershipList: 'a1b2c3d4-0000-4000-8000-000000000003',
  constituentSearch: 'a1b2c3d4-0000-4000-8000-000000000010',
  constituentAdd: 'a1b2c3d4-0000-4000-8000-000000000020',
  constituentEdit: 'a1b2c3d4-0000-4000-8000-000000000021',
  revenueSearch: 'a1b2c3d4-0000-4000-8000-000000000011',
  revenueAdd: 'a1b2c3d4-0000-4000-8000-000000000022',
  revenueEdit: 'a1b2c3d4-0000-4000-8000-000000000023',
} as const;
export const APPFX_PATHS = { bbcrm: '/bbappfx/appfxwebservice.asmx', altru: '/12345ABC/appfxwebservice.asmx' } as const;
type Site = keyof typeof APPFX_PATHS;

export type Row = Record<string, string>;
export interface AppFxSeen {
  site: Site; operation: string; soapAction: string; contentType: string; database: string;
  /** the request element's attributes and its text children (DataListID, MaxRows, …) */
  attributes: Record<string, string>; elements: Record<string, string>;
  /** fv values of its Parameters, Filter or DataFormItem */
  values: Record<string, string>;
  raw: string;
}

const OUTPUT: Record<string, string[]> = {
  constituents: ['ID', 'LOOKUPID', 'FIRSTNAME', 'KEYNAME', 'EMAILADDRESS', 'DATECHANGED'],
  revenue: ['ID', 'LOOKUPID', 'CONSTITUENTID', 'AMOUNT', 'DATE', 'DATECHANGED'],
  memberships: ['ID', 'CONSTITUENTID', 'MEMBERSHIPPROGRAM', 'MEMBERSHIPLEVEL', 'STATUS', 'EXPIRATIONDATE', 'DATECHANGED'],
};
const LISTS: Record<string, string> = { [APPFX_IDS.constituentList]: 'constituents', [APPFX_IDS.revenueList]: 'revenue', [APPFX_IDS.membershipList]: 'memberships' };
const SEARCHES: Record<string, string> = { [APPFX_IDS.constituentSearch]: 'constituents', [APPFX_IDS.revenueSearch]: 'revenue' };
const FORMS: Record<string, [string, 'add' | 'edit']> = {
  [APPFX_IDS.constituentAdd]: ['constituents', 'add'], [APPFX_IDS.constituentEdit]: ['constituents', 'edit'],
  [APPFX_IDS.revenueAdd]: ['revenue', 'add'], [APPFX_IDS.revenueEdit]: ['revenue', 'edit'],
};
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

export interface FakeAppFx {
  url: string;
  seen: AppFxSeen[];
  records: Record<Site, Record<string, Map<string, Row>>>;
  /** a record as the site holds it, changed now (or at `changedAt`) */
  add(site: Site, object: string, fields: Row, changedAt?: Date): Row;
  /** changes a record's fields, its DATECHANGED now */
  change(site: Site, object: string, id: string, fields: Row): Row;
  throttle(n: number, status?: 429 | 503): void;
  /** while on, every call answers HTTP 500 with an IIS error page (no fault) */
  outage: boolean;
  /** the statuses of the answers throttle() refused, in order */
  refusedCalls(): number[];
  clear(): void;
  close(): Promise<void>;
}

const xmlEscape = (s: string) => s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
const envelope = (inner: string) => `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soap:Body>${inner}</soap:Body></soap:Envelope>`;
const reply = (operation: string, inner: string) => envelope(`<${operation}Reply xmlns="Blackbaud.AppFx.WebService.API.1">${inner}</${operation}Reply>`);
const fault = (words: string) => envelope(`<soap:Fault><faultcode>soap:Server</faultcode><faultstring>${xmlEscape(words)}</faultstring><detail/></soap:Fault>`);
/** Infinity writes DATECHANGED in the site's time, without a zone (UTC here) */
const infinityTime = (d: Date) => d.toISOString().slice(0, 23);
const moment = (v: string) => Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(v) ? v : `${v}Z`);

function rowsXml(object: string, rows: Row[], metadata: boolean): string {
  const fields = OUTPUT[object]!;
  const r = rows.map((row) => `<r><Values>${fields.map((f) => `<v>${xmlEscape(row[f] ?? '')}</v>`).join('')}</Values></r>`).join('');
  const meta = metadata ? `<MetaData><OutputDefinition><OutputFields>${fields.map((f) => `<OutputField FieldID="${f}" Caption="${f}"/>`).join('')}</OutputFields></OutputDefinition></MetaData>` : '';
  return `<Rows>${r}</Rows>${meta}`;
}

const fvValues = (values: XmlElement | undefined) => Object.fromEntries(children(values, 'fv').map((fv) => [fv.attributes.ID ?? '', (child(fv, 'Value')?.text ?? '').trim()]));

export async function startFakeAppFx(): Promise<FakeAppFx> {
  const seen: AppFxSeen[] = [];
  const empty = () => ({ constituents: new Map<string, Row>(), revenue: new Map<string, Row>(), memberships: new Map<string, Row>() });
  const records: FakeAppFx['records'] = { bbcrm: empty(), altru: empty() };
  let clock = Date.parse('2026-03-02T09:00:00Z');
  const now = (at?: Date) => infinityTime(new Date(at ? at.getTime() : (clock = Math.max(clock + 1000, Date.now()))));
  let throttled = 0;
  let throttleStatus = 429;
  const refused: number[] = [];

  const fake: FakeAppFx = {
    url: '', seen, records,
    add(site, object, fields, changedAt) {
      const row: Row = { ID: randomUUID().toUpperCase(), ...fields, DATECHANGED: now(changedAt) };
      records[site][object]!.set(row.ID!, row);
      return row;
    },
    change(site, object, id, fields) {
      const row = records[site][object]!.get(id)!;
      Object.assign(row, fields, { DATECHANGED: now() });
      return row;
    },
    throttle(n, status = 429) { throttled = n; throttleStatus = status; },
    refusedCalls: () => [...refused],
    outage: false,
    clear() { seen.length = 0; refused.length = 0; for (const s of Object.values(records)) for (const m of Object.values(s)) m.clear(); },
    close: async () => {},
  };

  function answer(site: Site, req: { headers: http.IncomingHttpHeaders; raw: string }): [number, string, string] {
    const authz = req.headers.authorization ?? '';
    const [user, pass] = authz.startsWith('Basic ') ? Buffer.from(authz.slice(6), 'base64').toString('utf8').split(/:(.*)/s) : [];
    if (user !== APPFX_USER.username || pass !== APPFX_USER.password) return [401, '<html><body>401 - Unauthorized: Access is denied due to invalid credentials.</body></html>', 'text/html'];
    const doc = parseXml(req.raw);
    const request = child(doc, 'Body')?.children[0];
    if (doc?.name !== 'Envelope' || !request || !request.name.endsWith('Request')) return [500, fault('Server was unable to process request. ---> Data at the root level is invalid.'), 'text/xml'];
    const operation = request.name.replace(/Request$/, '');
    const soapAction = String(req.headers.soapaction ?? '');
    const info = child(request, 'ClientAppInfo');
    const elements = Object.fromEntries(request.children.filter((c) => !c.children.length).map((c) => [c.name, c.text.trim()]));
    const values = fvValues(find(request, 'Values'));
    const database = info?.attributes.REDatabaseToUse ?? '';
    seen.push({ site, operation, soapAction, contentType: String(req.headers['content-type'] ?? ''), database, attributes: request.attributes, elements, values, raw: req.raw });
    if (soapAction !== `"Blackbaud.AppFx.WebService.API.1/${operation}"`) return [500, fault(`Server did not recognize the value of HTTP Header SOAPAction: ${soapAction}.`), 'text/xml'];
    if (request.attributes.xmlns !== 'Blackbaud.AppFx.WebService.API.1') return [500, fault(`Unknown request element ${request.name}.`), 'text/xml'];
    if (operation === 'GetAvailableREDatabases') return [200, reply(operation, `<Databases><string>${APPFX_USER.database}</string><string>${APPFX_USER.database}_Test</string></Databases>`), 'text/xml; charset=utf-8'];
    if (database !== APPFX_USER.database) return [500, fault(`The database '${database}' is not available on this web server.`), 'text/xml'];
    const store = records[site];
    const metadata = request.attributes.IncludeMetaData === 'true';
    if (operation === 'DataListLoad') {
      const object = LISTS[(elements.DataListID ?? '').toLowerCase()];
      if (!object) return [500, fault(`Data list with ID '${elements.DataListID}' was not found.`), 'text/xml'];
      const since = values.DATECHANGEDSINCE ? moment(values.DATECHANGEDSINCE) : null;
      const max = Number(elements.MaxRows || 500);
      const rows = [...store[object]!.values()]
        .filter((r) => since === null || moment(r.DATECHANGED!) >= since)
        .sort((a, b) => moment(a.DATECHANGED!) - moment(b.DATECHANGED!) || a.ID!.toLowerCase().localeCompare(b.ID!.toLowerCase()))
        .slice(0, max);
      return [200, reply(operation, rowsXml(object, rows, metadata)), 'text/xml; charset=utf-8'];
    }
    if (operation === 'SearchListLoad') {
      const object = SEARCHES[(elements.SearchListID ?? '').toLowerCase()];
      if (!object) return [500, fault(`Search list with ID '${elements.SearchListID}' was not found.`), 'text/xml'];
      const filters = Object.entries(values).filter(([, v]) => v);
      const unknown = filters.find(([k]) => !OUTPUT[object]!.includes(k));
      if (unknown) return [500, fault(`The search list has no filter field '${unknown[0]}'.`), 'text/xml'];
      const rows = [...store[object]!.values()].filter((r) => filters.every(([k, v]) => (r[k] ?? '').toLowerCase() === v.toLowerCase())).slice(0, Number(elements.MaxRecords || 500));
      return [200, reply(operation, `<Output>${rowsXml(object, rows, metadata)}</Output>`), 'text/xml; charset=utf-8'];
    }
    if (operation === 'DataFormSave') {
      const form = FORMS[(elements.FormID ?? '').toLowerCase()];
      if (!form) return [500, fault(`Data form with ID '${elements.FormID}' was not found.`), 'text/xml'];
      const [object, kind] = form;
      if (values.EMAILADDRESS && !EMAIL.test(values.EMAILADDRESS)) return [500, fault(`The e-mail address '${values.EMAILADDRESS}' is not a valid e-mail address.`), 'text/xml'];
      if (kind === 'add') {
        if (object === 'constituents' && !values.KEYNAME) return [500, fault('Last name is required.'), 'text/xml'];
        const row = fake.add(site, object, values);
        return [200, reply(operation, `<ID>${row.ID}</ID>`), 'text/xml; charset=utf-8'];
      }
      const id = elements.ID ?? '';
      if (!store[object]!.has(id)) return [500, fault(`The record '${id}' was not found.`), 'text/xml'];
      fake.change(site, object, id, values);
      return [200, reply(operation, `<ID>${id}</ID>`), 'text/xml; charset=utf-8'];
    }
    return [500, fault(`Unknown operation ${operation}.`), 'text/xml'];
  }

  const server = await startVendorServer((req, res) => {
    const site = (Object.keys(APPFX_PATHS) as Site[]).find((s) => APPFX_PATHS[s].toLowerCase() === req.url.pathname.toLowerCase());
    if (req.method !== 'POST' || !site) { res.writeHead(404, { 'content-type': 'text/html' }); res.end('<html>404 - File or directory not found.</html>'); return; }
    if (fake.outage) { res.writeHead(500, { 'content-type': 'text/html' }); res.end('<html>500 - Internal server error.</html>'); return; }
    if (throttled > 0) {
      throttled--;
      refused.push(throttleStatus);
      res.writeHead(throttleStatus, { 'content-type': 'text/html', 'retry-after': '0' });
      res.end(`<html>${throttleStatus} - Too many requests</html>`);
      return;
    }
    const [status, body, type] = answer(site, req);
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
