import { CSRF_HEADER, FETCH_HEADER, UPSTREAM_HEADER } from '@addon-kit/sdk/protocol';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import type { TokenVault } from '#host/addons/authorizations/token-vault.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { personId } from '../../support/host.ts';
import {
  addVersion,
  installationId,
  loggedIn,
  proxyFetch,
  registerAddon,
  seedReady,
  startTestIntegrator,
  testVault,
  upstreamOf,
  type AddonFixture,
  type TestIntegrator,
} from './fixtures.ts';

let t: HttpTestHost;
let integrator: TestIntegrator;
let addon: AddonFixture;
let installation: string;
let vault: TokenVault;
let admin: { csrf: string; cookie: string };
let adminId: string;
let recordId: string;

/** Gives the admin a finished handshake with a fresh integrator pair expiring in `ttl` seconds (negative: expired). */
async function freshTokens(
  ttlSeconds: number | undefined = 3600,
  hostTtlSeconds = 3600,
): Promise<{ accessToken: string; refreshToken: string; host: { access: string; refresh: string } }> {
  const pair = integrator.issue();
  const record = await vault.ensure(installation, adminId);
  recordId = record.id;
  // The host's own grant, issued by its OAuth provider as step 3 of the handshake does.
  const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
    clientId: addon.clientId,
    personId: adminId,
    scopes: ['people'],
  });
  await seedReady(
    vault,
    installation,
    adminId,
    {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      expiresAt: ttlSeconds === undefined ? undefined : new Date(Date.now() + ttlSeconds * 1000),
      scope: 'messages',
    },
    {
      tokens: {
        accessToken: issued.access_token,
        refreshToken: issued.refresh_token,
        expiresAt: new Date(Date.now() + hostTtlSeconds * 1000),
        scope: 'people',
      },
      scopes: ['people'],
    },
  );
  return { ...pair, host: { access: issued.access_token, refresh: issued.refresh_token } };
}

const call = (
  c: Parameters<typeof proxyFetch>[4],
  overrides?: Record<string, string | undefined>,
  side: 'service' | 'integrator' = 'integrator',
  inst = installation,
) => proxyFetch(t.baseUrl, admin, inst, side, c, overrides);

beforeAll(async () => {
  integrator = await startTestIntegrator();
  t = await startHttpTestHost({
    config: {
      addonSweepIntervalSeconds: 0,
      addonFetchTimeoutMs: 500,
      addonMaxResponseBytes: 32_768,
      addonTokenTimeoutSeconds: 1,
      maxBodyBytes: 65_536,
      addonReplayBytes: 1024,
    },
  });
  vault = testVault(t.db);
  addon = await registerAddon(t.db, { integratorUrl: integrator.url });
  installation = await installationId(t.db, addon.addonId);
  adminId = await personId(t.db, 'admin@demo.test');
  admin = await loggedIn(t.baseUrl);
});
afterAll(async () => {
  await t.close();
  await integrator.close();
});
beforeEach(() => {
  integrator.mode = 'ok';
  integrator.ttlSeconds = 3600;
  integrator.apiRequests.length = 0;
  integrator.refreshCount = 0;
});

describe('POST /addons/installations/{id}/fetch/integrator', () => {
  it('relays the upstream response with X-Addon-Upstream and the raw body [success]', async () => {
    const { accessToken } = await freshTokens();
    const res = await call({ url: `${integrator.url}/api/messages` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    const upstream = upstreamOf(res);
    expect(upstream).toMatchObject({ status: 200, statusText: 'OK', url: `${integrator.url}/api/messages` });
    expect(upstream.headers.filter(([n]) => n === 'x-multi')).toEqual([
      ['x-multi', 'a'],
      ['x-multi', 'b'],
    ]);
    expect(upstream.headers.map(([n]) => n)).not.toContain('set-cookie');
    expect(await res.json()).toEqual({ data: [] });
    expect(integrator.apiRequests).toHaveLength(1);
    expect(integrator.apiRequests[0]!.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(integrator.apiRequests[0]!.headers.cookie).toBeUndefined();
    expect(integrator.apiRequests[0]!.headers[CSRF_HEADER.toLowerCase()]).toBeUndefined();
    expect(integrator.apiRequests[0]!.headers[FETCH_HEADER.toLowerCase()]).toBeUndefined();
  });

  it('strips cookie, authorization and hop-by-hop headers the add-on sends [request headers]', async () => {
    const { accessToken } = await freshTokens();
    const res = await call({
      url: '/api/messages',
      headers: [
        ['Cookie', 'a=1'],
        ['Authorization', 'Bearer forged'],
        ['Connection', 'x-drop'],
        ['X-Drop', '1'],
        ['X-Keep', 'yes'],
        ['Accept', 'application/json'],
      ],
    });
    expect(res.status).toBe(200);
    const seen = integrator.apiRequests[0]!.headers;
    expect(seen.authorization).toBe(`Bearer ${accessToken}`);
    expect(seen.cookie).toBeUndefined();
    expect(seen['x-drop']).toBeUndefined();
    expect(seen['x-keep']).toBe('yes');
    expect(seen.accept).toBe('application/json');
  });

  it('streams the request body upstream [POST]', async () => {
    await freshTokens();
    const res = await call({
      method: 'POST',
      url: '/api/messages',
      headers: [['Content-Type', 'text/plain']],
      body: 'hello list',
    });
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(201);
    expect(await res.json()).toEqual({ received: 'hello list' });
  });

  it('passes an upstream HTTP error through as a relayed response [404]', async () => {
    await freshTokens();
    const res = await call({ url: '/api/messages/missing' });
    expect(res.status).toBe(200);
    expect(upstreamOf(res)).toMatchObject({ status: 404, statusText: 'Not Found' });
    expect(await res.json()).toEqual({ error: 'not_found' });
  });

  it('refuses another origin, a path outside the allow-list and a method not allowed [not_allowed]', async () => {
    await freshTokens();
    const cases: [Parameters<typeof call>[0], string][] = [
      [
        { url: 'http://example.com/api/messages' },
        `Only ${integrator.url} may be called through authenticatedIntegratorFetch`,
      ],
      [{ url: '/api/secrets' }, "GET /api/secrets is not in the add-on's integrator_api allow-list"],
      [{ url: '/api/messages/1/extra' }, "GET /api/messages/1/extra is not in the add-on's integrator_api allow-list"],
      [
        { method: 'DELETE', url: '/api/messages/1' },
        "DELETE /api/messages/1 is not in the add-on's integrator_api allow-list",
      ],
      [{ url: '/api/messages/..%2Fadmin' }, 'The path may not contain an encoded / or \\ (%2F, %5C)'],
    ];
    for (const [c, message] of cases) {
      const res = await call(c);
      expect(res.status).toBe(403);
      expect(res.headers.get(UPSTREAM_HEADER)).toBeNull();
      expect(await res.json()).toEqual({ error: { side: 'policy', code: 'not_allowed', message, retryable: false } });
    }
    expect(integrator.apiRequests).toHaveLength(0);
  });

  it('refuses every path that only matches the allow-list after WHATWG normalisation, before any connection [canonical path]', async () => {
    await freshTokens();
    // Each of these reaches GET/POST /api/messages once parsed (the integrator strips a trailing slash too).
    const cases: [Parameters<typeof call>[0], string][] = [
      [
        { method: 'POST', url: '/api/messages/', body: 'x' },
        "POST /api/messages/ is not in the add-on's integrator_api allow-list",
      ],
      [{ url: '/api\\messages' }, 'Integrator URLs may not contain a backslash or a control character'],
      [
        { url: `${integrator.url}\\api\\messages` },
        'Integrator URLs may not contain a backslash or a control character',
      ],
      [{ url: '/api/mess\tages' }, 'Integrator URLs may not contain a backslash or a control character'],
      [{ url: '/api%5Cmessages' }, 'The path may not contain an encoded / or \\ (%2F, %5C)'],
      [{ url: '/api/x/../messages' }, 'The path may not contain a . or .. segment'],
      [{ url: '/api/./messages' }, 'The path may not contain a . or .. segment'],
      [{ url: '/api/%2e%2E/api/messages' }, 'The path may not contain a . or .. segment'],
      [{ url: 'api/messages' }, 'Integrator URLs must be absolute or start with /'],
    ];
    for (const [c, message] of cases) {
      const res = await call(c);
      expect([c.url, res.status, res.headers.get(UPSTREAM_HEADER)]).toEqual([c.url, 403, null]);
      expect(await res.json()).toEqual({ error: { side: 'policy', code: 'not_allowed', message, retryable: false } });
    }
    expect(integrator.apiRequests).toHaveLength(0);
    // The canonical spelling still goes through.
    const res = await call({ method: 'POST', url: '/api/messages', body: 'x' });
    expect([res.status, upstreamOf(res).status]).toEqual([200, 201]);
    expect(integrator.apiRequests.map((r) => [r.method, r.path])).toEqual([['POST', '/api/messages']]);
  });

  it('answers 400 for a malformed X-Addon-Fetch header [invalid_request]', async () => {
    const res = await call({ url: '/api/messages' }, { [FETCH_HEADER.toLowerCase()]: 'not-json' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        side: 'policy',
        code: 'invalid_request',
        message: 'The X-Addon-Fetch header is not URI-encoded JSON',
        retryable: false,
      },
    });
  });

  it('refuses a missing CSRF token, a wrong one, a foreign Origin and a missing Origin [csrf_failed]', async () => {
    await freshTokens();
    for (const overrides of [
      { [CSRF_HEADER.toLowerCase()]: undefined },
      { [CSRF_HEADER.toLowerCase()]: 'wrong' },
      { origin: 'http://evil.example' },
      { origin: undefined },
    ]) {
      const res = await call({ url: '/api/messages' }, overrides);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: {
          side: 'host_auth',
          code: 'csrf_failed',
          message: 'The X-CSRF-Token header or the Origin does not match this session',
          retryable: false,
        },
      });
    }
    expect(integrator.apiRequests).toHaveLength(0);
  });

  it('answers 401 without a host session [login_required]', async () => {
    const res = await call({ url: '/api/messages' }, { cookie: undefined });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { side: 'host_auth', code: 'login_required', message: 'Log in to the host first', retryable: false },
    });
  });

  it("answers 404 for another organization's installation [tenant isolation]", async () => {
    const other = await loggedIn(t.baseUrl, 'admin@other.test');
    const res = await proxyFetch(t.baseUrl, other, installation, 'integrator', { url: '/api/messages' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        side: 'policy',
        code: 'installation_not_found',
        message: 'No such add-on installation',
        retryable: false,
      },
    });
  });

  it('answers 401 handshake_required for a person who has not authorized the add-on [no record]', async () => {
    const member = await loggedIn(t.baseUrl, 'member@demo.test');
    const res = await proxyFetch(t.baseUrl, member, installation, 'integrator', { url: '/api/messages' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: {
        side: 'integrator_auth',
        code: 'handshake_required',
        message: 'Authorize the add-on first',
        retryable: false,
      },
    });
  });

  it('refreshes an expired token once before the call and stores the rotated pair [expired]', async () => {
    const old = await freshTokens(-60);
    const res = await call({ url: '/api/messages' });
    expect(res.status).toBe(200);
    expect(integrator.refreshCount).toBe(1);
    const record = await vault.findById(recordId);
    expect(record!.integrator!.accessToken).not.toBe(old.accessToken);
    expect(record!.integrator!.refreshToken).not.toBe(old.refreshToken);
    expect(integrator.apiRequests[0]!.headers.authorization).toBe(`Bearer ${record!.integrator!.accessToken}`);
  });

  it('refreshes inside the lead window but not outside it [lead window]', async () => {
    await freshTokens(240);
    expect((await call({ url: '/api/messages' })).status).toBe(200);
    expect(integrator.refreshCount).toBe(1);
    await freshTokens(600);
    expect((await call({ url: '/api/messages' })).status).toBe(200);
    expect(integrator.refreshCount).toBe(1);
  });

  it('never refreshes proactively a token without expiry [no expiry]', async () => {
    await freshTokens(undefined);
    expect((await call({ url: '/api/messages' })).status).toBe(200);
    expect(integrator.refreshCount).toBe(0);
  });

  it('refreshes once and retries once when the integrator answers 401 [replayable body]', async () => {
    const old = await freshTokens();
    integrator.validAccess.delete(old.accessToken);
    const res = await call({
      method: 'POST',
      url: '/api/messages',
      headers: [['Content-Type', 'text/plain']],
      body: 'again',
    });
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(201);
    expect(await res.json()).toEqual({ received: 'again' });
    expect(integrator.refreshCount).toBe(1);
    expect(integrator.apiRequests.map((r) => r.body)).toEqual(['again', 'again']);
  });

  it('relays the 401 without a retry when the body was too large to keep, but refreshes for the next call [not replayable]', async () => {
    const old = await freshTokens();
    integrator.validAccess.delete(old.accessToken);
    const big = 'x'.repeat(2000);
    const res = await call({
      method: 'POST',
      url: '/api/messages',
      headers: [['Content-Type', 'text/plain']],
      body: big,
    });
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(401);
    expect(integrator.apiRequests).toHaveLength(1);
    expect(integrator.refreshCount).toBe(1);
    const retry = await call({
      method: 'POST',
      url: '/api/messages',
      headers: [['Content-Type', 'text/plain']],
      body: big,
    });
    expect(upstreamOf(retry).status).toBe(201);
  });

  it('relays the second 401 when the refreshed token is refused too [one retry only]', async () => {
    const old = await freshTokens();
    integrator.validAccess.delete(old.accessToken);
    integrator.ttlSeconds = 3600;
    const originalIssue = integrator.issue;
    integrator.issue = () => {
      const pair = originalIssue();
      integrator.validAccess.delete(pair.accessToken);
      return pair;
    };
    try {
      const res = await call({ url: '/api/messages' });
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(401);
      expect(integrator.refreshCount).toBe(1);
      expect(integrator.apiRequests).toHaveLength(2);
    } finally {
      integrator.issue = originalIssue;
    }
  });

  it('moves to reauthorization_required and keeps the record on invalid_grant [reauthorization_required]', async () => {
    const old = await freshTokens(-60);
    integrator.mode = 'invalid_grant';
    const res = await call({ url: '/api/messages' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: {
        side: 'integrator_auth',
        code: 'reauthorization_required',
        message: 'The integrator no longer accepts this authorization; authorize the add-on again',
        retryable: false,
      },
    });
    const record = await vault.findById(recordId);
    expect(record!.state).toBe('reauthorization_required');
    expect(record!.integrator!.refreshToken).toBe(old.refreshToken);
    const state = await fetch(`${t.baseUrl}/addons/installations/${installation}/state`, {
      headers: { cookie: admin.cookie },
    });
    expect(await state.json()).toEqual({ state: 'reauthorization_required' });
    // Later calls fail fast without another token request.
    expect((await call({ url: '/api/messages' })).status).toBe(401);
    expect(integrator.refreshCount).toBe(1);
  });

  it('answers a retryable 503 and leaves the tokens untouched when the token endpoint is down [down]', async () => {
    const old = await freshTokens(-60);
    integrator.mode = 'down';
    const res = await call({ url: '/api/messages' });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: {
        side: 'integrator_auth',
        code: 'token_endpoint_unavailable',
        message: "The integrator's token endpoint answered with an unexpected status",
        retryable: true,
      },
    });
    const record = await vault.findById(recordId);
    expect(record!.state).toBe('ready');
    expect(record!.integrator).toMatchObject({ accessToken: old.accessToken, refreshToken: old.refreshToken });
  });

  it('answers a retryable 503 when the token endpoint does not answer in time [slow]', async () => {
    const old = await freshTokens(-60);
    integrator.mode = 'hang';
    const res = await call({ url: '/api/messages' });
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      error: {
        side: 'integrator_auth',
        code: 'token_endpoint_unavailable',
        message: "The integrator's token endpoint did not answer in time",
        retryable: true,
      },
    });
    expect((await vault.findById(recordId))!.integrator!.refreshToken).toBe(old.refreshToken);
  });

  it('refuses a redirect to another origin [upstream_redirect]', async () => {
    await freshTokens();
    const res = await call({ url: '/api/redirect' });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: {
        side: 'upstream',
        code: 'upstream_redirect',
        message: 'The upstream redirected to another origin; redirects are not followed',
        retryable: false,
      },
    });
  });

  it('relays a compressed body decoded, without Content-Encoding [content-encoding]', async () => {
    await freshTokens();
    const res = await call({ url: '/api/gzip' });
    expect(res.status).toBe(200);
    expect(upstreamOf(res).headers.map(([n]) => n)).not.toContain('content-encoding');
    expect(await res.json()).toEqual({ zipped: true });
  });

  it('answers 504 when the API does not answer in time [upstream_timeout]', async () => {
    await freshTokens();
    const res = await call({ url: '/api/slow' });
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({
      error: {
        side: 'upstream',
        code: 'upstream_timeout',
        message: `${integrator.url} did not answer in time`,
        retryable: true,
      },
    });
  });

  it('refuses a response larger than the limit [upstream_response_too_large]', async () => {
    await freshTokens();
    const res = await call({ url: '/api/big' });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: {
        side: 'upstream',
        code: 'upstream_response_too_large',
        message: 'The upstream response exceeds 32768 bytes',
        retryable: false,
      },
    });
  });

  it('refuses a request body larger than the limit [body_too_large]', async () => {
    await freshTokens();
    const res = await call({ method: 'POST', url: '/api/messages', body: Buffer.alloc(70_000, 97) });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      error: {
        side: 'policy',
        code: 'body_too_large',
        message: 'The request body exceeds 65536 bytes',
        retryable: false,
      },
    });
    expect(integrator.apiRequests).toHaveLength(0);
  });

  it('answers a retryable 502 when the API cannot be reached [upstream_unreachable]', async () => {
    const closed = await registerAddon(t.db, { integratorUrl: 'http://127.0.0.1:9' });
    const inst = await installationId(t.db, closed.addonId);
    await seedReady(vault, inst, adminId, {
      accessToken: 'a',
      refreshToken: undefined,
      expiresAt: undefined,
      scope: undefined,
    });
    const res = await call({ url: '/api/messages' }, undefined, 'integrator', inst);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: {
        side: 'upstream',
        code: 'upstream_unreachable',
        message: 'http://127.0.0.1:9 cannot be reached',
        retryable: true,
      },
    });
  });

  it('refuses loopback addresses outside development, also behind a DNS name [upstream_refused_address]', async () => {
    const beta = await registerAddon(t.db, { integratorUrl: 'http://127.0.0.1:1' });
    await addVersion(t.db, beta.addonId, {
      integratorUrl: `http://localhost:${new URL(integrator.url).port}`,
      environment: 'beta',
    });
    const inst = await installationId(t.db, beta.addonId, 'demo', 'beta');
    const pair = integrator.issue();
    await seedReady(vault, inst, adminId, {
      accessToken: pair.accessToken,
      refreshToken: undefined,
      expiresAt: undefined,
      scope: undefined,
    });
    const res = await call({ url: '/api/messages' }, undefined, 'integrator', inst);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: {
        side: 'policy',
        code: 'upstream_refused_address',
        message: `localhost:${new URL(integrator.url).port} resolves to an address that is not public`,
        retryable: false,
      },
    });
    expect(integrator.apiRequests).toHaveLength(0);
  });
});

describe('POST /addons/installations/{id}/fetch/service', () => {
  it('calls the host API as the person with the host-side token [success]', async () => {
    await freshTokens();
    const res = await call({ url: '/current/v2/me?fields[Person]=first_name' }, undefined, 'service');
    expect(res.status).toBe(200);
    const upstream = upstreamOf(res);
    expect(upstream).toMatchObject({
      status: 200,
      statusText: 'OK',
      url: `${t.baseUrl}/current/v2/me?fields[Person]=first_name`,
    });
    const body = await res.json();
    expect(body.data).toMatchObject({ id: adminId, type: 'Person', attributes: { first_name: 'Alex' } });
  });

  it("applies the person's current roles to every call [permissions at request time]", async () => {
    await freshTokens();
    const allowed = await call({ url: '/people/v2/lists?per_page=1' }, undefined, 'service');
    expect(upstreamOf(allowed).status).toBe(200);
    expect((await allowed.json()).data).toHaveLength(1);
    const { rows } = await t.db.query<{ role: string }>(
      "DELETE FROM person_product_roles WHERE person_id = $1 AND product = 'people' RETURNING role",
      [adminId],
    );
    try {
      const refused = await call({ url: '/people/v2/lists?per_page=1' }, undefined, 'service');
      expect(refused.status).toBe(200);
      expect(upstreamOf(refused).status).toBe(403);
      expect((await refused.json()).errors[0]).toMatchObject({ status: '403', title: 'Forbidden' });
    } finally {
      await t.db.query("INSERT INTO person_product_roles (person_id, product, role) VALUES ($1, 'people', $2)", [
        adminId,
        rows[0]!.role,
      ]);
    }
  });

  it('accepts an absolute URL on the host base URL [absolute]', async () => {
    await freshTokens();
    const res = await call({ url: `${t.baseUrl}/current/v2/me` }, undefined, 'service');
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(200);
  });

  it('refuses other origins, non-API paths and APIs outside the add-on scopes [not_allowed]', async () => {
    await freshTokens();
    const cases: [string, string][] = [
      [`${integrator.url}/api/messages`, `authenticatedFetch calls the host API only (${t.baseUrl})`],
      ['/login', '/login is not a host API path (/people/v2, /api/v2, /current/v2)'],
      ['/addons/installations', '/addons/installations is not a host API path (/people/v2, /api/v2, /current/v2)'],
      ['/api/v2/personal_access_tokens', '/api/v2 needs the api scope, which the add-on does not request'],
    ];
    for (const [url, message] of cases) {
      const res = await call({ url }, undefined, 'service');
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: { side: 'policy', code: 'not_allowed', message, retryable: false } });
    }
  });

  it('refreshes an expired host token at the host token endpoint before the call [expired]', async () => {
    const { host } = await freshTokens(3600, -60);
    const res = await call({ url: '/current/v2/me' }, undefined, 'service');
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(200);
    const stored = (await vault.findById(recordId))!.service!;
    expect(stored.accessToken).not.toBe(host.access);
    expect(stored.refreshToken).not.toBe(host.refresh);
    expect(stored.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 7000_000);
  });

  it('refreshes once and retries when the host API refuses a revoked access token [401]', async () => {
    const { host } = await freshTokens();
    await (await t.host.oauthProvider.AccessToken.find(host.access))!.destroy();
    const res = await call({ url: '/current/v2/me' }, undefined, 'service');
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(200);
    expect((await vault.findById(recordId))!.service!.accessToken).not.toBe(host.access);
  });

  it('moves to reauthorization_required when the host grant is gone [invalid_grant]', async () => {
    const { host } = await freshTokens();
    await (await t.host.oauthProvider.AccessToken.find(host.access))!.destroy();
    await (await t.host.oauthProvider.RefreshToken.find(host.refresh))!.destroy();
    const res = await call({ url: '/current/v2/me' }, undefined, 'service');
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: {
        side: 'host_auth',
        code: 'reauthorization_required',
        message: 'The host no longer accepts this add-on authorization; authorize the add-on again',
        retryable: false,
      },
    });
    expect((await vault.findById(recordId))!.state).toBe('reauthorization_required');
  });
});

describe('GET /addons/installations/{id}/state', () => {
  it('returns the state of the logged-in person [ready, uninitialized]', async () => {
    await freshTokens();
    const ready = await fetch(`${t.baseUrl}/addons/installations/${installation}/state`, {
      headers: { cookie: admin.cookie },
    });
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ state: 'ready' });
    const member = await loggedIn(t.baseUrl, 'member@demo.test');
    const fresh = await fetch(`${t.baseUrl}/addons/installations/${installation}/state`, {
      headers: { cookie: member.cookie },
    });
    expect(await fresh.json()).toEqual({ state: 'uninitialized' });
  });
});
