/**
 * The demo List page in Chromium when the embedder (`/assets/addon-sdk/host.js`) cannot load: the add-on's
 * place says so instead of staying blank. The embedder here is a stub that marks its element when it mounts.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { EMBEDDER_FAILED_MESSAGE } from '#host/demo/demo-pages.tsx';
import { runDemoLists } from '#host/demo/demo-lists.ts';
import { ensureSampleAddon } from '#host/demo/sample-addon.ts';
import { launchBrowser } from '../../support/browser.ts';
import { TEST_ENCRYPTION_KEY, TEST_PASSWORD } from '../../support/constants.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

/** Never contacted: the stub embedder opens no frame. */
const SANDBOX = 'http://127.0.0.1:4001';
const STUB_EMBEDDER = "export function mountAddon(element) { element.textContent = 'mounted by the stub'; }";
let t: HttpTestHost;
let tmp: string;
let bundleDir: string;
let browser: Browser;
let page: Page;
let listUrl: string;
let element: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'addon-kit-demo-browser-'));
  bundleDir = join(tmp, '.addon-kit', 'addon-sdk');
  await mkdir(bundleDir, { recursive: true });
  t = await startHttpTestHost({
    demo: true,
    config: { sandboxUrl: SANDBOX, addonSdkDir: bundleDir, addonSweepIntervalSeconds: 0 },
  });
  const box = createSecretBox([TEST_ENCRYPTION_KEY]);
  await ensureSampleAddon(t.db, box, { integratorUrl: 'http://127.0.0.1:4100', bundle: 'self.x = 1;', env: {} });
  await runDemoLists(t.db, new Date());
  const { rows } = await t.db.query<{ id: string }>(
    "SELECT l.id::text FROM lists l JOIN organizations o ON o.id = l.organization_id WHERE o.slug = 'demo' ORDER BY l.id LIMIT 1",
  );
  listUrl = `${t.baseUrl}/demo/lists/${rows[0]!.id}`;
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.goto(listUrl);
  await page.fill('input[name=email]', 'admin@demo.test');
  await page.fill('input[name=password]', TEST_PASSWORD);
  await Promise.all([page.waitForURL(listUrl), page.click('button[type=submit]')]);
  // The installation exists once the List page was shown.
  element = `#addon-${(await t.db.query<{ id: string }>('SELECT id::text FROM addon_installations')).rows[0]!.id}`;
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
  await rm(tmp, { recursive: true, force: true });
});

/** Reloads the List page and returns what the add-on's place shows once the mount script has run. */
async function addonPlace(): Promise<{ text: string; alerts: string[] }> {
  await page.goto(listUrl);
  const place = page.locator(element);
  await place.filter({ hasText: /\S/ }).waitFor({ timeout: 10_000 });
  return { text: (await place.textContent())!, alerts: await place.getByRole('alert').allTextContents() };
}

describe('GET /demo/lists/{id} in Chromium (embedder unavailable)', () => {
  it('mounts the add-on with the embedder when it loads [control]', async () => {
    await writeFile(join(bundleDir, 'host.js'), STUB_EMBEDDER);
    expect(await addonPlace()).toEqual({ text: 'mounted by the stub', alerts: [] });
  });

  it("shows the error in the add-on's place when host.js answers 404 [404]", async () => {
    await rm(join(bundleDir, 'host.js'));
    expect((await fetch(`${t.baseUrl}/assets/addon-sdk/host.js`)).status).toBe(404);
    expect(await addonPlace()).toEqual({ text: EMBEDDER_FAILED_MESSAGE, alerts: [EMBEDDER_FAILED_MESSAGE] });
  });

  it("shows the error in the add-on's place when host.js does not parse [syntax error]", async () => {
    await writeFile(join(bundleDir, 'host.js'), 'export const mountAddon = ;');
    expect(await addonPlace()).toEqual({ text: EMBEDDER_FAILED_MESSAGE, alerts: [EMBEDDER_FAILED_MESSAGE] });
  });

  it("shows the error in the add-on's place when host.js cannot be fetched [network error]", async () => {
    await writeFile(join(bundleDir, 'host.js'), STUB_EMBEDDER);
    await page.route('**/assets/addon-sdk/host.js', (route) => route.abort('connectionrefused'));
    try {
      expect(await addonPlace()).toEqual({ text: EMBEDDER_FAILED_MESSAGE, alerts: [EMBEDDER_FAILED_MESSAGE] });
    } finally {
      await page.unroute('**/assets/addon-sdk/host.js');
    }
  });
});
