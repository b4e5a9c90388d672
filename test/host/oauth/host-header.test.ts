import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  credentials,
  discoverClient,
  obtainTokens,
  postOAuth,
  REDIRECT_URI,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { rawRequest, type RawResponse } from '../../support/raw-http.ts';

let t: HttpTestHost;
let app: TestApplication;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db);
});
afterAll(() => t.close());

/** Request headers claiming another host, directly and through proxy headers. */
const SPOOFS: Record<string, Record<string, string>> = {
  host: { host: 'evil.example' },
  'x-forwarded-host': { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  forwarded: {
    host: 'evil.example:8443',
    'x-forwarded-host': 'evil.example',
    'x-forwarded-proto': 'https',
    forwarded: 'host=evil.example;proto=https',
  },
};

/** Every absolute URL in a response's Location and body. */
function urlsIn(res: RawResponse): string[] {
  const location = typeof res.headers.location === 'string' ? [res.headers.location] : [];
  return [...location, ...(res.body.match(/https?:\/\/[^\s"'<>\\]+/g) ?? [])];
}

function expectOnlyOwnUrls(res: RawResponse): void {
  // A path-only Location stays on the origin the browser already trusts.
  const own = (u: string) =>
    u === t.baseUrl || u.startsWith(`${t.baseUrl}/`) || u.startsWith(REDIRECT_URI) || /^\/(?!\/)/.test(u);
  const foreign = urlsIn(res).filter((u) => !own(u));
  expect(foreign).toEqual([]);
  expect(JSON.stringify(res.headers) + res.body).not.toContain('evil.example');
}

describe('GET /.well-known/openid-configuration', () => {
  it.each(Object.keys(SPOOFS))('builds every endpoint URL from the configured base URL [%s]', async (spoof) => {
    const res = await rawRequest(t.baseUrl, { path: '/.well-known/openid-configuration', headers: SPOOFS[spoof]! });
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.body) as Record<string, unknown>;
    expect(doc.issuer).toBe(t.baseUrl);
    expect(doc.token_endpoint).toBe(`${t.baseUrl}/oauth/token`);
    expect(doc.authorization_endpoint).toBe(`${t.baseUrl}/oauth/authorize`);
    expect(doc.jwks_uri).toBe(`${t.baseUrl}/oauth/discovery/keys`);
    expectOnlyOwnUrls(res);
  });
});

describe('GET /oauth/authorize', () => {
  it.each(Object.keys(SPOOFS))(
    'redirects to the interaction, login, consent and the client on the base URL only [%s]',
    async (spoof) => {
      const jar = new Map<string, string>();
      const send = async (path: string, form?: Record<string, string>): Promise<RawResponse> => {
        const headers: Record<string, string> = {
          ...SPOOFS[spoof]!,
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        };
        if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
        const res = await rawRequest(t.baseUrl, {
          method: form ? 'POST' : 'GET',
          path,
          headers,
          ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        });
        for (const c of ([] as string[]).concat(res.headers['set-cookie'] ?? [])) {
          const [pair = ''] = c.split(';');
          jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
        }
        expectOnlyOwnUrls(res);
        return res;
      };
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'people',
        state: 's',
      });
      let res = await send(`/oauth/authorize?${query}`);
      const seen: string[] = [];
      for (let step = 0; step < 10 && !String(res.headers.location ?? '').startsWith(REDIRECT_URI); step++) {
        const location = res.headers.location;
        if (typeof location === 'string') {
          seen.push(`${res.status} ${location.replace(/\/[A-Za-z0-9_-]{20,}/g, '/…')}`);
          const target = new URL(location, t.baseUrl);
          res = await send(`${target.pathname}${target.search}`);
          continue;
        }
        const action = /<form method="post" action="([^"]+)"/.exec(res.body)?.[1];
        const csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
        expect(action, res.body.slice(0, 500)).toBeDefined();
        seen.push(`${res.status} form ${action!.replace(/\/[A-Za-z0-9_-]{20,}/g, '/…')}`);
        const fields: Record<string, string> = action!.endsWith('/login')
          ? { email: 'admin@demo.test', password: TEST_PASSWORD }
          : { decision: 'allow' };
        res = await send(action!, { _csrf: csrf!, ...fields });
      }
      const callback = new URL(String(res.headers.location));
      expect(callback.searchParams.get('iss')).toBe(t.baseUrl);
      expect(callback.searchParams.get('code')).toBeTruthy();
      // The walk went through the interaction, its login and consent forms and the resume redirects.
      expect(seen).toEqual(
        expect.arrayContaining([
          '303 /oauth/interaction/…',
          '200 form /oauth/interaction/…/login',
          '200 form /oauth/interaction/…/consent',
        ]),
      );
    },
  );
});

describe('POST /oauth/introspect', () => {
  it('answers {active:false} for an ID token, never 400', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), await discoverClient(t.baseUrl, app), {
      scope: 'openid people',
    });
    expect(tokens.id_token).toMatch(/^ey/);
    const res = await postOAuth(t.baseUrl, '/oauth/introspect', { token: tokens.id_token!, ...credentials(app) });
    expect(res.body).toEqual({ active: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it.each([['id_token'], ['unknown_hint'], ['access_token'], ['refresh_token']])(
    'answers {active:false} for an unknown token with token_type_hint=%s',
    async (hint) => {
      const res = await postOAuth(t.baseUrl, '/oauth/introspect', {
        token: 'x'.repeat(43),
        token_type_hint: hint,
        ...credentials(app),
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ active: false });
    },
  );
});

describe('paginated API links', () => {
  it('come from the base URL whatever the Host header says', async () => {
    const basic = await basicAuthFor(t.db, 'admin@demo.test');
    const res = await rawRequest(t.baseUrl, {
      path: '/people/v2/notes?per_page=1',
      headers: { ...SPOOFS.forwarded!, authorization: basic, 'user-agent': TEST_USER_AGENT },
    });
    expect(res.status).toBe(200);
    expectOnlyOwnUrls(res);
  });
});
