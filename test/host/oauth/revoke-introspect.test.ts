import * as client from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  credentials,
  discoverClient,
  obtainTokens,
  postOAuth,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;
let other: TestApplication;
let config: client.Configuration;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db);
  other = await createTestApplication(t.db, { name: 'Other' });
  config = await discoverClient(t.baseUrl, app);
});
afterAll(() => t.close());
afterEach(() => void vi.useRealTimers());

async function me(accessToken: string): Promise<number> {
  return (
    await fetch(`${t.baseUrl}/current/v2/me`, {
      headers: { authorization: `Bearer ${accessToken}`, 'user-agent': TEST_USER_AGENT },
    })
  ).status;
}
const fresh = () => obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people api' });
const introspect = (token: string, as: TestApplication = app) =>
  postOAuth(t.baseUrl, '/oauth/introspect', { token, ...credentials(as) });
const revoke = (token: string, hint?: string, as: TestApplication = app) =>
  postOAuth(t.baseUrl, '/oauth/revoke', { token, ...(hint ? { token_type_hint: hint } : {}), ...credentials(as) });

describe('POST /oauth/introspect', () => {
  it('answers exactly the spec fields for an active access token', async () => {
    const tokens = await fresh();
    const res = await introspect(tokens.access_token);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      active: true,
      scope: 'people api',
      client_id: app.clientId,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
    });
    expect((res.body.exp as number) - (res.body.iat as number)).toBe(7200);
  });

  it('answers the same fields for an active refresh token', async () => {
    const tokens = await fresh();
    const res = await introspect(tokens.refresh_token!);
    expect(res.body).toEqual({
      active: true,
      scope: 'people api',
      client_id: app.clientId,
      token_type: 'Bearer',
      exp: expect.any(Number),
      iat: expect.any(Number),
    });
    expect((res.body.exp as number) - (res.body.iat as number)).toBe(90 * 86400);
  });

  it('answers exactly {active:false} for a refresh token right after its rotation [rotated]', async () => {
    // Frozen clock: the introspection falls within the grace period for concurrent refreshes.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-09-01T09:00:00Z'));
    const tokens = await fresh();
    const rotated = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      ...credentials(app),
    });
    expect(rotated.status).toBe(200);
    const res = await introspect(tokens.refresh_token!);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
    // Introspection is no reuse: the new pair keeps working.
    expect((await introspect(rotated.body.refresh_token as string)).body.active).toBe(true);
    expect(await me(rotated.body.access_token as string)).toBe(200);
  });

  it('works through openid-client', async () => {
    const tokens = await fresh();
    const result = await client.tokenIntrospection(config, tokens.access_token);
    expect(result.active).toBe(true);
    expect(result.client_id).toBe(app.clientId);
  });

  it('answers exactly {active:false} for an unknown token', async () => {
    const res = await introspect('x'.repeat(43));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ active: false });
  });

  it('answers {active:false} to another client [isolation]', async () => {
    const tokens = await fresh();
    expect((await introspect(tokens.access_token, other)).body).toEqual({ active: false });
  });

  it('needs client authentication', async () => {
    const tokens = await fresh();
    const res = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: tokens.access_token,
      client_id: app.clientId,
      client_secret: 'wrong',
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });

  it('accepts a JSON body', async () => {
    const tokens = await fresh();
    const res = await postOAuth(
      t.baseUrl,
      '/oauth/introspect',
      { token: tokens.access_token, ...credentials(app) },
      { json: true },
    );
    expect(res.body.active).toBe(true);
  });
});

describe('POST /oauth/revoke', () => {
  it('revokes an access token: 200 {}, inactive, refused on the very next API request [access_token]', async () => {
    const tokens = await fresh();
    expect(await me(tokens.access_token)).toBe(200);
    const res = await revoke(tokens.access_token, 'access_token');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await me(tokens.access_token)).toBe(401);
    expect((await introspect(tokens.access_token)).body).toEqual({ active: false });
    // oidc-provider ends the tokens of the whole grant (RFC 7009 §2.1 allows it): the refresh token too.
    expect((await introspect(tokens.refresh_token!)).body).toEqual({ active: false });
  });

  it('revokes a refresh token and its access token with it [refresh_token cascade]', async () => {
    const tokens = await fresh();
    const res = await revoke(tokens.refresh_token!, 'refresh_token');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expect((await introspect(tokens.refresh_token!)).body).toEqual({ active: false });
    expect((await introspect(tokens.access_token)).body).toEqual({ active: false });
    expect(await me(tokens.access_token)).toBe(401);
    const refresh = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      ...credentials(app),
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('revokes a refresh token sent without a hint, and through openid-client', async () => {
    const tokens = await fresh();
    await client.tokenRevocation(config, tokens.refresh_token!);
    expect((await introspect(tokens.refresh_token!)).body).toEqual({ active: false });
    const again = await fresh();
    expect((await revoke(again.refresh_token!)).body).toEqual({});
    expect(await me(again.access_token)).toBe(401);
  });

  it('answers 200 {} for an unknown or already revoked token', async () => {
    expect(await revoke('y'.repeat(43))).toMatchObject({ status: 200, body: {} });
    const tokens = await fresh();
    await revoke(tokens.access_token);
    expect(await revoke(tokens.access_token)).toMatchObject({ status: 200, body: {} });
  });

  it('answers 200 {} but revokes nothing for another client’s token [isolation]', async () => {
    const tokens = await fresh();
    expect(await revoke(tokens.access_token, 'access_token', other)).toMatchObject({ status: 200, body: {} });
    expect(await me(tokens.access_token)).toBe(200);
  });

  it('needs the client credentials', async () => {
    const tokens = await fresh();
    const missing = await postOAuth(t.baseUrl, '/oauth/revoke', {
      token: tokens.access_token,
      client_id: app.clientId,
    });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toBe('invalid_client');
    const wrong = await postOAuth(t.baseUrl, '/oauth/revoke', {
      token: tokens.access_token,
      client_id: app.clientId,
      client_secret: 'nope',
    });
    expect(wrong.status).toBe(401);
    expect(await me(tokens.access_token)).toBe(200);
  });

  it('accepts JSON and HTTP Basic', async () => {
    const tokens = await fresh();
    const res = await postOAuth(
      t.baseUrl,
      '/oauth/revoke',
      { token: tokens.access_token },
      { json: true, basic: { id: app.clientId, secret: app.clientSecret! } },
    );
    expect(res).toMatchObject({ status: 200, body: {} });
    expect(await me(tokens.access_token)).toBe(401);
  });
});
