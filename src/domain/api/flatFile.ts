/** Contracts of the flat file service (/flat-file-service/v1): file upload (SPEC.md sections 4, 5 and 8). */
import * as v from 'valibot';
import { endpoint, service } from './contract.ts';

export const UploadSummarySchema = v.object({
  id: v.string(), fileName: v.string(), size: v.number(), detectedType: v.picklist(['csv', 'xlsx', 'xls']),
  headers: v.array(v.string()), sampleRows: v.array(v.array(v.string())), rowCount: v.nullable(v.number()),
  scanStatus: v.picklist(['clean', 'not-scanned']), createdOn: v.string(),
});

export const flatFileService = service({
  name: 'flat file service',
  basePath: '/flat-file-service/v1',
  endpoints: {
    upload: endpoint({
      method: 'post', path: '/uploads', access: { resource: 'formula', action: 'create' }, response: UploadSummarySchema, status: 201,
      summary: 'One CSV or Excel file as multipart/form-data in a part named "file" (at most 15MB); only its headers and first 20 rows are kept.',
      problems: ['file-type-not-accepted', 'file-too-large', 'file-too-large-to-scan', 'file-name-too-long', 'file-empty', 'file-wrong-structure', 'virus-found', 'virus-scanner-unavailable', 'unsupported-media-type'],
    }),
    get: endpoint({ method: 'get', path: '/uploads/:id', access: { resource: 'formula', action: 'view' }, response: UploadSummarySchema, summary: 'An upload\'s headers and first 20 rows.' }),
  },
});
