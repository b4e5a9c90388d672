import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personId } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import {
  installationId,
  loggedIn,
  proxyFetch,
  registerAddon,
  seedReady,
  startTestIntegrator,
  testVault,
  type TestIntegrator,
} from './fixtures.ts';

let t: HttpTestHost;
let integrator: TestIntegrator;

beforeAll(async () => {
  integrator = await startTestIntegrator();
  // The default 15 s upstream timeout: only the browser's abort can close the held request in time.
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
});
afterAll(async () => {
  await t.close();
  await integrator.close();
});

describe('POST /addons/installations/{id}/fetch/integrator [abort]', () => {
  it('closes the upstream request when the browser aborts its request', async () => {
    const addon = await registerAddon(t.db, { integratorUrl: integrator.url });
    const installation = await installationId(t.db, addon.addonId);
    const vault = testVault(t.db);
    const pair = integrator.issue();
    await seedReady(vault, installation, await personId(t.db, 'admin@demo.test'), {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      expiresAt: undefined,
      scope: undefined,
    });
    const session = await loggedIn(t.baseUrl);
    const controller = new AbortController();
    const aborted = proxyFetch(
      t.baseUrl,
      session,
      installation,
      'integrator',
      { url: '/api/slow' },
      {},
      controller.signal,
    ).catch((e: Error) => e.name);
    await expect.poll(() => integrator.apiRequests.some((r) => r.path === '/api/slow')).toBe(true);
    expect(integrator.slowClosed).toEqual([]);
    controller.abort();
    expect(await aborted).toBe('AbortError');
    await expect.poll(() => integrator.slowClosed).toEqual(['/api/slow']);
  });
});
