/**
 * The flat file service (/flat-file-service/v1): file upload (SPEC.md sections 4, 5 and 8).
 *
 *   POST /uploads        multipart/form-data with one part named "file"; streamed with busboy to
 *                        the file store under the 15MB limit, scanned by clamd, parsed by content;
 *                        201 with the headers and the first 20 rows. Each refusal is a problem
 *                        whose title names the outcome (src/domain/upload.ts UPLOAD_PROBLEMS).
 *                        ?formulaId= names a file-upload formula of the tenant that is to collect
 *                        every row of the file (checked before the body is read). The same file
 *                        (by content hash) uploaded to that formula before is refused with 409
 *                        upload-already-taken naming the earlier upload (when, by whom), unless
 *                        ?again=true: its rows would all be records again.
 *   GET  /uploads/:id    an upload's headers and sample rows (the caller's tenant only).
 *
 * Only the headers and the first 20 rows are kept (SPEC.md section 5): the file itself is
 * removed from the store once they are read, unless it was uploaded to a formula. Then it waits
 * in the store under uploads.file_key until the formula's run has collected its rows, and the
 * file upload connector deletes it (server/connectors/fileSources/fileUpload.ts).
 */
import path from 'node:path';
import type { Logger } from 'pino';
import { flatFileService } from '../../src/domain/api/flatFile.ts';
import { hasAcceptedExtension } from '../../src/domain/upload.ts';
import type { Config } from '../config.ts';
import { clamavScanner, type VirusScanner } from '../connectors/flatFile/clamav.ts';
import type { Db } from '../db/database.ts';
import { localFileStore, type FileStore } from '../db/fileStore.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { uploadsService } from '../services/uploads.ts';
import { isUuid, type TokenVerifier } from './auth.ts';
import { cleanFileName, receiveFile } from './multipartFile.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

/** The upload path; the app's 1MB JSON body limit does not apply to it (server/http/app.ts). */
export const UPLOAD_PATH = '/flat-file-service/v1/uploads';

export interface FlatFileServiceOptions {
  config: Config;
  log: Logger;
  /** defaults: a folder under DATA_DIR, and clamd when configured */
  store?: FileStore;
  scanner?: VirusScanner | null;
  /** called once a file uploaded to a file-upload formula is stored: queues the run that collects its rows */
  onFormulaFile?: (tenant: TenantScope, formulaId: string, uploadId: string, correlationId: string) => Promise<void>;
}

export function flatFileServiceRouter(db: Db, verifier: TokenVerifier, opts: FlatFileServiceOptions) {
  const store = opts.store ?? localFileStore(path.join(opts.config.dataDir, 'files'));
  const scanner = opts.scanner !== undefined ? opts.scanner : opts.config.clamav ? clamavScanner(opts.config.clamav) : null;
  if (scanner) {
    opts.log.info({ scanner: scanner.description }, 'Uploaded files are scanned for viruses');
    void scanner.ping().then((ok) => {
      if (!ok) opts.log.warn({ scanner: scanner.description }, 'The virus scanner does not answer: uploads are refused until it does');
    });
  } else {
    opts.log.warn('No virus scanner is configured (set CLAMAV_SOCKET, or CLAMAV_HOST and CLAMAV_PORT): uploaded files are accepted and reported as not scanned');
  }

  const service = uploadsService({ store, scanner });
  const { app, on } = contractRouter(db, verifier);
  const api = flatFileService.endpoints;

  // the router reads the multipart body into the store; the service decides what is kept
  on(api.upload, async (c, { query }) => {
    const caller = c.var.caller;
    const log = c.var.log;
    const tenant = c.var.tenant;
    const formulaId = query.formulaId;
    const key = `${c.var.tenant.tenantId}/${crypto.randomUUID()}.upload`;
    const received = await receiveFile(c, store, key, {
      accepts: hasAcceptedExtension,
      acceptsWhat: 'Only .csv, .xlsx and .xls files are accepted.',
      before: async () => { if (formulaId) await service.checkFormula(tenant, formulaId); },
      log,
    });
    if (received instanceof Response) return received;

    // a file uploaded to a formula stays in the store once it is accepted
    let kept = false;
    try {
      const { fileName } = received;
      const summary = await service.accept(tenant, caller, { key, fileName, size: received.size, formulaId, again: query.again }, log);
      kept = !!formulaId;
      const onFormulaFile = opts.onFormulaFile;
      if (formulaId && onFormulaFile) {
        // the file is stored and waits for its formula (uploads.forFormula finds it): a run not queued is logged, the upload stands
        await Promise.resolve().then(() => onFormulaFile(tenant, formulaId, summary.id, c.var.correlationId))
          .catch((err: unknown) => log.error({ err, formulaId, upload: summary.id }, 'could not queue the run of an uploaded file'));
      }
      return c.json(summary, 201);
    } finally {
      if (!kept) await store.remove(key).catch((err: unknown) => log.warn({ err }, 'could not remove an uploaded file'));
    }
  });

  on(api.get, async (c, { params }) => {
    if (!isUuid(params.id)) return fail('not-found');
    return service.get(c.var.tenant, params.id);
  });

  return app;
}

export { cleanFileName };
