/**
 * What one refresh_token grant sends to the database: one statement reading the refresh token, its grant
 * and its person, one writing the consume, the new tokens and the kept answer (refresh-reads.ts,
 * refresh-writes.ts), and on PostgreSQL one reading the client-authentication throttle's counters.
 * Counted on the database wrapper the host itself queries through.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '#host/db/database.ts';
import { recordDigest } from '#host/oauth/provider-records/index.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { personId } from '../../support/host.ts';
import { createTestApplication, credentials, postOAuth, type TestApplication } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;
let adminId: string;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db);
  adminId = await personId(t.db, 'admin@demo.test');
});
afterAll(() => t.close());

/** The statements sent while `fn` runs, in and out of transactions, whitespace collapsed. */
async function recordStatements(db: Database, fn: () => Promise<void>): Promise<string[]> {
  const { query, transaction } = db;
  const sent: string[] = [];
  const recording = (q: Queryable): Queryable => ({
    query(sql, params) {
      sent.push(sql.replace(/\s+/g, ' ').trim());
      return q.query(sql, params);
    },
    exec: (sql) => q.exec(sql),
  });
  Object.assign(db, {
    query(sql: string, params?: readonly unknown[]) {
      sent.push(sql.replace(/\s+/g, ' ').trim());
      return query.call(db, sql, params);
    },
    transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
      sent.push('BEGIN');
      return transaction.call(db, (tx) => work(recording(tx))) as Promise<T>;
    },
  });
  try {
    await fn();
  } finally {
    Object.assign(db, { query, transaction });
  }
  return sent;
}

async function refresh(refreshToken: string): Promise<{ status: number; body: Record<string, unknown> }> {
  return postOAuth(t.baseUrl, '/oauth/token', {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...credentials(app),
  });
}

async function storedRefreshToken(token: string) {
  const { rows } = await t.db.query<{ consumed: boolean; kept: boolean }>(
    `SELECT consumed_at IS NOT NULL AS consumed, replay_sealed IS NOT NULL AS kept
     FROM oauth_provider_records WHERE model = 'RefreshToken' AND id_digest = $1`,
    [recordDigest(token)],
  );
  return rows[0];
}

describe('POST /oauth/token [refresh_token, statements]', () => {
  it('reads in one statement and writes in one statement [rotation]', async () => {
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: adminId,
      scopes: ['people'],
    });
    // Expiries are whole seconds: a refresh within the second of the issue has no grant to extend (and the next one,
    // a second later, would). Into the next second first, so the first refresh is the one that extends it.
    await sleep(1000 - (Date.now() % 1000) + 10);
    // The first refresh of the month records the monthly active user and extends the grant; the next does neither.
    const first = await refresh(issued.refresh_token);
    expect(first.status).toBe(200);
    let second: { status: number; body: Record<string, unknown> } | undefined;
    const sent = await recordStatements(t.db, async () => {
      second = await refresh(first.body.refresh_token as string);
    });
    expect(second!.status).toBe(200);
    expect(sent).toEqual([
      // The client-authentication throttle's counters: in memory on PGlite, one read on PostgreSQL.
      ...(t.db.kind === 'postgres' ? [expect.stringMatching(/^SELECT key, points, expire FROM rate_limits /)] : []),
      expect.stringMatching(
        /^SELECT rt.payload, rt.consumed_at, \(SELECT row_to_json\(g\) FROM \( SELECT payload, consumed_at/,
      ),
      expect.stringMatching(/^WITH consumed AS \( ?UPDATE oauth_provider_records SET consumed_at = /),
    ]);
    expect(await storedRefreshToken(first.body.refresh_token as string)).toEqual({ consumed: true, kept: true });
    expect(await storedRefreshToken(second!.body.refresh_token as string)).toEqual({ consumed: false, kept: false });
    const { rows } = await t.db.query(
      "SELECT 1 FROM oauth_provider_records WHERE model = 'AccessToken' AND id_digest = $1",
      [recordDigest(second!.body.access_token as string)],
    );
    expect(rows).toHaveLength(1);
  });

  it('writes nothing when the refresh token was used already, and revokes its grant [reuse]', async () => {
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: adminId,
      scopes: ['people'],
    });
    const first = await refresh(issued.refresh_token);
    expect(first.status).toBe(200);
    // Outside the grace period the reuse is refused and the grant revoked: no consume, no new token written.
    const { rowCount } = await t.db.query(
      "UPDATE oauth_provider_records SET consumed_at = consumed_at - interval '1 hour' WHERE model = 'RefreshToken' AND id_digest = $1",
      [recordDigest(issued.refresh_token)],
    );
    expect(rowCount).toBe(1);
    const sent = await recordStatements(t.db, async () => {
      const reused = await refresh(issued.refresh_token);
      expect(reused).toEqual({
        status: 400,
        headers: expect.anything(),
        body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
      });
    });
    expect(sent.filter((sql) => /^(WITH consumed|INSERT)/.test(sql))).toEqual([]);
    expect(await refresh(first.body.refresh_token as string)).toMatchObject({ status: 400 });
  });
});
