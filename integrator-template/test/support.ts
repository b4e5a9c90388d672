/** Template integrator test helpers: a real HTTP server on 127.0.0.1, a controllable clock, a browser-like cookie client. */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Database } from '../store/database.ts';
import { openPostgres } from '../store/sql.ts';
import { createLogger } from '../logger.ts';
import { resolveIntegratorConfig, type IntegratorConfig, type IntegratorConfigInput } from '../config.ts';
import { createIntegrator, type Integrator } from '../server.ts';
import { openIntegratorDatabase } from '../store/database.ts';
import type { HostTokensHandler } from '../oauth/complete.ts';

export const HOST_BASE_URL = 'http://host.test:4000';
export const APP_ID = 17;
export const CLIENT_ID = 'test-host';
export const CLIENT_SECRET = 'test-host-secret-0123456789';
export const REDIRECT_URI = `${HOST_BASE_URL}/addons/authorizations/${APP_ID}`;
export const USER = { username: 'alice', password: 'alice-password-1', name: 'Alice Integrator' };
export const OTHER_USER = { username: 'bob', password: 'bob-password-12', name: 'Bob Integrator' };

/** A clock tests move by hand. */
export class TestClock {
  constructor(public ms = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  readonly now = (): Date => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** A database for one test file: in-memory PGlite, or a fresh schema on DATABASE_URL (dropped by `drop`). */
export async function createIntegratorTestDatabase(): Promise<{ db: Database; drop(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openIntegratorDatabase({ dataDir: 'memory://' });
    return { db, drop: () => db.close() };
  }
  const schema = `integrator_test_${randomBytes(5).toString('hex')}`;
  const db = await openIntegratorDatabase({ databaseUrl: url, schema });
  return {
    db,
    async drop() {
      await db.close();
      const admin = await openPostgres(url, undefined, 1);
      try {
        await admin.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await admin.close();
      }
    },
  };
}

export interface TestIntegrator {
  url: string;
  integrator: Integrator;
  config: IntegratorConfig;
  db: Database;
  clock: TestClock;
  /** Everything the integrator logged, as text. */
  logs: () => string;
  close(): Promise<void>;
}

/** Starts a template integrator on an ephemeral port over `db`. */
export async function startTestIntegrator(
  db: Database,
  overrides: IntegratorConfigInput = {},
  extra: { onHostTokens?: HostTokensHandler; clock?: TestClock } = {},
): Promise<TestIntegrator> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config = resolveIntegratorConfig(
    {
      baseUrl: url,
      hostBaseUrl: HOST_BASE_URL,
      oauthApplicationId: APP_ID,
      logLevel: 'info',
      users: [USER, OTHER_USER],
      clients: [
        {
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
          redirect_uris: [REDIRECT_URI],
          name: 'Test Add-on',
          host_name: 'Test Platform',
        },
      ],
      ...overrides,
    },
    {},
  );
  let logged = '';
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += String(chunk);
      done();
    },
  });
  const clock = extra.clock ?? new TestClock();
  const integrator = await createIntegrator({
    config,
    db,
    now: clock.now,
    logger: createLogger('info', sink),
    ...(extra.onHostTokens ? { onHostTokens: extra.onHostTokens } : {}),
  });
  server.on('request', integrator.app);
  return {
    url,
    integrator,
    config,
    db,
    clock,
    logs: () => logged,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await integrator.close();
    },
  };
}

/** fetch with a cookie jar and no automatic redirects, as a browser tab used step by step. */
export class Browser {
  private readonly cookies = new Map<string, string>();
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }
  /** POSTs a form. */
  post(url: string, fields: Record<string, string>): Promise<Response> {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
  }
  cookieNames(): string[] {
    return [...this.cookies.keys()];
  }
}

/** Hidden inputs of the first form of a page. */
export function hiddenInputs(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/?>/g)) {
    out[name!] = value!
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return out;
}

/** Signs `user` in through the login form, starting from a page that redirected to it. */
export async function signIn(
  browser: Browser,
  baseUrl: string,
  user: { username: string; password: string },
  returnTo = '/',
): Promise<Response> {
  const page = await browser.fetch(`${baseUrl}/login?${new URLSearchParams({ return_to: returnTo })}`);
  const fields = hiddenInputs(await page.text());
  return browser.post(`${baseUrl}/login`, { ...fields, username: user.username, password: user.password });
}

/**
 * Drives login + consent for an authorization URL and returns the redirect back to the client
 * (`Location`), as a person clicking Allow (or Deny) would.
 */
export async function authorizeInBrowser(
  browser: Browser,
  authorizationUrl: string,
  user: { username: string; password: string } = USER,
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  let res = await browser.fetch(authorizationUrl);
  if (res.status === 302 && new URL(res.headers.get('location')!, authorizationUrl).pathname === '/login') {
    const loginUrl = new URL(res.headers.get('location')!, authorizationUrl);
    const returnTo = loginUrl.searchParams.get('return_to')!;
    const loggedIn = await signIn(browser, loginUrl.origin, user, returnTo);
    if (loggedIn.status !== 303) throw new Error(`login failed: ${loggedIn.status}`);
    res = await browser.fetch(new URL(loggedIn.headers.get('location')!, authorizationUrl).toString());
  }
  if (res.status !== 200) throw new Error(`authorize page: ${res.status} ${res.headers.get('location') ?? ''}`);
  const fields = hiddenInputs(await res.text());
  const decided = await browser.post(new URL('/oauth/authorize', authorizationUrl).toString(), { ...fields, decision });
  if (decided.status !== 303) throw new Error(`decision: ${decided.status}`);
  return new URL(decided.headers.get('location')!);
}
