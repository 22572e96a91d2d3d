/**
 * The whole sign-in journey in Chromium: the app's unmodified Auth0 SDK against the embedded
 * provider, the current-user call with the access token, a refresh, and logout.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { DEMO_PASSWORD } from '../../server/db/seed.ts';
import { launchChromium } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(page: Page, email: string, password = DEMO_PASSWORD) {
  await page.goto(server.url);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('signing in with the Auth0 SDK against the embedded provider', () => {
  it('signs in, reads the current user, refreshes the token and logs out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    const apiCalls: { url: string; auth: string | undefined; status?: number }[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/User/organization/')) apiCalls.push({ url: r.url(), auth: r.request().headers().authorization, status: r.status() });
    });
    const tokenGrants: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/oauth/token')) tokenGrants.push(new URLSearchParams(r.postData() ?? '').get('grant_type') ?? '');
    });

    await signIn(page, 'administrator@demo.tributary.test');
    await expect.poll(() => page.getByTestId('user-name').textContent()).toBe('Ada Administrator');
    // code and state are gone from the address once the sign-in completes
    expect(new URL(page.url()).search).toBe('');
    await expect.poll(() => page.getByTestId('login-count').textContent()).toBe('Sign-ins: 1');
    expect(apiCalls.at(-1)).toMatchObject({ status: 200 });
    expect(apiCalls.at(-1)!.auth).toMatch(/^Bearer ey/);
    expect(tokenGrants).toEqual(['authorization_code']);

    await page.getByRole('button', { name: 'Refresh session' }).click();
    await expect.poll(() => page.getByTestId('token-refreshes').textContent()).toBe('Token refreshes: 1');
    expect(tokenGrants).toEqual(['authorization_code', 'refresh_token']);

    // a reload keeps the session (refresh token), without a new sign-in
    await page.reload();
    await expect.poll(() => page.getByTestId('user-name').textContent()).toBe('Ada Administrator');

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).origin).toBe(server.url);

    // the provider's session is over too: signing in again asks for the password
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/interaction\//);
    await expect.poll(() => page.getByLabel('Password').isVisible()).toBe(true);
    expect(errors.filter((e) => !/Failed to load resource/.test(e))).toEqual([]);
    await context.close();
  });

  it('shows a clear message for a wrong password', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, 'administrator@demo.tributary.test', 'not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    await context.close();
  });
});
