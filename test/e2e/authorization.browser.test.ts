/**
 * The Authorize popup's outcomes on the demo List page, in Chromium against the real host and the template
 * integrator: a Deny on either side closes the popup and the page says where it was declined; after a
 * re-authorization (the integrator refused the refresh token) the add-on runs again without a reload.
 */
import type { ElementHandle, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpTestHost } from '../support/oauth-server.ts';
import { DEVELOPMENT_DEFAULTS } from '#integrator/config.ts';
import { drivePopup } from '../support/browser.ts';
import { personId } from '../support/host.ts';
import { startDemoFixture, type DemoFixture } from './demo-fixture.ts';

let fixture: DemoFixture;
let t: HttpTestHost;
let page: Page;
/** The people of the List, by plain SQL. */
let people: number;

beforeAll(async () => {
  fixture = await startDemoFixture();
  t = fixture.t;
  const { rows } = await t.db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM list_results WHERE list_id = $1',
    [fixture.listId],
  );
  people = rows[0]!.count;
  page = await (await fixture.browser.newContext()).newPage();
  await fixture.signInToList(page);
  await page.getByRole('button', { name: 'Authorize' }).waitFor();
});

afterAll(async () => {
  await fixture?.close();
});

/** Presses Authorize and answers the popup (Allow unless told), until it closes; returns the pages met. */
async function authorize(
  decisions: { host?: 'allow' | 'deny'; integrator?: 'allow' | 'deny' } = {},
): Promise<string[]> {
  const opened = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Authorize' }).click();
  const popup = await opened;
  const seen = await drivePopup(popup, {
    origins: { [t.baseUrl]: 'host', [fixture.integrator.url]: 'integrator' },
    integrator: DEVELOPMENT_DEFAULTS.user,
    decisions: { host: decisions.host ?? 'allow', integrator: decisions.integrator ?? 'allow' },
  });
  expect(popup.isClosed()).toBe(true);
  return seen;
}

/** The mounted add-on's status, as the page's `window.addonKitDemo` holds it. */
const status = () =>
  page.evaluate(() =>
    (window as unknown as { addonKitDemo: { addon: { status(): unknown } }[] }).addonKitDemo[0]!.addon.status(),
  );

async function vaultState(): Promise<string[]> {
  const { rows } = await t.db.query<{ state: string }>('SELECT state FROM addon_authorizations WHERE person_id = $1', [
    await personId(t.db, 'admin@demo.test'),
  ]);
  return rows.map((r) => r.state);
}

describe('the Authorize popup on the demo List page', () => {
  it("closes itself on a Deny at the host's consent, and the page says it was declined there [deny, host]", async () => {
    expect(await authorize({ host: 'deny' })).toEqual(['host/oauth/interaction/:uid']);
    await page.getByText('You declined the authorization on this platform’s consent page.').waitFor();
    expect(await status()).toEqual({ kind: 'needs_authorization', state: 'uninitialized', declined: 'host' });
    expect(await page.getByRole('button', { name: 'Authorize' }).count()).toBe(1);
    expect(await page.locator('iframe').count()).toBe(0);
    expect(await vaultState()).toEqual(['uninitialized']);
  });

  it("closes itself on a Deny at the integrator's consent, and the page says it was declined there [deny, integrator]", async () => {
    const seen = await authorize({ integrator: 'deny' });
    expect(seen).toEqual(['host/oauth/interaction/:uid', 'integrator/login', 'integrator/oauth/authorize']);
    await page.getByText('You declined the authorization on the add-on service’s consent page.').waitFor();
    expect(await status()).toEqual({
      kind: 'needs_authorization',
      state: 'integrator_pending',
      declined: 'integrator',
    });
    expect(await page.getByRole('button', { name: 'Authorize' }).count()).toBe(1);
    expect(await page.locator('iframe').count()).toBe(0);
  });

  it('starts the add-on after Authorize is pressed again and allowed on both sides [allow]', async () => {
    await authorize();
    await page.getByText(`${people} of ${people} people selected`).waitFor();
    await expect.poll(() => page.locator('input[type=checkbox]').count()).toBe(people);
    expect(await status()).toEqual({ kind: 'running' });
    expect(await page.getByText(/You declined/).count()).toBe(0);
    expect(await vaultState()).toEqual(['ready']);
  });

  it('runs the add-on again in a fresh worker after a re-authorization, without a reload [reauthorization_required]', async () => {
    // The integrator refuses the grant from now on: its API answers 401 and the refresh gets invalid_grant.
    await fixture.integratorDb.db.query('UPDATE token_families SET revoked_at = now()');
    await page.getByLabel('Message').fill('Choir practice is cancelled.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page
      .getByText('Sending failed: The integrator no longer accepts this authorization; authorize the add-on again')
      .waitFor();
    await page.getByText('This add-on needs to be authorized again.').waitFor();
    expect(await vaultState()).toEqual(['reauthorization_required']);
    const oldFrame = (await page.locator('iframe').elementHandle()) as ElementHandle<HTMLIFrameElement>;
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });

    await authorize();
    await page.getByText('This add-on needs to be authorized again.').waitFor({ state: 'detached' });
    await page.getByText(`${people} of ${people} people selected`).waitFor();
    // A fresh worker in a new frame, with none of the old one's state: no error, an empty message.
    expect(await oldFrame.evaluate((frame) => frame.isConnected)).toBe(false);
    expect(await page.locator('iframe').count()).toBe(1);
    expect(await page.getByText(/^Sending failed/).count()).toBe(0);
    expect(await page.getByLabel('Message').inputValue()).toBe('');
    expect(await vaultState()).toEqual(['ready']);

    await page.getByLabel('Message').fill('Choir practice is cancelled.');
    await page.getByRole('button', { name: 'Send message' }).click();
    await page.getByText(new RegExp(`^Message \\d+ sent to ${people} people\\.$`)).waitFor();
    const { rows } = await fixture.integratorDb.db.query<{ body: string }>('SELECT body FROM messages ORDER BY id');
    expect(rows).toEqual([{ body: 'Choir practice is cancelled.' }]);
    expect(navigations).toEqual([]);
    expect(await status()).toEqual({ kind: 'running' });
  });
});
