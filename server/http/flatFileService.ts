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
import { flatFileService } from '../../src/domain/api/flatFile.ts';
import { hasAcceptedExtension } from '../../src/domain/upload.ts';
import type { FileStore } from '../connectors/fileSources/fileStore.ts';
import type { FormulaRunsService } from '../services/formulaRuns.ts';
import type { UploadsService } from '../services/uploads.ts';
import { isUuid, type Auth } from './auth.ts';
import { cleanFileName, receiveFile } from './multipartFile.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

/** The upload path; the app's 1MB JSON body limit does not apply to it (server/http/app.ts). */
export const UPLOAD_PATH = '/flat-file-service/v1/uploads';

export interface FlatFileServices {
  uploads: UploadsService;
  /** a file uploaded to a file-upload formula queues the run that collects its rows */
  formulaRuns: Pick<FormulaRunsService, 'queueFile'>;
  /** where a file is received while it is read */
  files: FileStore;
}

export function flatFileServiceRouter(services: FlatFileServices, auth: Auth) {
  const { uploads: service, formulaRuns, files: store } = services;
  const { app, on } = contractRouter(auth);
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
      if (formulaId) {
        // the file is stored and waits for its formula (uploads.forFormula finds it): a run not queued is logged, the upload stands
        await Promise.resolve().then(() => formulaRuns.queueFile(tenant, { actor: 'system', correlationId: c.var.correlationId, log }, formulaId, summary.id))
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
