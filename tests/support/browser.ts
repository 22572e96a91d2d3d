/** Debian's Chromium, driven by playwright-core; never a downloaded browser. */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath = (): string => process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Called by the end-to-end suite's global setup, so a missing browser stops the run once, saying why. */
export function assertChromium(): void {
  if (fs.existsSync(chromiumPath())) return;
  throw new Error(`Chromium is not at ${chromiumPath()}: the end-to-end tests need Debian's Chromium. `
    + '`npm test` installs it when run as root; otherwise apt-get install chromium (CHROMIUM_PATH overrides the path), '
    + 'or leave the end-to-end suite out of a local run with TRIBUTARY_SKIP_E2E=1 npm test.');
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
