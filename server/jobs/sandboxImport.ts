/**
 * The Sandbox CRM import (server/services/sandboxImport.ts): the job that inserts a started
 * import's file, reporting rows read, constituents imported and rows refused after each batch.
 * The job's own row is the import's status, read by the integrations service.
 *
 * A tenant's imports run one at a time (a singleton queue keyed by tenant), on every worker, so
 * the job's check of the tenant's limit of constituents sees every import before it. An import is
 * never retried: its batches are committed as they go, and reading the file again would import
 * them twice; a dead worker's import ends as stopped, and says so.
 */
import * as v from 'valibot';
import { SANDBOX_IMPORT_FIELDS } from '../../src/domain/sandboxImport.ts';
import { MAX_COLUMNS } from '../connectors/flatFile/sample.ts';
import type { SandboxImportService } from '../services/sandboxImport.ts';
import { defineJob, tenantPayload } from './definition.ts';

export const sandboxImport = defineJob({
  name: 'sandbox-import',
  payload: tenantPayload({
    dataSourceId: v.pipe(v.string(), v.uuid()),
    fileKey: v.pipe(v.string(), v.minLength(1), v.maxLength(300)),
    fileName: v.pipe(v.string(), v.maxLength(500)),
    total: v.pipe(v.number(), v.integer(), v.minValue(0)),
    // the user's column choice, one field or none per column; absent: read by header
    columns: v.optional(v.pipe(v.array(v.nullable(v.picklist(SANDBOX_IMPORT_FIELDS))), v.maxLength(MAX_COLUMNS))),
  }),
  queue: { policy: 'singleton', expireInSeconds: 3600, heartbeatSeconds: 30 },
  singletonKey: (payload) => payload.tenantId,
  retry: { limit: 0, delaySeconds: 0, backoff: false },
  worker: { concurrency: 1, pollingIntervalSeconds: 0.5 },
  async handler(payload, ctx) {
    // typed here: the services' own type is built from the job definitions' (server/container.ts)
    const imports: SandboxImportService = ctx.services.sandboxImport;
    const { dataSourceId, fileKey, fileName, total, columns } = payload;
    return imports.run(ctx.tenant, { dataSourceId, fileKey, fileName, total, ...(columns ? { columns } : {}) }, (p) => ctx.progress({
      done: p.read, total, counts: { imported: p.imported, refused: p.refused },
    }), ctx.log);
  },
});
