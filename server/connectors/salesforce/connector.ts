/**
 * Salesforce: the connection test and any object read and written through the REST API
 * (records.ts), both on the connector kit's session and client (client.ts); the report checks of
 * SPEC.md sections 5 and 8 (a report id must name a report the user can read, and the report
 * needs a standard date filter), and pulling a report's rows when a formula names one (its source
 * setting reportId), on the same session: a grant Salesforce revoked marks the data source as
 * needing reconnecting whichever of them meets it.
 *
 * A report is run through the Analytics API with its standard date filter set to the watermark's
 * day up to today, or to a run-once window. A synchronous run answers at most 2,000 rows and says
 * when it stopped short (allData false); such a period is split in halves until every part fits.
 */
import { createHash } from 'node:crypto';
import { isSalesforceReportId } from '../../../src/domain/connectionErrors.ts';
import { salesforce } from '../../../src/domain/connectors/salesforce.ts';
import { ConnectorInputError, processingError, refused, type Connector, type ConnectorContext, type PullBatch, type SourceRecord, type Watermark } from '../connector.ts';
import { VendorRefusal } from '../kit/vendorClient.ts';
import { API_ROOT, salesforceApi, SALESFORCE_API_VERSION, type SalesforceApi } from './client.ts';
import * as records from './records.ts';

export { SALESFORCE_API_VERSION };

export type ReportCheck =
  | { ok: true; name: string; dateFilterColumn: string }
  | { ok: false; problem: 'invalid-report-id' | 'report-date-filter' | 'report-missing-access'; detail: string };

interface ReportDescribe {
  reportMetadata?: { name?: string; standardDateFilter?: { column?: string | null } | null };
}

/** A report's 404 and 403 in words; any other refusal as the kit words it. */
async function reportCall<T>(api: SalesforceApi, reportId: string, call: Omit<Parameters<SalesforceApi['call']>[0], 'own'>): Promise<T | { ok: false; problem: 'invalid-report-id' | 'report-missing-access'; detail: string }> {
  try {
    return await api.call<T>({ ...call, own: [403, 404] });
  } catch (err) {
    if (err instanceof VendorRefusal && err.status === 404) return { ok: false, problem: 'invalid-report-id', detail: `Salesforce has no report ${reportId}.` };
    if (err instanceof VendorRefusal && err.status === 403) {
      return { ok: false, problem: 'report-missing-access', detail: `The Salesforce user cannot read report ${reportId}. Share the report's folder with that user.` };
    }
    throw err;
  }
}

const isProblem = (x: unknown): x is { ok: false; problem: Exclude<ReportCheck, { ok: true }>['problem']; detail: string } => !!x && typeof x === 'object' && (x as { ok?: unknown }).ok === false;

async function describeReport(api: SalesforceApi, reportId: string): Promise<ReportCheck> {
  const body = await reportCall<ReportDescribe>(api, reportId, { path: `${API_ROOT}/analytics/reports/${reportId}/describe` });
  if (isProblem(body)) return body;
  const column = body.reportMetadata?.standardDateFilter?.column;
  if (!column) return { ok: false, problem: 'report-date-filter', detail: 'Add a standard date filter to the report in Salesforce, then check it again.' };
  return { ok: true, name: body.reportMetadata?.name ?? reportId, dateFilterColumn: column };
}

export async function checkSalesforceReport(ctx: ConnectorContext, reportId: string): Promise<ReportCheck> {
  if (!isSalesforceReportId(reportId)) {
    return { ok: false, problem: 'invalid-report-id', detail: 'A report ID starts with 00O and has 15 or 18 letters and digits.' };
  }
  return describeReport(salesforceApi(ctx), reportId);
}

// ---------------------------------------------------------------- report rows

/** What a synchronous report run answers (the parts read here). */
interface ReportRun {
  allData?: boolean;
  factMap?: Record<string, { rows?: { dataCells?: { label?: unknown; value?: unknown }[] }[] }>;
  reportMetadata?: { detailColumns?: string[] };
  reportExtendedMetadata?: { detailColumnInfo?: Record<string, { dataType?: string }> };
}

/** Dates are whole days in the filter: YYYY-MM-DD. */
const DAY_MS = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
/** A first pull reads every row up to today: the filter needs a start, and no gift is older than this. */
export const REPORT_FIRST_DAY = '1900-01-01';

/** A cell as a plain value: its raw value where it has one (an amount of money as its number), else its label. */
function cellValue(cell: { label?: unknown; value?: unknown }): unknown {
  const v = cell.value;
  if (v === null || v === undefined) return cell.label ?? null;
  if (typeof v === 'object' && 'amount' in (v as object)) return (v as { amount: unknown }).amount;
  if (typeof v === 'object') return cell.label ?? null;
  return v;
}

function rowsOf(reportId: string, run: ReportRun): SourceRecord[] {
  const columns = run.reportMetadata?.detailColumns ?? [];
  const info = run.reportExtendedMetadata?.detailColumnInfo ?? {};
  const idColumn = columns.findIndex((c) => info[c]?.dataType === 'id');
  const out: SourceRecord[] = [];
  // detail rows sit under "T!T" in a tabular report and under each grouping's key in the others
  for (const [key, fact] of Object.entries(run.factMap ?? {})) {
    for (const [i, row] of (fact.rows ?? []).entries()) {
      const cells = row.dataCells ?? [];
      const fields = Object.fromEntries(columns.map((c, n) => [c, cells[n] ? cellValue(cells[n]) : null]));
      const id = idColumn >= 0 && typeof cells[idColumn]?.value === 'string'
        ? cells[idColumn].value as string
        // no id column: the row's own content names it, so reading it again finds the same record
        : `${reportId}:${createHash('sha256').update(JSON.stringify([key, i, fields])).digest('hex').slice(0, 32)}`;
      out.push({ id, fields });
    }
  }
  return out;
}

async function runReport(api: SalesforceApi, reportId: string, column: string, from: string, to: string): Promise<ReportRun> {
  const run = await reportCall<ReportRun>(api, reportId, {
    method: 'POST', path: `${API_ROOT}/analytics/reports/${reportId}`, query: { includeDetails: 'true' },
    json: { reportMetadata: { standardDateFilter: { column, durationValue: 'CUSTOM', startDate: from, endDate: to } } },
  });
  if (isProblem(run)) throw refused(run.detail);
  return run;
}

/** The rows of [from, to] (whole days), oldest period first, each period small enough to come whole. */
async function* reportRows(api: SalesforceApi, reportId: string, column: string, from: string, to: string): AsyncIterable<SourceRecord[]> {
  const run = await runReport(api, reportId, column, from, to);
  if (run.allData !== false) { yield rowsOf(reportId, run); return; }
  if (from === to) {
    throw processingError(`Report ${reportId} has more than 2,000 rows dated ${from}, more than Salesforce answers in one run; narrow the report's filters.`);
  }
  const mid = isoDay(dayMs(from) + Math.floor((dayMs(to) - dayMs(from)) / DAY_MS / 2) * DAY_MS);
  yield* reportRows(api, reportId, column, from, mid);
  yield* reportRows(api, reportId, column, isoDay(dayMs(mid) + DAY_MS), to);
}

export const salesforceConnector: Connector = {
  system: 'salesforce',
  async test(ctx) {
    // a user name and password (or client credentials) are proved by signing in with them, never by
    // a token saved earlier; a refresh token's grant is kept, so one Salesforce refuses marks the
    // data source as needing reconnecting, as it does for records
    const api = salesforceApi(ctx.settings.authenticationType === 'oauth' ? ctx : { ...ctx, grant: undefined });
    // one call on the instance proves the user may use the API, and reads the daily usage (Sforce-Limit-Info)
    await api.call({ path: `${API_ROOT}/` });
    return { detail: `Signed in to Salesforce at ${new URL(api.instanceUrl()!).host}.` };
  },
  listObjects: (ctx) => records.listObjects(ctx, salesforce.objects),
  describeFields: (ctx, object) => records.describeFields(ctx, object),
  pull(ctx, object, since, options) {
    return options?.settings?.reportId ? reportPull(ctx, since, options) : records.pull(ctx, object, since, options);
  },
  async search(ctx, object, query) {
    return (await records.searchMany(ctx, object, [query]))[0]!;
  },
  searchMany: (ctx, object, queries) => records.searchMany(ctx, object, queries),
  upsert: (ctx, object, items) => records.upsert(ctx, object, items),
  // a send's batch may hold more than BULK_THRESHOLD records, so a large send goes through Bulk API 2.0
  sendBatch: records.SALESFORCE_SEND_BATCH,
  references: (object) => records.SALESFORCE_REFERENCES[object] ?? [],
  deletion: records.deletionOf,
  // every record opens at <instance>/<its Id>, in Lightning or Classic, whichever the user has
  async recordPage(ctx) {
    const instance = await salesforceApi(ctx).instance();
    return (id) => (SALESFORCE_ID.test(id) ? `${instance}/${id}` : null);
  },
};

const SALESFORCE_ID = /^[A-Za-z0-9]{15}(?:[A-Za-z0-9]{3})?$/;

async function* reportPull(ctx: Parameters<Connector['pull']>[0], since: Watermark | null, options: NonNullable<Parameters<Connector['pull']>[3]>): AsyncIterable<PullBatch> {
  const reportId = options.settings!.reportId!;
  if (!isSalesforceReportId(reportId)) throw refused('A report ID starts with 00O and has 15 or 18 letters and digits.');
  if (since !== null && !/^\d{4}-\d{2}-\d{2}$/.test(since)) throw new ConnectorInputError('The watermark is not one this connector wrote.');
  const api = salesforceApi(ctx);
  const check = await describeReport(api, reportId);
  if (!check.ok) throw refused(check.detail);

  const now = Date.now();
  const window = options?.window;
  // the filter's days are the org's; a day either side covers any time zone
  const from = window ? isoDay(window.from.getTime()) : since ?? REPORT_FIRST_DAY;
  const to = window ? isoDay(window.to.getTime()) : isoDay(now + DAY_MS);
  const batchSize = options?.batchSize ?? 500;
  for await (const rows of reportRows(api, reportId, check.dateFilterColumn, from, to)) {
    for (let i = 0; i < rows.length; i += batchSize) yield { records: rows.slice(i, i + batchSize), watermark: since };
  }
  // the next pull starts a day back: rows dated today may still come, and reading a row twice is harmless
  const watermark: Watermark | null = window ? since : isoDay(now - DAY_MS);
  yield { records: [], watermark };
}
