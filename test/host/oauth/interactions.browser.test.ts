import * as client from 'openid-client';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAccessMode } from '#host/oauth/application-access.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { createTestApplication, discoverClient, REDIRECT_URI } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let browser: Browser;

beforeAll(async () => {
  t = await startHttpTestHost();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('GET /oauth/authorize [browser, JavaScript disabled]', () => {
  it('logs in and consents through the server-rendered pages and returns a working code', async () => {
    const app = await createTestApplication(t.db, { name: 'Browser Client' });
    const config = await discoverClient(t.baseUrl, app);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid people',
      state: 'browser-state',
      nonce: 'browser-nonce',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    // The client's redirect_uri is not a real server: answer it in the browser.
    await page.route(`${new URL(REDIRECT_URI).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' }),
    );
    await page.goto(url.href);
    expect(await page.locator('h1').textContent()).toBe('Log in');
    await page.fill('input[name=email]', 'admin@demo.test');
    await page.fill('input[name=password]', TEST_PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/oauth\/interaction\//);
    expect(await page.locator('h1').textContent()).toBe('Authorize Browser Client');
    await page.click('button[value=allow]');
    await page.waitForURL(`${REDIRECT_URI}?**`);
    const callback = new URL(page.url());
    expect(callback.searchParams.get('state')).toBe('browser-state');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: 'browser-state',
      expectedNonce: 'browser-nonce',
    });
    expect(tokens.claims()?.email).toBe('admin@demo.test');
    // The browser is logged in to the host as well.
    const cookies = await context.cookies(t.baseUrl);
    expect(cookies.find((c) => c.name === 'addon_kit_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await context.close();
  });

  it('shows who may connect and sends access_denied back from the refusal page [access_mode admins_only]', async () => {
    const app = await createTestApplication(t.db, { name: 'Admins Browser Client' });
    const { rows } = await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'");
    await setAccessMode(t.db, { organizationId: rows[0]!.id, applicationId: app.id, mode: 'admins_only' });
    const config = await discoverClient(t.baseUrl, app);
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'people',
      state: 'refused-state',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.route(`${new URL(REDIRECT_URI).origin}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' }),
    );
    await page.goto(url.href);
    await page.fill('input[name=email]', 'member@demo.test');
    await page.fill('input[name=password]', TEST_PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/oauth\/interaction\//);
    expect(await page.locator('h1').textContent()).toBe('You cannot connect Admins Browser Client');
    expect(await page.locator('p[data-access-mode]').textContent()).toBe(
      'Demo Church allows only its organization administrators to connect Admins Browser Client.',
    );
    await page.getByRole('button', { name: 'Back to Admins Browser Client' }).click();
    await page.waitForURL(`${REDIRECT_URI}?**`);
    const callback = new URL(page.url());
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'Your organization allows only its administrators to connect this application',
      state: 'refused-state',
      iss: t.baseUrl,
    });
    await context.close();
  });
});
