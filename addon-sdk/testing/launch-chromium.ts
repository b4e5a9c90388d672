/** Launches the machine's Chromium through playwright-core: a browser is found, never downloaded. */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is looked for when no path is given: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`. */
export function defaultChromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Headless Chromium at `executablePath` with background networking off; a clear error when it is missing. */
export async function launchChromium(executablePath: string = defaultChromiumPath()): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium not found at ${executablePath}: install it (Debian: apt-get install -y chromium) ` +
      'or set CHROMIUM_PATH (or the chromiumPath option) to its executable');
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}
