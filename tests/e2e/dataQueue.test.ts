/**
 * The Data Queue end to end in Chromium: the built app over the real server, signed in through the
 * embedded provider. A tab is added, two formula cards placed on it, reordered by keyboard (handle,
 * Space, arrow, Space), and after a reload the order is the one saved.
 */
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, sessionFor } from '../support/api.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { launchChromium } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const EMAIL = 'administrator@demo.tributary.test';
const FIRST = 'Journey first formula';
const SECOND = 'Journey second formula';
const TAB = 'Journey tab';

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await startTestServer({ staticRoot: path.resolve('dist') });
  // two formulas of the administrator's active tenant, made through the API
  const s = await sessionFor(server.url, EMAIL);
  const me = await (await call(server.url, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  for (const name of [FIRST, SECOND]) {
    const res = await call(server.url, '/web-api/v1/formulas', { method: 'POST', headers: { ...s.headers, tenantId: me.activeTenantId }, body: { name } });
    expect(res.status).toBe(201);
  }
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  page = await context.newPage();
  await signInThroughApp(page, server.url, EMAIL);
  await page.getByRole('button', { name: /User menu/ }).first().waitFor();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

const cardsOnTab = () => page.getByRole('list', { name: `Cards on ${TAB}` }).getByRole('heading', { level: 3 }).allTextContents();

describe('the Data Queue on a phone-wide screen', () => {
  it('adds a tab, places two cards on it, reorders them by keyboard, and keeps the order after a reload', async () => {
    await page.goto(`${server.url}/data-queue`);
    await page.getByRole('heading', { level: 1, name: 'Data Queue' }).waitFor();
    await page.getByRole('button', { name: 'Add a tab' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a tab' });
    await dialog.getByRole('textbox', { name: /Tab name/ }).fill('Journey tab!');
    await dialog.getByRole('button', { name: 'Add tab' }).click();
    await dialog.getByText('Maximum of 40 alphanumeric characters, no special characters allowed').waitFor();
    await dialog.getByRole('textbox', { name: /Tab name/ }).fill(TAB);
    await dialog.getByRole('button', { name: 'Add tab' }).click();
    await page.getByRole('tab', { name: TAB, selected: true }).waitFor();

    await page.getByRole('tab', { name: 'All Formulas' }).click();
    for (const name of [FIRST, SECOND]) {
      await page.getByRole('button', { name: `Add ${name} to a tab` }).click();
      await page.getByRole('menuitem', { name: TAB }).click();
      await page.getByRole('button', { name: `Add ${name} to a tab` }).waitFor({ state: 'detached' });
    }
    await page.getByRole('tab', { name: TAB }).click();
    await expect.poll(cardsOnTab).toEqual([FIRST, SECOND]);

    const handle = page.getByRole('button', { name: `Move ${FIRST}`, exact: true });
    await handle.focus();
    await page.keyboard.press('Space');
    await page.getByText(`Lifted ${FIRST}, position 1 of 2.`, { exact: false }).waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Space');
    await page.getByText('The order of the cards is saved.').waitFor({ state: 'attached' });
    expect(await cardsOnTab()).toEqual([SECOND, FIRST]);

    await page.reload();
    await page.getByRole('tab', { name: TAB }).click();
    await expect.poll(cardsOnTab).toEqual([SECOND, FIRST]);
  });

  it('counts records on a card as they arrive and move, without a reload', async () => {
    const count = (label: string) => page.getByRole('link', { name: new RegExp(`^${label}: \\d+ records? of ${FIRST}$`) }).getAttribute('aria-label');
    await expect.poll(() => count('Needs Attention')).toBe(`Needs Attention: 0 records of ${FIRST}`);
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    try {
      // what a run writes: records held for review, as the engine stores them
      await db.query(`
        insert into records (tenant_id, formula_id, source_key, bucket, state, raw, idempotency_key)
        select f.tenant_id, f.id, 'live-' || i, 'new', 'needs-attention', '{}'::jsonb, 'live-' || i
        from formulas f, generate_series(1, 3) as i where f.name = $1`, [FIRST]);
      await expect.poll(() => count('Needs Attention')).toBe(`Needs Attention: 3 records of ${FIRST}`);
      expect(await count('New')).toBe(`New: 3 records of ${FIRST}`);
      // a reviewer adds one to Ready
      await db.query(`update records set state = 'ready' where source_key = 'live-1'`);
      await expect.poll(() => count('Ready')).toBe(`Ready: 1 record of ${FIRST}`);
      expect(await count('Needs Attention')).toBe(`Needs Attention: 2 records of ${FIRST}`);
    } finally {
      await db.end();
    }
  });
});
