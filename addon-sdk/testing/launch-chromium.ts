/** Launches the machine's Chromium through playwright-core: a browser is found, never downloaded. */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Where Chromium is looked for when no path is given: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`.
 *
 * @example
 * ```ts
 * import { defaultChromiumPath } from '@addon-kit/sdk/testing';
 *
 * defaultChromiumPath(); // '/usr/bin/chromium' unless CHROMIUM_PATH is set
 * ```
 */
export function defaultChromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/**
 * Headless Chromium at `executablePath` with background networking off; a clear error when it is missing.
 *
 * @example
 * ```ts
 * import { launchChromium, startAddonTest } from '@addon-kit/sdk/testing';
 *
 * // One browser for every test of a file (startAddonTest leaves a given browser open).
 * const browser = await launchChromium();
 * const addon = await startAddonTest({ entry: 'src/index.tsx', browser });
 * ```
 */
export async function launchChromium(executablePath: string = defaultChromiumPath()): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: install it (Debian: apt-get install -y chromium) ` +
        'or set CHROMIUM_PATH (or the chromiumPath option) to its executable',
    );
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}
