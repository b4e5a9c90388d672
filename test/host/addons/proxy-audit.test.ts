/**
 * The outside audit's findings on the add-on proxy and handshake, each held here: a person an administrator leaves
 * out by `access_mode` is refused on the integrator side at once; method-override and client-address headers never
 * reach the integrator; the proxy sends the browser call's trace on; a plain-http development integrator on a host
 * refusing private addresses gets a clear answer at `/advance`, not a 500; the sandbox origin's 404s are nosniff.
 * Also the proxy's and the refresh engine's metrics.
 */
import supertest from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSandboxApp } from '#host/addons/index.ts';
import type { TokenVault } from '#host/addons/authorizations/token-vault.ts';
import { openDatabase } from '#host/db/database.ts';
import { setAccessMode } from '#host/oauth/application-access.ts';
import { Browser } from '#integrator/test/support.ts';
import { personId } from '../../support/host.ts';
import { runAuthorization } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import {
  installationId,
  loggedIn,
  organizationId,
  proxyFetch,
  registerAddon,
  seedReady,
  startAuthorization,
  startTestIntegrator,
  testVault,
  upstreamOf,
  type AddonFixture,
  type TestIntegrator,
} from './fixtures.ts';
import { startHandshakeFixture, type HandshakeFixture } from './handshake-fixture.ts';

const METRICS_TOKEN = 'proxy-audit-metrics-token-proxy-audit';
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;

let t: HttpTestHost;
let integrator: TestIntegrator;
let addon: AddonFixture;
let installation: string;
let vault: TokenVault;

/** A ready authorization of `email` whose integrator token expires in `ttlSeconds`. */
async function ready(email: string, ttlSeconds = 3600) {
  const pair = integrator.issue();
  await seedReady(vault, installation, await personId(t.db, email), {
    accessToken: pair.accessToken,
    refreshToken: pair.refreshToken,
    expiresAt: new Date(Date.now() + ttlSeconds * 1000),
    scope: 'messages',
  });
  return loggedIn(t.baseUrl, email);
}

const metric = async (series: string) => {
  const text = await (
    await fetch(`${t.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
};

beforeAll(async () => {
  integrator = await startTestIntegrator();
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0, metricsToken: METRICS_TOKEN } });
  vault = testVault(t.db);
  addon = await registerAddon(t.db, { integratorUrl: integrator.url });
  installation = await installationId(t.db, addon.addonId);
});
afterAll(async () => {
  await t.close();
  await integrator.close();
});
beforeEach(() => {
  integrator.mode = 'ok';
  integrator.apiRequests.length = 0;
});

describe('POST /addons/installations/{id}/fetch/integrator [access_mode]', () => {
  it('refuses a person the organization’s access mode leaves out at once, and serves them again once admitted', async () => {
    const editor = await ready('editor@demo.test');
    const org = await organizationId(t.db, 'demo');
    const send = () =>
      proxyFetch(t.baseUrl, editor, installation, 'integrator', { url: `${integrator.url}/api/messages` });
    expect((await send()).status).toBe(200);
    await setAccessMode(t.db, { organizationId: org, applicationId: addon.oauthApplicationId, mode: 'admins_only' });
    try {
      const refused = await send();
      expect([refused.status, await refused.json()]).toEqual([
        403,
        {
          error: {
            side: 'host_auth',
            code: 'not_allowed',
            message:
              'Your organization no longer lets you use this add-on’s application; ask an organization administrator',
            retryable: false,
          },
        },
      ]);
      expect(integrator.apiRequests).toHaveLength(1);
    } finally {
      await setAccessMode(t.db, { organizationId: org, applicationId: addon.oauthApplicationId, mode: 'anyone' });
    }
    expect((await send()).status).toBe(200);
  });
});

describe.runIf(process.env.DATABASE_URL !== undefined)(
  'POST /addons/installations/{id}/fetch/integrator [access_mode, another process]',
  () => {
    it('refuses at once when another host process on the same database changes the access mode', async () => {
      const url = (t.db as unknown as { pool: { options: { connectionString: string } } }).pool.options
        .connectionString;
      const other = await openDatabase({ databaseUrl: url, maxConnections: 1 });
      const editor = await ready('editor@demo.test');
      const org = await organizationId(t.db, 'demo');
      const send = () =>
        proxyFetch(t.baseUrl, editor, installation, 'integrator', { url: `${integrator.url}/api/messages` });
      try {
        // The second call is answered from what the first read (nothing changed in between).
        expect((await send()).status).toBe(200);
        expect((await send()).status).toBe(200);
        await setAccessMode(other, {
          organizationId: org,
          applicationId: addon.oauthApplicationId,
          mode: 'admins_only',
        });
        const refused = await send();
        expect(refused.status).toBe(403);
        expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('not_allowed');
        expect(integrator.apiRequests).toHaveLength(2);
      } finally {
        await setAccessMode(other, { organizationId: org, applicationId: addon.oauthApplicationId, mode: 'anyone' });
        await other.close();
      }
      expect((await send()).status).toBe(200);
    });
  },
);

describe('POST /addons/installations/{id}/fetch/integrator [headers]', () => {
  it('strips method overrides and client-address headers, and sends the call’s own trace on', async () => {
    const admin = await ready('admin@demo.test');
    const spoofed: [string, string][] = [
      ['X-HTTP-Method-Override', 'DELETE'],
      ['X-HTTP-Method', 'DELETE'],
      ['X-Method-Override', 'DELETE'],
      ['X-Forwarded-For', '203.0.113.9'],
      ['Forwarded', 'for=203.0.113.9'],
      ['X-Real-IP', '203.0.113.9'],
      ['X-Forwarded-Host', 'evil.example'],
      ['traceparent', '00-11111111111111111111111111111111-2222222222222222-01'],
      ['X-Kept', 'yes'],
    ];
    const res = await proxyFetch(
      t.baseUrl,
      admin,
      installation,
      'integrator',
      { url: `${integrator.url}/api/messages`, headers: spoofed },
      { traceparent: TRACEPARENT },
    );
    expect(upstreamOf(res).status).toBe(200);
    const seen = integrator.apiRequests[0]!.headers;
    const names = Object.keys(seen);
    for (const name of [
      'x-http-method-override',
      'x-http-method',
      'x-method-override',
      'x-forwarded-for',
      'forwarded',
      'x-real-ip',
      'x-forwarded-host',
    ])
      expect(names).not.toContain(name);
    expect(seen['x-kept']).toBe('yes');
    expect(seen.traceparent).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-01$`));
    expect(seen.traceparent).not.toContain('b7ad6b7169203331');
  });
});

describe('the proxy’s metrics', () => {
  it('counts calls by side and outcome with the upstream latency, and the add-on token refreshes', async () => {
    const admin = await ready('admin@demo.test', 60); // inside the refresh lead: refreshed on first use
    const answered = await metric('addon_kit_proxied_calls_total{side="integrator",outcome="answered"}');
    const refused = await metric('addon_kit_proxied_calls_total{side="integrator",outcome="refused"}');
    const refreshed = await metric('addon_kit_token_refreshes_total{grant="addon_integrator",outcome="success"}');
    const latencies = await metric('addon_kit_proxied_call_upstream_seconds_count{side="integrator"}');
    expect(
      upstreamOf(
        await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: `${integrator.url}/api/messages` }),
      ).status,
    ).toBe(200);
    const notAllowed = await proxyFetch(t.baseUrl, admin, installation, 'integrator', {
      url: `${integrator.url}/api/other`,
    });
    expect(notAllowed.status).toBe(403);
    expect([
      (await metric('addon_kit_proxied_calls_total{side="integrator",outcome="answered"}')) - answered,
      (await metric('addon_kit_proxied_calls_total{side="integrator",outcome="refused"}')) - refused,
      (await metric('addon_kit_token_refreshes_total{grant="addon_integrator",outcome="success"}')) - refreshed,
      (await metric('addon_kit_proxied_call_upstream_seconds_count{side="integrator"}')) - latencies,
    ]).toEqual([1, 1, 1, 1]);
  });
});

describe('GET …/authorizations/{id}/advance [plain-http integrator, private addresses refused]', () => {
  let f: HandshakeFixture;
  beforeAll(async () => {
    f = await startHandshakeFixture({ addonAllowPrivateAddresses: false });
  });
  afterAll(() => f.close());

  it('answers a clear failure page (not a 500) before the host’s tokens are issued', async () => {
    const session = await loggedIn(f.t.baseUrl);
    const list = JSON.parse(
      (await session.browser.request('/addons/installations', { headers: { accept: 'application/json' } })).body,
    ) as { data: { id: string }[] };
    const start = await startAuthorization(session.browser, list.data[0]!.id);
    const completion = await runAuthorization(session.browser, new URL(start.location!));
    const toAdvance = await new Browser().fetch(completion.toString());
    const advanced = await session.browser.request(toAdvance.headers.get('location')!);
    expect(advanced.status).toBe(502);
    expect(advanced.body).toContain('The add-on cannot be authorized on this platform');
    expect(advanced.body).toContain('uses plain http');
    const { rows } = await f.t.db.query<{ state: string; service: string | null }>(
      'SELECT state, service_access_token_encrypted AS service FROM addon_authorizations',
    );
    expect(rows).toEqual([{ state: 'uninitialized', service: null }]);
  });
});

describe('the sandbox origin', () => {
  it('answers its 404s with X-Content-Type-Options: nosniff', async () => {
    const app = createSandboxApp({
      db: t.db,
      hostBaseUrl: t.baseUrl,
      sandboxUrl: 'http://127.0.0.1:4001',
      bundleDir: '/nonexistent',
    });
    for (const path of ['/no/such/file', `/addons/${'0'.repeat(64)}.js`]) {
      const res = await supertest(app).get(path);
      expect([path, res.status, res.headers['x-content-type-options']]).toEqual([path, 404, 'nosniff']);
    }
  });
});
