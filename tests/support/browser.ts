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

/**
 * Moves a page that shows the app to `to` as the app's own links do (history.pushState and a
 * popstate event, which the router follows): no page load, no new sign-in, the same route rules.
 * Each h1 on screen before the move is marked `data-left`, so a caller can wait for the next
 * screen's heading.
 */
export async function moveInApp(page: import('playwright-core').Page, to: string): Promise<void> {
  await page.evaluate((address) => {
    for (const h of document.querySelectorAll('h1')) h.setAttribute('data-left', '');
    const idx = ((window.history.state as { idx?: number } | null)?.idx ?? 0) + 1;
    window.history.pushState({ usr: null, key: Math.random().toString(36).slice(2, 10), idx }, '', address);
    window.dispatchEvent(new PopStateEvent('popstate', { state: window.history.state }));
  }, to);
}

/**
 * Follows a page's requests, leaving out open event streams (the formula status stream stays open
 * on purpose). `quiet()` resolves once no request has been in flight for `forMs`: what a screen
 * reads once it is open has been read, without a fixed wait that is too long on an idle machine
 * and too short on a busy one.
 */
export function requestsOf(page: import('playwright-core').Page): { quiet(forMs?: number): Promise<void> } {
  const pending = new Set<import('playwright-core').Request>();
  let lastChange = Date.now();
  page.on('request', (r) => {
    if ((r.headers().accept ?? '').includes('text/event-stream')) return;
    pending.add(r);
    lastChange = Date.now();
  });
  const done = (r: import('playwright-core').Request) => { if (pending.delete(r)) lastChange = Date.now(); };
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  return {
    async quiet(forMs = 300) {
      const deadline = Date.now() + 20_000;
      while (pending.size > 0 || Date.now() - lastChange < forMs) {
        if (Date.now() > deadline) throw new Error(`requests still in flight after 20 s: ${[...pending].map((r) => r.url()).join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  };
}
