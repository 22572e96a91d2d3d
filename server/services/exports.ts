/**
 * CSV exports of a bucket or a selection of records (SPEC.md section 4, Export; section 9: a
 * download window of 24 hours). Starting one records it and queues the job that writes it
 * (server/jobs/recordExport.ts); the job streams the records from one snapshot through the CSV
 * writer into the file store, a batch at a time, counting what it has written so the browser can
 * show count and percent. A user's new export of a formula replaces their last: its file is
 * deleted at once (or its writing stopped). A sweeper deletes files past their window.
 *
 * Exports belong to the user who started them: another user's export, like another tenant's,
 * is not found.
 */
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import {
  EXPORT_DOWNLOAD_MS, EXPORT_LIST_LIMIT, EXPORT_GONE, EXPORT_REPLACED_REASON, exportHeader,
  type ExportView, type StartExportRequest,
} from '../../src/domain/api/exportService.ts';
import { csvRow } from '../../src/domain/csv.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { fieldHeading } from '../../src/domain/formula/fieldHeading.ts';
import { formulaDisplayName } from '../../src/domain/formula/formula.ts';
import { recordTitle, sourcePosition } from '../../src/domain/formula/recordLabel.ts';
import type { RecordSelection } from '../../src/domain/records/query.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { dataFileStore, type FileStore } from '../connectors/fileSources/fileStore.ts';
import { abandonedExports, expiredExportFiles, type ExportRecord, type RecordExportRow } from '../db/repositories/recordExports.ts';
import type { FormulaRow } from '../db/repositories/formulas.ts';
import { forTenant, type TenantScope } from '../db/tenancy.ts';
import { destinationEnd, type EngineDeps } from '../engine/plan.ts';
import { recordEvent } from './events.ts';
import { rowContext, type RowContext } from './records.ts';
import { BUCKET_LABELS, RECORD_STATE_LABELS, type Bucket, type RecordState } from '../../src/domain/formula/statuses.ts';

/** Where an export's file is kept in the store. */
export const exportFileKey = (tenantId: string, exportId: string) => `exports/${tenantId}/${exportId}.csv`;

/** The store exports are written to: the one uploads use (DESIGN.md section 6). */
export const exportFileStore = (config: Pick<Config, 'dataDir'>): FileStore => dataFileStore(config.dataDir);

export interface ExportActor {
  userId: string;
  name: string;
  correlationId: string;
  log: Logger;
}

/** what is stored in record_exports.selection */
interface StoredSelection { selection: RecordSelection; includeRaw: boolean }

export interface ExportsDeps {
  store: FileStore;
  /** queues the job that writes the export; null when it could not be queued */
  queue(payload: { tenantId: string; correlationId: string; exportId: string }): Promise<string | null>;
}

/** The status the browser shows: count and percent, and whether the file can be downloaded now. */
export function exportView(row: RecordExportRow, now = new Date()): ExportView {
  const complete = row.status === 'complete';
  const percent = complete ? 100 : row.total ? Math.min(99, Math.floor((row.written * 100) / row.total)) : 0;
  const download: ExportView['download'] = !complete ? 'not-ready'
    : row.fileKey && row.expiresAt && row.expiresAt > now ? 'available'
      : row.error === EXPORT_REPLACED_REASON ? 'replaced' : 'expired';
  return {
    id: row.id,
    formulaId: row.formulaId,
    view: row.bucket as ExportView['view'],
    customBucket: row.customBucket,
    status: row.status,
    total: row.total,
    written: row.written,
    percent,
    // a complete export's note (replaced) is told by `download`, not as an error
    error: complete ? null : row.error,
    fileName: row.fileName,
    createdOn: row.createdOn.toISOString(),
    finishedOn: row.finishedOn?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    download,
  };
}

const notFound = (): never => { throw new DomainError('not-found', 'No such export.'); };

export function exportsService(deps: ExportsDeps) {
  const { store } = deps;

  async function ownExport(tenant: TenantScope, userId: string, id: string): Promise<RecordExportRow> {
    const row = await tenant.recordExports.get(id);
    return row && row.userId === userId ? row : notFound();
  }

  return {
    async start(tenant: TenantScope, actor: ExportActor, body: StartExportRequest): Promise<ExportView> {
      const formula = await tenant.formulas.get(body.formulaId);
      if (!formula) throw new DomainError('not-found', 'No such formula.');
      const { selection } = body;
      const view = selection.kind === 'scope' ? selection.scope.view : 'selection';
      const customBucket = selection.kind === 'scope' ? selection.scope.customBucket ?? null : null;
      const stored: StoredSelection = { selection, includeRaw: body.includeRaw };

      const { row, replacedFiles } = await tenant.transaction(async (tx) => {
        const inserted = await tx.recordExports.insert({
          userId: actor.userId, formulaId: formula.id, bucket: view, customBucket,
          selection: stored as unknown as Record<string, unknown>, status: 'started',
        });
        const files = await tx.recordExports.replaceEarlier(actor.userId, formula.id, inserted.id, EXPORT_REPLACED_REASON);
        const what = selection.kind === 'ids' ? `${selection.ids.length} selected record${selection.ids.length === 1 ? '' : 's'}` : `the ${view} records`;
        await recordEvent(tx, {
          actor: { userId: actor.userId, name: actor.name }, type: 'records.exported', correlationId: actor.correlationId, formulaId: formula.id,
          description: `Exported ${what} of the formula ${formulaDisplayName(formula)} to CSV`,
          details: { exportId: inserted.id, view, customBucket, selection: selection.kind, includeRaw: body.includeRaw },
        });
        return { row: inserted, replacedFiles: files };
      });
      // SPEC.md section 4: a new export deletes the existing file
      for (const key of replacedFiles) await store.remove(key).catch((err: unknown) => actor.log.warn({ err, key }, 'could not delete a replaced export file'));

      const jobId = await deps.queue({ tenantId: tenant.tenantId, correlationId: actor.correlationId, exportId: row.id }).catch((err: unknown) => {
        actor.log.error({ err, exportId: row.id }, 'could not queue an export');
        return null;
      });
      if (!jobId) {
        await tenant.recordExports.fail(row.id, 'The export could not be started. Please try again.');
        return exportView((await tenant.recordExports.get(row.id))!);
      }
      return exportView(row);
    },

    async get(tenant: TenantScope, userId: string, id: string, now = new Date()): Promise<ExportView> {
      return exportView(await ownExport(tenant, userId, id), now);
    },

    async list(tenant: TenantScope, userId: string, formulaId: string, now = new Date()): Promise<{ exports: ExportView[] }> {
      const rows = await tenant.recordExports.forUser(userId, formulaId, EXPORT_LIST_LIMIT);
      return { exports: rows.map((r) => exportView(r, now)) };
    },

    /** The file to send; 410 once past its window or replaced, 409 while it is being written. */
    async download(tenant: TenantScope, userId: string, id: string, now = new Date()): Promise<{ stream: Readable; fileName: string; size: number }> {
      const row = await ownExport(tenant, userId, id);
      const view = exportView(row, now);
      if (view.download === 'not-ready') {
        throw new DomainError('export-not-ready', row.status === 'error' ? `This export failed: ${row.error ?? 'no file was written'}.` : 'This export is still being written.');
      }
      if (view.download !== 'available') {
        // past its window but not yet swept: deleted now, so it is never sent late
        if (row.fileKey) await expireFile(tenant, store, row.id, row.fileKey);
        throw new DomainError('export-gone', EXPORT_GONE[view.download]);
      }
      const size = await store.size(row.fileKey!);
      if (size === null) throw new DomainError('export-gone', EXPORT_GONE.expired);
      return { stream: store.read(row.fileKey!), fileName: row.fileName ?? 'export.csv', size };
    },
  };
}

async function expireFile(tenant: TenantScope, store: FileStore, id: string, fileKey: string): Promise<void> {
  await store.remove(fileKey);
  await tenant.recordExports.expire(id);
}

/** The export was replaced while it was being written: stop, keep nothing. */
class ExportReplaced extends Error {
  override readonly name = 'ExportReplaced';
}

export interface WriteOptions {
  store: FileStore;
  log: Logger;
  signal?: AbortSignal;
  /** records fetched per batch (the cursor's FETCH) */
  batchSize?: number;
  now?: () => Date;
  /** opens the destination to read its fields' labels for the header; without it (or when it cannot be read) headings come from the fields' names */
  engine?: EngineDeps;
}

/** A file name a person recognises: the formula, what was exported, and when. */
export function exportFileName(formulaName: string, view: string, at: Date): string {
  const stamp = at.toISOString().slice(0, 16).replace(/[T:]/g, '-');
  const base = `${formulaName}-${view}-${stamp}`.replace(/[^\w.-]+/g, '-').replace(/-{2,}/g, '-').replace(/^-|-$/g, '');
  return `${base.slice(0, 120) || 'export'}.csv`;
}

const bucketWords = (bucket: string, custom: string | null) => {
  const words = BUCKET_LABELS[bucket as Bucket] ?? bucket;
  return custom ? `${words} / ${custom}` : words;
};

/** One record as a CSV row: the fixed columns (EXPORT_COLUMNS), its destination fields, then its source values. */
export function exportRow(r: ExportRecord, fields: readonly string[], rawFields: readonly string[], ctx: RowContext): unknown[] {
  const t = r.transformed ?? {};
  const raw = r.raw ?? {};
  return [
    recordTitle(ctx.summaryFields, r.transformed ?? r.raw), sourcePosition(r.sourceKey, ctx.facts(r.sourceKey)),
    // the bucket and the state in the words of the screens: a spreadsheet is read by people
    r.id, r.destinationRecordId, bucketWords(r.bucket, r.customBucket), RECORD_STATE_LABELS[r.state as RecordState] ?? r.state,
    r.dateAdded, r.dateProcessed, r.matchReasons, r.errorReason, r.errorDate, r.score,
    ...fields.map((f) => t[f]), ...rawFields.map((f) => raw[f]),
  ];
}

/**
 * Writes an export's file (the job's work). An export no longer started or in progress (replaced,
 * or failed) is left alone. A failure marks it error with a reason and rethrows.
 */
export async function writeExport(tenant: TenantScope, exportId: string, opts: WriteOptions): Promise<'complete' | 'skipped' | 'replaced'> {
  const now = opts.now ?? (() => new Date());
  const repo = tenant.recordExports;
  const row = await repo.get(exportId);
  if (!row || (row.status !== 'started' && row.status !== 'in-progress')) return 'skipped';
  const formula = await tenant.formulas.get(row.formulaId);
  if (!formula) {
    await repo.fail(exportId, 'The formula was deleted.');
    return 'skipped';
  }
  const stored = row.selection as unknown as StoredSelection;
  const key = exportFileKey(tenant.tenantId, exportId);
  const fileName = exportFileName(formulaDisplayName(formula), row.bucket, row.createdOn);
  let written = 0;
  try {
    // read before the records' snapshot is opened, so no transaction waits on the destination
    const labels = await destinationLabels(tenant, formula, opts);
    const reader = await repo.openSelection(row.formulaId, stored.selection, { includeRaw: stored.includeRaw, batchSize: opts.batchSize });
    try {
      if (!(await repo.begin(exportId, reader.total))) throw new ExportReplaced();
      const header = exportHeader(reader.fields, (f) => labels.get(f) ?? fieldHeading(f), reader.rawFields);
      const chunks = async function* () {
        // a byte order mark, so Excel reads the file as UTF-8
        yield Buffer.from(`\uFEFF${csvRow(header)}`);
        for await (const batch of reader.batches()) {
          opts.signal?.throwIfAborted();
          let text = '';
          // the batch's uploads' file names, for 'spring-1.csv, line 2'
          const ctx = await rowContext(tenant, formula, batch.map((r) => r.sourceKey));
          for (const record of batch) text += csvRow(exportRow(record, reader.fields, reader.rawFields, ctx));
          yield Buffer.from(text);
          written += batch.length;
          if (!(await repo.progress(exportId, written))) throw new ExportReplaced();
        }
      };
      await opts.store.put(key, chunks());
    } finally {
      await reader.close();
    }
    const finishedOn = now();
    if (!(await repo.complete(exportId, { written, fileKey: key, fileName, finishedOn, expiresAt: new Date(finishedOn.getTime() + EXPORT_DOWNLOAD_MS) }))) {
      throw new ExportReplaced();
    }
    opts.log.info({ exportId, written }, 'export written');
    return 'complete';
  } catch (err) {
    await opts.store.remove(key).catch(() => undefined);
    if (err instanceof ExportReplaced) {
      opts.log.info({ exportId, written }, 'export replaced while it was written: stopped');
      return 'replaced';
    }
    opts.log.error({ err, exportId, written }, 'export failed');
    await repo.fail(exportId, opts.signal?.aborted
      ? 'The export was interrupted. Please start it again.'
      : 'The records could not be written to the file. Please start the export again.');
    throw err;
  }
}

/**
 * The destination's label of each of its fields. An export is written even when the destination
 * cannot be reached: its headings are then made from the fields' names.
 */
async function destinationLabels(tenant: TenantScope, formula: FormulaRow, opts: WriteOptions): Promise<Map<string, string>> {
  if (!opts.engine) return new Map();
  try {
    const destination = await destinationEnd(tenant, opts.engine, formula, opts.signal);
    const fields = await destination.connector.describeFields(destination.ctx, destination.object);
    return new Map(fields.filter((f) => f.label.trim()).map((f) => [f.name, f.label.trim()]));
  } catch (err) {
    opts.signal?.throwIfAborted();
    opts.log.warn({ err, formulaId: formula.id }, 'the destination\'s field labels could not be read: the export\'s headings are made from field names');
    return new Map();
  }
}

/** past this, an export still being written has lost its worker for good (its job expires after 2 hours) */
export const EXPORT_ABANDONED_MS = 3 * 3600_000;

/**
 * Deletes the export files past their download window (any tenant, up to 1000 a pass), and fails
 * exports whose worker is gone for good, so no browser waits on them. Answers the files deleted.
 */
export async function sweepExpiredExports(db: Db, store: FileStore, now: Date, log: Logger): Promise<number> {
  let swept = 0;
  for (const e of await expiredExportFiles(db, now, 1000)) {
    try {
      await expireFile(forTenant(db, e.tenantId), store, e.id, e.fileKey);
      swept++;
    } catch (err) {
      // tried again on the next pass
      log.warn({ err, exportId: e.id }, 'could not delete an expired export file');
    }
  }
  for (const e of await abandonedExports(db, new Date(now.getTime() - EXPORT_ABANDONED_MS))) {
    await forTenant(db, e.tenantId).recordExports.fail(e.id, 'The export was interrupted. Please start it again.');
    await store.remove(exportFileKey(e.tenantId, e.id)).catch(() => undefined);
  }
  return swept;
}

export type ExportsService = ReturnType<typeof exportsService>;
