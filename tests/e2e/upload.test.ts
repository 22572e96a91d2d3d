/**
 * File upload end to end in Chromium: the built app, signed in through the embedded provider,
 * uploading through the real server with a real clamd (tests/support/clamav.ts).
 *
 * The upload screen is expected at /files/upload (the lead wires UploadPage to that route).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { UPLOAD_MESSAGES } from '../../src/domain/upload.ts';
import { launchChromium } from '../support/browser.ts';
import { signInThroughApp } from '../support/appSession.ts';
import { csvText, eicar, PNG } from '../support/flatFiles.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

export const UPLOAD_ROUTE = '/files/upload';
const clamavSocket = inject('clamavSocket');

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  if (!clamavSocket) return;
  server = await startTestServer({ staticRoot: path.resolve('dist'), env: { CLAMAV_SOCKET: clamavSocket } });
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  // file choosers are intercepted from the start: turning interception on only when a test waits
  // for a chooser races the key press that opens it (the chooser then opens natively, unseen)
  page.on('filechooser', () => {});
  await signInThroughApp(page, server.url, 'administrator@demo.tributary.test');
  await page.getByRole('button', { name: /User menu/ }).first().waitFor();
  await page.goto(`${server.url}${UPLOAD_ROUTE}`);
  await page.getByRole('heading', { name: 'Upload a file' }).waitFor();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await server?.close();
});

const input = () => page.locator('[data-testid="upload-dropzone"] input[type="file"]');
const choose = (name: string, content: string | Buffer, mimeType = 'text/csv') =>
  input().setInputFiles({ name, mimeType, buffer: Buffer.isBuffer(content) ? content : Buffer.from(content) });
const outcomeAlert = () => page.locator('[role="alert"][data-outcome]');

async function expectOutcome(outcome: string, title: string) {
  await expect.poll(() => outcomeAlert().getAttribute('data-outcome'), { timeout: 20_000 }).toBe(outcome);
  expect(await outcomeAlert().textContent()).toContain(title);
}

describe.skipIf(!clamavSocket)(`uploading on ${UPLOAD_ROUTE}`, () => {
  it('uploads a CSV with progress and shows its headers and first 20 rows', async () => {
    // slow the upload so its progress can be seen: about 2MB at 1MB/s
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });
    const big = `${csvText(25)}${'Zed,Zed,zed@example.org,1.00\r\n'.repeat(70_000)}`;
    await choose('supporters.csv', big);
    const bar = page.getByRole('progressbar');
    await bar.waitFor();
    await expect.poll(async () => Number(await bar.getAttribute('aria-valuenow')), { timeout: 10_000 }).toBeGreaterThan(0);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    await expectOutcome('success', UPLOAD_MESSAGES.success);
    const table = page.getByRole('table', { name: 'Sample rows' });
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['First name', 'Last name', 'Email', 'Amount']);
    expect(await table.locator('tbody tr').count()).toBe(20);
    // clamd scanned it: nothing says "not scanned"
    expect(await page.getByTestId('not-scanned').count()).toBe(0);
    expect(await outcomeAlert().textContent()).toContain(`${25 + 70_000} rows`);
  });

  it('refuses the EICAR test file as a virus, and a PNG named .csv by its content', async () => {
    await choose('gifts.csv', `Name,Note\r\nAnn,${eicar()}\r\n`);
    await expectOutcome('virus-found', 'Virus found in file');
    await choose('photo.csv', PNG);
    await expectOutcome('unsupported-type', 'File type not accepted');
  });

  it('refuses in the browser, before sending, a file the server would refuse by its name', async () => {
    const sent: string[] = [];
    page.on('request', (r) => { if (r.url().includes('/flat-file-service/')) sent.push(r.url()); });
    await choose('report.pdf', '%PDF-1.7\n', 'application/pdf');
    await expectOutcome('unsupported-type', 'File type not accepted');
    await choose(`${'n'.repeat(146)}.csv`, csvText(1));
    await expectOutcome('file-name-too-long', UPLOAD_MESSAGES['file-name-too-long']);
    expect(sent).toEqual([]);
  });

  it('says when the server cannot be reached, and sends the same file again on "Try again"', async () => {
    await page.route('**/flat-file-service/v1/uploads', (route) => route.abort('connectionrefused'));
    await choose('again.csv', csvText(3));
    await expectOutcome('unreachable-server', UPLOAD_MESSAGES['unreachable-server']);
    await page.unroute('**/flat-file-service/v1/uploads');
    await page.getByRole('button', { name: 'Try again' }).click();
    await expectOutcome('success', UPLOAD_MESSAGES.success);
    expect(await outcomeAlert().textContent()).toContain('again.csv');
  });

  it('opens the file chooser from the keyboard', async () => {
    await page.getByRole('button', { name: 'Upload another file' }).focus();
    const chooser = page.waitForEvent('filechooser');
    await page.keyboard.press('Enter');
    const fileChooser = await chooser;
    await fileChooser.setFiles({ name: 'keyboard.csv', mimeType: 'text/csv', buffer: Buffer.from(csvText(2)) });
    await expectOutcome('success', UPLOAD_MESSAGES.success);
  });
});
