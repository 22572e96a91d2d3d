/**
 * Every screen of the screens table (src/domain/screens.ts) in Chromium, at a desktop width and at
 * a phone's (390 px): axe-core finds no violation, the page has exactly one h1, and on the phone
 * nothing makes the page scroll sideways (a wide table scrolls inside its own box). The shell's
 * screens are visited as the Administrator, who may open all of them; the welcome page as a first
 * login; the bare pages (landing, not-found, the auth-error pages) as a guest. Also the states
 * that only some users reach: a refusal inside the shell, a redirect's notice, a dialog, and the
 * phone's open navigation.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SCREEN_IDS, SCREENS, type ScreenDef, type ScreenId } from '../../src/domain/screens.ts';
import { launchChromium, moveInApp } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** axe-core's browser bundle: a dev dependency of the project. */
function axeSource(): string {
  let file: string;
  try {
    file = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
  } catch {
    throw new Error('axe-core is not installed: it is a dev dependency of the accessibility tests (npm install --save-dev axe-core).');
  }
  return fs.readFileSync(file, 'utf8');
}
const AXE = axeSource();

let server: TestServer;
let browser: Browser;
let db: pg.Client;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  browser = await launchChromium();
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  await db.query("update users set login_count = 5 where email <> 'formula.producer@demo.tributary.test'");
  await db.query("update users set login_count = 0 where email = 'formula.producer@demo.tributary.test'");
});
afterAll(async () => {
  await Promise.all(contexts.map((c) => Promise.race([c.close(), new Promise((r) => setTimeout(r, 5000))])));
  await db?.end();
  await browser?.close();
  await server?.close();
});

const WIDTHS = [1280, 390] as const;
const PHONE = 390;

type Visitor = 'guest' | 'administrator' | 'first login';

/** Who visits each screen, and at which address (parameters filled in). */
function visitOf(id: ScreenId): { visitor: Visitor; path: string } | null {
  const screen: ScreenDef = SCREENS[id];
  // the suite drives the production build, which has no non-production screens
  if (screen.access.nonProductionOnly) return null;
  const p = screen.path.replace(':formulaId', 'f-1').replace(':customBucket', 'duplicates');
  if (id === 'welcome') return { visitor: 'first login', path: p };
  if (screen.access.public) return { visitor: 'guest', path: id === 'notFound' ? `${p}?path=%2Fno%2Fsuch%2Fpage` : p };
  return { visitor: 'administrator', path: p };
}
const VISITS = SCREEN_IDS.flatMap((id) => { const v = visitOf(id); return v ? [{ id, ...v }] : []; });

interface Violation { id: string; impact: string | null; help: string; nodes: { target: string; summary: string }[] }

/** axe-core over the whole document, or over the elements `within` selects; violations only. */
async function axe(page: Page, within?: string, skip: string[] = []): Promise<Violation[]> {
  // evaluated through the DevTools protocol, which the app's Content-Security-Policy does not govern
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  return page.evaluate(async ({ selector, rules }) => {
    const { violations } = await (window as unknown as { axe: { run(ctx: unknown, o: object): Promise<{ violations: never[] }> } })
      .axe.run(selector ? { include: [selector] } : document, {
        resultTypes: ['violations'], rules: Object.fromEntries(rules.map((r) => [r, { enabled: false }])),
      });
    return (violations as { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary?: string }[] }[])
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary ?? '' })) }));
  }, { selector: within ?? null, rules: skip });
}

const describeViolations = (vs: Violation[]) => vs.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target}\n      ${n.summary.replace(/\n/g, '\n      ')}`).join('\n')}`).join('\n');

/**
 * Until no transition or finite animation has run for a few frames in a row: Mantine's (dialogs,
 * alerts) start a frame or two after what they show is in the page, and take up to a quarter of a
 * second. An endless animation (a loader's) never ends, and does not count.
 */
async function animationsDone(page: Page): Promise<void> {
  const settled = await page.evaluate(() => new Promise<boolean>((resolve) => {
    const deadline = performance.now() + 20_000;
    let quiet = 0;
    const tick = () => {
      const moving = document.getAnimations().some((a) => a.playState === 'running' && a.effect?.getComputedTiming().endTime !== Infinity);
      quiet = moving ? 0 : quiet + 1;
      if (quiet >= 6) resolve(true);
      else if (performance.now() > deadline) resolve(false);
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }));
  expect(settled, 'animations still running after 20 s').toBe(true);
}

/** Waits until the page at `pathname` has rendered its heading and nothing on it is still loading or moving. */
async function settle(page: Page, pathname: string): Promise<void> {
  await page.waitForURL((u) => u.pathname === pathname, { timeout: 20_000 });
  // after a move inside the app, the heading of the page it left is gone first
  await page.waitForFunction(() => document.querySelectorAll('[data-left]').length === 0, undefined, { timeout: 20_000 });
  await page.locator('h1').first().waitFor({ timeout: 20_000 });
  await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0, undefined, { timeout: 20_000 });
  await animationsDone(page);
}

/** The width each page last loaded the app at: a page resized for the other width loads it again. */
const loadedAt = new WeakMap<Page, number>();

/**
 * Opens `address` on a page already showing the app at this width as the app's own links do
 * (history.pushState and a popstate event, which the router follows): the app and axe-core stay
 * loaded, and the screen renders as after a click. Otherwise, or for another query on the same
 * path, a full load.
 */
async function open(page: Page, width: number, address: string): Promise<void> {
  const target = new URL(address, server.url);
  const here = new URL(page.url());
  if (loadedAt.get(page) !== width || here.origin !== target.origin || here.pathname === target.pathname) {
    await page.goto(target.href);
    loadedAt.set(page, width);
    return;
  }
  await moveInApp(page, target.pathname + target.search);
}

interface Findings { violations: Violation[]; h1: string[]; scrollWidth: number }

async function inspect(page: Page): Promise<Findings> {
  return {
    violations: await axe(page),
    h1: await page.locator('h1').allTextContents(),
    scrollWidth: await page.evaluate(() => document.documentElement.scrollWidth),
  };
}

function expectSound(f: Findings, width: number, where: string): void {
  expect(f.violations, `${where}: axe violations\n${describeViolations(f.violations)}`).toEqual([]);
  expect(f.h1.length, `${where}: h1 elements ${JSON.stringify(f.h1)}`).toBe(1);
  if (width === PHONE) expect(f.scrollWidth, `${where}: the page scrolls sideways`).toBeLessThanOrEqual(PHONE);
}

const viewportOf = (width: number) => ({ width, height: width === PHONE ? 844 : 800 });
async function signedInContext(width: number, email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: viewportOf(width) });
  contexts.push(context);
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  await signInThroughApp(page, server.url, email);
  await page.getByRole('button', { name: /User menu|Go back to login/ }).first().waitFor();
  return { context, page };
}

/**
 * One page per user for the whole file (a guest's, or one signed in through the app once), at the
 * width asked for: resized, it loads the app again at its next visit (open above).
 */
const pagesOf = new Map<string, Promise<Page>>();
async function pageFor(who: string, width: number): Promise<Page> {
  let made = pagesOf.get(who);
  if (!made) {
    made = who === 'guest'
      ? browser.newContext({ viewport: viewportOf(width) }).then((c) => { contexts.push(c); c.setDefaultTimeout(20_000); return c.newPage(); })
      : signedInContext(width, who).then((s) => s.page);
    pagesOf.set(who, made);
  }
  const page = await made;
  if (page.viewportSize()?.width !== width) await page.setViewportSize(viewportOf(width));
  return page;
}

const ADMINISTRATOR = 'administrator@demo.tributary.test';
const FIRST_LOGIN = 'formula.producer@demo.tributary.test';

describe.each(WIDTHS)('every screen at %i px', (width) => {
  const pages = new Map<Visitor, Page>();

  beforeAll(async () => {
    pages.set('guest', await pageFor('guest', width));
    pages.set('administrator', await pageFor(ADMINISTRATOR, width));
    // the welcome page is for a first login: the Formula Producer has never signed in before this
    // file's first sign-in, and the page stays theirs for that session (loaded again at each width)
    pages.set('first login', await pageFor(FIRST_LOGIN, width));
  });

  it.each(VISITS.map((v) => [v.id, v] as const))('%s', async (_id, visit) => {
    const page = pages.get(visit.visitor)!;
    const pathname = new URL(visit.path, 'http://x').pathname;
    await open(page, width, visit.path);
    await settle(page, pathname);
    expectSound(await inspect(page), width, `${visit.path} as ${visit.visitor}`);
    // what was inspected is the screen asked for, not one the app moved on to meanwhile
    expect(new URL(page.url()).pathname, `${visit.path} as ${visit.visitor}`).toBe(pathname);
  });

  it('a refusal inside the shell (a Power User asks for User Management)', async () => {
    const page = await pageFor('power.user@demo.tributary.test', width);
    await page.goto(`${server.url}/user-management`);
    await settle(page, '/auth-error/role');
    await page.getByTestId('screen-refused').waitFor();
    expectSound(await inspect(page), width, 'refusal of /user-management');
  });

  it('a redirect\'s notice (a Connection Manager asks for the Data Queue)', async () => {
    const page = await pageFor('connection.manager@demo.tributary.test', width);
    await page.goto(`${server.url}/data-queue`);
    await settle(page, '/connections');
    await page.getByTestId('redirect-notice').waitFor();
    expectSound(await inspect(page), width, 'notice on /connections');
  });

  it('a guest sent to sign in', async () => {
    const page = pages.get('guest')!;
    await page.goto(`${server.url}/activity-history`);
    loadedAt.set(page, width);
    await settle(page, '/landing');
    await page.getByTestId('redirect-notice').waitFor();
    expectSound(await inspect(page), width, 'notice on /landing');
  });

  it('the dialog to add a data source', async () => {
    const page = pages.get('administrator')!;
    await open(page, width, '/connections');
    await settle(page, '/connections');
    await page.getByRole('button', { name: 'Add data source' }).click();
    await page.getByRole('dialog').waitFor();
    await animationsDone(page);
    // the dialog itself. Mantine draws a dialog's header as a <header> inside <section role="dialog">:
    // axe counts it as a second banner beside the shell's, where browsers (scoping it to the section
    // element) do not, so that one rule is left out here
    const violations = await axe(page, '[role="dialog"]', ['landmark-no-duplicate-banner']);
    expect(violations, `connection dialog: axe violations\n${describeViolations(violations)}`).toEqual([]);
    if (width === PHONE) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('the dialog to add a user, with the rules\' messages showing', async () => {
    const page = pages.get('administrator')!;
    await open(page, width, '/user-management');
    await settle(page, '/user-management');
    await page.getByRole('button', { name: 'Add user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Choose at least 1 role for each tenant').waitFor();
    await animationsDone(page);
    // as with the data source dialog: Mantine's dialog header counts as a second banner for axe only
    const violations = await axe(page, '[role="dialog"]', ['landmark-no-duplicate-banner']);
    expect(violations, `user dialog: axe violations\n${describeViolations(violations)}`).toEqual([]);
    if (width === PHONE) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it.runIf(width === PHONE)('the open navigation', async () => {
    const page = pages.get('administrator')!;
    await open(page, width, '/connections');
    await settle(page, '/connections');
    await page.getByRole('button', { name: 'Open navigation' }).click();
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Data Queue' }).waitFor();
    await animationsDone(page);
    expectSound(await inspect(page), width, 'open navigation');
  });
});
