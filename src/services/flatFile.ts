/**
 * The flat file service (/flat-file-service/v1). Uploads go through XMLHttpRequest, whose upload
 * events report progress (fetch has none), with the same bearer token and identity headers as
 * every gateway call; an error answer becomes an ApiError holding the problem.
 */
import type { Problem } from '../domain/errors.ts';
import type { UploadSummary } from '../domain/upload.ts';
import { ApiError, gatewayClient, identityHeaders, request, type RequestOptions } from './gateway.ts';

const BASE = '/flat-file-service/v1';
const client = gatewayClient(BASE);

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadOptions {
  onProgress?(progress: UploadProgress): void;
  signal?: AbortSignal;
}

/** Sends one file as multipart/form-data (part "file"); resolves with what the server kept of it. */
export async function uploadFile(file: File, opts: UploadOptions = {}): Promise<UploadSummary> {
  // the upload screen shows its own errors: the global handler stays quiet
  const options: RequestOptions = { silent: true };
  const headers = await identityHeaders();
  return new Promise<UploadSummary>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${BASE}/uploads`);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => opts.onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      let body: unknown = null;
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300 && body) resolve(body as UploadSummary);
      else reject(new ApiError(xhr.status, { status: xhr.status, ...(body as Partial<Problem> | null) }, options));
    };
    xhr.onerror = () => reject(new ApiError(0, { title: 'network', detail: 'The server could not be reached.' }, options));
    xhr.ontimeout = xhr.onerror;
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    if (opts.signal?.aborted) { xhr.abort(); return; }
    opts.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}

/** An upload's headers and first 20 rows (the sample mapping uses). */
export const getUpload = (id: string, o?: RequestOptions) =>
  request(() => client.get(`uploads/${encodeURIComponent(id)}`).json<UploadSummary>(), o);
