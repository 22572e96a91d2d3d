/**
 * A Formula Producer starts a file-upload formula alone, in Chromium: no one has added a data
 * source for files; the producer uploads a CSV on /files/upload, chooses 'Create a formula from
 * this file', and the wizard opens on the new draft (its source the tenant's built-in File upload,
 * its sample the file) at its first step not set up; with a destination chosen, the mapping shows
 * the file's columns. Screenshots at 1440 and 390 px go to /tmp/upload-formula-*.png.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { signedInBefore, signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PRODUCER = 'formula.producer@demo.tributary.test';
const FILE = 'walk-in-donors.csv';
const WIDE = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const SOON = { timeout: 15_000 };

function donorsCsv(): string {
  const lines = ['First name,Last name,Email,Zip'];
  for (let i = 1; i <= 8; i++) lines.push(`Bea${i},jones${i},bea${i}@example.org,0220${i}`);
  return `${lines.join('\r\n')}\r\n`;
}

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  browser = await launchChromium();
  await signedInBefore(server, [PRODUCER]);
  context = await browser.newContext({ viewport: WIDE });
  context.setDefaultTimeout(20_000);
  page = await context.newPage();
});
afterEach(async (test) => {
  if (test.task.result?.state === 'fail') await page?.screenshot({ path: '/tmp/upload-formula-failure.png' }).catch(() => undefined);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

const wizard = () => page.getByRole('dialog', { name: /^Formula Wizard/ });
const openStep = () => wizard().locator('[data-step]').getAttribute('data-step');

async function shots(name: string) {
  await page.setViewportSize(WIDE);
  await page.screenshot({ path: `/tmp/upload-formula-${name}-1440.png` });
  await page.setViewportSize(PHONE);
  // the shell's navigation slides away as the width changes
  await page.waitForTimeout(600);
  await page.screenshot({ path: `/tmp/upload-formula-${name}-390.png`, fullPage: true });
  await page.setViewportSize(WIDE);
}

async function saveAndExpect(title: string, next: string) {
  await wizard().getByRole('button', { name: 'Save and continue', exact: true }).click();
  await page.getByText(`${title} has been saved`).first().waitFor();
  await expect.poll(openStep, SOON).toBe(next);
}

describe('a Formula Producer starts a file-upload formula from an upload', () => {
  it('uploads a file, creates a formula from it, and maps its columns in the wizard', async () => {
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await signInThroughApp(page, server.url, PRODUCER);
    await page.getByRole('button', { name: /User menu/ }).first().waitFor();

    await page.goto(`${server.url}/files/upload`);
    await page.getByRole('heading', { name: 'Upload a file' }).waitFor();
    await page.locator('[data-testid="upload-dropzone"] input[type="file"]').setInputFiles({ name: FILE, mimeType: 'text/csv', buffer: Buffer.from(donorsCsv()) });
    const outcome = page.locator('[role="alert"][data-outcome]');
    await expect.poll(() => outcome.getAttribute('data-outcome'), SOON).toBe('success');
    const create = page.getByRole('button', { name: 'Create a formula from this file' });
    await create.waitFor();
    await shots('uploaded');

    await create.click();
    await wizard().waitFor();
    // over All Formulas, at the first step not set up: the destination is still to choose
    await page.waitForURL(/\/integrations-formulas\?wizardFormulaId=[^&]+&wizardStep=data-sources/);
    await expect.poll(openStep, SOON).toBe('data-sources');
    const formulaId = new URL(page.url()).searchParams.get('wizardFormulaId')!;
    const source = wizard().getByRole('combobox', { name: /^Source/ });
    await expect.poll(() => source.locator('option:checked').textContent(), SOON).toBe('File upload (File upload)');
    expect(await wizard().getByRole('textbox', { name: /^Formula name/ }).inputValue()).toBe('walk-in-donors');
    await shots('wizard-opened');

    await wizard().getByRole('combobox', { name: /^Destination/ }).selectOption({ label: 'Sandbox CRM (Sandbox CRM)' });
    await saveAndExpect('Data sources', 'formula-types');

    // the uploaded file is the sample
    const sampleFile = wizard().getByRole('combobox', { name: /^Sample file/ });
    await expect.poll(() => sampleFile.isEnabled(), SOON).toBe(true);
    expect(await sampleFile.locator('option:checked').textContent()).toContain(FILE);
    const destinationObject = wizard().getByRole('combobox', { name: /^Destination object/ });
    await expect.poll(() => destinationObject.isEnabled(), SOON).toBe(true);
    await destinationObject.selectOption({ label: 'Constituents' });
    await saveAndExpect('Formula type', 'additional-settings-destination');
    await saveAndExpect('Destination settings', 'mapping');

    // the file's columns, mapped by their names
    const fieldsTable = wizard().getByRole('table', { name: 'Destination fields' });
    await fieldsTable.waitFor();
    for (const [destination, column] of [['First name', 'First name'], ['Last name', 'Last name'], ['E-mail', 'Email'], ['Postal code', 'Zip']] as const) {
      expect(await fieldsTable.getByRole('combobox', { name: `Source field for ${destination}` }).inputValue()).toBe(column);
    }
    const preview = wizard().getByRole('table', { name: 'Preview' });
    await expect.poll(() => preview.locator('td[data-field="email"]').first().textContent(), SOON).toBe('bea1@example.org');
    await shots('mapping');

    const { rows: [row] } = await server.database.pool.query('select uses_file_upload, sample_upload_id is not null as has_sample, is_draft from formulas where id = $1', [formulaId]);
    expect(row).toEqual({ uses_file_upload: true, has_sample: true, is_draft: true });
    // a part not saved yet answers 404, as in the wizard's own journey: only script errors count
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
  });
});
