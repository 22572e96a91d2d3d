/**
 * The record tallies (migration 0010, server/db/repositories/recordTallies.ts): every count of
 * records is read from them, so they must always equal counting the records themselves, whatever
 * statements changed the records (batches, upserts, moves, deletes, rolled-back transactions,
 * deleted formulas), before and after the sweep folds them; writers must never wait on one
 * another for a counter; and a change of counts is announced to the status stream.
 */
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldRecordTallies, recordGroups } from '../../server/db/repositories/recordTallies.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let client: pg.Client;
let tenantId: string;
let otherTenantId: string;

const BUCKETS = ['new', 'one-to-one-match', 'one-to-many-match', 'exception', 'validation-exception'] as const;
const STATES = ['needs-attention', 'ready', 'sent', 'omitted'] as const;

async function newFormula(tenant = tenantId, name = 'Tallied'): Promise<string> {
  return (await forTenant(server.database.db, tenant).formulas.create({ name })).id;
}

/** What the tallies must say: the records counted. */
async function counted(formulaId: string) {
  const { rows } = await client.query<{ bucket: string; custom_bucket: string | null; state: string; count: number }>(
    `select bucket, custom_bucket, state, count(*)::int as count from records where formula_id = $1 group by 1, 2, 3`, [formulaId]);
  return sortGroups(rows.map((r) => ({ bucket: r.bucket, customBucket: r.custom_bucket, state: r.state, count: r.count })));
}
async function tallied(formulaId: string, tenant = tenantId) {
  return sortGroups((await recordGroups(server.database.db, tenant, formulaId)).map(({ formulaId: _, ...g }) => g));
}
const sortGroups = <T extends { bucket: string; customBucket: string | null; state: string }>(groups: T[]) =>
  [...groups].sort((a, b) => `${a.bucket}|${a.customBucket}|${a.state}`.localeCompare(`${b.bucket}|${b.customBucket}|${b.state}`));

async function insert(formulaId: string, keys: string[], bucket: string, state: string, customBucket: string | null = null, db: pg.ClientBase = client) {
  await db.query(`
    insert into records (tenant_id, formula_id, source_key, bucket, custom_bucket, state, raw, idempotency_key)
    select $1, $2, k, $3, $4, $5, '{}'::jsonb, k from unnest($6::text[]) as k
    on conflict (formula_id, source_key) do update set bucket = excluded.bucket, custom_bucket = excluded.custom_bucket, state = excluded.state`,
  [tenantId, formulaId, bucket, customBucket, state, keys]);
}

beforeAll(async () => {
  server = await startTestServer();
  client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ id: string }>('select id from tenants order by name');
  tenantId = rows[0]!.id;
  otherTenantId = rows[1]!.id;
}, 120_000);
afterAll(async () => {
  await client?.end();
  await server?.close();
});

/** One change to a formula's records, as the engine, a reviewer or a clear makes them. */
const change = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), keys: fc.uniqueArray(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 15 }),
    bucket: fc.constantFrom(...BUCKETS), state: fc.constantFrom(...STATES), custom: fc.constantFrom(null, 'Bad e-mail', 'No name') }),
  fc.record({ op: fc.constant('move' as const), from: fc.constantFrom(...STATES), to: fc.constantFrom(...STATES), bucket: fc.option(fc.constantFrom(...BUCKETS)) }),
  fc.record({ op: fc.constant('touch' as const), state: fc.constantFrom(...STATES) }),
  fc.record({ op: fc.constant('delete' as const), below: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ op: fc.constant('rolledBack' as const), state: fc.constantFrom(...STATES) }),
  fc.record({ op: fc.constant('fold' as const) }),
);

type Change = typeof change extends fc.Arbitrary<infer T> ? T : never;
async function applyOne(formulaId: string, c: Change): Promise<void> {
  switch (c.op) {
    case 'insert':
      await insert(formulaId, c.keys.map((k) => `k${k}`), c.bucket, c.state, c.bucket === 'validation-exception' ? c.custom : null);
      return;
    case 'move':
      await client.query(`update records set state = $2, bucket = coalesce($3, bucket),
        custom_bucket = case when $3::text is null then custom_bucket end where formula_id = $1 and state = $4`, [formulaId, c.to, c.bucket, c.from]);
      return;
    case 'touch':
      // a change of other columns only: no count moves
      await client.query(`update records set error_reason = 'seen' where formula_id = $1 and state = $2`, [formulaId, c.state]);
      return;
    case 'delete':
      await client.query(`delete from records where formula_id = $1 and substr(source_key, 2)::int < $2`, [formulaId, c.below]);
      return;
    case 'rolledBack':
      await client.query('begin');
      await client.query(`update records set state = $2 where formula_id = $1`, [formulaId, c.state]);
      await insert(formulaId, ['rb1', 'rb2'], 'new', c.state);
      await client.query('rollback');
      return;
    case 'fold':
      await foldRecordTallies(server.database.db);
  }
}

describe('record tallies', () => {
  it('always equal counting the records, whatever changed them, folded or not', async () => {
    await fc.assert(fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 12 }), async (changes) => {
      const formulaId = await newFormula();
      for (const c of changes) {
        await applyOne(formulaId, c);
        expect(await tallied(formulaId), JSON.stringify(c)).toEqual(await counted(formulaId));
      }
      await foldRecordTallies(server.database.db);
      expect(await tallied(formulaId)).toEqual(await counted(formulaId));
      // folded: one row per group that holds records
      const { rows } = await client.query<{ n: number }>('select count(*)::int as n from record_tallies where formula_id = $1', [formulaId]);
      expect(rows[0]!.n).toBeLessThanOrEqual(Math.max((await counted(formulaId)).length, 16));
    }), { numRuns: 25 });
  }, 120_000);

  it('folds many batches into one row per group, and drops the rows of a deleted formula', async () => {
    const formulaId = await newFormula();
    for (let i = 0; i < 40; i++) await insert(formulaId, [`b${i}`], i % 2 ? 'new' : 'exception', 'needs-attention');
    const before = await tallied(formulaId);
    expect(before).toEqual([
      { bucket: 'exception', customBucket: null, state: 'needs-attention', count: 20 },
      { bucket: 'new', customBucket: null, state: 'needs-attention', count: 20 },
    ]);
    const rowsOf = async (id: string) => (await client.query<{ n: number }>('select count(*)::int as n from record_tallies where formula_id = $1', [id])).rows[0]!.n;
    expect(await rowsOf(formulaId)).toBe(40);
    const swept = await foldRecordTallies(server.database.db);
    expect(swept.folded).toBeGreaterThanOrEqual(38);
    expect(await rowsOf(formulaId)).toBe(2);
    expect(await tallied(formulaId)).toEqual(before);

    expect(await forTenant(server.database.db, tenantId).formulas.remove(formulaId)).toBe(true);
    expect(await tallied(formulaId)).toEqual([]);
    await foldRecordTallies(server.database.db);
    expect(await rowsOf(formulaId)).toBe(0);
  });

  it('are read per tenant: another tenant never sees a formula\'s counts', async () => {
    const formulaId = await newFormula();
    await insert(formulaId, ['t1', 't2'], 'new', 'ready');
    expect(await tallied(formulaId)).toEqual([{ bucket: 'new', customBucket: null, state: 'ready', count: 2 }]);
    expect(await tallied(formulaId, otherTenantId)).toEqual([]);
    expect((await recordGroups(server.database.db, otherTenantId)).some((g) => g.formulaId === formulaId)).toBe(false);
  });

  it('never make two writers of one formula wait for each other', async () => {
    const formulaId = await newFormula();
    const a = new pg.Client({ connectionString: server.databaseUrl });
    const b = new pg.Client({ connectionString: server.databaseUrl });
    await a.connect();
    await b.connect();
    try {
      await a.query('begin');
      await insert(formulaId, ['a1', 'a2'], 'new', 'needs-attention', null, a);
      // while a's batch is open, b's batch of the same formula and the same group commits at once
      await b.query("set statement_timeout = '3s'");
      await b.query('begin');
      await insert(formulaId, ['b1'], 'new', 'needs-attention', null, b);
      await b.query('commit');
      expect(await tallied(formulaId)).toEqual([{ bucket: 'new', customBucket: null, state: 'needs-attention', count: 1 }]);
      await a.query('commit');
      expect(await tallied(formulaId)).toEqual([{ bucket: 'new', customBucket: null, state: 'needs-attention', count: 3 }]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it('announce a change of counts on the status channel, once per formula and transaction, and nothing when no count moved', async () => {
    const formulaId = await newFormula();
    await insert(formulaId, ['n1', 'n2', 'n3'], 'new', 'needs-attention');
    const listener = new pg.Client({ connectionString: server.databaseUrl });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => { if (m.channel === 'formula_status') heard.push(m.payload ?? ''); });
    await listener.query('listen formula_status');
    try {
      await client.query('begin');
      await client.query(`update records set state = 'ready' where formula_id = $1 and source_key = 'n1'`, [formulaId]);
      await client.query(`update records set state = 'ready' where formula_id = $1 and source_key = 'n2'`, [formulaId]);
      await client.query('commit');
      await expect.poll(() => heard).toEqual([`${tenantId}:${formulaId}`]);
      await client.query(`update records set error_reason = 'looked at' where formula_id = $1`, [formulaId]);
      await client.query(`select pg_notify('formula_status', 'marker')`);
      await expect.poll(() => heard.at(-1)).toBe('marker');
      expect(heard).toEqual([`${tenantId}:${formulaId}`, 'marker']);
    } finally {
      await listener.end();
    }
  });
});
