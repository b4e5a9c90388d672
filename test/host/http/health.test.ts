import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '#host/db/database.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, type TestHost } from '../../support/host.ts';

describe('GET /health', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost();
  });
  afterAll(() => t.host.close());

  it('answers 200 while the database answers', async () => {
    const res = await t.api().get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: t.db.kind });
  });

  it('answers 503 with Retry-After, not 500, when the database is down', async () => {
    await t.db.close();
    const res = await t.api().get('/health');
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({ status: 'unavailable', database: t.db.kind });
  });
});

describe('pooled PostgreSQL connections', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost();
  });
  afterAll(() => t.close());

  it.skipIf(!process.env.DATABASE_URL)(
    'are replaced after the server terminated them, without failing a request [PostgreSQL]',
    async () => {
      const basic = await basicAuthFor(t.db, 'admin@demo.test');
      // Fill the pool with several idle connections.
      await Promise.all(Array.from({ length: 5 }, () => t.db.query('SELECT pg_sleep(0.05)')));
      const { rows } = await t.db.query<{ url: string }>('SELECT current_database() AS url');
      const url = new URL(process.env.DATABASE_URL!);
      url.pathname = `/${rows[0]!.url}`;
      const admin = await openDatabase({ databaseUrl: url.toString(), maxConnections: 1 });
      try {
        const killed = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
        expect(killed.rowCount).toBeGreaterThanOrEqual(5);
        // At once: pg_terminate_backend only signals, so the pool still holds the connections as idle.
        const results = await Promise.allSettled(
          Array.from({ length: 5 }, () => t.db.query<{ one: number }>('SELECT 1 AS one')),
        );
        expect(results.map((r) => (r.status === 'fulfilled' ? r.value.rows[0]!.one : String(r.reason)))).toEqual([
          1, 1, 1, 1, 1,
        ]);
      } finally {
        await admin.close();
      }
      for (let i = 0; i < 12; i++) {
        const res = await t.api().get('/current/v2/me').set('Authorization', basic).set('User-Agent', TEST_USER_AGENT);
        expect(res.status).toBe(200);
      }
      expect((await t.api().get('/health')).status).toBe(200);
    },
  );
});
