/**
 * Financial Edge NXT through the connector kit, against the local General Ledger API fake
 * (tests/support/vendors/fenxt.ts, on the fake SKY API host): our requests as the General Ledger
 * API documents them (contract), its documented answers parsed, a 429 in the middle of a pull, an
 * access token refused early and refreshed, and journal entry batches written balanced, once a
 * run, never doubled.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import type { ConnectorContext, PullBatch, UpsertItem } from '../../server/connectors/connector.ts';
import { sealColumns } from '../../server/connectors/dataSources.ts';
import { fenxtConnector, markOf } from '../../server/connectors/skyApi/fenxt.ts';
import { createSecretBox } from '../../server/connectors/secrets.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { DEMO_TENANTS, seedDemo } from '../../server/db/seed.ts';
import { forTenant, type TenantScope } from '../../server/db/tenancy.ts';
import { createTestDatabase } from '../support/database.ts';
import { withVendorFake, type VendorFakeSetup } from '../support/vendors/harness.ts';
import { startFakeFenxt, type FakeFenxt } from '../support/vendors/fenxt.ts';
import { SKY_APP } from '../support/vendors/skyApi.ts';
import { contextFor, pullAll } from '../support/connectorContext.ts';

let scratch: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
let tenant: TenantScope;
let fe: FakeFenxt;
const box = createSecretBox(Buffer.alloc(32, 9));
let vendor: VendorFakeSetup<FakeFenxt>;

beforeAll(async () => {
  [scratch, vendor] = await Promise.all([createTestDatabase(), withVendorFake('fenxt', startFakeFenxt)]);
  fe = vendor.fake;
  database = await openDatabase(scratch.url);
  await seedDemo(database.db, seedSandboxCrm);
  const { rows } = await database.pool.query<{ id: string }>('select id from tenants where name = $1', [DEMO_TENANTS[0]]);
  tenant = forTenant(database.db, rows[0]!.id);
}, 60_000);
afterAll(async () => {
  await database?.close();
  await scratch?.drop();
  await vendor?.close();
});

async function dataSource(): Promise<string> {
  const id = crypto.randomUUID();
  await tenant.dataSources.insert({
    id, system: 'fenxt', displayName: `FE NXT ${id.slice(0, 8)}`, settings: { clientId: SKY_APP.clientId },
    ...sealColumns(box, tenant.tenantId, id, { clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: fe.grant() }),
  });
  return id;
}

const SETTINGS = { journal: 'Cash Receipts', debitAccount: '01-1000-00', creditAccount: '01-4100-00', batchDescriptionPrefix: 'Gifts' };

/** The context the engine builds for a formula's end: one for the whole of a run. */
const ctxFor = (id: string, endSettings: Record<string, string> = SETTINGS) => contextFor(tenant, box, id, endSettings);

const all = pullAll;

const apiCalls = () => fe.seen.filter((s) => s.path !== '/token');
const writes = () => apiCalls().filter((c) => c.method !== 'GET').map((c) => `${c.method} ${c.path.replace(/\/\d+\//, '/:id/')}`);
let ds: string;
beforeEach(async () => {
  fe.seen.length = 0;
  ds = await dataSource();
});

const gift = (n: string, fields: Record<string, unknown>): UpsertItem => ({ idempotencyKey: `k-${ds}-${n}`, fields });

describe('the connection test', () => {
  it('exchanges the refresh token with the application\'s credentials, reads the general ledger once, and names the environment', async () => {
    await expect(fenxtConnector.test(await ctxFor(ds))).resolves.toMatchObject({ detail: 'Signed in to Financial Edge NXT (Riverside Production).' });
    const token = fe.seen.find((s) => s.path === '/token')!;
    expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${SKY_APP.clientId}:${SKY_APP.clientSecret}`).toString('base64')}`);
    expect(apiCalls().map((c) => [c.method, c.path, c.query])).toEqual([['GET', '/generalledger/v1/accounts', { limit: '1' }]]);
    expect(apiCalls()[0]!.headers['bb-api-subscription-key']).toBe(SKY_APP.subscriptionKey);
  });

  it('refuses a wrong subscription key, and a refresh token Blackbaud does not accept, in words', async () => {
    const ctx = await ctxFor(ds);
    await expect(fenxtConnector.test({ ...ctx, settings: { ...ctx.settings, subscriptionKey: 'nope' } })).rejects.toThrow('Financial Edge NXT refused the access token (HTTP 401).');
    const unsaved = { clientId: SKY_APP.clientId, clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: 'nope' };
    await expect(fenxtConnector.test({ tenant, settings: unsaved, dataDir: '/tmp' })).rejects.toThrow("Financial Edge NXT no longer accepts this connection's sign-in");
  });
});

describe('as a source', () => {
  it('pulls accounts page by page through next_link (at most 500 a page), then only those changed since the watermark', async () => {
    const ctx = await ctxFor(ds);
    const batches = await all(fenxtConnector.pull(ctx, 'accounts', null, { batchSize: 2 }));
    const records = batches.flatMap((b) => b.records);
    expect(records).toHaveLength(fe.gl.accounts.length);
    expect(records.find((r) => r.id === '105')!.fields).toEqual({
      id: '105', accountNumber: '01-1999-00', description: 'Total Assets (heading)', class: 'Unrestricted Net Assets', cashflow: 'Operating',
      workingCapital: 'Current', preventDataEntry: true, preventPosting: false, dateAdded: '2024-07-01T12:00:00Z', dateModified: '2025-07-01T12:00:05Z',
    });
    const lists = apiCalls().filter((c) => c.path === '/generalledger/v1/accounts');
    expect(lists.map((c) => [c.query.limit, c.query.offset])).toEqual([['2', '0'], ['2', '2'], ['2', '4']]);
    const watermark = batches.at(-1)!.watermark!;
    const added = fe.gl.addAccount({ account_number: '01-4300-00', description: 'Contributions - Events' });
    fe.seen.length = 0;
    const again = (await all(fenxtConnector.pull(ctx, 'accounts', watermark, { batchSize: 1000 }))).flatMap((b) => b.records);
    // on or after the latest change seen: that one account comes again (the engine keeps one record a source key), then the new one
    expect(again.map((r) => r.fields.accountNumber)).toEqual(['01-1999-00', '01-4300-00']);
    // the General Ledger API pages at most 500; the filter is its last_modified
    expect(apiCalls()[0]!.query).toEqual({ limit: '500', offset: '0', last_modified: '2025-07-01T12:00:05Z' });
    expect(added.account_id).toBeGreaterThan(0);
  });

  it('pulls journal entries with their batch, account, post date, journal and amount; a 429 in the middle is waited for', async () => {
    const posted = fe.gl.addBatch('Payroll', [
      { type_code: 'Debit', account_number: '01-4200-00', post_date: '2026-10-31', amount: 1250.5, reference: 'PR-10' },
      { type_code: 'Credit', account_number: '01-1000-00', post_date: '2026-10-31', amount: 1250.5, reference: 'PR-10' },
      { type_code: 'Debit', account_number: '01-4200-00', post_date: '2026-11-15', amount: 80, reference: 'PR-11' },
    ]);
    const ctx = await ctxFor(ds);
    const pages: PullBatch[] = [];
    for await (const page of fenxtConnector.pull(ctx, 'journalentries', null, { batchSize: 2 })) {
      pages.push(page);
      if (pages.length === 1) fe.throttle(1, 1);
    }
    const records = pages.flatMap((p) => p.records).filter((r) => r.fields.batchId === String(posted.batch_id));
    expect(records).toHaveLength(3);
    expect(records[0]!.fields).toMatchObject({
      batchNumber: posted.ui_batch_id, type: 'Debit', accountNumber: '01-4200-00', postDate: '2026-10-31', journal: 'General Journal', reference: 'PR-10', amount: 1250.5, encumbrance: 'Regular',
    });
    const lists = apiCalls().filter((c) => c.path === '/generalledger/v1/journalentries');
    // the second page was asked twice: the 429, then again after its Retry-After
    expect(lists.map((c) => c.query.offset)).toEqual(['0', '2', '2']);
  });

  it('an access token refused before its time is refreshed once, and the pull goes on', async () => {
    const ctx = await ctxFor(ds);
    const before = fe.refreshes();
    const pages: PullBatch[] = [];
    for await (const page of fenxtConnector.pull(ctx, 'accounts', null, { batchSize: 2 })) {
      pages.push(page);
      if (pages.length === 1) fe.expireTokens();
    }
    expect(pages.flatMap((p) => p.records).length).toBe(fe.gl.accounts.length);
    expect(fe.refreshes() - before).toBe(2);
    const second = apiCalls().filter((c) => c.query.offset === '2');
    expect(second.map((c) => c.headers.authorization)).toHaveLength(2);
    expect(second[0]!.headers.authorization).not.toBe(second[1]!.headers.authorization);
  });

  it('describes each object\'s fields for the wizard, and lists the objects it reads and writes', async () => {
    const ctx = await ctxFor(ds);
    expect((await fenxtConnector.listObjects(ctx)).map((o) => o.name)).toEqual(['journalentrybatches', 'journalentries', 'accounts']);
    const batchFields = await fenxtConnector.describeFields(ctx, 'journalentrybatches');
    expect(batchFields.filter((f) => f.required).map((f) => f.name)).toEqual(['amount', 'date']);
    expect(batchFields.find((f) => f.name === 'batchId')).toMatchObject({ readOnly: true });
    expect((await fenxtConnector.describeFields(ctx, 'accounts')).map((f) => f.name)).toContain('accountNumber');
    await expect(fenxtConnector.describeFields(ctx, 'vendors')).rejects.toThrow(/vendors is not one of them yet/);
  });
});

describe('as a destination', () => {
  it('lands a run\'s gifts as one balanced batch in the configured journal, each a debit and a credit of its amount, the batch on each record', async () => {
    const ctx = await ctxFor(ds);
    const first = await fenxtConnector.upsert(ctx, 'journalentrybatches', [
      gift('a', { amount: '125.00', date: '2026-11-02', reference: 'Gift 1', notes: 'Ada' }),
      gift('b', { amount: 40, date: '2026-11-03', creditAccount: '02-4100-00' }),
    ]);
    // the run's next send batch: the same batch
    const second = await fenxtConnector.upsert(ctx, 'journalentrybatches', [gift('c', { amount: 10.5, date: '2026-11-04' })]);
    const results = [...first, ...second];
    expect(results.map((r) => r.outcome)).toEqual(['created', 'created', 'created']);
    const batchIds = new Set(results.map((r) => r.id));
    expect(batchIds.size).toBe(1);
    // each record names its batch by the number Financial Edge NXT shows (its Batch ID)
    const batch = fe.gl.batch(results[0]!.id);
    expect(batch.ui_batch_id).not.toBe(String(batch.batch_id));
    expect(batch).toMatchObject({ batch_status: 'Open', source_system_name: 'Tributary' });
    expect(batch.description).toMatch(/^Gifts \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(fe.gl.totals(batch.batch_id)).toEqual({ debits: 175.5, credits: 175.5 });
    expect(writes()).toEqual(['POST /generalledger/v1/journalentrybatches', ...Array(6).fill('POST /generalledger/v1/journalentrybatches/:id/journalentries')]);
    expect(apiCalls().filter((c) => c.path.endsWith('/summary')).map((c) => c.path)).toEqual([`/generalledger/v1/journalentrybatches/${batch.batch_id}/summary`]);
    const posts = apiCalls().filter((c) => c.method === 'POST');
    expect(posts[0]!.body).toEqual({ description: batch.description, batch_status: 'Open', create_interfund_sets: false, create_bank_account_adjustments: false, source_system_name: 'Tributary' });
    expect(posts.slice(1, 3).map((c) => c.body)).toEqual([
      { type_code: 'Debit', account_number: '01-1000-00', post_date: '2026-11-02', encumbrance: 'Regular', journal: 'Cash Receipts', reference: 'Gift 1', amount: 125, notes: `Ada ${markOf(`k-${ds}-a`)}` },
      { type_code: 'Credit', account_number: '01-4100-00', post_date: '2026-11-02', encumbrance: 'Regular', journal: 'Cash Receipts', reference: 'Gift 1', amount: 125, notes: `Ada ${markOf(`k-${ds}-a`)}` },
    ]);
    expect(fe.gl.entries.filter((e) => e.batch_id === batch.batch_id && e.amount === 40).map((e) => [e.type_code, e.account_number])).toEqual([['Debit', '01-1000-00'], ['Credit', '02-4100-00']]);
    // the journal codes and the chart of accounts are read once a run
    expect(apiCalls().filter((c) => c.path === '/generalledger/v1/journalcodes')).toHaveLength(1);
    expect(apiCalls().filter((c) => c.path === '/generalledger/v1/accounts')).toHaveLength(1);

    // the same keys again (a retry, another run): answered from the ledger, nothing written
    fe.seen.length = 0;
    const again = await fenxtConnector.upsert(await ctxFor(ds), 'journalentrybatches', [gift('a', { amount: 125, date: '2026-11-02' }), gift('c', { amount: 10.5, date: '2026-11-04' })]);
    expect(again).toEqual([expect.objectContaining({ id: batch.ui_batch_id, replayed: true }), expect.objectContaining({ id: batch.ui_batch_id, replayed: true })]);
    expect(writes()).toEqual([]);
    // a new run writes into a new batch
    const next = await fenxtConnector.upsert(await ctxFor(ds), 'journalentrybatches', [gift('d', { amount: 5, date: '2026-11-05' })]);
    expect(next[0]!.id).not.toBe(results[0]!.id);
  });

  it('a run\'s next job (a new context for the same run) writes into the run\'s batch; a batch made just before a crash is found by its tag', async () => {
    const runId = crypto.randomUUID();
    const [a] = await fenxtConnector.upsert({ ...(await ctxFor(ds)), runId }, 'journalentrybatches', [gift('job1', { amount: 12, date: '2026-11-02' })]);
    const [b] = await fenxtConnector.upsert({ ...(await ctxFor(ds)), runId }, 'journalentrybatches', [gift('job2', { amount: 13, date: '2026-11-02' })]);
    expect(b!.id).toBe(a!.id);
    const batch = fe.gl.batch(a!.id);
    expect(batch.description).toMatch(/^Gifts \d{4}-\d\d-\d\d \d\d:\d\d #[0-9a-f]{8}$/);
    expect(fe.gl.totals(batch.batch_id)).toEqual({ debits: 25, credits: 25 });
    expect(writes().filter((w) => w === 'POST /generalledger/v1/journalentrybatches')).toHaveLength(1);

    // another run: its batch was made, and the worker died before the ledger heard of it
    const crashed = crypto.randomUUID();
    await tenant.vendorState.beginWrite(ds, 'journalentrybatches:runs', crashed);
    const first = await fenxtConnector.upsert({ ...(await ctxFor(ds)), runId: crypto.randomUUID() }, 'journalentrybatches', [gift('other', { amount: 1, date: '2026-11-02' })]);
    const made = fe.gl.batch(first[0]!.id);
    const tag = createHash('sha256').update(crashed).digest('hex').slice(0, 8);
    made.description = `Gifts 2026-11-28 06:00 #${tag}`;
    const batches = fe.gl.batches.size;
    const [c] = await fenxtConnector.upsert({ ...(await ctxFor(ds)), runId: crashed }, 'journalentrybatches', [gift('after', { amount: 2, date: '2026-11-02' })]);
    expect(c!.id).toBe(made.ui_batch_id);
    expect(fe.gl.batches.size).toBe(batches);
  });

  it('a gift it cannot enter fails alone, in words, with nothing written for it; Financial Edge NXT\'s own refusal is shown in its words', async () => {
    const results = await fenxtConnector.upsert(await ctxFor(ds), 'journalentrybatches', [
      gift('unknown', { amount: 10, date: '2026-11-02', debitAccount: '09-9999-00' }),
      gift('heading', { amount: 10, date: '2026-11-02', creditAccount: '01-1999-00' }),
      gift('zero', { amount: '0', date: '2026-11-02' }),
      gift('nodate', { amount: 10 }),
      gift('feb30', { amount: 10, date: '2026-02-30' }),
      gift('closed', { amount: 30, date: '2025-12-31' }),
      gift('good', { amount: 20, date: '2026-11-02' }),
    ]);
    expect(results.map((r) => r.error ?? r.outcome)).toEqual([
      'No account 09-9999-00 in Financial Edge NXT.',
      'Account 01-1999-00 does not take data entry in Financial Edge NXT.',
      "The amount must be a number greater than zero (it is '0').",
      'The post date is missing or not a date.',
      'The post date is missing or not a date.',
      'Financial Edge NXT refused the gift: The post date 2025-12-31 is in a closed fiscal period.',
      'created',
    ]);
    const batchId = fe.gl.batch(results.at(-1)!.id).batch_id;
    expect(fe.gl.entries.filter((e) => e.batch_id === batchId).map((e) => e.amount)).toEqual([20, 20]);
    // the refused ones' keys stay free for a later try
    expect([...(await tenant.vendorState.writes(ds, 'journalentrybatches', results.slice(0, 6).map((r) => r.idempotencyKey))).keys()]).toEqual([]);
    const noDefaults = await fenxtConnector.upsert(await ctxFor(ds, { journal: 'CR' }), 'journalentrybatches', [gift('nodebit', { amount: 10, date: '2026-11-02' })]);
    expect(noDefaults[0]!.error).toBe("No debit account: map one, or set a default debit account in the formula's destination settings.");
  });

  it('a credit refused after its debit went in: the debit is reversed, so the batch stays balanced', async () => {
    fe.gl.refuseEntries((e) => e.type_code === 'Credit' && e.amount === 77, 'Account 01-4100-00 requires a project.');
    const results = await fenxtConnector.upsert(await ctxFor(ds), 'journalentrybatches', [gift('half', { amount: 77, date: '2026-11-02' }), gift('whole', { amount: 3, date: '2026-11-02' })]);
    expect(results.map((r) => r.error ?? r.outcome)).toEqual(['Financial Edge NXT refused the gift: Account 01-4100-00 requires a project.', 'created']);
    expect(fe.gl.totals(fe.gl.batch(results[1]!.id).batch_id)).toEqual({ debits: 80, credits: 80 });
  });

  it('after a crash between Financial Edge NXT\'s answer and our record, a retry finds the gift in Tributary\'s batch and adds only its missing half', async () => {
    const ctx = await ctxFor(ds);
    const [made] = await fenxtConnector.upsert(ctx, 'journalentrybatches', [gift('first', { amount: 15, date: '2026-11-02' })]);
    const batchId = fe.gl.batch(made!.id).batch_id;
    // the first try recorded the key as under way, its debit went in, and the worker died
    const key = `k-${ds}-crash`;
    await tenant.vendorState.beginWrite(ds, 'journalentrybatches', key);
    fe.gl.entries.push({ ...fe.gl.entries.find((e) => e.batch_id === batchId && e.type_code === 'Debit')!, journal_entry_id: 99_001, amount: 60, notes: markOf(key) });
    const batches = fe.gl.batches.size;
    fe.seen.length = 0;
    const [retry] = await fenxtConnector.upsert(await ctxFor(ds), 'journalentrybatches', [{ idempotencyKey: key, fields: { amount: 60, date: '2026-11-02' } }]);
    expect(retry).toMatchObject({ id: made!.id, outcome: 'created', replayed: true });
    expect(fe.gl.batches.size).toBe(batches);
    expect(fe.gl.totals(batchId)).toEqual({ debits: 75, credits: 75 });
    expect(apiCalls().find((c) => c.path === '/generalledger/v1/journalentrybatches')!.query).toMatchObject({ status: 'Open', search_text: 'Gifts' });
    expect((await tenant.vendorState.writes(ds, 'journalentrybatches', [key])).get(key)).toBe(made!.id);
  });

  it('a batch Financial Edge NXT refuses fails every gift of the run with its words, asked once', async () => {
    const long = { ...SETTINGS, batchDescriptionPrefix: 'Gifts received through the spring appeal of the Riverside Food Bank' };
    const ctx = await ctxFor(ds, long);
    const results = [
      ...await fenxtConnector.upsert(ctx, 'journalentrybatches', [gift('r1', { amount: 5, date: '2026-11-02' }), gift('r2', { amount: 6, date: '2026-11-02' })]),
      ...await fenxtConnector.upsert(ctx, 'journalentrybatches', [gift('r3', { amount: 7, date: '2026-11-02' })]),
    ];
    expect(new Set(results.map((r) => r.error))).toEqual(new Set(['Financial Edge NXT refused the gift: Description cannot exceed 60 characters.']));
    expect(writes()).toEqual(['POST /generalledger/v1/journalentrybatches']);
    const unknown = await fenxtConnector.upsert(await ctxFor(ds, { ...SETTINGS, journal: 'Petty Cash' }), 'journalentrybatches', [gift('j', { amount: 5, date: '2026-11-02' })]);
    expect(unknown[0]!.error).toBe("No journal named 'Petty Cash' in Financial Edge NXT.");
  });
});
