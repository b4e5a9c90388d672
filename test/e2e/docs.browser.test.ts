/**
 * `/docs` in Chromium: each API's reference rendered by Swagger UI under the page's Content-Security-Policy (no
 * violation), every operation of its OpenAPI document shown, axe-core's zero serious or critical violations and no
 * horizontal scroll at 1280 and 375 px in the light and the dark scheme, and the try-it console sending a real
 * request with a pasted personal access token or the signed-in person's console token; the request samples' tabs
 * are operated by keyboard. The host listens on a free port.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { GUIDE_SOURCES } from '#host/docs/guide-sources.ts';
import { launchBrowser } from '../support/browser.ts';
import { TEST_PASSWORD } from '../support/constants.ts';
import { personId } from '../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { checkPage, collectPolicyViolations } from '../support/page-checks.ts';

let t: HttpTestHost;
let browser: Browser;

beforeAll(async () => {
  t = await startHttpTestHost();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const APIS = [
  { id: 'current', url: '/current/v2/open_api' },
  { id: 'people', url: '/people/v2/open_api' },
  { id: 'api', url: '/api/v2/open_api' },
  { id: 'oauth', url: '/oauth/v2/open_api' },
  { id: 'webhooks', url: '/webhooks/v2/open_api' },
];

/** Operations of the document at `url`. */
async function operationCount(url: string): Promise<number> {
  const doc = (await (await fetch(`${t.baseUrl}${url}`)).json()) as { paths: Record<string, object> };
  return Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
}

async function horizontalOverflow(page: Page): Promise<number> {
  return await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

for (const scheme of ['light', 'dark'] as const) {
  for (const width of [1280, 375]) {
    describe(`/docs in Chromium [${scheme}, ${width} px]`, () => {
      let context: BrowserContext;
      let page: Page;
      let refused: string[];
      beforeAll(async () => {
        context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
        refused = collectPolicyViolations(context);
        page = await context.newPage();
      });
      afterAll(() => context.close());

      it(
        'renders every API with every operation, accessibly, without a CSP violation or horizontal scroll',
        { timeout: 180_000 },
        async () => {
          for (const api of APIS) {
            const response = await page.goto(`${t.baseUrl}/docs?api=${api.id}`);
            expect(response?.status()).toBe(200);
            expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
            expect(response?.headers()['content-security-policy']).not.toMatch(/unsafe-(inline|eval)/);
            await page.locator('#reference .opblock').first().waitFor();
            expect(await page.locator('#reference .opblock').count()).toBe(await operationCount(api.url));
            // Swagger UI found nothing to warn about in the document (a warning box would sit above the reference).
            expect(await page.locator('#reference .errors-wrapper').allInnerTexts()).toEqual([]);
            // Headings descend one level at a time (Lighthouse's heading-order): no level is skipped.
            const skipped = await page.evaluate(() => {
              const levels = [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')].map((h) =>
                Number(h.getAttribute('aria-level') ?? h.tagName.slice(1)),
              );
              return levels.filter((level, i) => i > 0 && level > levels[i - 1]! + 1);
            });
            expect(skipped, `${api.id}: a heading skips a level`).toEqual([]);
            expect(await page.locator('.ak-docs-nav a[aria-current=page]').getAttribute('href')).toBe(
              `/docs?api=${api.id}`,
            );
            // The navigation lists every document, in this order.
            expect(
              await page.locator('.ak-docs-nav a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
            ).toEqual(APIS.map((a) => `/docs?api=${a.id}`));
            await checkPage(page, `docs-${api.id}-${scheme}-${width}`);
            expect(await horizontalOverflow(page), `${api.id} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
          }
          expect(refused).toEqual([]);
        },
      );

      it(
        'renders every guide accessibly, without a CSP violation or horizontal scroll',
        { timeout: 120_000 },
        async () => {
          for (const guide of GUIDE_SOURCES) {
            const response = await page.goto(`${t.baseUrl}/docs/guides/${guide.slug}`);
            expect(response?.status()).toBe(200);
            expect(await page.title()).toBe(`${guide.title} · addon-kit`);
            expect(await page.locator('.ak-docs-guides a[aria-current=page]').getAttribute('href')).toBe(
              `/docs/guides/${guide.slug}`,
            );
            expect(await page.locator('article.ak-guide h1').count()).toBe(1);
            await checkPage(page, `guide-${guide.slug}-${scheme}-${width}`);
            expect(await horizontalOverflow(page), `${guide.slug} scrolls sideways at ${width} px`).toBeLessThanOrEqual(
              0,
            );
          }
          expect(refused).toEqual([]);
        },
      );
    });
  }
}

/** Authorizes the console with `token`, then sends `GET /current/v2/me` from it; the API's answer. */
async function sendMeFromConsole(page: Page, token: { client_id: string; secret: string }) {
  await page.goto(`${t.baseUrl}/docs?api=current`);
  await page
    .getByRole('button', { name: /Authorize/ })
    .first()
    .click();
  const dialog = page.locator('.dialog-ux');
  const basic = dialog.locator('.auth-container', { hasText: 'personal_access_token' });
  await basic.locator('input').nth(0).fill(token.client_id);
  await basic.locator('input[type=password]').fill(token.secret);
  await basic.locator('button.authorize').click();
  await dialog.locator('button.btn-done').first().click();
  return await executeMe(page);
}

/** Opens `GET /current/v2/me` on the page, Try it out, Execute; the API's answer. */
async function executeMe(page: Page) {
  await page.locator('.opblock-summary').first().click();
  await page.getByRole('button', { name: 'Try it out' }).click();
  // The API asks every client to name itself (a required header parameter of every operation).
  await page.locator('tr[data-param-name="User-Agent"] input').fill('docs-console-test/1.0');
  const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/current/v2/me');
  await page.getByRole('button', { name: 'Execute' }).click();
  return await answered;
}

describe('/docs try-it console', () => {
  it(
    'sends GET /current/v2/me with a pasted personal access token and shows the answer',
    { timeout: 60_000 },
    async () => {
      const token = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'docs console');
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      try {
        const page = await context.newPage();
        const response = await sendMeFromConsole(page, token);
        expect(response.status()).toBe(200);
        const body = (await response.json()) as { data: { type: string; attributes: { first_name: string } } };
        expect(body.data.type).toBe('Person');
        await expect
          .poll(async () =>
            (await page.locator('.responses-table .response .response-col_status').first().textContent())?.trim(),
          )
          .toBe('200');
      } finally {
        await context.close();
      }
    },
  );

  it('shows the request as curl, JavaScript (fetch) and Python (requests)', { timeout: 60_000 }, async () => {
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'docs samples');
    const basic = `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;
    const url = `${t.baseUrl}/current/v2/me`;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const refused = collectPolicyViolations(context);
    try {
      const page = await context.newPage();
      expect((await sendMeFromConsole(page, token)).status()).toBe(200);
      const snippets = page.locator('.opblock-body .request-snippets');
      expect(await snippets.locator('.btn h4').evaluateAll((titles) => titles.map((h) => h.textContent))).toEqual([
        'cURL (bash)',
        'JavaScript (fetch)',
        'Python (requests)',
      ]);
      const sample = async (title: string) => {
        await snippets.locator('.btn', { hasText: title }).click();
        await expect.poll(async () => await snippets.locator('.btn.active h4').textContent()).toBe(title);
        return await snippets.locator('.curl').innerText();
      };
      expect(await sample('JavaScript (fetch)')).toBe(
        [
          `const response = await fetch("${url}", {`,
          '  method: "GET",',
          '  headers: {',
          '    "accept": "*/*",',
          '    "User-Agent": "docs-console-test/1.0",',
          `    "Authorization": "${basic}",`,
          '  },',
          '});',
          'console.log(response.status, await response.text());',
        ].join('\n'),
      );
      expect(await sample('Python (requests)')).toBe(
        [
          'import requests',
          '',
          'response = requests.get(',
          `    "${url}",`,
          '    headers={',
          '        "accept": "*/*",',
          '        "User-Agent": "docs-console-test/1.0",',
          `        "Authorization": "${basic}",`,
          '    },',
          ')',
          'print(response.status_code, response.text)',
        ].join('\n'),
      );
      expect(await sample('cURL (bash)')).toContain(`curl -X 'GET' \\\n  '${url}'`);
      expect(refused).toEqual([]);
    } finally {
      await context.close();
    }
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`shows an operation opened, executed and authorized accessibly [${scheme}]`, { timeout: 60_000 }, async () => {
      const token = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'docs axe');
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
      try {
        const page = await context.newPage();
        expect((await sendMeFromConsole(page, token)).status()).toBe(200);
        await page.locator('.responses-table .response .response-col_status').first().waitFor();
        await checkPage(page, `docs-console-${scheme}`);
      } finally {
        await context.close();
      }
    });
  }

  for (const scheme of ['light', 'dark'] as const) {
    it(
      `authorizes Try it out with a console token for the signed-in person, accessibly [${scheme}]`,
      { timeout: 60_000 },
      async () => {
        const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: scheme });
        const refused = collectPolicyViolations(context);
        try {
          const page = await context.newPage();
          await page.goto(`${t.baseUrl}/docs?api=current`);
          await page.getByRole('link', { name: 'sign in' }).click();
          await page.fill('input[name=email]', 'member@demo.test');
          await page.fill('input[name=password]', TEST_PASSWORD);
          await Promise.all([page.waitForURL(`${t.baseUrl}/docs?api=current`), page.click('button[type=submit]')]);
          await page.locator('#reference .opblock').first().waitFor();
          const issued = page.waitForResponse((r) => new URL(r.url()).pathname === '/docs/console-token');
          await page.getByRole('button', { name: 'Use a console token for this API' }).click();
          expect((await issued).status()).toBe(201);
          await expect
            .poll(async () => await page.getByRole('status').textContent())
            .toMatch(/^Try it out now sends requests to \/current\/v2 as you, with a console token valid until /);
          const response = await executeMe(page);
          expect(response.status()).toBe(200);
          const sent = response.request().headers().authorization ?? '';
          expect(Buffer.from(sent.replace(/^Basic /, ''), 'base64').toString()).toMatch(/^console_[0-9a-f]{32}:/);
          const body = (await response.json()) as { data: { attributes: { first_name: string } } };
          expect(body.data.attributes.first_name).toBe('Morgan');
          // The secret went in a header only: not in the page's address, not in storage.
          expect(page.url()).toBe(`${t.baseUrl}/docs?api=current`);
          expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
          await page.locator('.responses-table .response .response-col_status').first().waitFor();
          await checkPage(page, `docs-console-token-${scheme}`);
          // At 375 px: the control on /docs, then the account page listing the token with Revoke, which removes it.
          await page.setViewportSize({ width: 375, height: 900 });
          await page.goto(`${t.baseUrl}/docs?api=current`);
          await page.locator('#reference .opblock').first().waitFor();
          await checkPage(page, `docs-console-token-control-${scheme}-375`);
          expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
          await page.goto(`${t.baseUrl}/developer/account`);
          const revoke = page.getByRole('button', { name: 'Revoke the console token for /current/v2' });
          expect(await revoke.count()).toBeGreaterThanOrEqual(1);
          await checkPage(page, `account-console-tokens-${scheme}-375`);
          expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
          const listed = await revoke.count();
          await Promise.all([page.waitForURL(/\/developer\/account#console-tokens$/), revoke.first().click()]);
          expect(await revoke.count()).toBe(listed - 1);
          expect(refused).toEqual([]);
        } finally {
          await context.close();
        }
      },
    );
  }

  it('switches the request samples by keyboard', { timeout: 60_000 }, async () => {
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'docs keyboard');
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      expect((await sendMeFromConsole(page, token)).status()).toBe(200);
      const snippets = page.locator('.opblock-body .request-snippets');
      // Each tab is a button with its pressed state (Playwright counts a button without aria-pressed as not pressed).
      await snippets.getByRole('button', { name: 'cURL (bash)', pressed: true }).waitFor();
      const tabs = snippets.locator('[role=button][aria-pressed]');
      expect(
        await tabs.evaluateAll((all) => all.map((tab) => [tab.textContent, tab.getAttribute('aria-pressed')])),
      ).toEqual([
        ['cURL (bash)', 'true'],
        ['JavaScript (fetch)', 'false'],
        ['Python (requests)', 'false'],
      ]);
      await snippets.getByRole('button', { name: 'cURL (bash)' }).focus();
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('JavaScript (fetch)');
      await page.keyboard.press('Enter');
      await snippets.getByRole('button', { name: 'JavaScript (fetch)', pressed: true }).waitFor();
      expect(await snippets.locator('.curl').innerText()).toMatch(/^const response = await fetch\(/);
      await page.keyboard.press('Tab');
      await page.keyboard.press(' ');
      await snippets.getByRole('button', { name: 'Python (requests)', pressed: true }).waitFor();
      expect(await snippets.locator('.curl').innerText()).toMatch(/^import requests\n/);
      expect(await snippets.locator('[aria-pressed=true]').allTextContents()).toEqual(['Python (requests)']);
    } finally {
      await context.close();
    }
  });
});
