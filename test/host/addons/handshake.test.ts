import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDSHAKE_COOKIE } from '#host/addons/handshake/index.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import type { Database } from '#host/db/database.ts';
import { personId } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { runAuthorization } from '../../support/oauth-flow.ts';
import type { HttpTestHost } from '../../support/oauth-server.ts';
import { authorizeInBrowser, Browser, CLIENT_ID, USER, type TestIntegrator } from '#integrator/test/support.ts';
import {
  csrfTokenOf,
  loggedIn,
  organizationId,
  proxyFetch,
  startAuthorization,
  testBox,
  testVault,
  upstreamOf,
} from './fixtures.ts';
import { startHandshakeFixture, type HandshakeFixture } from './handshake-fixture.ts';

let t: HttpTestHost;
let integrator: TestIntegrator;
let appId: string;
let fixture: HandshakeFixture;
let installation: string;

beforeAll(async () => {
  fixture = await startHandshakeFixture();
  ({ t, integrator, appId } = fixture);
});
afterAll(() => fixture?.close());

/** Step 0: the logged-in host browser opens the popup at the start endpoint. */
async function startPopup(host: TestBrowser): Promise<URL> {
  const start = await startAuthorization(host, installation);
  expect(start.status).toBe(303);
  return new URL(start.location!);
}

/** The host's access and refresh tokens stored by the provider for the add-on's application and a person. */
async function hostTokens(db: Database, email: string): Promise<{ model: string; count: number }[]> {
  const { rows } = await db.query<{ model: string; count: number }>(
    `SELECT r.model, count(*)::int AS count FROM oauth_provider_records r JOIN oauth_applications o ON o.client_id = r.payload->>'clientId'
     WHERE o.id = $1 AND r.payload->>'accountId' = $2 AND r.model IN ('AccessToken', 'RefreshToken') GROUP BY r.model ORDER BY r.model`,
    [appId, await personId(db, email)],
  );
  return rows;
}

/**
 * Holds the result of each of the next `count` statements starting with `prefix` until all `count`
 * have run: concurrent requests all pass that point before any goes on (a deterministic race).
 * Returns the undo.
 */
function meetAfter(db: Database, prefix: string, count: number): () => void {
  const original = db.query;
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => (release = resolve));
  const held = async (sql: string, params?: readonly unknown[]) => {
    const result = await original.call(db, sql, params);
    if (arrived < count && sql.startsWith(prefix)) {
      if (++arrived === count) release();
      await all;
    }
    return result;
  };
  Object.assign(db, { query: held });
  return () => Object.assign(db, { query: original });
}

const advanceUrl = (state: string) => `/addons/authorizations/${appId}/advance?state=${encodeURIComponent(state)}`;

describe('the two-way handshake (steps 0–6)', () => {
  it('runs over real HTTP with the template integrator, then both proxies work [happy path]', async () => {
    const session = await loggedIn(t.baseUrl);
    const host = session.browser;
    const list = JSON.parse(
      (await host.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    );
    expect(list.data).toHaveLength(1);
    installation = list.data[0].id;
    expect(list.data[0]).toMatchObject({
      oauth_application_id: Number(appId),
      environment: 'development',
      version: 1,
      state: 'uninitialized',
    });

    // Step 0 → 1: to the host's own /oauth/authorize for the add-on's application with the add-on scopes.
    const authorize = await startPopup(host);
    expect(authorize.origin + authorize.pathname).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${integrator.url}/addon/complete`);
    expect(authorize.searchParams.get('scope')).toBe('people');
    expect(host.jar.get(HANDSHAKE_COOKIE)).toBeDefined();

    // Step 1 → 2: consent at the host; the code goes to the integrator's redirect_url.
    const completion = await runAuthorization(host, authorize);
    expect(completion.origin + completion.pathname).toBe(`${integrator.url}/addon/complete`);
    expect(completion.searchParams.get('code')).toBeTruthy();

    // Step 2 → 3: the integrator sends the browser on to advance.
    const integratorBrowser = new Browser();
    const toAdvance = await integratorBrowser.fetch(completion.toString());
    expect(toAdvance.status).toBe(302);
    const advance = new URL(toAdvance.headers.get('location')!);
    expect(advance.origin + advance.pathname).toBe(`${t.baseUrl}/addons/authorizations/${appId}/advance`);

    // Step 3 → 4: the host holds its own grant and sends the browser to the integrator's authorize page with PKCE.
    const toIntegrator = await host.request(advance.toString());
    expect(toIntegrator.status).toBe(303);
    const integratorAuthorize = new URL(toIntegrator.location!);
    expect(integratorAuthorize.origin + integratorAuthorize.pathname).toBe(`${integrator.url}/oauth/authorize`);
    expect(integratorAuthorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(integratorAuthorize.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(integratorAuthorize.searchParams.get('redirect_uri')).toBe(`${t.baseUrl}/addons/authorizations/${appId}`);
    const midway = await fetch(`${t.baseUrl}/addons/installations/${installation}/state`, {
      headers: { cookie: session.cookie },
    });
    expect(await midway.json()).toEqual({ state: 'integrator_pending' });

    // Step 4 → 5: the person allows at the integrator, which redirects back with a code.
    const callback = await authorizeInBrowser(integratorBrowser, integratorAuthorize.toString(), USER, 'allow');
    expect(callback.origin + callback.pathname).toBe(`${t.baseUrl}/addons/authorizations/${appId}`);

    // Step 5 → 6: the host exchanges the code; the page tells the opener and closes.
    const done = await host.request(callback.toString());
    expect(done.status).toBe(200);
    expect(done.body).toContain(
      `window.opener.postMessage({"type":"addon-kit:handshake","installationId":"${installation}","outcome":"authorized","state":"ready"}, "${t.baseUrl}");`,
    );
    expect(done.body).toContain('window.close();');
    const nonce = /script-src 'nonce-([^']+)'/.exec(done.headers.get('content-security-policy')!)![1];
    expect(done.body).toContain(`<script nonce="${nonce}">`);
    expect(host.jar.get(HANDSHAKE_COOKIE)).toBeUndefined();

    const state = await fetch(`${t.baseUrl}/addons/installations/${installation}/state`, {
      headers: { cookie: session.cookie },
    });
    expect(await state.json()).toEqual({ state: 'ready' });
    const record = (await testVault(t.db).find(installation, await personId(t.db, 'admin@demo.test')))!;
    expect(record.service!.scope).toBe('people');
    expect(record.integrator!.refreshToken).toBeTruthy();
    const { rows } = await t.db.query<{
      handshake_state_hash: string | null;
      integrator_access_token_encrypted: string;
    }>('SELECT handshake_state_hash, integrator_access_token_encrypted FROM addon_authorizations WHERE id = $1', [
      record.id,
    ]);
    expect(rows[0]!.handshake_state_hash).toBeNull();
    expect(rows[0]!.integrator_access_token_encrypted).toMatch(/^v1\.test1\./);
    // The host grant is a real provider grant: it counts the person as a monthly active user.
    const mau = await t.db.query(
      'SELECT 1 FROM oauth_monthly_active_users WHERE application_id = $1 AND person_id = $2',
      [appId, record.personId],
    );
    expect(mau.rows).toHaveLength(1);

    // authenticatedFetch: the host API as the person.
    const me = await proxyFetch(t.baseUrl, session, installation, 'service', { url: '/current/v2/me' });
    expect(me.status).toBe(200);
    expect(upstreamOf(me).status).toBe(200);
    expect((await me.json()).data).toMatchObject({ id: record.personId, type: 'Person' });

    // authenticatedIntegratorFetch: the integrator's sample API with the integrator token.
    const sent = await proxyFetch(t.baseUrl, session, installation, 'integrator', {
      method: 'POST',
      url: '/api/messages',
      headers: [['Content-Type', 'application/json']],
      body: JSON.stringify({ list_id: '1', person_ids: ['2', '3'], message: 'Welcome!' }),
    });
    expect(sent.status).toBe(200);
    expect(upstreamOf(sent).status).toBe(201);
    expect((await sent.json()).data).toMatchObject({ list_id: '1', person_ids: ['2', '3'], message: 'Welcome!' });
    const listed = await proxyFetch(t.baseUrl, session, installation, 'integrator', {
      url: `${integrator.url}/api/messages`,
    });
    expect(upstreamOf(listed).status).toBe(200);
    expect((await listed.json()).data).toHaveLength(1);
  });

  it('starts nothing on a GET: the page only posts the start for an opener of the host origin [GET]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const res = await browser.request(`/addons/installations/${installation}/authorize`);
    expect(res.status).toBe(200);
    expect(res.location).toBeUndefined();
    expect(res.body).toContain('<h1>Start from the add-on</h1>');
    expect(res.body).toContain('An add-on authorization starts only from the Authorize button of the add-on.');
    expect(res.body).toContain(
      `<form id="start" method="post" action="/addons/installations/${installation}/authorize" hidden>`,
    );
    expect(res.body).toContain(`<input type="hidden" name="_csrf" value="${await csrfTokenOf(browser)}"/>`);
    expect(res.body).toContain(
      "try { if (window.opener && window.opener.location.origin === location.origin) document.getElementById('start').submit(); } catch (e) {}",
    );
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy')!)![1];
    expect(res.headers.get('content-security-policy')).toBe(
      `default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; script-src 'nonce-${nonce}'`,
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(browser.jar.get(HANDSHAKE_COOKIE)).toBeUndefined();
    expect(await testVault(t.db).find(installation, await personId(t.db, 'member@demo.test'))).toBeUndefined();
  });

  it('refuses a start without the CSRF token, with a wrong one, or from another origin, and writes nothing [csrf]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const token = await csrfTokenOf(browser);
    const path = `/addons/installations/${installation}/authorize`;
    const attempts = [
      browser.request(path, { method: 'POST', headers: { origin: t.baseUrl } }),
      browser.request(path, { method: 'POST', form: {}, headers: { origin: t.baseUrl } }),
      browser.request(path, { form: { _csrf: 'wrong' }, headers: { origin: t.baseUrl } }),
      browser.request(path, { form: { _csrf: token }, headers: { origin: 'http://evil.example' } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.location).toBeUndefined();
      expect(res.body).toContain('This form has expired');
    }
    expect(browser.jar.get(HANDSHAKE_COOKIE)).toBeUndefined();
    expect(await testVault(t.db).find(installation, await personId(t.db, 'member@demo.test'))).toBeUndefined();
    // The same token from the host's own origin starts it.
    const started = await startAuthorization(browser, installation, token);
    expect(started.status).toBe(303);
    expect(new URL(started.location!).pathname).toBe('/oauth/authorize');
  });

  it('revokes the previous host grant when a finished handshake is run again [restart after ready]', async () => {
    const session = await loggedIn(t.baseUrl);
    const vault = testVault(t.db);
    const admin = await personId(t.db, 'admin@demo.test');
    const before = (await vault.find(installation, admin))!.service!;
    expect(await t.host.oauthProvider.AccessToken.find(before.accessToken)).toBeDefined();
    const completion = await runAuthorization(session.browser, await startPopup(session.browser));
    const toAdvance = await new Browser().fetch(completion.toString());
    const advanced = await session.browser.request(toAdvance.headers.get('location')!);
    expect(advanced.status).toBe(303);
    const after = (await vault.find(installation, admin))!;
    expect(after.state).toBe('integrator_pending');
    expect(after.service!.accessToken).not.toBe(before.accessToken);
    expect(await t.host.oauthProvider.AccessToken.find(before.accessToken)).toBeUndefined();
    expect(await t.host.oauthProvider.RefreshToken.find(before.refreshToken!)).toBeUndefined();
    expect(await t.host.oauthProvider.AccessToken.find(after.service!.accessToken)).toBeDefined();
  });

  it('refuses advance without a started handshake, without state, and with a wrong state [state checks]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'editor@demo.test');
    const none = await browser.request(`/addons/authorizations/${appId}/advance?state=abc`);
    expect(none.status).toBe(400);
    expect(none.body).toContain('No authorization in progress');

    await startPopup(browser);
    const missing = await browser.request(`/addons/authorizations/${appId}/advance`);
    expect(missing.status).toBe(400);
    expect(missing.body).toContain('The request carries no state parameter.');
    expect(missing.body).toContain(`href="/addons/installations/${installation}/authorize"`);
    const wrong = await browser.request(`/addons/authorizations/${appId}/advance?state=forged`);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('The state parameter does not belong to the authorization this browser started.');
    // Another person's browser cannot use this state either (the cookie is per browser).
    expect((await testVault(t.db).find(installation, await personId(t.db, 'editor@demo.test')))!.state).toBe(
      'uninitialized',
    );
  });

  it('refuses an expired state and accepts a restarted handshake [expiry, restart]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const first = await startPopup(browser);
    const state = first.searchParams.get('state')!;
    await t.db.query(
      "UPDATE addon_authorizations SET handshake_expires_at = now() - interval '1 minute' WHERE person_id = $1",
      [await personId(t.db, 'member@demo.test')],
    );
    const expired = await browser.request(`/addons/authorizations/${appId}/advance?state=${encodeURIComponent(state)}`);
    expect(expired.status).toBe(400);
    expect(expired.body).toContain('The authorization expired');

    // Restart: a new state replaces the old one, which stops working.
    const second = await startPopup(browser);
    const replaced = await browser.request(
      `/addons/authorizations/${appId}/advance?state=${encodeURIComponent(state)}`,
    );
    expect(replaced.status).toBe(400);
    await runAuthorization(browser, second, { email: 'member@demo.test' });
    const fresh = await browser.request(
      `/addons/authorizations/${appId}/advance?state=${encodeURIComponent(second.searchParams.get('state')!)}`,
    );
    expect(fresh.status).toBe(303);
    expect(new URL(fresh.location!).origin).toBe(integrator.url);
  });

  it('shows a failure page when the person declines at the host [error at advance]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const start = await startPopup(browser);
    const declined = await browser.request(
      `/addons/authorizations/${appId}/advance?state=${encodeURIComponent(start.searchParams.get('state')!)}&error=access_denied`,
    );
    expect(declined.status).toBe(400);
    expect(declined.body).toContain('Authorization declined');
    // The opener learns it was declined at the host's consent, and the popup closes itself.
    const { state } = (await testVault(t.db).find(installation, await personId(t.db, 'member@demo.test')))!;
    const report = {
      type: 'addon-kit:handshake',
      installationId: installation,
      outcome: 'declined',
      side: 'host',
      state,
      error: 'service_denied',
    };
    expect(declined.body).toContain(
      `window.opener.postMessage(${JSON.stringify(report)}, "${t.baseUrl}"); } window.close();`,
    );
  });

  it('reports a Deny at the integrator to the opener as declined on the integrator side, and closes [integrator deny]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const completion = await runAuthorization(browser, await startPopup(browser), { email: 'member@demo.test' });
    const integratorBrowser = new Browser();
    const advance = (await integratorBrowser.fetch(completion.toString())).headers.get('location')!;
    const toIntegrator = await browser.request(advance);
    expect(toIntegrator.status).toBe(303);
    const callback = await authorizeInBrowser(integratorBrowser, toIntegrator.location!, USER, 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const declined = await browser.request(callback.toString());
    expect(declined.status).toBe(400);
    expect(declined.body).toContain('Authorization declined');
    const report = {
      type: 'addon-kit:handshake',
      installationId: installation,
      outcome: 'declined',
      side: 'integrator',
      state: 'integrator_pending',
      error: 'integrator_denied',
    };
    expect(declined.body).toContain(
      `window.opener.postMessage(${JSON.stringify(report)}, "${t.baseUrl}"); } window.close();`,
    );
  });

  it('issues no host grant when the person denied at the host and the error is dropped [deny, advance without error]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'editor@demo.test');
    const start = await startPopup(browser);
    const denied = await runAuthorization(browser, start, { email: 'editor@demo.test', decision: 'Deny' });
    expect(denied.origin + denied.pathname).toBe(`${integrator.url}/addon/complete`);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('code')).toBeNull();

    const res = await browser.request(advanceUrl(start.searchParams.get('state')!));
    expect(res.status).toBe(400);
    expect(res.body).toContain('Authorization not confirmed');
    // A failed step stays open on its page (with a restart link); the opener keeps waiting.
    const report = {
      type: 'addon-kit:handshake',
      installationId: installation,
      outcome: 'failed',
      side: 'host',
      state: 'uninitialized',
      error: 'service_not_authorized',
    };
    expect(res.body).toContain(`window.opener.postMessage(${JSON.stringify(report)}, "${t.baseUrl}"); }</script>`);
    const record = (await testVault(t.db).find(installation, await personId(t.db, 'editor@demo.test')))!;
    expect(record.state).toBe('uninitialized');
    expect(record.service).toBeUndefined();
    expect(await hostTokens(t.db, 'editor@demo.test')).toEqual([]);
  });

  it('issues no host grant when advance is visited without the host consent [skipped step 1, consent of a replaced state]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'editor@demo.test');
    const direct = await startPopup(browser);
    const res = await browser.request(advanceUrl(direct.searchParams.get('state')!));
    expect(res.status).toBe(400);
    expect(res.body).toContain('"error":"service_not_authorized"');

    // A consent given to an earlier leg does not carry over to the restarted one.
    const consented = await startPopup(browser);
    await runAuthorization(browser, consented, { email: 'editor@demo.test' });
    const restarted = await startPopup(browser);
    const stale = await browser.request(advanceUrl(restarted.searchParams.get('state')!));
    expect(stale.status).toBe(400);
    expect(stale.body).toContain('"error":"service_not_authorized"');
    const record = (await testVault(t.db).find(installation, await personId(t.db, 'editor@demo.test')))!;
    expect(record.state).toBe('uninitialized');
    expect(record.service).toBeUndefined();
    expect(await hostTokens(t.db, 'editor@demo.test')).toEqual([]);
  });

  it('counts only a consent to the add-on application with the add-on scopes [another client, fewer scopes]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const member = await personId(t.db, 'member@demo.test');
    const before = (await testVault(t.db).find(installation, member))!;
    const other = await createOAuthApplication(t.db, testBox(), {
      organizationId: await organizationId(t.db, 'demo'),
      name: 'Another app',
      redirectUris: [`${integrator.url}/addon/complete`],
    });
    for (const change of [{ client_id: other.client_id }, { scope: 'openid' }]) {
      const start = await startPopup(browser);
      const tampered = new URL(start);
      for (const [key, value] of Object.entries(change)) tampered.searchParams.set(key, value);
      const completion = await runAuthorization(browser, tampered, { email: 'member@demo.test' });
      expect(completion.searchParams.get('code')).toBeTruthy();
      const res = await browser.request(advanceUrl(start.searchParams.get('state')!));
      expect(res.status).toBe(400);
      expect(res.body).toContain('"error":"service_not_authorized"');
    }
    const after = (await testVault(t.db).find(installation, member))!;
    expect(after.state).toBe(before.state);
    expect(after.service!.accessToken).toBe(before.service!.accessToken);
  });

  it('lets exactly one of two concurrent advances with one state issue a grant [state consumed atomically]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'editor@demo.test');
    const start = await startPopup(browser);
    await runAuthorization(browser, start, { email: 'editor@demo.test' });
    const url = advanceUrl(start.searchParams.get('state')!);
    // Both requests read the row (the state check of step 3) before either goes on.
    const undo = meetAfter(t.db, 'SELECT id::text, handshake_state_hash', 2);
    const results = await Promise.all([browser.request(url), browser.request(url)]).finally(undo);
    expect(results.map((r) => r.status).sort()).toEqual([303, 400]);
    const loser = results.find((r) => r.status === 400)!;
    expect(loser.body).toContain('This authorization was already used or replaced by a newer one.');
    expect(new URL(results.find((r) => r.status === 303)!.location!).origin).toBe(integrator.url);

    expect(await hostTokens(t.db, 'editor@demo.test')).toEqual([
      { model: 'AccessToken', count: 1 },
      { model: 'RefreshToken', count: 1 },
    ]);
    const record = (await testVault(t.db).find(installation, await personId(t.db, 'editor@demo.test')))!;
    expect(record.state).toBe('integrator_pending');
    expect(await t.host.oauthProvider.AccessToken.find(record.service!.accessToken)).toBeDefined();
    // The used state is gone: a third try is refused too.
    const again = await browser.request(url);
    expect(again.status).toBe(400);
  });

  it('refuses the step-5 callback with a state of the first leg [leg mismatch]', async () => {
    const { browser } = await loggedIn(t.baseUrl, 'member@demo.test');
    const start = await startPopup(browser);
    const res = await browser.request(
      `/addons/authorizations/${appId}?code=x&state=${encodeURIComponent(start.searchParams.get('state')!)}`,
    );
    expect(res.status).toBe(400);
    expect(res.body).toContain('The state parameter does not belong to the authorization this browser started.');
  });

  it('refuses a start without a host session [login]', async () => {
    const anonymous = new TestBrowser(t.baseUrl);
    const res = await anonymous.request(`/addons/installations/${installation}/authorize`, { form: { _csrf: 'x' } });
    expect(res.status).toBe(401);
    expect(anonymous.jar.get(HANDSHAKE_COOKIE)).toBeUndefined();
  });

  it("answers 404 for another organization's installation [tenant isolation]", async () => {
    const { browser } = await loggedIn(t.baseUrl, 'admin@other.test');
    const res = await startAuthorization(browser, installation);
    expect(res.status).toBe(404);
    expect(res.body).toContain('Add-on not found');
  });
});
