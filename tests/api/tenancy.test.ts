/**
 * Tenancy by construction (DESIGN.md section 4a): a repository reached through forTenant never
 * reads, changes or deletes another tenant's row, and the database refuses a child row that points
 * into another tenant even when code skips the repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import { seedDemo } from '../../server/db/seed.ts';
import { tenants } from '../../server/db/schema/accounts.ts';
import { formulaParts } from '../../server/db/schema/formulas.ts';
import { forTenant, type TenantScope } from '../../server/db/tenancy.ts';
import { createTestDatabase } from '../support/database.ts';

let database: Database;
let drop: () => Promise<void>;
let a: TenantScope;
let b: TenantScope;

beforeAll(async () => {
  const created = await createTestDatabase();
  drop = created.drop;
  database = await openDatabase(created.url);
  await seedDemo(database.db, seedSandboxCrm);
  const [first, second] = await database.db.select({ id: tenants.id }).from(tenants).orderBy(tenants.name);
  a = forTenant(database.db, first!.id);
  b = forTenant(database.db, second!.id);
});
afterAll(async () => { await database?.close(); await drop?.(); });

describe('a repository of one tenant', () => {
  it('cannot read, change or delete a formula or its parts of another tenant', async () => {
    const formula = await a.formulas.create({ name: 'Gifts from the spring appeal' });
    await a.parts.upsert(formula.id, 'autosend', { enabled: true }, null);

    expect(await b.formulas.get(formula.id)).toBeUndefined();
    expect((await b.formulas.list()).map((f) => f.id)).not.toContain(formula.id);
    expect(await b.formulas.update(formula.id, { name: 'taken over' })).toBeUndefined();
    expect(await b.formulas.remove(formula.id)).toBe(false);
    expect(await b.parts.get(formula.id, 'autosend')).toBeUndefined();
    expect(await b.parts.list(formula.id)).toEqual([]);
    expect(await b.parts.remove(formula.id, ['autosend'])).toBe(0);
    // writing a part onto another tenant's formula is refused (the conflict update is tenant-bound)
    await expect(b.parts.upsert(formula.id, 'autosend', { enabled: false }, null)).rejects.toThrow();
    await expect(b.parts.upsert(formula.id, 'schedule', { mode: 'continuous' }, null)).rejects.toMatchObject({ cause: { code: '23503' } });

    expect((await a.formulas.get(formula.id))?.name).toBe('Gifts from the spring appeal');
    expect((await a.parts.get(formula.id, 'autosend'))?.body).toEqual({ enabled: true });
  });

  it('cannot read another tenant\'s data sources, uploads, flags, records or events', async () => {
    const [source] = await a.dataSources.list();
    expect(source).toBeDefined();
    expect(await b.dataSources.get(source!.id)).toBeUndefined();
    expect(await b.dataSources.update(source!.id, { displayName: 'mine now' })).toBeUndefined();
    expect(await b.dataSources.remove(source!.id)).toBe(false);

    const upload = await a.uploads.insert({
      fileName: 'donors.csv', size: 10, detectedType: 'csv', headers: ['email'], sampleRows: [['a@example.org']], rowCount: 1,
      scanStatus: 'not-scanned', createdBy: (await database.pool.query('select id from users limit 1')).rows[0].id,
    });
    expect(await b.uploads.get(upload.id)).toBeUndefined();
    expect((await b.uploads.list()).map((u) => u.id)).not.toContain(upload.id);

    await a.flags.put('private-ns', 'secret-flag', { name: 'Secret', description: '', type: 'BOOLEAN_FLAG_TYPE', enabled: true, rollouts: [], variants: [], rules: [], defaultVariant: null } as never);
    expect(await b.flags.get('private-ns', 'secret-flag')).toBeUndefined();
    expect((await b.flags.snapshot('private-ns')).flags).toEqual([]);
    expect(await b.flags.remove('private-ns', 'secret-flag')).toBe(false);

    const event = await a.events.insert({ actorName: 'System', type: 'formula.created', description: 'made', details: {}, correlationId: 'c-1' });
    expect((await b.events.page({ limit: 100 })).map((e) => e.id)).not.toContain(event.id);
    expect((await a.events.page({ limit: 100 })).map((e) => e.id)).toContain(event.id);
  });

  it('cannot point a formula at another tenant\'s data source', async () => {
    const [source] = await a.dataSources.list();
    await expect(b.formulas.create({ name: 'borrowing', sourceDataSourceId: source!.id })).rejects.toMatchObject({ cause: { code: '23503', constraint: 'formulas_source_fk' } });
  });

  it('keeps a transaction all or nothing', async () => {
    await expect(a.transaction(async (tx) => {
      await tx.formulas.create({ name: 'half-written' });
      throw new Error('stop');
    })).rejects.toThrow('stop');
    expect((await a.formulas.list()).map((f) => f.name)).not.toContain('half-written');
  });
});

describe('the database as a second wall', () => {
  it('refuses a part row that names one tenant and another tenant\'s formula', async () => {
    const formula = await a.formulas.create({ name: 'walled' });
    await expect(database.db.insert(formulaParts).values({ tenantId: b.tenantId, formulaId: formula.id, part: 'autosend', body: {} }))
      .rejects.toMatchObject({ cause: { code: '23503', constraint: 'formula_parts_formula_fk' } });
  });
});
