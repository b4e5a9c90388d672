/**
 * What one proxied call reads: the session's person, the installation and the person's vault row in ONE
 * statement (decrypted once) — the loaded rows are passed down. Counted on the database wrapper the host itself
 * queries through.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database, type Queryable } from '#host/db/database.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
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
  type AddonFixture,
  type TestIntegrator,
} from './fixtures.ts';

let t: HttpTestHost;
let integrator: TestIntegrator;
let addon: AddonFixture;
let installation: string;
let adminId: string;
let admin: { csrf: string; cookie: string };

beforeAll(async () => {
  integrator = await startTestIntegrator();
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
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
  integrator.refreshCount = 0;
});

/** Every statement run while `fn` runs, in and out of transactions (the host queries through `db`). */
async function statementsOf(db: Database, fn: () => Promise<void>): Promise<string[]> {
  const { query, transaction } = db;
  const seen: string[] = [];
  const counting = (q: Queryable): Queryable => ({
    query(sql, params) {
      seen.push(sql);
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  Object.assign(db, {
    query(sql: string, params?: readonly unknown[]) {
      seen.push(sql);
      return query.call(db, sql, params);
    },
    transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      return transaction.call(db, (tx) => work(counting(tx))) as Promise<T>;
    },
  });
  try {
    await fn();
  } finally {
    Object.assign(db, { query, transaction });
  }
  return seen;
}

/** The statements reading a table (a write's RETURNING is not a read). */
const reading = (statements: string[], table: string) =>
  statements.filter((sql) => !/^\s*(UPDATE|INSERT|DELETE)\b/.test(sql) && new RegExp(`\\bFROM ${table}\\b`).test(sql));

/** The one statement that reads the session's person, the installation and the vault row together. */
const isProxyRead = (sql: string) =>
  ['host_sessions', 'addon_installations', 'addon_authorizations'].every((table) =>
    new RegExp(`\\bFROM ${table}\\b`).test(sql),
  );

/** A ready authorization of the admin: a fresh integrator pair and the host's own grant. */
async function ready(): Promise<{ accessToken: string; host: string }> {
  const pair = integrator.issue();
  const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
    clientId: addon.clientId,
    personId: adminId,
    scopes: ['people'],
  });
  await seedReady(
    testVault(t.db),
    installation,
    adminId,
    {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      expiresAt: new Date(Date.now() + 3_600_000),
      scope: 'messages',
    },
    {
      tokens: {
        accessToken: issued.access_token,
        refreshToken: issued.refresh_token,
        expiresAt: new Date(Date.now() + 3_600_000),
        scope: 'people',
      },
      scopes: ['people'],
    },
  );
  return { accessToken: pair.accessToken, host: issued.access_token };
}

describe('POST /addons/installations/{id}/fetch/{side} [reads]', () => {
  it('runs one statement for an integrator call: person, installation and vault row together [integrator]', async () => {
    await ready();
    const statements = await statementsOf(t.db, async () => {
      const res = await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(200);
      await res.arrayBuffer();
    });
    expect(statements).toHaveLength(1);
    expect(isProxyRead(statements[0]!)).toBe(true);
  });

  it('reads the installation and the vault row once, with the person, for a service call [service]', async () => {
    await ready();
    const statements = await statementsOf(t.db, async () => {
      const res = await proxyFetch(t.baseUrl, admin, installation, 'service', { url: '/people/v2/lists' });
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(200);
      await res.arrayBuffer();
    });
    // The host's own API answers the loopback call with statements of its own (the bearer token, the page).
    expect(statements.filter(isProxyRead)).toHaveLength(1);
    expect(reading(statements, 'addon_installations')).toHaveLength(1);
    expect(reading(statements, 'addon_authorizations')).toHaveLength(1);
  });

  it('reads the vault row once even when the integrator answers 401: the refresh lease claim returns the row [401 retry]', async () => {
    const { accessToken } = await ready();
    integrator.validAccess.delete(accessToken);
    const statements = await statementsOf(t.db, async () => {
      const res = await proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
      expect(res.status).toBe(200);
      expect(upstreamOf(res).status).toBe(200);
      await res.arrayBuffer();
    });
    expect(integrator.refreshCount).toBe(1);
    // One read by the proxy; the refresh engine's lease claim (UPDATE … RETURNING) brings back the current row,
    // so what another process may have refreshed is seen without a second read.
    expect(statements.filter(isProxyRead)).toHaveLength(1);
    expect(reading(statements, 'addon_installations')).toHaveLength(1);
    expect(reading(statements, 'addon_authorizations')).toHaveLength(1);
  });
});

/** The session of the latest login (a test's own, not the file's `admin`). */
const NEWEST_SESSION = 'SELECT id_hash FROM host_sessions ORDER BY created_at DESC, id_hash LIMIT 1';

/** The error envelope of a refused call, and its status. */
async function refusal(res: Response): Promise<{ status: number; code: unknown }> {
  const body = (await res.json()) as { error?: { code?: unknown } };
  return { status: res.status, code: body.error?.code };
}

describe('POST /addons/installations/{id}/fetch/{side} [kept between calls]', () => {
  const integratorCall = () => proxyFetch(t.baseUrl, admin, installation, 'integrator', { url: '/api/messages' });
  it('runs no read for a repeated call: nothing on the embedded database, one look at the change log on PostgreSQL [repeat]', async () => {
    await ready();
    expect((await integratorCall()).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const statements = await statementsOf(t.db, async () => {
        const res = await integratorCall();
        expect(res.status).toBe(200);
        expect(upstreamOf(res).status).toBe(200);
        await res.arrayBuffer();
      });
      if (t.db.kind === 'pglite') expect(statements).toEqual([]);
      else {
        expect(statements).toHaveLength(1);
        expect(statements[0]).toMatch(/\bFROM proxy_call_changes\b/);
        expect(isProxyRead(statements[0]!)).toBe(false);
      }
    }
  });

  // Another host process on the same PostgreSQL database: its own connections, nothing shared in memory.
  describe.runIf(process.env.DATABASE_URL !== undefined)(
    'a change committed by another process [other process]',
    () => {
      let other: Database;
      beforeAll(async () => {
        const url = (t.db as unknown as { pool: { options: { connectionString: string } } }).pool.options
          .connectionString;
        other = await openDatabase({ databaseUrl: url, maxConnections: 1 });
      });
      afterAll(() => other.close());

      it('applies to the very next call: a deactivated person, a revoked session [revoked]', async () => {
        const session = await loggedIn(t.baseUrl);
        await ready();
        const call = () => proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
        // Kept: the second call runs no read.
        expect((await call()).status).toBe(200);
        expect((await call()).status).toBe(200);
        await other.query("UPDATE people SET status = 'inactive' WHERE id = $1", [adminId]);
        try {
          expect(await refusal(await call())).toEqual({ status: 401, code: 'login_required' });
        } finally {
          await other.query("UPDATE people SET status = 'active' WHERE id = $1", [adminId]);
        }
        expect((await call()).status).toBe(200);
        expect((await call()).status).toBe(200);
        await other.query(`UPDATE host_sessions SET revoked_at = now() WHERE id_hash = (${NEWEST_SESSION})`);
        expect(await refusal(await call())).toEqual({ status: 401, code: 'login_required' });
      });
    },
  );

  it('refuses the next call once the session is revoked, whichever way it was [revoked]', async () => {
    const session = await loggedIn(t.baseUrl);
    await ready();
    expect((await proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' })).status).toBe(
      200,
    );
    await t.db.query(`UPDATE host_sessions SET revoked_at = now() WHERE id_hash = (${NEWEST_SESSION})`);
    const res = await proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
    expect(await refusal(res)).toEqual({ status: 401, code: 'login_required' });
  });

  it('refuses the next call once the person is deactivated, and serves again once active [person]', async () => {
    await ready();
    expect((await integratorCall()).status).toBe(200);
    await t.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [adminId]);
    try {
      expect(await refusal(await integratorCall())).toEqual({ status: 401, code: 'login_required' });
    } finally {
      await t.db.query("UPDATE people SET status = 'active' WHERE id = $1", [adminId]);
    }
    expect((await integratorCall()).status).toBe(200);
  });

  it('sends the rotated token on the next call, without a refresh [authorization]', async () => {
    const first = await ready();
    expect((await integratorCall()).status).toBe(200);
    const second = await ready();
    integrator.validAccess.delete(first.accessToken);
    integrator.apiRequests.length = 0;
    const res = await integratorCall();
    expect(res.status).toBe(200);
    expect(upstreamOf(res).status).toBe(200);
    expect(integrator.apiRequests.map((r) => r.headers.authorization)).toEqual([`Bearer ${second.accessToken}`]);
    expect(integrator.refreshCount).toBe(0);
  });

  it('asks for the handshake on the next call once the authorization is gone [handshake]', async () => {
    await ready();
    expect((await integratorCall()).status).toBe(200);
    await t.db.query('DELETE FROM addon_authorizations WHERE installation_id = $1 AND person_id = $2', [
      installation,
      adminId,
    ]);
    expect(await refusal(await integratorCall())).toEqual({ status: 401, code: 'handshake_required' });
  });

  it('refuses the next call once the session has expired [expiry]', async () => {
    const session = await loggedIn(t.baseUrl);
    await ready();
    const call = () => proxyFetch(t.baseUrl, session, installation, 'integrator', { url: '/api/messages' });
    const expiresAt = new Date(Date.now() + 1500);
    await t.db.query(`UPDATE host_sessions SET expires_at = $1 WHERE id_hash = (${NEWEST_SESSION})`, [expiresAt]);
    // Read (and, on the embedded database, kept) while the session lives …
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    // … and refused from its expiry on, with nothing written in between.
    await new Promise((resolve) => setTimeout(resolve, expiresAt.getTime() - Date.now() + 50));
    expect(await refusal(await call())).toEqual({ status: 401, code: 'login_required' });
  });
});
