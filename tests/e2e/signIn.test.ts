/**
 * The whole sign-in journey in Chromium: the app's unmodified Auth0 SDK against the embedded
 * provider, the current-user call with the access token, a token refresh, and logout.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
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

describe('signing in with the Auth0 SDK against the embedded provider', () => {
  it('signs in, reads the current user, refreshes the token and logs out', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const apiCalls: { auth: string | undefined; status: number }[] = [];
    page.on('response', (r) => {
      if (r.url().includes('/User/organization/')) apiCalls.push({ auth: r.request().headers().authorization, status: r.status() });
    });
    // nothing the pages load is missing (the browser's own request for an icon included: the provider's pages name none)
    const missing: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error' && /Failed to load resource/.test(m.text())) missing.push(`${m.location().url}: ${m.text()}`); });
    const tokenGrants: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/oauth/token')) tokenGrants.push(new URLSearchParams(r.postData() ?? '').get('grant_type') ?? '');
    });

    await signInThroughApp(page, server.url, 'administrator@demo.tributary.test');
    // a first login lands on the welcome page; code and state are gone from the address
    await page.waitForURL(`${server.url}/welcome`);
    await expect.poll(() => page.getByRole('button', { name: 'User menu' }).textContent()).toContain('Ada Administrator');
    expect(new URL(page.url()).search).toBe('');
    expect(apiCalls.at(-1)).toMatchObject({ status: 200 });
    expect(apiCalls.at(-1)!.auth).toMatch(/^Bearer ey/);
    expect(tokenGrants).toEqual(['authorization_code']);

    // an expired access token is renewed with the refresh token on the next load
    await page.evaluate(() => {
      for (const key of Object.keys(localStorage).filter((k) => k.startsWith('@@auth0spajs@@') && !k.includes('@@user@@'))) {
        const entry = JSON.parse(localStorage.getItem(key)!);
        entry.expiresAt = Math.floor(Date.now() / 1000) - 10;
        localStorage.setItem(key, JSON.stringify(entry));
      }
    });
    await page.goto(`${server.url}/connections`);
    await page.getByRole('heading', { name: 'Connections' }).waitFor();
    expect(tokenGrants).toEqual(['authorization_code', 'refresh_token']);
    expect(apiCalls.at(-1)).toMatchObject({ status: 200 });

    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(page.url()).toBe(`${server.url}/landing`);

    // the provider's session is over too: signing in again asks for the password
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/interaction\//);
    await page.getByLabel('Password').waitFor();
    expect(errors).toEqual([]);
    expect(missing).toEqual([]);
    await context.close();
  });

  it('shows a clear message for a wrong password', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInThroughApp(page, server.url, 'administrator@demo.tributary.test', 'not-the-password');
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Wrong e-mail or password.');
    await context.close();
  });
});
