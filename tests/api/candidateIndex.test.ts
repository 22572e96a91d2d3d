/**
 * The engine's candidate index over the Sandbox CRM (server/engine/candidateIndex.ts): it answers
 * the engine's equals searches as the Sandbox CRM's own batch search does, follows writes made
 * after it was loaded (created, changed and deleted constituents), leaves keys shared by too many
 * constituents out of blocking, and brings a constituent whose first and last name came swapped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorContext, SearchQuery } from '../../server/connectors/connector.ts';
import { sandboxCrmConnector as crm, sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { BLOCK_CAP, candidateIndexOf } from '../../server/engine/candidateIndex.ts';
import { createTestDatabase } from '../support/database.ts';

let drop: () => Promise<void>;
let database: Database;
let ctx: ConnectorContext;
const end = () => ({ connector: crm, ctx, object: 'constituents' });

const NAMESAKES = BLOCK_CAP + 10;

beforeAll(async () => {
  const made = await createTestDatabase('seeded');
  drop = made.drop;
  database = await openDatabase(made.url);
  const { rows: [tenant] } = await database.pool.query<{ id: string }>("select id from tenants where name = 'Riverside Food Bank'");
  ctx = { settings: {}, dataDir: '/nonexistent', tenant: forTenant(database.db, tenant!.id) };
  const { refused } = await sandboxCrmStore(ctx.tenant).importConstituents([
    { lookupId: 'IX-1', firstName: 'Maria', lastName: 'Gonzalez', email: 'maria.g@example.org', phone: '415 555 0101', addressLine1: '12 Valencia St', postalCode: '94110', city: 'San Francisco' },
    { lookupId: 'IX-2', firstName: 'Mario', lastName: 'Gonzalez', email: 'mario@example.org', addressLine1: '14 Valencia Street', postalCode: '94110' },
    { lookupId: 'IX-3', firstName: 'Bill', lastName: "O'Neill", phone: '(212) 555-0199', addressLine1: '5 Main St Apt 4', postalCode: '10001-2345' },
    // a common name in one ZIP: the index caps it for blocking, an equals search still answers it
    ...Array.from({ length: NAMESAKES }, (_, i) => ({
      lookupId: `IX-S${i}`, firstName: 'John', lastName: 'Smith', email: `john.smith${i}@example.org`, addressLine1: `${100 + i} Elm St`, postalCode: '60601',
    })),
  ]);
  expect(refused).toEqual([]);
});
afterAll(async () => {
  await database?.close();
  await drop?.();
});

const queries: SearchQuery[] = [
  { criteria: [{ field: 'email', value: ' Maria.G@example.org ' }] },
  { criteria: [{ field: 'email', value: 'nobody@example.org' }] },
  { criteria: [{ field: 'lastName', value: 'gonzalez' }, { field: 'postalCode', value: '94110' }] },
  { criteria: [{ field: 'lastName', value: 'ONeill' }, { field: 'phone', value: '+1 212 555 0199' }] },
  { criteria: [{ field: 'firstName', value: 'William' }, { field: 'lastName', value: 'O Neill' }, { field: 'addressLine1', value: '5 Main Street Unit 4' }] },
  { criteria: [{ field: 'lookupId', value: 'ix-2' }] },
  { criteria: [{ field: 'lastName', value: 'Smith' }, { field: 'postalCode', value: '60601' }] },
  { criteria: [{ field: 'lastName', value: 'Smith' }, { field: 'postalCode', value: '60601' }], limit: 100 },
  { criteria: [{ field: 'phone', value: '12' }] },
];

describe('the candidate index', () => {
  it('answers equals searches as the Sandbox CRM does, and leaves the ones no blocking key serves to it', async () => {
    const index = (await candidateIndexOf(end()))!;
    const fromIndex = index.searchMany(queries);
    const fromCrm = await crm.searchMany!(ctx, 'constituents', queries);
    expect(fromIndex).toEqual(fromCrm);
    expect(fromIndex[0]!.map((r) => r.fields.lookupId)).toEqual(['IX-1']);
    expect(fromIndex[6]).toHaveLength(25);
    expect(fromIndex[7]).toHaveLength(NAMESAKES);
    // by city alone: no blocking key, so the destination answers it
    expect(index.searchMany([{ criteria: [{ field: 'city', value: 'San Francisco' }] }])).toEqual([null]);
  });

  it('follows constituents created, changed and deleted after it was loaded', async () => {
    await candidateIndexOf(end());
    const [created, changed] = await crm.upsert(ctx, 'constituents', [
      { idempotencyKey: 'ix-new', fields: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.org' } },
      { idempotencyKey: 'ix-change', id: (await crm.searchMany!(ctx, 'constituents', [queries[0]!]))[0]![0]!.id, fields: { email: 'maria.new@example.org' } },
    ]);
    expect([created!.outcome, changed!.outcome]).toEqual(['created', 'updated']);
    const byEmail = (value: string): SearchQuery => ({ criteria: [{ field: 'email', value }] });
    let index = (await candidateIndexOf(end()))!;
    expect(index.searchMany([byEmail('ada@example.org'), byEmail('maria.new@example.org'), byEmail('maria.g@example.org')]).map((a) => a!.map((r) => r.id)))
      .toEqual([[created!.id], [changed!.id], []]);

    await database.pool.query("delete from sandbox_constituents where lookup_id = 'IX-2'");
    index = (await candidateIndexOf(end()))!;
    expect(index.searchMany([{ criteria: [{ field: 'lookupId', value: 'IX-2' }] }])).toEqual([[]]);
    expect(index.searchMany([queries[2]!])[0]!.map((r) => r.fields.firstName)).toEqual(['Maria']);
  });

  it(`leaves a key shared by more than ${BLOCK_CAP} constituents out of blocking`, async () => {
    const index = (await candidateIndexOf(end()))!;
    // the name and ZIP are shared by every namesake: only the e-mail, which one holds, brings a candidate
    const found = index.block({ firstName: 'John', lastName: 'Smith', postalCode: '60601', email: 'john.smith7@example.org' });
    expect(found.map((r) => r.fields.lookupId)).toEqual(['IX-S7']);
    expect(index.block({ firstName: 'John', lastName: 'Smith', postalCode: '60601' })).toEqual([]);
  });

  it('brings a constituent whose first and last name came swapped', async () => {
    const index = (await candidateIndexOf(end()))!;
    const found = index.block({ firstName: 'Lovelace', lastName: 'Ada' });
    expect(found.map((r) => [r.fields.firstName, r.fields.lastName])).toEqual([['Ada', 'Lovelace']]);
  });
});
