/**
 * The Connections journey in Chromium, as the administrator: the Data Sources list at
 * /connections, adding an HTTP data source with validation and a connection test, editing it
 * with its saved secret kept behind the shield, a failed test, and deleting it: refused while a
 * formula uses it, done once no formula does; and importing constituents into the Sandbox CRM
 * from a file whose headers it does not know, once the person says which column is which. Needs
 * the app shell to mount ConnectionsPage at /connections.
 */
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CONNECTION_FIELD_MESSAGE } from '../../src/domain/connectors/fields.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;
let api: http.Server;
let apiUrl: string;
let db: pg.Client;
const TOKEN = 'tok-e2e-7f3a';
const apiCalls: string[] = [];

beforeAll(async () => {
  api = http.createServer((req, res) => {
    apiCalls.push(req.headers.authorization ?? '');
    const ok = req.headers.authorization === `Bearer ${TOKEN}`;
    res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { data: [{ id: 'g1', amount: 25 }, { id: 'g2', amount: 40 }] } : { error: 'bad token' }));
  });
  await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
  apiUrl = `http://127.0.0.1:${(api.address() as net.AddressInfo).port}/donations`;
  // the API above runs on this machine: loopback is allowed only when the operator says so
  // imports run as jobs
  server = await startTestServer({ staticRoot: path.resolve('dist'), work: true, env: { CONNECTOR_ALLOW_PRIVATE_HOSTS: 'true' } });
  browser = await launchChromium();
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  // the administrator has signed in before: no welcome page
  await db.query("update users set login_count = 5 where email = 'administrator@demo.tributary.test'");
});
afterAll(async () => {
  await db?.end();
  await browser?.close();
  await server?.close();
  await new Promise((r) => api?.close(r));
});

const drawer = (page: Page) => page.getByRole('dialog');

/** a field by its label, which shows an asterisk when the field is required */
const field = (page: Page, label: string) => drawer(page).getByLabel(new RegExp(`^${label}( \\*)?$`));

async function choose(page: Page, label: string, option: string) {
  await field(page, label).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe('Connections in Chromium', () => {
  it('creates, tests, edits and deletes a data source; a delete is refused while a formula uses it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

    await signInThroughApp(page, server.url, 'administrator@demo.tributary.test', undefined, '/connections');
    await page.waitForURL(/\/connections$/, { timeout: 30_000 });
    const table = page.getByRole('table', { name: 'Data Sources' });
    await expect.poll(() => table.getByRole('button', { name: 'Sandbox CRM', exact: true }).isVisible(), { timeout: 20_000 }).toBe(true);

    // ---- add: the system's own fields, checked word for word
    await page.getByRole('button', { name: 'Add data source', exact: true }).click();
    await choose(page, 'System', 'HTTP (JSON API)');
    // Test connection checks the form as Save does: the same messages inline, nothing sent
    const testRequests: string[] = [];
    page.on('request', (r) => { if (r.url().endsWith('/data-sources/test')) testRequests.push(r.url()); });
    await drawer(page).getByRole('button', { name: 'Test connection', exact: true }).click();
    await expect.poll(() => drawer(page).getByText(CONNECTION_FIELD_MESSAGE).first().isVisible()).toBe(true);
    expect(testRequests).toEqual([]);
    await drawer(page).getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => drawer(page).getByText(CONNECTION_FIELD_MESSAGE).first().isVisible()).toBe(true);
    await field(page, 'Display name').fill('Donations API');
    await field(page, 'URL').fill('not a url');
    await field(page, 'URL').blur();
    await expect.poll(() => drawer(page).getByText('Enter a valid URL, starting with https:// or http://.').isVisible()).toBe(true);
    await field(page, 'URL').fill(apiUrl);
    await choose(page, 'Authentication type', 'Bearer token');
    await field(page, 'Access token').fill(TOKEN);
    await field(page, 'Records path').fill('data');

    await drawer(page).getByRole('button', { name: 'Test connection', exact: true }).click();
    await expect.poll(() => drawer(page).getByRole('status').textContent(), { timeout: 15_000 }).toContain('Connection succeeded');
    expect(await drawer(page).getByRole('status').textContent()).toContain('2 records on the first page');
    expect(testRequests.length).toBe(1);

    await drawer(page).getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByText('"Donations API" has been saved').isVisible()).toBe(true);
    await expect.poll(() => table.getByRole('button', { name: 'Donations API', exact: true }).isVisible()).toBe(true);
    const row = await db.query("select id, settings, secret_ciphertext from data_sources where display_name = 'Donations API'");
    expect(JSON.stringify(row.rows[0].settings)).not.toContain(TOKEN);
    expect((row.rows[0].secret_ciphertext as Buffer).toString('latin1')).not.toContain(TOKEN);
    const id = row.rows[0].id as string;

    // ---- the saved secret is behind a shield, and an edit keeps it
    await page.getByRole('button', { name: 'Edit Donations API', exact: true }).click();
    await expect.poll(() => drawer(page).getByRole('img', { name: 'Access token is saved' }).isVisible()).toBe(true);
    expect(await field(page, 'Access token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(TOKEN);
    await field(page, 'Display name').fill('Donations API v2');
    await drawer(page).getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => table.getByRole('button', { name: 'Donations API v2', exact: true }).isVisible()).toBe(true);

    // ---- select it: the saved (kept) token still connects; its objects are listed
    await table.getByRole('button', { name: 'Donations API v2', exact: true }).click();
    const details = page.getByRole('region', { name: 'Donations API v2 details' });
    await details.getByRole('button', { name: 'Test connection', exact: true }).click();
    await expect.poll(() => details.getByRole('status').textContent(), { timeout: 15_000 }).toContain('Connection succeeded');
    expect(apiCalls.at(-1)).toBe(`Bearer ${TOKEN}`);
    await expect.poll(() => details.getByRole('radio', { name: 'Records of /donations' }).isVisible()).toBe(true);

    // ---- a wrong token reads as Connection Failed, with its code; cancelling saves nothing
    await page.getByRole('button', { name: 'Edit Donations API v2', exact: true }).click();
    await field(page, 'Access token').fill('wrong-token');
    await drawer(page).getByRole('button', { name: 'Test connection', exact: true }).click();
    const failure = drawer(page).getByRole('alert');
    await expect.poll(() => failure.textContent(), { timeout: 15_000 }).toContain('Connection Failed');
    expect(await failure.textContent()).toContain('Code: clientdatasource-connection-failed');
    // saving what just failed its test asks first; keeping on editing saves nothing
    await drawer(page).getByRole('button', { name: 'Save', exact: true }).click();
    const question = page.getByRole('dialog', { name: 'Save anyway?' });
    await expect.poll(() => question.isVisible()).toBe(true);
    expect(await question.textContent()).toContain('The connection test failed. Save anyway?');
    await question.getByRole('button', { name: 'Keep editing', exact: true }).click();
    await expect.poll(() => question.isVisible()).toBe(false);
    await drawer(page).getByRole('button', { name: 'Cancel', exact: true }).click();
    await details.getByRole('button', { name: 'Test connection', exact: true }).click();
    await expect.poll(() => details.getByRole('status').textContent(), { timeout: 15_000 }).toContain('Connection succeeded');

    // ---- delete: refused while a formula uses it
    const tenant = await db.query('select tenant_id from data_sources where id = $1', [id]);
    const formula = await db.query("insert into formulas (tenant_id, name, is_draft, source_data_source_id) values ($1, 'Weekly gifts', false, $2) returning id", [tenant.rows[0].tenant_id, id]);
    await page.getByRole('button', { name: 'Delete Donations API v2', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete data source' }).getByRole('button', { name: 'Delete', exact: true }).click();
    const refused = page.getByRole('dialog', { name: 'This data source cannot be deleted' });
    await expect.poll(() => refused.isVisible()).toBe(true);
    expect(await refused.textContent()).toContain('Weekly gifts');
    await refused.getByRole('button', { name: 'OK', exact: true }).click();
    expect(await table.getByRole('button', { name: 'Donations API v2', exact: true }).isVisible()).toBe(true);

    // ---- and done once no formula uses it
    await db.query('delete from formulas where id = $1', [formula.rows[0].id]);
    await page.getByRole('button', { name: 'Delete Donations API v2', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete data source' }).getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => page.getByText('"Donations API v2" has been deleted').isVisible()).toBe(true);
    await expect.poll(() => table.getByRole('button', { name: 'Donations API v2', exact: true }).count()).toBe(0);
    expect((await db.query('select count(*)::int as n from data_sources where id = $1', [id])).rows[0].n).toBe(0);

    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    await context.close();
  });

  it.each([[1440, 900], [390, 844]])('imports constituents into the Sandbox CRM with the columns chosen at %i px', async (width, height) => {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await signInThroughApp(page, server.url, 'administrator@demo.tributary.test', undefined, '/connections');
    await page.waitForURL(/\/connections$/, { timeout: 30_000 });
    await page.getByRole('table', { name: 'Data Sources' }).getByRole('button', { name: 'Sandbox CRM', exact: true }).click();
    await page.getByRole('region', { name: 'Sandbox CRM details' }).getByRole('button', { name: 'Import constituents', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import constituents into Sandbox CRM' });
    await expect.poll(() => dialog.getByRole('button', { name: 'Choose a file', exact: true }).isVisible(), { timeout: 15_000 }).toBe(true);

    // a German export: no header the import knows as the last name
    const lastName = `Spaltenwahl${width}`;
    await dialog.locator('input[type="file"]').setInputFiles({
      name: 'spender.csv', mimeType: 'text/csv',
      buffer: Buffer.from(`Nachname;Vorname;Email;Bemerkung\n${lastName};Anna;anna.${width}@example.org;Jahresspende\n`),
    });
    const columns = dialog.getByRole('table', { name: 'Columns of the file' });
    await expect.poll(() => columns.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await dialog.getByRole('combobox', { name: 'Field for the column Email' }).inputValue()).toBe('email');
    expect(await dialog.getByTestId('sandbox-import-columns-problem').textContent()).toBe('Choose the column that gives the last name: every constituent needs one.');
    expect(await dialog.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);
    await dialog.getByRole('combobox', { name: 'Field for the column Nachname' }).selectOption({ label: 'Last name' });
    await dialog.getByRole('combobox', { name: 'Field for the column Vorname' }).selectOption({ label: 'First name' });
    await page.screenshot({ path: `/tmp/connections-import-columns-${width}.png` });
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();

    await expect.poll(() => dialog.getByRole('status').textContent(), { timeout: 30_000 }).toContain('1 constituent imported');
    await page.screenshot({ path: `/tmp/connections-import-done-${width}.png` });
    const { rows } = await db.query('select first_name, email from sandbox_constituents where last_name = $1', [lastName]);
    expect(rows).toEqual([{ first_name: 'Anna', email: `anna.${width}@example.org` }]);
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    await context.close();
  });
});
