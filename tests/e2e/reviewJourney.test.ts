/**
 * A reviewer's journey end to end in Chromium, through the real server and its job workers: a
 * formula runs a flat file of two supporters into the Sandbox CRM with everything held for review;
 * the Data Processor opens Needs Attention, finds with Match Search and picks the CRM record of
 * the one the searches could not match, and creates a new record for the other, exports the Ready bucket, and sends it. The CRM
 * then holds the new supporter, written once. The populated bucket screen is checked with axe-core,
 * with one h1, at desktop width and at a phone's 390 px (where the table scrolls in its container).
 * Then the day's work read back: Sent records says what the destination did with each and who sent
 * it, Omitted records is empty, and the formula's row leads to its run history, where the run's
 * "sent" counts what the processor sent by hand. Those screens are screenshotted at 1440 and 390 px
 * into /tmp/tributary-screens.
 */
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { dropCsv, liveFormula, runToEnd, sender, tenantSession } from '../support/engineRun.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let formula: string;
let tenantId: string;
let known: { id: string; email: string; firstName: string; lastName: string; lookupId: string };
const NEW_EMAIL = 'journey.newperson@example.org';
/** a supporter the searches cannot find: the reviewer knows who it is and finds them with Match Search */
const MYSTERY_EMAIL = 'mystery.donor@example.org';

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist'), work: true, env: { RUN_SLICE_MS: '100000' } });
  const admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  tenantId = admin.tenantId;
  const send = sender(server.url, admin);
  const { dataSources } = await (await send('/integrations/v1/data-sources')).json() as { dataSources: { id: string; system: string }[] };
  const crm = dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  const made = await send('/integrations/v1/data-sources', { method: 'POST', body: { system: 'flat-file', displayName: 'Journey drop', settings: { folder: 'journey' } } });
  expect(made.status, await made.clone().text()).toBe(201);
  const source = (await made.json() as { id: string }).id;
  for await (const batch of sandboxCrmStore(forTenant(server.database.db, tenantId)).pull('constituents', null, 1)) {
    const r = batch.records[0]!;
    known = { id: r.id, email: String(r.fields.email), firstName: String(r.fields.firstName ?? ''), lastName: String(r.fields.lastName), lookupId: String(r.fields.lookupId) };
    break;
  }
  formula = await liveFormula(send, { source, crm, object: 'people-*.csv' }, {
    routing: { kind: 'default', unmatched: 'needs-attention', singleMatch: 'needs-attention', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
    autosend: { enabled: false },
  });
  dropCsv(server.config.dataDir, tenantId, 'journey', 'people-1.csv', [
    ['First name', 'Last name', 'Email'],
    ['Mystery', 'Donor', MYSTERY_EMAIL],
    ['Newperson', 'Journey', NEW_EMAIL],
  ]);
  const run = await runToEnd(send, formula);
  expect(run.status, JSON.stringify(run)).toBe('finished');

  browser = await launchChromium();
  context = await browser.newContext();
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
  await signInThroughApp(page, server.url, 'data.processor@demo.tributary.test');
  await page.getByRole('button', { name: /User menu/ }).first().waitFor();
}, 180_000);
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

/** axe-core's violations over the document, or over what `within` selects, leaving out the `skip` rules. */
async function axeViolations(within?: string, skip: string[] = []): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async ({ selector, rules }) => {
    const { violations } = await (window as unknown as { axe: { run(ctx: unknown, o: object): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } })
      .axe.run(selector ? { include: [selector] } : document, { resultTypes: ['violations'], rules: Object.fromEntries(rules.map((r) => [r, { enabled: false }])) });
    return violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }, { selector: within ?? null, rules: skip });
}

const records = () => page.getByRole('table', { name: 'Records' });
const toolbar = () => page.getByRole('toolbar', { name: 'Record actions' });
/** the CRM's supporter as the review names them: by name and e-mail, and the CRM's own lookup id */
const knownName = () => `${`${known.firstName} ${known.lastName}`.trim()} · ${known.email} · Lookup ID ${known.lookupId}`;
const rowWith = (text: string) => records().getByRole('row').filter({ hasText: text });

describe('a Data Processor resolves Needs Attention, sends and exports', () => {
  it('shows the bucket, axe-clean with one h1, on a desktop and at 390 px', async () => {
    await page.goto(`${server.url}/${formula}/needs-attention`);
    await page.getByRole('heading', { level: 1, name: 'Needs Attention' }).waitFor();
    await rowWith(MYSTERY_EMAIL).waitFor();
    await rowWith(NEW_EMAIL).waitFor();
    expect(await page.locator('h1').count()).toBe(1);
    // a row reads the supporter's name, the file and line they came from, and the record's state
    const mystery = rowWith(MYSTERY_EMAIL).getByTestId('record-cell');
    expect(await mystery.getByRole('button').textContent()).toBe(`Mystery Donor · ${MYSTERY_EMAIL}`);
    expect(await mystery.getByTestId('source-position').textContent()).toBe('people-1.csv, line 2');
    expect(await mystery.getByTestId('source-position').getAttribute('title')).toBe('people-1.csv#2');
    await mystery.getByText('Needs Attention', { exact: true }).waitFor();
    expect(await axeViolations()).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.waitForTimeout(300);
      // at a phone's width the name and state come first, in sight without scrolling the table
      for (const shown of [mystery.getByRole('button'), mystery.getByText('Needs Attention', { exact: true })]) {
        const box = (await shown.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      // the table scrolls in its container; the page itself does not scroll sideways
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      expect(await axeViolations()).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }, 60_000);

  it('finds the CRM record of a supporter with Match Search, and picks it', async () => {
    await rowWith(MYSTERY_EMAIL).getByRole('button', { name: /^Review record/ }).click();
    const review = page.getByRole('dialog', { name: 'Record review' });
    await review.getByText('The searches found no destination record. Use Match Search, or create a new record.').waitFor();
    // titled by the supporter's name, with the file and line under it
    await review.getByRole('heading', { level: 2, name: `Mystery Donor · ${MYSTERY_EMAIL}` }).waitFor();
    expect(await review.getByTestId('source-position').textContent()).toBe('people-1.csv, line 2 · Source key people-1.csv#2');
    const search = review.getByLabel(/^Find a destination record/);
    await search.fill('ab');
    await review.getByRole('button', { name: 'Search' }).click();
    await review.getByText('Query search needs at least 3 characters').waitFor();
    await search.fill(known.email);
    await review.getByRole('button', { name: 'Search' }).click();
    await review.getByRole('button', { name: `Pick ${knownName()}` }).waitFor();
    // the review, with Match Search's results, is axe-clean too. As in tests/e2e/accessibility.test.ts,
    // Mantine draws the drawer's header as a <header> that axe alone counts as a second banner
    expect(await axeViolations('[role="dialog"]', ['landmark-no-duplicate-banner'])).toEqual([]);
    await review.getByRole('button', { name: `Pick ${knownName()}` }).click();
    await review.getByText(`Matched to destination record ${knownName()}.`).waitFor();
    await page.keyboard.press('Escape');
    await review.waitFor({ state: 'hidden' });
    // matched, it is ready: it has left Needs Attention
    await rowWith(MYSTERY_EMAIL).waitFor({ state: 'detached' });
  }, 60_000);

  it('creates a new record for the other', async () => {
    await rowWith(NEW_EMAIL).getByRole('checkbox').check();
    await toolbar().getByRole('button', { name: 'Create new' }).click();
    await page.getByText('1 record set to create new records.').waitFor();
    await page.getByText('No records in this bucket.').waitFor();
  }, 60_000);

  it('exports the Ready bucket, then sends it', async () => {
    await page.getByRole('navigation', { name: 'Buckets' }).getByRole('link', { name: /^Ready records/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Ready records' }).waitFor();
    await rowWith(MYSTERY_EMAIL).waitFor();
    await rowWith(NEW_EMAIL).waitFor();

    await toolbar().getByRole('button', { name: 'Export to CSV' }).click();
    await page.getByText(/Export complete: 2 records/).waitFor({ timeout: 30_000 });
    const trail: string[] = [];
    page.on('response', (r) => trail.push(`${r.status()} ${r.request().method()} ${r.url()}`));
    page.on('console', (m) => trail.push(`console: ${m.text()}`));
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 15_000 }).catch(async (e: unknown) => {
        throw new Error(`${String(e)}\n${await page.getByRole('status', { name: 'Export status' }).textContent()}\n${trail.join('\n')}`);
      }),
      page.getByRole('button', { name: 'Download CSV' }).click(),
    ]);
    // read through Playwright: the run's one Chromium is connected to, so the file is not on a local path
    const csv = await text(await download.createReadStream());
    expect(csv).toContain(NEW_EMAIL);
    expect(csv).toContain(MYSTERY_EMAIL);

    const repo = forTenant(server.database.db, tenantId);
    const before = (await sandboxCrmStore(repo).counts()).constituents;
    await page.getByRole('checkbox', { name: 'Select every record on this page' }).check();
    await toolbar().getByRole('button', { name: 'Send now' }).click();
    // asked first: how many records, of which formula, and what happens to them
    const asking = page.getByRole('dialog', { name: 'Send records now?' });
    await asking.getByText(/^2 records of .+ will be queued for sending to the destination now/).waitFor();
    const size = page.viewportSize()!;
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.waitForTimeout(600);
      await page.screenshot({ path: `/tmp/confirm-send-${width}.png` });
    }
    await page.setViewportSize(size);
    await asking.getByRole('button', { name: 'Send now' }).click();
    await page.getByText('2 records queued for sending.').waitFor();

    await expect.poll(async () => (await repo.records.countByState(formula)).sent ?? 0, { timeout: 30_000, interval: 250 }).toBe(2);
    // the new supporter was created; the one matched by hand updated its CRM record, not created one
    await new Promise((r) => setTimeout(r, 1000));
    expect((await sandboxCrmStore(repo).counts()).constituents - before).toBe(1);
    await page.reload();
    await page.getByText('No records in this bucket.').waitFor();
  }, 90_000);
});

const SHOTS = '/tmp/tributary-screens';
/** the page at a desktop's 1440 px and a phone's 390 px, axe-clean and never scrolling sideways at either */
async function shoot(name: string, { axe = true } = {}): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [width, height] of [[1440, 900], [390, 844]] as const) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at ${width} px`).toBeLessThanOrEqual(width);
    if (axe) expect(await axeViolations()).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describe('the day\'s work read back', () => {
  it('Sent records: created or updated, and by whom', async () => {
    await page.getByRole('navigation', { name: 'Buckets' }).getByRole('link', { name: /^Sent records/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Sent records' }).waitFor();
    await rowWith(MYSTERY_EMAIL).waitFor();
    const { rows: [processor] } = await server.database.pool.query<{ full_name: string }>('select full_name from users where email = $1', ['data.processor@demo.tributary.test']);
    // matched by hand to a CRM record: updated; the new supporter: created; both sent by the processor's Send now
    await rowWith(MYSTERY_EMAIL).getByText('Updated', { exact: true }).waitFor();
    await rowWith(NEW_EMAIL).getByText('Created', { exact: true }).waitFor();
    for (const email of [MYSTERY_EMAIL, NEW_EMAIL]) await rowWith(email).getByText(processor!.full_name, { exact: true }).waitFor();
    // nothing left to do with them but read and export
    expect(await toolbar().getByRole('button', { name: 'Send now' }).count()).toBe(0);
    await shoot('sent-records');
  }, 60_000);

  it('Omitted records: none, said so', async () => {
    await page.getByRole('navigation', { name: 'Buckets' }).getByRole('link', { name: /^Omitted records/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Omitted records' }).waitFor();
    await page.getByText('No records omitted.').waitFor();
    await shoot('omitted-records-empty');
  }, 60_000);

  it('the formula\'s Data Queue card: its last run, counting what was sent by hand, and the way to its run history', async () => {
    // the Data Queue opens from a person's second sign-in (SPEC.md section 2): this is the processor's first
    await server.database.pool.query('update users set login_count = 2 where email = $1', ['data.processor@demo.tributary.test']);
    await page.goto(`${server.url}/data-queue`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: /^Run history of / }) }).first();
    await card.getByText('Last run: 2 collected, 2 sent').waitFor();
    // the Data Queue's own axe findings (its count links, status badges and card headings) are not this journey's
    await shoot('data-queue-card', { axe: false });
  }, 60_000);

  it('the run history, from the formula\'s row: the run counts what was sent by hand', async () => {
    await page.goto(`${server.url}/integrations-formulas`);
    const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: /^Run history of / }) }).first();
    await row.getByText('2 collected, 2 sent').waitFor();
    await row.getByRole('link', { name: /^Run history of / }).click();
    await page.getByRole('heading', { level: 1, name: 'Run history' }).waitFor();
    const run = page.getByTestId('run').first();
    await run.getByText('Run now', { exact: true }).waitFor();
    await run.getByText('Finished', { exact: true }).waitFor();
    const counts = run.getByRole('list', { name: 'Counts per stage' });
    expect(await counts.getByRole('listitem').allTextContents()).toEqual(['2 collected', 'New: 2', '2 sent (2 by hand)']);
    await shoot('run-history');
  }, 60_000);
});
