/**
 * The app shell as people meet it in Chromium: something on screen before the JavaScript runs and
 * while data loads; a redirect that says why; a screen the role cannot open refused inside the
 * shell without signing out; the navigation each role gets; focus on navigation and in dialogs;
 * and the header, navigation and tenant switcher on a 390 px phone.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.ts';
import { signedInBefore, signedInContexts } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;
let signedIn: ReturnType<typeof signedInContexts>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  browser = await launchChromium();
  signedIn = signedInContexts(browser, server.url);
  await signedInBefore(server);
});
// a test's pages close with it: an open page keeps polling and streaming the formula statuses,
// which the tests after it would pay for
const closeContexts = () => Promise.all(contexts.splice(0).map((c) => Promise.race([c.close(), new Promise((r) => setTimeout(r, 5000))])));
afterEach(closeContexts);
afterAll(async () => {
  await closeContexts();
  await browser?.close();
  await server?.close();
});

const PHONE = { width: 390, height: 844 };

/** A page of a context of its own: a guest's, or one signed in (each user signs in through the app once, tests/support/appSession.ts). */
async function open(opts: { email?: string; viewport?: { width: number; height: number } } = {}): Promise<Page> {
  const viewport = opts.viewport ?? { width: 1280, height: 800 };
  if (opts.email) {
    const { context, page } = await signedIn(opts.email, { viewport });
    contexts.push(context);
    return page;
  }
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  context.setDefaultTimeout(20_000);
  return context.newPage();
}

const user = (role: string) => `${role}@demo.tributary.test`;
const heading = (page: Page) => page.getByRole('heading', { level: 1 });
const activeText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');

describe('something on screen at once', () => {
  it('shows a loading state from the page itself while the JavaScript has not run', async () => {
    const page = await open();
    // the scripts never arrive: a slow or broken link
    await page.route(/\/assets\/.*\.js$/, (route) => route.abort());
    await page.goto(`${server.url}/landing`, { waitUntil: 'domcontentloaded' });
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Loading Tributary…');
    expect(await page.locator('#root').isVisible()).toBe(true);
    await page.unroute(/\/assets\/.*\.js$/);
    // with the scripts, the app replaces it
    await page.goto(`${server.url}/landing`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.getByText('Loading Tributary…').count()).toBe(0);
  });

  it('draws the Data Sources table\'s shape while the list is on its way', async () => {
    const page = await open({ email: user('administrator') });
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    await page.route(/\/integrations\/v1\/data-sources$/, async (route) => { await held; await route.continue(); });
    await page.goto(`${server.url}/connections`);
    const skeleton = page.getByRole('status', { name: 'Loading data sources…' });
    await skeleton.waitFor();
    expect(await skeleton.getAttribute('aria-busy')).toBe('true');
    release();
    await page.getByRole('table', { name: 'Data Sources' }).waitFor();
    expect(await skeleton.count()).toBe(0);
  });
});

describe('permission states that help', () => {
  it('tells a user why they were sent elsewhere, and lets them dismiss it', async () => {
    const page = await open({ email: user('connection.manager') });
    await page.goto(`${server.url}/data-queue`);
    await page.waitForURL(`${server.url}/connections`);
    const notice = page.getByTestId('redirect-notice');
    await notice.waitFor();
    expect(await notice.textContent()).toContain('You cannot open Data Queue');
    expect(await notice.textContent()).toContain('permission to view formulas');
    // read first: focus is on the notice
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('redirect-notice');
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => notice.count()).toBe(0);
    expect(await heading(page).textContent()).toBe('Connections');
  });

  it('tells a guest to sign in for the page they asked for', async () => {
    const page = await open();
    await page.goto(`${server.url}/activity-history`);
    await page.waitForURL(`${server.url}/landing`);
    expect(await page.getByTestId('redirect-notice').textContent()).toContain('Sign in to open Activity History');
  });

  it('refuses a screen inside the shell, keeps the user signed in, and offers a way back', async () => {
    const page = await open({ email: user('power.user') });
    await page.goto(`${server.url}/user-management`);
    await page.waitForURL(`${server.url}/auth-error/role`);
    await heading(page).filter({ hasText: 'You cannot open User Management' }).waitFor();
    expect(await page.getByTestId('screen-refused').textContent()).toContain('permission to view users');
    expect(await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Connections' }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Go back to login' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Go to your start page' }).click();
    await page.waitForURL(`${server.url}/data-queue`);
    await page.getByRole('button', { name: /User menu/ }).waitFor();
    expect(await heading(page).textContent()).toBe('Data Queue');
  });

  it('goes back to where the user was', async () => {
    const page = await open({ email: user('power.user') });
    await page.goto(`${server.url}/connections`);
    await heading(page).filter({ hasText: 'Connections' }).waitFor();
    // an in-app link to a screen the role cannot open, as another page may hold
    await page.evaluate(() => {
      const a = Object.assign(document.createElement('a'), { href: '/feature-flags', textContent: 'flags' });
      a.addEventListener('click', (e) => { e.preventDefault(); window.history.pushState({ idx: 1, key: 'k', usr: null }, '', '/feature-flags'); window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state })); });
      document.body.append(a);
      a.click();
    });
    await page.waitForURL(`${server.url}/auth-error/role`);
    await heading(page).filter({ hasText: 'You cannot open Feature Flags' }).waitFor();
    await page.getByRole('button', { name: 'Go back' }).click();
    await page.waitForURL(`${server.url}/connections`);
    await page.getByRole('button', { name: /User menu/ }).waitFor();
  });
});

describe('navigation per role', () => {
  const links = async (page: Page, group: string) => (await page.getByRole('group', { name: group }).getByRole('link').allTextContents()).map((t) => t.trim());

  it('offers the upload page to roles that may upload, and keeps developer tools apart', async () => {
    let page = await open({ email: user('administrator') });
    await page.goto(`${server.url}/data-queue`);
    await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
    expect(await links(page, 'Daily work')).toEqual(['Data Queue', 'Formulas', 'Connections', 'Activity History', 'Upload a file']);
    expect(await links(page, 'Administration')).toEqual(['User Management', 'Feature Flags']);
    expect(await links(page, 'Developer tools')).toEqual(['Workflows', 'Live inspector']);
    await page.getByRole('link', { name: 'Upload a file' }).click();
    await page.waitForURL(`${server.url}/files/upload`);

    page = await open({ email: user('view.only') });
    await page.goto(`${server.url}/data-queue`);
    await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
    expect(await links(page, 'Daily work')).toEqual(['Data Queue', 'Formulas', 'Connections', 'Activity History']);
    expect(await page.getByRole('group', { name: 'Developer tools' }).count()).toBe(0);
  });
});

describe('focus', () => {
  it('moves to the new page\'s heading after a navigation', async () => {
    const page = await open({ email: user('administrator') });
    await page.goto(`${server.url}/connections`);
    await heading(page).filter({ hasText: 'Connections' }).waitFor();
    await page.getByRole('link', { name: 'Activity History' }).click();
    await page.waitForURL(`${server.url}/activity-history`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(await activeText(page)).toBe('Activity History');
    // and by keyboard
    await page.getByRole('link', { name: 'Formulas' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/integrations-formulas`);
    await expect.poll(() => activeText(page)).toBe('All Formulas');
  });

  it('shows where keyboard focus is on every control of the shell and page', async () => {
    const page = await open({ email: user('administrator') });
    await page.goto(`${server.url}/connections`);
    await page.getByRole('table', { name: 'Data Sources' }).waitFor();
    // styles compared at once, without transitions half way
    await page.addStyleTag({ content: '*, *::before, *::after { transition: none !important; }' });
    const seen: string[] = [];
    for (let i = 0; i < 16; i++) {
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const look = () => { const s = getComputedStyle(el); return { outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0, shadow: s.boxShadow, border: s.borderColor }; };
        const focused = look();
        // an input shows focus by its border's colour: compare with the same input unfocused
        el.blur();
        const unfocused = look();
        el.focus();
        const ring = focused.outline || focused.shadow !== unfocused.shadow || focused.border !== unfocused.border;
        return { name: `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30)}`, ring };
      });
      if (!focus) continue;
      seen.push(focus.name);
      expect(focus.ring, `no visible focus on ${focus.name}`).toBe(true);
    }
    expect(seen.length).toBeGreaterThan(8);
  });

  it('keeps focus inside a dialog and returns it to what opened it', async () => {
    const page = await open({ email: user('administrator') });
    await page.goto(`${server.url}/connections`);
    const add = page.getByRole('button', { name: 'Add data source' });
    await page.getByRole('table', { name: 'Data Sources' }).waitFor();
    await add.click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    const inDialog = () => page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'));
    await expect.poll(inDialog).toBe(true);
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      expect(await inDialog(), `focus left the dialog after ${i + 1} Tab presses`).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent?.trim())).toBe('Add data source');
  });
});

describe('on a 390 px phone', () => {
  it('keeps the header on one row and the page title in sight', async () => {
    const page = await open({ email: user('administrator'), viewport: PHONE });
    for (const p of ['/connections', '/data-queue', '/files/upload', '/feature-flags']) {
      await page.goto(`${server.url}${p}`);
      const h1 = heading(page);
      await h1.waitFor();
      const header = await page.locator('header').first().boundingBox();
      const box = (await h1.boundingBox())!;
      expect(header!.height, p).toBeLessThanOrEqual(60);
      expect(box.y, `${p}: the title starts below the header`).toBeGreaterThanOrEqual(header!.y + header!.height);
      // nothing covers the title
      const top = await page.evaluate(([x, y]) => document.elementFromPoint(x!, y!)?.closest('h1') !== null, [box.x + 10, box.y + box.height / 2]);
      expect(top, `${p}: the title is covered`).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth), p).toBeLessThanOrEqual(PHONE.width);
    }
  });

  it('scrolls a wide table inside its box', async () => {
    const page = await open({ email: user('administrator'), viewport: PHONE });
    await page.goto(`${server.url}/connections`);
    const table = page.getByRole('table', { name: 'Data Sources' });
    await table.waitFor();
    const sizes = await table.evaluate((t) => {
      const box = t.closest('.mantine-TableScrollContainer-scrollContainer') as HTMLElement;
      return { table: t.scrollWidth, box: box.clientWidth, overflow: getComputedStyle(box).overflowX };
    });
    expect(sizes.table).toBeGreaterThan(sizes.box);
    expect(sizes.overflow).toBe('auto');
  });

  it('folds the navigation behind the burger and closes it after a choice', async () => {
    const page = await open({ email: user('administrator'), viewport: PHONE });
    await page.goto(`${server.url}/data-queue`);
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    const link = nav.getByRole('link', { name: 'Connections', includeHidden: true });
    // on screen and able to take focus: a folded navigation is moved off screen and inert
    const reachable = () => link.evaluate((el) => el.closest('[inert]') === null && el.getBoundingClientRect().right > 0);
    await heading(page).waitFor();
    expect(await reachable()).toBe(false);
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await expect.poll(reachable).toBe(true);
    await link.click();
    await page.waitForURL(`${server.url}/connections`);
    await expect.poll(reachable).toBe(false);
    expect(await page.getByRole('button', { name: 'Open navigation' }).getAttribute('aria-expanded')).toBe('false');
  });

  it('switches tenant from the user menu', async () => {
    const page = await open({ email: user('power.user'), viewport: PHONE });
    await page.goto(`${server.url}/connections`);
    await heading(page).waitFor();
    expect(await page.getByRole('combobox', { name: 'Tenant' }).isVisible()).toBe(false);
    const switched = page.waitForResponse((r) => r.url().endsWith('/user/active-tenant') && r.request().method() === 'PATCH');
    await page.getByRole('button', { name: /User menu/ }).click();
    await page.getByRole('menuitem', { name: 'Riverside Youth Arts' }).click();
    expect((await switched).status()).toBe(200);
    await page.getByRole('button', { name: /User menu/ }).click();
    await expect.poll(() => page.getByRole('menuitem', { name: 'Riverside Youth Arts' }).getAttribute('aria-current')).toBe('true');
  });
});
