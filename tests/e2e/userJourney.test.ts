/**
 * The user-management journey in Chromium through the real server: the administrator adds a Data
 * Processor with temporary access on /user-management (the invitation's link goes to the server log:
 * no mail is configured) and resets their password; the reset link,
 * which the server writes to its log, is opened and a password chosen; the new user signs in and
 * opens the Data Queue; once the access has ended they are refused at sign-in with the date it
 * ended; and the administrator finds the user's creation and the sign-ins in /activity-history.
 */
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loadConfig } from '../../server/config.ts';
import { freePort } from '../../server/db/embedded.ts';
import { startServer, type Running } from '../../server/main.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { createTestDatabase } from '../support/database.ts';
import { tempDataDir } from '../support/server.ts';

const NAME = 'Dana Temporary';
const EMAIL = 'dana.temporary@demo.tributary.test';
const PASSWORD = 'Dana-chooses-2026-pass';
/** the day after tomorrow (UTC): in the future wherever the test runs */
const EXPIRY = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);

let server: Running;
let dropDatabase: () => Promise<void>;
const data = tempDataDir();
let browser: Browser;
let db: pg.Client;
/** the server's log lines: the password-reset link is written there (no mail is configured) */
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  const port = await freePort();
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://localhost:${port}`, DATABASE_URL: database.url, DATA_DIR: data.dir, LOG_LEVEL: 'info' });
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        try { logLines.push(JSON.parse(line) as Record<string, unknown>); } catch { /* not a JSON line */ }
      }
      done();
    },
  });
  server = await startServer(config, pino({ level: 'info' }, sink), { staticRoot: path.resolve('dist'), work: false });
  browser = await launchChromium();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
  // the administrator has signed in before: no welcome page
  await db.query("update users set login_count = 5 where email = 'administrator@demo.tributary.test'");
});
afterAll(async () => {
  await db?.end();
  await browser?.close();
  await server?.stop();
  await dropDatabase?.();
  data.remove();
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(20_000);
  return { context, page: await context.newPage() };
}

describe('an administrator gives a Data Processor temporary access, which ends', () => {
  let admin: Page;

  it('adds the user through the User Management screen', async () => {
    ({ page: admin } = await newPage());
    await signInThroughApp(admin, server.url, 'administrator@demo.tributary.test');
    await admin.getByRole('button', { name: 'User menu' }).waitFor();
    await admin.goto(`${server.url}/user-management`);
    await admin.getByRole('heading', { level: 1, name: 'User Management' }).waitFor();
    await admin.getByRole('table', { name: 'Users' }).waitFor();

    await admin.getByRole('button', { name: 'Add user' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Add user' });
    // a save with nothing filled in says what SPEC.md section 5 asks
    await dialog.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => dialog.getByText('Enter a full name of at least two words').count()).toBe(1);
    await dialog.getByLabel(/^Full name/).fill(NAME);
    await dialog.getByLabel(/^E-mail/).fill(EMAIL);
    // the tenant the administrator works in is chosen at first
    expect(await dialog.getByRole('checkbox', { name: 'Member of Riverside Food Bank' }).isChecked()).toBe(true);
    await dialog.getByRole('group', { name: /^Roles in Riverside Food Bank/ }).getByRole('checkbox', { name: 'Data Processor' }).check();
    await dialog.getByLabel(/^Temporary access until \(Riverside Food Bank\)/).fill(EXPIRY);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await admin.getByText(`${NAME} has been added`).waitFor();
    await dialog.waitFor({ state: 'detached' });
    // no mail server here: the invitation's link is in the server log, and the screen says so
    await admin.getByText(`No mail server is configured: the invitation link for ${NAME} to set a password is in the server log`, { exact: false }).waitFor();
    expect(String(logLines.find((l) => l.msg === 'invitation link' && l.email === EMAIL)?.invitationLink)).toMatch(/\/reset-password\?token=/);

    await admin.getByRole('textbox', { name: 'Search by name or e-mail' }).fill('dana.temporary');
    await admin.getByRole('button', { name: 'Search', exact: true }).click();
    const row = admin.getByRole('row').filter({ hasText: EMAIL });
    await row.waitFor();
    expect(await row.textContent()).toContain('Data Processor');
    expect(await row.textContent()).toContain('Active');
    const [saved] = (await db.query<{ at: Date }>(
      'select m.access_expires_on as at from memberships m join users u on u.id = m.user_id where u.email = $1', [EMAIL],
    )).rows;
    expect(saved!.at.toISOString().slice(0, 10)).toBe(EXPIRY);
  });

  let resetLink: string;
  it('resets the new user\'s password: the link is in the server log', async () => {
    await admin.getByRole('button', { name: `Actions for ${NAME}` }).click();
    await admin.getByRole('menuitem', { name: 'Reset password' }).click();
    await admin.getByRole('dialog', { name: `Reset the password of ${NAME}?` }).getByRole('button', { name: 'Reset password' }).click();
    await admin.getByText(`A password reset link for ${NAME} has been sent to the server log`, { exact: false }).waitFor();
    const line = logLines.find((l) => l.msg === 'password reset link' && l.email === EMAIL);
    expect(line, 'the reset link in the server log').toBeTruthy();
    resetLink = String(line!.passwordResetLink);
    expect(resetLink).toMatch(/\/reset-password\?token=/);
  });

  it('the new user chooses a password, signs in and opens the Data Queue', async () => {
    const { context, page } = await newPage();
    await page.goto(resetLink);
    await page.getByLabel(/^New password/).fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForLoadState();
    // the Data Queue opens from a second sign-in (SPEC.md section 2); this journey is not about the welcome page
    await db.query('update users set login_count = 1 where email = $1', [EMAIL]);
    await signInThroughApp(page, server.url, EMAIL, PASSWORD);
    await page.getByRole('button', { name: 'User menu' }).waitFor();
    await page.goto(`${server.url}/data-queue`);
    await page.waitForURL((u) => u.pathname === '/data-queue');
    await page.getByRole('heading', { level: 1, name: 'Data Queue' }).waitFor();
    await context.close();
  });

  it('is refused at sign-in once the temporary access has ended, saying when it ended', async () => {
    // the expiry passes: moved to a minute ago rather than waiting two days
    const ended = new Date(Date.now() - 60_000);
    await db.query('update memberships set access_expires_on = $2 from users where users.id = memberships.user_id and users.email = $1', [EMAIL, ended]);
    const { context, page } = await newPage();
    await signInThroughApp(page, server.url, EMAIL, PASSWORD);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`Your temporary access to Tributary ended on ${ended.toISOString().slice(0, 10)}. Please contact your administrator.`);
    expect(new URL(page.url()).pathname).toMatch(/^\/interaction\//);
    await context.close();
  });

  it('the administrator finds the creation and the sign-ins in the activity history', async () => {
    await admin.goto(`${server.url}/activity-history`);
    await admin.getByRole('heading', { level: 1, name: 'Activity History' }).waitFor();
    await admin.getByLabel('Description contains').fill(NAME);
    await admin.getByRole('button', { name: 'Apply' }).click();
    const table = admin.getByRole('table', { name: 'Activity' });
    await table.waitFor();
    await expect.poll(async () => (await table.getByRole('row').allTextContents()).join('\n')).toContain(`${NAME} was refused sign-in: temporary access has ended`);
    const rows = (await table.getByRole('row').allTextContents()).join('\n');
    expect(rows).toContain(`Ada Administrator added ${NAME}`);
    expect(rows).toContain(`Ada Administrator reset the password of ${NAME}`);
    expect(rows).toContain(`${NAME} signed in`);
    for (const type of ['User added', 'Password reset', 'Signed in', 'Sign-in refused']) expect(rows).toContain(type);
  });
});
