/**
 * Limits of a CSV import into the Sandbox CRM (server/services/sandboxImport.ts): a file over the
 * rows one import takes, or one that would pass the tenant's limit of constituents, is refused
 * before any row goes in; a large file goes in a batch at a time, each batch committed as it is
 * done, so its first rows can be read before its last are written. Limits are lowered by
 * configuration here so the files stay small.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantSession, integrations, type TenantSession } from '../support/connections.ts';
import { importFile } from '../support/sandboxImports.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const MAX_ROWS = 20_000;
const MAX_CONSTITUENTS = 25_000;

let server: TestServer;
let admin: TenantSession;
let pool: pg.Pool;
let sandboxId: string;

beforeAll(async () => {
  server = await startTestServer({ work: true, env: { SANDBOX_IMPORT_MAX_ROWS: String(MAX_ROWS), SANDBOX_CRM_MAX_CONSTITUENTS: String(MAX_CONSTITUENTS) } });
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const res = await integrations(server.url, admin.headers)('/data-sources');
  sandboxId = ((await res.json()) as { dataSources: { id: string; system: string }[] }).dataSources.find((d) => d.system === 'sandbox-crm')!.id;
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await server?.close();
});

/** the refusal answered at once, or the import's result once it has ended */
const importCsv = async (csv: string) => {
  const { res, view } = await importFile(server.url, admin.headers, sandboxId, csv);
  return { status: res.status, json: async () => (view ? view.result ?? view.problem : res.json()) };
};
const held = async () => (await pool.query<{ n: number }>('select count(*)::int as n from sandbox_constituents where tenant_id = $1', [admin.tenantId])).rows[0]!.n;
/** one-letter last names, as many as asked */
const letters = (rows: number, letter = 'a') => `Last name\n${`${letter}\n`.repeat(rows)}`;

describe('importing constituents within limits', () => {
  it('refuses a file of more rows than one import takes, writing none of them', async () => {
    const before = await held();
    const res = await importCsv(letters(MAX_ROWS + 1, 'x'));
    const body = await res.json() as { title: string; detail: string; code: string };
    expect(res.status, JSON.stringify(body)).toBe(422);
    expect(body).toMatchObject({ title: 'import-rows-refused', code: 'import-too-many-rows', refusedCount: MAX_ROWS + 1 });
    expect(body.detail).toBe(`The file has 20,001 rows; one import takes at most 20,000. Split it into smaller files.`);
    expect(await held()).toBe(before);
  });

  it('commits a large file a batch at a time: its first rows are readable while the rest go in', async () => {
    const before = await held();
    const seen = new Set<number>();
    let done = false;
    const watching = (async () => {
      while (!done) {
        seen.add(await held());
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const res = await importCsv(letters(MAX_ROWS, 'b'));
    done = true;
    await watching;
    expect(await res.json()).toEqual({ imported: MAX_ROWS, refused: [], refusedCount: 0 });
    expect(await held()).toBe(before + MAX_ROWS);
    // counts between none and all of the file: batches were committed before the import ended
    expect([...seen].filter((n) => n > before && n < before + MAX_ROWS), [...seen].join(' ')).not.toEqual([]);
  }, 120_000);

  it('refuses a file that would pass the tenant\'s limit of constituents, writing none of it', async () => {
    const before = await held();
    const room = MAX_CONSTITUENTS - before;
    expect(room).toBeGreaterThan(0);
    const over = await importCsv(letters(room + 1, 'c'));
    const body = await over.json() as { title: string; detail: string; code: string };
    expect(over.status, JSON.stringify(body)).toBe(422);
    expect(body).toMatchObject({ title: 'import-rows-refused', code: 'sandbox-crm-full' });
    expect(body.detail).toMatch(/would pass its limit of 25,000/);
    expect(await held()).toBe(before);
    const fits = await importCsv(letters(room, 'd'));
    expect(await fits.json()).toEqual({ imported: room, refused: [], refusedCount: 0 });
    expect(await held()).toBe(MAX_CONSTITUENTS);
  }, 120_000);
});
