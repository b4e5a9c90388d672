import { CSRF_HEADER, FETCH_HEADER, encodeEnvelope } from '@addon-kit/sdk/protocol';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createHost, type Host } from '@addon-kit/host/internal/app.ts';
import { createRefresher } from '@addon-kit/host/internal/addons/refresher.ts';
import type { TokenVault } from '@addon-kit/host/internal/addons/token-vault.ts';
import { openDatabase, type Database } from '@addon-kit/host/internal/db/database.ts';
import { createLogger } from '@addon-kit/host/internal/logger.ts';
import { withDatabaseName } from '../../support/global-setup.ts';
import { personId, testConfig } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { adminUrl, withDatabase } from '../../support/postgres.ts';
import { installationId, loggedIn, proxyFetch, registerAddon, seedReady, startTestIntegrator, testBox, testVault, upstreamOf, type TestIntegrator } from './fixtures.ts';

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
async function readyRecord(vault: TokenVault, installation: string, person: string, now: number, ttlSeconds: number | undefined) {
  const pair = integrator.issue();
  const expiresAt = ttlSeconds === undefined ? undefined : new Date(now + ttlSeconds * 1000);
  const record = await seedReady(vault, installation, person, { accessToken: pair.accessToken, refreshToken: pair.refreshToken, expiresAt, scope: undefined });
  return { record, pair };
}

describe('POST /addons/installations/{id}/fetch/integrator [concurrency]', () => {
  let t: HttpTestHost;
  let installation: string;
  let vault: TokenVault;
  let adminId: string;

  beforeAll(async () => {
    t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
    vault = testVault(t.db);
    const addon = await registerAddon(t.db, { integratorUrl: integrator.url });
    installation = await installationId(t.db, addon.addonId);
    adminId = await personId(t.db, 'admin@demo.test');
  });
  afterAll(() => t.close());

  it('sends exactly one refresh for 200 concurrent calls with an expired token, and all succeed [one host]', async () => {
    const session = await loggedIn(t.baseUrl);
    const { record, pair } = await readyRecord(vault, installation, adminId, Date.now(), -60);
    integrator.tokenDelayMs = 300;
    const responses = await Promise.all(Array.from({ length: 200 }, () => proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' })));
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(responses.map((r) => upstreamOf(r).status)).toEqual(Array(200).fill(200));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(integrator.refreshCount).toBe(1);
    const stored = (await vault.findById(record.id))!.integrator!;
    expect(stored.refreshToken).not.toBe(pair.refreshToken);
    expect(new Set(integrator.apiRequests.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${stored.accessToken}`]));
  });
});

describe('POST /addons/installations/{id}/fetch/integrator [two hosts, one PostgreSQL]', () => {
  const template = inject('dbTemplate');
  const hosts: { host: Host; db: Database; server: Server }[] = [];
  let dbUrl: string | undefined;

  afterAll(async () => {
    for (const h of hosts) {
      h.server.closeAllConnections();
      await new Promise<void>((resolve) => h.server.close(() => resolve()));
      await h.host.close();
      await h.db.close();
    }
  });

  it.skipIf(template.kind !== 'postgres')('sends exactly one refresh for 200 calls spread over two host processes [database lock]', async () => {
    if (template.kind !== 'postgres') return;
    const name = `${template.prefix}_${randomBytes(4).toString('hex')}`;
    await withDatabase(adminUrl(template.url), (admin) => admin.exec(`CREATE DATABASE ${name} TEMPLATE ${template.database}`));
    dbUrl = withDatabaseName(template.url, name);
    // Two hosts behind one public base URL (as behind a load balancer), each with its own pool and runtime.
    const servers = [createServer(), createServer()];
    for (const s of servers) await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const publicUrl = `http://127.0.0.1:${(servers[0]!.address() as AddressInfo).port}`;
    for (const server of servers) {
      const db = await openDatabase({ databaseUrl: dbUrl });
      const host = await createHost({ config: testConfig({ baseUrl: publicUrl, addonSweepIntervalSeconds: 0 }), db, logger: createLogger('silent') });
      server.on('request', host.app);
      hosts.push({ host, db, server });
    }
    const db = hosts[0]!.db;
    const vault = testVault(db);
    const addon = await registerAddon(db, { integratorUrl: integrator.url });
    const installation = await installationId(db, addon.addonId);
    const { record } = await readyRecord(vault, installation, await personId(db, 'admin@demo.test'), Date.now(), -60);
    const session = await loggedIn(publicUrl);
    // A slow token endpoint: both hosts are surely waiting for a refresh at the same time.
    integrator.tokenDelayMs = 300;
    const urls = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${urls[i % 2]}/addons/installations/${installation}/fetch/integrator`, {
          method: 'POST',
          headers: {
            cookie: session.cookie,
            [CSRF_HEADER]: session.csrf,
            origin: publicUrl,
            [FETCH_HEADER]: encodeEnvelope({ method: 'GET', url: '/api/messages', headers: [] }),
          },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    expect(responses.map((r) => upstreamOf(r).status)).toEqual(Array(200).fill(200));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    expect(integrator.refreshCount).toBe(1);
    const stored = (await vault.findById(record.id))!.integrator!;
    expect(new Set(integrator.apiRequests.map((r) => r.headers.authorization))).toEqual(new Set([`Bearer ${stored.accessToken}`]));
  });
});

describe('Refresher.sweep()', () => {
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
    people = await Promise.all(['admin@demo.test', 'editor@demo.test', 'member@demo.test'].map((e) => personId(t.db, e)));
  });
  afterAll(() => t.close());

  const refresher = (leadMs = 300_000) =>
    createRefresher({ db: t.db, box: testBox(), vault, clock: { now: () => now }, logger: createLogger('silent'), leadMs, tokenTimeoutSeconds: 2, allowPrivateAddresses: true });

  it('refreshes tokens inside the lead window only, and never tokens without expiry [controllable clock]', async () => {
    now = Date.UTC(2030, 0, 1);
    const soon = await readyRecord(vault, installation, people[0]!, now, 120);
    const later = await readyRecord(vault, installation, people[1]!, now, 3600);
    const never = await readyRecord(vault, installation, people[2]!, now, undefined);
    expect(await refresher().sweep()).toBe(1);
    expect(integrator.refreshCount).toBe(1);
    expect((await vault.findById(soon.record.id))!.integrator!.accessToken).not.toBe(soon.pair.accessToken);
    expect((await vault.findById(later.record.id))!.integrator!.accessToken).toBe(later.pair.accessToken);
    // An hour later the second token is due; the refreshed first one (1 h lifetime from `now`) too.
    now += 3_400_000;
    expect(await refresher().sweep()).toBe(2);
    expect((await vault.findById(never.record.id))!.integrator!.accessToken).toBe(never.pair.accessToken);
    const { rows } = await t.db.query<{ integrator_refreshed_at: Date }>('SELECT integrator_refreshed_at FROM addon_authorizations WHERE id = $1', [later.record.id]);
    expect(rows[0]!.integrator_refreshed_at.getTime()).toBe(now);
  });

  it('keeps going after a failure and leaves the failed record untouched [token endpoint down]', async () => {
    now = Date.UTC(2031, 0, 1);
    const due = await readyRecord(vault, installation, people[0]!, now, 60);
    integrator.mode = 'down';
    expect(await refresher().sweep()).toBe(0);
    expect((await vault.findById(due.record.id))!.integrator).toMatchObject({ accessToken: due.pair.accessToken, refreshToken: due.pair.refreshToken });
    expect((await vault.findById(due.record.id))!.state).toBe('ready');
  });

  it('moves a record refused with invalid_grant to reauthorization_required and skips it afterwards [invalid_grant]', async () => {
    now = Date.UTC(2032, 0, 1);
    const due = await readyRecord(vault, installation, people[1]!, now, 60);
    integrator.mode = 'invalid_grant';
    expect(await refresher().sweep()).toBe(0);
    expect((await vault.findById(due.record.id))!.state).toBe('reauthorization_required');
    integrator.refreshCount = 0;
    await refresher().sweep();
    expect(integrator.refreshCount).toBe(0);
  });
});
