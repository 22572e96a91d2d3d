/**
 * The demo formula `npm start` adds to a freshly seeded demo organisation: built through the
 * services, run once by the server's workers, and its records waiting for review where the Data
 * Queue and the bucket screens look: matches and new people in Needs Attention, bad e-mail
 * addresses in their validation bucket.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { FormulaStatus, FormulaViewOut, RunView } from '../../src/domain/api/formulas.ts';
import type { RecordCounts } from '../../src/domain/api/records.ts';
import { DEMO_BAD_EMAIL_BUCKET, DEMO_FORMULA_NAME, DEMO_ROWS, seedDemoFormula, type DemoFormula } from '../../server/services/demoFormula.ts';
import { createLogger } from '../../server/log.ts';
import { sender, tenantSession, type Send } from '../support/engineRun.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
let server: TestServer;
let send: Send;
let demo: DemoFormula;
let run: RunView;
const json = async <T>(res: Response) => { const body = await res.text(); expect(res.status, body).toBe(200); return JSON.parse(body) as T; };

beforeAll(async () => {
  // the server's data folder is its own: the drop folder's CSV and the key file go there
  server = await startTestServer({ work: true });
  const admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  demo = await seedDemoFormula({ database: server.database, config: server.config, services: server.services, log: createLogger('silent') });
  send = sender(server.url, admin, demo.tenantId);
  const until = Date.now() + 90_000;
  for (;;) {
    const { runs } = await json<{ runs: RunView[] }>(await send(`${F}/${demo.formulaId}/runs`));
    const found = runs.find((r) => r.id === demo.runId);
    if (found?.finishedOn) { run = found; break; }
    if (Date.now() > until) throw new Error(`the demo run did not finish: ${JSON.stringify(found)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 150_000);
afterAll(async () => {
  await server?.close();
});

it('makes a live formula in the food bank, whose first run reads the whole sign-up sheet', async () => {
  const formula = await json<FormulaViewOut>(await send(`${F}/${demo.formulaId}`));
  expect(formula).toMatchObject({ name: DEMO_FORMULA_NAME, isDraft: false, status: 'active', usesFileUpload: false });
  expect(formula.sourceDataSource).toMatchObject({ system: 'flat-file', displayName: 'Weekend sign-ups' });
  expect(formula.firstDestinationDataSource).toMatchObject({ system: 'sandbox-crm', object: 'constituents' });
  expect(run.status, JSON.stringify(run)).toBe('finished');
  const rows = DEMO_ROWS.exact + DEMO_ROWS.messy + DEMO_ROWS.new + DEMO_ROWS.badEmail;
  expect(run.counts.collected).toBe(rows);
  // nothing is sent: every record waits for review
  expect((run.counts.created ?? 0) + (run.counts.updated ?? 0)).toBe(0);
  const status = await json<FormulaStatus>(await send(`${F}/${demo.formulaId}/status`));
  expect(status.status).toBe('active');
  expect(status.nextRunAt).not.toBeNull();
});

it('leaves matches and new people in Needs Attention, and bad e-mail addresses in their bucket', async () => {
  const counts = await json<RecordCounts>(await send(`/web-api/v1/records/${demo.formulaId}/counts`));
  expect(counts.views['new-records']).toBe(DEMO_ROWS.new);
  // every copy, exact or messy, finds its one constituent (the messy ones by e-mail in another case, or by last name with postcode or phone)
  expect(counts.views['needs-attention-one-to-one']).toBe(DEMO_ROWS.exact + DEMO_ROWS.messy);
  expect(counts.views['needs-attention']).toBe(DEMO_ROWS.exact + DEMO_ROWS.messy + DEMO_ROWS.new);
  expect(counts.customBuckets).toEqual([{ name: DEMO_BAD_EMAIL_BUCKET, count: DEMO_ROWS.badEmail }]);
  expect(counts.total).toBe(DEMO_ROWS.exact + DEMO_ROWS.messy + DEMO_ROWS.new + DEMO_ROWS.badEmail);
});
