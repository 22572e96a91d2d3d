/**
 * The export service (/export-service/v1), typed by its contract (src/domain/api/exportService.ts),
 * and saving a finished file. The download carries the bearer token like every call, so it is
 * fetched and handed to the browser as a file; a browser that refuses to save it (downloads
 * blocked for the site, a sandboxed frame, a blocked pop-up) gets DownloadBlockedError.
 */
import { exportService, type ExportView, type StartExport } from '../domain/api/exportService.ts';
import { gatewayClient, request, serviceClient, type RequestOptions } from './gateway.ts';

export type { ExportView, StartExport };

/** The browser would not save the file. */
export class DownloadBlockedError extends Error {
  override readonly name = 'DownloadBlockedError';
}

const client = serviceClient(exportService);
const files = gatewayClient(exportService.basePath);

/**
 * Hands a blob to the browser as a download: a link with `download` where the browser has it,
 * else a new window. Anything refused on the way is DownloadBlockedError.
 */
export function saveFile(blob: Blob, fileName: string): void {
  let url: string;
  try {
    url = URL.createObjectURL(blob);
  } catch (err) {
    throw new DownloadBlockedError('The browser would not hold the file.', { cause: err });
  }
  // the file stays readable for a minute: long enough for the browser to start saving it
  const release = () => setTimeout(() => URL.revokeObjectURL(url), 60_000);
  try {
    const doc = document;
    const link = doc.createElement('a');
    if ('download' in link) {
      link.href = url;
      link.download = fileName;
      link.rel = 'noopener';
      link.style.display = 'none';
      doc.body.append(link);
      link.click();
      link.remove();
    } else if (!window.open(url, '_blank')) {
      throw new DownloadBlockedError('The browser blocked the window that saves the file.');
    }
  } catch (err) {
    throw err instanceof DownloadBlockedError ? err : new DownloadBlockedError('The browser refused the download.', { cause: err });
  } finally {
    release();
  }
}

export const exportsApi = {
  start: (body: StartExport, o?: RequestOptions): Promise<ExportView> => client.call('start', { body }, o),
  status: (id: string, o?: RequestOptions): Promise<ExportView> => client.call('get', { params: { id } }, o),
  list: async (formulaId: string, o?: RequestOptions): Promise<ExportView[]> => (await client.call('list', { query: { formulaId } }, o)).exports,
  /** fetches the export's file and saves it under its name */
  async download(e: Pick<ExportView, 'id' | 'fileName'>, o?: RequestOptions): Promise<void> {
    // a big file takes longer than a call: no timeout
    const blob = await request(() => files.get(`exports/${encodeURIComponent(e.id)}/download`, { timeout: false }).blob(), o);
    saveFile(blob, e.fileName ?? 'export.csv');
  },
};
export type ExportsApi = typeof exportsApi;
