/**
 * Sends one file as multipart/form-data (part "file") through XMLHttpRequest, whose upload events
 * report progress (fetch has none), with the same bearer token and identity headers as every
 * gateway call; an error answer becomes an ApiError holding the problem. The caller shows its own
 * errors: the global handler stays quiet.
 */
import type { Problem } from '../domain/errors.ts';
import { ApiError, identityHeaders, type RequestOptions } from './gateway.ts';

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface UploadOptions {
  onProgress?(progress: UploadProgress): void;
  signal?: AbortSignal;
}

export async function postFile<T>(url: string, file: File, opts: UploadOptions = {}): Promise<T> {
  const options: RequestOptions = { silent: true };
  const headers = await identityHeaders();
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => opts.onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      let body: unknown = null;
      try { body = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300 && body) resolve(body as T);
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
