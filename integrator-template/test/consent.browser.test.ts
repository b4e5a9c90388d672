import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  createIntegratorTestDatabase,
  startTestIntegrator,
  USER,
  type TestIntegrator,
} from './support.ts';
import { integratorClient } from './oauth-client.ts';

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;
let browser: Browser;
let callback: { server: Server; url: string; hits: string[] };

/** Debian's Chromium (or CHROMIUM_PATH); never a downloaded browser. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// A copy of the template on a machine without Chromium skips these tests; CI must have it.
const hasChromium = existsSync(CHROMIUM_PATH);
if (!hasChromium && process.env.CI)
  throw new Error(`Chromium not found at ${CHROMIUM_PATH}; install it (apt-get install chromium)`);
if (!hasChromium) console.warn(`skipping the consent page tests: no Chromium at ${CHROMIUM_PATH} (set CHROMIUM_PATH)`);

beforeAll(async () => {
  // Stands in for the host's step-5 callback: records where the browser was sent.
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url!);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('callback reached');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  callback = {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/addons/authorizations/17`,
    hits,
  };
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db, {
    clients: [
      { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [callback.url], name: 'Test Add-on' },
    ],
  });
  if (!hasChromium) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
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
  await t.close();
  await store.drop();
  callback.server.closeAllConnections();
  await new Promise<void>((resolve) => callback.server.close(() => resolve()));
});

describe.skipIf(!hasChromium)('GET /oauth/authorize (in Chromium)', () => {
  it('signs in, consents and lands on the redirect URI with a code the token endpoint accepts [allow]', async () => {
    const config = integratorClient(t.url);
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callback.url,
      scope: 'messages',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'browser-state',
    });
    const page = await browser.newPage();
    try {
      await page.goto(url.toString());
      expect(await page.title()).toBe('Sign in · Template Integrator');
      await page.fill('#username', USER.username);
      await page.fill('#password', USER.password);
      await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.click('button[type=submit]')]);
      expect(await page.textContent('h1')).toBe('Allow Test Add-on to use your account?');
      // No host_name registered: the host is named by its redirect URI's host.
      expect(await page.textContent('main p')).toBe(
        `The add-on Test Add-on in ${new URL(callback.url).host} asks to act for you on Template Integrator.`,
      );
      await Promise.all([
        page.waitForURL((u) => u.toString().startsWith(callback.url)),
        page.click('button[value=allow]'),
      ]);
      expect(await page.textContent('body')).toBe('callback reached');
      const landed = new URL(page.url());
      expect(landed.searchParams.get('state')).toBe('browser-state');
      const tokens = await client.authorizationCodeGrant(config, landed, {
        pkceCodeVerifier: verifier,
        expectedState: 'browser-state',
      });
      expect(tokens.expires_in).toBe(3600);
    } finally {
      await page.close();
    }
  });

  it('lands on the redirect URI with access_denied [deny]', async () => {
    const page = await browser.newPage();
    try {
      const url = new URL(`${t.url}/oauth/authorize`);
      url.search = new URLSearchParams({
        client_id: CLIENT_ID,
        redirect_uri: callback.url,
        response_type: 'code',
        state: 's2',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }).toString();
      await page.goto(url.toString());
      await page.fill('#username', USER.username);
      await page.fill('#password', USER.password);
      await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.click('button[type=submit]')]);
      await Promise.all([
        page.waitForURL((u) => u.toString().startsWith(callback.url)),
        page.click('button[value=deny]'),
      ]);
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
        error: 'access_denied',
        error_description: 'the user denied the request',
        state: 's2',
      });
    } finally {
      await page.close();
    }
  });
});
