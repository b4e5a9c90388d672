/**
 * Per-file set-up of the SDK's browser tests: builds the bundles (host embedder, sandbox bootstrap and the
 * given add-ons) with vite into a temporary directory, starts the contract servers, launches Chromium.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildAddonSdk } from '#sdk/build/build.ts';
import { HOST_BUNDLE, SANDBOX_BUNDLE } from '#sdk/build/bundles.ts';
import { startContractServers, type ContractServers } from '../support/addon-contract-server.ts';
import { launchBrowser } from '../support/browser.ts';

export interface Harness {
  servers: ContractServers;
  browser: Browser;
  /** A fresh page on the host origin with the embedder loaded. */
  openHostPage(): Promise<Page>;
  close(): Promise<void>;
}

/** Builds and starts everything; `addons` maps an add-on name to its entry file. */
export async function startHarness(addons: Record<string, string>): Promise<Harness> {
  const outDir = await mkdtemp(join(tmpdir(), 'addon-sdk-'));
  const addonBundles = Object.entries(addons).map(([name, entry]) => ({
    file: `addons/${name}.js`,
    entry,
    format: 'addon' as const,
  }));
  await buildAddonSdk({ outDir, bundles: [HOST_BUNDLE, SANDBOX_BUNDLE, ...addonBundles] });
  const servers = await startContractServers({
    bundleDir: outDir,
    addons: Object.fromEntries(Object.keys(addons).map((name) => [name, join(outDir, 'addons', `${name}.js`)])),
  });
  const browser = await launchBrowser();
  return {
    servers,
    browser,
    async openHostPage() {
      const page = await browser.newPage();
      await page.goto(`${servers.hostUrl}/`);
      await page.waitForFunction(() => (window as { hostReady?: boolean }).hostReady === true);
      return page;
    },
    async close() {
      await browser.close();
      await servers.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

/** Runs one scenario of a harness add-on: clicks `run <name>` and returns the parsed result text. */
export async function runScenario(page: Page, name: string): Promise<unknown> {
  await page.getByRole('button', { name: `run ${name}`, exact: true }).click();
  const text = page.locator('p.addon-kit-text', { hasText: new RegExp(`^${name} => (?!running)`) });
  const content = (await text.textContent()) ?? '';
  const value = content.slice(`${name} => `.length);
  return value.startsWith('error ') ? { thrown: JSON.parse(value.slice(6)) } : JSON.parse(value);
}

/** The diagnostics events the host page collected from mountAddon's onEvent. */
export function mountEvents(page: Page): Promise<Array<Record<string, unknown>>> {
  return page.evaluate(() => (window as unknown as { addonEvents: Array<Record<string, unknown>> }).addonEvents);
}
