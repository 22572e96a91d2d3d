/**
 * Sandbox CRM constituent upserts a batch at a time (server/connectors/sandboxCrm/store/writes.ts):
 * the same answers as writing item by item, and idempotency under retries and concurrent batches:
 * a key written once answers its first result, concurrent batches sharing keys write each key
 * once, a refused item keeps nothing (its key stays free), and a constituent updated by several
 * items of one batch ends as if they were written in order, its match keys with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpsertItem } from '../../server/connectors/connector.ts';
import { sandboxCrmStore, type SandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { matchKey, MATCH_KEYS_VERSION } from '../../src/domain/formula/matchKeys.ts';
import { createTestDatabase } from '../support/database.ts';

let scratch: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let crm: SandboxCrmStore;
let tenantId: string;

const q = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await database.pool.query(text, values)).rows as T[];

beforeAll(async () => {
  scratch = await createTestDatabase();
  database = await openDatabase(scratch.url);
  await seedDemo(database.db, seedSandboxCrm);
  tenantId = (await q<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]))[0]!.id;
  crm = sandboxCrmStore(forTenant(database.db, tenantId));
}, 60_000);
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
});

const person = (i: number, tag: string) => ({
  firstName: `First${i}`, lastName: `Batch${tag}${i}`, email: `${tag}${i}@batch.example`, phone: `+1 503 555 ${String(1000 + i)}`,
  addressLine1: `${i} Batch Street`, city: 'Portland', state: 'OR', postalCode: '97201',
});

describe('batch upserts of constituents', () => {
  it('answer item by item: created, updated, refused, and a key given twice answers its first write', async () => {
    const [seed] = await crm.upsert('constituents', [{ idempotencyKey: 'b1-seed', fields: person(0, 'one') }]);
    const items: UpsertItem[] = [
      { idempotencyKey: 'b1-new', fields: person(1, 'one') },
      { idempotencyKey: 'b1-update', id: seed!.id, fields: { email: 'renamed@batch.example', lastName: 'Renamed' } },
      { idempotencyKey: 'b1-no-name', fields: { firstName: 'Nameless' } },
      { idempotencyKey: 'b1-bad-email', fields: { lastName: 'Mailless', email: 'not-an-email' } },
      { idempotencyKey: 'b1-ghost', id: crypto.randomUUID(), fields: { lastName: 'Ghost' } },
      { idempotencyKey: 'b1-new', fields: person(1, 'one') },
    ];
    const results = await crm.upsert('constituents', items);
    expect(results.map((r) => [r.outcome, r.replayed])).toEqual([
      ['created', false], ['updated', false], ['failed', false], ['failed', false], ['failed', false], ['created', true],
    ]);
    expect(results[5]!.id).toBe(results[0]!.id);
    expect(results.slice(2, 5).map((r) => r.error)).toEqual([
      'A new constituent needs a last name.', 'not-an-email is not an e-mail address.', `There is no constituent ${items[4]!.id}.`,
    ]);
    const [renamed] = await crm.search('constituents', { criteria: [{ field: 'email', value: 'RENAMED@batch.example' }] });
    expect(renamed).toMatchObject({ id: seed!.id, fields: { lastName: 'Renamed', firstName: 'First0', phone: person(0, 'one').phone, city: 'Portland' } });

    // the whole batch again: every write answered from the first, nothing written
    const before = await crm.counts();
    const again = await crm.upsert('constituents', items);
    expect(again.map((r) => r.outcome)).toEqual(results.map((r) => r.outcome));
    expect(again.filter((r) => r.outcome !== 'failed').every((r) => r.replayed)).toBe(true);
    expect(await crm.counts()).toEqual(before);

    // refused items kept nothing: their keys write once they are mended
    const [mended] = await crm.upsert('constituents', [{ idempotencyKey: 'b1-ghost', fields: { lastName: 'Ghost' } }]);
    expect(mended).toMatchObject({ outcome: 'created', replayed: false });
  });

  it('write several items of one constituent in order, ending with the last primary e-mail, phone and address given and the keys that go with them', async () => {
    const [c] = await crm.upsert('constituents', [{ idempotencyKey: 'b2-seed', fields: person(0, 'two') }]);
    const results = await crm.upsert('constituents', [
      { idempotencyKey: 'b2-a', id: c!.id, fields: { email: 'first@batch.example', firstName: 'Bill' } },
      { idempotencyKey: 'b2-b', id: c!.id, fields: { email: 'second@batch.example', phone: '(971) 555-0100' } },
      { idempotencyKey: 'b2-c', id: c!.id, fields: { postalCode: '97209-1234', lastName: "O'Batch" } },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(['updated', 'updated', 'updated']);
    const [row] = await q<Record<string, string | number | null>>(`
      select c.first_name, c.last_name, c.keys_version, c.email_key, c.phone_key, c.first_name_key, c.last_name_key, c.postal_key, c.address_key,
        c.email, c.phone, c.address_line1, c.city, c.state, c.postal_code
      from sandbox_constituents c where c.id = $1`, [c!.id]);
    expect(row).toMatchObject({
      first_name: 'Bill', last_name: "O'Batch", keys_version: MATCH_KEYS_VERSION, email: 'second@batch.example', phone: '(971) 555-0100',
      // the address is replaced whole, as a one-by-one write replaces it
      postal_code: '97209-1234', address_line1: null, city: null, state: null, address_key: null,
      email_key: matchKey('email', 'second@batch.example'), phone_key: matchKey('phone', '(971) 555-0100'),
      first_name_key: matchKey('firstName', 'Bill'), last_name_key: matchKey('lastName', "O'Batch"), postal_key: matchKey('postalCode', '97209'),
    });
  });

  it('key a constituent of an older key version from its values when an update leaves them', async () => {
    const [c] = await crm.upsert('constituents', [{ idempotencyKey: 'b4-seed', fields: person(0, 'four') }]);
    await q("update sandbox_constituents set keys_version = 0, email_key = 'stale', phone_key = null, address_key = 'stale' where id = $1", [c!.id]);
    await crm.upsert('constituents', [{ idempotencyKey: 'b4-rename', id: c!.id, fields: { firstName: 'Robert' } }]);
    const [row] = await q<Record<string, string | number | null>>('select keys_version, email_key, phone_key, address_key, postal_key, first_name_key from sandbox_constituents where id = $1', [c!.id]);
    const p = person(0, 'four');
    expect(row).toEqual({
      keys_version: MATCH_KEYS_VERSION, email_key: matchKey('email', p.email), phone_key: matchKey('phone', p.phone),
      address_key: matchKey('addressLine1', p.addressLine1), postal_key: matchKey('postalCode', p.postalCode), first_name_key: matchKey('firstName', 'Robert'),
    });
  });

  it('write each key once when concurrent batches share keys', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => ({ idempotencyKey: `b3-${i}`, fields: person(i, 'three') }));
    const shuffled = (seed: number) => [...keys].sort((a, b) => ((a.idempotencyKey.length * 31 + seed * Number(a.idempotencyKey.slice(3))) % 97) - ((b.idempotencyKey.length * 31 + seed * Number(b.idempotencyKey.slice(3))) % 97));
    const batches = await Promise.all([1, 2, 3, 4].map((s) => crm.upsert('constituents', shuffled(s).slice(0, 200 + s * 20))));
    const byKey = new Map<string, string>();
    for (const results of batches) {
      for (const r of results) {
        expect(r.outcome).toBe('created');
        const seen = byKey.get(r.idempotencyKey);
        if (seen) expect(r.id).toBe(seen); else byKey.set(r.idempotencyKey, r.id);
      }
    }
    expect(batches.flat().filter((r) => !r.replayed).length).toBe(byKey.size);
    const [count] = await q<{ n: number }>("select count(*)::int as n from sandbox_constituents where tenant_id = $1 and last_name like 'Batchthree%'", [tenantId]);
    expect(count!.n).toBe(byKey.size);
  });
});
