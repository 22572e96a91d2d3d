/**
 * A normal walk through the app in Chromium leaves the console and the network quiet: no response
 * of 400 or above and no console error. The walk: a Formula Producer uploads a file and builds a
 * new draft step by step (data sources, formula type, destination settings, mapping, matching,
 * a reload, routing, review), closes the wizard, then moves between screens by the navigation while
 * the formula status stream is open; the View Only user, the Connection Manager and the Data
 * Processor open every screen their roles give them (each has some objects it may not read).
 *
 * What the app knows is not there or not allowed it does not ask for: parts a formula does not list
 * as saved are not read, and a role is not sent for data its policies forbid.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { call, sessionFor } from '../support/api.ts';
import { signedInBefore, signedInContexts } from '../support/appSession.ts';
import { launchChromium, requestsOf } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const DEMO = '@demo.tributary.test';
const FILE = 'walk-supporters.csv';
const SOON = { timeout: 15_000 };
/** the screens of the main navigation, by their links' names */
const SCREENS = ['Data Queue', 'All Formulas', 'Connections', 'Activity History', 'User Management'];

let server: TestServer;
let browser: Browser;
let signedIn: ReturnType<typeof signedInContexts>;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  // the file-upload data source the draft reads from, and a formula for every screen to list
  const admin = await sessionFor(server.url, `administrator${DEMO}`);
  const me = await (await call(server.url, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers })).json() as { activeTenantId: string };
  const headers = { ...admin.headers, tenantId: me.activeTenantId };
  expect((await call(server.url, '/integrations/v1/data-sources', { method: 'POST', headers, body: { system: 'file-upload', displayName: 'Uploads', settings: {} } })).status).toBe(201);
  expect((await call(server.url, '/web-api/v1/formulas', { method: 'POST', headers, body: { name: 'Walked formula' } })).status).toBe(201);
  await signedInBefore(server);
  browser = await launchChromium();
  signedIn = signedInContexts(browser, server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** What the page logged as an error and every response of 400 or above, as the walk goes; `quiet` waits until what a screen reads has been read. */
function noiseOf(page: Page): string[] & { quiet: () => Promise<void> } {
  const noise = Object.assign([] as string[], { quiet: requestsOf(page).quiet });
  page.on('console', (m) => { if (m.type() === 'error') noise.push(`console: ${m.text()} (at ${new URL(page.url()).pathname})`); });
  page.on('pageerror', (e) => noise.push(`page error: ${e.message}`));
  page.on('response', (r) => { if (r.status() >= 400) noise.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`); });
  return noise;
}

/** Opens each screen the navigation offers by its link, waiting for its heading. */
async function walkTheNavigation(page: Page, quiet: () => Promise<void>) {
  const nav = page.getByRole('navigation', { name: 'Main navigation' });
  await nav.waitFor();
  for (const name of SCREENS) {
    const link = nav.getByRole('link', { name, exact: true });
    if (!(await link.count())) continue;
    await link.click();
    await page.getByRole('heading', { level: 1, name: name === 'All Formulas' ? 'All Formulas' : name }).waitFor();
    // what the screen reads once it is open
    await quiet();
  }
}

describe('a normal walk is quiet in the console and the network', () => {
  it('a Formula Producer builds a draft in the wizard and moves between screens with the status stream open', async () => {
    const { context, page } = await signedIn(`formula.producer${DEMO}`);
    const noise = noiseOf(page);
    const wizard = () => page.getByRole('dialog', { name: /^Formula Wizard/ });
    const step = () => wizard().locator('[data-step]').getAttribute('data-step');
    const save = async (title: string, next: string) => {
      await wizard().getByRole('button', { name: 'Save and continue', exact: true }).click();
      await page.getByText(`${title} has been saved`).first().waitFor();
      await expect.poll(step, SOON).toBe(next);
    };
    try {
      await page.goto(`${server.url}/files/upload`);
      await page.getByRole('heading', { name: 'Upload a file' }).waitFor();
      await page.locator('[data-testid="upload-dropzone"] input[type="file"]')
        .setInputFiles({ name: FILE, mimeType: 'text/csv', buffer: Buffer.from('First name,Last name,Email\r\nAnn,Smith,ann@example.org\r\n') });
      await expect.poll(() => page.locator('[role="alert"][data-outcome]').getAttribute('data-outcome'), SOON).toBe('success');

      await page.goto(`${server.url}/integrations-formulas`);
      await page.getByRole('button', { name: 'Create a formula' }).click();
      await expect.poll(step, SOON).toBe('data-sources');
      await wizard().getByRole('textbox', { name: /^Formula name/ }).fill('Quiet walk');
      await wizard().getByRole('combobox', { name: /^Source/ }).selectOption({ label: 'Uploads (File upload)' });
      await wizard().getByRole('combobox', { name: /^Destination/ }).selectOption({ label: 'Sandbox CRM (Sandbox CRM)' });
      await save('Data sources', 'formula-types');

      const sampleFile = wizard().getByRole('combobox', { name: /^Sample file/ });
      const uploaded = sampleFile.locator('option', { hasText: FILE });
      await uploaded.waitFor({ state: 'attached' });
      await sampleFile.selectOption((await uploaded.getAttribute('value'))!);
      const destinationObject = wizard().getByRole('combobox', { name: /^Destination object/ });
      await expect.poll(() => destinationObject.isEnabled(), SOON).toBe(true);
      await destinationObject.selectOption({ label: 'Constituents' });
      await save('Formula type', 'additional-settings-destination');

      await wizard().getByLabel('When a record matches', { exact: true }).click();
      await page.getByRole('option', { name: 'Fill blank fields only', exact: true }).click();
      await save('Destination settings', 'mapping');

      // the mapping opens with the columns mapped by their names: no saved parts to read yet
      await wizard().getByRole('table', { name: 'Destination fields' }).waitFor();
      await save('Mapping', 'matching');
      await wizard().getByTestId('recommended-note').waitFor();
      await save('Matching', 'routing');
      await wizard().getByRole('radiogroup', { name: 'Records with no match' }).waitFor();

      // the saved steps read back after a reload, the unsaved one starts from its defaults
      await page.reload();
      await expect.poll(step, SOON).toBe('routing');
      const unmatched = wizard().getByRole('radiogroup', { name: 'Records with no match' });
      await unmatched.getByRole('radio', { name: 'Review in Needs Attention' }).check();
      await save('Routing', 'review');
      await wizard().getByTestId('formula-summary').waitFor();
      // the review's dry run
      await noise.quiet();
      await page.getByRole('button', { name: 'Close the wizard' }).click();
      await page.waitForURL((u) => !u.searchParams.has('wizardFormulaId'));

      // the formula status stream is open on these screens; moving on closes it
      await walkTheNavigation(page, noise.quiet);
      await walkTheNavigation(page, noise.quiet);
    } finally {
      await context.close();
    }
    expect([...noise]).toEqual([]);
  });

  for (const role of ['view.only', 'connection.manager', 'data.processor']) {
    it(`${role} opens every screen the navigation offers`, async () => {
      const { context, page } = await signedIn(`${role}${DEMO}`);
      const noise = noiseOf(page);
      try {
        await page.goto(server.url);
        await walkTheNavigation(page, noise.quiet);
        await page.reload();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await noise.quiet();
      } finally {
        await context.close();
      }
      expect([...noise]).toEqual([]);
    });
  }
});
