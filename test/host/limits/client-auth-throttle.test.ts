import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { createTestApplication, type TestApplication } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;
beforeAll(async () => {
  t = await startHttpTestHost({ config: { trustProxy: 'loopback' } });
  app = await createTestApplication(t.db);
});
afterAll(() => t.close());
afterEach(() => void vi.useRealTimers());

function freezeClock(): (seconds: number) => void {
  vi.useFakeTimers({ toFake: ['Date'] });
  let now = Date.parse('2026-10-01T09:00:00Z');
  vi.setSystemTime(now);
  return (seconds) => {
    now += seconds * 1000;
    vi.setSystemTime(now);
  };
}

/** A token request (a bogus code) with client credentials by HTTP Basic, from `address`. */
async function tokenRequest(clientId: string, secret: string, address: string) {
  const res = await fetch(`${t.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'x-forwarded-for': address,
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: 'bogus',
      redirect_uri: 'https://client.example/callback',
    }).toString(),
  });
  return {
    status: res.status,
    retryAfter: res.headers.get('retry-after'),
    body: (await res.json()) as Record<string, unknown>,
  };
}

describe('POST /oauth/token [client authentication throttling]', () => {
  it('locks a client id and address pair for 5 minutes after 10 failed authentications', async () => {
    const advance = freezeClock();
    const address = '203.0.113.10';
    for (let i = 0; i < 10; i++) expect((await tokenRequest(app.clientId, 'wrong-secret', address)).status).toBe(401);
    const locked = await tokenRequest(app.clientId, app.clientSecret!, address);
    expect(locked).toEqual({
      status: 429,
      retryAfter: '300',
      body: {
        error: 'slow_down',
        error_description: 'Too many failed client authentications; try again in 300 seconds',
      },
    });
    // The right secret from the client's own address is untouched: nobody can lock an integration out.
    expect(await tokenRequest(app.clientId, app.clientSecret!, '198.51.100.10')).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
    advance(301);
    expect(await tokenRequest(app.clientId, app.clientSecret!, address)).toMatchObject({
      status: 400,
      body: { error: 'invalid_grant' },
    });
  });

  it('locks an address after 50 failed authentications across client ids', async () => {
    freezeClock();
    const address = '203.0.113.11';
    for (let i = 0; i < 50; i++) expect((await tokenRequest(`unknown-client-${i}`, 'x', address)).status).toBe(401);
    expect(await tokenRequest(app.clientId, app.clientSecret!, address)).toMatchObject({
      status: 429,
      retryAfter: '300',
    });
  });

  it('counts failures at /oauth/refresh and /oauth/introspect too', async () => {
    freezeClock();
    const address = '203.0.113.12';
    const post = (path: string, secret: string) =>
      fetch(`${t.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': address },
        body: new URLSearchParams({
          client_id: app.clientId,
          client_secret: secret,
          token: 'x',
          refresh_token: 'x',
        }).toString(),
      });
    for (let i = 0; i < 5; i++) expect((await post('/oauth/refresh', 'wrong')).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await post('/oauth/introspect', 'wrong')).status).toBe(401);
    const locked = await post('/oauth/revoke', app.clientSecret!);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('300');
  });
});

describe('personal access tokens [client authentication throttling]', () => {
  it('lock a token client id and address after 10 wrong secrets: 429 with Retry-After and the error envelope', async () => {
    const advance = freezeClock();
    const token = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'throttled');
    const me = (secret: string, address: string) =>
      fetch(`${t.baseUrl}/current/v2/me`, {
        headers: {
          authorization: `Basic ${Buffer.from(`${token.client_id}:${secret}`).toString('base64')}`,
          'user-agent': TEST_USER_AGENT,
          'x-forwarded-for': address,
        },
      });
    const address = '203.0.113.20';
    for (let i = 0; i < 10; i++) expect((await me('wrong', address)).status).toBe(401);
    const locked = await me(token.secret, address);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('300');
    expect(await locked.json()).toEqual({
      errors: [
        {
          status: '429',
          code: 'rate_limit_exceeded',
          title: 'Too Many Requests',
          detail: 'Too many failed authentications; try again in 300 seconds',
        },
      ],
    });
    expect((await me(token.secret, '198.51.100.20')).status).toBe(200);
    advance(301);
    expect((await me(token.secret, address)).status).toBe(200);
  });
});
