/**
 * The export service (/export-service/v1): CSV exports of a bucket or a selection of records
 * (SPEC.md section 4, Export), contracts in src/domain/api/exportService.ts.
 *
 *   POST /exports                 starts one: 202 with its status; the job writes it in the background
 *   GET  /exports?formulaId=      the caller's recent exports of a formula
 *   GET  /exports/:id             one export's status, total, written and percent
 *   GET  /exports/:id/download    the CSV as an attachment; 410 export-gone after 24 hours or once replaced
 *
 * Any role with formula view may export. An export is its user's: another user's, or another
 * tenant's, is not found.
 */
import { Readable } from 'node:stream';
import { exportService } from '../../src/domain/api/exportService.ts';
import type { ExportsService } from '../services/exports.ts';
import { isUuid, type Auth } from './auth.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

/** RFC 6266: an ASCII fallback name and the real one, percent-encoded */
export function attachment(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

export function exportServiceRouter(services: { exports: ExportsService }, auth: Auth) {
  const { app, on } = contractRouter(auth);
  const api = exportService.endpoints;
  const service = services.exports;
  // a malformed id is as unknown as another tenant's export
  const exportId = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such export.'));

  on(api.start, async (c, { body }) => {
    const started = await service.start(c.var.tenant, {
      userId: c.var.caller.userId, name: c.var.caller.fullName, correlationId: c.var.correlationId, log: c.var.log,
    }, { formulaId: body.formulaId, selection: body.selection, includeRaw: body.includeRaw });
    return c.json(started, 202);
  });
  on(api.list, async (c, { query }) => service.list(c.var.tenant, c.var.caller.userId, query.formulaId));
  on(api.get, async (c, { params }) => service.get(c.var.tenant, c.var.caller.userId, exportId(params.id)));
  on(api.download, async (c, { params }) => {
    const file = await service.download(c.var.tenant, c.var.caller.userId, exportId(params.id));
    return new Response(Readable.toWeb(file.stream) as ReadableStream, {
      status: 200,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': attachment(file.fileName),
        'content-length': String(file.size),
        'x-content-type-options': 'nosniff',
      },
    });
  });

  return app;
}
