/**
 * End-to-end tests drive the built app, as `npm start` serves it, in Debian's Chromium: the build
 * (made once, or already made by npm test, scripts/test-suites.ts) and one Chromium for the run.
 */
import type { TestProject } from 'vitest/node';
import type { BrowserServer } from 'playwright-core';
import { ensureAppBuilt } from '../../server/appBuild.ts';
import { assertChromium, startChromiumServer } from './browser.ts';

let chromium: BrowserServer | undefined;

export async function setup(project: TestProject) {
  assertChromium();
  await ensureAppBuilt();
  chromium = await startChromiumServer();
  project.provide('chromiumWsEndpoint', chromium.wsEndpoint());
}

export async function teardown() {
  await chromium?.close();
}
