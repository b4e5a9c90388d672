/**
 * Every kind of page a person meets, in Chromium, in the light and the dark colour scheme, checked with axe-core
 * (zero violations of serious or critical impact): the host's sign-in, account chooser, consent and refusal pages,
 * the developer-account pages, the demo Lists and the List page with the add-on running, the error pages, and the
 * template integrator's sign-in, consent and error pages. The walk-through's own pages are checked (and pictured)
 * by handshake.browser.test.ts.
 */
import * as client from 'openid-client';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { setAccessMode } from '#host/oauth/application-access.ts';
import { DEVELOPMENT_DEFAULTS } from '@addon-kit/integrator-template';
import { drivePopup } from '../support/browser.ts';
import { TEST_PASSWORD } from '../support/constants.ts';
import { createTestApplication, REDIRECT_URI, type TestApplication } from '../support/oauth-flow.ts';
import { checkPage, collectPolicyViolations } from '../support/page-checks.ts';
import { startDemoFixture, type DemoFixture } from './demo-fixture.ts';

let fixture: DemoFixture;
/** An OAuth application of Demo Church that only organization administrators may connect. */
let app: TestApplication;

beforeAll(async () => {
  fixture = await startDemoFixture();
  app = await createTestApplication(fixture.t.db, { name: 'Community Calendar' });
  const { rows } = await fixture.t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'");
  await setAccessMode(fixture.t.db, { organizationId: rows[0]!.id, applicationId: app.id, mode: 'admins_only' });
});

afterAll(async () => {
  await fixture?.close();
});

/** An authorization request of the test application (its redirect URI is answered inside the browser). */
async function authorizationUrl(prompt?: string): Promise<string> {
  const url = new URL('/oauth/authorize', fixture.t.baseUrl);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'people',
    state: 'pages-test',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
    ...(prompt ? { prompt } : {}),
  }).toString();
  return url.href;
}

/** Opens `url` and checks the page; `status` and `heading` make sure it is the page meant. */
async function visit(
  page: Page,
  url: string,
  name: string,
  expected: { status: number; heading: string | RegExp },
): Promise<void> {
  const response = await page.goto(url);
  expect(response?.status()).toBe(expected.status);
  const heading = (await page.locator('h1').first().textContent())?.trim();
  if (typeof expected.heading === 'string') expect(heading).toBe(expected.heading);
  else expect(heading).toMatch(expected.heading);
  await checkPage(page, name);
}

for (const scheme of ['light', 'dark'] as const) {
  describe(`the host's and the integrator's pages, in Chromium with axe-core [${scheme}]`, () => {
    let context: BrowserContext;
    let page: Page;
    let refused: string[];
    const shot = (name: string) => `${scheme}-${name}`;

    beforeAll(async () => {
      context = await fixture.browser.newContext({ viewport: { width: 1200, height: 820 }, colorScheme: scheme });
      refused = collectPolicyViolations(context);
      await context.route(`${new URL(REDIRECT_URI).origin}/**`, (route) =>
        route.fulfill({ status: 200, contentType: 'text/plain', body: 'client callback' }),
      );
      page = await context.newPage();
    });
    afterAll(async () => {
      await context?.close();
    });

    it("applies the design system's stylesheet and favicon under the pages' policy, in the person's colour scheme", async () => {
      await page.goto(`${fixture.t.baseUrl}/login`);
      const looks = await page.evaluate(() => ({
        background: getComputedStyle(document.body).backgroundColor,
        button: getComputedStyle(document.querySelector('button[type=submit]')!).backgroundColor,
        favicon: (document.querySelector('link[rel=icon]') as HTMLLinkElement).href,
      }));
      // --ak-color-bg and --ak-color-primary of the scheme.
      const expected =
        scheme === 'light' ? ['rgb(245, 246, 248)', 'rgb(58, 79, 214)'] : ['rgb(17, 20, 24)', 'rgb(143, 162, 255)'];
      expect([looks.background, looks.button]).toEqual(expected);
      expect((await context.request.get(looks.favicon)).headers()['content-type']).toBe('image/svg+xml');
      expect(refused).toEqual([]);
    });

    it('has no serious accessibility violation on the sign-in page, with and without an error [GET|POST /login]', async () => {
      // The home page signed out: what the platform is, and the way in.
      await visit(page, `${fixture.t.baseUrl}/`, shot('home-signed-out'), { status: 200, heading: /\S/ });
      await visit(page, `${fixture.t.baseUrl}/login`, shot('login'), { status: 200, heading: 'Log in' });
      await page.fill('input[name=email]', 'admin@demo.test');
      await page.fill('input[name=password]', 'not the password');
      await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
      expect(await page.getByRole('alert').textContent()).toContain('The e-mail address or password is incorrect.');
      await checkPage(page, shot('login-failed'));
    });

    it('has no serious accessibility violation on the Lists and the List page with the add-on running [GET /demo/lists]', async () => {
      await fixture.signInToList(page);
      const authorize = page.getByRole('button', { name: 'Authorize' });
      const running = page.getByText(/^\d+ of \d+ people selected$/);
      // The first scheme's run authorizes the add-on; the person's authorization then holds for the second.
      await authorize.or(running).waitFor();
      if (await authorize.isVisible()) {
        const popupOpened = page.waitForEvent('popup');
        await authorize.click();
        await drivePopup(await popupOpened, {
          origins: { [fixture.t.baseUrl]: 'host', [fixture.integrator.url]: 'integrator' },
          integrator: DEVELOPMENT_DEFAULTS.user,
        });
      }
      await running.waitFor();
      await page.getByLabel('Message').fill('Choir practice moves to Thursday.');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByText(/^Message \d+ sent to \d+ people\.$/).waitFor();
      // At 1200 px the add-on is beside the List's content (its rules and people), not under it.
      const content = (await page.locator('.ak-with-aside-main').boundingBox())!;
      const aside = (await page.locator('.ak-with-aside-side').boundingBox())!;
      expect(aside.x).toBeGreaterThanOrEqual(content.x + content.width);
      expect(aside.y).toBeLessThan(content.y + content.height);
      await checkPage(page, shot('list-page-addon'));
      await visit(page, `${fixture.t.baseUrl}/demo/lists`, shot('lists'), { status: 200, heading: 'Lists' });
      await visit(page, `${fixture.t.baseUrl}/`, shot('home'), { status: 200, heading: /^Welcome, / });
    });

    it('has no serious accessibility violation on the account chooser, the consent page and the refusal page [GET /oauth/interaction/{uid}]', async () => {
      await visit(page, await authorizationUrl('select_account'), shot('account-chooser'), {
        status: 200,
        heading: 'Choose an account',
      });
      await Promise.all([page.waitForURL(/\/oauth\/interaction\//), page.click('button[name=account]')]);
      expect((await page.locator('h1').textContent())?.trim()).toBe('Authorize Community Calendar');
      await checkPage(page, shot('host-consent'));
      const other = await context
        .browser()!
        .newContext({ viewport: { width: 1200, height: 820 }, colorScheme: scheme });
      try {
        const member = await other.newPage();
        await member.goto(await authorizationUrl());
        await member.fill('input[name=email]', 'member@demo.test');
        await member.fill('input[name=password]', TEST_PASSWORD);
        await Promise.all([member.waitForURL(/\/oauth\/interaction\//), member.click('button[type=submit]')]);
        expect((await member.locator('h1').textContent())?.trim()).toBe('You cannot connect Community Calendar');
        await checkPage(member, shot('access-refused'));
      } finally {
        await other.close();
      }
    });

    it('has no serious accessibility violation on the developer-account pages and the API reference [GET /developer/*, /docs]', async () => {
      const base = `${fixture.t.baseUrl}/developer`;
      await visit(page, base, shot('developer'), { status: 200, heading: 'Developer account' });
      await visit(page, `${base}/personal-access-tokens`, shot('developer-tokens'), {
        status: 200,
        heading: 'Personal access tokens',
      });
      await page.fill('input[name=name]', 'Attendance export');
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Create token' }).click()]);
      await page.locator('[data-field=secret]').waitFor();
      await checkPage(page, shot('developer-token-created'));
      await visit(page, `${base}/oauth-applications`, shot('developer-applications'), {
        status: 200,
        heading: 'OAuth applications',
      });
      await visit(page, `${base}/oauth-applications/${app.id}`, shot('developer-application'), {
        status: 200,
        heading: 'Community Calendar',
      });
      await visit(page, `${base}/connected-applications`, shot('developer-connected'), {
        status: 200,
        heading: 'Connected applications',
      });
      await visit(page, `${base}/connected-applications/${app.id}`, shot('developer-connected-application'), {
        status: 200,
        heading: 'Community Calendar',
      });
      await visit(page, `${base}/account`, shot('developer-account'), { status: 200, heading: 'Account' });
      // The add-on authorized on the List page above is listed, with its Revoke (checked by axe with the page).
      expect(await page.locator('tr[data-addon-installation-id]').count()).toBe(1);
      await page.goto(`${fixture.t.baseUrl}/docs?api=api`);
      await page.locator('#reference .opblock').first().waitFor();
      expect((await page.locator('h1').first().textContent())?.trim()).toBe('API reference');
      await checkPage(page, shot('api-reference'));
    });

    it('has no serious accessibility violation on the error pages [404, provider error, expired sign-in, handshake failure]', async () => {
      const host = fixture.t.baseUrl;
      await visit(page, `${host}/developer/oauth-applications/999999`, shot('error-not-found'), {
        status: 404,
        heading: 'Not found',
      });
      await visit(page, `${host}/oauth/authorize?client_id=no-such-client&response_type=code`, shot('error-provider'), {
        status: 400,
        heading: 'Authorization failed',
      });
      await visit(page, `${host}/oauth/interaction/no-such-interaction`, shot('error-expired'), {
        status: 400,
        heading: 'This sign-in has expired',
      });
      await visit(page, `${host}/addons/authorizations/999999/advance`, shot('error-handshake'), {
        status: 400,
        heading: 'No authorization in progress',
      });
    });

    it("has no serious accessibility violation on the integrator's sign-in, consent and error pages [GET /oauth/authorize]", async () => {
      const integrator = fixture.integrator.url;
      const authorize = new URL('/oauth/authorize', integrator);
      authorize.search = new URLSearchParams({
        response_type: 'code',
        client_id: DEVELOPMENT_DEFAULTS.clientId,
        redirect_uri: `${fixture.t.baseUrl}/addons/authorizations/${fixture.demo.sampleAddon.oauthApplicationId}`,
        scope: 'messages',
        state: 'pages-test',
        code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }).toString();
      // A context of its own: the walk-through above signed this one in to the integrator already.
      const own = await fixture.browser.newContext({ viewport: { width: 1200, height: 820 }, colorScheme: scheme });
      const ownRefused = collectPolicyViolations(own);
      const page = await own.newPage();
      onTestFinished(() => own.close());
      await page.goto(authorize.href);
      expect(new URL(page.url()).pathname).toBe('/login');
      await checkPage(page, shot('integrator-login'));
      await page.fill('input[name=username]', DEVELOPMENT_DEFAULTS.user.username);
      await page.fill('input[name=password]', 'wrong-password');
      await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
      await checkPage(page, shot('integrator-login-failed'));
      await page.fill('input[name=password]', DEVELOPMENT_DEFAULTS.user.password);
      await Promise.all([page.waitForURL(/\/oauth\/authorize\?/), page.click('button[type=submit]')]);
      // The add-on and the host by the names start gave the integrator's registered client.
      expect(await page.textContent('h1')).toBe('Allow Send Message (sample add-on) to use your account?');
      expect(await page.textContent('main p')).toBe(
        'The add-on Send Message (sample add-on) in addon-kit asks to act for you on Template Integrator.',
      );
      await checkPage(page, shot('integrator-consent'));
      await visit(page, `${integrator}/oauth/authorize?client_id=no-such-client`, shot('integrator-error'), {
        status: 400,
        heading: /.+/,
      });
      expect(ownRefused).toEqual([]);
    });

    it("fits a phone's width: no page scrolls sideways, wide tables scroll in their own box, no table button cut off [375 px]", async () => {
      const phone = await fixture.browser.newContext({
        viewport: { width: 375, height: 740 },
        colorScheme: scheme,
        isMobile: true,
        hasTouch: true,
      });
      onTestFinished(() => phone.close());
      const small = await phone.newPage();
      await fixture.signInToList(small);
      const base = fixture.t.baseUrl;
      // The List page at a phone's width: its add-on below its content, not beside it.
      const content = (await small.locator('.ak-with-aside-main').boundingBox())!;
      const aside = (await small.locator('.ak-with-aside-side').boundingBox())!;
      expect(aside.y).toBeGreaterThanOrEqual(content.y + content.height);
      const pages = [
        `${base}/demo/lists/${fixture.listId}`,
        `${base}/demo/lists`,
        `${base}/developer`,
        `${base}/developer/personal-access-tokens`,
        `${base}/developer/oauth-applications`,
        `${base}/developer/oauth-applications/${app.id}`,
        `${base}/developer/connected-applications/${app.id}`,
        `${base}/developer/account`,
        `${base}/developer/oauth-applications/999999`,
      ];
      const overflowing: string[] = [];
      const cutOff: string[] = [];
      let buttons = 0;
      for (const url of pages) {
        await small.goto(url);
        const { scrollWidth, innerWidth } = await small.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          innerWidth: window.innerWidth,
        }));
        if (scrollWidth > innerWidth) overflowing.push(`${new URL(url).pathname}: ${scrollWidth} > ${innerWidth}`);
        // Every button of a table is in view without scrolling its box (a table's Delete is never cut off).
        const hidden = await small.evaluate(() =>
          [...document.querySelectorAll('.ak-table-wrap button')].flatMap((button) => {
            const box = button.closest('.ak-table-wrap')!.getBoundingClientRect();
            const { left, right } = button.getBoundingClientRect();
            return left >= box.left && right <= box.right && right <= window.innerWidth
              ? []
              : [button.textContent ?? ''];
          }),
        );
        for (const button of hidden) cutOff.push(`${new URL(url).pathname}: ${button}`);
        buttons += await small.locator('.ak-table-wrap button').count();
        await checkPage(small, shot(`phone-${new URL(url).pathname.split('/').filter(Boolean).join('-')}`));
      }
      expect(overflowing).toEqual([]);
      expect(cutOff).toEqual([]);
      // The walk above made a token and an application: there were table buttons to check.
      expect(buttons).toBeGreaterThan(0);
    });

    it('refuses nothing any page of the walk above loads: no inline style, no foreign resource [CSP]', () => {
      expect(refused).toEqual([]);
    });
  });
}
