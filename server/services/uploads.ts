/**
 * File upload (SPEC.md sections 4, 5 and 8): a received file is scanned, read by its content, and
 * only its headers and first 20 rows are kept. A file uploaded to a file-upload formula is kept
 * whole in the store until that formula has collected its rows (the file upload connector then
 * deletes it). Each refusal is a DomainError whose title names the upload outcome
 * (src/domain/upload.ts maps titles to outcomes).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { DomainError, type ProblemTitle } from '../../src/domain/errors.ts';
import { MAX_UPLOAD_BYTES, type EarlierUpload, type UploadSummary } from '../../src/domain/upload.ts';
import { ScannerUnavailableError, type VirusScanner } from '../connectors/flatFile/clamav.ts';
import { FlatFileError, type ParseOutcome } from '../connectors/flatFile/errors.ts';
import { parseTabular } from '../connectors/flatFile/tabular.ts';
import type { FileStore } from '../connectors/fileSources/fileStore.ts';
import type { UploadRow } from '../db/repositories/uploads.ts';
import type { TenantScope } from '../db/tenancy.ts';

const PARSE_PROBLEMS: Record<ParseOutcome, ProblemTitle> = {
  'unsupported-type': 'file-type-not-accepted',
  'size-too-big': 'file-too-large',
  'empty': 'file-empty',
  'wrong-structure': 'file-wrong-structure',
};

/** sha256 of a stream's bytes, hex */
async function contentHash(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function uploadSummary(row: UploadRow): UploadSummary {
  return {
    id: row.id, fileName: row.fileName, size: row.size, detectedType: row.detectedType, headers: row.headers,
    sampleRows: row.sampleRows, rowCount: row.rowCount, scanStatus: row.scanStatus, createdOn: row.createdOn.toISOString(),
    formulaId: row.formulaId,
  };
}

async function checkFormula(tenant: TenantScope, formulaId: string): Promise<void> {
  const formula = await tenant.formulas.get(formulaId);
  if (!formula) {
    throw new DomainError('bad-request', 'There is no such formula.', { errors: { formulaId: 'Choose one of your file-upload formulas' } }, 'validation-failed');
  }
  // an archived formula never runs: a file for it would wait for ever
  if (formula.archivedOn) throw new DomainError('formula-archived', 'This formula is archived: unarchive it to upload files to it.');
  if (!formula.usesFileUpload) {
    throw new DomainError('bad-request', 'This formula does not take its records from uploaded files.', { errors: { formulaId: 'Choose a file-upload formula' } }, 'validation-failed');
  }
}

export function uploadsService(deps: { store: FileStore; scanner: VirusScanner | null }) {
  const { store, scanner } = deps;
  return {
    /** Refuses a formula id that names no file-upload formula of the tenant, before any file is received. */
    checkFormula,

    /**
     * Keeps what SPEC.md allows of a file received into the store under `key`. With a formula id
     * (checked by checkFormula) the file stays under that key for the formula to collect;
     * otherwise, or when the file is refused, the caller removes it.
     */
    async accept(
      tenant: TenantScope, who: { userId: string },
      file: { key: string; fileName: string; size: number; formulaId?: string | undefined; again?: boolean | undefined }, log: Logger,
    ): Promise<UploadSummary> {
      let scanStatus: UploadSummary['scanStatus'] = 'not-scanned';
      if (scanner) {
        let result;
        try {
          result = await scanner.scan(() => store.read(file.key));
        } catch (err) {
          if (!(err instanceof ScannerUnavailableError)) throw err;
          log.error({ err: err.message }, 'virus scanner unavailable: upload refused');
          throw new DomainError('virus-scanner-unavailable');
        }
        if (result.status === 'infected') {
          log.warn({ signature: result.signature, tenantId: tenant.tenantId, user: who.userId }, 'virus found in an upload');
          throw new DomainError('virus-found', `The virus scanner found ${result.signature}. The file was not kept.`);
        }
        if (result.status === 'too-large') throw new DomainError('file-too-large-to-scan');
        scanStatus = 'clean';
      }

      let parsed;
      try {
        parsed = await parseTabular(store.read(file.key), { fileName: file.fileName, maxBytes: MAX_UPLOAD_BYTES });
      } catch (err) {
        if (!(err instanceof FlatFileError)) throw err;
        throw new DomainError(PARSE_PROBLEMS[err.outcome], err.message);
      }

      // the formula may have gone while the file was received
      if (file.formulaId) await checkFormula(tenant, file.formulaId);
      // the same file to the same formula again would add every row of it again: asked first
      const hash = await contentHash(store.read(file.key));
      const earlier = file.formulaId ? await tenant.uploads.sameFile(file.formulaId, hash) : undefined;
      if (earlier && !file.again) {
        const previous: EarlierUpload = {
          id: earlier.upload.id, fileName: earlier.upload.fileName, uploadedOn: earlier.upload.createdOn.toISOString(), uploadedBy: earlier.uploadedBy,
        };
        throw new DomainError('upload-already-taken',
          `This file was uploaded to this formula on ${previous.uploadedOn.slice(0, 16).replace('T', ' ')} UTC by ${previous.uploadedBy}. Upload it again with again=true to take its rows once more.`,
          { previous });
      }
      const row = await tenant.uploads.insert({
        fileName: file.fileName, size: file.size, detectedType: parsed.kind, headers: parsed.headers, contentHash: hash,
        sampleRows: parsed.sampleRows, rowCount: parsed.rowCount, scanStatus, createdBy: who.userId,
        ...(file.formulaId ? { formulaId: file.formulaId, fileKey: file.key } : {}),
      });
      log.info({ upload: row.id, size: file.size, type: parsed.kind, rows: parsed.rowCount, scanStatus, formulaId: row.formulaId }, 'file uploaded');
      return uploadSummary(row);
    },

    async get(tenant: TenantScope, id: string): Promise<UploadSummary> {
      const row = await tenant.uploads.get(id);
      if (!row) throw new DomainError('not-found', 'No such upload.');
      return uploadSummary(row);
    },
  };
}

export type UploadsService = ReturnType<typeof uploadsService>;
