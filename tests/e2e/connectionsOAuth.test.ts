/**
 * Connect to Raiser's Edge NXT in Chromium, as the administrator: the form is filled, Connect
 * leaves for the vendor's consent page (a local fake, tests/support/vendors/oauthServer.ts,
 * reached through CONNECTOR_BASE_URL_RENXT), the vendor sends the browser back through
 * PUBLIC_URL/integrations/oauth/callback, and the form opens again showing it connected; a
 * declined consent says so in words.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { baseUrlVariable } from '../../server/connectors/vendorHttp.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { OAUTH_APPS, startOAuthServer, type OAuthServer } from '../support/vendors/oauthServer.ts';

let server: TestServer;
let fake: OAuthServer;
let browser: Browser;
let db: pg.Client;
const variable = baseUrlVariable('renxt');
const before = process.env[variable];

beforeAll(async () => {
  fake = await startOAuthServer();
  process.env[variable] = `${fake.url}/renxt`;
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  browser = await launchChromium();
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  await db.query("update users set login_count = 5 where email = 'administrator@demo.tributary.test'");
});
afterAll(async () => {
  if (before === undefined) delete process.env[variable]; else process.env[variable] = before;
  await db?.end();
  await browser?.close();
  await server?.close();
  await fake?.close();
});

const drawer = (page: Page) => page.getByRole('dialog');
const field = (page: Page, label: string) => drawer(page).getByLabel(new RegExp(`^${label.replace(/[()]/g, '\\$&')}( \\*)?$`));

describe("Connect to Raiser's Edge NXT in Chromium", () => {
  it('goes to the consent page and comes back connected; a declined consent says so', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInThroughApp(page, server.url, 'administrator@demo.tributary.test', undefined, '/connections');
    await page.waitForURL(/\/connections$/, { timeout: 30_000 });
    await expect.poll(() => page.getByRole('button', { name: 'Add data source', exact: true }).isEnabled(), { timeout: 20_000 }).toBe(true);

    await page.getByRole('button', { name: 'Add data source', exact: true }).click();
    await field(page, 'System').click();
    await page.getByRole('option', { name: "Raiser's Edge NXT", exact: true }).click();
    await field(page, 'Display name').fill('Riverside RE NXT');
    await field(page, 'Application ID (OAuth client ID)').fill(OAUTH_APPS.renxt.clientId);
    await field(page, 'Application secret').fill(OAUTH_APPS.renxt.clientSecret);
    await field(page, 'SKY API subscription key').fill('sky-sub-key');
    await drawer(page).getByRole('button', { name: "Connect to Raiser's Edge NXT" }).click();

    // there and back: the address keeps no code
    await page.waitForURL(/\/connections$/, { timeout: 30_000 });
    await expect.poll(() => drawer(page).getByRole('status').first().textContent(), { timeout: 30_000 }).toContain("Connected to Raiser's Edge NXT (Riverside Production).");
    expect(await drawer(page).getByTestId('oauth-connect').textContent()).not.toContain('Not connected');
    expect(fake.authorizeRequests).toHaveLength(1);
    const { rows } = await db.query("select secret_ciphertext from data_sources where display_name = 'Riverside RE NXT'");
    expect((rows[0].secret_ciphertext as Buffer).includes(Buffer.from(fake.issuedRefreshTokens[0]!))).toBe(false);

    // declined: the form says so in words
    fake.consent = 'deny';
    await drawer(page).getByRole('button', { name: "Connect to Raiser's Edge NXT" }).click();
    await page.waitForURL(/\/connections$/, { timeout: 30_000 });
    await expect.poll(() => drawer(page).getByRole('alert').first().textContent(), { timeout: 30_000 })
      .toContain("You declined to give Tributary access at Raiser's Edge NXT, so nothing was connected.");
    await context.close();
  });
});
