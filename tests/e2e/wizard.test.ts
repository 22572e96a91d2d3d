/**
 * The Formula Wizard end to end in Chromium, as the Formula Producer: a CSV uploaded on
 * /files/upload becomes the sample of a formula into the Sandbox CRM, built through every step
 * the formula has (data sources, formula type, destination settings, mapping with a transform,
 * matching, routing, review with its printout, processing), then listed as Active. On the way:
 * the browser's back button, a reload, and closing with unsaved changes. Then its lifecycle in All
 * Formulas: copied as a draft that opens in the wizard, whose stepper marks only the steps set up;
 * archived after a question (its waiting run cancelled), unarchived, archived again and deleted
 * after a question that says how many records and runs go.
 *
 * Only the file-upload data source is made through the API (a Formula Producer may not add one);
 * everything else goes through the screens.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, sessionFor } from '../support/api.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PRODUCER = 'formula.producer@demo.tributary.test';
const NAME = 'Spring supporters';
const FILE = 'spring-supporters.csv';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1440, height: 900 };
/** how long a change may take to show: a save, its notification, the next step's data */
const SOON = { timeout: 15_000 };

/** 25 supporters with a phone and a zip (csvText's rows have four columns); last names in lower case, so title case visibly changes them */
function supportersCsv(): string {
  const lines = ['First name,Last name,Email,Phone,Zip'];
  for (let i = 1; i <= 25; i++) lines.push(`Ann${i},smith${i},ann${i}@example.org,555-010${i % 10},0210${i % 10}`);
  return `${lines.join('\r\n')}\r\n`;
}

const clamavSocket = inject('clamavSocket');
let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist'), env: clamavSocket ? { CLAMAV_SOCKET: clamavSocket } : {} });
  browser = await launchChromium();
  const db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  // the producer has signed in before: no welcome page
  await db.query('update users set login_count = 5 where email = $1', [PRODUCER]);
  await db.end();

  // the file-upload data source the formula reads from, added as a Connection Manager would
  const admin = await sessionFor(server.url, 'administrator@demo.tributary.test');
  const me = await (await call(server.url, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers })).json() as { activeTenantId: string };
  const created = await call(server.url, '/integrations/v1/data-sources', {
    method: 'POST', headers: { ...admin.headers, tenantId: me.activeTenantId },
    body: { system: 'file-upload', displayName: 'Uploads', settings: {} },
  });
  expect(created.status).toBe(201);

  context = await browser.newContext({ viewport: DESKTOP });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
});
// what the screen showed when a step could not be done
afterEach(async (test) => {
  if (test.task.result?.state === 'fail') await page?.screenshot({ path: '/tmp/wizard-failure.png' }).catch(() => undefined);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

// ------------------------------------------------------------------ what the person sees

const wizard = () => page.getByRole('dialog', { name: /^Formula Wizard/ });
const openStep = () => wizard().locator('[data-step]').getAttribute('data-step');
const addressStep = () => new URL(page.url()).searchParams.get('wizardStep');
/** the steps' titles as shown (a step set up also says so to screen readers, after its title) */
const stepperLabels = () => wizard().locator('.mantine-Stepper-stepLabel > span:first-child').allTextContents();
const button = (name: string) => wizard().getByRole('button', { name, exact: true });

async function shot(name: string) {
  await page.screenshot({ path: `/tmp/wizard-${name}.png`, fullPage: false });
}

/** The step is open on screen and named by the address. */
async function expectAt(step: string) {
  await expect.poll(openStep, SOON).toBe(step);
  await expect.poll(addressStep, SOON).toBe(step);
}

/** What the screen says went wrong: field errors, alerts and notifications (a failed save names its reason). */
async function problemsShown(): Promise<string> {
  const texts = await page.locator('.mantine-InputWrapper-error, [role="alert"]').allTextContents();
  return texts.filter((t) => !/has been saved/.test(t)).join(' | ');
}

/** Saves the open step: its notification shows and the wizard moves on, in the address too. */
async function saveAndExpect(title: string, next: string, label = 'Save and continue') {
  await button(label).click();
  const saved = page.getByText(`${title} has been saved`).first();
  await expect.poll(async () => ((await saved.isVisible()) ? 'saved' : (await problemsShown()) || 'not yet'), SOON).toBe('saved');
  await expectAt(next);
}

describe('the Formula Wizard in Chromium', () => {
  it('builds a formula from an uploaded CSV into the Sandbox CRM, step by step, and activates it', async () => {
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

    await signInThroughApp(page, server.url, PRODUCER);
    await page.getByRole('button', { name: /User menu/ }).first().waitFor();

    // ---- the upload
    await page.goto(`${server.url}/files/upload`);
    await page.getByRole('heading', { name: 'Upload a file' }).waitFor();
    await page.locator('[data-testid="upload-dropzone"] input[type="file"]')
      .setInputFiles({ name: FILE, mimeType: 'text/csv', buffer: Buffer.from(supportersCsv()) });
    const outcome = page.locator('[role="alert"][data-outcome]');
    await expect.poll(() => outcome.getAttribute('data-outcome'), SOON).toBe('success');
    expect(await outcome.textContent()).toContain('25 rows');
    expect(await page.getByRole('table', { name: 'Sample rows' }).getByRole('columnheader').allTextContents())
      .toEqual(['First name', 'Last name', 'Email', 'Phone', 'Zip']);

    // ---- All Formulas: Create a formula opens the wizard on a new draft
    await page.goto(`${server.url}/integrations-formulas`);
    await page.getByRole('heading', { name: 'All Formulas', level: 1 }).waitFor();
    const create = page.getByRole('button', { name: 'Create a formula' });
    await create.or(page.getByRole('alert')).first().waitFor();
    expect(await problemsShown()).toBe('');
    // opened and closed with nothing saved: no "Untitled formula" stays behind
    const untitled = () => page.getByRole('table', { name: 'Formulas' }).getByRole('cell', { name: 'Untitled formula', exact: true }).count();
    const before = await untitled();
    await create.click();
    await wizard().waitFor();
    await page.waitForURL(/[?&]wizardFormulaId=[^&]+&wizardStep=data-sources/);
    const abandoned = new URL(page.url()).searchParams.get('wizardFormulaId')!;
    await page.getByRole('button', { name: 'Close the wizard' }).click();
    await page.waitForURL((u) => !u.searchParams.has('wizardFormulaId'));
    await expect.poll(async () => (await server.database.pool.query('select count(*)::int as n from formulas where id = $1', [abandoned])).rows[0].n, SOON).toBe(0);
    expect(await untitled()).toBe(before);

    await create.click();
    await wizard().waitFor();
    await page.waitForURL(/[?&]wizardFormulaId=[^&]+&wizardStep=data-sources/);
    const formulaId = new URL(page.url()).searchParams.get('wizardFormulaId')!;
    await expectAt('data-sources');

    // ---- 1. data sources
    await wizard().getByRole('textbox', { name: /^Formula name/ }).fill(NAME);
    await wizard().getByRole('combobox', { name: /^Source/ }).selectOption({ label: 'Uploads (File upload)' });
    await wizard().getByRole('combobox', { name: /^Destination/ }).selectOption({ label: 'Sandbox CRM (Sandbox CRM)' });
    await shot('1-data-sources');
    await saveAndExpect('Data sources', 'formula-types');
    await expect.poll(() => wizard().getByRole('heading', { name: `Formula Wizard: ${NAME}` }).isVisible(), SOON).toBe(true);
    // a file-upload formula runs for each file: it has no schedule
    expect(await stepperLabels()).toEqual([
      'Data sources', 'Formula type', 'Destination settings', 'Mapping', 'Matching', 'Routing', 'Review', 'Processing',
    ]);

    // ---- 2. formula type: the uploaded file is the sample; constituents are written
    const sampleFile = wizard().getByRole('combobox', { name: /^Sample file/ });
    await expect.poll(() => sampleFile.isEnabled(), SOON).toBe(true);
    const uploaded = sampleFile.locator('option', { hasText: FILE });
    await uploaded.waitFor({ state: 'attached' });
    await sampleFile.selectOption((await uploaded.getAttribute('value'))!);
    const destinationObject = wizard().getByRole('combobox', { name: /^Destination object/ });
    await expect.poll(() => destinationObject.isEnabled(), SOON).toBe(true);
    await destinationObject.selectOption({ label: 'Constituents' });
    expect(await sampleFile.locator('option:checked').textContent()).toContain(FILE);
    await saveAndExpect('Formula type', 'additional-settings-destination');

    // ---- 3. the Sandbox CRM's settings as a destination
    await wizard().getByLabel('When a record matches', { exact: true }).click();
    await page.getByRole('option', { name: 'Fill blank fields only', exact: true }).click();
    await shot('3-destination-settings');
    await saveAndExpect('Destination settings', 'mapping');

    // ---- 4. mapping: the file's columns come mapped by their names; the producer keeps three, last name title-cased
    const fieldsTable = wizard().getByRole('table', { name: 'Destination fields' });
    await fieldsTable.waitFor();
    expect(await wizard().getByTestId('mapping-suggested').textContent()).toContain('5 fields were mapped from source fields with matching names');
    for (const [destination, source] of [['First name', 'First name'], ['Last name', 'Last name'], ['E-mail', 'Email'], ['Phone', 'Phone'], ['Postal code', 'Zip']] as const) {
      expect(await fieldsTable.getByRole('combobox', { name: `Source field for ${destination}` }).inputValue()).toBe(source);
    }
    for (const destination of ['Phone', 'Postal code']) {
      await fieldsTable.getByRole('combobox', { name: `How ${destination} is filled` }).selectOption('ignored');
    }
    const preview = wizard().getByRole('table', { name: 'Preview' });
    const lastNames = () => preview.locator('td[data-field="lastName"]').allTextContents();
    await expect.poll(lastNames, SOON).toEqual(['smith1', 'smith2', 'smith3', 'smith4', 'smith5']);
    expect(await preview.locator('td[data-field="email"]').first().textContent()).toBe('ann1@example.org');

    await fieldsTable.getByRole('button', { name: 'Transforms of Last name' }).click();
    const transforms = page.getByRole('dialog', { name: 'Transforms of Last name' });
    await transforms.getByRole('button', { name: 'Change case' }).click();
    await transforms.getByRole('combobox', { name: 'Case' }).selectOption({ label: 'Title Case' });
    const after = transforms.getByRole('table', { name: 'Sample rows before and after' }).locator('tbody td:nth-child(3)');
    await expect.poll(() => after.allTextContents(), SOON).toEqual(['“Smith1”', '“Smith2”', '“Smith3”', '“Smith4”', '“Smith5”']);
    await shot('4-transforms');
    await transforms.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => fieldsTable.getByRole('button', { name: 'Transforms of Last name (1)' }).isVisible(), SOON).toBe(true);
    await expect.poll(lastNames, SOON).toEqual(['Smith1', 'Smith2', 'Smith3', 'Smith4', 'Smith5']);
    await shot('4-mapping');
    await page.setViewportSize(PHONE);
    await shot('4-mapping-phone');
    await page.setViewportSize(DESKTOP);
    await saveAndExpect('Mapping', 'matching');

    // ---- 5. matching: the recommended scenarios are there to check, then saved
    await wizard().getByTestId('recommended-note').waitFor();
    const scenarioNames = await wizard().getByTestId('scenario').getByRole('textbox', { name: 'Scenario name' }).evaluateAll(
      (inputs) => inputs.map((i) => (i as HTMLInputElement).value),
    );
    expect(scenarioNames).toContain('E-mail');
    expect(scenarioNames).toContain('Last name and postal code');
    await saveAndExpect('Matching', 'routing');

    // ---- back returns to the previous step; forward and reload come back to this one
    await page.goBack();
    await expectAt('matching');
    await page.goForward();
    await expectAt('routing');
    await page.reload();
    await wizard().waitFor();
    await expectAt('routing');
    expect(new URL(page.url()).searchParams.get('wizardFormulaId')).toBe(formulaId);

    // ---- closing with unsaved changes asks first; Stay keeps them
    const unmatched = wizard().getByRole('radiogroup', { name: 'Records with no match' });
    await unmatched.getByRole('radio', { name: 'Add to Ready as new records' }).check();
    await page.getByRole('button', { name: 'Close the wizard' }).click();
    const unsaved = page.getByRole('dialog', { name: 'Unsaved changes' });
    await unsaved.waitFor();
    expect(await unsaved.getByRole('button', { name: 'Leave without saving' }).isVisible()).toBe(true);
    await shot('6-unsaved');
    await unsaved.getByRole('button', { name: 'Stay' }).click();
    await expect.poll(() => unsaved.isVisible(), SOON).toBe(false);
    expect(await unmatched.getByRole('radio', { name: 'Add to Ready as new records' }).isChecked()).toBe(true);
    await expectAt('routing');
    // so does Back; staying puts the step back in the address
    await page.goBack();
    await unsaved.waitFor();
    await unsaved.getByRole('button', { name: 'Stay' }).click();
    await expectAt('routing');
    expect(await unmatched.getByRole('radio', { name: 'Add to Ready as new records' }).isChecked()).toBe(true);

    // ---- 6. routing: the defaults
    await unmatched.getByRole('radio', { name: 'Review in Needs Attention' }).check();
    await saveAndExpect('Routing', 'review');

    // ---- 7. review: every part in words, and its printout
    const summary = wizard().getByTestId('formula-summary');
    await summary.waitFor();
    const section = (id: string) => summary.locator(`[data-summary="${id}"]`);
    await expect.poll(() => section('name').textContent(), SOON).toContain(`${NAME} (draft)`);
    expect(await section('source').textContent()).toContain('Uploads (File upload)');
    await expect.poll(() => section('source').textContent(), SOON).toContain(FILE);
    expect(await section('destination').textContent()).toContain('Sandbox CRM (Sandbox CRM)');
    expect(await section('destination').textContent()).toContain('Constituents');
    expect(await section('destination-settings').textContent()).toContain('When a record matches: Fill blank fields only');
    expect(await section('mapping').textContent()).toContain('3 fields mapped');
    // destination fields by their labels
    expect(await section('transform').textContent()).toContain('Last name: change to title case');
    expect(await section('matching').textContent()).toContain('E-mail (primary): Email matches E-mail');
    expect(await section('routing').textContent()).toContain('Unmatched records: review in Needs Attention');
    expect(await section('autosend').textContent()).toContain('Ready records are held for review');
    expect(await section('schedule').textContent()).toContain('Runs each time a file is uploaded for it');
    await shot('7-review');
    await page.setViewportSize(PHONE);
    await shot('7-review-phone');
    await page.setViewportSize(DESKTOP);

    const [print] = await Promise.all([
      context.waitForEvent('page'),
      wizard().getByRole('link', { name: 'Print the review' }).click(),
    ]);
    await print.waitForLoadState();
    expect(new URL(print.url()).pathname).toBe(`/${formulaId}/print-formula-review`);
    await print.getByRole('heading', { name: `Formula review: ${NAME}` }).waitFor();
    const printed = print.getByTestId('formula-print');
    await expect.poll(() => printed.getByTestId('formula-summary').isVisible(), SOON).toBe(true);
    expect(await printed.textContent()).toContain('3 fields mapped');
    expect(await printed.textContent()).toContain('When a record matches: Fill blank fields only');
    await expect.poll(() => print.getByRole('button', { name: 'Print' }).isEnabled(), SOON).toBe(true);
    // nothing to edit on paper
    expect(await printed.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    await print.screenshot({ path: '/tmp/wizard-8-print.png', fullPage: true });
    await print.close();

    await button('Continue').click();
    await expectAt('processing');

    // ---- 8. processing: activating ends the draft, and with it this step: the review of the live formula shows
    await shot('9-processing');
    await saveAndExpect('Processing', 'review', 'Activate the formula');
    expect(await stepperLabels()).toEqual(['Data sources', 'Formula type', 'Destination settings', 'Mapping', 'Matching', 'Routing', 'Review']);
    await expect.poll(() => section('name').textContent(), SOON).toMatch(new RegExp(`${NAME}$`));
    await shot('9-activated');

    // ---- leaving an edit without saving keeps the formula as it was
    await wizard().getByRole('button', { name: 'Edit Formula name' }).click();
    await expectAt('data-sources');
    await wizard().getByRole('textbox', { name: /^Formula name/ }).fill('Renamed, never saved');
    await page.getByRole('button', { name: 'Close the wizard' }).click();
    await unsaved.getByRole('button', { name: 'Leave without saving' }).click();
    await expect.poll(() => wizard().count(), SOON).toBe(0);
    expect(new URL(page.url()).searchParams.has('wizardFormulaId')).toBe(false);

    // ---- the formula is listed as Active, no longer a draft
    const row = page.getByRole('table', { name: 'Formulas' }).getByRole('row').filter({ hasText: NAME });
    await expect.poll(() => row.getByRole('cell').nth(3).textContent(), SOON).toBe('Active');
    expect(await row.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining([
      NAME, 'Uploads (uploaded files)', 'Sandbox CRM (Constituents)',
    ]));
    expect(await page.getByText('Renamed, never saved').count()).toBe(0);
    await shot('10-all-formulas');

    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });

  it('copies the formula as a draft, archives it, brings it back, and deletes it once archived', async () => {
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.setViewportSize(WIDE);
    await page.goto(`${server.url}/integrations-formulas`);
    const table = page.getByRole('table', { name: 'Formulas' });
    const rowOf = (name: string) => table.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
    /** a dialog done opening: its transition over */
    const opened = async (dialog: ReturnType<typeof page.getByRole>) => {
      await dialog.waitFor();
      await expect.poll(() => dialog.evaluate((e) => getComputedStyle(e).opacity), SOON).toBe('1');
    };
    /** the list as a phone shows it, loaded at that size: a card per formula */
    const cards = page.getByRole('list', { name: 'Formulas' });
    const onPhone = async (then: () => Promise<void>) => {
      await page.setViewportSize(PHONE);
      await page.reload();
      await cards.waitFor();
      await then();
      await page.setViewportSize(WIDE);
      await page.reload();
      await table.waitFor();
    };
    await rowOf(NAME).waitFor();
    const originalId = ((await server.database.pool.query('select id from formulas where name = $1', [NAME])).rows[0] as { id: string }).id;

    // ---- Copy: a draft with every part, opened in the wizard at its first step not set up
    await page.getByRole('button', { name: `Copy ${NAME}`, exact: true }).click();
    await wizard().waitFor();
    await expect.poll(() => wizard().getByRole('heading', { name: `Formula Wizard: Copy of ${NAME}` }).isVisible(), SOON).toBe(true);
    const copyId = new URL(page.url()).searchParams.get('wizardFormulaId')!;
    expect(copyId).not.toBe(originalId);
    await expectAt('review');
    const copied = (await server.database.pool.query('select part from formula_parts where formula_id = $1 order by part', [copyId])).rows.map((r) => r.part);
    const original = (await server.database.pool.query('select part from formula_parts where formula_id = $1 order by part', [originalId])).rows.map((r) => r.part);
    expect(copied).toEqual(original);
    await page.getByRole('button', { name: 'Close the wizard' }).click();
    await page.waitForURL((u) => !u.searchParams.has('wizardFormulaId'));
    const copyRow = rowOf(`Copy of ${NAME}`);
    await expect.poll(() => copyRow.getByRole('cell').nth(3).textContent(), SOON).toBe('Draft');

    // ---- the copy's routing removed: Edit opens at routing, and the stepper marks the steps set up on both sides of it, not routing
    const producer = await sessionFor(server.url, PRODUCER);
    const me = await (await call(server.url, `/account-management/v1/User/organization/${producer.orgId}/user`, { headers: producer.headers })).json() as { activeTenantId: string };
    expect((await call(server.url, `/web-api/v1/formulas/${copyId}/parts/routing`, { method: 'DELETE', headers: { ...producer.headers, tenantId: me.activeTenantId } })).status).toBe(204);
    await page.reload();
    await copyRow.getByRole('link', { name: `Edit Copy of ${NAME}` }).click();
    await wizard().waitFor();
    await expectAt('routing');
    const setUp = async () => Object.fromEntries(await wizard().locator('[aria-label="Wizard steps"] button').evaluateAll(
      (steps) => steps.map((b) => [b.querySelector('.mantine-Stepper-stepLabel span')?.textContent ?? '', (b as HTMLElement).dataset.setUp === 'true']),
    )) as Record<string, boolean>;
    expect(await setUp()).toEqual({
      'Data sources': true, 'Formula type': true, 'Destination settings': true, 'Mapping': true, 'Matching': true,
      // a draft is activated at processing: its autosend part (saved with routing) does not make it done
      'Routing': false, 'Review': false, 'Processing': false,
    });
    await page.screenshot({ path: '/tmp/lifecycle-1-stepper.png' });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: '/tmp/lifecycle-1-stepper-phone.png' });
    await page.setViewportSize(WIDE);
    await page.getByRole('button', { name: 'Close the wizard' }).click();
    await page.waitForURL((u) => !u.searchParams.has('wizardFormulaId'));

    // ---- a run waits for the live formula (an uploaded file); archiving asks, stops it and cancels that run
    const form = new FormData();
    form.append('file', new Blob([supportersCsv()], { type: 'text/csv' }), 'more-supporters.csv');
    const upload = await fetch(`${server.url}/flat-file-service/v1/uploads?formulaId=${originalId}`, { method: 'POST', headers: { ...producer.headers, tenantId: me.activeTenantId }, body: form });
    expect(upload.status, await upload.clone().text()).toBe(201);
    await expect.poll(async () => (await server.database.pool.query('select count(*)::int as n from formula_runs where formula_id = $1 and finished_on is null', [originalId])).rows[0].n, SOON).toBe(1);
    const row = rowOf(NAME);
    await row.getByRole('button', { name: `Archive ${NAME}` }).click();
    const archiveQuestion = page.getByRole('dialog', { name: 'Archive formula' });
    await opened(archiveQuestion);
    expect(await archiveQuestion.textContent()).toContain(`Archive ${NAME}? It stops`);
    await page.screenshot({ path: '/tmp/lifecycle-2-archive-question.png' });
    await archiveQuestion.getByRole('button', { name: 'Archive', exact: true }).click();
    await page.getByRole('status').filter({ hasText: `The formula ${NAME} was archived.` }).waitFor();
    await expect.poll(() => row.getByRole('group', { name: `Status of ${NAME}` }).textContent(), SOON).toBe('Archived');
    expect(await row.getByRole('button', { name: new RegExp(`^(Run now|Pause|Deactivate|Clear data|Upload a file)`) }).count()).toBe(0);
    expect((await server.database.pool.query('select count(*)::int as n from formula_runs where formula_id = $1 and finished_on is null', [originalId])).rows[0].n).toBe(0);
    await page.screenshot({ path: '/tmp/lifecycle-3-archived.png' });
    await onPhone(async () => {
      await page.screenshot({ path: '/tmp/lifecycle-3-archived-phone.png' });
      // each formula is a card: its actions are within the screen
      await cards.getByRole('button', { name: `Unarchive ${NAME}`, exact: true }).scrollIntoViewIfNeeded();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await page.screenshot({ path: '/tmp/lifecycle-3-archived-phone-actions.png' });
    });

    // ---- unarchived it comes back inactive; archived again, it can be deleted after a question that says what goes
    await row.getByRole('button', { name: `Unarchive ${NAME}` }).click();
    await page.getByRole('status').filter({ hasText: `The formula ${NAME} is back, inactive: activate it to run it again.` }).waitFor();
    await expect.poll(() => row.getByRole('group', { name: `Status of ${NAME}` }).textContent(), SOON).toBe('Inactive');
    await row.getByRole('button', { name: `Archive ${NAME}` }).click();
    await archiveQuestion.getByRole('button', { name: 'Archive', exact: true }).click();
    await page.getByRole('status').filter({ hasText: `The formula ${NAME} was archived.` }).waitFor();
    await row.getByRole('button', { name: `Delete ${NAME}` }).click();
    const deleteQuestion = page.getByRole('dialog', { name: 'Delete formula' });
    await opened(deleteQuestion);
    await expect.poll(() => deleteQuestion.textContent(), SOON).toContain(`Delete the formula ${NAME}? Its 0 records and 1 run go with it, and it cannot be undone.`);
    await page.screenshot({ path: '/tmp/lifecycle-4-delete-question.png' });
    await deleteQuestion.getByRole('button', { name: 'Keep it' }).click();
    await onPhone(async () => {
      await cards.getByRole('button', { name: `Delete ${NAME}`, exact: true }).click();
      await opened(deleteQuestion);
      await page.screenshot({ path: '/tmp/lifecycle-4-delete-question-phone.png' });
      await deleteQuestion.getByRole('button', { name: 'Keep it' }).click();
      await expect.poll(() => deleteQuestion.count(), SOON).toBe(0);
    });
    await row.getByRole('button', { name: `Delete ${NAME}` }).click();
    await opened(deleteQuestion);
    await deleteQuestion.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('status').filter({ hasText: `The formula ${NAME} was deleted.` }).waitFor();
    await expect.poll(() => rowOf(NAME).count(), SOON).toBe(0);
    expect(await copyRow.count()).toBe(1);
    expect((await server.database.pool.query('select count(*)::int as n from formulas where id = $1', [originalId])).rows[0].n).toBe(0);
    await page.screenshot({ path: '/tmp/lifecycle-5-deleted.png' });

    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
