/** A host over a private test database, driven in-process with supertest. */
import supertest from 'supertest';
import { createHost, type Host, type HostDeps } from '#host/app.ts';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { resolveHostConfig, type HostConfigInput } from '#host/config.ts';
import type { Database } from '#host/db/database.ts';
import { demoRouter } from '#host/demo/demo-pages.tsx';
import { createLogger } from '#host/logger.ts';
import { TEST_BASE_URL, TEST_ENCRYPTION_KEY, TEST_SESSION_SECRET, TEST_USER_AGENT } from './constants.ts';
import { recordingApp } from './api-responses.ts';
import { createTestDatabase } from './database.ts';

export interface TestHost {
  host: Host;
  db: Database;
  /** supertest against the app, with the test User-Agent set. */
  api: () => supertest.Agent;
  close(): Promise<void>;
}

export function testConfig(overrides: HostConfigInput = {}) {
  return resolveHostConfig(
    {
      baseUrl: TEST_BASE_URL,
      dataDir: 'memory://',
      logLevel: 'silent',
      sessionSecret: TEST_SESSION_SECRET,
      encryptionKeys: [TEST_ENCRYPTION_KEY],
      // Unrelated tests make many requests with one token: the API limit is a rate-limit test's to set.
      rateLimit: 'off',
      // The List scheduler runs only in the tests that turn it on.
      listRefreshIntervalSeconds: 0,
      // The webhook delivery worker runs only in the tests that turn it on.
      webhookPollIntervalMs: 0,
      ...overrides,
    },
    {},
  );
}

/** A host over a private copy of the test database; `demo` adds the demo pages as `start` does. */
export async function createTestHost(
  options: { config?: HostConfigInput; deps?: Partial<HostDeps>; demo?: boolean } = {},
): Promise<TestHost> {
  const db = await createTestDatabase();
  const config = testConfig(options.config);
  const routers = options.demo ? [demoRouter({ db, config })] : [];
  const host = await createHost({ config, db, logger: createLogger('silent'), routers, ...options.deps });
  // Every API response through api() is checked against the host's OpenAPI documents when the host closes.
  const recorder = recordingApp(host.app);
  return {
    host,
    db,
    api: () => supertest.agent(recorder.handler).set('User-Agent', TEST_USER_AGENT),
    async close() {
      const failures = await recorder.check();
      await host.close();
      await db.close();
      if (failures.length > 0)
        throw new Error(`API responses outside their OpenAPI documents:\n${[...new Set(failures)].join('\n')}`);
    },
  };
}

/** The id of a person by e-mail. */
export async function personId(db: Database, email: string): Promise<string> {
  const { rows } = await db.query<{ id: string }>('SELECT id::text FROM people WHERE lower(email) = lower($1)', [
    email,
  ]);
  if (!rows[0]) throw new Error(`no person ${email}`);
  return rows[0].id;
}

/** An `Authorization: Basic …` header of a new personal access token of that person. */
export async function basicAuthFor(db: Database, email: string): Promise<string> {
  const token = await createPersonalAccessToken(db, await personId(db, email), 'test token');
  return `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;
}
