/**
 * A formula's owner (the user who made it) is e-mailed through SMTP_URL (a fake SMTP server here)
 * when it errors after its retries (issue 28): once, when its run gives up, not on the attempts
 * before; and not at all once they have turned these e-mails off (PUT .../user/owner-notices). A
 * data source that needs reconnecting is told to its maker and to the makers of its formulas.
 *
 * The run's job is worked here by calling the formula-run service as its job would, attempt by
 * attempt: the retries' waits (a minute and more) are pg-boss's, tested in tests/api/jobs.test.ts.
 * The failure is one retrying may mend: the drop folder cannot be read (a file stands in its place).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { FormulaStatus, RunView } from '../../src/domain/api/formulas.ts';
import { dropFolderPath } from '../../server/connectors/fileSources/flatFile.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { FinalRunFailure } from '../../server/services/formulaRuns.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { readableBody, startFakeSmtp, type FakeSmtp } from '../support/fakeSmtp.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
const ADMIN = 'administrator@demo.tributary.test';
let smtp: FakeSmtp;
let server: TestServer;
let admin: Session & { tenantId: string };
let flat: string;
let crm: string;

const send = (p: string, init: { method?: string; body?: unknown } = {}) => call(server.url, p, { ...init, headers: admin.headers });
const json = async <T>(res: Response) => res.json() as Promise<T>;
const tenant = () => forTenant(server.database.db, admin.tenantId);
const noticesPath = () => `/account-management/v1/user/organization/${admin.orgId}/user/owner-notices`;
const erroredMails = (name: string) => smtp.messages.filter((m) => readableBody(m.data).includes(`Subject: ${name} has errored`));

async function liveFormula(name: string): Promise<string> {
  const { id } = await json<{ id: string }>(await send(F, { method: 'POST', body: { name } }));
  const patched = await send(`${F}/${id}`, { method: 'PATCH', body: { source: { dataSourceId: flat, object: 'gifts-*.csv' }, destination: { dataSourceId: crm, object: 'constituents' } } });
  expect(patched.status, await patched.clone().text()).toBe(200);
  for (const [part, body] of Object.entries({ ...VALID_PARTS, schedule: { mode: 'continuous' as const } })) {
    const put = await send(`${F}/${id}/parts/${part}`, { method: 'PUT', body });
    expect(put.status, `${part}: ${await put.clone().text()}`).toBe(200);
  }
  expect((await send(`${F}/${id}/activate`, { method: 'POST' })).status).toBe(200);
  return id;
}

/** works the run's job once, as attempt `retry` of 10: the last when retry is 10 */
async function attempt(formulaId: string, runId: string, retry: number) {
  return server.services.formulaRuns.work(tenant(), { tenantId: admin.tenantId, formulaId, runId, correlationId: `notice-${runId}` },
    { jobId: `job-${runId}`, retry, retryLimit: 10, lastTry: retry === 10 }, { actor: 'system', correlationId: `notice-${runId}`, log: pino({ level: 'silent' }) });
}

/** starts a run and works its attempts until it gives up */
async function runUntilItGivesUp(formulaId: string): Promise<{ mailsOnTheWay: number }> {
  const run = await json<RunView>(await send(`${F}/${formulaId}/run`, { method: 'POST', body: {} }));
  let mailsOnTheWay = 0;
  for (let retry = 0; retry < 10; retry++) {
    await expect(attempt(formulaId, run.id, retry)).rejects.toThrow(/ENOTDIR|not a directory/);
    mailsOnTheWay += smtp.messages.length;
  }
  await expect(attempt(formulaId, run.id, 10)).rejects.toBeInstanceOf(FinalRunFailure);
  return { mailsOnTheWay };
}

beforeAll(async () => {
  smtp = await startFakeSmtp();
  // no workers: the test works the run's job itself
  server = await startTestServer({ env: { SMTP_URL: smtp.url, SMTP_FROM: 'tributary@riverside.example' } });
  const s = await sessionFor(server.url, ADMIN);
  const me = await json<{ activeTenantId: string }>(await call(server.url, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers }));
  admin = { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
  const list = await json<{ dataSources: { id: string; system: string }[] }>(await send('/integrations/v1/data-sources'));
  crm = list.dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  const made = await send('/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Gifts drop', settings: { folder: 'gifts' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  flat = (await json<{ id: string }>(made)).id;
  // the drop folder cannot be read: a file stands where it should be
  const folder = dropFolderPath(server.config.dataDir, admin.tenantId, 'gifts');
  fs.mkdirSync(path.dirname(folder), { recursive: true });
  fs.writeFileSync(folder, 'not a folder');
}, 120_000);
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

describe('a formula that errors after its retries', () => {
  it('e-mails its owner once, when the run gives up: which formula, why, and where to dismiss and retry', async () => {
    expect(await json(await send(noticesPath()))).toEqual({ ownerNotices: true });
    const formula = await liveFormula('Spring gifts');
    const { mailsOnTheWay } = await runUntilItGivesUp(formula);
    // no mail while it was retrying
    expect(mailsOnTheWay).toBe(0);
    const status = await json<FormulaStatus>(await send(`${F}/${formula}/status`));
    expect(status).toMatchObject({ status: 'error', jobStatus: 'errored' });
    expect(status.lastError).toMatch(/gave up after 11 attempts/);

    const mails = erroredMails('Spring gifts');
    expect(mails.map((m) => m.to)).toEqual([[ADMIN]]);
    const body = readableBody(mails[0]!.data);
    expect(body).toContain('Hello Ada Administrator,');
    expect(body).toContain(`The formula Spring gifts stopped with an error after its retries: ${status.lastError}`);
    expect(body).toContain(`${server.url}/data-queue`);
    expect(body).toContain('To stop these e-mails, untick');
    expect(smtp.messages).toHaveLength(1);
  });

  it('e-mails no one once the owner has turned these e-mails off, and again once they turn them on', async () => {
    const off = await send(noticesPath(), { method: 'PUT', body: { ownerNotices: false } });
    expect(off.status, await off.clone().text()).toBe(200);
    expect(await json(off)).toEqual({ ownerNotices: false });
    expect(await json(await send(noticesPath()))).toEqual({ ownerNotices: false });
    const before = smtp.messages.length;
    const quiet = await liveFormula('Autumn gifts');
    await runUntilItGivesUp(quiet);
    expect((await json<FormulaStatus>(await send(`${F}/${quiet}/status`))).status).toBe('error');
    expect(smtp.messages.length).toBe(before);

    expect((await send(noticesPath(), { method: 'PUT', body: { ownerNotices: true } })).status).toBe(200);
    expect((await send(`${F}/${quiet}/dismiss-error`, { method: 'POST', body: {} })).status).toBe(200);
    await runUntilItGivesUp(quiet);
    expect(erroredMails('Autumn gifts')).toHaveLength(1);
  });

});

describe('a data source that needs reconnecting', () => {
  it('is told to its maker and to the makers of the formulas that use it, once each, leaving out who turned it off', async () => {
    const FRAN = 'formula.producer@demo.tributary.test';
    // a formula of Fran's reads the drop folder Ada made; two of Ada's read it too
    const hers = await liveFormula('Fran\'s gifts');
    await server.database.pool.query('update formulas set created_by = (select id from users where email = $1) where id = $2', [FRAN, hers]);
    const tell = () => server.services.notices.needsReconnecting(tenant(), { id: flat, displayName: 'Gifts drop', system: 'flat-file' }, 'The folder was moved.');
    const reconnectMails = () => smtp.messages.filter((m) => readableBody(m.data).includes('Subject: Gifts drop needs reconnecting'));

    await tell();
    expect(reconnectMails().map((m) => m.to[0]).sort()).toEqual([ADMIN, FRAN]);
    expect(readableBody(reconnectMails()[0]!.data)).toContain('The data source Gifts drop (Flat file) needs reconnecting: The folder was moved.');

    const fran = await sessionFor(server.url, FRAN);
    const off = await call(server.url, `/account-management/v1/user/organization/${fran.orgId}/user/owner-notices`, { method: 'PUT', headers: fran.headers, body: { ownerNotices: false } });
    expect(off.status, await off.clone().text()).toBe(200);
    await tell();
    expect(reconnectMails().map((m) => m.to[0]).sort()).toEqual([ADMIN, ADMIN, FRAN]);
  });
});

describe('the e-mail choice', () => {
  it('refuses a choice that is not on or off', async () => {
    expect((await send(noticesPath(), { method: 'PUT', body: { ownerNotices: 'sometimes' } })).status).toBe(400);
  });
});
