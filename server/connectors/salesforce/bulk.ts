/**
 * Salesforce Bulk API 2.0 ingest jobs (Bulk API 2.0 and Bulk API Developer Guide), for sends of
 * more than BULK_THRESHOLD records of one kind: a job is created
 * (`POST /jobs/ingest` with object, operation, externalIdFieldName, contentType CSV and lineEnding
 * LF), its rows uploaded as one CSV (`PUT /jobs/ingest/{id}/batches`, text/csv), the upload closed
 * (`PATCH` state UploadComplete), the job's state polled until JobComplete, Failed or Aborted,
 * and each record's result read back from `successfulResults` (sf__Id, sf__Created) and
 * `failedResults` (sf__Id, sf__Error), each with the record's own columns.
 *
 * Salesforce does not answer results in the order of the upload, so each record is found again by
 * its reference, a column it was sent with: the External ID of an upsert, the Id of an update.
 * Only those two operations go through a job: both are never doubled by a retry (a second job
 * upserts the same External IDs and updates the same Ids). Creates without an External ID have no
 * such reference and stay on sObject Collections through the write ledger (records.ts).
 *
 * CSV: every cell quoted (RFC 4180: a quote doubled inside), a header of API names, LF line ends.
 * An empty cell leaves a field as it is; `#N/A` clears it (Bulk API's null).
 */
import { parseCsv } from '../../../src/domain/csv.ts';
import { processingError, transientProblem } from '../connector.ts';
import { VendorRefusal } from '../kit/vendorClient.ts';
import { API_ROOT, type SalesforceApi } from './client.ts';

/** More records than this of one kind in one send go through a Bulk API 2.0 job instead of sObject Collections (Salesforce's own advice: Bulk API for more than 2,000 records). */
export const BULK_THRESHOLD = 2000;
/** How long a job is waited for before the send is tried again (a retry makes a new job, which writes nothing twice). */
export const BULK_WAIT_MS = 10 * 60_000;
/** How often a job's state is asked: after half a second at first, then twice as long each time, up to ten seconds (tests may shorten the first wait). */
export const BULK_POLL = { firstMs: 500, maxMs: 10_000 };

type Obj = Record<string, unknown>;

/** A record's result, as sObject Collections words one. */
export interface BulkResult { id?: string | null; success: boolean; created?: boolean; error?: string }

interface JobInfo { id?: string; state?: string; errorMessage?: string; numberRecordsProcessed?: number; numberRecordsFailed?: number }

/** One cell: quoted, quotes doubled; null as Bulk API's null. */
function cell(value: unknown): string {
  const text = value === null ? '#N/A' : value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return `"${text.replaceAll('"', '""')}"`;
}

/** The rows as one CSV: a header of every field any row has, a row per record. */
export function bulkCsv(rows: Obj[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => k !== 'attributes')))];
  const lines = [columns.join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))];
  return `${lines.join('\n')}\n`;
}

/** A results CSV as objects by column. */
function resultRows(text: string): Obj[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.filter((r) => r.length > 1 || r[0] !== '').map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
}

/** The key a row is found again by in bulkWrite's answer. */
export const bulkKey = (v: unknown) => String(v ?? '').trim().toLowerCase();

const sleep = (ms: number, signal: AbortSignal | undefined) => new Promise<void>((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
});

/**
 * Writes the rows through one ingest job; answers each row's result by its reference (the value
 * of `reference`, the External ID field or Id, compared without regard to case).
 */
export async function bulkWrite(
  api: SalesforceApi, object: string, operation: 'update' | 'upsert', reference: string, rows: Obj[],
  opts: { signal?: AbortSignal; pollMs?: number; waitMs?: number } = {},
): Promise<Map<string, BulkResult>> {
  const job = await api.call<JobInfo>({
    method: 'POST', path: `${API_ROOT}/jobs/ingest`,
    json: { object, operation, ...(operation === 'upsert' ? { externalIdFieldName: reference } : {}), contentType: 'CSV', lineEnding: 'LF', columnDelimiter: 'COMMA' },
  });
  if (!job.id) throw processingError('Salesforce did not name the Bulk API job it created.');
  const at = `${API_ROOT}/jobs/ingest/${job.id}`;
  try {
    await api.call({ method: 'PUT', path: `${at}/batches`, body: { contentType: 'text/csv', text: bulkCsv(rows) }, text: 'application/json' }); // 201 with no body
    await api.call<JobInfo>({ method: 'PATCH', path: at, json: { state: 'UploadComplete' } });
  } catch (err) {
    // a job left open would never run: it is aborted, and the send tried again as a whole
    await api.call({ method: 'PATCH', path: at, json: { state: 'Aborted' } }).catch(() => {});
    throw err;
  }

  let info: JobInfo = job;
  const stop = Date.now() + (opts.waitMs ?? BULK_WAIT_MS);
  for (let wait = opts.pollMs ?? BULK_POLL.firstMs; ; wait = Math.min(wait * 2, BULK_POLL.maxMs)) {
    info = await api.call<JobInfo>({ path: at });
    if (info.state === 'JobComplete' || info.state === 'Failed' || info.state === 'Aborted') break;
    if (Date.now() > stop) {
      throw transientProblem(processingError(`Salesforce's Bulk API job ${job.id} was still ${info.state ?? 'running'} after ${Math.round((opts.waitMs ?? BULK_WAIT_MS) / 60_000)} minutes; the send is tried again.`));
    }
    await sleep(wait, opts.signal);
  }

  const key = bulkKey;
  const out = new Map<string, BulkResult>();
  if (info.state !== 'Aborted') {
    const csv = async (which: 'successfulResults' | 'failedResults') => {
      try {
        return resultRows(await api.call<string>({ path: `${at}/${which}/`, text: 'text/csv' }));
      } catch (err) {
        // a job Salesforce failed as a whole may have no results to give
        if (info.state === 'Failed' && err instanceof VendorRefusal) return [];
        throw err;
      }
    };
    for (const r of await csv('successfulResults')) {
      out.set(key(r[reference]), { id: String(r.sf__Id ?? '') || null, success: true, created: String(r.sf__Created).toLowerCase() === 'true' });
    }
    for (const r of await csv('failedResults')) out.set(key(r[reference]), { id: null, success: false, error: String(r.sf__Error ?? '').trim() });
  }
  // a record in neither list: the job's own words for why
  const why = info.errorMessage?.trim() || `the Bulk API job ended ${info.state ?? 'without a state'} without a result for this record`;
  for (const r of rows) if (!out.has(key(r[reference]))) out.set(key(r[reference]), { id: null, success: false, error: why });
  return out;
}
