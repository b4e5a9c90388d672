import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthApplication } from '../../../host/oauth/applications.ts';
import type { Database } from '../../../host/db/database.ts';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { CLIENT_ID, CLIENT_SECRET, createIntegratorTestDatabase, startTestIntegrator, USER, type TestIntegrator } from '../../integrator-template/support.ts';
import { organizationId, testBox } from './fixtures.ts';

let t: HttpTestHost;
let integrator: TestIntegrator;
let integratorDb: { db: Database; drop(): Promise<void> };
let browser: Browser;
let appId: string;

beforeAll(async () => {
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
  const app = await createOAuthApplication(t.db, testBox(), { organizationId: await organizationId(t.db, 'demo'), name: 'Messages add-on', redirectUris: ['http://127.0.0.1/pending'], addOnScopes: 'people' });
  appId = app.id;
  integratorDb = await createIntegratorTestDatabase();
  integrator = await startTestIntegrator(integratorDb.db, {
    hostBaseUrl: t.baseUrl,
    oauthApplicationId: Number(appId),
    clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [`${t.baseUrl}/addons/authorizations/${appId}`], name: 'Test Host' }],
  });
  await t.db.query('UPDATE oauth_applications SET redirect_uris = $2 WHERE id = $1', [appId, [`${integrator.url}/addon/complete`]]);
  const push = await fetch(`${t.baseUrl}/addons/v1/applications/${appId}/environments/development`, {
    method: 'PUT',
    headers: { authorization: await basicAuthFor(t.db, 'admin@demo.test'), 'user-agent': TEST_USER_AGENT, 'content-type': 'application/json' },
    body: JSON.stringify({
      bundle: 'export default () => {}',
      config: {
        oauth_application_id: Number(appId),
        scopes: ['people'],
        ui_extensions: {},
        environments: {
          development: {
            integrator_oauth: {
              authorize_url: `${integrator.url}/oauth/authorize`,
              token_url: `${integrator.url}/oauth/token`,
              redirect_url: `${integrator.url}/addon/complete`,
              client_id: CLIENT_ID,
              client_secret: CLIENT_SECRET,
              scopes: ['messages'],
            },
            integrator_api: { base_url: integrator.url, allow: [{ method: 'GET', path: '/api/messages' }] },
            ui_extensions: [],
            organization_ids: [],
          },
        },
      },
    }),
  });
  expect(push.status).toBe(201);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await integrator?.close();
  await integratorDb?.drop();
  await t?.close();
});

/** Answers whichever page the popup shows until it closes: host consent, integrator login and consent. */
async function drivePopup(popup: Page): Promise<string[]> {
  const seen: string[] = [];
  let closed = false;
  popup.on('close', () => (closed = true));
  for (let i = 0; i < 12 && !closed; i++) {
    await popup.waitForLoadState('load').catch(() => undefined);
    if (closed) break;
    const url = new URL(popup.url());
    seen.push(`${url.origin === t.baseUrl ? 'host' : 'integrator'}${url.pathname.replace(/\/[A-Za-z0-9_-]{20,}/, '/:uid')}`);
    if (await popup.locator('input[name=email]').count()) {
      await popup.fill('input[name=email]', 'admin@demo.test');
      await popup.fill('input[name=password]', TEST_PASSWORD);
      await Promise.all([popup.waitForNavigation(), popup.click('button[type=submit]')]);
    } else if (await popup.locator('input[name=username]').count()) {
      await popup.fill('input[name=username]', USER.username);
      await popup.fill('input[name=password]', USER.password);
      await Promise.all([popup.waitForNavigation(), popup.click('button[type=submit]')]);
    } else if (await popup.locator('button[value=allow]').count()) {
      // The last Allow ends on the page that closes the popup, so the navigation may never be observed.
      await Promise.all([popup.waitForNavigation().catch(() => undefined), popup.click('button[value=allow]')]);
    } else {
      await popup.waitForEvent('close', { timeout: 5000 });
    }
  }
  return seen;
}

describe('the two-way handshake in Chromium', () => {
  it('runs in a popup and posts the ready message to the opener before closing [real browser]', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${t.baseUrl}/login`);
    await page.fill('input[name=email]', 'admin@demo.test');
    await page.fill('input[name=password]', TEST_PASSWORD);
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    // A page of the host's origin stands in for the host page that embeds the add-on.
    await page.goto(`${t.baseUrl}/health`);
    const installations = await page.evaluate(async () => (await fetch('/addons/installations')).json());
    const installation = installations.data[0].id as string;
    await page.evaluate(() => {
      (window as unknown as { messages: unknown[] }).messages = [];
      window.addEventListener('message', (event) => (window as unknown as { messages: unknown[] }).messages.push({ origin: event.origin, data: event.data }));
    });
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      page.evaluate((id) => void window.open(`/addons/installations/${id}/authorize`, 'addon-authorize', 'popup,width=500,height=600'), installation),
    ]);
    const seen = await drivePopup(popup);
    expect(popup.isClosed()).toBe(true);
    // The pages a person meets: host consent (already logged in), integrator login, integrator consent.
    expect(seen).toEqual(['host/oauth/interaction/:uid', 'integrator/login', 'integrator/oauth/authorize']);
    const messages = await page.evaluate(() => (window as unknown as { messages: unknown[] }).messages);
    expect(messages).toEqual([{ origin: t.baseUrl, data: { type: 'addon-kit:handshake', installationId: installation, state: 'ready' } }]);
    const state = await page.evaluate(async (id) => (await fetch(`/addons/installations/${id}/state`)).json(), installation);
    expect(state).toEqual({ state: 'ready' });
    await context.close();
  });
});
