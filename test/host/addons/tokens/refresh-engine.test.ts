import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, inject, it, onTestFinished } from 'vitest';
import { createHost, type Host } from '#host/app.ts';
import type { TokenSet, TokenVault } from '#host/addons/authorizations/token-vault.ts';
import { hostGrant } from '#host/addons/tokens/host-grant.ts';
import { integratorGrant } from '#host/addons/tokens/integrator-grant.ts';
import { createRefreshEngine } from '#host/addons/tokens/refresh-engine.ts';
import { createSweeper } from '#host/addons/tokens/sweeper.ts';
import { loadInstallation } from '#host/addons/registry/installations.ts';
import { createLoopback } from '#host/addons/upstream/loopback.ts';
import { openDatabase, type Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { withDatabaseName } from '../../../support/global-setup.ts';
import { personId, testConfig } from '../../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../../support/oauth-server.ts';
import { adminUrl, withDatabase } from '../../../support/postgres.ts';
import {
  installationId,
  loggedIn,
  proxyFetch,
  registerAddon,
  seedReady,
  startTestIntegrator,
  testBox,
  testVault,
  upstreamOf,
  type AddonFixture,
  type TestIntegrator,
} from '../fixtures.ts';

const template = inject('dbTemplate');
const ONLY_POSTGRES =
  'several host processes share one database only on PostgreSQL (PGlite is embedded in one process)';
const HOST_PROCESS = fileURLToPath(new URL('./host-process.ts', import.meta.url));

let integrator: TestIntegrator;

beforeAll(async () => {
  integrator = await startTestIntegrator();
});
afterAll(() => integrator.close());
beforeEach(() => {
  integrator.mode = 'ok';
  integrator.tokenDelayMs = 0;
  integrator.refreshCount = 0;
  integrator.apiRequests.length = 0;
});

/** Stores a ready authorization whose integrator token expires `ttlSeconds` from `now` (undefined: no expiry). */
async function readyRecord(
  vault: TokenVault,
  installation: string,
  person: string,
  now: number,
  ttlSeconds: number | undefined,
  service?: { tokens: TokenSet; scopes: string[] },
) {
  const pair = integrator.issue();
  const expiresAt = ttlSeconds === undefined ? undefined : new Date(now + ttlSeconds * 1000);
  const record = await seedReady(
    vault,
    installation,
    person,
    { accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt, scope: undefined },
    service,
  );
  return { record, pair };
}

/** Gives the person a host grant (as step 3 does) stored as expired in the vault, and ready integrator tokens. */
async function hostGrantDue(host: Host, db: Database, addon: AddonFixture, installation: string, person: string) {
  const vault = testVault(db);
  const issued = await issueTokensForPerson(host.oauthProvider, db, {
    clientId: addon.clientId,
    personId: person,
    scopes: ['people'],
  });
  const service = {
    tokens: {
      accessToken: issued.access_token,
      refreshToken: issued.refresh_token,
      expiresAt: new Date(Date.now() - 60_000),
      scope: 'people',
    },
    scopes: ['people'],
  };
  const { record } = await readyRecord(vault, installation, person, Date.now(), 3600, service);
  return { recordId: record.id, issued };
}

/** Counts the refresh_token grants that reach a host's token endpoint (granted or refused). */
function countRefreshGrants(host: Host): { count: number } {
  const counter = { count: 0 };
  const count = (ctx: KoaContextWithOIDC) => {
    if (ctx.oidc.params?.grant_type === 'refresh_token') counter.count += 1;
  };
  host.oauthProvider.on('grant.success', count);
  host.oauthProvider.on('grant.error', count);
  return counter;
}

/** The lease columns of a record. */
async function leaseOf(db: Database, id: string) {
  const { rows } = await db.query<Record<string, string | null>>(
    `SELECT service_refresh_lease_owner AS service, integrator_refresh_lease_owner AS integrator FROM addon_authorizations WHERE id = $1`,
    [id],
  );
  return rows[0];
}

describe('RefreshEngine [one host process]', () => {
  let t: HttpTestHost;
  let addon: AddonFixture;
  let installation: string;
  let vault: TokenVault;
  let adminId: string;

  beforeAll(async () => {
    t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
    vault = testVault(t.db);
    addon = await registerAddon(t.db, { integratorUrl: integrator.url });
    installation = await installationId(t.db, addon.addonId);
    adminId = await personId(t.db, 'admin@demo.test');
  });
  afterAll(() => t.close());

  it('sends exactly one refresh for 200 concurrent integrator calls with an expired token, and all succeed [integrator]', async () => {
    const session = await loggedIn(t.baseUrl);
    const { record, pair } = await readyRecord(vault, installation, adminId, Date.now(), -60);
    integrator.tokenDelayMs = 300;
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(responses.map((r) => upstreamOf(r).status)).toEqual(Array(200).fill(200));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(integrator.refreshCount).toBe(1);
    const stored = (await vault.findById(record.id))!;
    expect(stored.state).toBe('ready');
    expect(stored.integrator!.refreshToken).not.toBe(pair.refreshToken);
    expect(new Set(integrator.apiRequests.map((r) => r.headers.authorization))).toEqual(
      new Set([`Bearer ${stored.integrator!.accessToken}`]),
    );
    expect(await leaseOf(t.db, record.id)).toEqual({ service: null, integrator: null });
  });

  it('sends exactly one refresh grant to the host token endpoint for 200 concurrent host calls, and all succeed [host]', async () => {
    const session = await loggedIn(t.baseUrl);
    const { recordId, issued } = await hostGrantDue(t.host, t.db, addon, installation, adminId);
    const grants = countRefreshGrants(t.host);
    const responses = await Promise.all(
      Array.from({ length: 200 }, () =>
        proxyFetch(t.baseUrl, session, installation, 'service', { url: '/current/v2/me' }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(responses.map((r) => upstreamOf(r).status)).toEqual(Array(200).fill(200));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(grants.count).toBe(1);
    const stored = (await vault.findById(recordId))!;
    expect(stored.state).toBe('ready');
    expect(stored.service!.accessToken).not.toBe(issued.access_token);
    expect(stored.service!.refreshToken).not.toBe(issued.refresh_token);
    expect(await leaseOf(t.db, recordId)).toEqual({ service: null, integrator: null });
  });

  it('waits for a live lease of another process and uses the token it wrote [lease held]', async () => {
    const { record, pair } = await readyRecord(vault, installation, adminId, Date.now(), -60);
    await t.db.query(
      "UPDATE addon_authorizations SET integrator_refresh_lease_until = now() + interval '1 minute', integrator_refresh_lease_owner = 'other' WHERE id = $1",
      [record.id],
    );
    const engine = createRefreshEngine({
      db: t.db,
      vault,
      clock: { now: () => Date.now() },
      logger: createLogger('silent'),
      leadMs: 0,
      leaseMs: 60_000,
      pollMs: 10,
      kinds: {
        integrator: integratorGrant({ db: t.db, box: testBox(), timeoutSeconds: 2, allowPrivateAddresses: true }),
        service: hostGrant({
          db: t.db,
          box: testBox(),
          loopback: createLoopback(t.host.app),
          issuer: t.baseUrl,
          timeoutSeconds: 2,
        }),
      },
    });
    const waiting = engine.accessToken('integrator', record, (await loadInstallation(t.db, installation))!);
    // "The other process" finishes: its rotated pair lands in the row and the lease is released.
    const other = integrator.issue();
    await vault.saveIntegratorTokens(record.id, {
      accessToken: other.accessToken,
      refreshToken: other.refreshToken,
      expiresAt: new Date(Date.now() + 3_600_000),
      scope: undefined,
    });
    await t.db.query(
      'UPDATE addon_authorizations SET integrator_refresh_lease_until = NULL, integrator_refresh_lease_owner = NULL WHERE id = $1',
      [record.id],
    );
    expect(await waiting).toBe(other.accessToken);
    expect(integrator.refreshCount).toBe(0);
    expect((await vault.findById(record.id))!.integrator!.refreshToken).not.toBe(pair.refreshToken);
  });
});

describe('RefreshEngine [host processes on one PostgreSQL]', () => {
  const isPostgres = template.kind === 'postgres';
  const hosts: { host: Host; db: Database; server: Server }[] = [];
  const children: ChildProcess[] = [];

  /** A fresh copy of the template database. */
  async function sharedDatabase(): Promise<string> {
    if (template.kind !== 'postgres') throw new Error(ONLY_POSTGRES);
    const name = `${template.prefix}_${randomBytes(4).toString('hex')}`;
    await withDatabase(adminUrl(template.url), (admin) =>
      admin.exec(`CREATE DATABASE ${name} TEMPLATE ${template.database}`),
    );
    return withDatabaseName(template.url, name);
  }

  /** Hosts in this process on `dbUrl`, served on their own ports behind the first one's public URL. */
  async function startHosts(
    dbUrl: string,
    count: number,
    tokenTimeoutSeconds = 10,
  ): Promise<{ publicUrl: string; urls: string[]; started: typeof hosts }> {
    const servers = Array.from({ length: count }, () => createServer());
    for (const s of servers) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const urls = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
    const started: typeof hosts = [];
    for (const server of servers) {
      const db = await openDatabase({ databaseUrl: dbUrl });
      const host = await createHost({
        config: testConfig({
          baseUrl: urls[0],
          addonSweepIntervalSeconds: 0,
          addonTokenTimeoutSeconds: tokenTimeoutSeconds,
        }),
        db,
        logger: createLogger('silent'),
      });
      server.on('request', host.app);
      started.push({ host, db, server });
    }
    hosts.push(...started);
    return { publicUrl: urls[0]!, urls, started };
  }

  /** A host in a child process on `dbUrl`; resolves with its URL once it serves. */
  async function startChild(
    dbUrl: string,
    publicUrl: string,
    tokenTimeoutSeconds: number,
  ): Promise<{ child: ChildProcess; url: string }> {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', HOST_PROCESS, dbUrl, publicUrl, String(tokenTimeoutSeconds)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    children.push(child);
    let out = '';
    for await (const chunk of child.stdout) {
      out += String(chunk);
      const port = /listening (\d+)/.exec(out)?.[1];
      if (port) return { child, url: `http://127.0.0.1:${port}` };
    }
    throw new Error('the host process ended before it served');
  }

  /** One proxied call as the broker sends it, to the host at `url`. */
  function call(
    url: string,
    publicUrl: string,
    session: { cookie: string; csrf: string },
    installation: string,
    side: 'service' | 'integrator',
    path: string,
  ) {
    return fetch(`${url}/addons/installations/${installation}/fetch/${side}`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
        origin: publicUrl,
        'x-addon-fetch': encodeURIComponent(JSON.stringify({ method: 'GET', url: path, headers: [] })),
      },
    });
  }

  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const h of hosts.splice(0)) {
      h.server.closeAllConnections();
      await new Promise<void>((resolve) => h.server.close(() => resolve()));
      await h.host.close();
      await h.db.close();
    }
  });

  it.skipIf(!isPostgres)(
    'sends exactly one integrator refresh for 200 calls spread over two host processes [lease, integrator]',
    async () => {
      const { publicUrl, urls, started } = await startHosts(await sharedDatabase(), 2);
      const db = started[0]!.db;
      const vault = testVault(db);
      const addon = await registerAddon(db, { integratorUrl: integrator.url });
      const installation = await installationId(db, addon.addonId);
      const { record } = await readyRecord(vault, installation, await personId(db, 'admin@demo.test'), Date.now(), -60);
      const session = await loggedIn(publicUrl);
      // A slow token endpoint: both hosts are surely waiting for a refresh at the same time.
      integrator.tokenDelayMs = 300;
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          call(urls[i % 2]!, publicUrl, session, installation, 'integrator', '/api/messages'),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
      expect(responses.map((r) => upstreamOf(r).status)).toEqual(Array(200).fill(200));
      await Promise.all(responses.map((r) => r.arrayBuffer()));
      expect(integrator.refreshCount).toBe(1);
      const stored = (await vault.findById(record.id))!;
      expect(stored.state).toBe('ready');
      expect(new Set(integrator.apiRequests.map((r) => r.headers.authorization))).toEqual(
        new Set([`Bearer ${stored.integrator!.accessToken}`]),
      );
    },
  );

  it.skipIf(!isPostgres)(
    'sends exactly one host refresh grant for 200 calls spread over two host processes [lease, host]',
    async () => {
      const { publicUrl, urls, started } = await startHosts(await sharedDatabase(), 2);
      const db = started[0]!.db;
      const addon = await registerAddon(db, { integratorUrl: integrator.url });
      const installation = await installationId(db, addon.addonId);
      const { recordId, issued } = await hostGrantDue(
        started[0]!.host,
        db,
        addon,
        installation,
        await personId(db, 'admin@demo.test'),
      );
      const grants = started.map((h) => countRefreshGrants(h.host));
      const session = await loggedIn(publicUrl);
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          call(urls[i % 2]!, publicUrl, session, installation, 'service', '/current/v2/me'),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
      expect(responses.map((r) => upstreamOf(r).status)).toEqual(Array(200).fill(200));
      await Promise.all(responses.map((r) => r.arrayBuffer()));
      expect(grants.map((g) => g.count).reduce((a, b) => a + b)).toBe(1);
      const stored = (await testVault(db).findById(recordId))!;
      expect(stored.state).toBe('ready');
      expect(stored.service!.refreshToken).not.toBe(issued.refresh_token);
    },
  );

  it.skipIf(!isPostgres)(
    'refreshes the host tokens of 30 people at once with a pool of 10 connections [pool]',
    async () => {
      const { publicUrl, started } = await startHosts(await sharedDatabase(), 1);
      const { host, db } = started[0]!;
      const addon = await registerAddon(db, { integratorUrl: integrator.url });
      const installation = await installationId(db, addon.addonId);
      const org = (
        await db.query<{ organization_id: string }>(
          "SELECT organization_id::text FROM people WHERE email = 'admin@demo.test'",
        )
      ).rows[0]!.organization_id;
      const people = await Promise.all(
        Array.from(
          { length: 30 },
          async (_, i) =>
            (
              await db.query<{ id: string }>(
                "INSERT INTO people (organization_id, first_name, last_name, email) VALUES ($1, 'Pool', $2, $3) RETURNING id::text",
                [org, `P${i}`, `pool${i}@demo.test`],
              )
            ).rows[0]!.id,
        ),
      );
      const due = [];
      for (const person of people) due.push(await hostGrantDue(host, db, addon, installation, person));
      const grants = countRefreshGrants(host);
      const vault = testVault(db);
      // The engine as the runtime builds it, on the host's pool (10 connections) and a loopback port of its app.
      const loopback = createLoopback(host.app);
      onTestFinished(() => loopback.close());
      const engine = createRefreshEngine({
        db,
        vault,
        clock: { now: () => Date.now() },
        logger: createLogger('silent'),
        leadMs: 0,
        leaseMs: 12_000,
        kinds: {
          service: hostGrant({ db, box: testBox(), loopback, issuer: publicUrl, timeoutSeconds: 10 }),
          integrator: integratorGrant({ db, box: testBox(), timeoutSeconds: 10, allowPrivateAddresses: true }),
        },
      });
      const inst = (await loadInstallation(db, installation))!;
      const records = await Promise.all(due.map(({ recordId }) => vault.findById(recordId)));
      // 30 refreshes in flight together, each waiting on the host's own token endpoint.
      const tokens = await Promise.all(records.map((record) => engine.accessToken('service', record!, inst)));
      expect(grants.count).toBe(30);
      for (const [i, { recordId, issued }] of due.entries()) {
        const stored = (await vault.findById(recordId))!;
        expect(stored.state).toBe('ready');
        expect(stored.service!.accessToken).toBe(tokens[i]);
        expect(stored.service!.refreshToken).not.toBe(issued.refresh_token);
      }
    },
  );

  it.skipIf(!isPostgres)(
    'loses no grant when a host process is killed holding the lease: another refreshes once it runs out [SIGKILL, integrator]',
    async () => {
      const dbUrl = await sharedDatabase();
      const { publicUrl, urls, started } = await startHosts(dbUrl, 1, 1);
      const db = started[0]!.db;
      const vault = testVault(db);
      const addon = await registerAddon(db, { integratorUrl: integrator.url });
      const installation = await installationId(db, addon.addonId);
      const { record, pair } = await readyRecord(
        vault,
        installation,
        await personId(db, 'admin@demo.test'),
        Date.now(),
        -60,
      );
      const session = await loggedIn(publicUrl);
      const { child, url } = await startChild(dbUrl, publicUrl, 1);
      // The integrator takes the child's refresh request and does not answer: the refresh token is not rotated yet.
      integrator.mode = 'hang';
      const doomed = call(url, publicUrl, session, installation, 'integrator', '/api/messages').catch(
        (error: unknown) => error,
      );
      while (integrator.refreshCount === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      // The lease was committed before the token request went out.
      expect((await leaseOf(db, record.id))!.integrator).toEqual(expect.any(String));
      child.kill('SIGKILL');
      await once(child, 'exit');
      expect(await doomed).toBeInstanceOf(Error);
      integrator.mode = 'ok';
      const res = await call(urls[0]!, publicUrl, session, installation, 'integrator', '/api/messages');
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(200);
      expect(integrator.refreshCount).toBe(2);
      const stored = (await vault.findById(record.id))!;
      expect(stored.state).toBe('ready');
      expect(stored.integrator!.refreshToken).not.toBe(pair.refreshToken);
      expect(integrator.apiRequests.at(-1)!.headers.authorization).toBe(`Bearer ${stored.integrator!.accessToken}`);
      expect(await leaseOf(db, record.id)).toEqual({ service: null, integrator: null });
    },
  );

  it.skipIf(!isPostgres)(
    'loses no host grant when a host process is killed mid-refresh, before the token endpoint consumed it [SIGKILL, host]',
    async () => {
      const dbUrl = await sharedDatabase();
      const { publicUrl, urls, started } = await startHosts(dbUrl, 1, 3);
      const { host, db } = started[0]!;
      const addon = await registerAddon(db, { integratorUrl: integrator.url });
      const installation = await installationId(db, addon.addonId);
      const { recordId, issued } = await hostGrantDue(
        host,
        db,
        addon,
        installation,
        await personId(db, 'admin@demo.test'),
      );
      const session = await loggedIn(publicUrl);
      const { child, url } = await startChild(dbUrl, publicUrl, 3);
      // Hold the child's token endpoint at its read of the token and access_mode (after the lease, before the consume):
      // by the token's table, which only the token endpoint reads on this path (the proxy's own read of the access
      // mode, before the lease, must not be the one held).
      let unlock!: () => void;
      const held = new Promise<void>((resolve) => (unlock = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const holding = db.transaction(async (tx) => {
        await tx.query('LOCK TABLE oauth_provider_records IN ACCESS EXCLUSIVE MODE');
        locked();
        await held;
      });
      await lockTaken;
      const doomed = call(url, publicUrl, session, installation, 'service', '/current/v2/me').catch(
        (error: unknown) => error,
      );
      const waiting = async () =>
        (
          await db.query<{ n: number }>(
            // By the lock waited for, not the waiting statement's text (pg_stat_activity cuts long statements).
            "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'oauth_provider_records'::regclass AND NOT granted",
          )
        ).rows[0]!.n;
      while ((await waiting()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await leaseOf(db, recordId))!.service).toEqual(expect.any(String));
      child.kill('SIGKILL');
      await once(child, 'exit');
      unlock();
      await holding;
      expect(await doomed).toBeInstanceOf(Error);
      const grants = countRefreshGrants(host);
      const res = await call(urls[0]!, publicUrl, session, installation, 'service', '/current/v2/me');
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(200);
      expect(grants.count).toBe(1);
      const stored = (await testVault(db).findById(recordId))!;
      expect(stored.state).toBe('ready');
      expect(stored.service!.refreshToken).not.toBe(issued.refresh_token);
      expect(await leaseOf(db, recordId)).toEqual({ service: null, integrator: null });
    },
  );

  it.skipIf(isPostgres)(`runs only on PostgreSQL: ${ONLY_POSTGRES}`, () => {});
});

describe('Sweeper.sweep()', () => {
  let t: HttpTestHost;
  let installation: string;
  let vault: TokenVault;
  let people: string[];
  let now: number;

  beforeAll(async () => {
    t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
    vault = testVault(t.db);
    const addon = await registerAddon(t.db, { integratorUrl: integrator.url });
    installation = await installationId(t.db, addon.addonId);
    people = await Promise.all(
      ['admin@demo.test', 'editor@demo.test', 'member@demo.test'].map((e) => personId(t.db, e)),
    );
  });
  afterAll(() => t.close());

  const sweeper = (leadMs = 300_000) => {
    const clock = { now: () => now };
    const logger = createLogger('silent');
    const engine = createRefreshEngine({
      db: t.db,
      vault,
      clock,
      logger,
      leadMs,
      leaseMs: 4000,
      kinds: {
        integrator: integratorGrant({ db: t.db, box: testBox(), timeoutSeconds: 2, allowPrivateAddresses: true }),
        service: hostGrant({
          db: t.db,
          box: testBox(),
          loopback: createLoopback(t.host.app),
          issuer: t.baseUrl,
          timeoutSeconds: 2,
        }),
      },
    });
    return createSweeper({ db: t.db, vault, engine, clock, logger, leadMs });
  };

  it('refreshes tokens inside the lead window only, and never tokens without expiry [controllable clock]', async () => {
    now = Date.UTC(2030, 0, 1);
    const soon = await readyRecord(vault, installation, people[0]!, now, 120);
    const later = await readyRecord(vault, installation, people[1]!, now, 3600);
    const never = await readyRecord(vault, installation, people[2]!, now, undefined);
    expect(await sweeper().sweep()).toBe(1);
    expect(integrator.refreshCount).toBe(1);
    expect((await vault.findById(soon.record.id))!.integrator!.accessToken).not.toBe(soon.pair.accessToken);
    expect((await vault.findById(later.record.id))!.integrator!.accessToken).toBe(later.pair.accessToken);
    // An hour later the second token is due; the refreshed first one (1 h lifetime from `now`) too.
    now += 3_400_000;
    expect(await sweeper().sweep()).toBe(2);
    expect((await vault.findById(never.record.id))!.integrator!.accessToken).toBe(never.pair.accessToken);
    const { rows } = await t.db.query<{ integrator_refreshed_at: Date }>(
      'SELECT integrator_refreshed_at FROM addon_authorizations WHERE id = $1',
      [later.record.id],
    );
    expect(rows[0]!.integrator_refreshed_at.getTime()).toBe(now);
  });

  it('keeps going after a failure and leaves the failed record untouched, its lease released [token endpoint down]', async () => {
    now = Date.UTC(2031, 0, 1);
    const due = await readyRecord(vault, installation, people[0]!, now, 60);
    integrator.mode = 'down';
    expect(await sweeper().sweep()).toBe(0);
    expect((await vault.findById(due.record.id))!.integrator).toMatchObject({
      accessToken: due.pair.accessToken,
      refreshToken: due.pair.refreshToken,
    });
    expect((await vault.findById(due.record.id))!.state).toBe('ready');
    expect(await leaseOf(t.db, due.record.id)).toEqual({ service: null, integrator: null });
  });

  it('moves a record refused with invalid_grant to reauthorization_required and skips it afterwards [invalid_grant]', async () => {
    now = Date.UTC(2032, 0, 1);
    const due = await readyRecord(vault, installation, people[1]!, now, 60);
    integrator.mode = 'invalid_grant';
    expect(await sweeper().sweep()).toBe(0);
    expect((await vault.findById(due.record.id))!.state).toBe('reauthorization_required');
    expect(await leaseOf(t.db, due.record.id)).toEqual({ service: null, integrator: null });
    integrator.refreshCount = 0;
    await sweeper().sweep();
    expect(integrator.refreshCount).toBe(0);
  });
});
