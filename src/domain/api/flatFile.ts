/** Contracts of the flat file service (/flat-file-service/v1): file upload (SPEC.md sections 4, 5 and 8). */
import * as v from 'valibot';
import { endpoint, service } from './contract.ts';

export const UploadSummarySchema = v.object({
  id: v.string(), fileName: v.string(), size: v.number(), detectedType: v.picklist(['csv', 'xlsx', 'xls']),
  headers: v.array(v.string()), sampleRows: v.array(v.array(v.string())), rowCount: v.nullable(v.number()),
  scanStatus: v.picklist(['clean', 'not-scanned']), createdOn: v.string(),
  /** the file-upload formula the file was uploaded to; its rows are collected, then the file is deleted */
  formulaId: v.optional(v.nullable(v.string())),
});

export const UploadQuerySchema = v.object({
  formulaId: v.optional(v.pipe(
    v.string('Give formulaId once.'), v.uuid('formulaId must be a formula\'s id.'),
    v.description('a file-upload formula of the tenant: the whole file is kept until that formula has collected its rows'),
  )),
  again: v.optional(v.pipe(
    v.picklist(['true', 'false'], 'again is true or false.'), v.transform((s) => s === 'true'),
    v.description('true: take the file even though the same file was uploaded to the formula before (otherwise 409 upload-already-taken, naming the earlier upload)'),
  )),
});

export const flatFileService = service({
  name: 'flat file service',
  basePath: '/flat-file-service/v1',
  endpoints: {
    upload: endpoint({
      method: 'post', path: '/uploads', access: { resource: 'formula', action: 'create' }, response: UploadSummarySchema, status: 201, query: UploadQuerySchema,
      summary: 'One CSV or Excel file as multipart/form-data in a part named "file" (at most 15MB); only its headers and first 20 rows are kept, '
        + 'unless it is uploaded to a file-upload formula (formulaId), which collects every row and then deletes the file.',
      problems: ['file-type-not-accepted', 'file-too-large', 'file-too-large-to-scan', 'file-name-too-long', 'file-empty', 'file-wrong-structure', 'virus-found', 'virus-scanner-unavailable', 'unsupported-media-type', 'upload-already-taken'],
    }),
    get: endpoint({ method: 'get', path: '/uploads/:id', access: { resource: 'formula', action: 'view' }, response: UploadSummarySchema, summary: 'An upload\'s headers and first 20 rows.' }),
  },
});
