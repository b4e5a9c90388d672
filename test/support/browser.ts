/**
 * The system Chromium driven by playwright-core (never a downloaded browser). One browser per test file:
 * the machine has two cores.
 */
import type { Page } from 'playwright-core';
import { defaultChromiumPath, launchChromium } from '#sdk/testing/launch-chromium.ts';

/** Debian's chromium (installed by .ci/run through apt-get when missing); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = defaultChromiumPath();

/** Launches headless Chromium with background networking off (the SDK testing kit's launcher). */
export function launchBrowser() {
  return launchChromium(CHROMIUM_PATH);
}

/** Who signs in where while a handshake popup runs. */
export interface PopupActors {
  /** Origin → label used in the returned path list (e.g. host, integrator). */
  origins: Record<string, string>;
  /** The host's login, when the popup may ask for it. */
  host?: { email: string; password: string };
  integrator: { username: string; password: string };
  /** Per origin label, the answer on its consent page (default: allow everywhere). */
  decisions?: Record<string, 'allow' | 'deny'>;
  /** Called on each page the popup shows, once it loaded and before it is answered (checks, screenshots). */
  onPage?: (popup: Page, step: string) => Promise<void>;
}

/**
 * Answers whichever page a handshake popup shows (host login, host consent, integrator login,
 * integrator consent: Allow unless `decisions` says Deny) until it closes; returns the pages met as
 * `label/path` (long ids as `:uid`).
 */
const START_PAGE = /\/addons\/installations\/[^/]+\/authorize(\?|$)/;

export async function drivePopup(popup: Page, actors: PopupActors): Promise<string[]> {
  const seen: string[] = [];
  let closed = false;
  popup.on('close', () => (closed = true));

  for (let i = 0; i < 12 && !closed; i++) {
    await popup.waitForLoadState('load').catch(() => undefined);
    // Step 0's page posts the start's form by itself (its opener is the host's page): not a page the person meets.
    if (START_PAGE.test(popup.url())) {
      await popup.waitForURL((u) => !START_PAGE.test(u.href), { timeout: 5000 }).catch(() => undefined);
      continue;
    }
    if (closed) break;
    const url = new URL(popup.url());
    const label = actors.origins[url.origin] ?? url.origin;
    const step = `${label}${url.pathname.replace(/\/[A-Za-z0-9_-]{20,}/, '/:uid')}`;
    seen.push(step);
    const answerable =
      (await popup.locator('input[name=email], input[name=username], button[value=allow]').count()) > 0;
    // Only pages that wait for the person: the last page closes the popup by itself.
    if (answerable && actors.onPage) await actors.onPage(popup, step);
    if (actors.host && (await popup.locator('input[name=email]').count())) {
      await popup.fill('input[name=email]', actors.host.email);
      await popup.fill('input[name=password]', actors.host.password);
      await Promise.all([popup.waitForNavigation(), popup.click('button[type=submit]')]);
    } else if (await popup.locator('input[name=username]').count()) {
      await popup.fill('input[name=username]', actors.integrator.username);
      await popup.fill('input[name=password]', actors.integrator.password);
      await Promise.all([popup.waitForNavigation(), popup.click('button[type=submit]')]);
    } else if (await popup.locator('button[value=allow]').count()) {
      // The last Allow (and any Deny) ends on a page that closes the popup, so its navigation may never be observed.
      const decision = actors.decisions?.[label] ?? 'allow';
      await Promise.all([popup.waitForNavigation().catch(() => undefined), popup.click(`button[value=${decision}]`)]);
    } else {
      await popup.waitForEvent('close', { timeout: 5000 });
    }
  }
  return seen;
}
