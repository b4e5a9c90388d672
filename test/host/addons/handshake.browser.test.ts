import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { drivePopup, launchBrowser } from '../../support/browser.ts';
import type { HttpTestHost } from '../../support/oauth-server.ts';
import { USER, type TestIntegrator } from '#integrator/test/support.ts';
import { startHandshakeFixture, type HandshakeFixture } from './handshake-fixture.ts';

let fixture: HandshakeFixture;
let t: HttpTestHost;
let integrator: TestIntegrator;
let browser: Browser;

beforeAll(async () => {
  fixture = await startHandshakeFixture();
  ({ t, integrator } = fixture);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await fixture?.close();
});

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
      window.addEventListener('message', (event) =>
        (window as unknown as { messages: unknown[] }).messages.push({ origin: event.origin, data: event.data }),
      );
    });
    const [popup] = await Promise.all([
      page.waitForEvent('popup'),
      page.evaluate(
        (id) =>
          void window.open(`/addons/installations/${id}/authorize`, 'addon-authorize', 'popup,width=500,height=600'),
        installation,
      ),
    ]);
    const seen = await drivePopup(popup, {
      origins: { [t.baseUrl]: 'host', [integrator.url]: 'integrator' },
      host: { email: 'admin@demo.test', password: TEST_PASSWORD },
      integrator: USER,
    });
    expect(popup.isClosed()).toBe(true);
    // The pages a person meets: host consent (already logged in), integrator login, integrator consent.
    expect(seen).toEqual(['host/oauth/interaction/:uid', 'integrator/login', 'integrator/oauth/authorize']);
    const messages = await page.evaluate(() => (window as unknown as { messages: unknown[] }).messages);
    expect(messages).toEqual([
      {
        origin: t.baseUrl,
        data: { type: 'addon-kit:handshake', installationId: installation, outcome: 'authorized', state: 'ready' },
      },
    ]);
    const state = await page.evaluate(
      async (id) => (await fetch(`/addons/installations/${id}/state`)).json(),
      installation,
    );
    expect(state).toEqual({ state: 'ready' });
    await context.close();
  });
});
