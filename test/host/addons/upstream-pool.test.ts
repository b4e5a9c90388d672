/**
 * The upstream connections: kept alive per origin, every new one through the checked lookup, strict and
 * permissive calls never sharing a socket. A real local server counts the sockets it accepts; the DNS is
 * a test resolver (a third party), the address policy and the pool are the real ones.
 */
import type { LookupAddress } from 'node:dns';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AddonError, PolicyError } from '#host/addons/addon-error.ts';
import { createUpstreamPool, type UpstreamPool } from '#host/outbound/upstream-pool.ts';
import { sendUpstream } from '#host/addons/upstream/upstream-request.ts';
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
  upstreamOf,
  type TestIntegrator,
} from './fixtures.ts';

/** A local HTTP server that counts accepted sockets and requests, per listening address. */
interface CountingServer {
  server: Server;
  port: number;
  sockets: number;
  requests: number;
  close(): Promise<void>;
}

async function countingServer(host: string, port = 0): Promise<CountingServer> {
  const counts: CountingServer = {
    server: createServer((_req, res) => {
      counts.requests += 1;
      res.setHeader('content-type', 'text/plain');
      res.end(`hello from ${host}`);
    }),
    port: 0,
    sockets: 0,
    requests: 0,
    async close() {
      counts.server.closeAllConnections();
      await new Promise<void>((resolve) => counts.server.close(() => resolve()));
    },
  };
  counts.server.on('connection', () => (counts.sockets += 1));
  await new Promise<void>((resolve) => counts.server.listen(port, host, resolve));
  counts.port = (counts.server.address() as AddressInfo).port;
  return counts;
}

async function text(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** A test DNS: answers from `answers` (the last one repeats) and records every question. */
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

describe('sendUpstream() [keep-alive pool]', () => {
  let a: CountingServer;
  let pool: UpstreamPool | undefined;
  beforeAll(async () => {
    a = await countingServer('127.0.0.1');
  });
  afterEach(async () => {
    pool?.destroy();
    pool = undefined;
    a.server.closeAllConnections();
    a.sockets = 0;
    a.requests = 0;
  });
  afterAll(() => a.close());

  const get = (url: string, allowNonPublic: boolean) =>
    sendUpstream({
      url: new URL(url),
      method: 'GET',
      headers: [],
      body: undefined,
      allowNonPublic,
      timeoutMs: 5000,
      pool,
    });

  it('sends sequential calls to one origin over one connection, asking DNS once [keep-alive]', async () => {
    const dns = testResolver([['127.0.0.1']]);
    pool = createUpstreamPool({ resolve: dns.resolve });
    for (let i = 0; i < 5; i++) {
      const response = await get(`http://integrator.test:${a.port}/api/messages`, true);
      expect(response.statusCode).toBe(200);
      expect(await text(response)).toBe('hello from 127.0.0.1');
    }
    expect(a.requests).toBe(5);
    expect(a.sockets).toBe(1);
    expect(dns.asked).toEqual(['integrator.test']);
  });

  it('never lends a socket opened for a permissive call to a strict one, and checks the strict connection [policy]', async () => {
    const dns = testResolver([['127.0.0.1']]);
    pool = createUpstreamPool({ resolve: dns.resolve });
    expect(await text(await get(`http://integrator.test:${a.port}/`, true))).toBe('hello from 127.0.0.1');
    const refused = await get(`http://integrator.test:${a.port}/`, false).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PolicyError);
    expect((refused as PolicyError).toJSON()).toEqual({
      error: {
        side: 'policy',
        code: 'upstream_refused_address',
        message: `integrator.test:${a.port} resolves to an address that is not public`,
        retryable: false,
      },
    });
    expect(a.sockets).toBe(1);
    expect(a.requests).toBe(1);
  });

  it('keeps the checked answer for new connections until it expires, then resolves and checks again [pinned address]', async () => {
    let now = 1_000_000;
    // The name moves from 127.0.0.1 to 127.0.0.2 after its first answer (a server listens there too).
    const b = await countingServer('127.0.0.2', a.port);
    try {
      const dns = testResolver([['127.0.0.1'], ['127.0.0.2']]);
      pool = createUpstreamPool({ resolve: dns.resolve, cacheMs: 10_000, now: () => now });
      const url = `http://integrator.test:${a.port}/`;
      expect(await text(await get(url, true))).toBe('hello from 127.0.0.1');
      // The server drops the kept-alive socket: the next call needs a new connection, still to the pinned answer.
      a.server.closeAllConnections();
      now += 9_000;
      expect(await text(await get(url, true))).toBe('hello from 127.0.0.1');
      expect(dns.asked).toEqual(['integrator.test']);
      expect(a.sockets).toBe(2);
      // Past the cache time a new connection asks DNS again and goes where the new answer says.
      a.server.closeAllConnections();
      now += 2_000;
      expect(await text(await get(url, true))).toBe('hello from 127.0.0.2');
      expect(dns.asked).toEqual(['integrator.test', 'integrator.test']);
      expect([a.sockets, b.sockets]).toEqual([2, 1]);
    } finally {
      await b.close();
    }
  });

  it('refuses a new strict connection when the name now resolves to the metadata address, connecting nowhere [rebinding]', async () => {
    let now = 1_000_000;
    const dns = testResolver([['127.0.0.1'], ['169.254.169.254']]);
    pool = createUpstreamPool({ resolve: dns.resolve, cacheMs: 10_000, now: () => now });
    const url = `http://integrator.test:${a.port}/`;
    expect(await text(await get(url, true))).toBe('hello from 127.0.0.1');
    now += 11_000;
    const refused = await get(url, false).catch((e: unknown) => e);
    expect((refused as PolicyError).toJSON()).toEqual({
      error: {
        side: 'policy',
        code: 'upstream_refused_address',
        message: `integrator.test:${a.port} resolves to an address that is not public`,
        retryable: false,
      },
    });
    expect(dns.asked).toEqual(['integrator.test', 'integrator.test']);
    expect([a.sockets, a.requests]).toEqual([1, 1]);
  });

  it('refuses a name with one forbidden address among public ones, before connecting [mixed answer]', async () => {
    const dns = testResolver([['8.8.8.8', '127.0.0.1']]);
    pool = createUpstreamPool({ resolve: dns.resolve });
    const refused = await get(`http://integrator.test:${a.port}/`, false).catch((e: unknown) => e);
    expect((refused as PolicyError).code).toBe('upstream_refused_address');
    expect(a.sockets).toBe(0);
  });

  it('sends an idempotent call again on a new connection when a kept-alive socket fails under it [stale socket]', async () => {
    // Answers the first request of each socket and drops the socket on its second (an idle timer firing as
    // the call arrived); the client can only learn it by the reset.
    const served = new WeakSet<object>();
    const dropper = createServer((req, res) => {
      if (served.has(req.socket)) return void req.socket.destroy();
      served.add(req.socket);
      res.end('fresh');
    });
    let sockets = 0;
    dropper.on('connection', () => (sockets += 1));
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    const port = (dropper.address() as AddressInfo).port;
    try {
      pool = createUpstreamPool();
      expect(await text(await get(`http://127.0.0.1:${port}/`, true))).toBe('fresh');
      expect(await text(await get(`http://127.0.0.1:${port}/`, true))).toBe('fresh');
      expect(sockets).toBe(2);
      // A POST with a body is not sent twice: the reset is the caller's answer.
      const post = await sendUpstream({
        url: new URL(`http://127.0.0.1:${port}/`),
        method: 'POST',
        headers: [],
        body: Buffer.from('x'),
        allowNonPublic: true,
        timeoutMs: 5000,
        pool,
      }).catch((e: unknown) => e);
      expect((post as AddonError).toJSON()).toEqual({
        error: {
          side: 'upstream',
          code: 'upstream_unreachable',
          message: `http://127.0.0.1:${port} cannot be reached`,
          retryable: true,
        },
      });
      expect(sockets).toBe(2);
    } finally {
      dropper.closeAllConnections();
      await new Promise<void>((resolve) => dropper.close(() => resolve()));
    }
  });
});

describe('POST /addons/installations/{id}/fetch/integrator [keep-alive]', () => {
  let t: HttpTestHost;
  let integrator: TestIntegrator;
  beforeAll(async () => {
    integrator = await startTestIntegrator();
    t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
  });
  afterAll(async () => {
    await t.close();
    await integrator.close();
  });

  it('reuses one connection to the integrator over sequential proxied calls [connection reuse]', async () => {
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
    const sockets = new Set<unknown>();
    integrator.server.on('request', (req: IncomingMessage) => sockets.add(req.socket));
    for (let i = 0; i < 10; i++) {
      const res = await proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(200);
      expect(await res.json()).toEqual({ data: [] });
    }
    expect(integrator.apiRequests).toHaveLength(10);
    expect(sockets.size).toBe(1);
  });
});
