/**
 * All Formulas at a phone's 390 px in Chromium: each formula is a card whose name, status and
 * actions are in sight without scrolling sideways (the page itself is no wider than the screen);
 * at 1440 px the formulas are the table. Screenshots of both: /tmp/all-formulas-{1440,390}.png.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { call, sessionFor } from '../support/api.ts';
import { signedInBefore, signedInContexts } from '../support/appSession.ts';
import { launchChromium } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const ADMIN = 'administrator@demo.tributary.test';
const NAME = 'Spring supporters for the newsletter';
const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1440, height: 900 };

let server: TestServer;
let browser: Browser;
let signedIn: ReturnType<typeof signedInContexts>;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  const admin = await sessionFor(server.url, ADMIN);
  const me = await (await call(server.url, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers })).json() as { activeTenantId: string };
  const headers = { ...admin.headers, tenantId: me.activeTenantId };
  expect((await call(server.url, '/integrations/v1/data-sources', { method: 'POST', headers, body: { system: 'file-upload', displayName: 'Uploads', settings: {} } })).status).toBe(201);
  for (const name of [NAME, 'Autumn gala']) {
    expect((await call(server.url, '/web-api/v1/formulas', { method: 'POST', headers, body: { name } })).status).toBe(201);
  }
  await signedInBefore(server, [ADMIN]);
  browser = await launchChromium();
  signedIn = signedInContexts(browser, server.url);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The element lies wholly inside the viewport's width. */
async function withinWidth(page: Page, element: Locator): Promise<boolean> {
  const box = await element.boundingBox();
  return !!box && box.x >= 0 && box.x + box.width <= page.viewportSize()!.width;
}

describe('All Formulas at a phone\'s width', () => {
  it('shows each formula\'s name, status and actions within 390 px, and the table at 1440 px', async () => {
    const { context, page } = await signedIn(ADMIN, { viewport: WIDE });
    try {
      await page.goto(`${server.url}/integrations-formulas`);
      await page.getByRole('heading', { level: 1, name: 'All Formulas' }).waitFor();
      await page.getByRole('table', { name: 'Formulas' }).getByRole('cell', { name: NAME, exact: true }).waitFor();
      await page.screenshot({ path: '/tmp/all-formulas-1440.png' });

      // as a phone opens it (a resized page would still be sliding its navigation away)
      await page.setViewportSize(PHONE);
      await page.reload();
      const card = page.getByRole('list', { name: 'Formulas' }).getByRole('listitem', { name: NAME });
      await card.waitFor();
      await page.screenshot({ path: '/tmp/all-formulas-390.png', fullPage: true });
      // nothing on the page is wider than the screen
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      expect(await withinWidth(page, card.getByText(NAME, { exact: true }))).toBe(true);
      const status = card.getByRole('group', { name: `Status of ${NAME}` });
      expect(await status.textContent()).toBe('Draft');
      expect(await withinWidth(page, status)).toBe(true);
      const actions = card.getByRole('group', { name: `Actions for ${NAME}` });
      expect(await withinWidth(page, actions)).toBe(true);
      for (const name of [`Edit ${NAME}`, `Copy ${NAME}`, `Delete ${NAME}`]) {
        expect(await withinWidth(page, actions.getByRole(name.startsWith('Edit') ? 'link' : 'button', { name, exact: true }))).toBe(true);
      }
    } finally {
      await context.close();
    }
  });
});
