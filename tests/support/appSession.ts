/** Signs in through the app's landing page and the embedded provider's login page, as a person does. */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import type { Pool } from 'pg';
import { DEMO_PASSWORD } from '../../server/db/seed.ts';

export async function signInThroughApp(page: Page, baseUrl: string, email: string, password = DEMO_PASSWORD, startPath = '/') {
  await page.goto(`${baseUrl}${startPath}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

type StorageState = Awaited<ReturnType<BrowserContext['storageState']>>;

/**
 * Browser contexts signed in as the demo users of one server: each user's first signs in through
 * the app (signInThroughApp) in a context of its own, and every later one starts from a copy of
 * what that sign-in stored (the provider's cookies and the SDK's token cache), as a second tab of
 * the same browser would. A sign-in is three page loads; files that only need someone signed in
 * pay for it once per user. The sign-in pages themselves are tested through signInThroughApp
 * (tests/e2e/signIn.test.ts).
 */
export function signedInContexts(browser: Browser, baseUrl: string) {
  const states = new Map<string, Promise<StorageState>>();
  return async function signedIn(email: string, options: BrowserContextOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
    const known = states.get(email);
    const context = await browser.newContext(known ? { ...options, storageState: await known } : options);
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    if (!known) {
      const stored = (async () => {
        await signInThroughApp(page, baseUrl, email);
        await page.getByRole('button', { name: /User menu|Go back to login/ }).first().waitFor();
        return context.storageState();
      })();
      states.set(email, stored);
      // a failed sign-in is not kept for the next caller
      stored.catch(() => states.delete(email));
      await stored;
    }
    return { context, page };
  };
}

/**
 * These users (every user when none is named) have signed in before: SPEC's welcome page is for the
 * first logins, so their sign-in lands where a returning user's does.
 */
export async function signedInBefore(server: { database: { pool: Pool } }, emails?: readonly string[]): Promise<void> {
  await server.database.pool.query(emails ? 'update users set login_count = 5 where email = any($1)' : 'update users set login_count = 5', emails ? [emails] : []);
}
