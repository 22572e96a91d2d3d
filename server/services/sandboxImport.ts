/**
 * Constituents imported into the Sandbox CRM from a CSV file, so a user can try a formula against
 * a copy of their own CRM. Columns are matched by header name (src/domain/sandboxImport.ts).
 *
 * Starting an import reads the stored file once as a stream to count its rows, so a file over the
 * rows an import takes, or one that would pass the tenant's limit of constituents, is refused
 * before anything is written; then it queues the import job (server/jobs/sandboxImport.ts). The
 * job's pg-boss row is the import's status: the browser reads it again and again (a reload loses
 * nothing), and while the job runs it carries rows read, constituents imported and rows refused.
 * The job inserts the file a batch at a time, each batch committed on its own (one transaction
 * over a large file would hold its locks and its undo for as long as the whole file takes). A
 * tenant's imports run one after another (a singleton queue keyed by tenant), and each checks the
 * limit of constituents again when it starts, so two imports at once cannot pass it together.
 * A bad row is refused with its reason and the rest go in; a file none of whose rows can go in is
 * refused as a whole (nothing of it was written).
 */
import type { SandboxImportResultSchema, SandboxImportViewSchema } from '../../src/domain/api/integrations.ts';
import { DomainError, type ProblemTitle } from '../../src/domain/errors.ts';
import {
  columnChoiceProblem, importFieldOfHeader, MAX_IMPORT_ROWS, suggestColumns, type ColumnChoice, type ImportColumn, MAX_REFUSALS_LISTED, MAX_SANDBOX_CONSTITUENTS, SANDBOX_IMPORT_MESSAGES, type SandboxImportField,
} from '../../src/domain/sandboxImport.ts';
import { readCsvRows, type CsvRow } from '../connectors/flatFile/csvRows.ts';
import { FlatFileError, type ParseOutcome } from '../connectors/flatFile/errors.ts';
import type * as v from 'valibot';
import type { Logger } from 'pino';
import type { FileStore } from '../connectors/fileSources/fileStore.ts';
import type { ConstituentInput } from '../connectors/sandboxCrm/store/repository.ts';
import { sandboxCrmStore } from '../connectors/sandboxCrm/connector.ts';
import type { TenantScope } from '../db/tenancy.ts';
import type { JobRunStatus } from '../../src/domain/formula/jobRunStatus.ts';

const PARSE_PROBLEMS: Record<ParseOutcome, ProblemTitle> = {
  'unsupported-type': 'file-type-not-accepted',
  'size-too-big': 'file-too-large',
  'empty': 'file-empty',
  'wrong-structure': 'file-wrong-structure',
};

export type ImportResult = v.InferOutput<typeof SandboxImportResultSchema>;
export type SandboxImportView = v.InferOutput<typeof SandboxImportViewSchema>;
type ImportProblem = NonNullable<SandboxImportView['problem']>;

/** What the import job is given (beside tenantId and correlationId). */
export interface ImportJobFields {
  dataSourceId: string;
  /** where the file waits in the store; the job removes it when it is done */
  fileKey: string;
  fileName: string;
  /** the file's rows, counted when the import was started */
  total: number;
  /** the user's column choice; absent: the columns are read by header */
  columns?: ColumnChoice;
}
export type ImportJobPayload = ImportJobFields & { tenantId: string; correlationId: string };

/** The import job as pg-boss holds it: its payload, its run status (with progress) and its output. */
export interface ImportJob { id: string; data: unknown; output: unknown; run: JobRunStatus; createdOn: Date }

export interface ImportJobs {
  /** queues the import job; null when it could not be queued */
  queue(payload: ImportJobPayload): Promise<string | null>;
  /** import jobs by id, or by payload fields, newest first */
  find(by: { id: string } | { data: object }): Promise<ImportJob[]>;
}

/** How far an import has got, as the job reports it after each batch. */
export interface ImportProgress { read: number; imported: number; refused: number }

/** What the job stores when it ends: the result, or why it stopped (nothing was written when refused). */
export type ImportOutcome =
  | { outcome: 'imported'; result: ImportResult; read: number }
  | { outcome: 'refused'; problem: ImportProblem; read: number; imported: 0 }
  | { outcome: 'stopped'; problem: ImportProblem; read: number; imported: number; refusedCount: number };

const IMPORT_STATUS_DAYS = 1;

/**
 * Which column gives each field: as the user chose them (one field or none per column of the
 * header row), or else by header; two columns for one field is a file no one can read the same way twice.
 */
function columnsOf(headers: string[], choice?: ColumnChoice): Map<SandboxImportField, number> {
  if (choice) return chosenColumns(headers, choice);
  const columns = new Map<SandboxImportField, number>();
  headers.forEach((h, i) => {
    const field = importFieldOfHeader(h);
    if (!field) return;
    const other = columns.get(field);
    if (other !== undefined) {
      const columnsGiven = [{ column: other + 1, header: headers[other]! }, { column: i + 1, header: h }] as const;
      throw new DomainError('import-columns-conflict', SANDBOX_IMPORT_MESSAGES.columnsConflict(field, ...columnsGiven), { field, columns: columnsGiven });
    }
    columns.set(field, i);
  });
  if (!columns.has('lastName')) {
    throw new DomainError('file-wrong-structure', 'The file has no last name column: name one "Last name" (or "Surname").');
  }
  return columns;
}

function chosenColumns(headers: string[], choice: ColumnChoice): Map<SandboxImportField, number> {
  // a choice made for another file (or another version of it) is not applied by position
  if (choice.length !== headers.length) throw new DomainError('file-wrong-structure', SANDBOX_IMPORT_MESSAGES.choiceWidth(choice.length, headers.length));
  const problem = columnChoiceProblem(choice);
  if (problem) throw new DomainError(problem.startsWith('Two') ? 'import-columns-conflict' : 'file-wrong-structure', problem);
  return new Map(choice.flatMap((field, i) => (field ? [[field, i] as const] : [])));
}

export interface SandboxImportLimits {
  /** rows one import takes */
  maxRows: number;
  /** constituents a tenant's Sandbox CRM holds after an import */
  maxConstituents: number;
}

/** A refusal as the status carries it: the catalogue's title, the detail, and the refused rows a whole-file refusal lists. */
function problemOf(err: DomainError): ImportProblem {
  const { refused, refusedCount } = err.extensions as { refused?: ImportResult['refused']; refusedCount?: number };
  return {
    title: err.title, detail: err.detail ?? err.message, ...(err.code ? { code: err.code } : {}),
    ...(refused ? { refused } : {}), ...(refusedCount !== undefined ? { refusedCount } : {}),
  };
}

const stoppedDetail = (imported: number) => `The import stopped before the end of the file. ${imported
  ? `The ${imported.toLocaleString('en')} constituents imported before it stopped stay in the Sandbox CRM; import the rest from a file of the rows not yet in it.`
  : 'No constituent of it was imported; import the file again.'}`;

/** The status the browser shows, from the job pg-boss holds. */
export function importView(job: ImportJob, fields: ImportJobFields): SandboxImportView {
  const base = {
    id: job.id, dataSourceId: fields.dataSourceId, fileName: fields.fileName, total: fields.total,
    read: 0, imported: 0, refusedCount: 0, percent: 0, result: null, problem: null, createdOn: job.createdOn.toISOString(),
  };
  const run = job.run;
  switch (run.status) {
    case 'scheduled': case 'waiting': case 'retrying':
      return { ...base, status: 'waiting' };
    case 'running': {
      const read = Math.min(run.progress?.done ?? 0, fields.total);
      const percent = fields.total ? Math.min(99, Math.floor((read * 100) / fields.total)) : 0;
      return {
        ...base, status: 'importing', read, percent,
        imported: run.progress?.counts?.imported ?? 0, refusedCount: run.progress?.counts?.refused ?? 0,
      };
    }
    case 'finished': {
      const out = job.output as ImportOutcome | null;
      if (out?.outcome === 'imported') {
        return { ...base, status: 'imported', read: out.read, imported: out.result.imported, refusedCount: out.result.refusedCount, percent: 100, result: out.result };
      }
      if (out?.outcome === 'refused') {
        return { ...base, status: 'refused', read: out.read, refusedCount: out.problem.refusedCount ?? 0, percent: 100, problem: out.problem };
      }
      if (out?.outcome === 'stopped') {
        return {
          ...base, status: 'error', read: out.read, imported: out.imported, refusedCount: out.refusedCount,
          percent: fields.total ? Math.floor((out.read * 100) / fields.total) : 0, problem: out.problem,
        };
      }
      break;
    }
    case 'errored': case 'paused':
      break;
  }
  // the worker died (or the job was cancelled): how far it got is no longer known
  return {
    ...base, status: 'error',
    problem: { title: 'server-error', detail: 'The import stopped before the end of the file. The constituents imported before it stopped stay in the Sandbox CRM: look at the data source before importing the rest.' },
  };
}

export function sandboxImportService(deps: { store: FileStore; limits?: Partial<SandboxImportLimits>; jobs?: ImportJobs }) {
  const limits: SandboxImportLimits = { maxRows: MAX_IMPORT_ROWS, maxConstituents: MAX_SANDBOX_CONSTITUENTS, ...deps.limits };

  const parseProblems = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof FlatFileError) throw new DomainError(PARSE_PROBLEMS[err.outcome], err.message);
      throw err;
    }
  };

  async function sandboxSource(tenant: TenantScope, dataSourceId: string): Promise<void> {
    const source = await tenant.dataSources.get(dataSourceId);
    if (!source) throw new DomainError('not-found', 'No such data source.');
    if (source.system !== 'sandbox-crm') {
      throw new DomainError('bad-request', 'Constituents can be imported only into a Sandbox CRM data source.', {}, 'not-sandbox-crm');
    }
  }

  /** Refuses a file that would take the tenant's Sandbox CRM past its limit of constituents. */
  async function checkRoom(tenant: TenantScope, total: number): Promise<void> {
    const held = (await sandboxCrmStore(tenant).counts()).constituents;
    if (held + total > limits.maxConstituents) {
      throw new DomainError('import-rows-refused', SANDBOX_IMPORT_MESSAGES.crmFull(held, total, limits.maxConstituents),
        { refused: [], refusedCount: total, maxConstituents: limits.maxConstituents }, 'sandbox-crm-full');
    }
  }

  /** The file's rows, counted as the import will read them; a file over the limits is refused (a refusal of its structure comes from here too). */
  async function checkFile(tenant: TenantScope, dataSourceId: string, key: string, choice?: ColumnChoice): Promise<number> {
    await sandboxSource(tenant, dataSourceId);
    let total = 0;
    await parseProblems(() => readCsvRows(deps.store.read(key), { headers: (h) => columnsOf(h, choice), rows: async (batch) => { total += batch.length; } }));
    if (total > limits.maxRows) {
      // the catalogue's 'No row of the file could be imported.' heads it, not the 15MB of a file too large
      throw new DomainError('import-rows-refused', SANDBOX_IMPORT_MESSAGES.tooManyRows(total, limits.maxRows),
        { refused: [], refusedCount: total, maxRows: limits.maxRows }, 'import-too-many-rows');
    }
    await checkRoom(tenant, total);
    return total;
  }

  /** Inserts the file a batch at a time, each batch committed on its own, reporting after each. */
  async function insertFile(tenant: TenantScope, key: string, choice: ColumnChoice | undefined, report: (p: ImportProgress) => Promise<void>): Promise<ImportResult> {
    const refused: ImportResult['refused'] = [];
    let refusedCount = 0;
    const refuse = (row: number, reason: string) => {
      refusedCount++;
      if (refused.length < MAX_REFUSALS_LISTED) refused.push({ row, reason });
    };
    let imported = 0;
    let rows = 0;
    let columns = new Map<SandboxImportField, number>();
    let width = 0;
    const lookupLines = new Map<string, number>();
    const importBatch = async (batch: CsvRow[]) => {
      const inputs: ConstituentInput[] = [];
      const lines: number[] = [];
      const refusals: { row: number; reason: string }[] = [];
      for (const { line, values } of batch) {
        rows++;
        if (values.slice(width).some((v) => v.trim() !== '')) {
          refusals.push({ row: line, reason: 'The row has more values than the header row has columns.' });
          continue;
        }
        const input = Object.fromEntries([...columns].map(([field, i]) => [field, values[i] ?? ''])) as unknown as ConstituentInput;
        const lookupId = input.lookupId?.trim();
        if (lookupId) {
          const first = lookupLines.get(lookupId);
          if (first !== undefined) { refusals.push({ row: line, reason: `The lookup ID is also given in row ${first}.` }); continue; }
          lookupLines.set(lookupId, line);
        }
        inputs.push(input);
        lines.push(line);
      }
      // each batch is all or nothing, and committed before the next is read
      const outcome = await tenant.transaction((scope) => sandboxCrmStore(scope).importConstituents(inputs));
      imported += outcome.imported;
      refusals.push(...outcome.refused.map((r) => ({ row: lines[r.index]!, reason: r.reason })));
      // listed in file order: the first ones are the first of the file
      for (const r of refusals.sort((a, b) => a.row - b.row)) refuse(r.row, r.reason);
      await report({ read: rows, imported, refused: refusedCount });
    };
    try {
      await parseProblems(() => readCsvRows(deps.store.read(key), {
        headers: (headers) => { columns = columnsOf(headers, choice); width = headers.length; },
        rows: importBatch,
      }));
    } catch (err) {
      throw Object.assign(err as Error, { progress: { read: rows, imported, refused: refusedCount } });
    }
    if (imported === 0) {
      throw new DomainError('import-rows-refused', `None of the file's ${rows} rows could be imported.`, { refused, refusedCount });
    }
    return { imported, refused, refusedCount };
  }

  const jobsOf = () => deps.jobs ?? (() => { throw new Error('The import service was made without its job queue.'); })();
  const fieldsOf = (data: unknown) => data as ImportJobPayload;

  return {
    /** Imports the CSV file stored under `key` into the Sandbox CRM behind the data source, all at once (benchmarks). */
    async importFile(tenant: TenantScope, dataSourceId: string, key: string): Promise<ImportResult> {
      await checkFile(tenant, dataSourceId, key);
      return insertFile(tenant, key, undefined, async () => {});
    },

    /**
     * Starts an import of the file stored under `key`: refuses it at once when it is over a limit
     * or cannot be read, else queues its job and answers its status. The file is the job's from here.
     */
    async start(
      tenant: TenantScope, actor: { correlationId: string }, dataSourceId: string, key: string, fileName: string, columns?: ColumnChoice,
    ): Promise<SandboxImportView> {
      const total = await checkFile(tenant, dataSourceId, key, columns);
      const fields: ImportJobFields = { dataSourceId, fileKey: key, fileName, total, ...(columns ? { columns } : {}) };
      const id = await jobsOf().queue({ ...fields, tenantId: tenant.tenantId, correlationId: actor.correlationId });
      if (!id) throw new Error('The import job could not be queued.');
      return importView({ id, data: fields, output: null, run: { status: 'waiting' }, createdOn: new Date() }, fields);
    },

    /**
     * The columns of the header row of the file stored under `key` (the first bytes of the file the
     * user chose), each with the field first suggested for it: what the import dialog lets the user change.
     */
    async columns(tenant: TenantScope, dataSourceId: string, key: string): Promise<ImportColumn[]> {
      await sandboxSource(tenant, dataSourceId);
      let headers: string[] | null = null;
      const stop = new Error('header row read');
      await parseProblems(() => readCsvRows(deps.store.read(key), {
        // the rest of the slice (a row cut short at its end) is never read
        headers: (h) => { headers = h; throw stop; },
        rows: async () => {},
      })).catch((err: unknown) => { if (err !== stop) throw err; });
      if (!headers) throw new DomainError('file-wrong-structure', 'The file has no header row.');
      return suggestColumns(headers);
    },

    /** An import's status; another tenant's import, or another data source's, is not found. */
    async status(tenant: TenantScope, dataSourceId: string, importId: string): Promise<SandboxImportView> {
      const [job] = await jobsOf().find({ id: importId });
      const fields = job && fieldsOf(job.data);
      if (!job || fields!.tenantId !== tenant.tenantId || fields!.dataSourceId !== dataSourceId) {
        throw new DomainError('not-found', 'No such import.');
      }
      return importView(job, fields!);
    },

    /** The data source's latest import of the last day, or null. */
    async latest(tenant: TenantScope, dataSourceId: string, now = new Date()): Promise<SandboxImportView | null> {
      const since = now.getTime() - IMPORT_STATUS_DAYS * 86_400_000;
      const [job] = (await jobsOf().find({ data: { tenantId: tenant.tenantId, dataSourceId } })).filter((j) => j.createdOn.getTime() >= since);
      return job ? importView(job, fieldsOf(job.data)) : null;
    },

    /**
     * The import job's work: checks the room again (another import of the tenant may have gone in
     * since this one was started; imports of a tenant run one at a time), inserts the file, and
     * answers how it ended. The file is removed whatever happens.
     */
    async run(tenant: TenantScope, fields: ImportJobFields, report: (p: ImportProgress) => Promise<void>, log: Logger): Promise<ImportOutcome> {
      try {
        await sandboxSource(tenant, fields.dataSourceId);
        await checkRoom(tenant, fields.total);
        const result = await insertFile(tenant, fields.fileKey, fields.columns, report);
        return { outcome: 'imported', result, read: fields.total };
      } catch (err) {
        const progress = (err as { progress?: ImportProgress }).progress ?? { read: 0, imported: 0, refused: 0 };
        if (err instanceof DomainError && progress.imported === 0) return { outcome: 'refused', problem: problemOf(err), read: progress.read, imported: 0 };
        // a fault of the file found part way (a broken quote) is the file's; anything else is ours
        const problem: ImportProblem = err instanceof DomainError
          ? { title: err.title, detail: `${err.detail ?? err.message} ${stoppedDetail(progress.imported)}` }
          : { title: 'server-error', detail: stoppedDetail(progress.imported) };
        if (!(err instanceof DomainError)) log.error({ err, ...progress }, 'sandbox import stopped');
        return { outcome: 'stopped', read: progress.read, imported: progress.imported, refusedCount: progress.refused, problem };
      } finally {
        await deps.store.remove(fields.fileKey).catch((err: unknown) => log.warn({ err }, 'could not remove an imported file'));
      }
    },
  };
}

export type SandboxImportService = ReturnType<typeof sandboxImportService>;
