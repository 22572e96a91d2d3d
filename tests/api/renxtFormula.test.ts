/**
 * A whole formula into Raiser's Edge NXT through the API, with real workers on real PostgreSQL
 * and the local SKY API fake: a flat file of supporters is collected, matched against the fake's
 * constituents by e-mail, and sent: the known supporter is updated, the new ones appear in the
 * fake with their e-mail, each exactly once. A spent daily quota pauses the run with the reason
 * instead of failing it; a revoked grant fails the run in words, marks the data source as needing
 * reconnecting, and no later run calls the vendor until it is reconnected.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus, RunView } from '../../src/domain/api/formulas.ts';
import type { DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import type { DataSourceListItem } from '../../src/domain/connectors/types.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { call } from '../support/api.ts';
import { dropCsv, formulaBetween, tenantSession, waitForRun as waitForFormulaRun, type TenantSession } from '../support/engineRun.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import type { TestServer } from '../support/server.ts';
import { withVendorFake, type VendorFakeWithServer } from '../support/vendors/harness.ts';
import { readableBody, startFakeSmtp, type FakeSmtp } from '../support/fakeSmtp.ts';
import { SKY_APP, startFakeSkyApi, type FakeSkyApi } from '../support/vendors/skyApi.ts';

const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';
let server: TestServer;
let sky: FakeSkyApi;
let admin: TenantSession;
let flat: string;
let renxt: string;
let vendor: VendorFakeWithServer<FakeSkyApi>;
let smtp: FakeSmtp;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T = Record<string, unknown>>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);

const dropFile = (name: string, rows: string[][]) => dropCsv(server.config.dataDir, admin.tenantId, 'renxt', name, rows);

const waitForRun = (formulaId: string, runId: string, until?: (r: RunView) => boolean) => waitForFormulaRun(send, formulaId, runId, 90_000, until);
const startRun = async (formula: string) => json<RunView>(await send(`${F}/${formula}/run`, { method: 'POST', body: {} }));
const status = async (id: string) => json<FormulaStatus>(await send(`${F}/${id}/status`));

const header = ['First name', 'Last name', 'Email', 'Phone'];

async function until(ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const stop = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > stop) throw new Error('waited in vain');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const READY = { ...VALID_PARTS.routing, unmatched: 'ready' as const, singleMatch: 'ready' as const };

async function liveFormula(object: string, ends: { source?: { dataSourceId: string; object: string }; destination?: { dataSourceId: string; object: string; settings?: Record<string, string> }; parts?: Record<string, unknown> } = {}): Promise<string> {
  const parts = {
    ...VALID_PARTS,
    mapping: { fields: [...VALID_PARTS.mapping.fields, { destination: 'phone', kind: 'source' as const, source: 'Phone' }] },
    'summary-fields': { fields: ['firstName', 'lastName', 'email'] },
    routing: READY,
    schedule: { mode: 'continuous' as const },
    autosend: { enabled: true },
    ...ends.parts,
  };
  return formulaBetween(send, {
    source: ends.source ?? { dataSourceId: flat, object },
    destination: ends.destination ?? { dataSourceId: renxt, object: 'constituents', settings: { constituentCode: 'Donor' } },
  }, parts);
}

beforeAll(async () => {
  // the owner of a data source that needs reconnecting is told by e-mail
  smtp = await startFakeSmtp();
  vendor = await withVendorFake('renxt', startFakeSkyApi, { server: { work: true, env: { RUN_SLICE_MS: '100000', SMTP_URL: smtp.url, SMTP_FROM: 'tributary@riverside.example' } } });
  ({ fake: sky, server } = vendor);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  const made = await send(DS, { method: 'POST', body: { system: 'flat-file', displayName: 'RE NXT drop', settings: { folder: 'renxt' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  flat = (await json<{ id: string }>(made)).id;
  const re = await send(DS, {
    method: 'POST',
    body: { system: 'renxt', displayName: 'Riverside RE NXT', settings: { clientId: SKY_APP.clientId, clientSecret: SKY_APP.clientSecret, subscriptionKey: SKY_APP.subscriptionKey, refreshToken: sky.grant() } },
  });
  expect(re.status, await re.clone().text()).toBe(201);
  renxt = (await json<{ id: string }>(re)).id;
}, 120_000);
afterAll(async () => {
  await vendor?.close();
  await smtp?.close();
});

describe('the wizard\'s calls for a Raiser\'s Edge NXT data source', () => {
  it('test the connection, list its objects and describe their fields (the environment\'s custom fields included)', async () => {
    const tested = await json<{ status: string; detail: string }>(await send(`${DS}/${renxt}/test`, { method: 'POST' }));
    expect(tested).toMatchObject({ status: 'success', detail: "Signed in to Raiser's Edge NXT (Riverside Production)." });
    const { objects } = await json<{ objects: { name: string }[] }>(await send(`${DS}/${renxt}/objects`));
    expect(objects.map((o) => o.name)).toEqual(['constituents', 'gifts']);
    const { fields } = await json<{ fields: { name: string; searchable?: boolean }[] }>(await send(`${DS}/${renxt}/objects/constituents/fields`));
    expect(fields).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'email', searchable: true }), expect.objectContaining({ name: 'custom:Volunteer interest' }),
    ]));
    const systems = await json<{ systems: { system: string; does: string }[] }>(await send('/integrations/v1/systems'));
    expect(systems.systems.find((x) => x.system === 'renxt')?.does).toBe('source and destination');
  });
});

describe('a formula into Raiser\'s Edge NXT keeps to what its object takes', () => {
  it('drops a gift\'s setting from a constituents formula, and refuses a mapping onto a field Raiser\'s Edge NXT sets itself', async () => {
    const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name: 'RE NXT settings' } }));
    const patched = await send(`${F}/${id}`, {
      method: 'PATCH',
      body: { source: { dataSourceId: flat, object: '*' }, destination: { dataSourceId: renxt, object: 'constituents', settings: { giftBatchPrefix: 'Spring', constituentCode: 'Donor' } } },
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const dest = (await json<{ firstDestinationDataSource: { settings: Record<string, string>; hasAdditionalSettings: boolean } }>(patched)).firstDestinationDataSource;
    expect(dest).toMatchObject({ settings: { constituentCode: 'Donor' }, hasAdditionalSettings: true });
    expect(dest.settings.giftBatchPrefix).toBeUndefined();

    const refused = await send(`${F}/${id}/parts/mapping`, {
      method: 'PUT', body: { fields: [{ destination: 'lastName', kind: 'source', source: 'Last name' }, { destination: 'dateAdded', kind: 'source', source: 'Joined' }] },
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Date added is set by the destination itself and cannot be mapped.');
    // ignoring it is fine
    const saved = await send(`${F}/${id}/parts/mapping`, {
      method: 'PUT', body: { fields: [{ destination: 'lastName', kind: 'source', source: 'Last name' }, { destination: 'dateAdded', kind: 'ignored' }] },
    });
    expect(saved.status, await saved.clone().text()).toBe(200);
  });
});

describe('a flat file into Raiser\'s Edge NXT', () => {
  let formula: string;

  it('updates the supporter it holds and creates the new ones, each once, with their e-mail and phone', async () => {
    const known = sky.addConstituent({ first: 'Ada', last: 'Lovelace', email: 'ada@analytical.example', phone: '503-555-0100' });
    formula = await liveFormula('supporters-*.csv');
    const before = sky.constituents.size;
    dropFile('supporters-1.csv', [
      header,
      ['Ada', 'Lovelace', 'ADA@analytical.example', '503-555-0101'],
      ['Grace', 'Hopper', 'grace@navy.example', '503-555-0199'],
      ['Katherine', 'Johnson', 'katherine@nasa.example', ''],
    ]);
    const run = await startRun(formula);
    const done = await waitForRun(formula, run.id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 3, created: 2, updated: 1 });

    expect(sky.constituents.size - before).toBe(2);
    const grace = [...sky.constituents.values()].find((c) => c.last === 'Hopper')!;
    expect(sky.view(grace.id)).toMatchObject({ first: 'Grace', last: 'Hopper', email: { address: 'grace@navy.example', primary: true }, phone: { number: '503-555-0199' } });
    expect(sky.constituentCodes).toContainEqual({ constituent_id: grace.id, description: 'Donor' });
    expect(sky.view(known.id)).toMatchObject({ phone: { number: '503-555-0101' } });

    // each record names what it became in Raiser's Edge NXT
    const rows = (await server.database.pool.query<{ destination_record_id: string; state: string }>(
      'select destination_record_id, state from records where formula_id = $1', [formula])).rows;
    expect(rows.map((r) => r.state).sort()).toEqual(['sent', 'sent', 'sent']);
    expect(rows.map((r) => r.destination_record_id)).toEqual(expect.arrayContaining([known.id, grace.id]));

    // the review opens each destination record on its own page of the web view, in the grant's environment
    const { rows: [ada] } = await server.database.pool.query<{ id: string }>('select id from records where formula_id = $1 and destination_record_id = $2', [formula, known.id]);
    const detail = await json<{ candidates: { id: string; page: string | null }[]; destination: { id: string; page: string | null } }>(await send(`/web-api/v1/records/${formula}/records/${ada!.id}`));
    const page = `https://host.nxt.blackbaud.com/constituent/records/${known.id}?envid=p-riverside`;
    expect(detail.candidates.find((c) => c.id === known.id)?.page).toBe(page);
    expect(detail.destination).toMatchObject({ id: known.id, page });
  });

  it('a spent daily quota pauses the run with the reason on the formula\'s card, not ten failed attempts', async () => {
    dropFile('supporters-2.csv', [header, ['Dorothy', 'Vaughan', 'dorothy@nasa.example', '']]);
    sky.spendQuota(2 * 3600);
    try {
      const run = await startRun(formula);
      const paused = await waitForRun(formula, run.id, (r) => r.status === 'paused');
      expect(paused.error).toMatch(/^Raiser's Edge NXT's daily API quota is spent; the formula goes on at .* UTC, when Blackbaud renews it\.$/);
      const s = await status(formula);
      expect(s).toMatchObject({ jobStatus: 'paused', lastError: null });
      expect(s.lastRun).toMatchObject({ id: run.id, status: 'paused', error: paused.error });
      expect(paused.finishedOn).toBeNull();
    } finally {
      sky.spendQuota(0);
    }
  });

  it('"fill blank fields only" writes only what Raiser\'s Edge NXT lacks', async () => {
    const hedy = sky.addConstituent({ first: 'Hedy', last: 'Lamarr', email: 'hedy@patents.example' });
    const fill = await liveFormula('fill-*.csv', { destination: { dataSourceId: renxt, object: 'constituents', settings: { onMatch: 'fill-blanks' } } });
    dropFile('fill-1.csv', [header, ['Hedy', 'Lamarr', 'hedy@patents.example', '503-555-0300']]);
    sky.seen.length = 0;
    const done = await waitForRun(fill, (await startRun(fill)).id);
    expect(done.counts, JSON.stringify(done)).toMatchObject({ collected: 1, updated: 1 });
    expect(sky.view(hedy.id)).toMatchObject({ first: 'Hedy', last: 'Lamarr', phone: { number: '503-555-0300', primary: true } });
    // the names and e-mail it holds are not written again: only the phone it lacked, as a new primary phone
    const writes = sky.seen.filter((c) => c.method !== 'GET' && c.path !== '/token').map((c) => `${c.method} ${c.path}`);
    expect(writes).toEqual(['POST /constituent/v1/phones']);
  });

  it('gifts go in against their constituent by lookup id, in the gift batch; one whose constituent is not there waits in relationship-match', async () => {
    const donor = sky.addConstituent({ first: 'Gift', last: 'Formula', lookup_id: 'GF-7' });
    const gifts = await liveFormula('gifts-*.csv', {
      destination: { dataSourceId: renxt, object: 'gifts', settings: { giftBatchPrefix: 'Tributary' } },
      parts: {
        mapping: { fields: [
          { destination: 'constituentLookupId', kind: 'source', source: 'Lookup' }, { destination: 'amount', kind: 'source', source: 'Amount' },
          { destination: 'date', kind: 'source', source: 'Date' }, { destination: 'fund', kind: 'source', source: 'Fund' },
        ] },
        transform: { fields: [] },
        validation: { rules: [] },
        'summary-fields': { fields: ['constituentLookupId', 'amount'] },
        matching: { scenarios: [{ name: 'Same gift', criteria: [{ source: 'Lookup', destination: 'constituentLookupId' }, { source: 'Amount', destination: 'amount' }, { source: 'Date', destination: 'date' }], matchReason: 'Same gift', isPrimary: true }], advanced: false, autoPick: [] },
      },
    });
    dropFile('gifts-1.csv', [['Lookup', 'Amount', 'Date', 'Fund'], ['GF-7', '75.00', '2026-11-03', '12'], ['NOT-YET', '20', '2026-11-03', '12']]);
    const done = await waitForRun(gifts, (await startRun(gifts)).id);
    expect(done.status, JSON.stringify(done)).toBe('finished');
    expect(done.counts).toMatchObject({ collected: 2, created: 1, 'bucket:relationship-match': 1 });
    const made = [...sky.gifts.values()].filter((g) => g.constituent_id === donor.id);
    expect(made).toEqual([expect.objectContaining({ amount: { value: 75 }, date: '2026-11-03', batch_prefix: 'Tributary', gift_splits: [expect.objectContaining({ fund_id: '12' })] })]);
  });

  it('reads constituents from Raiser\'s Edge NXT into the Sandbox CRM, and a later run only what changed since', async () => {
    const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await send(DS));
    const crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
    const fromRe = await liveFormula('', {
      source: { dataSourceId: renxt, object: 'constituents' },
      destination: { dataSourceId: crm, object: 'constituents' },
      parts: {
        mapping: { fields: [
          { destination: 'firstName', kind: 'source', source: 'firstName' }, { destination: 'lastName', kind: 'source', source: 'lastName' },
          { destination: 'email', kind: 'source', source: 'email' }, { destination: 'lookupId', kind: 'source', source: 'lookupId' },
        ] },
        matching: { scenarios: [{ name: 'E-mail', criteria: [{ source: 'email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] },
        transform: { fields: [] },
        validation: { rules: [] },
      },
    });
    const first = await waitForRun(fromRe, (await startRun(fromRe)).id);
    expect(first.status, JSON.stringify(first)).toBe('finished');
    expect(first.counts.collected).toBe(sky.constituents.size);
    const grace = (await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'grace@navy.example' }] }))[0];
    expect(grace?.fields).toMatchObject({ firstName: 'Grace', lastName: 'Hopper' });

    const later = sky.addConstituent({ first: 'Annie', last: 'Easley', email: 'annie@nasa.example' });
    const second = await waitForRun(fromRe, (await startRun(fromRe)).id);
    expect(second.counts.collected).toBe(1);
    expect((await sandboxCrmStore(tenant()).search('constituents', { criteria: [{ field: 'email', value: 'annie@nasa.example' }] }))[0]?.fields).toMatchObject({ firstName: later.first, lastName: 'Easley' });
    const lists = sky.seen.filter((c) => c.path === '/constituent/v1/constituents');
    expect(lists.at(-1)!.query.date_modified).toBeTruthy();
  });

  it('a revoked grant fails the run in words and marks the data source as needing reconnecting; no later run calls Blackbaud until it is reconnected', async () => {
    // the paused run waits for the quota's renewal; this formula's files are read by a new one
    const second = await liveFormula('later-*.csv');
    dropFile('later-1.csv', [header, ['Mary', 'Jackson', 'mary@nasa.example', '']]);
    // the saved access token is good for an hour: the revocation is learnt at the next refresh
    sky.revoke();
    sky.expireTokens();
    await tenant().vendorState.dropToken(renxt);
    const run = await startRun(second);
    const failed = await waitForRun(second, run.id);
    expect(failed).toMatchObject({ status: 'errored' });
    expect(failed.error).toBe("Raiser's Edge NXT no longer accepts this connection's sign-in (it was revoked or has expired). The data source needs reconnecting: open it in Connections and connect again.");
    const view = await json<DataSourceView>(await send(`${DS}/${renxt}`));
    expect(view.needsReconnecting).toMatchObject({ reason: failed.error });
    // the Data Sources list marks it too, so nobody has to open each data source to find it
    const listed = async () => (await json<{ dataSources: DataSourceListItem[] }>(await send(DS))).dataSources.find((d) => d.id === renxt)!;
    expect((await listed()).needsReconnecting).toEqual({ reason: failed.error, since: view.needsReconnecting!.since });
    const { rows: notices } = await server.database.pool.query<{ description: string }>(
      "select description from activity_events where tenant_id = $1 and type = 'datasource.needs-reconnecting'", [admin.tenantId]);
    expect(notices.map((n) => n.description)).toEqual([`The data source Riverside RE NXT needs reconnecting: ${failed.error}`]);
    // and its owner, who made it, by e-mail: what, why, and where to connect again
    await until(() => smtp.messages.length > 0);
    expect(smtp.messages.map((m) => m.to)).toEqual([['administrator@demo.tributary.test']]);
    const mail = readableBody(smtp.messages[0]!.data);
    expect(mail).toContain('Subject: Riverside RE NXT needs reconnecting');
    expect(mail).toContain(`The data source Riverside RE NXT (Raiser's Edge NXT) needs reconnecting: ${failed.error}`);
    expect(mail).toContain(`${server.url}/connections`);

    const tokenCalls = sky.seen.filter((c) => c.path === '/token').length;
    await send(`${F}/${second}/dismiss-error`, { method: 'POST', body: { retry: false } });
    const again = await waitForRun(second, (await startRun(second)).id);
    expect(again.error).toBe(`The destination data source Riverside RE NXT needs reconnecting: ${failed.error}`);
    expect(sky.seen.filter((c) => c.path === '/token').length).toBe(tokenCalls);
    // told once, when it happened
    expect(smtp.messages).toHaveLength(1);

    // reconnected (a new refresh token saved): the mark is gone and runs reach Blackbaud again
    const edited = await send(`${DS}/${renxt}`, { method: 'PATCH', body: { settings: { refreshToken: sky.grant() } } });
    expect(edited.status, await edited.clone().text()).toBe(200);
    expect((await json<DataSourceView>(edited)).needsReconnecting).toBeNull();
    expect((await listed()).needsReconnecting).toBeNull();
  });
});
