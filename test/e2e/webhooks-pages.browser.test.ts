/**
 * The developer account's webhook pages in Chromium, as a person uses them: create a subscription for a receiver on
 * loopback, copy its secret (shown once), send a test event, and see it delivered — the receiver got it signed with
 * that secret and the event's page shows the delivery's request and response. Every page has zero serious or
 * critical axe-core violations, no Content-Security-Policy violation and no horizontal scroll, at 1280 and 375 px,
 * in the light and the dark scheme. The host (with its delivery worker) listens on a free port.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.ts';
import { TEST_PASSWORD } from '../support/constants.ts';
import { startHttpTestHost, type HttpTestHost } from '../support/oauth-server.ts';
import { checkPage, collectPolicyViolations } from '../support/page-checks.ts';
import { startReceiver, type WebhookReceiver } from '../host/webhooks/webhook-receiver.ts';

let t: HttpTestHost;
let browser: Browser;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startReceiver();
  t = await startHttpTestHost({ config: { webhookPollIntervalMs: 50 } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await receiver?.close();
});

async function horizontalOverflow(page: Page): Promise<number> {
  return await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

/** Checks the page as every page is checked, and that it does not scroll sideways. */
async function check(page: Page, name: string, width: number): Promise<void> {
  await checkPage(page, name);
  expect(await horizontalOverflow(page), `${name} scrolls sideways at ${width} px`).toBeLessThanOrEqual(0);
}

for (const scheme of ['light', 'dark'] as const) {
  for (const width of [1280, 375]) {
    describe(`/developer/webhooks in Chromium [${scheme}, ${width} px]`, () => {
      let context: BrowserContext;
      let page: Page;
      let refused: string[];
      const shot = (name: string) => `webhooks-${name}-${scheme}-${width}`;

      beforeAll(async () => {
        context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
        refused = collectPolicyViolations(context);
        page = await context.newPage();
        await page.goto(`${t.baseUrl}/login`);
        await page.fill('input[name=email]', 'editor@demo.test');
        await page.fill('input[name=password]', TEST_PASSWORD);
        await Promise.all([page.waitForURL(/\/(?!login)/), page.click('button[type=submit]')]);
      });
      afterAll(() => context.close());

      it(
        'creates a subscription, shows its secret once, sends a test event and shows it delivered',
        { timeout: 120_000 },
        async () => {
          await page.goto(`${t.baseUrl}/developer`);
          await Promise.all([
            page.waitForURL(/\/developer\/webhooks$/),
            page.getByRole('link', { name: 'Webhooks' }).first().click(),
          ]);
          expect((await page.locator('h1').textContent())?.trim()).toBe('Webhooks');
          await check(page, shot('list'), width);

          const url = `${receiver.url}/${scheme}-${width}`;
          await page.getByLabel('URL').fill(url);
          await page.getByRole('group', { name: 'People: lists' }).getByLabel(/^run/).check();
          await Promise.all([
            page.waitForLoadState('load'),
            page.getByRole('button', { name: 'Create subscription' }).click(),
          ]);
          const secretBox = page.locator('[data-secret-for="people.v2.events.list.run"]');
          const secret = (await secretBox.textContent())!.trim();
          expect(secret).toMatch(/^whsec_/);
          await check(page, shot('created'), width);

          // Listed afterwards without the secret.
          await page.goto(`${t.baseUrl}/developer/webhooks`);
          expect(await page.content()).not.toContain(secret);
          const row = page.locator('tr', { hasText: url });
          await Promise.all([page.waitForURL(/\/developer\/webhooks\/\d+$/), row.getByRole('link').click()]);
          expect((await page.locator('h1').textContent())?.trim()).toBe('people.v2.events.list.run');
          expect(await page.content()).not.toContain(secret);
          await check(page, shot('subscription'), width);

          const seen = receiver.received.length;
          await Promise.all([
            page.waitForURL(/\?sent=\d+$/),
            page.getByRole('button', { name: 'Send a test event' }).click(),
          ]);
          await receiver.waitFor(seen + 1);
          const got = receiver.received.slice(seen).find((r) => r.headers['webhook-id'] !== undefined)!;
          expect(got.delivery.name).toBe('people.v2.events.list.run');
          expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();

          await Promise.all([
            page.waitForURL(/\/events\/\d+$/),
            page.getByRole('link', { name: 'see its deliveries' }).click(),
          ]);
          await expect
            .poll(async () => {
              await page.reload();
              return (await page.locator('[data-field=status]').textContent())?.trim();
            })
            .toBe('delivered');
          expect((await page.locator('[data-field=response_status]').textContent())?.trim()).toBe('HTTP 200');
          expect(await page.locator('[data-field=request_headers]').textContent()).toContain(
            `webhook-id: ${got.delivery.id}`,
          );
          expect(await page.locator('[data-field=request_body]').textContent()).toBe(got.body);
          await check(page, shot('event'), width);
          expect(refused).toEqual([]);
        },
      );
    });
  }
}
