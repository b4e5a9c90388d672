/**
 * The demo path end to end in Chromium: the host (with its sandbox listener) and the template integrator as
 * separate real servers, set up as `start` sets them up (host/demo); a person signs in, opens a List page,
 * authorizes the sample add-on through the six-step handshake in a popup and sends a message to the List's people.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenVault } from '#host/addons/authorizations/token-vault.ts';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import type { Database } from '#host/db/database.ts';
import type { DemoIntegrator } from '#host/demo/demo-integrator.ts';
import { DEVELOPMENT_DEFAULTS } from '#integrator/config.ts';
import { drivePopup } from '../support/browser.ts';
import { checkPage } from '../support/page-checks.ts';
import { TEST_ENCRYPTION_KEY } from '../support/constants.ts';
import { personId } from '../support/host.ts';
import type { HttpTestHost } from '../support/oauth-server.ts';
import { startDemoFixture, type DemoFixture } from './demo-fixture.ts';

let fixture: DemoFixture;
let t: HttpTestHost;
let sandboxUrl: string;
let integratorDb: { db: Database; drop(): Promise<void> };
let integrator: DemoIntegrator;
/** A List of more than one page of people (the add-on follows links.next). */
let listId: string;
let context: BrowserContext;
let page: Page;
/** Every response body any page of the browser received (host, sandbox, integrator), as text. */
const received: { url: string; body: string }[] = [];
/** Every response URL, recorded when the response arrives (bodies are read asynchronously). */
const seenUrls: string[] = [];
/** Body reads still under way; awaited before the bodies are checked. */
const pendingBodies: Promise<unknown>[] = [];

beforeAll(async () => {
  fixture = await startDemoFixture();
  ({ t, sandboxUrl, integratorDb, integrator, listId } = fixture);
  // A fixed viewport and the light scheme: the screenshots of this walk-through are the README's pictures.
  context = await fixture.browser.newContext({
    viewport: { width: 1200, height: 820 },
    colorScheme: 'light',
    deviceScaleFactor: 1,
  });
  context.on('response', (response) => {
    seenUrls.push(response.url());
    pendingBodies.push(
      response.body().then(
        (body) => received.push({ url: response.url(), body: body.toString('latin1') }),
        () => undefined,
      ),
    );
  });
  page = await context.newPage();
});

afterAll(async () => {
  await fixture?.close();
});

/** Screenshot names of the popup's pages (the walk-through's order). */
const POPUP_SCREENSHOTS: Record<string, string> = {
  'host/oauth/interaction/:uid': '03-host-consent',
  'integrator/login': '04-integrator-sign-in',
  'integrator/oauth/authorize': '05-integrator-consent',
};

/** The people of a List by plain SQL, in id order. */
async function listPeople(listId: string): Promise<string[]> {
  const { rows } = await t.db.query<{ id: string }>(
    'SELECT person_id::text AS id FROM list_results WHERE list_id = $1 ORDER BY person_id',
    [listId],
  );
  return rows.map((r) => r.id);
}

describe('the demo List page with the sample add-on, in Chromium', () => {
  it('sends to the login page first and back to the List after signing in [GET /demo/lists/{id}]', async () => {
    await fixture.signInToList(page, 'admin@demo.test', (login) => checkPage(login, '01-sign-in'));
    const people = await listPeople(listId);
    expect(people.length).toBeGreaterThan(100);
    expect(await page.locator('#list-people-count').textContent()).toBe(
      `${people.length} ${people.length === 1 ? 'person' : 'people'}`,
    );
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
    expect(await page.locator('iframe').count()).toBe(0);
    await checkPage(page, '02-list-page-authorize');
  });

  it('answers 404 for a List of another organization and lists only its own Lists [GET /demo/lists]', async () => {
    const { rows } = await t.db.query<{ id: string; name: string; organization: string }>(
      'SELECT l.id::text, l.name, o.slug AS organization FROM lists l JOIN organizations o ON o.id = l.organization_id ORDER BY l.name, l.id',
    );
    const other = rows.find((r) => r.organization === 'other')!;
    const foreign = await context.request.get(`${t.baseUrl}/demo/lists/${other.id}`);
    expect(foreign.status()).toBe(404);
    expect(await foreign.text()).toContain('There is no such List.');
    const index = await context.request.get(`${t.baseUrl}/demo/lists`);
    expect(index.status()).toBe(200);
    const links = [...(await index.text()).matchAll(/<a href="\/demo\/lists\/(\d+)">/g)].map((m) => m[1]);
    expect(links).toEqual(rows.filter((r) => r.organization === 'demo').map((r) => r.id));
  });

  it('runs the six-step handshake in a popup from the Authorize button, then starts the add-on in the sandbox [popup]', async () => {
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Authorize' }).click();
    // While the popup is open the add-on's box says so, its text right beside the spinner (not pushed to the far side).
    const waiting = page.getByText('Waiting for authorization…');
    await waiting.waitFor();
    const offset = await waiting.evaluate((status) => {
      const text = document.createRange();
      text.selectNodeContents(status);
      return { text: text.getBoundingClientRect().left - status.getBoundingClientRect().left, box: status.clientWidth };
    });
    expect(offset.box).toBeGreaterThan(300);
    expect(offset.text).toBeLessThan(64);
    const seen = await drivePopup(await popupOpened, {
      origins: { [t.baseUrl]: 'host', [integrator.url]: 'integrator' },
      integrator: DEVELOPMENT_DEFAULTS.user,
      onPage: (popup, step) => checkPage(popup, POPUP_SCREENSHOTS[step] ?? step),
    });
    // Host consent (already signed in), integrator login, integrator consent; the rest are redirects.
    expect(seen).toEqual(['host/oauth/interaction/:uid', 'integrator/login', 'integrator/oauth/authorize']);
    const people = await listPeople(listId);
    await page.getByText(`${people.length} of ${people.length} people selected`).waitFor();
    const frame = page.locator('iframe');
    expect(await frame.getAttribute('sandbox')).toBe('allow-scripts');
    expect(new URL((await frame.getAttribute('src'))!).origin).toBe(sandboxUrl);
    const { rows } = await t.db.query<{ state: string }>(
      'SELECT state FROM addon_authorizations WHERE person_id = $1',
      [await personId(t.db, 'admin@demo.test')],
    );
    expect(rows).toEqual([{ state: 'ready' }]);
    await checkPage(page, '06-addon-ready');
  });

  it('sends the message through the template integrator to every person of the List and shows the result [send]', async () => {
    const people = await listPeople(listId);
    await page.getByLabel('Message').fill('Potluck after the service on Sunday.');
    await page.getByRole('button', { name: 'Send message' }).click();
    const { rows: messages } = await (async () => {
      await page.getByText(/^Message \d+ sent to \d+ (person|people)\.$/).waitFor();
      return integratorDb.db.query<{ id: string; list_id: string; body: string; username: string }>(
        'SELECT m.id::text, m.list_id, m.body, u.username FROM messages m JOIN users u ON u.id = m.user_id ORDER BY m.id',
      );
    })();
    expect(messages).toEqual([
      { id: expect.any(String), list_id: listId, body: 'Potluck after the service on Sunday.', username: 'demo' },
    ]);
    expect(
      await page
        .getByText(`Message ${messages[0]!.id} sent to ${people.length} ${people.length === 1 ? 'person' : 'people'}.`)
        .count(),
    ).toBe(1);
    // Sent: the message box is empty again.
    expect(await page.getByLabel('Message').inputValue()).toBe('');
    await page.getByText(/^Message \d+ sent to/).scrollIntoViewIfNeeded();
    await checkPage(page, '07-message-sent');
    const { rows: recipients } = await integratorDb.db.query<{ person_id: string }>(
      'SELECT person_id FROM message_recipients WHERE message_id = $1 ORDER BY person_id::bigint',
      [messages[0]!.id],
    );
    expect(recipients.map((r) => r.person_id)).toEqual(people);
  });

  it('never lets a token reach the page: not in its cookies, not in any response it received [tokens]', async () => {
    const vault = createTokenVault(t.db, createSecretBox([TEST_ENCRYPTION_KEY]));
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id::text FROM addon_authorizations WHERE person_id = $1',
      [await personId(t.db, 'admin@demo.test')],
    );
    const record = (await vault.findById(rows[0]!.id))!;
    const secrets = [
      record.integrator!.accessToken,
      record.integrator!.refreshToken!,
      record.service!.accessToken,
      record.service!.refreshToken!,
    ];
    for (const secret of secrets) expect(secret.length).toBeGreaterThan(10);
    // The session cookie is HttpOnly: nothing is visible to scripts.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const html = await page.content();
    await Promise.allSettled(pendingBodies);
    expect(received.length).toBeGreaterThan(10);
    for (const secret of secrets) {
      expect(html).not.toContain(secret);
      expect(received.filter((r) => r.body.includes(secret)).map((r) => r.url)).toEqual([]);
    }
    // The proxied calls the page made did reach the host (so the responses above are the ones that mattered).
    expect(
      seenUrls.some((u) => u.startsWith(`${t.baseUrl}/addons/installations/`) && u.endsWith('/fetch/integrator')),
    ).toBe(true);
    expect(
      seenUrls.some((u) => u.startsWith(`${t.baseUrl}/addons/installations/`) && u.endsWith('/fetch/service')),
    ).toBe(true);
  });
});
