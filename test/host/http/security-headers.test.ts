import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { createTestHost, type TestHost } from '../../support/host.ts';
import { createTestApplication, REDIRECT_URI, type TestApplication } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { rawRequest } from '../../support/raw-http.ts';

/** The Set-Cookie headers of a supertest response. */
const setCookies = (res: supertest.Response): string[] => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const cookieHeader = (cookies: Map<string, string>) => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
function keep(cookies: Map<string, string>, res: supertest.Response): void {
  for (const c of setCookies(res)) {
    const pair = c.split(';')[0]!;
    cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
  }
}
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

describe('cookies [https base URL]', () => {
  let t: TestHost;
  let app: TestApplication;
  beforeAll(async () => {
    // Plain HTTP in the test, as behind a TLS-terminating proxy: the base URL says https.
    t = await createTestHost({ config: { baseUrl: 'https://addon-kit.example' } });
    app = await createTestApplication(t.db);
  });
  afterAll(() => t.close());

  it('are all Secure, HttpOnly and SameSite=Lax, the OAuth library’s interaction, resume and session cookies included', async () => {
    const seen = new Map<string, string>();
    const cookies = new Map<string, string>();
    const agent = supertest(t.host.app);
    const collect = (res: supertest.Response) => {
      for (const c of setCookies(res)) seen.set(`${c.split('=')[0]}${c.includes('.sig=') ? '.sig' : ''}`, c);
      keep(cookies, res);
      return res;
    };
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'people',
      state: 's',
    });
    let res = collect(await agent.get(`/oauth/authorize?${query}`));
    expect(res.status).toBe(303);
    for (let step = 0; step < 8 && !String(res.headers.location).startsWith(REDIRECT_URI); step++) {
      if (res.headers.location) {
        res = collect(
          await agent
            .get(new URL(res.headers.location, 'https://addon-kit.example').pathname)
            .set('Cookie', cookieHeader(cookies)),
        );
        continue;
      }
      const action = /<form method="post" action="([^"]+)"/.exec(res.text)![1]!;
      const fields: Record<string, string> = action.endsWith('/login')
        ? { email: 'admin@demo.test', password: TEST_PASSWORD }
        : { decision: 'allow' };
      res = collect(
        await agent
          .post(action)
          .type('form')
          .set('Cookie', cookieHeader(cookies))
          .send({ _csrf: csrfOf(res.text), ...fields }),
      );
    }
    expect(String(res.headers.location)).toMatch(/^https:\/\/client\.example\/callback\?code=/);
    expect([...seen.keys()].map((k) => k.replace(/\.sig$/, '')).sort()).toEqual(
      expect.arrayContaining([
        'addon_kit_interaction',
        'addon_kit_interaction_resume',
        'addon_kit_op_session',
        'addon_kit_session',
      ]),
    );
    for (const [name, cookie] of seen) {
      expect(cookie, name).toMatch(/; secure/i);
      expect(cookie, name).toMatch(/; httponly/i);
      expect(cookie, name).toMatch(/; samesite=lax/i);
    }
  });
});

describe('cookies [http base URL]', () => {
  it('are not Secure on a plain-HTTP development host (a browser would drop them)', async () => {
    const t = await createTestHost();
    try {
      const res = await supertest(t.host.app).get('/login');
      expect(setCookies(res)).toHaveLength(1);
      expect(setCookies(res)[0]).not.toMatch(/; secure/i);
    } finally {
      await t.close();
    }
  });
});

describe('response headers', () => {
  let t: HttpTestHost;
  let app: TestApplication;
  beforeAll(async () => {
    t = await startHttpTestHost();
    app = await createTestApplication(t.db, { redirectUris: [REDIRECT_URI, 'com.example.app:/callback'] });
  });
  afterAll(() => t.close());

  it.each([
    ['GET', '/health'],
    ['GET', '/login'],
    ['GET', '/docs'],
    ['GET', '/api/v2/open_api'],
    ['GET', '/.well-known/openid-configuration'],
    ['GET', '/oauth/discovery/keys'],
    ['POST', '/oauth/token'],
    ['GET', '/people/v2/notes'],
    ['GET', '/current/v2/me'],
    ['GET', '/addons/installations'],
    ['GET', '/developer'],
    ['GET', '/no/such/page'],
    ['GET', '/people/v2/%'],
  ])('carry X-Content-Type-Options: nosniff [%s %s]', async (method, path) => {
    const res = await rawRequest(t.baseUrl, { method, path, headers: { 'user-agent': TEST_USER_AGENT } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('give the sign-in page a CSP whose form-action is the host itself', async () => {
    const res = await rawRequest(t.baseUrl, { path: '/login' });
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
  });

  it('let the OAuth login and consent forms go on to the client’s redirect URIs, and nowhere else', async () => {
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'people',
      state: 's',
    });
    const cookies = new Map<string, string>();
    const agent = supertest(t.host.app);
    const start = await agent.get(`/oauth/authorize?${query}`);
    keep(cookies, start);
    const pathOf = (location: string | undefined) => {
      const url = new URL(location!, t.baseUrl);
      return `${url.pathname}${url.search}`;
    };
    const login = await agent.get(pathOf(start.headers.location)).set('Cookie', cookieHeader(cookies));
    keep(cookies, login);
    const policy =
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self' https://client.example com.example.app:; frame-ancestors 'none'; base-uri 'none'";
    expect(login.status).toBe(200);
    expect(login.headers['content-security-policy']).toBe(policy);
    const action = /<form method="post" action="([^"]+)"/.exec(login.text)![1]!;
    const loggedIn = await agent
      .post(action)
      .type('form')
      .set('Cookie', cookieHeader(cookies))
      .send({ _csrf: csrfOf(login.text), email: 'admin@demo.test', password: TEST_PASSWORD });
    keep(cookies, loggedIn);
    const resume = await agent.get(pathOf(loggedIn.headers.location)).set('Cookie', cookieHeader(cookies));
    keep(cookies, resume);
    const consent = await agent.get(pathOf(resume.headers.location)).set('Cookie', cookieHeader(cookies));
    expect(consent.text).toContain('Authorize Sample Integration');
    expect(consent.headers['content-security-policy']).toBe(policy);
  });

  it('give the API reference page a CSP (its own scripts only, no inline script or eval) and frame protection', async () => {
    const res = await rawRequest(t.baseUrl, { path: '/docs' });
    expect(res.status).toBe(200);
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});
