/**
 * Constituents imported into the Sandbox CRM from a CSV file, so a user can try a formula against
 * a copy of their own CRM. Columns are matched by header name (src/domain/sandboxImport.ts). The
 * file is read twice as a stream: once to count its rows, so a file over the rows an import takes,
 * or one that would pass the tenant's limit of constituents, is refused before anything is written;
 * then to insert it a batch at a time, each batch committed on its own (one transaction over a
 * large file would hold its locks and its undo for as long as the whole file takes). A bad row is
 * refused with its reason and the rest go in; a file none of whose rows can go in is refused as a
 * whole (nothing of it was written).
 */
import { DomainError, type ProblemTitle } from '../../src/domain/errors.ts';
import {
  importFieldOfHeader, MAX_IMPORT_ROWS, MAX_REFUSALS_LISTED, MAX_SANDBOX_CONSTITUENTS, SANDBOX_IMPORT_MESSAGES, type SandboxImportField,
} from '../../src/domain/sandboxImport.ts';
import { readCsvRows, type CsvRow } from '../connectors/flatFile/csvRows.ts';
import { FlatFileError, type ParseOutcome } from '../connectors/flatFile/errors.ts';
import type { FileStore } from '../db/fileStore.ts';
import type { ConstituentInput } from '../db/repositories/sandboxCrm.ts';
import type { TenantScope } from '../db/tenancy.ts';

const PARSE_PROBLEMS: Record<ParseOutcome, ProblemTitle> = {
  'unsupported-type': 'file-type-not-accepted',
  'size-too-big': 'file-too-large',
  'empty': 'file-empty',
  'wrong-structure': 'file-wrong-structure',
};

export interface ImportResult {
  imported: number;
  /** the first refused rows, by the line of the file each starts on */
  refused: { row: number; reason: string }[];
  refusedCount: number;
}

/** Which column gives each field; two columns for one field is a file no one can read the same way twice. */
function columnsOf(headers: string[]): Map<SandboxImportField, number> {
  const columns = new Map<SandboxImportField, number>();
  headers.forEach((h, i) => {
    const field = importFieldOfHeader(h);
    if (!field) return;
    const other = columns.get(field);
    if (other !== undefined) {
      throw new DomainError('file-wrong-structure', `Columns ${other + 1} and ${i + 1} both give the ${field} of a constituent; keep one of them.`);
    }
    columns.set(field, i);
  });
  if (!columns.has('lastName')) {
    throw new DomainError('file-wrong-structure', 'The file has no last name column: name one "Last name" (or "Surname").');
  }
  return columns;
}

export interface SandboxImportLimits {
  /** rows one import takes */
  maxRows: number;
  /** constituents a tenant's Sandbox CRM holds after an import */
  maxConstituents: number;
}

export function sandboxImportService(deps: { store: FileStore; limits?: Partial<SandboxImportLimits> }) {
  const limits: SandboxImportLimits = { maxRows: MAX_IMPORT_ROWS, maxConstituents: MAX_SANDBOX_CONSTITUENTS, ...deps.limits };

  /** The file's rows, counted as the import will read them (a refusal of its structure comes from here). */
  async function countRows(key: string): Promise<number> {
    let rows = 0;
    await readCsvRows(deps.store.read(key), { headers: columnsOf, rows: async (batch) => { rows += batch.length; } });
    return rows;
  }

  return {
    /** Imports the CSV file stored under `key` into the Sandbox CRM behind the data source. */
    async importFile(tenant: TenantScope, dataSourceId: string, key: string): Promise<ImportResult> {
      const source = await tenant.dataSources.get(dataSourceId);
      if (!source) throw new DomainError('not-found', 'No such data source.');
      if (source.system !== 'sandbox-crm') {
        throw new DomainError('bad-request', 'Constituents can be imported only into a Sandbox CRM data source.', {}, 'not-sandbox-crm');
      }
      const refused: ImportResult['refused'] = [];
      let refusedCount = 0;
      const refuse = (row: number, reason: string) => {
        refusedCount++;
        if (refused.length < MAX_REFUSALS_LISTED) refused.push({ row, reason });
      };
      let imported = 0;
      let rows = 0;
      try {
        const total = await countRows(key);
        if (total > limits.maxRows) {
          // the catalogue's 'No row of the file could be imported.' heads it, not the 15MB of a file too large
          throw new DomainError('import-rows-refused', SANDBOX_IMPORT_MESSAGES.tooManyRows(total, limits.maxRows),
            { refused: [], refusedCount: total, maxRows: limits.maxRows }, 'import-too-many-rows');
        }
        const held = (await tenant.sandboxCrm.counts()).constituents;
        if (held + total > limits.maxConstituents) {
          throw new DomainError('import-rows-refused', SANDBOX_IMPORT_MESSAGES.crmFull(held, total, limits.maxConstituents),
            { refused: [], refusedCount: total, maxConstituents: limits.maxConstituents }, 'sandbox-crm-full');
        }
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
          const outcome = await tenant.transaction((scope) => scope.sandboxCrm.importConstituents(inputs));
          imported += outcome.imported;
          refusals.push(...outcome.refused.map((r) => ({ row: lines[r.index]!, reason: r.reason })));
          // listed in file order: the first ones are the first of the file
          for (const r of refusals.sort((a, b) => a.row - b.row)) refuse(r.row, r.reason);
        };
        await readCsvRows(deps.store.read(key), {
          headers: (headers) => { columns = columnsOf(headers); width = headers.length; },
          rows: importBatch,
        });
        if (imported === 0) {
          throw new DomainError('import-rows-refused', `None of the file's ${rows} rows could be imported.`, { refused, refusedCount });
        }
      } catch (err) {
        if (err instanceof FlatFileError) throw new DomainError(PARSE_PROBLEMS[err.outcome], err.message);
        throw err;
      }
      return { imported, refused, refusedCount };
    },
  };
}
