/**
 * startHost() while it starts: its three listeners are open before the apps are attached (port 0 needs the real
 * ports first), and a request in that window gets `503` + `Retry-After` + a JSON body at once, never a hang.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { demoCompanion } from '#host/demo/start-demo.ts';
import { startHost, type RunningHost } from '#host/main.ts';
import { createEmptyPostgresDatabase, createTestDatabase } from '../support/database.ts';

let tmp: string;
let db: Database;
let integratorDatabaseUrl: string | undefined;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'addon-kit-main-'));
  db = await createTestDatabase();
  integratorDatabaseUrl = await createEmptyPostgresDatabase();
});

afterAll(async () => {
  await db?.close();
  await rm(tmp, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | null>;
  body: unknown;
}

/** A request that must be answered within 5 s (a hang fails the test instead of timing it out). */
async function answer(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  const headers = {
    'content-type': res.headers.get('content-type'),
    'retry-after': res.headers.get('retry-after'),
    'cache-control': res.headers.get('cache-control'),
  };
  const text = await res.text();
  return {
    status: res.status,
    headers,
    body: res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text,
  };
}

const STARTING_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'retry-after': '1',
  'cache-control': 'no-store',
};
const HOST_STARTING = {
  errors: [
    {
      status: '503',
      code: 'starting',
      title: 'Service Unavailable',
      detail: 'The service is starting; retry in a moment',
    },
  ],
};

describe('startHost()', () => {
  it('answers 503 with Retry-After and a JSON body on each listener until its app is attached [start-up]', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let listening!: (urls: { url: string; sandboxUrl: string; companionUrl: string | undefined }) => void;
    const urlsKnown = new Promise<{ url: string; sandboxUrl: string; companionUrl: string | undefined }>(
      (resolve) => (listening = resolve),
    );
    const starting = startHost({
      db,
      dataDir: join(tmp, '.addon-kit'),
      config: { port: 0, logLevel: 'silent', addonSweepIntervalSeconds: 0 },
      companion: demoCompanion({ dataDir: join(tmp, '.addon-kit'), integratorDatabaseUrl }),
      onListening: async (urls) => {
        listening(urls);
        await held;
      },
    });
    let running: RunningHost | undefined;
    try {
      const { url, sandboxUrl, companionUrl: integratorUrl } = await urlsKnown;
      const startingHealth = {
        status: 503,
        headers: STARTING_HEADERS,
        body: { status: 'starting', database: db.kind },
      };
      expect(await answer(`${url}/health`)).toEqual(startingHealth);
      expect(await answer(`${url}/health?verbose=1`)).toMatchObject({
        status: 503,
        body: { status: 'starting', database: db.kind },
      });
      expect(await answer(`${url}/people/v2/lists`)).toEqual({
        status: 503,
        headers: STARTING_HEADERS,
        body: HOST_STARTING,
      });
      const token = await answer(`${url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      expect(token).toEqual({ status: 503, headers: STARTING_HEADERS, body: HOST_STARTING });
      expect(await answer(`${sandboxUrl}/frame.html`)).toEqual({
        status: 503,
        headers: STARTING_HEADERS,
        body: HOST_STARTING,
      });
      expect(await answer(`${integratorUrl}/login`)).toEqual({
        status: 503,
        headers: STARTING_HEADERS,
        body: { error: 'temporarily_unavailable', error_description: 'the integrator is starting; retry in a moment' },
      });

      release();
      running = await starting;
      const health = await answer(`${url}/health`);
      expect([health.status, health.headers['retry-after'], health.body]).toEqual([
        200,
        null,
        { status: 'ok', database: db.kind },
      ]);
      expect((await answer(`${sandboxUrl}/frame.html`)).status).toBe(200);
      expect((await answer(`${integratorUrl}/login`)).status).toBe(200);
    } finally {
      release();
      running ??= await starting.catch(() => undefined);
      await running?.close();
    }
  }, 90_000);
});
