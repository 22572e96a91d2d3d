/**
 * Following a Sandbox CRM import (server/services/sandboxImport.ts, server/jobs/sandboxImport.ts):
 * the import's status can be read while it runs (rows read of the file's total, constituents
 * imported so far, a percent) and again after it ends (the final counts), by the import's id or as
 * the data source's latest import, and by nobody of another tenant. Two imports of one tenant at
 * once run one after the other, so together they cannot pass the tenant's limit of constituents.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { awaitImport, importStatus, postImport, type ImportView } from '../support/sandboxImports.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const MAX_CONSTITUENTS = 60_000;

let server: TestServer;
let admin: TenantSession;
let pool: pg.Pool;
let sandboxId: string;

beforeAll(async () => {
  server = await startTestServer({ work: true, env: { SANDBOX_CRM_MAX_CONSTITUENTS: String(MAX_CONSTITUENTS) } });
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const res = await integrations(server.url, admin.headers)('/data-sources');
  sandboxId = ((await res.json()) as { dataSources: { id: string; system: string }[] }).dataSources.find((d) => d.system === 'sandbox-crm')!.id;
}, 60_000);
afterAll(async () => {
  await pool?.end();
  await server?.close();
});

const held = async () => (await pool.query<{ n: number }>('select count(*)::int as n from sandbox_constituents where tenant_id = $1', [admin.tenantId])).rows[0]!.n;
/** one-letter last names, as many as asked, and a row with no last name every `badEvery` rows */
const letters = (rows: number, letter: string, badEvery = 0) =>
  `Last name,Email\n${Array.from({ length: rows }, (_, i) => (badEvery && i % badEvery === badEvery - 1 ? ',x@example.org\n' : `${letter},\n`)).join('')}`;

async function start(csv: string): Promise<ImportView> {
  const res = await postImport(server.url, admin.headers, sandboxId, csv);
  const body = await res.json() as ImportView;
  expect(res.status, JSON.stringify(body)).toBe(202);
  return body;
}

describe('following an import', () => {
  it('shows rows imported so far and a percent while it runs, then the final counts, and again after', async () => {
    const before = await held();
    const rows = 50_000;
    const started = await start(letters(rows, 'p', 1000));
    expect(started).toMatchObject({ status: 'waiting', total: rows, read: 0, imported: 0, percent: 0, fileName: 'constituents.csv', dataSourceId: sandboxId });

    const seen: ImportView[] = [];
    const ended = await awaitImport(server.url, admin.headers, sandboxId, started.id, seen);
    const midway = seen.filter((v) => v.status === 'importing' && v.read > 0 && v.read < rows);
    expect(midway.length, seen.map((v) => `${v.status} ${v.read}`).join(', ')).toBeGreaterThan(0);
    for (const v of midway) {
      expect(v.percent).toBe(Math.floor((v.read * 100) / rows));
      // what is counted as imported is in the CRM already (each batch is committed before it is reported)
      expect(v.imported + v.refusedCount).toBe(v.read);
      expect(v.imported).toBeGreaterThan(0);
    }
    // counts only go up
    const reads = midway.map((v) => v.read);
    expect(reads).toEqual([...reads].sort((a, b) => a - b));

    const refusedCount = rows / 1000;
    expect(ended).toMatchObject({ status: 'imported', total: rows, read: rows, imported: rows - refusedCount, refusedCount, percent: 100, problem: null });
    expect(ended.result).toMatchObject({ imported: rows - refusedCount, refusedCount });
    expect(ended.result!.refused[0]).toEqual({ row: 1001, reason: expect.any(String) });
    expect(await held()).toBe(before + rows - refusedCount);

    // readable again, as after a reload: by id, and as the data source's latest import
    expect(await importStatus(server.url, admin.headers, sandboxId, started.id)).toEqual(ended);
    const latest = await integrations(server.url, admin.headers)(`/data-sources/${sandboxId}/sandbox-crm/imports`);
    expect(await latest.json()).toEqual({ latest: ended });
  }, 120_000);

  it('is not found from another tenant, nor under another data source, nor by a made-up id', async () => {
    const started = await start(letters(10, 'q'));
    await awaitImport(server.url, admin.headers, sandboxId, started.id);
    const other = admin.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
    const otherSources = await integrations(server.url, admin.withTenant(other))('/data-sources');
    const otherSandbox = ((await otherSources.json()) as { dataSources: { id: string; system: string }[] }).dataSources.find((d) => d.system === 'sandbox-crm')!.id;
    const tries: [Record<string, string>, string, string][] = [
      [admin.withTenant(other), otherSandbox, started.id],
      [admin.withTenant(other), sandboxId, started.id],
      [admin.headers, otherSandbox, started.id],
      [admin.headers, sandboxId, crypto.randomUUID()],
      [admin.headers, sandboxId, 'not-an-id'],
    ];
    for (const [headers, source, id] of tries) {
      const res = await fetch(`${server.url}/integrations/v1/data-sources/${source}/sandbox-crm/imports/${id}`, { headers });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await res.json()).toMatchObject({ title: 'not-found' });
    }
    const latest = await integrations(server.url, admin.withTenant(other))(`/data-sources/${otherSandbox}/sandbox-crm/imports`);
    expect(await latest.json()).toEqual({ latest: null });
  }, 60_000);
});

describe('two imports of one tenant at once', () => {
  it('run one after the other, so together they cannot pass the limit of constituents', async () => {
    const before = await held();
    const room = MAX_CONSTITUENTS - before;
    // each fits alone; both would not
    const each = Math.ceil(room * 0.6);
    expect(each).toBeLessThan(room);
    const [a, b] = await Promise.all([start(letters(each, 'r')), start(letters(each, 's'))]);
    const ends = await Promise.all([a, b].map((s) => awaitImport(server.url, admin.headers, sandboxId, s.id)));
    expect(ends.map((e) => e.status).sort()).toEqual(['imported', 'refused']);
    const refused = ends.find((e) => e.status === 'refused')!;
    expect(refused.problem).toMatchObject({ title: 'import-rows-refused', code: 'sandbox-crm-full' });
    expect(refused.problem!.detail).toMatch(/would pass its limit of 60,000/);
    expect(refused.imported).toBe(0);
    expect(await held()).toBe(before + each);
    expect(await held()).toBeLessThanOrEqual(MAX_CONSTITUENTS);
  }, 120_000);
});
