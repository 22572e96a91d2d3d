/**
 * The flat file and file upload connectors: a tenant's drop folder on the server, and files
 * uploaded through the flat file service, as objects, fields and pulls.
 */
import { forTenant } from '../../server/db/tenancy.ts';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext, SourceRecord } from '../../server/connectors/connector.ts';
import { dropFolderPath, flatFileConnector } from '../../server/connectors/fileSources/flatFile.ts';
import { fileUploadConnector } from '../../server/connectors/fileSources/fileUpload.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { csvText, workbook } from '../support/flatFiles.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let admin: TenantSession;
let api: ReturnType<typeof integrations>;
let folder: string;
const FOLDER = `test-${process.pid}-${Date.now()}`;
const RESUME = `${FOLDER}-resume`;

beforeAll(async () => {
  server = await startTestServer();
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  api = integrations(server.url, admin.headers);
  folder = dropFolderPath(server.config.dataDir, admin.tenantId, FOLDER);
});
afterAll(async () => {
  await server?.close();
});

const ctxOf = (settings: Record<string, string>): ConnectorContext => ({ tenant: forTenant(server.database.db, admin.tenantId), settings, dataDir: server.config.dataDir });

async function pullAll(pull: AsyncIterable<{ records: SourceRecord[]; watermark: string | null }>) {
  const records: SourceRecord[] = [];
  let watermark: string | null = null;
  for await (const b of pull) { records.push(...b.records); watermark = b.watermark; }
  return { records, watermark };
}

describe('flat file connector', () => {
  it('prepares the drop folder on test, then lists, describes and pulls its files', async () => {
    const created = await api('/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Nightly drop', settings: { folder: FOLDER } } });
    expect(created.status).toBe(201);
    const { id } = await created.json() as { id: string };
    const test = await api(`/data-sources/${id}/test`, { method: 'POST' });
    expect(await test.json()).toMatchObject({ status: 'success', detail: expect.stringContaining('holds 0') });
    expect(fs.statSync(folder).isDirectory()).toBe(true);

    fs.writeFileSync(path.join(folder, 'a-gifts.csv'), csvText(2));
    fs.utimesSync(path.join(folder, 'a-gifts.csv'), new Date('2026-01-01'), new Date('2026-01-01'));
    fs.writeFileSync(path.join(folder, 'b-donors.xlsx'), workbook([['Name', 'Amount'], ['Kai', 5]], 'xlsx'));
    fs.utimesSync(path.join(folder, 'b-donors.xlsx'), new Date('2026-01-02'), new Date('2026-01-02'));
    fs.writeFileSync(path.join(folder, 'ignore.pdf'), '%PDF-1.4');

    const { objects } = await (await api(`/data-sources/${id}/objects/refresh`, { method: 'POST' })).json() as { objects: { name: string }[] };
    expect(objects.map((o) => o.name)).toEqual(['*', 'b-donors.xlsx', 'a-gifts.csv']);
    const { fields } = await (await api(`/data-sources/${id}/objects/b-donors.xlsx/fields`)).json() as { fields: { name: string }[] };
    expect(fields.map((f) => f.name)).toEqual(['Name', 'Amount']);

    const first = await pullAll(flatFileConnector.pull(ctxOf({ folder: FOLDER }), '*', null));
    expect(first.records.map((r) => r.id)).toEqual(['a-gifts.csv#2', 'a-gifts.csv#3', 'b-donors.xlsx#2']);
    expect((await pullAll(flatFileConnector.pull(ctxOf({ folder: FOLDER }), '*', first.watermark))).records).toEqual([]);
  });

  it('resumes inside a file after the last batch stored, not at its start', async () => {
    const dir = dropFolderPath(server.config.dataDir, admin.tenantId, RESUME);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'long.csv'), csvText(5));
    fs.writeFileSync(path.join(dir, 'next.csv'), csvText(1));
    fs.utimesSync(path.join(dir, 'next.csv'), new Date(Date.now() + 60_000), new Date(Date.now() + 60_000));
    const ctx = ctxOf({ folder: RESUME });
    const batches = [];
    for await (const b of flatFileConnector.pull(ctx, '*', null, { batchSize: 2 })) batches.push(b);
    expect(batches.map((b) => b.records.map((r) => r.id))).toEqual([['long.csv#2', 'long.csv#3'], ['long.csv#4', 'long.csv#5'], ['long.csv#6'], ['next.csv#2']]);
    // stopped after the first batch: the next pull reads on from line 4 of the same file
    const resumed = await pullAll(flatFileConnector.pull(ctx, '*', batches[0]!.watermark, { batchSize: 2 }));
    expect(resumed.records.map((r) => r.id)).toEqual(['long.csv#4', 'long.csv#5', 'long.csv#6', 'next.csv#2']);
    // a partial position never counts its file as read whole
    expect(JSON.parse(batches[0]!.watermark!)).toMatchObject({ n: 'long.csv', line: 3 });
    expect(JSON.parse(batches[2]!.watermark!)).toEqual({ t: expect.any(Number), n: 'long.csv' });
  });

  it('refuses a folder name that could leave the tenant\'s drop folder', async () => {
    const res = await api('/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Escape', settings: { folder: '../../etc' } } });
    expect(res.status).toBe(400);
    expect(() => dropFolderPath(server.config.dataDir, admin.tenantId, '../x')).toThrow();
  });
});

describe('file upload connector', () => {
  it('offers the tenant\'s uploads as objects and pulls every row of a file kept for a formula', async () => {
    const form = new FormData();
    form.append('file', new Blob([csvText(3, ['Given name', 'Surname', 'Email', 'Gift'])], { type: 'text/csv' }), 'spring-gala.csv');
    const up = await fetch(`${server.url}/flat-file-service/v1/uploads`, { method: 'POST', headers: admin.headers, body: form });
    expect(up.status).toBe(201);
    const upload = await up.json() as { id: string };

    const created = await api('/data-sources', { method: 'POST', body: { system: 'file-upload', displayName: 'Uploads', settings: {} } });
    const { id } = await created.json() as { id: string };
    expect((await api(`/data-sources/${id}/test`, { method: 'POST' })).status).toBe(200);
    const { objects } = await (await api(`/data-sources/${id}/objects`)).json() as { objects: { name: string; label: string }[] };
    expect(objects[0]).toMatchObject({ name: upload.id, label: expect.stringContaining('spring-gala.csv') });
    const { fields } = await (await api(`/data-sources/${id}/objects/${upload.id}/fields`)).json() as { fields: { name: string }[] };
    expect(fields.map((f) => f.name)).toEqual(['Given name', 'Surname', 'Email', 'Gift']);

    // a file uploaded without a formula keeps only its sample, which is no formula's rows to collect
    expect((await pullAll(fileUploadConnector.pull(ctxOf({}), upload.id, null))).records).toEqual([]);

    // one uploaded to a file-upload formula is kept whole until its rows are collected
    const formula = await (await fetch(`${server.url}/web-api/v1/formulas`, {
      method: 'POST', headers: { ...admin.headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Gala', usesFileUpload: true }),
    })).json() as { id: string };
    const kept = new FormData();
    kept.append('file', new Blob([csvText(3, ['Given name', 'Surname', 'Email', 'Gift'])], { type: 'text/csv' }), 'spring-gala.csv');
    const keptUpload = await (await fetch(`${server.url}/flat-file-service/v1/uploads?formulaId=${formula.id}`, { method: 'POST', headers: admin.headers, body: kept })).json() as { id: string };
    const pulled = await pullAll(fileUploadConnector.pull(ctxOf({}), keptUpload.id, null));
    expect(pulled.records).toHaveLength(3);
    expect(pulled.records[0]!.fields).toEqual({ 'Given name': 'Ann1', Surname: 'Smith1', Email: 'ann1@example.org', Gift: '1.50' });
    expect((await pullAll(fileUploadConnector.pull(ctxOf({}), keptUpload.id, pulled.watermark))).records).toEqual([]);

    // another tenant's connection does not see it
    const other = admin.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
    await expect(fileUploadConnector.describeFields({ ...ctxOf({}), tenant: forTenant(server.database.db, other) }, upload.id)).rejects.toThrow(/no such upload/);
  });
});
