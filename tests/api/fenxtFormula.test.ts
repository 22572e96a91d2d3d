/**
 * A whole formula into Financial Edge NXT through the API, with real workers on real PostgreSQL
 * and the local General Ledger API fake: a file of gifts is uploaded to a file-upload formula,
 * collected, and sent as one balanced journal entry batch a run in the configured journal, the
 * batch on each record; a gift Financial Edge NXT refuses, and every gift of a batch it refuses,
 * land in Exceptions with its words.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunView } from '../../src/domain/api/formulas.ts';
import { call } from '../support/api.ts';
import { tenantSession, type TenantSession } from '../support/engineRun.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { startFakeFenxt, type FakeFenxt } from '../support/vendors/fenxt.ts';
import { SKY_APP } from '../support/vendors/skyApi.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let fe: FakeFenxt;
let admin: TenantSession;
let fenxt: string;
let vendor: VendorFakeWithServer<FakeFenxt>;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;

const SETTINGS = { journal: 'Cash Receipts', debitAccount: '01-1000-00', creditAccount: '01-4100-00', batchDescriptionPrefix: 'Spring gifts' };
const HEADER = ['Donor', 'Amount', 'Date', 'Reference'];

async function upload(rows: string[][], formulaId?: string): Promise<string> {
  const form = new FormData();
  form.append('file', new File([rows.map((r) => r.join(',')).join('\n')], `gifts-${Math.random().toString(36).slice(2, 8)}.csv`, { type: 'text/csv' }));
  const res = await fetch(`${server.url}/flat-file-service/v1/uploads${formulaId ? `?formulaId=${formulaId}` : ''}`, { method: 'POST', headers: admin.headers, body: form });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

/** A live file-upload formula of gifts into Financial Edge NXT, made as the wizard makes it: from an uploaded file. */
async function giftsFormula(settings: Record<string, string> = SETTINGS): Promise<string> {
  const sample = await upload([HEADER, ['Ada Lovelace', '10.00', '2026-11-02', 'S-1']]);
  const made = await send(`${F}/from-upload`, { method: 'POST', body: { uploadId: sample } });
  expect(made.status, await made.clone().text()).toBe(201);
  const { id } = await json<{ id: string }>(made);
  const patched = await send(`${F}/${id}`, { method: 'PATCH', body: { destination: { dataSourceId: fenxt, object: 'journalentrybatches', settings } } });
  expect(patched.status, await patched.clone().text()).toBe(200);
  const parts = {
    mapping: { fields: [
      { destination: 'amount', kind: 'source', source: 'Amount' }, { destination: 'date', kind: 'source', source: 'Date' },
      { destination: 'reference', kind: 'source', source: 'Reference' }, { destination: 'notes', kind: 'source', source: 'Donor' },
    ] },
    transform: { fields: [] },
    validation: { rules: [] },
    'summary-fields': { fields: ['reference', 'amount', 'date'] },
    matching: { scenarios: [{ name: 'Same reference', criteria: [{ source: 'Reference', destination: 'reference' }], matchReason: 'Same reference', isPrimary: true }], advanced: false, autoPick: [] },
    routing: { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
    autosend: { enabled: true },
  };
  for (const [part, body] of Object.entries(parts)) {
    const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  const live = await send(`${F}/${id}/activate`, { method: 'POST' });
  expect(live.status, await live.clone().text()).toBe(200);
  return id;
}

/** Uploads a file to the formula and waits for the run that collects it. */
async function runOf(formulaId: string, rows: string[][]): Promise<RunView> {
  const uploadId = await upload(rows, formulaId);
  for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const { runs } = await json<{ runs: RunView[] }>(await send(`${F}/${formulaId}/runs`));
    const run = runs.find((r) => r.params.uploadId === uploadId);
    if (run?.finishedOn) return run;
  }
  throw new Error(`the run of upload ${uploadId} did not finish`);
}

/** A bucket screen's rows, as the Exceptions and Sent screens ask for them. */
async function view(formulaId: string, name: 'exception' | 'sent'): Promise<{ recordId: string | null; errorReason: string | null }[]> {
  const res = await send(`/web-api/v1/records/${formulaId}/query`, { method: 'POST', body: { scope: { view: name } } });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await json<{ records: { recordId: string | null; errorReason: string | null }[] }>(res)).records;
}

const recordsOf = async (formulaId: string) => (await server.database.pool.query<{ state: string; bucket: string; destination_record_id: string | null; error_reason: string | null; reference: string }>(
  "select state, bucket, destination_record_id, error_reason, transformed->>'reference' as reference from records where formula_id = $1 order by transformed->>'reference'", [formulaId])).rows;

beforeAll(async () => {
  vendor = await withVendorFake('fenxt', startFakeFenxt, { server: { work: true, env: { RUN_SLICE_MS: '100000' } } });
  ({ fake: fe, server } = vendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const made = await send(DS, {
    method: 'POST',
    body: { system: 'fenxt', displayName: 'Riverside FE NXT', settings: { clientId: SKY_APP.clientId, clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: fe.grant() } },
  });
  expect(made.status, await made.clone().text()).toBe(201);
  fenxt = (await json<{ id: string }>(made)).id;
}, 120_000);
afterAll(async () => {
  await vendor?.close();
});

describe('the wizard\'s calls for a Financial Edge NXT data source', () => {
  it('test the connection, list its objects, describe their fields and offer the destination settings of a batch', async () => {
    const tested = await json<{ status: string; detail: string }>(await send(`${DS}/${fenxt}/test`, { method: 'POST' }));
    expect(tested).toMatchObject({ status: 'success', detail: 'Signed in to Financial Edge NXT (Riverside Production).' });
    const { objects } = await json<{ objects: { name: string }[] }>(await send(`${DS}/${fenxt}/objects`));
    expect(objects.map((o) => o.name)).toEqual(['journalentrybatches', 'journalentries', 'accounts']);
    const { fields } = await json<{ fields: { name: string; required?: boolean }[] }>(await send(`${DS}/${fenxt}/objects/journalentrybatches/fields`));
    expect(fields.filter((f) => f.required).map((f) => f.name)).toEqual(['amount', 'date']);
    const systems = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.systems.find((x) => x.system === 'fenxt')?.does).toBe('source and destination');
  });
});

describe('a file of gifts into Financial Edge NXT', () => {
  let formula: string;

  it('lands as one balanced batch in the configured journal, the batch\'s number on each record; a gift it refuses is in Exceptions with its words', async () => {
    formula = await giftsFormula();
    const batches = fe.gl.batches.size;
    const done = await runOf(formula, [
      HEADER,
      ['Ada Lovelace', '125.00', '2026-11-02', 'S-101'],
      ['Grace Hopper', '40', '2026-11-03', 'S-102'],
      ['Katherine Johnson', '30', '2025-12-31', 'S-103'],
    ]);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 2, refused: 1 });
    expect(fe.gl.batches.size - batches).toBe(1);
    const batch = [...fe.gl.batches.values()].at(-1)!;
    expect(batch.description).toMatch(/^Spring gifts \d{4}-\d\d-\d\d \d\d:\d\d #[0-9a-f]{8}$/);
    expect(fe.gl.totals(batch.batch_id)).toEqual({ debits: 165, credits: 165 });
    expect(fe.gl.entries.filter((e) => e.batch_id === batch.batch_id).map((e) => [e.type_code, e.account_number, e.amount, e.journal, e.reference])).toEqual([
      ['Debit', '01-1000-00', 125, 'Cash Receipts', 'S-101'], ['Credit', '01-4100-00', 125, 'Cash Receipts', 'S-101'],
      ['Debit', '01-1000-00', 40, 'Cash Receipts', 'S-102'], ['Credit', '01-4100-00', 40, 'Cash Receipts', 'S-102'],
    ]);
    expect(await recordsOf(formula)).toEqual([
      expect.objectContaining({ reference: 'S-101', state: 'sent', destination_record_id: batch.ui_batch_id }),
      expect.objectContaining({ reference: 'S-102', state: 'sent', destination_record_id: batch.ui_batch_id }),
      expect.objectContaining({ reference: 'S-103', state: 'failed', bucket: 'exception', error_reason: 'Financial Edge NXT refused the gift: The post date 2025-12-31 is in a closed fiscal period.' }),
    ]);
    // the Sent screen shows the batch as each gift's destination record, the Exceptions screen the refusal
    expect((await view(formula, 'sent')).map((r) => r.recordId)).toEqual([batch.ui_batch_id, batch.ui_batch_id]);
    expect((await view(formula, 'exception')).map((r) => r.errorReason)).toEqual(['Financial Edge NXT refused the gift: The post date 2025-12-31 is in a closed fiscal period.']);
  });

  it('another run is another batch', async () => {
    const before = new Set(fe.gl.batches.keys());
    const done = await runOf(formula, [HEADER, ['Hedy Lamarr', '15.50', '2026-11-04', 'S-104']]);
    expect(done.counts).toMatchObject({ collected: 1, created: 1 });
    const made = [...fe.gl.batches.values()].filter((b) => !before.has(b.batch_id));
    expect(made).toHaveLength(1);
    expect(fe.gl.totals(made[0]!.batch_id)).toEqual({ debits: 15.5, credits: 15.5 });
  });

  it('a batch Financial Edge NXT refuses puts every gift of the run in Exceptions with its words, and nothing is entered', async () => {
    const refused = await giftsFormula({ ...SETTINGS, batchDescriptionPrefix: 'Gifts received through the spring appeal of the Riverside Food Bank' });
    const entries = fe.gl.entries.length;
    const done = await runOf(refused, [HEADER, ['Mary Jackson', '20', '2026-11-05', 'S-201'], ['Dorothy Vaughan', '25', '2026-11-05', 'S-202']]);
    expect(done.counts).toMatchObject({ collected: 2, refused: 2 });
    expect((await recordsOf(refused)).map((r) => [r.bucket, r.error_reason])).toEqual([
      ['exception', 'Financial Edge NXT refused the gift: Description cannot exceed 60 characters.'],
      ['exception', 'Financial Edge NXT refused the gift: Description cannot exceed 60 characters.'],
    ]);
    expect(fe.gl.entries.length).toBe(entries);
    // the Exceptions screen shows them so
    expect((await view(refused, 'exception')).map((r) => r.errorReason)).toEqual(Array(2).fill('Financial Edge NXT refused the gift: Description cannot exceed 60 characters.'));
  });
});

describe('journal entries from Financial Edge NXT', () => {
  it('are read into the Sandbox CRM as gifts of the constituent their reference names, and a later run reads only what changed since', async () => {
    const pool = server.database.pool;
    const { rows: [donor] } = await pool.query<{ lookup_id: string }>('select lookup_id from sandbox_constituents where tenant_id = $1 order by lookup_id limit 1', [admin.tenantId]);
    const posted = fe.gl.addBatch('Deposits', [
      { type_code: 'Debit', account_number: '01-1000-00', post_date: '2026-11-10', amount: 300, reference: donor!.lookup_id },
      { type_code: 'Credit', account_number: '01-4100-00', post_date: '2026-11-10', amount: 300, reference: donor!.lookup_id },
    ]);
    const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
    const crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
    const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name: 'FE NXT deposits' } }));
    expect((await send(`${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: fenxt, object: 'journalentries' }, destination: { dataSourceId: crm, object: 'gifts' } } })).status).toBe(200);
    const parts = {
      mapping: { fields: [
        { destination: 'lookupId', kind: 'source', source: 'id' }, { destination: 'constituentLookupId', kind: 'source', source: 'reference' },
        { destination: 'amount', kind: 'source', source: 'amount' }, { destination: 'date', kind: 'source', source: 'postDate' },
        { destination: 'fund', kind: 'source', source: 'accountNumber' },
      ] },
      transform: { fields: [] },
      validation: { rules: [] },
      'summary-fields': { fields: ['lookupId', 'amount'] },
      matching: { scenarios: [{ name: 'Same entry', criteria: [{ source: 'id', destination: 'lookupId' }], matchReason: 'Same entry', isPrimary: true }], advanced: false, autoPick: [] },
      routing: { kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
      schedule: { mode: 'continuous' },
      autosend: { enabled: true },
    };
    for (const [part, body] of Object.entries(parts)) {
      const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
      expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
    }
    expect((await send(`${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
    const run = async () => {
      const started = await json<RunView>(await send(`${F}/${id}/run`, { method: 'POST', body: {} }));
      for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
        const { runs } = await json<{ runs: RunView[] }>(await send(`${F}/${id}/runs`));
        const r = runs.find((x) => x.id === started.id);
        if (r?.finishedOn) return r;
      }
      throw new Error('the run did not finish');
    };
    // the gifts the formula's records became in the Sandbox CRM
    const gifts = async () => (await pool.query<{ amount: string; gift_date: string; fund: string; lookup_id: string }>(
      `select g.amount, to_char(g.gift_date, 'YYYY-MM-DD') as gift_date, g.fund, c.lookup_id from records r
         join sandbox_gifts g on g.id::text = r.destination_record_id join sandbox_constituents c on c.id = g.constituent_id
        where r.formula_id = $1 and r.state = 'sent' order by g.gift_date, g.fund`, [id])).rows;
    const first = await run();
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts.collected, JSON.stringify(first.counts)).toBe(fe.gl.entries.length);
    // the posted batch's two entries name a constituent the CRM holds; the gifts sent earlier name none yet and wait in relationship-match
    expect(first.counts.created).toBe(2);
    expect(first.counts['bucket:relationship-match'] ?? 0).toBe(fe.gl.entries.length - 2);
    expect(await gifts()).toEqual([
      { amount: '300.00', gift_date: '2026-11-10', fund: '01-1000-00', lookup_id: donor!.lookup_id },
      { amount: '300.00', gift_date: '2026-11-10', fund: '01-4100-00', lookup_id: donor!.lookup_id },
    ]);
    expect(posted.batch_status).toBe('Posted');

    fe.seen.length = 0;
    const later = fe.gl.addBatch('More deposits', [{ type_code: 'Debit', account_number: '01-1000-00', post_date: '2026-11-12', amount: 45, reference: donor!.lookup_id }]);
    const second = await run();
    expect(second.counts.created, JSON.stringify(second.counts)).toBe(1);
    expect((await gifts()).at(-1)).toEqual({ amount: '45.00', gift_date: '2026-11-12', fund: '01-1000-00', lookup_id: donor!.lookup_id });
    expect(later.batch_status).toBe('Posted');
    expect(fe.seen.find((c) => c.path === '/generalledger/v1/journalentries')!.query.last_modified).toBeTruthy();
  });
});
