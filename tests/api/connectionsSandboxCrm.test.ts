/**
 * The Sandbox CRM destination kept in PostgreSQL: seeded constituents, search by name, e-mail,
 * phone and address, upserts with idempotency keys (a retry writes nothing twice), pulls since a
 * watermark, and every call scoped by tenant.
 */
import { forTenant } from '../../server/db/tenancy.ts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext, SourceRecord } from '../../server/connectors/connector.ts';
import { sandboxCrmConnector as crm } from '../../server/connectors/sandboxCrm/connector.ts';
import { SANDBOX_CONSTITUENTS_PER_TENANT } from '../../server/connectors/sandboxCrm/seed.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let admin: TenantSession;
let api: ReturnType<typeof integrations>;
let pool: pg.Pool;
let ctx: ConnectorContext;
let otherCtx: ConnectorContext;

beforeAll(async () => {
  server = await startTestServer();
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  api = integrations(server.url, admin.headers);
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  const base = { settings: {}, dataDir: server.config.dataDir };
  ctx = { ...base, tenant: forTenant(server.database.db, admin.tenantId) };
  otherCtx = { ...base, tenant: forTenant(server.database.db, admin.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId) };
});
afterAll(async () => {
  await pool?.end();
  await server?.close();
});

async function pullAll(c: ConnectorContext, object: string, since: string | null, batchSize = 500) {
  const records: SourceRecord[] = [];
  let watermark = since;
  let batches = 0;
  for await (const b of crm.pull(c, object, since, { batchSize })) { records.push(...b.records); watermark = b.watermark; batches++; }
  return { records, watermark, batches };
}

describe('Sandbox CRM through the API', () => {
  it('tests, lists objects and describes fields of the seeded data source', async () => {
    const { dataSources } = await (await api('/data-sources')).json() as { dataSources: { id: string; system: string }[] };
    const sandbox = dataSources.find((d) => d.system === 'sandbox-crm')!;
    const test = await api(`/data-sources/${sandbox.id}/test`, { method: 'POST' });
    expect(test.status).toBe(200);
    expect((await test.json() as { detail: string }).detail).toMatch(new RegExp(`holds ${SANDBOX_CONSTITUENTS_PER_TENANT} constituents and \\d+ gifts`));
    const { objects } = await (await api(`/data-sources/${sandbox.id}/objects`)).json() as { objects: { name: string }[] };
    expect(objects.map((o) => o.name)).toEqual(['constituents', 'gifts']);
    const { fields } = await (await api(`/data-sources/${sandbox.id}/objects/constituents/fields`)).json() as { fields: { name: string }[] };
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['lookupId', 'firstName', 'lastName', 'email', 'phone', 'addressLine1', 'postalCode']));
    expect((await api(`/data-sources/${sandbox.id}/objects/pledges/fields`)).status).toBe(400);
  });
});

describe('Sandbox CRM search', () => {
  it('finds a seeded constituent by e-mail, by name, by phone digits and by postal code', async () => {
    const [seed] = await crm.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'SC-000042' }] });
    expect(seed).toBeDefined();
    const f = seed!.fields as Record<string, string>;
    expect(f).toMatchObject({ lookupId: 'SC-000042', email: expect.stringMatching(/@example\.org$/), phone: expect.stringMatching(/^\+1555/) });

    const byEmail = await crm.search(ctx, 'constituents', { criteria: [{ field: 'email', value: f.email!.toUpperCase() }] });
    expect(byEmail.map((r) => r.id)).toEqual([seed!.id]);
    const byName = await crm.search(ctx, 'constituents', { criteria: [{ field: 'lastName', value: f.lastName! }, { field: 'firstName', value: f.firstName! }], limit: 100 });
    expect(byName.map((r) => r.id)).toContain(seed!.id);
    const byPhone = await crm.search(ctx, 'constituents', { criteria: [{ field: 'phone', value: `(555) ${f.phone!.slice(5, 8)}-${f.phone!.slice(8)}` }] });
    expect(byPhone.map((r) => r.id)).toContain(seed!.id);
    const byPostcode = await crm.search(ctx, 'constituents', { criteria: [{ field: 'postalCode', operator: 'starts-with', value: f.postalCode!.slice(0, 3) }, { field: 'lastName', value: f.lastName! }] });
    expect(byPostcode.map((r) => r.id)).toContain(seed!.id);

    // the other tenant has its own SC-000042, never this one
    const [theirs] = await crm.search(otherCtx, 'constituents', { criteria: [{ field: 'lookupId', value: 'SC-000042' }] });
    expect(theirs!.id).not.toBe(seed!.id);
  });

  it('searches gifts by constituent and refuses fields it cannot search', async () => {
    const gifts = await crm.search(ctx, 'gifts', { criteria: [{ field: 'constituentLookupId', value: 'SC-000005' }] });
    expect(gifts.length).toBeGreaterThanOrEqual(1);
    expect(gifts[0]!.fields).toMatchObject({ constituentLookupId: 'SC-000005', amount: expect.stringMatching(/^\d+\.\d{2}$/), date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    await expect(crm.search(ctx, 'constituents', { criteria: [{ field: 'shoeSize', value: '9' }] })).rejects.toThrow(/cannot be searched by shoeSize/);
  });
});

describe('Sandbox CRM upserts with idempotency keys', () => {
  it('creates a constituent once however often the write is retried', async () => {
    const item = { idempotencyKey: 'formula-1:record-77:send-1', fields: { firstName: 'Wren', lastName: 'Tributary', email: 'wren@example.org', phone: '+1 555 010 9999', addressLine1: '1 Quay Street', city: 'Portland', state: 'OR', postalCode: '97201', country: 'United States' } };
    const [first] = await crm.upsert(ctx, 'constituents', [item]);
    expect(first).toMatchObject({ outcome: 'created', replayed: false });
    const [again] = await crm.upsert(ctx, 'constituents', [item]);
    expect(again).toEqual({ ...first, replayed: true });
    // two workers retrying at the same moment
    const both = await Promise.all([crm.upsert(ctx, 'constituents', [item]), crm.upsert(ctx, 'constituents', [item])]);
    expect(both.map(([r]) => r!.id)).toEqual([first!.id, first!.id]);
    const { rows } = await pool.query("select count(*)::int as n from sandbox_constituents where last_name = 'Tributary'");
    expect(rows[0].n).toBe(1);
    const [found] = await crm.search(ctx, 'constituents', { criteria: [{ field: 'email', value: 'wren@example.org' }] });
    expect(found!.fields).toMatchObject({ firstName: 'Wren', lastName: 'Tributary', phone: '+1 555 010 9999', city: 'Portland', lookupId: expect.stringMatching(/^SC-\d{6,}$/) });
  });

  it('updates a constituent by id, adds a gift by lookup id, and reports refused records one by one', async () => {
    const [created] = await crm.upsert(ctx, 'constituents', [{ idempotencyKey: 'k-create-ines', fields: { firstName: 'Ines', lastName: 'Harbour' } }]);
    const results = await crm.upsert(ctx, 'constituents', [
      { idempotencyKey: 'k-update-ines', id: created!.id, fields: { email: 'ines@example.org', lastName: 'Harbour-Smith' } },
      { idempotencyKey: 'k-no-name', fields: { firstName: 'Nameless' } },
      { idempotencyKey: 'k-bad-id', id: crypto.randomUUID(), fields: { lastName: 'Ghost' } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['updated', 'failed', 'failed']);
    expect(results[1]!.error).toBe('A new constituent needs a last name.');
    const [ines] = await crm.search(ctx, 'constituents', { criteria: [{ field: 'email', value: 'ines@example.org' }] });
    expect(ines).toMatchObject({ id: created!.id, fields: { lastName: 'Harbour-Smith', firstName: 'Ines' } });

    const [gift] = await crm.upsert(ctx, 'gifts', [{ idempotencyKey: 'k-gift-ines', fields: { constituentLookupId: (ines!.fields as Record<string, string>).lookupId!, amount: '42.50', date: '2026-02-14', fund: 'Food Pantry' } }]);
    expect(gift).toMatchObject({ outcome: 'created' });
    const gifts = await crm.search(ctx, 'gifts', { criteria: [{ field: 'constituentLookupId', value: (ines!.fields as Record<string, string>).lookupId! }] });
    expect(gifts.map((g) => g.fields)).toEqual([expect.objectContaining({ amount: '42.50', date: '2026-02-14', fund: 'Food Pantry' })]);

    // another tenant cannot update this tenant's constituent
    const [stolen] = await crm.upsert(otherCtx, 'constituents', [{ idempotencyKey: 'k-steal', id: created!.id, fields: { lastName: 'Thief' } }]);
    expect(stolen).toMatchObject({ outcome: 'failed' });
  });
});

describe('Sandbox CRM pulls', () => {
  it('pulls every constituent in batches, then only those changed since the watermark', async () => {
    const first = await pullAll(ctx, 'constituents', null, 1000);
    const { rows } = await pool.query('select count(*)::int as n from sandbox_constituents where tenant_id = $1', [admin.tenantId]);
    expect(first.records).toHaveLength(rows[0].n);
    expect(first.batches).toBe(Math.ceil(rows[0].n / 1000));
    expect(new Set(first.records.map((r) => r.id)).size).toBe(rows[0].n);

    expect((await pullAll(ctx, 'constituents', first.watermark)).records).toEqual([]);
    const [changed] = await crm.upsert(ctx, 'constituents', [{ idempotencyKey: 'k-pull-change', fields: { lastName: 'Newcomer' } }]);
    const next = await pullAll(ctx, 'constituents', first.watermark);
    expect(next.records.map((r) => r.id)).toEqual([changed!.id]);
    await expect(pullAll(ctx, 'constituents', 'not-a-watermark')).rejects.toThrow(/watermark/);
  });
});
