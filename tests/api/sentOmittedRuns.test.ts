/**
 * The daily work after a run: the Sent and Omitted views of the records API (who or which run sent
 * a record, created or updated; the rule that omitted one), the formula card's last run counting
 * what people sent by hand, and the run history (newest first, paged, each run's trigger, start,
 * end, counts and, for a retrying run, the reason in words and its attempts, each failed attempt
 * an activity event). Every endpoint for those who may read the formula, and 404 to another tenant.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus, RunHistory, RunView } from '../../src/domain/api/formulas.ts';
import type { RecordCounts, RecordPage } from '../../src/domain/api/records.ts';
import { ConnectionProblem, transientProblem, type Connector } from '../../server/connectors/connector.ts';
import { flatFileConnector } from '../../server/connectors/fileSources/flatFile.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { dropCsv, liveFormula, runToEnd, sender, tenantSession, type Send, type TenantSession } from '../support/engineRun.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const R = '/web-api/v1/records';
const F = '/web-api/v1/formulas';
let server: TestServer;
const who: Record<string, TenantSession> = {};
const as: Record<string, Send> = {};
let source: string;
let crm: string;
const tenant = () => forTenant(server.database.db, who.admin!.tenantId);
const json = async <T>(res: Response) => { const body = await res.text(); try { return JSON.parse(body) as T; } catch { throw new Error(body); } };
const header = ['First name', 'Last name', 'Email'];
const page = async (formula: string, view: string, send = as.viewer!) => {
  const res = await send(`${R}/${formula}/query`, { method: 'POST', body: { scope: { view }, limit: 200 } });
  expect(res.status, await res.clone().text()).toBe(200);
  return json<RecordPage>(res);
};
const eventually = async <T>(what: string, read: () => Promise<T | undefined>, ms = 30_000): Promise<T> => {
  for (const until = Date.now() + ms; ;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what} did not happen`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

beforeAll(async () => {
  server = await startTestServer({ work: true, env: { RUN_SLICE_MS: '100000' } });
  for (const [name, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', processor: 'data.processor@demo.tributary.test', viewer: 'view.only@demo.tributary.test',
  })) {
    who[name] = await tenantSession(server.url, email);
    as[name] = sender(server.url, who[name]!);
  }
  as.otherTenant = sender(server.url, who.admin!, who.admin!.tenantIds.find((t) => t !== who.admin!.tenantId)!);
  const { dataSources } = await json<{ dataSources: { id: string; system: string }[] }>(await as.admin!('/integrations/v1/data-sources'));
  crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  const made = await as.admin!('/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Daily drop', settings: { folder: 'daily' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  source = (await json<{ id: string }>(made)).id;
}, 120_000);
afterAll(async () => { await server?.close(); });

describe('Sent and Omitted', () => {
  let formula: string;
  beforeAll(async () => {
    // rule 1 omits test sign-ups; everything else goes to Ready and is sent by the run
    formula = await liveFormula(as.admin!, { source, crm, object: 'omit-*.csv' }, {
      routing: {
        kind: 'custom', otherwise: 'ready',
        rules: [{ action: 'omit', conditions: [{ sourceType: 'raw', field: 'Last name', operator: 'starts-with', values: ['Testsignup'] }] }],
      },
      autosend: { enabled: true },
    });
    dropCsv(server.config.dataDir, who.admin!.tenantId, 'daily', 'omit-1.csv', [
      header,
      ...Array.from({ length: 4 }, (_, i) => ['Rowan', `Sentperson${i}`, `rowan${i}.sent@example.org`]),
      ...Array.from({ length: 3 }, (_, i) => ['Tess', `Testsignup${i}`, `tess${i}.omit@example.org`]),
    ]);
    expect((await runToEnd(as.admin!, formula)).status).toBe('finished');
  }, 90_000);

  it('counts and lists the sent records, each created and sent by its run', async () => {
    const counts = await json<RecordCounts>(await as.viewer!(`${R}/${formula}/counts`));
    expect(counts.views.sent).toBe(4);
    expect(counts.views.omitted).toBe(3);
    const { runs: [run] } = await json<RunHistory>(await as.viewer!(`${F}/${formula}/runs`));
    const sent = await page(formula, 'sent');
    expect(sent.records).toHaveLength(4);
    for (const r of sent.records) {
      expect(r).toMatchObject({ state: 'sent', outcome: 'created', sentBy: { kind: 'run', runId: run!.id, trigger: 'on-demand', startedOn: run!.createdOn }, omittedBy: null });
      expect(r.recordId).toBeTruthy();
      expect(r.dateProcessed).toBeTruthy();
    }
    expect(sent.records.map((r) => r.title).sort()).toEqual([0, 1, 2, 3].map((i) => `Rowan Sentperson${i} · rowan${i}.sent@example.org`));
  });

  it('lists the omitted records with the rule that omitted them', async () => {
    const omitted = await page(formula, 'omitted');
    expect(omitted.records).toHaveLength(3);
    for (const r of omitted.records) expect(r).toMatchObject({ state: 'omitted', omittedBy: { rule: 1, reason: 'Rule 1 omitted it' }, sentBy: null, outcome: null });
  });

  it('sorts the sent view by when each was sent, by keyset', async () => {
    const first = await json<RecordPage>(await as.viewer!(`${R}/${formula}/query`, { method: 'POST', body: { scope: { view: 'sent' }, sort: 'dateProcessed', limit: 3 } }));
    expect(first.records).toHaveLength(3);
    const rest = await json<RecordPage>(await as.viewer!(`${R}/${formula}/query`, { method: 'POST', body: { scope: { view: 'sent' }, sort: 'dateProcessed', limit: 3, cursor: first.nextCursor } }));
    expect(rest.records).toHaveLength(1);
    expect(new Set([...first.records, ...rest.records].map((r) => r.id)).size).toBe(4);
  });

  it('another tenant gets 404 for these views', async () => {
    for (const view of ['sent', 'omitted']) {
      const res = await as.otherTenant!(`${R}/${formula}/query`, { method: 'POST', body: { scope: { view } } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });
});

describe('a person sending by hand', () => {
  let formula: string;
  beforeAll(async () => {
    formula = await liveFormula(as.admin!, { source, crm, object: 'hand-*.csv' }, {
      routing: { kind: 'default', unmatched: 'needs-attention', singleMatch: 'needs-attention', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
      autosend: { enabled: false },
    });
    dropCsv(server.config.dataDir, who.admin!.tenantId, 'daily', 'hand-1.csv', [
      header, ...Array.from({ length: 5 }, (_, i) => ['Hana', `Byhand${i}`, `hana${i}.hand@example.org`]),
    ]);
    expect((await runToEnd(as.admin!, formula)).status).toBe('finished');
  }, 90_000);

  it('counts in the last run what people sent of what it collected, and names who sent it', async () => {
    const status = async () => json<FormulaStatus>(await as.viewer!(`${F}/${formula}/status`));
    const before = (await status()).lastRun!;
    expect(before.counts).toMatchObject({ collected: 5 });
    expect((before.counts.created ?? 0) + (before.counts.updated ?? 0)).toBe(0);

    const held = await page(formula, 'new-records');
    const two = held.records.slice(0, 2).map((r) => r.id);
    const res = await as.processor!(`${R}/${formula}/actions/send`, { method: 'POST', body: { selection: { kind: 'ids', ids: two } } });
    expect(res.status, await res.clone().text()).toBe(200);
    const after = await eventually('the send', async () => {
      const run = (await status()).lastRun!;
      return run.counts.created === 2 ? run : undefined;
    });
    // the same run: a send by hand starts none, and "Last run: 5 collected, 2 sent" says what became of its records
    expect(after.id).toBe(before.id);
    expect(after.counts).toMatchObject({ collected: 5, created: 2, sentByHand: 2 });

    const { rows: [person] } = await server.database.pool.query<{ full_name: string }>('select full_name from users where email = $1', ['data.processor@demo.tributary.test']);
    const sent = await page(formula, 'sent');
    expect(sent.records.map((r) => r.id).sort()).toEqual([...two].sort());
    for (const r of sent.records) expect(r).toMatchObject({ outcome: 'created', sentBy: { kind: 'person', name: person!.full_name } });
    // the record's review says the same
    const detail = await json<{ sentBy: unknown; outcome: string }>(await as.viewer!(`${R}/${formula}/records/${two[0]}`));
    expect(detail).toMatchObject({ outcome: 'created', sentBy: { kind: 'person', name: person!.full_name } });
  }, 60_000);
});

describe('run history', () => {
  let formula: string;
  beforeAll(async () => {
    formula = await liveFormula(as.admin!, { source, crm, object: 'history-*.csv' }, { autosend: { enabled: true } });
    dropCsv(server.config.dataDir, who.admin!.tenantId, 'daily', 'history-1.csv', [header, ['Ida', 'Historic', 'ida.historic@example.org']]);
    for (let i = 0; i < 3; i++) expect((await runToEnd(as.admin!, formula)).status).toBe('finished');
  }, 120_000);

  it('pages the runs newest first, each with trigger, start, end, attempts and counts per stage', async () => {
    const first = await json<RunHistory>(await as.viewer!(`${F}/${formula}/runs?limit=2`));
    expect(first.runs).toHaveLength(2);
    expect(first.nextCursor).toBeTruthy();
    const rest = await json<RunHistory>(await as.viewer!(`${F}/${formula}/runs?limit=2&cursor=${first.nextCursor}`));
    expect(rest.runs).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    const runs = [...first.runs, ...rest.runs];
    expect(runs.map((r) => r.createdOn)).toEqual(runs.map((r) => r.createdOn).sort().reverse());
    for (const r of runs) {
      expect(r).toMatchObject({ kind: 'on-demand', status: 'finished', attempts: 1, error: null });
      expect(Date.parse(r.startedOn!)).toBeGreaterThanOrEqual(Date.parse(r.createdOn));
      expect(Date.parse(r.finishedOn!)).toBeGreaterThanOrEqual(Date.parse(r.startedOn!));
    }
    // the oldest run collected the one record and sent it; the later ones found nothing new
    expect(rest.runs[0]!.counts).toMatchObject({ collected: 1, 'bucket:new': 1, created: 1 });
  });

  it('refuses a cursor it did not write, and a limit out of range, as problem+json', async () => {
    for (const query of ['cursor=bm90LWEtY3Vyc29y', 'limit=0', 'limit=101']) {
      const res = await as.viewer!(`${F}/${formula}/runs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
  });

  it('another tenant gets 404, as problem+json', async () => {
    const res = await as.otherTenant!(`${F}/${formula}/runs`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404, title: 'not-found' });
  });

  it('a retrying run says why in words and how many attempts, and each failed attempt is an activity event', async () => {
    const reason = "Raiser's Edge NXT answered 503 Service Unavailable";
    const connector = flatFileConnector as Connector;
    const pull = connector.pull;
    connector.pull = () => { throw transientProblem(new ConnectionProblem('formula-connection-error', reason)); };
    try {
      const started = await as.admin!(`${F}/${formula}/run`, { method: 'POST', body: {} });
      expect(started.status).toBe(202);
      const { id } = await json<RunView>(started);
      const retrying = await eventually('retrying', async () => {
        const run = (await json<RunHistory>(await as.viewer!(`${F}/${formula}/runs`))).runs.find((r) => r.id === id);
        return run?.status === 'retrying' && run.retry ? run : undefined;
      });
      expect(retrying).toMatchObject({ error: reason, attempts: 1, retry: { attempt: 1, of: 10 } });
      const events = await json<{ events: { type: string; description: string; details: Record<string, unknown> }[] }>(
        await as.admin!(`/events-reporter/v1/events?formulaId=${formula}&type=run.attempt-failed&from=${new Date(Date.now() - 3600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`),
      );
      const failed = events.events.filter((e) => e.type === 'run.attempt-failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]!.description).toContain(reason);
      expect(failed[0]!.details).toMatchObject({ runId: id, attempt: 1, error: reason });
    } finally {
      connector.pull = pull;
    }
    // told to try again at once, it finishes, keeping its count of attempts
    expect((await as.admin!(`${F}/${formula}/retry-now`, { method: 'POST' })).status).toBe(200);
    const done = await eventually('the retry', async () => {
      const run = (await json<RunHistory>(await as.viewer!(`${F}/${formula}/runs`))).runs.find((r) => r.status === 'finished' && r.attempts === 2);
      return run;
    }, 60_000);
    expect(done.error).toBeNull();
  }, 120_000);
});
