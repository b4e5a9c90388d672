import { randomBytes } from 'node:crypto';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '#host/app.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { ConfigError, resolveHostConfig } from '#host/config.ts';
import { openDatabase, type Database } from '#host/db/database.ts';
import { createLogger } from '#host/logger.ts';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { createTestDatabase } from '../../support/database.ts';
import { basicAuthFor, createTestHost, personId, testConfig, type TestHost } from '../../support/host.ts';
import { createTestApplication } from '../../support/oauth-flow.ts';
import { documentedApi, servedOpenApiDocument } from '../../support/openapi.ts';

const LIMIT_HEADERS = ['x-pco-api-request-rate-limit', 'x-pco-api-request-rate-period', 'x-pco-api-request-rate-count'];
const limitHeaders = (res: supertest.Response) => LIMIT_HEADERS.map((h) => res.headers[h]);
const get = (host: Host, path: string, authorization?: string) => {
  const req = supertest(host.app).get(path).set('User-Agent', TEST_USER_AGENT);
  return authorization ? req.set('Authorization', authorization) : req;
};

describe('API rate limit [5/20]', () => {
  let t: TestHost;
  beforeAll(async () => {
    t = await createTestHost({ config: { rateLimit: '5/20' } });
  });
  afterAll(() => t.close());

  it('counts per user and application, says so on every response, and answers 429 with Retry-After over the limit', async () => {
    const basic = await basicAuthFor(t.db, 'editor@demo.test');
    for (let i = 1; i <= 5; i++) {
      const res = await get(t.host, i % 2 ? '/current/v2/me' : '/people/v2/lists', basic);
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toEqual(['5', '20', String(i)]);
    }
    const over = await get(t.host, '/people/v2/notes', basic);
    expect(over.status).toBe(429);
    expect(limitHeaders(over)).toEqual(['5', '20', '6']);
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(19);
    expect(Number(over.headers['retry-after'])).toBeLessThanOrEqual(20);
    expect(over.body).toEqual({
      errors: [
        {
          status: '429',
          code: 'rate_limit_exceeded',
          title: 'Too Many Requests',
          detail: 'Rate limit exceeded: 6 of 5 requests per 20 seconds',
        },
      ],
    });
    // Another application of the same person (a second token, an OAuth application) has its own count.
    expect(limitHeaders(await get(t.host, '/current/v2/me', await basicAuthFor(t.db, 'editor@demo.test')))).toEqual([
      '5',
      '20',
      '1',
    ]);
    const app = await createTestApplication(t.db);
    const bearer = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: await personId(t.db, 'editor@demo.test'),
      scopes: ['people'],
    });
    const viaOAuth = await get(t.host, '/people/v2/lists', `Bearer ${bearer.access_token}`);
    expect(viaOAuth.status).toBe(200);
    expect(limitHeaders(viaOAuth)).toEqual(['5', '20', '1']);
  });

  it('counts requests without valid credentials per client address', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await get(t.host, '/api/v2');
      expect(res.status).toBe(401);
      expect(limitHeaders(res)).toEqual(['5', '20', String(i)]);
    }
    const over = await get(t.host, '/people/v2/lists', 'Bearer not-a-token');
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
  });
});

describe('API rate limit [OpenAPI document]', () => {
  it('documents the headers of a 200 and the 429 with Retry-After, as the host sends them', async () => {
    const t = await createTestHost({ config: { rateLimit: '2/20' } });
    try {
      const api = await documentedApi(t);
      const admin = await basicAuthFor(t.db, 'admin@demo.test');
      expect((await api.get('/api/v2', { Authorization: admin })).status).toBe(200);
      expect((await api.get('/api/v2/personal_access_tokens', { Authorization: admin })).status).toBe(200);
      const over = await api.get('/api/v2', { Authorization: admin });
      expect(over.status).toBe(429);
      const doc = (await servedOpenApiDocument(t)) as {
        components: { responses: Record<string, { headers: Record<string, unknown> }> };
      };
      expect(Object.keys(doc.components.responses.TooManyRequests!.headers)).toEqual([
        'Retry-After',
        'X-PCO-API-Request-Rate-Limit',
        'X-PCO-API-Request-Rate-Period',
        'X-PCO-API-Request-Rate-Count',
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('API rate limit [off]', () => {
  it('sends no rate-limit headers and never answers 429', async () => {
    const t = await createTestHost({ config: { rateLimit: 'off' } });
    try {
      const basic = await basicAuthFor(t.db, 'admin@demo.test');
      for (let i = 0; i < 30; i++) {
        const res = await get(t.host, '/current/v2/me', basic);
        expect(res.status).toBe(200);
        expect(limitHeaders(res)).toEqual([undefined, undefined, undefined]);
      }
    } finally {
      await t.close();
    }
  });
});

describe('ADDON_KIT_RATE_LIMIT', () => {
  it('defaults to 100/20 and reads <requests>/<seconds> or off', () => {
    expect(
      resolveHostConfig({ sessionSecret: 'x'.repeat(32), encryptionKeys: testConfig().encryptionKeys }, {}).rateLimit,
    ).toEqual({ points: 100, seconds: 20 });
    const env = (value: string) =>
      resolveHostConfig(
        { sessionSecret: 'x'.repeat(32), encryptionKeys: testConfig().encryptionKeys },
        { ADDON_KIT_RATE_LIMIT: value },
      ).rateLimit;
    expect(env('300/60')).toEqual({ points: 300, seconds: 60 });
    expect(env('off')).toBe('off');
    expect(() => env('100 per 20')).toThrow(ConfigError);
    expect(() => env('0/20')).toThrow(/rateLimit/);
  });
});

/** Two hosts over one database, sharing nothing in memory: each has its own pool and its own limiter objects. */
async function twoHosts(
  config: Parameters<typeof testConfig>[0],
): Promise<{ hosts: [Host, Host]; db: Database; close: () => Promise<void> }> {
  const db = await createTestDatabase();
  const url = (db as unknown as { pool: { options: { connectionString: string } } }).pool.options.connectionString;
  const second = await openDatabase({ databaseUrl: url });
  const logger = createLogger('silent');
  const a = await createHost({ config: testConfig(config), db, logger });
  const b = await createHost({ config: testConfig(config), db: second, logger });
  return {
    hosts: [a, b],
    db,
    close: async () => {
      await a.close();
      await b.close();
      await second.close();
      await db.close();
    },
  };
}

describe.skipIf(!process.env.DATABASE_URL)('API rate limit [two hosts on one PostgreSQL]', () => {
  it('holds across host processes: the counters are in the shared database', async () => {
    const { hosts, db, close } = await twoHosts({ rateLimit: '6/20' });
    try {
      const basic = await basicAuthFor(db, 'admin@demo.test');
      const counts: string[] = [];
      for (let i = 0; i < 6; i++) counts.push(limitHeaders(await get(hosts[i % 2]!, '/current/v2/me', basic))[2]!);
      expect(counts).toEqual(['1', '2', '3', '4', '5', '6']);
      expect((await get(hosts[0], '/current/v2/me', basic)).status).toBe(429);
      expect((await get(hosts[1], '/current/v2/me', basic)).status).toBe(429);
      expect((await db.query('SELECT 1 FROM rate_limits')).rowCount).toBeGreaterThan(0);
    } finally {
      await close();
    }
  });
});

const REDIS_URL = process.env.ADDON_KIT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
async function redisAnswers(): Promise<boolean> {
  const { Redis } = await import('ioredis');
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
const redis = await redisAnswers();
if (!redis) console.warn(`no Redis at ${REDIS_URL}: the Redis rate-limit test is skipped`);

describe.skipIf(!redis)('API rate limit [Redis]', () => {
  it('keeps the counters in Redis, shared by two hosts', async () => {
    const { hosts, db, close } = process.env.DATABASE_URL
      ? await twoHosts({ rateLimit: '4/20', redisUrl: REDIS_URL })
      : await (async () => {
          // PGlite is single-process: two hosts on two copies of the data, sharing only Redis.
          const [one, two] = [await createTestDatabase(), await createTestDatabase()];
          const logger = createLogger('silent');
          const a = await createHost({
            config: testConfig({ rateLimit: '4/20', redisUrl: REDIS_URL }),
            db: one,
            logger,
          });
          const b = await createHost({
            config: testConfig({ rateLimit: '4/20', redisUrl: REDIS_URL }),
            db: two,
            logger,
          });
          return {
            hosts: [a, b] as [Host, Host],
            db: one,
            close: async () => void (await Promise.all([a.close(), b.close()]), await one.close(), await two.close()),
          };
        })();
    try {
      // The same token on both hosts (same person id and client id on both copies).
      const owner = await personId(db, 'admin@demo.test');
      const token = await createPersonalAccessToken(db, owner, `redis ${randomBytes(4).toString('hex')}`);
      if (!process.env.DATABASE_URL) {
        const other = hosts[1].db;
        const { rows } = await db.query<{ secret_hash: string }>(
          'SELECT secret_hash FROM personal_access_tokens WHERE client_id = $1',
          [token.client_id],
        );
        await other.query(
          `INSERT INTO personal_access_tokens (person_id, organization_id, name, client_id, secret_hash)
           SELECT id, organization_id, $2, $3, $4 FROM people WHERE id = $1`,
          [owner, token.name, token.client_id, rows[0]!.secret_hash],
        );
      }
      const basic = `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;
      const counts: string[] = [];
      for (let i = 0; i < 4; i++) counts.push(limitHeaders(await get(hosts[i % 2]!, '/current/v2/me', basic))[2]!);
      expect(counts).toEqual(['1', '2', '3', '4']);
      expect((await get(hosts[1], '/current/v2/me', basic)).status).toBe(429);
      expect(hosts[0].config.redisUrl).toBe(REDIS_URL);
      if (process.env.DATABASE_URL) expect((await db.query('SELECT 1 FROM rate_limits')).rowCount).toBe(0);
    } finally {
      await close();
    }
  });
});
