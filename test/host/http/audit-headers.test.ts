/**
 * Response headers the outside security audit found missing: HSTS on an https host, frame and referrer protection of
 * the OAuth `form_post` page (it carries a live code), and a referrer policy on the authorization error page and the
 * API reference.
 */
import { createHash } from 'node:crypto';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { createTestHost, type TestHost } from '../../support/host.ts';
import { createTestApplication, REDIRECT_URI, type TestApplication } from '../../support/oauth-flow.ts';

const PATHS = ['/health', '/login', '/docs', '/people/v2/notes', '/oauth/token', '/no/such/page'];

describe('Strict-Transport-Security', () => {
  let https: TestHost;
  let http: TestHost;
  beforeAll(async () => {
    [https, http] = await Promise.all([
      createTestHost({ config: { baseUrl: 'https://addon-kit.example' } }),
      createTestHost({ config: { baseUrl: 'http://localhost:4000' } }),
    ]);
  });
  afterAll(() => Promise.all([https.close(), http.close()]));

  it.each(PATHS)('is sent for a year when the base URL is https [%s]', async (path) => {
    const res = await supertest(https.host.app).get(path).set('User-Agent', TEST_USER_AGENT);
    expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it.each(PATHS)('is not sent when the base URL is plain http [%s]', async (path) => {
    const res = await supertest(http.host.app).get(path).set('User-Agent', TEST_USER_AGENT);
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('GET /oauth/authorize [pages the provider renders]', () => {
  let t: TestHost;
  let app: TestApplication;
  beforeAll(async () => {
    t = await createTestHost();
    app = await createTestApplication(t.db);
  });
  afterAll(() => t.close());

  it('keeps the form_post response page out of frames, sends no referrer and lets only its own script run', async () => {
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      response_mode: 'form_post',
      scope: 'people no_such_scope',
      state: 's1',
    });
    const res = await supertest(t.host.app).get(`/oauth/authorize?${query}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain(`<form method="post" action="${REDIRECT_URI}">`);
    expect(res.text).toContain('<input type="hidden" name="state" value="s1"/>');
    const script = /<script>([\s\S]*?)<\/script>/.exec(res.text)![1]!;
    const hash = createHash('sha256').update(script).digest('base64');
    expect({
      csp: res.headers['content-security-policy'],
      frame: res.headers['x-frame-options'],
      referrer: res.headers['referrer-policy'],
    }).toEqual({
      csp: `default-src 'none';script-src 'sha256-${hash}';frame-ancestors 'none';base-uri 'none'`,
      frame: 'DENY',
      referrer: 'no-referrer',
    });
  });

  it('gives the error page for an unknown client no referrer and no framing', async () => {
    const res = await supertest(t.host.app).get('/oauth/authorize?client_id=nobody&response_type=code&scope=people');
    expect(res.status).toBe(400);
    expect(res.text).toContain('Authorization failed');
    expect([res.headers['referrer-policy'], res.headers['x-frame-options']]).toEqual(['no-referrer', 'DENY']);
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe('GET /docs', () => {
  it('sends Referrer-Policy', async () => {
    const t = await createTestHost();
    try {
      const res = await supertest(t.host.app).get('/docs');
      expect([res.status, res.headers['referrer-policy']]).toEqual([200, 'same-origin']);
    } finally {
      await t.close();
    }
  });
});
