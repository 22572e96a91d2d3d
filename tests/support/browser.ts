/**
 * Debian's Chromium, driven by playwright-core; never a downloaded browser. One Chromium serves the
 * whole end-to-end run (its global setup starts it, tests/support/buildApp.ts): each file connects
 * to it, and closing what it connected closes that file's contexts, not the browser.
 */
import fs from 'node:fs';
import { chromium, type Browser, type BrowserServer } from 'playwright-core';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** where the run's Chromium takes connections; empty when the project has none */
    chromiumWsEndpoint: string;
  }
}

export const chromiumPath = (): string => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Called by the end-to-end suite's global setup, so a missing browser stops the run once, saying why. */
export function assertChromium(): void {
  if (fs.existsSync(chromiumPath())) return;
  throw new Error(`Chromium is not at ${chromiumPath()}: the end-to-end tests need Debian's Chromium. `
    + '`npm test` installs it when run as root; otherwise apt-get install chromium (CHROMIUM_PATH overrides the path), '
    + 'or leave the end-to-end suite out of a local run with TRIBUTARY_SKIP_E2E=1 npm test.');
}

const LAUNCH = {
  executablePath: chromiumPath(),
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

/** The run's Chromium, for the global setup to provide and to close at the end. */
export function startChromiumServer(): Promise<BrowserServer> {
  return chromium.launchServer(LAUNCH);
}

// outside a vitest run (npm run bench) there is nothing to inject
function sharedEndpoint(): string | undefined {
  try { return inject('chromiumWsEndpoint'); } catch { return undefined; }
}

/** The run's Chromium when the global setup started one, else a Chromium of the caller's own. */
export function launchChromium(): Promise<Browser> {
  const shared = sharedEndpoint();
  return shared ? chromium.connect(shared) : chromium.launch(LAUNCH);
}
