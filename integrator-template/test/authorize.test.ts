import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import {
  authorizeInBrowser,
  Browser,
  CLIENT_ID,
  createIntegratorTestDatabase,
  hiddenInputs,
  REDIRECT_URI,
  signIn,
  startTestIntegrator,
  USER,
  type TestIntegrator,
} from './support.ts';

const CHALLENGE = createHash('sha256').update('a'.repeat(43)).digest('base64url');

let store: { db: Database; drop(): Promise<void> };
let t: TestIntegrator;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  t = await startTestIntegrator(store.db);
});
afterAll(async () => {
  await t.close();
  await store.drop();
});

function authorizeUrl(params: Record<string, string | undefined> = {}): string {
  const base: Record<string, string | undefined> = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    state: 'st-123',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    scope: 'messages',
    ...params,
  };
  const url = new URL(`${t.url}/oauth/authorize`);
  for (const [k, v] of Object.entries(base)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

function errorRedirect(location: string | null) {
  const url = new URL(location!);
  return { target: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}

describe('GET /oauth/authorize', () => {
  it('redirects to the login page keeping the whole request [signed out]', async () => {
    const res = await new Browser().fetch(authorizeUrl());
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!, t.url);
    expect(location.pathname).toBe('/login');
    expect(location.searchParams.get('return_to')).toBe(authorizeUrl().slice(t.url.length));
  });

  it('shows a consent page naming the client and each scope [signed in]', async () => {
    const browser = new Browser();
    expect((await signIn(browser, t.url, USER)).status).toBe(303);
    const res = await browser.fetch(authorizeUrl());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    const html = await res.text();
    // The add-on and the host as the registered client names them, never as the request could.
    expect(html).toContain('<h1>Allow Test Add-on to use your account?</h1>');
    expect(html).toContain(
      '<p>The add-on <strong>Test Add-on</strong> in <strong>Test Platform</strong> asks to act for you on Template Integrator.</p>',
    );
    expect(html).toContain('Signed in as Alice Integrator.');
    expect(html).toContain(
      '<strong>messages</strong> — Send messages to people on your lists and read the messages you sent',
    );
    const fields = hiddenInputs(html);
    expect(Object.keys(fields).sort()).toEqual([
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'csrf_token',
      'redirect_uri',
      'response_type',
      'scope',
      'state',
    ]);
    expect(fields).toMatchObject({
      client_id: CLIENT_ID,
      redirect_uri: REDIRECT_URI,
      state: 'st-123',
      code_challenge: CHALLENGE,
      scope: 'messages',
    });
  });

  it('shows an error page and does not redirect [unknown client]', async () => {
    const res = await new Browser().fetch(authorizeUrl({ client_id: 'nobody' }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Unknown application');
  });

  it.each([
    ['trailing slash', `${REDIRECT_URI}/`],
    ['extra query', `${REDIRECT_URI}?x=1`],
    ['other host', 'http://evil.test/addons/authorizations/17'],
    ['missing', undefined],
  ])('shows an error page and does not redirect [redirect_uri %s]', async (_label, redirectUri) => {
    const res = await new Browser().fetch(authorizeUrl({ redirect_uri: redirectUri }));
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Invalid redirect URI');
  });

  it.each([
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request', 'code_challenge is required'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method must be S256'],
    ['no PKCE method', { code_challenge_method: undefined }, 'invalid_request', 'code_challenge_method must be S256'],
    ['malformed challenge', { code_challenge: 'short' }, 'invalid_request', 'code_challenge is not a S256 challenge'],
    ['implicit', { response_type: 'token' }, 'unsupported_response_type', 'only response_type=code is supported'],
    ['unknown scope', { scope: 'messages admin' }, 'invalid_scope', 'scope not allowed: admin'],
  ])('redirects back with an RFC 6749 error and the state [%s]', async (_label, params, error, description) => {
    const res = await new Browser().fetch(authorizeUrl(params));
    expect(res.status).toBe(302);
    expect(errorRedirect(res.headers.get('location'))).toEqual({
      target: REDIRECT_URI,
      params: { error, error_description: description, state: 'st-123' },
    });
  });

  it('refuses a repeated parameter [duplicate state]', async () => {
    const res = await new Browser().fetch(`${authorizeUrl()}&state=again`);
    expect(res.status).toBe(302);
    expect(errorRedirect(res.headers.get('location')).params).toEqual({
      error: 'invalid_request',
      error_description: 'state is repeated or malformed',
    });
  });
});

describe('POST /login', () => {
  it('refuses a wrong password with the form again [wrong password]', async () => {
    const res = await signIn(new Browser(), t.url, { username: USER.username, password: 'not-the-password' });
    expect(res.status).toBe(401);
    const html = await res.text();
    expect(html).toContain('Wrong username or password.');
    expect(html).toContain(`value="${USER.username}"`);
  });

  it('refuses a post without the CSRF token [no csrf]', async () => {
    const browser = new Browser();
    await browser.fetch(`${t.url}/login`);
    const res = await browser.post(`${t.url}/login`, {
      username: USER.username,
      password: USER.password,
      return_to: '/',
    });
    expect(res.status).toBe(403);
  });

  it('returns only to a path on this server [absolute return_to]', async () => {
    const res = await signIn(new Browser(), t.url, USER, '//evil.test/x');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
  });

  it('sets its own session cookie, HttpOnly and SameSite=Lax [success]', async () => {
    const browser = new Browser();
    const page = await browser.fetch(`${t.url}/login`);
    const fields = hiddenInputs(await page.text());
    const res = await browser.post(`${t.url}/login`, { ...fields, username: USER.username, password: USER.password });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie()[0]!;
    expect(cookie).toMatch(/^integrator_session=/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
  });
});

describe('POST /logout', () => {
  it('ends the session so authorize asks for a login again [signed in]', async () => {
    const browser = new Browser();
    await signIn(browser, t.url, USER);
    const consent = await browser.fetch(authorizeUrl());
    const { csrf_token } = hiddenInputs(await consent.text());
    const out = await browser.post(`${t.url}/logout`, { csrf_token: csrf_token! });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    const again = await browser.fetch(authorizeUrl());
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!, t.url).pathname).toBe('/login');
  });

  it('refuses a logout without the CSRF token [cross-site post]', async () => {
    const browser = new Browser();
    await signIn(browser, t.url, USER);
    expect((await browser.post(`${t.url}/logout`, {})).status).toBe(403);
    expect((await browser.fetch(authorizeUrl())).status).toBe(200);
  });
});

describe('POST /oauth/authorize', () => {
  it('redirects back with a single code and the state, storing only its digest [allow]', async () => {
    const back = await authorizeInBrowser(new Browser(), authorizeUrl());
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect([...back.searchParams.keys()].sort()).toEqual(['code', 'state']);
    expect(back.searchParams.get('state')).toBe('st-123');
    const code = back.searchParams.get('code')!;
    const { rows } = await t.db.query<Record<string, unknown>>(
      `SELECT c.client_id, c.redirect_uri, c.code_challenge, c.scope, u.username, c.used_at,
              extract(epoch FROM c.expires_at - c.created_at)::int AS ttl
         FROM authorization_codes c JOIN users u ON u.id = c.user_id WHERE c.code_hash = $1`,
      [createHash('sha256').update(code).digest('hex')],
    );
    expect(rows).toEqual([
      {
        client_id: CLIENT_ID,
        redirect_uri: REDIRECT_URI,
        code_challenge: CHALLENGE,
        scope: 'messages',
        username: 'alice',
        used_at: null,
        ttl: 60,
      },
    ]);
    const plain = await t.db.query(
      "SELECT 1 FROM authorization_codes WHERE code_hash = $1 OR redirect_uri LIKE '%' || $1 || '%'",
      [code],
    );
    expect(plain.rows).toEqual([]);
  });

  it('returns the state byte for byte [state with markup and quotes]', async () => {
    const state = `a"b'<script>&x=1 é`;
    const back = await authorizeInBrowser(new Browser(), authorizeUrl({ state }));
    expect(back.searchParams.get('state')).toBe(state);
  });

  it('redirects back with access_denied and the state [deny]', async () => {
    const back = await authorizeInBrowser(new Browser(), authorizeUrl(), USER, 'deny');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'the user denied the request',
      state: 'st-123',
    });
  });

  it('refuses a decision without the CSRF token [no csrf]', async () => {
    const browser = new Browser();
    await signIn(browser, t.url, USER);
    const page = await browser.fetch(authorizeUrl());
    const { csrf_token: _csrf, ...fields } = hiddenInputs(await page.text());
    const res = await browser.post(`${t.url}/oauth/authorize`, { ...fields, decision: 'allow' });
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });

  it('checks the posted fields again [redirect_uri swapped in the form]', async () => {
    const browser = new Browser();
    await signIn(browser, t.url, USER);
    const page = await browser.fetch(authorizeUrl());
    const fields = hiddenInputs(await page.text());
    const res = await browser.post(`${t.url}/oauth/authorize`, {
      ...fields,
      redirect_uri: 'http://evil.test/cb',
      decision: 'allow',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('asks for a decision [neither allow nor deny]', async () => {
    const browser = new Browser();
    await signIn(browser, t.url, USER);
    const page = await browser.fetch(authorizeUrl());
    const res = await browser.post(`${t.url}/oauth/authorize`, {
      ...hiddenInputs(await page.text()),
      decision: 'maybe',
    });
    expect(res.status).toBe(400);
  });
});
