/**
 * Contracts of the export service (/export-service/v1): CSV exports of a bucket or a selection of
 * records (SPEC.md section 4, Export: started, in progress with count and percent, complete,
 * error). The file is written in the background and can be downloaded for 24 hours (SPEC.md
 * section 9); a user's new export of a formula deletes the file of their last one.
 */
import * as v from 'valibot';
import { RecordSelectionSchema, RECORD_VIEW_IDS } from '../records/query.ts';
import { endpoint, service } from './contract.ts';

/** SPEC.md section 9: a finished file can be downloaded for 24 hours */
export const EXPORT_DOWNLOAD_HOURS = 24;
export const EXPORT_DOWNLOAD_MS = EXPORT_DOWNLOAD_HOURS * 3600_000;
/** how often the browser asks how far an export has got */
export const EXPORT_POLL_INTERVAL_MS = 1000;
/** exports of a formula the list answers */
export const EXPORT_LIST_LIMIT = 10;

export const EXPORT_STATUSES = ['started', 'in-progress', 'complete', 'error'] as const;
export type ExportStatusName = (typeof EXPORT_STATUSES)[number];

/** why a complete export's file can no longer be downloaded */
export const EXPORT_GONE = {
  expired: `The file of this export was deleted ${EXPORT_DOWNLOAD_HOURS} hours after it was written. Start a new export.`,
  replaced: 'A newer export of this formula replaced this file. Download the newer one, or start a new export.',
} as const;
export type ExportGoneReason = keyof typeof EXPORT_GONE;
/** what an export stopped by a newer one says */
export const EXPORT_REPLACED_REASON = 'A newer export of this formula replaced this one.';

/**
 * The CSV's first columns, before the record's destination fields (then its source values, when
 * asked for): the record as a person knows it (its title from the summary fields, and its file and
 * line or source id), then its ids and where it is. Its state is 'Record state', never 'State':
 * a destination field is often a US state headed 'State'.
 */
export const EXPORT_COLUMNS = [
  'Record', 'Source', 'Record id', 'Destination record id', 'Bucket', 'Record state', 'Date added', 'Date processed',
  'Match reasons', 'Error reason', 'Error date', 'Score',
] as const;
/** a source value's column: this prefix and the source column's name */
export const EXPORT_RAW_PREFIX = 'Source: ';

/**
 * The CSV's header: the fixed columns, each destination field by its heading (the destination's
 * label, or one made from the field's name), then each source column behind EXPORT_RAW_PREFIX. A
 * field heading that another column already has (two fields labelled alike, or a field labelled
 * 'Record') also names its field, so no two columns are headed alike.
 */
export function exportHeader(fields: readonly string[], headingOf: (field: string) => string, rawFields: readonly string[] = []): string[] {
  const raw = rawFields.map((f) => `${EXPORT_RAW_PREFIX}${f}`);
  const headings = fields.map((f) => headingOf(f).trim() || f);
  const seen = new Map<string, number>();
  for (const h of [...EXPORT_COLUMNS, ...raw, ...headings]) seen.set(h.toLowerCase(), (seen.get(h.toLowerCase()) ?? 0) + 1);
  return [
    ...EXPORT_COLUMNS,
    ...headings.map((h, i) => (seen.get(h.toLowerCase())! > 1 ? `${h} (${fields[i]})` : h)),
    ...raw,
  ];
}

export const StartExportSchema = v.object({
  formulaId: v.pipe(v.string('formulaId must be a formula\'s id.'), v.uuid('formulaId must be a formula\'s id.')),
  selection: RecordSelectionSchema,
  /** also write each record's source values, after its destination fields, each headed 'Source: <column>' (off unless asked for) */
  includeRaw: v.optional(v.boolean('includeRaw must be true or false.'), false),
});
export type StartExport = v.InferInput<typeof StartExportSchema>;
/** a start request as the server receives it, checked */
export type StartExportRequest = v.InferOutput<typeof StartExportSchema>;

export const ExportSchema = v.object({
  id: v.string(),
  formulaId: v.string(),
  /** the bucket view exported, or 'selection' for chosen records */
  view: v.union([v.picklist(RECORD_VIEW_IDS), v.literal('selection')]),
  customBucket: v.nullable(v.string()),
  status: v.picklist(EXPORT_STATUSES),
  /** records to write, known once writing starts */
  total: v.nullable(v.number()),
  written: v.number(),
  /** whole percent written (0 to 100); 100 once complete */
  percent: v.number(),
  /** why it failed, in words for the user */
  error: v.nullable(v.string()),
  fileName: v.nullable(v.string()),
  createdOn: v.string(),
  finishedOn: v.nullable(v.string()),
  /** the end of the download window */
  expiresAt: v.nullable(v.string()),
  /** whether the file can be downloaded now, and if not, why */
  download: v.picklist(['available', 'expired', 'replaced', 'not-ready']),
});
export type ExportView = v.InferOutput<typeof ExportSchema>;

export const ExportListQuerySchema = v.object({
  formulaId: v.pipe(
    v.string('Give formulaId once.'), v.uuid('formulaId must be a formula\'s id.'),
    v.description('the formula whose exports to list'),
  ),
});

const view = { resource: 'formula', action: 'view' } as const;

export const exportService = service({
  name: 'export service',
  basePath: '/export-service/v1',
  endpoints: {
    start: endpoint({
      method: 'post', path: '/exports', access: view, body: StartExportSchema, response: ExportSchema, status: 202,
      summary: 'Starts a CSV export of a bucket view (scope) or of chosen records (ids) of a formula; it is written in the background. '
        + 'The caller\'s earlier export of the same formula is replaced: its file is deleted, or its writing stopped.',
    }),
    list: endpoint({
      method: 'get', path: '/exports', access: view, query: ExportListQuerySchema,
      response: v.object({ exports: v.array(ExportSchema) }),
      summary: `The caller's ${EXPORT_LIST_LIMIT} most recent exports of a formula, newest first.`,
    }),
    get: endpoint({ method: 'get', path: '/exports/:id', access: view, response: ExportSchema, summary: 'One of the caller\'s exports: its status, total, records written and percent.' }),
    download: endpoint({
      method: 'get', path: '/exports/:id/download', access: view, response: null, status: 200, problems: ['export-gone', 'export-not-ready'],
      summary: `The export's CSV file (text/csv, as an attachment), for ${EXPORT_DOWNLOAD_HOURS} hours after it was written. `
        + 'After that, or once a newer export replaced it: 410 export-gone.',
    }),
  },
});
