/**
 * A local fake of Salesforce's documented sign-in and report endpoints, on one HTTP server with a
 * path prefix per vendor (point CONNECTOR_BASE_URL_<SYSTEM> at `${url}/<system>`), for the
 * Connections tests: it accepts exactly the credentials in FAKE_CREDENTIALS, sent as Salesforce's
 * documentation says, answers the connection test's call (GET /services/data/vXX.X/, the version's
 * resources), runs its good report (Analytics API, synchronous run) over gifts the test sets, and
 * can be switched to an outage (HTTP 500) to test how failures read. Every other vendor has a fake
 * of its own in tests/support/vendors/; Swoogo's credentials here are only ever sent to an address
 * where nothing listens.
 */
import type http from 'node:http';
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { startVendorServer } from './vendors/harness.ts';

export const FAKE_CREDENTIALS = {
  salesforce: { clientId: '3MVG9-consumer-key', clientSecret: 'sf-consumer-secret', username: 'integration@riverside.org', password: 'sf-pass', securityToken: 'sftoken' },
  swoogo: { consumerKey: 'swoogo key+1', consumerSecret: 'swoogo/secret' },
} as const;

export const SALESFORCE_REPORTS = {
  good: '00O5g00000AbCdEAAA',
  noDateFilter: '00O5g00000NoDatAAA',
  noAccess: '00O5g00000SecretAA',
  missing: '00O5g00000MissinAA',
};

interface Req { method: string; path: string; query: URLSearchParams; headers: http.IncomingHttpHeaders; body: string }
type Answer = [number, unknown, string?];
type Fake = (r: Req) => Answer | undefined;

const basicOf = (h: http.IncomingHttpHeaders): [string, string] | null => {
  const m = /^Basic (.+)$/.exec(h.authorization ?? '');
  if (!m) return null;
  const text = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = text.indexOf(':');
  return i < 0 ? null : [text.slice(0, i), text.slice(i + 1)];
};
const isBasic = (h: http.IncomingHttpHeaders, user: string | null, pass: string) => {
  const b = basicOf(h);
  return !!b && (user === null || b[0] === user) && b[1] === pass;
};
const bearer = (h: http.IncomingHttpHeaders) => /^Bearer (.+)$/.exec(h.authorization ?? '')?.[1];
const form = (r: Req) => new URLSearchParams(r.body);
const json = (r: Req) => { try { return JSON.parse(r.body) as Record<string, unknown>; } catch { return {}; } };
const isForm = (r: Req) => (r.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');

const C = FAKE_CREDENTIALS;
const unauthorized: Answer = [401, { error: 'invalid_client', error_description: 'Client authentication failed' }];

/** A gift in the fake Salesforce report "Gifts this week", filtered by its close date. */
export interface FakeGift { id: string; name: string; amount: number; closeDate: string }

/** The fake report's data and behaviour, set by the tests. */
export interface FakeSalesforceReport {
  gifts: FakeGift[];
  /** rows a synchronous run answers at most (2,000 at Salesforce); more: the first ones, with allData false */
  rowLimit: number;
  /** answer every run with this status instead (503, 429) */
  failWith: number | null;
  /** each run's standard date filter, as sent */
  runs: { column: string; durationValue: string; startDate: string; endDate: string }[];
}

const salesforceReport: FakeSalesforceReport = { gifts: [], rowLimit: 2000, failWith: null, runs: [] };

function salesforceReportRun(r: Req, reportId: string): Answer {
  if (reportId !== SALESFORCE_REPORTS.good) return [404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]];
  if (r.query.get('includeDetails') !== 'true') return [400, [{ errorCode: 'BAD_REQUEST', message: 'includeDetails' }]];
  if (salesforceReport.failWith) return [salesforceReport.failWith, [{ errorCode: 'SERVER_UNAVAILABLE' }]];
  const filter = (json(r).reportMetadata as { standardDateFilter?: FakeSalesforceReport['runs'][number] } | undefined)?.standardDateFilter;
  if (!filter || filter.column !== 'CLOSE_DATE' || filter.durationValue !== 'CUSTOM' || !/^\d{4}-\d{2}-\d{2}$/.test(filter.startDate) || !/^\d{4}-\d{2}-\d{2}$/.test(filter.endDate)) {
    return [400, [{ errorCode: 'BAD_REQUEST', message: 'invalid standard date filter' }]];
  }
  salesforceReport.runs.push(filter);
  const matching = salesforceReport.gifts
    .filter((g) => g.closeDate >= filter.startDate && g.closeDate <= filter.endDate)
    .sort((a, b) => (a.closeDate < b.closeDate ? -1 : a.closeDate > b.closeDate ? 1 : 0));
  const rows = matching.slice(0, salesforceReport.rowLimit);
  return [200, {
    attributes: { reportId, reportName: 'Gifts this week' },
    allData: rows.length === matching.length,
    factMap: {
      'T!T': {
        aggregates: [{ label: String(rows.length), value: rows.length }],
        rows: rows.map((g) => ({
          dataCells: [
            { label: g.name, value: g.id },
            { label: g.name, value: g.name },
            { label: `$${g.amount.toFixed(2)}`, value: { amount: g.amount, currency: null } },
            { label: g.closeDate, value: g.closeDate },
          ],
        })),
      },
    },
    reportMetadata: {
      id: reportId, name: 'Gifts this week', reportFormat: 'TABULAR',
      detailColumns: ['OPPORTUNITY_ID', 'OPPORTUNITY_NAME', 'AMOUNT', 'CLOSE_DATE'],
      standardDateFilter: filter,
    },
    reportExtendedMetadata: {
      detailColumnInfo: {
        OPPORTUNITY_ID: { label: 'Opportunity ID', dataType: 'id' },
        OPPORTUNITY_NAME: { label: 'Opportunity Name', dataType: 'string' },
        AMOUNT: { label: 'Amount', dataType: 'currency' },
        CLOSE_DATE: { label: 'Close Date', dataType: 'date' },
      },
    },
  }];
}


function salesforceToken(r: Req): Answer | undefined {
  if (r.method !== 'POST' || r.path !== '/services/oauth2/token') return undefined;
  const f = form(r);
  const s = C.salesforce;
  if (!isForm(r) || f.get('client_id') !== s.clientId || f.get('client_secret') !== s.clientSecret) return [400, { error: 'invalid_client_id', error_description: 'client identifier invalid' }];
  const ok = f.get('grant_type') === 'client_credentials'
    || (f.get('grant_type') === 'password' && f.get('username') === s.username && f.get('password') === `${s.password}${s.securityToken}`);
  if (!ok) return [400, { error: 'invalid_grant', error_description: 'authentication failure' }];
  return [200, { access_token: 'sf-access', instance_url: 'https://riverside.my.salesforce.com', token_type: 'Bearer', issued_at: String(Date.now()) }];
}

const FAKES: Partial<Record<SystemId, Fake>> = {
  'salesforce': (r) => {
    const token = salesforceToken(r);
    if (token) return token;
    // the connection test's call: the resources of the API version
    if (r.method === 'GET' && /^\/services\/data\/v\d+\.\d\/$/.test(r.path)) {
      if (bearer(r.headers) !== 'sf-access') return [401, [{ errorCode: 'INVALID_SESSION_ID', message: 'Session expired or invalid' }]];
      return [200, { sobjects: `${r.path}sobjects`, query: `${r.path}query`, analytics: `${r.path}analytics` }];
    }
    const m = /^\/services\/data\/v\d+\.\d\/analytics\/reports\/([A-Za-z0-9]+)\/describe$/.exec(r.path);
    if (r.method === 'GET' && m) {
      if (bearer(r.headers) !== 'sf-access') return [401, [{ errorCode: 'INVALID_SESSION_ID' }]];
      if (m[1] === SALESFORCE_REPORTS.good) return [200, { reportMetadata: { name: 'Gifts this week', standardDateFilter: { column: 'CLOSE_DATE', durationValue: 'THIS_WEEK' } } }];
      if (m[1] === SALESFORCE_REPORTS.noDateFilter) return [200, { reportMetadata: { name: 'All contacts', standardDateFilter: null } }];
      if (m[1] === SALESFORCE_REPORTS.noAccess) return [403, [{ errorCode: 'INSUFFICIENT_PRIVILEGES', message: 'You don\'t have sufficient privileges to perform this operation.' }]];
      return [404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]];
    }
    const run = /^\/services\/data\/v\d+\.\d\/analytics\/reports\/([A-Za-z0-9]+)$/.exec(r.path);
    if (r.method === 'POST' && run) {
      if (bearer(r.headers) !== 'sf-access') return [401, [{ errorCode: 'INVALID_SESSION_ID' }]];
      if (!/application\/json/.test(r.headers['content-type'] ?? '')) return [415, [{ errorCode: 'UNSUPPORTED_MEDIA_TYPE' }]];
      return salesforceReportRun(r, run[1]!);
    }
    return undefined;
  },
};

export const FAKED_SYSTEMS = Object.keys(FAKES) as SystemId[];

export interface VendorFakes {
  url: string;
  /** what each fake saw, by system */
  seen: { system: string; method: string; path: string }[];
  outage: Set<string>;
  /** Salesforce's report: the gifts it holds, its row limit, a failure to answer with, the runs it saw */
  salesforceReport: FakeSalesforceReport;
  close(): Promise<void>;
}

export async function startVendorFakes(): Promise<VendorFakes> {
  const seen: VendorFakes['seen'] = [];
  const outage = new Set<string>();
  const server = await startVendorServer((req, res) => {
    const [, system, ...rest] = req.url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    seen.push({ system: system!, method: req.method, path });
    const fake = FAKES[system as SystemId];
    const send = ([status, body, type]: Answer) => {
      res.writeHead(status, { 'content-type': type ?? 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    if (!fake) return send([404, { error: `no fake for ${system}` }]);
    if (outage.has(system!)) return send([500, '<html>Service Unavailable</html>', 'text/html']);
    const answer = fake({ method: req.method, path, query: req.url.searchParams, headers: req.headers, body: req.raw });
    return send(answer ?? [404, { error: `the fake of ${system} has no ${req.method} ${path}` }]);
  });
  return {
    url: server.url, seen, outage, salesforceReport,
    close: server.close,
  };
}
