/**
 * The proxied calls' cache (host/addons/proxy/proxy-call-cache.ts) and the announcements it stands on (migration
 * 098): which changes are announced, when an entry may answer, and that a read in flight across a change is
 * not kept. The calls themselves, through the host: fetch-proxy-reads.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersonRecord } from '#host/auth/person.ts';
import type { Installation } from '#host/addons/registry/installations.ts';
import {
  createProxyCallCache,
  MAX_AGE_MS,
  MAX_ENTRIES,
  PROXY_CALL_CHANNEL,
  PROXY_CALL_SETTING,
  proxyCallKey,
  type CachedProxyCall,
  type ProxyCallCache,
} from '#host/addons/proxy/proxy-call-cache.ts';
import { openDatabase, type Database, type Subscription } from '#host/db/database.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Database;
const heard: string[] = [];
let subscription: Subscription;

beforeAll(async () => {
  db = await createTestDatabase();
  subscription = await db.listen!(
    PROXY_CALL_CHANNEL,
    (payload) => heard.push(payload),
    () => {},
  );
});
afterAll(async () => {
  await subscription.close();
  await db.close();
});

/** Announcements heard for `sql`: a marker notified after it arrives after them (on PostgreSQL, on another connection). */
async function announcementsOf(sql: string, setting = true): Promise<number> {
  const start = heard.length;
  await db.transaction(async (tx) => {
    if (setting) await tx.query(`SET LOCAL ${PROXY_CALL_SETTING} = 'on'`);
    await tx.query(sql);
  });
  const marker = `marker-${start}`;
  await db.query('SELECT pg_notify($1, $2)', [PROXY_CALL_CHANNEL, marker]);
  for (let i = 0; i < 300 && !heard.includes(marker); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(heard).toContain(marker);
  return heard.slice(start).filter((payload) => payload === '').length;
}

const value = (expiresInMs = 3_600_000): CachedProxyCall => ({
  person: { id: '1' } as PersonRecord,
  installation: { id: '2' } as Installation,
  record: undefined,
  accessRefused: false,
  sessionExpiresAt: new Date(Date.now() + expiresInMs),
});

describe('migration 098: what is announced [announcements]', () => {
  it.each([
    ['a session revoked', 'UPDATE host_sessions SET revoked_at = revoked_at WHERE false'],
    ['a session expiry moved', 'UPDATE host_sessions SET expires_at = expires_at WHERE false'],
    ['sessions deleted', 'DELETE FROM host_sessions WHERE false'],
    ['a person changed', 'UPDATE people SET status = status WHERE false'],
    ['people deleted', 'DELETE FROM people WHERE false'],
    ['an organization renamed', 'UPDATE organizations SET name = name WHERE false'],
    ['roles changed', 'DELETE FROM person_product_roles WHERE false'],
    ['an add-on changed', 'UPDATE addons SET organization_id = organization_id WHERE false'],
    ['a version added', 'DELETE FROM addon_versions WHERE false'],
    ['an installation changed', 'UPDATE addon_installations SET environment = environment WHERE false'],
    ['an authorization changed', 'UPDATE addon_authorizations SET state = state WHERE false'],
    // Migration 099: who may use the add-on's application.
    ['an access mode changed', 'UPDATE connected_application_settings SET access_mode = access_mode WHERE false'],
    ['the people allowed changed', 'DELETE FROM connected_application_people_allowed WHERE false'],
  ])('announces %s, once per statement', async (_what, sql) => {
    expect(await announcementsOf(sql)).toBe(1);
  });

  it('announces nothing for a connection without the setting (PostgreSQL hosts look at the change log) [setting]', async () => {
    expect(await announcementsOf('UPDATE people SET status = status WHERE false', false)).toBe(0);
  });

  it('does not announce the last-seen touch of a session [touch]', async () => {
    expect(await announcementsOf('UPDATE host_sessions SET last_seen_at = last_seen_at WHERE false')).toBe(0);
  });
});

describe('createProxyCallCache [entries]', () => {
  let cache: ProxyCallCache;
  beforeAll(async () => {
    cache = await createProxyCallCache(db);
  });
  afterAll(() => cache.close());
  const key = proxyCallKey('session', '2');

  it('keeps entries on both databases [enabled]', async () => {
    expect(cache.enabled).toBe(true);
    cache.keep(key, cache.ticket(), value(), Date.now());
    expect(await cache.settled()).toBe(true);
    expect(cache.get(key, Date.now())).toBeDefined();
  });

  // PostgreSQL: a change is known once a look at the change log begun after it has ended (settled).
  describe.runIf(process.env.DATABASE_URL !== undefined)('on PostgreSQL', () => {
    it('forgets every entry once settled after a change committed by another connection, not before [change]', async () => {
      const now = Date.now();
      expect(await cache.settled()).toBe(true);
      cache.keep(key, cache.ticket(), value(), now);
      const url = (db as unknown as { pool: { options: { connectionString: string } } }).pool.options.connectionString;
      const other = await openDatabase({ databaseUrl: url, maxConnections: 1 });
      try {
        await other.query('UPDATE people SET status = status WHERE false');
      } finally {
        await other.close();
      }
      expect(cache.get(key, now)).toBeDefined();
      expect(await cache.settled()).toBe(true);
      expect(cache.get(key, now)).toBeUndefined();
    });

    it('does not keep a read a change overtook [ticket]', async () => {
      const now = Date.now();
      const ticket = cache.ticket();
      await db.query('UPDATE addon_authorizations SET state = state WHERE false');
      expect(await cache.settled()).toBe(true);
      cache.keep(key, ticket, value(), now);
      expect(cache.get(key, now)).toBeUndefined();
      cache.keep(key, cache.ticket(), value(), now);
      expect(cache.get(key, now)).toBeDefined();
    });

    it('keeps an entry while nothing changes [unchanged]', async () => {
      const now = Date.now();
      expect(await cache.settled()).toBe(true);
      const kept = value();
      cache.keep(key, cache.ticket(), kept, now);
      await db.query('UPDATE host_sessions SET last_seen_at = last_seen_at WHERE false');
      expect(await cache.settled()).toBe(true);
      expect(cache.get(key, now)).toBe(kept);
    });
  });

  it('answers until MAX_AGE_MS or the session expiry, whichever is first [age]', () => {
    const now = Date.now();
    const kept = value();
    cache.keep(key, cache.ticket(), kept, now);
    expect(cache.get(key, now + MAX_AGE_MS - 1)).toBe(kept);
    expect(cache.get(key, now + MAX_AGE_MS)).toBeUndefined();
    const short = value(1000);
    cache.keep(key, cache.ticket(), short, now);
    expect(cache.get(key, short.sessionExpiresAt.getTime() - 1)).toBe(short);
    expect(cache.get(key, short.sessionExpiresAt.getTime())).toBeUndefined();
  });

  it('keeps at most MAX_ENTRIES, the oldest going first [size]', () => {
    const now = Date.now();
    for (let i = 0; i <= MAX_ENTRIES; i++) cache.keep(proxyCallKey(`s${i}`, '2'), cache.ticket(), value(), now);
    expect(cache.get(proxyCallKey('s0', '2'), now)).toBeUndefined();
    expect(cache.get(proxyCallKey('s1', '2'), now)).toBeDefined();
    expect(cache.get(proxyCallKey(`s${MAX_ENTRIES}`, '2'), now)).toBeDefined();
  });

  // The embedded database hears each change as the statement that made it resolves.
  describe.runIf(process.env.DATABASE_URL === undefined)('on the embedded database', () => {
    it('forgets every entry when a change is announced, and does not keep a read a change overtook [change]', async () => {
      const now = Date.now();
      cache.keep(key, cache.ticket(), value(), now);
      await db.query('UPDATE people SET status = status WHERE false');
      expect(cache.get(key, now)).toBeUndefined();
      const ticket = cache.ticket();
      await db.query('UPDATE addon_authorizations SET state = state WHERE false');
      cache.keep(key, ticket, value(), now);
      expect(cache.get(key, now)).toBeUndefined();
    });
  });
});
