/**
 * startHost() as a service manager runs it: configured by environment variables (secrets from the environment win
 * over generated ones), and stopped with a drain (health says so first, requests in flight finish).
 */
import { Agent, request } from 'node:http';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { startHost } from '#host/main.ts';
import { TEST_ENCRYPTION_KEY, TEST_SESSION_SECRET } from '../support/constants.ts';
import { createTestDatabase } from '../support/database.ts';

let tmp: string;
let db: Database;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'addon-kit-main-service-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.close();
  await rm(tmp, { recursive: true, force: true });
});

/**
 * A GET on a new connection that asks to be kept alive: status, Connection header and body, or the connection
 * error's code.
 */
function get(url: string): Promise<{ status: number; connection: string | undefined; body: string } | string> {
  const agent = new Agent({ keepAlive: true });
  return new Promise<{ status: number; connection: string | undefined; body: string } | string>((resolve) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  }).finally(() => agent.destroy());
}

describe('startHost() [secrets in the environment]', () => {
  it('uses ADDON_KIT_SESSION_SECRET and ADDON_KIT_ENCRYPTION_KEYS over the data directory, writing no secrets', async () => {
    const keys = `${TEST_ENCRYPTION_KEY.id}:${TEST_ENCRYPTION_KEY.key}`;
    vi.stubEnv('ADDON_KIT_SESSION_SECRET', TEST_SESSION_SECRET);
    vi.stubEnv('ADDON_KIT_ENCRYPTION_KEYS', keys);
    const dataDir = join(tmp, 'env-secrets');
    try {
      const running = await startHost({ db, dataDir, config: { port: 0, logLevel: 'silent' } });
      try {
        expect([running.host.config.sessionSecret, running.host.config.encryptionKeys]).toEqual([
          TEST_SESSION_SECRET,
          [TEST_ENCRYPTION_KEY],
        ]);
        expect(
          await access(join(dataDir, 'secrets.json')).then(
            () => 'written',
            () => 'absent',
          ),
        ).toBe('absent');
      } finally {
        await running.close();
      }
    } finally {
      vi.unstubAllEnvs();
    }
  }, 90_000);
});

describe('RunningHost.close() [drain]', () => {
  it('answers /health 503 draining for the drain seconds while still serving, then stops taking connections', async () => {
    const running = await startHost({
      db,
      dataDir: join(tmp, 'drain'),
      config: {
        port: 0,
        logLevel: 'silent',
        drainSeconds: 2,
        sessionSecret: TEST_SESSION_SECRET,
        encryptionKeys: [TEST_ENCRYPTION_KEY],
      },
    });
    const { url } = running;
    expect(await get(`${url}/health`)).toEqual({
      status: 200,
      connection: 'keep-alive',
      body: JSON.stringify({ status: 'ok', database: db.kind }),
    });
    const closing = running.close({ drain: true });
    let closed = false;
    void closing.then(() => (closed = true));
    // Draining: the health check says so, every other route still answers, and no connection is kept alive.
    expect(await get(`${url}/health`)).toEqual({
      status: 503,
      connection: 'close',
      body: JSON.stringify({ status: 'draining', database: db.kind }),
    });
    expect(await get(`${url}/login`)).toMatchObject({ status: 200, connection: 'close' });
    expect(closed).toBe(false);
    await closing;
    expect(await get(`${url}/health`)).toBe('ECONNREFUSED');
  }, 90_000);
});
