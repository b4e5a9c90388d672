/**
 * The change log PostgreSQL hosts look at before using a kept proxied call (migration 110,
 * host/addons/proxy/proxy-call-changes.ts): what is written down, that a look sees every commit before it began
 * and nothing else, that calls arriving together share looks, and the purge. The trigger writes the log for any
 * connection without the embedded host's setting, so this runs on both databases; the cache over it:
 * proxy-call-cache.test.ts, the calls through the host: fetch-proxy-reads.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROXY_CALL_SETTING } from '#host/addons/proxy/proxy-call-cache.ts';
import {
  MAX_LOOKS,
  purgeProxyCallChanges,
  watchProxyCallChanges,
  type ProxyCallChanges,
} from '#host/addons/proxy/proxy-call-changes.ts';
import type { Database, Queryable, QueryResult } from '#host/db/database.ts';
import { createTestDatabase } from '../../support/database.ts';

let db: Database;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

/** The rows `fn` added to the log (transaction ids, as text). */
async function loggedBy(fn: () => Promise<unknown>): Promise<string[]> {
  const before = new Set(
    (await db.query<{ xid: string }>('SELECT xid::text FROM proxy_call_changes')).rows.map((r) => r.xid),
  );
  await fn();
  const after = (await db.query<{ xid: string }>('SELECT xid::text FROM proxy_call_changes')).rows.map((r) => r.xid);
  return after.filter((xid) => !before.has(xid));
}

/** A Queryable counting its statements. */
function counted(q: Queryable): Queryable & { statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    query<T>(sql: string, params?: readonly unknown[]): Promise<QueryResult<T>> {
      statements.push(sql);
      return q.query<T>(sql, params);
    },
    exec: (sql) => q.exec(sql),
  };
}

describe('migration 110: what is written down [log]', () => {
  it.each([
    ['a session revoked', 'UPDATE host_sessions SET revoked_at = revoked_at WHERE false'],
    ['a person changed', 'UPDATE people SET status = status WHERE false'],
    ['an organization renamed', 'UPDATE organizations SET name = name WHERE false'],
    ['roles changed', 'DELETE FROM person_product_roles WHERE false'],
    ['an installation changed', 'UPDATE addon_installations SET environment = environment WHERE false'],
    ['an authorization changed', 'UPDATE addon_authorizations SET state = state WHERE false'],
    ['an access mode changed', 'UPDATE connected_application_settings SET access_mode = access_mode WHERE false'],
  ])('writes down %s as its transaction’s id', async (_what, sql) => {
    let xid = '';
    const rows = await loggedBy(() =>
      db.transaction(async (tx) => {
        await tx.query(sql);
        xid = (await tx.query<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).rows[0]!.xid;
      }),
    );
    expect(rows).toEqual([xid]);
  });

  it('writes one row for a transaction of several statements [once]', async () => {
    const rows = await loggedBy(() =>
      db.transaction(async (tx) => {
        await tx.query('UPDATE people SET status = status WHERE false');
        await tx.query('UPDATE addon_authorizations SET state = state WHERE false');
        await tx.query('DELETE FROM host_sessions WHERE false');
      }),
    );
    expect(rows).toHaveLength(1);
  });

  it('writes nothing for the last-seen touch, a rolled-back change, or the embedded host’s connection [not]', async () => {
    expect(await loggedBy(() => db.query('UPDATE host_sessions SET last_seen_at = last_seen_at WHERE false'))).toEqual(
      [],
    );
    const rolledBack = loggedBy(() =>
      db.transaction(async (tx) => {
        await tx.query('UPDATE people SET status = status WHERE false');
        throw new Error('rolled back');
      }),
    );
    await expect(rolledBack).rejects.toThrow('rolled back');
    const announced = await loggedBy(() =>
      db.transaction(async (tx) => {
        await tx.query(`SET LOCAL ${PROXY_CALL_SETTING} = 'on'`);
        await tx.query('UPDATE people SET status = status WHERE false');
      }),
    );
    expect(announced).toEqual([]);
  });
});

describe('watchProxyCallChanges [looks]', () => {
  let changes: ProxyCallChanges;
  let heard = 0;
  beforeAll(async () => {
    changes = await watchProxyCallChanges(db, { onChange: () => (heard += 1), staleAfterMs: 3_600_000 });
  });

  it('reports a change committed before the look began, once, and nothing when nothing committed [change]', async () => {
    expect(await changes.settled()).toBe(true);
    const start = heard;
    expect(await changes.settled()).toBe(true);
    expect(heard).toBe(start);
    await db.query('UPDATE people SET status = status WHERE false');
    expect(await changes.settled()).toBe(true);
    expect(heard).toBe(start + 1);
    expect(await changes.settled()).toBe(true);
    expect(heard).toBe(start + 1);
  });

  it('does not report a change still uncommitted, and reports it once committed [uncommitted]', async () => {
    await changes.settled();
    const start = heard;
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => (commit = resolve));
    let written!: () => void;
    const isWritten = new Promise<void>((resolve) => (written = resolve));
    const writer = db.transaction(async (tx) => {
      await tx.query('UPDATE addon_authorizations SET state = state WHERE false');
      written();
      await committed;
    });
    await isWritten;
    if (db.kind === 'postgres') {
      // PGlite runs one statement at a time: a look would wait for the writer's transaction to end.
      expect(await changes.settled()).toBe(true);
      expect(heard).toBe(start);
    }
    commit();
    await writer;
    expect(await changes.settled()).toBe(true);
    expect(heard).toBe(start + 1);
  });

  it('gives a call its own look while fewer than MAX_LOOKS run, and shares the next among the rest [shared]', async () => {
    const q = counted(db);
    const shared = await watchProxyCallChanges(q, { onChange: () => {}, staleAfterMs: 3_600_000 });
    q.statements.length = 0;
    const answers = await Promise.all(Array.from({ length: 20 }, () => shared.settled()));
    expect(answers).toEqual(Array.from({ length: 20 }, () => true));
    // MAX_LOOKS calls start one each; all the others wait for one more, begun once the first ends.
    expect(q.statements).toHaveLength(MAX_LOOKS + 1);
    expect(q.statements.every((sql) => /\bFROM proxy_call_changes\b/.test(sql))).toBe(true);
  });

  it('answers a call arriving while a look runs only once a look begun after it saw the change committed meanwhile [running]', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    // The first look's statement runs (its snapshot taken) but its answer is held back until the change committed.
    const slow: Queryable = {
      async query<T>(sql: string, params?: readonly unknown[]) {
        const result = await db.query<T>(sql, params);
        if (!holding && /\bFROM proxy_call_changes\b/.test(sql)) {
          holding = true;
          await held;
        }
        return result;
      },
      exec: (sql) => db.exec(sql),
    };
    let heard = 0;
    const watched = await watchProxyCallChanges(slow, { onChange: () => (heard += 1), staleAfterMs: 3_600_000 });
    const first = watched.settled();
    while (!holding) await new Promise((resolve) => setTimeout(resolve, 1));
    await db.query('UPDATE people SET status = status WHERE false');
    const second = watched.settled().then((fresh) => ({ fresh, heard }));
    release();
    expect(await first).toBe(true);
    expect(await second).toEqual({ fresh: true, heard: 1 });
  });

  it('counts a look after more than staleAfterMs without one as a change [stale]', async () => {
    let now = 1_000_000;
    let stale = 0;
    const watched = await watchProxyCallChanges(db, {
      onChange: () => (stale += 1),
      staleAfterMs: 60_000,
      now: () => now,
    });
    now += 60_000;
    await watched.settled();
    expect(stale).toBe(0);
    now += 60_001;
    await watched.settled();
    expect(stale).toBe(1);
  });

  it('reports a failed look as a change and answers false; the next look starts where the last good one ended [failure]', async () => {
    let fail = false;
    let reported = 0;
    const failing: Queryable = {
      query: (sql, params) => (fail ? Promise.reject(new Error('connection lost')) : db.query(sql, params)),
      exec: (sql) => db.exec(sql),
    };
    const watched = await watchProxyCallChanges(failing, { onChange: () => (reported += 1), staleAfterMs: 3_600_000 });
    fail = true;
    await db.query('UPDATE people SET status = status WHERE false');
    expect(await watched.settled()).toBe(false);
    expect(reported).toBe(1);
    fail = false;
    expect(await watched.settled()).toBe(true);
    // The change committed while looks failed is still seen.
    expect(reported).toBe(2);
  });

  it('purges rows older than ten minutes and writes the purge down as a change [purge]', async () => {
    await db.query('UPDATE people SET status = status WHERE false');
    await db.query("UPDATE proxy_call_changes SET at = now() - interval '11 minutes'");
    const old = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM proxy_call_changes')).rows[0]!.n;
    expect(old).toBeGreaterThan(0);
    await changes.settled();
    const start = heard;
    const rows = await loggedBy(() => purgeProxyCallChanges(db));
    const left = await db.query<{ xid: string; fresh: boolean }>(
      "SELECT xid::text, at > now() - interval '1 minute' AS fresh FROM proxy_call_changes",
    );
    expect(left.rows).toEqual([{ xid: rows[0], fresh: true }]);
    expect(await changes.settled()).toBe(true);
    expect(heard).toBe(start + 1);
    // Nothing old left: the next purge deletes nothing and writes nothing.
    expect(await loggedBy(() => purgeProxyCallChanges(db))).toEqual([]);
  });
});
