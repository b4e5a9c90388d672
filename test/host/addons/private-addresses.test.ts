/**
 * Private and loopback addresses are an operator's decision (`addonAllowPrivateAddresses`), never the
 * tenant's: a development add-on on a host that does not allow them is refused like any other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowsPrivateAddresses } from '@addon-kit/host/internal/config.ts';
import { AddonError } from '@addon-kit/host/internal/addons/addon-error.ts';
import { publicOnlyFetch } from '@addon-kit/host/internal/addons/integrator-client.ts';
import type { TokenVault } from '@addon-kit/host/internal/addons/token-vault.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { personId } from '../../support/host.ts';
import { installationId, loggedIn, proxyFetch, registerAddon, seedReady, startTestIntegrator, testVault, type TestIntegrator } from './fixtures.ts';

let t: HttpTestHost;
let integrator: TestIntegrator;
let vault: TokenVault;
let admin: { csrf: string; cookie: string };
let adminId: string;
let installation: string;

beforeAll(async () => {
  integrator = await startTestIntegrator();
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0, addonAllowPrivateAddresses: false, addonTokenTimeoutSeconds: 2 } });
  vault = testVault(t.db);
  const addon = await registerAddon(t.db, { integratorUrl: integrator.url });
  installation = await installationId(t.db, addon.addonId);
  adminId = await personId(t.db, 'admin@demo.test');
  admin = await loggedIn(t.baseUrl);
});
afterAll(async () => {
  await t.close();
  await integrator.close();
});

describe('allowsPrivateAddresses()', () => {
  it('defaults to true only for a host on this machine, and follows an explicit setting', () => {
    expect(allowsPrivateAddresses({ baseUrl: 'http://localhost:4000' })).toBe(true);
    expect(allowsPrivateAddresses({ baseUrl: 'http://127.0.0.1:4000' })).toBe(true);
    expect(allowsPrivateAddresses({ baseUrl: 'http://[::1]:4000' })).toBe(true);
    expect(allowsPrivateAddresses({ baseUrl: 'https://people.example.com' })).toBe(false);
    expect(allowsPrivateAddresses({ baseUrl: 'https://localhost.example.com' })).toBe(false);
    expect(allowsPrivateAddresses({ baseUrl: 'http://localhost:4000', addonAllowPrivateAddresses: false })).toBe(false);
    expect(allowsPrivateAddresses({ baseUrl: 'https://people.example.com', addonAllowPrivateAddresses: true })).toBe(true);
  });
});

describe('a development add-on on a host that does not allow private addresses', () => {
  it('cannot reach a loopback integrator API [upstream_refused_address]', async () => {
    const pair = integrator.issue();
    await seedReady(vault, installation, adminId, { accessToken: pair.accessToken, refreshToken: undefined, expiresAt: undefined, scope: undefined });
    const res = await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: { side: 'policy', code: 'upstream_refused_address', message: `${new URL(integrator.url).host} is not a public address`, retryable: false },
    });
    expect(integrator.apiRequests).toHaveLength(0);
  });

  it('does not send a refresh to a loopback token endpoint [token_url]', async () => {
    const pair = integrator.issue();
    await seedReady(vault, installation, adminId, { accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt: new Date(Date.now() - 1000), scope: 'messages' });
    const refreshesBefore = integrator.refreshCount;
    const res = await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: { side: 'policy', code: 'not_allowed', message: "The integrator's token endpoint must use https here", retryable: false },
    });
    expect(integrator.refreshCount).toBe(refreshesBefore);
    expect(integrator.apiRequests).toHaveLength(0);
  });
});

describe('publicOnlyFetch()', () => {
  it('refuses token endpoints that are or resolve to non-public addresses, before connecting', async () => {
    for (const url of ['https://127.0.0.1:9/token', 'https://localhost:9/token', 'https://[::1]:9/token', 'https://10.0.0.1/token', 'https://169.254.169.254/latest']) {
      const error = await publicOnlyFetch(url, { method: 'POST', headers: {}, body: '', redirect: 'manual', signal: AbortSignal.timeout(1000) } as never).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(AddonError);
      expect((error as AddonError).code, url).toBe('upstream_refused_address');
    }
  });
});
