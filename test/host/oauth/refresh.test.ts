import * as client from 'openid-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordDigest, REFRESH_CONCURRENCY_GRACE_SECONDS } from '#host/oauth/provider-records/index.ts';
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
let config: client.Configuration;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db);
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

/** The grant a refresh token belongs to, from the store. */
async function grantOf(refreshToken: string): Promise<string> {
  const { rows } = await t.db.query<{ grant_id: string }>(
    "SELECT grant_id FROM oauth_provider_records WHERE model = 'RefreshToken' AND id_digest = $1",
    [recordDigest(refreshToken)],
  );
  return rows[0]!.grant_id;
}

const refreshParams = (refreshToken: string) => ({
  grant_type: 'refresh_token',
  refresh_token: refreshToken,
  ...credentials(app),
});

/** Freezes the clock at `at` (Date only: timers and I/O run normally). */
function setClock(at: number): void {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
}

describe('POST /oauth/token [refresh_token]', () => {
  it('rotates the refresh token through openid-client and the new pair works', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'openid people', nonce: 'n-1' });
    const second = await client.refreshTokenGrant(config, first.refresh_token!);
    expect(second.token_type).toBe('bearer');
    expect(second.expires_in).toBe(7200);
    expect(second.scope).toBe('openid people');
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.claims()?.sub).toBe(first.claims()?.sub);
    expect(await me(second.access_token)).toBe(200);
    const third = await client.refreshTokenGrant(config, second.refresh_token!);
    expect(await me(third.access_token)).toBe(200);
  });

  it('answers the spec refresh response with Cache-Control: no-store', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const res = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!), { json: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'bearer',
      expires_in: 7200,
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      scope: 'people',
      created_at: expect.any(Number),
    });
  });

  it('revokes the whole grant when a rotated refresh token is reused [reuse]', async () => {
    const t0 = Date.parse('2026-02-01T09:00:00Z');
    setClock(t0);
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const second = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(second.status).toBe(200);
    // Past the grace period for concurrent duplicates.
    setClock(t0 + (REFRESH_CONCURRENCY_GRACE_SECONDS + 1) * 1000);
    const reuse = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(reuse.status).toBe(400);
    expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    // The legitimate-looking newer pair dies with the grant.
    expect(await me(second.body.access_token as string)).toBe(401);
    const next = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(second.body.refresh_token as string));
    expect(next.status).toBe(400);
    expect(next.body.error).toBe('invalid_grant');
  });

  it('answers a duplicate within the grace period with the same tokens, without revoking the grant [retry]', async () => {
    const t0 = Date.parse('2026-02-02T09:00:00Z');
    setClock(t0);
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const second = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(second.status).toBe(200);
    setClock(t0 + (REFRESH_CONCURRENCY_GRACE_SECONDS - 1) * 1000);
    const duplicate = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!), { json: true });
    expect(duplicate.status).toBe(200);
    expect(duplicate.headers.get('cache-control')).toBe('no-store');
    expect(duplicate.body).toEqual(second.body);
    expect(await me(second.body.access_token as string)).toBe(200);
    const next = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(second.body.refresh_token as string));
    expect(next.status).toBe(200);
  });

  it('keeps the answer for a duplicate sealed, not in clear, on the consumed refresh token [at rest]', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const second = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    const { rows } = await t.db.query<{ replay_sealed: string }>(
      "SELECT replay_sealed FROM oauth_provider_records WHERE model = 'RefreshToken' AND id_digest = $1",
      [recordDigest(first.refresh_token!)],
    );
    expect(rows[0]!.replay_sealed).toMatch(/^v1\.rt\./);
    expect(rows[0]!.replay_sealed).not.toContain(second.body.access_token as string);
    expect(rows[0]!.replay_sealed).not.toContain(second.body.refresh_token as string);
  });

  it('refuses a duplicate within the grace period from another client [retry, client mismatch]', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const second = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(second.status).toBe(200);
    const other = await createTestApplication(t.db, { name: 'Other duplicate' });
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      ...credentials(other),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    expect(await me(second.body.access_token as string)).toBe(200);
  });

  it('gives concurrent refreshes with one token one rotation, and every one of them its tokens [concurrent]', async () => {
    for (let round = 0; round < 3; round++) {
      const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
      const results = await Promise.all(
        Array.from({ length: 5 }, () => postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!))),
      );
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(new Set(results.map((r) => JSON.stringify(r.body))).size).toBe(1);
      const { rows } = await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM oauth_provider_records WHERE model = 'RefreshToken' AND grant_id = $1",
        [await grantOf(first.refresh_token!)],
      );
      expect(rows[0]!.n).toBe(2);
      // The shared tokens keep working.
      expect(await me(results[0]!.body.access_token as string)).toBe(200);
      const after = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(results[0]!.body.refresh_token as string));
      expect(after.status).toBe(200);
    }
  });

  it('revokes the whole grant when a rotated refresh token is presented after its own expiry [late reuse]', async () => {
    const t0 = Date.parse('2026-08-01T08:00:00Z');
    setClock(t0);
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    // Rotated an hour before the first refresh token's 90 days end: the new pair outlives it.
    setClock(t0 + 90 * DAY - HOUR);
    const second = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(second.status).toBe(200);
    setClock(t0 + 90 * DAY + 60_000);
    expect(await me(second.body.access_token as string)).toBe(200);
    const late = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
    expect(await me(second.body.access_token as string)).toBe(401);
    const introspected = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: second.body.refresh_token as string,
      ...credentials(app),
    });
    expect(introspected.body).toEqual({ active: false });
    const next = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(second.body.refresh_token as string));
    expect(next.status).toBe(400);
    expect(next.body.error).toBe('invalid_grant');
  });

  it('revokes nothing when an unused refresh token is presented after its expiry [expired, unused]', async () => {
    const t0 = Date.parse('2026-09-01T08:00:00Z');
    setClock(t0);
    const browser = new TestBrowser(t.baseUrl);
    const first = await obtainTokens(browser, config, { scope: 'people' });
    setClock(t0 + 90 * DAY + 60_000);
    const late = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(late.status).toBe(400);
    expect(await grantOf(first.refresh_token!)).toEqual(expect.any(String));
  });

  it('refuses a refresh token of another client', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const other = await createTestApplication(t.db, { name: 'Other' });
    const res = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      ...credentials(other),
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('expires access tokens after 2 hours while the refresh token still works [clock]', async () => {
    const t0 = Date.parse('2026-03-01T10:00:00Z');
    setClock(t0);
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    expect(first.expires_in).toBe(7200);
    setClock(t0 + 2 * HOUR - 30_000);
    expect(await me(first.access_token)).toBe(200);
    setClock(t0 + 2 * HOUR + 1000);
    expect(await me(first.access_token)).toBe(401);
    const introspected = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: first.access_token,
      ...credentials(app),
    });
    expect(introspected.body).toEqual({ active: false });
    const refreshed = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.created_at).toBe(Math.floor((t0 + 2 * HOUR + 1000) / 1000));
    expect(await me(refreshed.body.access_token as string)).toBe(200);
  });

  it('honours a refresh token up to 90 days after its access token was issued, not after [clock]', async () => {
    const t0 = Date.parse('2026-04-01T08:00:00Z');
    setClock(t0);
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    // Refreshed at day 89: works, and starts a new 90-day window from the new access token.
    setClock(t0 + 89 * DAY);
    const second = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(second.status).toBe(200);
    // Day 89 + 89 = 178 days after the first login: the chain still holds.
    setClock(t0 + 178 * DAY);
    const third = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(second.body.refresh_token as string));
    expect(third.status).toBe(200);
    // 90 days and a minute after the third pair was issued: the user must re-authorize.
    setClock(t0 + 178 * DAY + 90 * DAY + 60_000);
    const late = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(third.body.refresh_token as string));
    expect(late.status).toBe(400);
    expect(late.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('honours the refresh token of a later authorization in the same session 90 days after its issue [grant reuse]', async () => {
    const t0 = Date.parse('2026-07-01T08:00:00Z');
    setClock(t0);
    const browser = new TestBrowser(t.baseUrl);
    const first = await obtainTokens(browser, config, { scope: 'people' });
    setClock(t0 + 10 * DAY);
    const second = await obtainTokens(browser, config, { scope: 'people' });
    // oidc-provider reuses the grant of the session and client: the case under test.
    expect(await grantOf(second.refresh_token!)).toBe(await grantOf(first.refresh_token!));
    setClock(t0 + 91 * DAY);
    const refreshed = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(second.refresh_token!));
    expect(refreshed.status).toBe(200);
    expect(await me(refreshed.body.access_token as string)).toBe(200);
  });

  it('honours the refresh token issued after a re-consent 90 days after its issue [grant reuse + consent]', async () => {
    const t0 = Date.parse('2026-07-10T08:00:00Z');
    setClock(t0);
    const browser = new TestBrowser(t.baseUrl);
    const first = await obtainTokens(browser, config, { scope: 'people' });
    setClock(t0 + 10 * DAY);
    const pages: string[] = [];
    const second = await obtainTokens(browser, config, {
      scope: 'people api',
      onPage: (_page, kind) => void pages.push(kind),
    });
    // The host login has lapsed by day 10 (a login page first); the grant gains a scope, so consent is asked.
    expect(pages).toEqual(['login', 'consent']);
    expect(await grantOf(second.refresh_token!)).toBe(await grantOf(first.refresh_token!));
    setClock(t0 + 91 * DAY);
    const refreshed = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(second.refresh_token!));
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('people api');
    // The first pair's refresh token is past its own 90 days.
    const old = await postOAuth(t.baseUrl, '/oauth/token', refreshParams(first.refresh_token!));
    expect(old.status).toBe(400);
    expect(old.body).toEqual({ error: 'invalid_grant', error_description: 'grant request is invalid' });
  });

  it('records a monthly active user for each month a token is issued [clock]', async () => {
    const counted = await createTestApplication(t.db, { name: 'Monthly' });
    const countedConfig = await discoverClient(t.baseUrl, counted);
    setClock(Date.parse('2026-05-30T12:00:00Z'));
    const first = await obtainTokens(new TestBrowser(t.baseUrl), countedConfig, { scope: 'people' });
    setClock(Date.parse('2026-06-02T12:00:00Z'));
    await client.refreshTokenGrant(countedConfig, first.refresh_token!);
    const { rows } = await t.db.query(
      'SELECT year, month FROM oauth_monthly_active_users WHERE application_id = $1 ORDER BY year, month',
      [counted.id],
    );
    expect(rows).toEqual([
      { year: 2026, month: 5 },
      { year: 2026, month: 6 },
    ]);
  });
});

describe('POST /oauth/refresh', () => {
  it('is a refresh_token grant without grant_type [form]', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const res = await postOAuth(t.baseUrl, '/oauth/refresh', {
      refresh_token: first.refresh_token!,
      ...credentials(app),
    });
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('bearer');
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
  });

  it('accepts JSON and HTTP Basic [JSON + Basic]', async () => {
    const first = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const res = await postOAuth(
      t.baseUrl,
      '/oauth/refresh',
      { grant_type: 'refresh_token', refresh_token: first.refresh_token! },
      { json: true, basic: { id: app.clientId, secret: app.clientSecret! } },
    );
    expect(res.status).toBe(200);
    expect(await me(res.body.access_token as string)).toBe(200);
  });

  it('refuses another grant_type', async () => {
    const res = await postOAuth(t.baseUrl, '/oauth/refresh', {
      grant_type: 'authorization_code',
      code: 'x',
      ...credentials(app),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_request',
      error_description: 'grant_type must be refresh_token at this endpoint',
    });
  });
});
