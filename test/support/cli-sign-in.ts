/**
 * Answers the CLI's sign-in in Chromium as a person would: opens the URL the CLI printed, signs in to the host when
 * asked, allows on the consent page, and waits for the CLI's loopback page saying it is signed in.
 */
import type { Page } from 'playwright-core';

/** The sign-in URL in the CLI's output (`… in your browser to continue: URL`). */
export const SIGN_IN_LINE = /sign in to \S+ in your browser to continue: (\S+)/;

/** Drives `page` through the host's sign-in and consent for the CLI; resolves once the loopback page answered. */
export async function answerCliSignIn(page: Page, url: string, login: { email: string; password: string }) {
  await page.goto(url);
  for (let step = 0; step < 6; step++) {
    if (new URL(page.url()).hostname === '127.0.0.1' && new URL(page.url()).pathname === '/callback') break;
    if (await page.locator('input[name=email]').count()) {
      await page.fill('input[name=email]', login.email);
      await page.fill('input[name=password]', login.password);
      await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
    } else if (await page.locator('button[value=allow]').count()) {
      await Promise.all([page.waitForNavigation(), page.click('button[value=allow]')]);
    } else {
      await page.waitForURL((u) => u.pathname === '/callback', { timeout: 10_000 });
    }
  }
  await page.getByRole('heading', { name: 'Signed in' }).waitFor({ timeout: 15_000 });
}
