/**
 * The demo as `start` sets it up, for the end-to-end browser tests: a host with its sandbox listener, the
 * sample add-on built and registered, the template integrator as a separate real server, and a List of
 * more than one page of people. Every listener on a free port; Chromium launched.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { integratorStartingListener, startDemoIntegrator, type DemoIntegrator } from '#host/demo/demo-integrator.ts';
import { listenOn, type Listener } from '#host/http/listen.ts';
import { prepareDemo, type PreparedDemo } from '#host/demo/prepare-demo.ts';
import { createSandboxApp } from '#host/addons/sandbox/sandbox-origin.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { launchBrowser } from '../support/browser.ts';
import { TEST_PASSWORD } from '../support/constants.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { createIntegratorTestDatabase } from '#integrator/test/support.ts';

export interface DemoFixture {
  t: HttpTestHost;
  sandboxUrl: string;
  integrator: DemoIntegrator;
  integratorDb: { db: Database; drop(): Promise<void> };
  demo: PreparedDemo;
  /** A List of Demo Church with more than 100 people (the add-on follows links.next). */
  listId: string;
  browser: Browser;
  /**
   * Signs `page` in as `email` through the List page's login redirect; ends on the List page. `filled` runs on the
   * login page once its fields are filled, before the form is sent (checks, screenshots).
   */
  signInToList(page: Page, email?: string, filled?: (page: Page) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

export async function startDemoFixture(): Promise<DemoFixture> {
  const bundleDir = await mkdtemp(join(tmpdir(), 'addon-kit-e2e-'));
  const sandbox: Listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
  const sandboxUrl = `http://127.0.0.1:${sandbox.port}`;
  const integratorListener: Listener = await listenOn(0, '127.0.0.1', integratorStartingListener);
  const integratorUrl = `http://127.0.0.1:${integratorListener.port}`;
  const t = await startHttpTestHost({
    demo: true,
    config: { addonSweepIntervalSeconds: 0, sandboxUrl, addonSdkDir: bundleDir },
  });
  const demo = await prepareDemo({ db: t.db, config: t.host.config, integratorUrl, env: {} });
  const { rows } = await t.db.query<{ id: string }>(
    "SELECT l.id::text FROM lists l JOIN organizations o ON o.id = l.organization_id WHERE o.slug = 'demo' AND l.total_people > 100 ORDER BY l.id LIMIT 1",
  );
  const listId = rows[0]!.id;
  sandbox.attach(createSandboxApp({ db: t.db, hostBaseUrl: t.baseUrl, sandboxUrl, bundleDir }));
  const integratorDb = await createIntegratorTestDatabase();
  const integrator = await startDemoIntegrator({
    listener: integratorListener,
    baseUrl: integratorUrl,
    hostBaseUrl: t.baseUrl,
    oauthApplicationId: demo.sampleAddon.oauthApplicationId,
    hostName: t.host.config.platformName,
    db: integratorDb.db,
    env: { INTEGRATOR_LOG_LEVEL: 'silent' },
  });
  const browser = await launchBrowser();
  return {
    t,
    sandboxUrl,
    integrator,
    integratorDb,
    demo,
    listId,
    browser,
    async signInToList(page, email = 'admin@demo.test', filled) {
      const listUrl = `${t.baseUrl}/demo/lists/${listId}`;
      await page.goto(listUrl);
      expect(new URL(page.url()).pathname).toBe('/login');
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', TEST_PASSWORD);
      await filled?.(page);
      await Promise.all([page.waitForURL(listUrl), page.click('button[type=submit]')]);
    },
    async close() {
      await browser.close();
      await sandbox.close();
      await integratorListener.close();
      await integrator.close();
      await integratorDb.drop();
      await t.close();
      await rm(bundleDir, { recursive: true, force: true });
    },
  };
}
