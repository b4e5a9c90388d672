/**
 * Private and loopback addresses are an operator's decision (`addonAllowPrivateAddresses`), never the
 * tenant's: a development add-on on a host that does not allow them is refused like any other.
 */
import type { LookupAddress } from 'node:dns';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowsPrivateAddresses } from '#host/config.ts';
import { AddonError, UpstreamError } from '#host/addons/addon-error.ts';
import type { Installation } from '#host/addons/registry/installations.ts';
import { integratorOAuthClient, tokenRequestError } from '#host/addons/tokens/integrator-client.ts';
import { upstreamFetch } from '#host/addons/upstream/upstream-fetch.ts';
import { createUpstreamPool } from '#host/outbound/upstream-pool.ts';
import type { TokenVault } from '#host/addons/authorizations/token-vault.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { personId } from '../../support/host.ts';
import {
  INTEGRATOR_CLIENT,
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
let vault: TokenVault;
let admin: { csrf: string; cookie: string };
let adminId: string;
let installation: string;

beforeAll(async () => {
  integrator = await startTestIntegrator();
  t = await startHttpTestHost({
    config: { addonSweepIntervalSeconds: 0, addonAllowPrivateAddresses: false, addonTokenTimeoutSeconds: 2 },
  });
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
    expect(allowsPrivateAddresses({ baseUrl: 'https://people.example.com', addonAllowPrivateAddresses: true })).toBe(
      true,
    );
  });
});

describe('a development add-on on a host that does not allow private addresses', () => {
  it('cannot reach a loopback integrator API [upstream_refused_address]', async () => {
    const pair = integrator.issue();
    await seedReady(vault, installation, adminId, {
      accessToken: pair.accessToken,
      refreshToken: undefined,
      expiresAt: undefined,
      scope: undefined,
    });
    const res = await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: {
        side: 'policy',
        code: 'upstream_refused_address',
        message: `${new URL(integrator.url).host} is not a public address`,
        retryable: false,
      },
    });
    expect(integrator.apiRequests).toHaveLength(0);
  });

  it('does not send a refresh to a loopback token endpoint [token_url]', async () => {
    const pair = integrator.issue();
    await seedReady(vault, installation, adminId, {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      expiresAt: new Date(Date.now() - 1000),
      scope: 'messages',
    });
    const refreshesBefore = integrator.refreshCount;
    const res = await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: {
        side: 'policy',
        code: 'not_allowed',
        message: "The integrator's token endpoint must use https here",
        retryable: false,
      },
    });
    expect(integrator.refreshCount).toBe(refreshesBefore);
    expect(integrator.apiRequests).toHaveLength(0);
  });
});

/** A TCP listener on 127.0.0.1 that only counts the connections reaching it (a token endpoint that must not be reached). */
async function tcpWitness(): Promise<{ port: number; connections: number; close(): Promise<void> }> {
  const witness = {
    server: createTcpServer((socket) => {
      witness.connections += 1;
      socket.destroy();
    }),
    port: 0,
    connections: 0,
    close: () => new Promise<void>((resolve) => witness.server.close(() => resolve())),
  };
  await new Promise<void>((resolve) => witness.server.listen(0, '127.0.0.1', resolve));
  witness.port = (witness.server.address() as AddressInfo).port;
  return witness;
}

/** A test DNS: answers from `answers` in turn (the last one repeats) and records every question. */
function testResolver(answers: string[][]): { resolve(hostname: string): Promise<LookupAddress[]>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async resolve(hostname) {
      const answer = answers[Math.min(asked.length, answers.length - 1)]!;
      asked.push(hostname);
      return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
  };
}

/** An installation outside development whose integrator token endpoint is `tokenUrl`. */
function installationWith(tokenUrl: string): Installation {
  const base = new URL(tokenUrl).origin;
  return {
    environment: 'production',
    integratorOAuth: {
      authorize_url: `${base}/oauth/authorize`,
      token_url: tokenUrl,
      redirect_url: `${base}/oauth/complete`,
      client_id: INTEGRATOR_CLIENT.id,
      scopes: ['messages'],
    },
  } as Installation;
}

/** A refresh at the installation's token endpoint, its failure as the proxy would answer it. */
async function refreshFailure(
  installation: Installation,
  pool: ReturnType<typeof createUpstreamPool>,
): Promise<unknown> {
  const client = integratorOAuthClient(installation, INTEGRATOR_CLIENT.secret, {
    timeoutSeconds: 1,
    allowPrivateAddresses: false,
    pool,
  });
  const error = await oidc.refreshTokenGrant(client, 'refresh-x').then(
    () => undefined,
    (e: unknown) => e,
  );
  return error === undefined ? undefined : tokenRequestError(error).toJSON();
}

describe('integrator token requests [token_url]', () => {
  it('refuses token endpoints that are or resolve to non-public addresses, before connecting', async () => {
    const fetchPublic = upstreamFetch(false);
    for (const url of [
      'https://127.0.0.1:9/token',
      'https://localhost:9/token',
      'https://[::1]:9/token',
      'https://10.0.0.1/token',
      'https://169.254.169.254/latest',
    ]) {
      const error = await fetchPublic(url, {
        method: 'POST',
        headers: {},
        body: '',
        redirect: 'manual',
        signal: AbortSignal.timeout(1000),
      }).catch((e: unknown) => e);
      expect(error, url).toBeInstanceOf(AddonError);
      expect((error as AddonError).toJSON(), url).toEqual({
        error: {
          side: 'policy',
          code: 'upstream_refused_address',
          message: `The integrator's token endpoint ${new URL(url).origin} is not a public address`,
          retryable: false,
        },
      });
    }
  });

  it('checks the address the token request connects to: a name resolving to loopback or metadata is refused and nothing is reached [pinned lookup]', async () => {
    const witness = await tcpWitness();
    try {
      for (const address of ['127.0.0.1', '169.254.169.254']) {
        const dns = testResolver([[address]]);
        const origin = `https://integrator.test:${witness.port}`;
        expect(
          await refreshFailure(installationWith(`${origin}/oauth/token`), createUpstreamPool({ resolve: dns.resolve })),
          address,
        ).toEqual({
          error: {
            side: 'policy',
            code: 'upstream_refused_address',
            message: `The integrator's token endpoint ${origin} is not a public address`,
            retryable: false,
          },
        });
        // One question, at connect time: no pre-flight lookup whose answer a second one could contradict.
        expect(dns.asked, address).toEqual(['integrator.test']);
      }
      expect(witness.connections).toBe(0);
    } finally {
      await witness.close();
    }
  });

  it('connects to the address it checked, never to a later answer of the name [rebinding]', async () => {
    const witness = await tcpWitness();
    try {
      // First a public address (in the IPv6 discard-only prefix, RFC 6666: it answers nothing), then 127.0.0.1
      // to anyone who asks again. A check followed by a second lookup for the connection would reach the witness.
      const dns = testResolver([['100::1'], ['127.0.0.1']]);
      const failure = await refreshFailure(
        installationWith(`https://integrator.test:${witness.port}/oauth/token`),
        createUpstreamPool({ resolve: dns.resolve }),
      );
      expect((failure as { error: { code: string } }).error.code).toBe('token_endpoint_unavailable');
      expect(dns.asked).toEqual(['integrator.test']);
      expect(witness.connections).toBe(0);
    } finally {
      await witness.close();
    }
  });
});

describe('tokenRequestError() [token_url]', () => {
  it('says an exchange that reached nothing or no answer in time as the token endpoint unavailable, however openid-client wraps it', () => {
    for (const [code, message] of [
      ['upstream_unreachable', "The integrator's token endpoint cannot be reached"],
      ['upstream_timeout', "The integrator's token endpoint did not answer in time"],
    ] as const) {
      const expected = {
        error: { side: 'integrator_auth', code: 'token_endpoint_unavailable', message, retryable: true },
      };
      const failure = new UpstreamError(code, 'https://integrator.test cannot be reached');
      expect(tokenRequestError(failure).toJSON(), code).toEqual(expected);
      expect(tokenRequestError(new TypeError('fetch failed', { cause: failure })).toJSON(), code).toEqual(expected);
    }
    // Not an outage: a redirect stays the exchange's own refusal.
    const redirect = new UpstreamError('upstream_redirect', 'redirected');
    expect(tokenRequestError(redirect)).toBe(redirect);
  });
});

describe('POST /addons/installations/{id}/fetch/integrator [token_url outside development]', () => {
  it('refuses a refresh at an https token endpoint whose name resolves to this machine, and connects to nothing', async () => {
    const witness = await tcpWitness();
    try {
      const beta = await registerAddon(t.db, {
        integratorUrl: `https://localhost:${witness.port}`,
        environment: 'beta',
      });
      const inst = await installationId(t.db, beta.addonId, 'demo', 'beta');
      await seedReady(vault, inst, adminId, {
        accessToken: 'a',
        refreshToken: 'r',
        expiresAt: new Date(Date.now() - 1000),
        scope: 'messages',
      });
      const res = await proxyFetch(t.baseUrl, admin, inst, 'integrator', { url: '/api/messages' });
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({
        error: {
          side: 'policy',
          code: 'upstream_refused_address',
          message: `The integrator's token endpoint https://localhost:${witness.port} is not a public address`,
          retryable: false,
        },
      });
      expect(witness.connections).toBe(0);
    } finally {
      await witness.close();
    }
  });
});
