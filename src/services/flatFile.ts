/**
 * The flat file service (/flat-file-service/v1). Uploads go through postFile (XMLHttpRequest, for
 * progress) with the same bearer token and identity headers as every gateway call; an error
 * answer becomes an ApiError holding the problem.
 */
import type { UploadSummary } from '../domain/upload.ts';
import { gatewayClient, request, type RequestOptions } from './gateway.ts';
import { postFile, type UploadOptions } from './postFile.ts';

export type { UploadOptions, UploadProgress } from './postFile.ts';

const BASE = '/flat-file-service/v1';
const client = gatewayClient(BASE);

export interface FileUploadOptions extends UploadOptions {
  /** a file-upload formula that processes every row of the file (the server keeps the file for it and queues its run) */
  formulaId?: string | undefined;
  /** the formula took the same file before and the user said to take it again */
  again?: boolean | undefined;
}

/** Sends one file as multipart/form-data (part "file"); resolves with what the server kept of it. */
export const uploadFile = (file: File, { formulaId, again, ...opts }: FileUploadOptions = {}): Promise<UploadSummary> =>
  postFile<UploadSummary>(`${BASE}/uploads${formulaId ? `?formulaId=${encodeURIComponent(formulaId)}${again ? '&again=true' : ''}` : ''}`, file, opts);

/** An upload's headers and first 20 rows (the sample mapping uses). */
export const getUpload = (id: string, o?: RequestOptions) =>
  request(() => client.get(`uploads/${encodeURIComponent(id)}`).json<UploadSummary>(), o);
