import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personId } from '../../support/host.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { parseForms, TestBrowser } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  discoverClient,
  obtainCode,
  obtainTokens,
  pageKind,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;
let config: client.Configuration;
let adminId: string;
let orgId: string;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db);
  config = await discoverClient(t.baseUrl, app);
  adminId = await personId(t.db, 'admin@demo.test');
  orgId = (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
});
afterAll(() => t.close());

describe('ID token', () => {
  it('is RS256 with a kid of the JWKS and carries exactly the spec claims', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, {
      scope: 'openid people',
      nonce: 'nonce-abc',
    });
    const jwks = createRemoteJWKSet(new URL(`${t.baseUrl}/oauth/discovery/keys`));
    const { payload, protectedHeader } = await jwtVerify(tokens.id_token!, jwks, {
      issuer: t.baseUrl,
      audience: app.clientId,
      algorithms: ['RS256'],
    });
    const { keys } = (await (await fetch(`${t.baseUrl}/oauth/discovery/keys`)).json()) as { keys: { kid: string }[] };
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: keys[0]!.kid });
    expect(decodeProtectedHeader(tokens.id_token!).kid).toBe(keys[0]!.kid);
    expect(payload).toEqual({
      iss: t.baseUrl,
      sub: adminId,
      aud: app.clientId,
      name: 'Alex Admin',
      email: 'admin@demo.test',
      organization_id: orgId,
      organization_name: 'Demo Church',
      nonce: 'nonce-abc',
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('fails verification when tampered with [signature]', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'openid' });
    const [h, p, s] = tokens.id_token!.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: '999' })).toString('base64url')}.${s}`;
    const jwks = createRemoteJWKSet(new URL(`${t.baseUrl}/oauth/discovery/keys`));
    await expect(jwtVerify(forged, jwks)).rejects.toThrow('signature verification failed');
  });

  it('is checked by openid-client against the nonce [nonce]', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'openid', nonce: 'n-2' });
    expect(tokens.claims()?.nonce).toBe('n-2');
  });

  it('has no nonce when none was sent', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'openid' });
    expect(tokens.claims()).not.toHaveProperty('nonce');
  });

  it('is not issued without the openid scope', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    expect(tokens).not.toHaveProperty('id_token');
  });
});

describe('GET /oauth/userinfo', () => {
  it('returns exactly sub, name, email, organization_id, organization_name [GET]', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'openid people' });
    const res = await fetch(`${t.baseUrl}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      sub: adminId,
      name: 'Alex Admin',
      email: 'admin@demo.test',
      organization_id: orgId,
      organization_name: 'Demo Church',
    });
  });

  it('answers the same through openid-client and by POST [POST]', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'openid' });
    const info = await client.fetchUserInfo(config, tokens.access_token, adminId);
    expect(info).toEqual({
      sub: adminId,
      name: 'Alex Admin',
      email: 'admin@demo.test',
      organization_id: orgId,
      organization_name: 'Demo Church',
    });
    const res = await fetch(`${t.baseUrl}/oauth/userinfo`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(info);
  });

  it('answers 401 invalid_token for an unknown token', async () => {
    const res = await fetch(`${t.baseUrl}/oauth/userinfo`, { headers: { authorization: `Bearer ${'z'.repeat(43)}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'invalid token provided' });
  });
});

describe('GET /oauth/authorize [prompt]', () => {
  it('asks for the password again with prompt=login although the person is logged in [prompt=login]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    await obtainCode(browser, app);
    // Logged in and consented now: a second authorization shows no page at all…
    const kinds: string[] = [];
    await obtainCode(browser, app, { onPage: (_p, kind) => void kinds.push(kind) });
    expect(kinds).toEqual([]);
    // …but prompt=login shows the login page again.
    const forced: string[] = [];
    let heading = '';
    await obtainCode(browser, app, {
      extra: { prompt: 'login' },
      onPage: (page, kind) => {
        forced.push(kind);
        if (kind === 'login') heading = /<h1>([^<]*)<\/h1>/.exec(page.body)?.[1] ?? '';
      },
    });
    expect(forced[0]).toBe('login');
    expect(heading).toBe('Log in again');
  });

  it('updates auth_time after prompt=login', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const tokens = await obtainTokens(browser, config, { scope: 'openid', extra: { prompt: 'login', max_age: '600' } });
    expect(typeof tokens.claims()?.auth_time).toBe('number');
  });

  it('shows an account chooser with prompt=select_account and continues as the chosen person [select_account]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    await obtainCode(browser, app, { email: 'editor@demo.test' });
    const kinds: string[] = [];
    let chooser = '';
    const tokens = await obtainTokens(browser, config, {
      scope: 'openid',
      extra: { prompt: 'select_account' },
      onPage: (page, kind) => {
        kinds.push(kind);
        if (kind === 'chooser') chooser = page.body;
      },
    });
    expect(kinds[0]).toBe('chooser');
    expect(chooser).toContain('Continue as Eden Editor (editor@demo.test)');
    expect(tokens.claims()?.email).toBe('editor@demo.test');
  });

  it('lets the chooser switch to another account [select_account other]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    await obtainCode(browser, app, { email: 'editor@demo.test' });
    const tokens = await obtainTokens(browser, config, {
      scope: 'openid',
      extra: { prompt: 'select_account' },
      chooser: 'other',
      email: 'member@demo.test',
    });
    expect(tokens.claims()?.email).toBe('member@demo.test');
  });

  it('asks for a login again after the person logged out of the host [host session]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    await obtainCode(browser, app);
    const csrf = parseForms((await browser.request('/login')).body)[0]!.fields._csrf!;
    expect((await browser.request('/logout', { form: { _csrf: csrf } })).status).toBe(303);
    const kinds: string[] = [];
    await obtainCode(browser, app, { onPage: (_p, kind) => void kinds.push(kind) });
    expect(kinds[0]).toBe('login');
  });

  it('follows a change of the person logged in to the host [host session]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    await obtainCode(browser, app);
    const login = await browser.request('/login');
    expect((await browser.submit(login, { email: 'member@demo.test', password: TEST_PASSWORD })).status).toBe(303);
    const kinds: string[] = [];
    const tokens = await obtainTokens(browser, config, {
      scope: 'openid',
      onPage: (_p, kind) => void kinds.push(kind),
    });
    expect(kinds).toEqual(['consent']);
    expect(tokens.claims()?.email).toBe('member@demo.test');
  });

  it('answers login_required to prompt=none without a session [prompt=none]', async () => {
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: 'https://client.example/callback',
      scope: 'openid',
      prompt: 'none',
      state: 's',
    });
    const res = await new TestBrowser(t.baseUrl).follow(url.href);
    expect(res.location).toBeDefined();
    expect(new URL(res.location!).searchParams.get('error')).toBe('login_required');
    expect(pageKind(res)).toBeUndefined();
  });
});
