/**
 * Imports into the Sandbox CRM as the browser does them: send the file, then read the import's
 * status until it ends. The server must work its jobs (startTestServer({ work: true })).
 */
import type * as v from 'valibot';
import type { SandboxImportViewSchema } from '../../src/domain/api/integrations.ts';

export type ImportView = v.InferOutput<typeof SandboxImportViewSchema>;

const IMPORTS = (dataSourceId: string) => `/integrations/v1/data-sources/${dataSourceId}/sandbox-crm`;

export function postImport(base: string, headers: Record<string, string>, dataSourceId: string, csv: string | Uint8Array, fileName = 'constituents.csv') {
  const form = new FormData();
  form.append('file', new File([csv as BlobPart], fileName, { type: 'text/csv' }));
  return fetch(`${base}${IMPORTS(dataSourceId)}/import`, { method: 'POST', headers, body: form });
}

export async function importStatus(base: string, headers: Record<string, string>, dataSourceId: string, importId: string): Promise<ImportView> {
  const res = await fetch(`${base}${IMPORTS(dataSourceId)}/imports/${importId}`, { headers });
  if (res.status !== 200) throw new Error(`import status answered ${res.status}: ${await res.text()}`);
  return res.json() as Promise<ImportView>;
}

const ENDED = new Set(['imported', 'refused', 'error']);

/** Reads the status until the import ends; `seen` gets every status read on the way. */
export async function awaitImport(base: string, headers: Record<string, string>, dataSourceId: string, importId: string, seen?: ImportView[], timeoutMs = 110_000): Promise<ImportView> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const view = await importStatus(base, headers, dataSourceId, importId);
    seen?.push(view);
    if (ENDED.has(view.status)) return view;
    if (Date.now() > until) throw new Error(`the import was still ${view.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Sends a file and follows its import: a refusal before the import started is the response itself
 * (`res`, not yet read); an import that started ends as `view`.
 */
export async function importFile(base: string, headers: Record<string, string>, dataSourceId: string, csv: string | Uint8Array, fileName?: string)
  : Promise<{ res: Response; view: ImportView | null }> {
  const res = await postImport(base, headers, dataSourceId, csv, fileName);
  if (res.status !== 202) return { res, view: null };
  const started = await res.json() as ImportView;
  return { res, view: await awaitImport(base, headers, dataSourceId, started.id) };
}
