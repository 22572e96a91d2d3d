/**
 * Every route of SPEC.md section 2, visited in Chromium by each demo user through the real server:
 * where each one lands. Also the first-login welcome, the redirect cookie round trip, the tenant
 * switcher and logout.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, moveInApp } from '../support/browser.ts';
import { signedInContexts, signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;
/** the demo users' sessions: each signs in through the app once, and later contexts start from that (the journeys sign in afresh) */
let session: ReturnType<typeof signedInContexts>;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  browser = await launchChromium();
  session = signedInContexts(browser, server.url);
  // these users have signed in before: the welcome page is for first logins only
  const client = new pg.Client({ connectionString: server.databaseUrl });
  await client.connect();
  await client.query("update users set login_count = 5 where email <> 'formula.producer@demo.tributary.test'");
  await client.end();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const FORMULA_SCREENS = ['ready-records', 'needs-attention', 'needs-attention/v2', 'needs-attention/one-to-one', 'one-to-many', 'exception',
  'formula-exceptions', 'new-records', 'validation-exceptions/duplicates', 'related-records', 'print-formula-review'];

/**
 * The formula screens each user visits here: every one for the Administrator (each answers the real
 * server's 404 for a formula that is not there), a bucket and the printout for the others. Which
 * role may open which screen is decided by the same route rules for all eleven, and every screen is
 * visited as every kind of user on the rendered app by tests/model/routeAccess.test.tsx.
 */
const screensFor = (email: string) => (email.startsWith('administrator@') ? FORMULA_SCREENS : ['ready-records', 'print-formula-review']);

/** Where each main route lands, per role (explicit, not computed). */
const LANDS: Record<string, Record<string, string>> = {
  'administrator@demo.tributary.test': { '/data-queue': '/data-queue', '/activity-history': '/activity-history', '/connections': '/connections', '/integrations-formulas': '/integrations-formulas', '/user-management': '/user-management', formula: 'self' },
  'power.user@demo.tributary.test': { '/data-queue': '/data-queue', '/activity-history': '/activity-history', '/connections': '/connections', '/integrations-formulas': '/integrations-formulas', '/user-management': '/auth-error/role', formula: 'self' },
  'connection.manager@demo.tributary.test': { '/data-queue': '/connections', '/activity-history': '/auth-error/role', '/connections': '/connections', '/integrations-formulas': '/connections', '/user-management': '/auth-error/role', formula: '/connections' },
  'data.processor@demo.tributary.test': { '/data-queue': '/data-queue', '/activity-history': '/activity-history', '/connections': '/activity-history', '/integrations-formulas': '/integrations-formulas', '/user-management': '/auth-error/role', formula: 'self' },
  'user.manager@demo.tributary.test': { '/data-queue': '/user-management', '/activity-history': '/user-management', '/connections': '/user-management', '/integrations-formulas': '/user-management', '/user-management': '/user-management', formula: '/user-management' },
  'view.only@demo.tributary.test': { '/data-queue': '/data-queue', '/activity-history': '/activity-history', '/connections': '/connections', '/integrations-formulas': '/integrations-formulas', '/user-management': '/auth-error/role', formula: 'self' },
};

async function settledPath(page: Page, expected: string): Promise<string> {
  await page.waitForURL((u) => u.pathname + u.search === expected || u.pathname === expected, { timeout: 20_000 }).catch(() => undefined);
  // the page has settled once the shell or a public page's action is there, a heading is shown and
  // nothing loads; a few frames more let a redirect made on rendering (a refused screen's) happen
  await page.getByRole('button', { name: /User menu|Go back/ }).first().waitFor({ timeout: 20_000 }).catch(() => undefined);
  await page.locator('h1').first().waitFor({ timeout: 20_000 }).catch(() => undefined);
  await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0, undefined, { timeout: 20_000 }).catch(() => undefined);
  await page.evaluate(() => new Promise<void>((resolve) => {
    let frames = 0;
    const tick = () => (++frames >= 5 ? resolve() : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  }));
  await page.waitForURL((u) => u.pathname + u.search === expected || u.pathname === expected, { timeout: 5_000 }).catch(() => undefined);
  return new URL(page.url()).pathname;
}

/** Chromium sometimes takes minutes to close a context whose page has just signed out; the browser closes it at the end anyway. */
async function closeQuietly(context: BrowserContext): Promise<void> {
  await Promise.race([context.close(), new Promise((r) => setTimeout(r, 5000))]);
}

async function signedIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await signInThroughApp(page, server.url, email);
  await page.getByRole('button', { name: /User menu|Go back to login/ }).first().waitFor();
  return { context, page };
}

describe('where every route lands, for each demo user', () => {
  for (const [email, lands] of Object.entries(LANDS)) {
    it(email, async () => {
      const { context, page } = await session(email);
      const trail: string[] = [];
      page.on('response', (r) => { if (!r.url().includes('/assets/')) trail.push(`${r.status()} ${r.request().method()} ${r.url().replace(server.url, '')}`); });
      page.on('console', (m) => trail.push(`console ${m.type()}: ${m.text()}`));
      const checks: [string, string][] = [
        ['/', lands['/data-queue']!],
        ['/landing', lands['/data-queue']!],
        ['/welcome', lands['/data-queue']!],
        ...['/data-queue', '/activity-history', '/connections', '/integrations-formulas', '/user-management'].map((p) => [p, lands[p]!] as [string, string]),
        ['/activity-history/f-1', lands['/activity-history'] === '/activity-history' ? '/activity-history/f-1' : lands['/activity-history']!],
        ...screensFor(email).map((s) => [`/f-1/${s}`, lands.formula === 'self' ? `/f-1/${s}` : lands.formula!] as [string, string]),
        ['/not-found', '/not-found'],
      ];
      for (const [i, [from, to]] of checks.entries()) {
        trail.length = 0;
        // the first address is a full load (the app starts, signed in, at a typed address); the rest
        // move inside the app as its links do: the same route rules, without a page load each
        if (i === 0) await page.goto(`${server.url}${from}`);
        else await moveInApp(page, from);
        const landed = await settledPath(page, to);
        if (landed !== to) trail.push(`storage: ${await page.evaluate(() => `${Object.keys(localStorage).join(', ')} | cookies: ${document.cookie}`)}`);
        expect(landed, `${email}: ${from}\n${trail.join('\n')}`).toBe(to);
        if (/^\/f-1\/(?!print-formula-review)/.test(to)) {
          // no formula f-1: the server answers 404 and the bucket screen is the not-found page, naming the URL
          await page.getByText("We can't find what you're looking for.").waitFor();
          await expect.poll(() => page.locator('code').textContent(), { message: `${email}: ${from}` }).toBe(from);
        }
        if (to === '/auth-error/role') {
          // a signed-in user refused one screen stays in the shell, signed in, and is told which screen
          await page.getByTestId('screen-refused').waitFor();
          expect(await page.getByRole('heading', { level: 1 }).textContent(), `${email}: ${from}`).toMatch(/^You cannot open /);
          expect(await page.getByRole('navigation', { name: 'Main navigation' }).isVisible()).toBe(true);
          expect(await page.getByRole('button', { name: 'Go back to login' }).count()).toBe(0);
        }
      }
      await page.goto(`${server.url}/no/such/page?x=1`);
      await page.waitForURL(/\/not-found\?path=/);
      expect(new URL(page.url()).searchParams.get('path')).toBe('/no/such/page?x=1');
      await page.getByText("We can't find what you're looking for.").waitFor();
      await context.close();
    });
  }

  it('shows only the navigation a user may use', async () => {
    const { context, page } = await session('connection.manager@demo.tributary.test');
    await page.goto(`${server.url}/`);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.waitFor();
    expect((await nav.getByRole('link').allTextContents()).map((t) => t.trim())).toEqual(['Connections']);
    await context.close();
  });

  it('sends a user with no role to the role error page, and one with no tenant to the tenant error page', async () => {
    for (const [email, page403] of [['no.roles@demo.tributary.test', '/auth-error/role'], ['no.tenants@demo.tributary.test', '/auth-error/tenant']]) {
      const { context, page } = await signedIn(email!);
      await page.waitForURL(`${server.url}${page403}`);
      await page.getByText('Please contact your administrator.', { exact: false }).waitFor();
      await page.goto(`${server.url}/data-queue`);
      await page.waitForURL(`${server.url}${page403}`);
      await page.getByRole('button', { name: 'Go back to login' }).click();
      await page.waitForURL(`${server.url}/landing`);
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      await context.close();
    }
  });
});

describe('journeys', () => {
  it('welcomes a first login, then sends the next login to the data queue', async () => {
    const email = 'formula.producer@demo.tributary.test';
    let { context, page } = await signedIn(email);
    await page.waitForURL(`${server.url}/welcome`);
    await page.getByRole('heading', { name: /Welcome to Tributary/ }).waitFor();
    const list = page.getByRole('list', { name: 'Onboarding tasks' });
    const tasks = await list.getByRole('link').allTextContents();
    expect(tasks).toEqual(['Connect a data source', 'Create your first formula', 'Review and send records']);
    // what the tenant has done is ticked: the demo gives it data sources
    await expect.poll(() => list.locator('[data-done]').getByRole('link').allTextContents()).toContain('Connect a data source');
    // reviewing records is reached from Formulas on the first day: the Data Queue opens from the second sign-in
    expect(await list.getByRole('link', { name: 'Review and send records' }).getAttribute('href')).toBe('/integrations-formulas');
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL(`${server.url}/landing`);
    await closeQuietly(context);

    ({ context, page } = await signedIn(email));
    await expect.poll(() => new URL(page.url()).pathname).toBe('/data-queue');
    await page.goto(`${server.url}/welcome`);
    expect(await settledPath(page, '/data-queue')).toBe('/data-queue');
    await context.close();
  });

  it('remembers the path of an unauthenticated visit for a day and returns there after sign-in', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${server.url}/activity-history/f-9?from=mail`);
    await page.waitForURL(`${server.url}/landing`);
    const cookie = (await context.cookies()).find((c) => c.name === 'tributary_redirect')!;
    expect(decodeURIComponent(cookie.value)).toBe('/activity-history/f-9?from=mail');
    const lifetime = cookie.expires - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(86_400 - 60);
    expect(lifetime).toBeLessThanOrEqual(86_400);
    await signInThroughApp(page, server.url, 'administrator@demo.tributary.test', undefined, '/landing');
    await page.waitForURL(`${server.url}/activity-history/f-9?from=mail`);
    expect((await context.cookies()).find((c) => c.name === 'tributary_redirect')).toBeUndefined();
    await context.close();
  });

  it('switches the tenant, and the navigation follows the roles there', async () => {
    const { context, page } = await session('power.user@demo.tributary.test');
    await page.goto(`${server.url}/`);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await nav.getByRole('link', { name: 'Connections' }).waitFor();
    const reloaded = page.waitForResponse((r) => r.url().includes('/User/organization/'));
    const switched = page.waitForResponse((r) => r.url().endsWith('/user/active-tenant') && r.request().method() === 'PATCH');
    const tenant = page.getByRole('combobox', { name: 'Tenant' });
    // the tenant chosen, by the name the list shows
    const chosen = () => tenant.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent);
    await tenant.selectOption({ label: 'Riverside Youth Arts' });
    expect((await switched).status()).toBe(200);
    expect((await reloaded).status()).toBe(200);
    await expect.poll(chosen).toBe('Riverside Youth Arts');
    // View Only there: the same screens to look at, and the choice survives a reload
    await page.reload();
    await expect.poll(chosen).toBe('Riverside Youth Arts');
    await context.close();
  });
});
