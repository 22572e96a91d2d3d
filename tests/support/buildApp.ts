/** End-to-end tests drive the built app, as `npm start` serves it, in Debian's Chromium. */
import { ensureAppBuilt } from '../../server/appBuild.ts';
import { assertChromium } from './browser.ts';

export async function setup() {
  assertChromium();
  await ensureAppBuilt();
}
