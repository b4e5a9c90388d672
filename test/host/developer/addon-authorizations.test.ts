/**
 * The account page's "Add-ons you have authorized": a real host (its delivery worker on) and the real template
 * integrator, whose receiver is the environment's `webhook_url`. The page lists the person's completed handshake and
 * revokes it as `POST /addons/installations/{id}/revoke` does: the row and the host grant gone, the add-on's calls
 * stopped, `addon.authorization.revoked` recorded once and delivered; no CSRF token, another organization, or an
 * installation the person has not authorized (another person's authorization) → refused, nothing revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personId } from '../../support/host.ts';
import { parseForms, type TestBrowser } from '../../support/oauth-browser.ts';
import { Browser, TestClock } from '#integrator/test/support.ts';
import { runAuthorization } from '../../support/oauth-flow.ts';
import { loggedIn, organizationId, proxyFetch, seedReady, startAuthorization, testVault } from '../addons/fixtures.ts';
import {
  completeHandshake,
  receivedLifecycleEvents,
  startHandshakeFixture,
  type HandshakeFixture,
} from '../addons/handshake-fixture.ts';

let f: HandshakeFixture;

beforeAll(async () => {
  f = await startHandshakeFixture(
    { webhookPollIntervalMs: 50, webhookRetryScale: 0.001 },
    { lifecycleWebhook: true, integratorClock: new TestClock(Date.now()) },
  );
});
afterAll(() => f?.close());

/** The host's outbox rows of a lifecycle event name. */
async function outbox(name: string): Promise<{ person_id: string }[]> {
  const { rows } = await f.t.db.query<{ payload: string }>(
    'SELECT payload FROM webhook_events WHERE name = $1 ORDER BY id',
    [name],
  );
  return rows.map((r) => ({ person_id: (JSON.parse(r.payload) as { person_id: string }).person_id }));
}

/** The account page and its add-on rows: [installation id, the row's cells]. */
async function listed(browser: TestBrowser) {
  const page = await browser.request('/developer/account');
  expect(page.status).toBe(200);
  const rows = [...page.body.matchAll(/<tr data-addon-installation-id="(\d+)">(.*?)<\/tr>/g)].map((m) => [
    m[1]!,
    [...m[2]!.matchAll(/<td>([^<]*)<\/td>/g)].map((c) => c[1]!),
  ]);
  return { page, rows };
}

/** POSTs the page's revoke form of an installation (its CSRF token, or none). */
function postRevoke(browser: TestBrowser, installation: string, csrf: string | undefined) {
  return browser.request(`/developer/account/addons/${installation}/revoke`, {
    method: 'POST',
    form: csrf === undefined ? {} : { _csrf: csrf },
  });
}

describe('the account page revokes an authorized add-on', () => {
  it('lists it, refuses without CSRF or from elsewhere, revokes it as the JSON route does [revoke]', async () => {
    const session = await loggedIn(f.t.baseUrl);
    const installation = await completeHandshake(session.browser);
    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.completed'), { timeout: 15_000 })
      .toHaveLength(1);
    const admin = await personId(f.t.db, 'admin@demo.test');
    const before = (await testVault(f.t.db).find(installation, admin))!;
    const at = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    const { rows: times } = await f.t.db.query<{ created_at: Date; authorized_at: Date; updated_at: Date }>(
      'SELECT created_at, authorized_at, updated_at FROM addon_authorizations WHERE id = $1',
      [before.id],
    );
    // Authorized when step 6 made it ready, not when the handshake started.
    expect(times[0]!.authorized_at.getTime()).toBeGreaterThan(times[0]!.created_at.getTime());

    const { page, rows } = await listed(session.browser);
    expect(rows).toEqual([
      [
        installation,
        ['Messages add-on', 'development', 'Authorized', at(times[0]!.authorized_at), at(times[0]!.updated_at)],
      ],
    ]);
    const forms = parseForms(page.body);
    const form = forms.find((x) => x.action === `/developer/account/addons/${installation}/revoke`)!;
    expect(Object.keys(form.fields)).toEqual(['_csrf']);
    expect(form.buttons.map((b) => b.text)).toEqual(['Revoke Messages add-on (development)']);

    // Without the CSRF token: refused, nothing changes.
    expect((await postRevoke(session.browser, installation, undefined)).status).toBe(403);
    // Another organization's person: its installation is not theirs to see.
    const other = await loggedIn(f.t.baseUrl, 'admin@other.test');
    const otherCsrf = parseForms((await other.browser.request('/developer/account')).body)[0]!.fields._csrf!;
    const foreign = await postRevoke(other.browser, installation, otherCsrf);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toContain('You have not authorized that add-on.');
    expect(await testVault(f.t.db).find(installation, admin)).toBeDefined();
    expect(await outbox('addon.authorization.revoked')).toEqual([]);

    const done = await postRevoke(session.browser, installation, form.fields._csrf);
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${f.t.baseUrl}/developer/account?addon_revoked=1#addon-authorizations`);
    expect(await testVault(f.t.db).find(installation, admin)).toBeUndefined();
    expect(await f.t.host.oauthProvider.AccessToken.find(before.service!.accessToken)).toBeUndefined();
    const call = await proxyFetch(f.t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
    expect(call.status).toBe(401);
    expect((await call.json()).error.code).toBe('handshake_required');
    await expect
      .poll(() => receivedLifecycleEvents(f, 'addon.authorization.revoked'), { timeout: 15_000 })
      .toHaveLength(1);
    expect((await receivedLifecycleEvents(f, 'addon.authorization.revoked'))[0]).toMatchObject({
      event: 'addon.authorization.revoked',
      installation_id: installation,
      environment: 'development',
      organization_id: await organizationId(f.t.db, 'demo'),
      person_id: admin,
      oauth_application_id: f.appId,
      integrator_client_id: 'test-host',
    });
    expect(await outbox('addon.authorization.revoked')).toEqual([{ person_id: admin }]);

    const after = await session.browser.follow(done.location!);
    expect(after.status).toBe(200);
    expect(after.body).toContain(
      `<div class="ak-banner ak-banner--success" role="status" id="addon-revoked"><p>The add-on's authorization was revoked.`,
    );
    expect(after.body).toContain('You have not authorized any add-on.');
    expect((await listed(session.browser)).rows).toEqual([]);
  });

  it('lists a handshake under way as Authorizing, not yet authorized [integrator_pending]', async () => {
    const session = await loggedIn(f.t.baseUrl, 'editor@demo.test');
    const list = JSON.parse(
      (await session.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    ) as { data: { id: string }[] };
    const installation = list.data[0]!.id;
    const start = await startAuthorization(session.browser, installation);
    expect(start.status).toBe(303);
    // Leg one and the host's grant (the advance); the person stops at the integrator's sign-in.
    const completion = await runAuthorization(session.browser, new URL(start.location!));
    const toAdvance = await new Browser().fetch(completion.toString());
    expect((await session.browser.request(toAdvance.headers.get('location')!)).status).toBe(303);
    const editor = await personId(f.t.db, 'editor@demo.test');
    expect((await testVault(f.t.db).find(installation, editor))?.state).toBe('integrator_pending');
    const { rows: times } = await f.t.db.query<{ authorized_at: Date | null; updated_at: Date }>(
      'SELECT authorized_at, updated_at FROM addon_authorizations WHERE installation_id = $1 AND person_id = $2',
      [installation, editor],
    );
    expect(times[0]!.authorized_at).toBeNull();
    const at = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
    expect((await listed(session.browser)).rows).toEqual([
      [installation, ['Messages add-on', 'development', 'Authorizing', 'not yet', at(times[0]!.updated_at)]],
    ]);
    // The next test seeds the editor's authorization afresh.
    await f.t.db.query('DELETE FROM addon_authorizations WHERE installation_id = $1 AND person_id = $2', [
      installation,
      editor,
    ]);
  });

  it("answers 404 to an installation the person has not authorized, another person's authorization intact [isolation]", async () => {
    const session = await loggedIn(f.t.baseUrl);
    const list = JSON.parse(
      (await session.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    ) as { data: { id: string }[] };
    const installation = list.data[0]!.id;
    const editor = await personId(f.t.db, 'editor@demo.test');
    await seedReady(testVault(f.t.db), installation, editor, {
      accessToken: 'editor-integrator-token',
      refreshToken: undefined,
      expiresAt: undefined,
      scope: 'messages',
    });
    const events = (await outbox('addon.authorization.revoked')).length;
    const csrf = parseForms((await session.browser.request('/developer/account')).body)[0]!.fields._csrf!;
    for (const id of [installation, '999999', 'x']) {
      const res = await postRevoke(session.browser, id, csrf);
      expect([id, res.status]).toEqual([id, 404]);
      expect(res.body).toContain('You have not authorized that add-on.');
    }
    expect((await testVault(f.t.db).find(installation, editor))?.state).toBe('ready');
    expect(await outbox('addon.authorization.revoked')).toHaveLength(events);
  });
});
