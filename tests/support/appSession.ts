/** Signs in through the app's landing page and the embedded provider's login page, as a person does. */
import type { Page } from 'playwright-core';
import { DEMO_PASSWORD } from '../../server/db/seed.ts';

export async function signInThroughApp(page: Page, baseUrl: string, email: string, password = DEMO_PASSWORD, startPath = '/') {
  await page.goto(`${baseUrl}${startPath}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/interaction\//);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
