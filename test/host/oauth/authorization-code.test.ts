import * as client from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { parseForms, TestBrowser } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  credentials,
  discoverClient,
  obtainCode,
  obtainTokens,
  postOAuth,
  REDIRECT_URI,
  runAuthorization,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;
let publicApp: TestApplication;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db, { name: 'Sample Integration' });
  publicApp = await createTestApplication(t.db, { name: 'Mobile App', public: true });
});
afterAll(() => t.close());
afterEach(() => void vi.useRealTimers());

/** Freezes the clock at `at` (Date only: timers and I/O run normally). */
function setClock(at: number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
}

async function me(accessToken: string): Promise<number> {
  const res = await fetch(`${t.baseUrl}/current/v2/me`, {
    headers: { authorization: `Bearer ${accessToken}`, 'user-agent': TEST_USER_AGENT },
  });
  return res.status;
}

function authorizeUrl(application: TestApplication, params: Record<string, string>): URL {
  const url = new URL('/oauth/authorize', t.baseUrl);
  url.search = new URLSearchParams({
    client_id: application.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'people',
    state: 's-1',
    ...params,
  }).toString();
  return url;
}

describe('GET /oauth/authorize', () => {
  it('completes the code flow with PKCE through openid-client [confidential]', async () => {
    const config = await discoverClient(t.baseUrl, app);
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(7200);
    expect(tokens.scope).toBe('people');
    expect(tokens.refresh_token).toMatch(/^[\w-]{43}$/);
    expect(tokens.id_token).toBeUndefined();
    expect(await me(tokens.access_token)).toBe(200);
  });

  it('completes the code flow without PKCE [confidential]', async () => {
    const config = await discoverClient(t.baseUrl, app);
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people', pkce: false });
    expect(tokens.access_token).toMatch(/^[\w-]{43}$/);
    expect(await me(tokens.access_token)).toBe(200);
  });

  it('completes the code flow with PKCE and no secret [public]', async () => {
    const config = await discoverClient(t.baseUrl, publicApp);
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, {
      scope: 'openid people',
      nonce: 'n-public',
    });
    expect(tokens.claims()?.aud).toBe(publicApp.clientId);
    expect(await me(tokens.access_token)).toBe(200);
  });

  it('refuses a public client without PKCE [public]', async () => {
    const res = await new TestBrowser(t.baseUrl).request(authorizeUrl(publicApp, {}).href);
    expect(res.status).toBe(303);
    const back = new URL(res.location!);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'invalid_request',
      error_description: 'Authorization Server policy requires PKCE to be used for this request',
      state: 's-1',
      iss: t.baseUrl,
    });
  });

  it('refuses code_challenge_method plain [PKCE S256 only]', async () => {
    const res = await new TestBrowser(t.baseUrl).request(
      authorizeUrl(app, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }).href,
    );
    const back = new URL(res.location!);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('s-1');
  });

  it('answers invalid_scope for a scope outside the list', async () => {
    const res = await new TestBrowser(t.baseUrl).request(authorizeUrl(app, { scope: 'people admin' }).href);
    expect(res.status).toBe(303);
    expect(Object.fromEntries(new URL(res.location!).searchParams)).toEqual({
      error: 'invalid_scope',
      error_description: 'unknown scope: admin',
      scope: 'admin',
      state: 's-1',
      iss: t.baseUrl,
    });
  });

  it('shows an error page and never redirects to an unregistered redirect_uri [exact match]', async () => {
    for (const redirect of [
      `${REDIRECT_URI}/`,
      `${REDIRECT_URI}?x=1`,
      'https://client.example/CALLBACK',
      'https://evil.example/callback',
    ]) {
      const res = await new TestBrowser(t.baseUrl).request(authorizeUrl(app, { redirect_uri: redirect }).href);
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.body).toContain("redirect_uri did not match any of the client's registered redirect_uris");
    }
  });

  it('shows an error page without a redirect_uri [exact match]', async () => {
    const url = authorizeUrl(app, {});
    url.searchParams.delete('redirect_uri');
    const res = await new TestBrowser(t.baseUrl).request(url.href);
    expect(res.status).toBe(400);
    expect(res.location).toBeUndefined();
    expect(res.body).toContain("missing required parameter 'redirect_uri'");
  });

  it('shows an expiry page for an unknown or foreign interaction', async () => {
    const res = await new TestBrowser(t.baseUrl).request('/oauth/interaction/not-a-real-interaction');
    expect(res.status).toBe(400);
    expect(res.body).toContain('This sign-in has expired');
  });

  it('shows an error page for an unknown client_id', async () => {
    const res = await new TestBrowser(t.baseUrl).request(authorizeUrl({ id: '0', clientId: 'nope' }, {}).href);
    expect(res.status).toBe(400);
    expect(res.body).toContain('invalid_client');
  });

  it('sends error=access_denied back when the person denies [deny]', async () => {
    const callback = await runAuthorization(
      new TestBrowser(t.baseUrl),
      authorizeUrl(app, {
        code_challenge: await client.calculatePKCECodeChallenge('v'.repeat(43)),
        code_challenge_method: 'S256',
      }),
      { decision: 'Deny' },
    );
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The user denied the request',
      state: 's-1',
      iss: t.baseUrl,
    });
  });

  it('names the application and the scopes in words on the consent page', async () => {
    const pages: string[] = [];
    await runAuthorization(
      new TestBrowser(t.baseUrl),
      authorizeUrl(app, {
        scope: 'openid people api',
        code_challenge: await client.calculatePKCECodeChallenge('v'.repeat(43)),
        code_challenge_method: 'S256',
      }),
      {
        onPage: (page, kind) => void (kind === 'consent' && pages.push(page.body)),
      },
    );
    expect(pages).toHaveLength(1);
    expect(pages[0]).toContain('<h1>Authorize Sample Integration</h1>');
    expect(pages[0]).toContain('Alex Admin, Demo Church');
    expect(pages[0]).toContain(
      '<li data-scope="openid">Know who you are: your name, e-mail address and organization</li>',
    );
    expect(pages[0]).toContain(
      '<li data-scope="people">Read and change People records you have access to: profiles, lists and notes</li>',
    );
    expect(pages[0]).toContain('data-scope="api"');
  });

  it('refuses the consent post without the CSRF token [CSRF]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    let consent: Awaited<ReturnType<TestBrowser['request']>> | undefined;
    await runAuthorization(
      browser,
      authorizeUrl(app, {
        code_challenge: await client.calculatePKCECodeChallenge('v'.repeat(43)),
        code_challenge_method: 'S256',
      }),
      {
        onPage: async (page, kind) => {
          if (kind === 'consent') consent = await browser.submit(page, { _csrf: 'forged' }, { button: 'Allow' });
        },
      },
    );
    expect(consent?.status).toBe(403);
    expect(consent?.location).toBeUndefined();
  });

  it('answers a wrong password on the login page with 401 and a generic message', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const login = await browser.follow(
      authorizeUrl(app, {
        code_challenge: await client.calculatePKCECodeChallenge('v'.repeat(43)),
        code_challenge_method: 'S256',
      }).href,
    );
    expect(parseForms(login.body)[0]!.action).toMatch(/^\/oauth\/interaction\/[\w-]+\/login$/);
    const failed = await browser.submit(login, { email: 'admin@demo.test', password: 'nope' });
    expect(failed.status).toBe(401);
    expect(failed.body).toContain('The e-mail address or password is incorrect.');
  });

  it('logs the person in to the host too', async () => {
    const browser = new TestBrowser(t.baseUrl);
    await obtainCode(browser, app);
    expect(browser.jar.get('addon_kit_session')).toBeDefined();
    const login = await browser.request('/login');
    expect(login.status).toBe(200);
    // And a host session alone satisfies the next authorization's login prompt (no login page).
    const kinds: string[] = [];
    await obtainCode(browser, app, { onPage: (_p, kind) => void kinds.push(kind) });
    expect(kinds).not.toContain('login');
  });
});

describe('POST /oauth/token', () => {
  it('answers the spec token response with Cache-Control: no-store [authorization_code]', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app, { scope: 'openid people' });
    const before = Math.floor(Date.now() / 1000);
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'bearer',
      expires_in: 7200,
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      scope: 'openid people',
      created_at: expect.any(Number),
      id_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
    });
    expect(res.body.created_at as number).toBeGreaterThanOrEqual(before);
    expect(res.body.created_at as number).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('accepts a JSON body with the client credentials in it [JSON]', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app, { scope: 'people' });
    const res = await postOAuth(
      t.baseUrl,
      '/oauth/token',
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        ...credentials(app),
      },
      { json: true },
    );
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('people');
    expect(await me(res.body.access_token as string)).toBe(200);
  });

  it('accepts HTTP Basic client authentication [Basic]', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app, { scope: 'people' });
    const res = await postOAuth(
      t.baseUrl,
      '/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      { basic: { id: app.clientId, secret: app.clientSecret! } },
    );
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('bearer');
  });

  it('accepts HTTP Basic with a JSON body [Basic + JSON]', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app, { scope: 'people' });
    const res = await postOAuth(
      t.baseUrl,
      '/oauth/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      { json: true, basic: { id: app.clientId, secret: app.clientSecret! } },
    );
    expect(res.status).toBe(200);
  });

  it('answers invalid_request for a JSON body that is not an object of strings', async () => {
    const res = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code": {"x": 1}}',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the JSON body must be an object of string values',
    });
    const broken = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"code":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      error: 'invalid_request',
      error_description: 'the request body is not valid JSON',
    });
  });

  it('refuses a wrong client secret with 401 invalid_client', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      client_id: app.clientId,
      client_secret: 'wrong',
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });

  it('refuses a redirect_uri that differs from the authorization request [exact match]', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${REDIRECT_URI}/`,
      code_verifier: verifier,
      ...credentials(app),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('refuses a wrong code_verifier [PKCE]', async () => {
    const { code } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: 'a'.repeat(43),
      ...credentials(app),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('refuses a code_verifier shorter than 43 or longer than 128 characters [PKCE]', async () => {
    for (const verifier of ['a'.repeat(42), 'a'.repeat(129), `${'a'.repeat(42)}!`]) {
      const { code } = await obtainCode(new TestBrowser(t.baseUrl), app);
      const res = await postOAuth(t.baseUrl, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        ...credentials(app),
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_request');
    }
  });

  it('refuses a code_verifier when the authorization request had no challenge [PKCE]', async () => {
    const { code } = await obtainCode(new TestBrowser(t.baseUrl), app, { pkce: false });
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: 'a'.repeat(43),
      ...credentials(app),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('answers invalid_grant to a replayed code and revokes the tokens issued from it [code replay]', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const params = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    };
    const first = await postOAuth(t.baseUrl, '/oauth/token', params);
    expect(first.status).toBe(200);
    expect(await me(first.body.access_token as string)).toBe(200);
    const replay = await postOAuth(t.baseUrl, '/oauth/token', params);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    expect(await me(first.body.access_token as string)).toBe(401);
    const refresh = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      ...credentials(app),
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('answers invalid_grant to a code replayed after its lifetime and revokes the tokens issued from it [late code replay]', async () => {
    const t0 = Date.parse('2026-08-01T09:00:00Z');
    setClock(t0);
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const params = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    };
    const first = await postOAuth(t.baseUrl, '/oauth/token', params);
    expect(first.status).toBe(200);
    setClock(t0 + 61_000);
    expect(await me(first.body.access_token as string)).toBe(200);
    const replay = await postOAuth(t.baseUrl, '/oauth/token', params);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    const introspected = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: first.body.access_token as string,
      ...credentials(app),
    });
    expect(introspected.body).toEqual({ active: false });
    expect(await me(first.body.access_token as string)).toBe(401);
    const refresh = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token as string,
      ...credentials(app),
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('revokes nothing for a late replay with a wrong code_verifier [late code replay, PKCE]', async () => {
    const t0 = Date.parse('2026-08-02T09:00:00Z');
    setClock(t0);
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const params = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    };
    const first = await postOAuth(t.baseUrl, '/oauth/token', params);
    expect(first.status).toBe(200);
    setClock(t0 + 61_000);
    const replay = await postOAuth(t.baseUrl, '/oauth/token', { ...params, code_verifier: 'b'.repeat(43) });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    expect(await me(first.body.access_token as string)).toBe(200);
  });

  it('refuses an unused code after its lifetime without revoking anything [expired code]', async () => {
    const t0 = Date.parse('2026-08-03T09:00:00Z');
    setClock(t0);
    const browser = new TestBrowser(t.baseUrl);
    const earlier = await obtainCode(browser, app);
    const tokens = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code: earlier.code,
      redirect_uri: REDIRECT_URI,
      code_verifier: earlier.verifier,
      ...credentials(app),
    });
    expect(tokens.status).toBe(200);
    // A second code of the same session (same grant), left unused past its 60 s.
    const { code, verifier } = await obtainCode(browser, app);
    setClock(t0 + 61_000);
    const late = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    });
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    expect(await me(tokens.body.access_token as string)).toBe(200);
  });

  it('refuses a code issued to another client', async () => {
    const other = await createTestApplication(t.db, { name: 'Other' });
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(other),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('records the monthly active user and the connection with its scopes', async () => {
    const mau = await createTestApplication(t.db, { name: 'MAU Counter' });
    const config = await discoverClient(t.baseUrl, mau);
    await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people api', email: 'editor@demo.test' });
    const editor = await personId(t.db, 'editor@demo.test');
    const now = new Date();
    const { rows: months } = await t.db.query(
      'SELECT person_id::text, year, month FROM oauth_monthly_active_users WHERE application_id = $1',
      [mau.id],
    );
    expect(months).toEqual([{ person_id: editor, year: now.getUTCFullYear(), month: now.getUTCMonth() + 1 }]);
    const { rows: connections } = await t.db.query<{ person_id: string; scopes: string[]; organization_id: string }>(
      'SELECT person_id::text, organization_id::text, scopes FROM oauth_connections WHERE application_id = $1',
      [mau.id],
    );
    const { rows: org } = await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'");
    expect(connections).toEqual([{ person_id: editor, organization_id: org[0]!.id, scopes: ['people', 'api'] }]);
  });

  it('stores tokens and codes only as SHA-256 digests', async () => {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app);
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...credentials(app),
    });
    const dump = JSON.stringify((await t.db.query('SELECT * FROM oauth_provider_records')).rows);
    for (const secret of [code, res.body.access_token as string, res.body.refresh_token as string])
      expect(dump).not.toContain(secret);
    const { createHash } = await import('node:crypto');
    const digest = createHash('sha256')
      .update(res.body.access_token as string)
      .digest('hex');
    const { rows } = await t.db.query('SELECT model FROM oauth_provider_records WHERE id_digest = $1', [digest]);
    expect(rows).toEqual([{ model: 'AccessToken' }]);
  });
});
