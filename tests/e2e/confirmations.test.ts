/**
 * Asking first, and a deactivated user told so (issue 28), in Chromium through the real server: the
 * administrator's Deactivate asks in a dialog that names the user and says what happens, which the
 * keyboard can cancel (Escape) and confirm (Tab to the button, Enter); the Data Processor, still
 * signed in elsewhere, is signed out at their next request and told 'Your account has been
 * deactivated. Please contact your administrator.' Screenshots at 1440 and 390 px go to /tmp.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ACCOUNT_DEACTIVATED } from '../../src/domain/identity.ts';
import { confirmationOf } from '../../src/machines/userList.ts';
import type { UserListItem } from '../../src/domain/api/accountManagement.ts';
import { launchChromium } from '../support/browser.ts';
import { signedInBefore, signedInContexts } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const PROCESSOR = { fullName: 'Dana Processor', email: 'data.processor@demo.tributary.test' };
let server: TestServer;
let browser: Browser;
let signedIn: ReturnType<typeof signedInContexts>;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  await signedInBefore(server);
  browser = await launchChromium();
  signedIn = signedInContexts(browser, server.url);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function shoot(page: Page, name: string) {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 });
    // the modal's and the navigation's transitions end first
    await page.waitForTimeout(600);
    await page.screenshot({ path: `/tmp/confirm-${name}-${width}.png` });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe('the e-mails about what one owns', () => {
  it('are a choice in the user menu, on at first, saved at once and kept', async () => {
    const { page } = await signedIn('formula.producer@demo.tributary.test', { viewport: { width: 1440, height: 900 } });
    await page.getByRole('heading', { level: 1, name: 'Data Queue' }).waitFor();
    const choice = page.getByRole('menuitemcheckbox', { name: 'E-mail me when my formulas or data sources need attention' });
    await page.getByRole('button', { name: /User menu/ }).click();
    await expect.poll(() => choice.getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => choice.isDisabled()).toBe(false);
    await shoot(page, 'menu');
    await page.setViewportSize({ width: 1440, height: 900 });
    await choice.click();
    await page.getByRole('button', { name: /User menu/ }).click();
    await expect.poll(() => choice.getAttribute('aria-checked')).toBe('false');
    // read again from the server after a reload
    await page.reload();
    await page.getByRole('button', { name: /User menu/ }).click();
    await expect.poll(() => choice.getAttribute('aria-checked')).toBe('false');
  }, 60_000);
});

describe('deactivating a user who is signed in', () => {
  it('asks first, naming the user and what happens; the keyboard cancels and confirms; the user is signed out and told', async () => {
    const { page: dana } = await signedIn(PROCESSOR.email, { viewport: { width: 1440, height: 900 } });
    await dana.getByRole('heading', { level: 1, name: 'Data Queue' }).waitFor();

    const { page: admin } = await signedIn('administrator@demo.tributary.test', { viewport: { width: 1440, height: 900 } });
    await admin.goto(`${server.url}/user-management`);
    const row = admin.getByRole('row').filter({ hasText: PROCESSOR.email });
    await row.waitFor();
    const words = confirmationOf('deactivate', PROCESSOR as UserListItem, 'Riverside Food Bank');

    const ask = async () => {
      await admin.getByRole('button', { name: `Actions for ${PROCESSOR.fullName}` }).click();
      await admin.getByRole('menuitem', { name: 'Deactivate' }).click();
      const dialog = admin.getByRole('dialog', { name: `Deactivate ${PROCESSOR.fullName}?` });
      await dialog.getByText(words.text).waitFor();
      return dialog;
    };
    let dialog = await ask();
    expect(words.text).toContain(`${PROCESSOR.fullName} is signed out at once and can no longer sign in`);
    await shoot(admin, 'deactivate');
    // Escape cancels: nothing happened
    await admin.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await row.textContent()).toContain('Active');

    dialog = await ask();
    // focus stays in the dialog; Tab reaches Deactivate, and Enter confirms
    for (let i = 0; i < 5 && !(await dialog.getByRole('button', { name: 'Deactivate' }).evaluate((b) => b === document.activeElement)); i++) {
      await admin.keyboard.press('Tab');
      expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
    }
    await admin.keyboard.press('Enter');
    await admin.getByText(`${PROCESSOR.fullName} has been deactivated`).waitFor();
    await expect.poll(() => row.textContent()).toContain('Deactivated');

    // Dana's next request is refused: the app ends the session and says why
    await dana.getByRole('link', { name: 'Activity History' }).click();
    const told = dana.getByRole('alert').filter({ hasText: ACCOUNT_DEACTIVATED });
    await told.waitFor();
    await dana.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await dana.getByRole('button', { name: /User menu/ }).count()).toBe(0);
    // no error toast beside it
    expect(await dana.getByText('You do not have permission', { exact: false }).count()).toBe(0);
    await shoot(dana, 'deactivated');
  }, 120_000);
});
