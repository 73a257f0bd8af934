// Headless Chromium from Debian's package, driven by playwright-core (its own browser downloads
// do not work offline). CHROMIUM_PATH overrides /usr/bin/chromium. The flags keep Chromium from
// calling Google's services at start (refused on a closed network); playwright starts each
// browser with a fresh temporary profile (--user-data-dir) and removes it on close.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const chromiumInstalled = existsSync(CHROMIUM_PATH);

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
