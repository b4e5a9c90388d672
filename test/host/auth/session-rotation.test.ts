/**
 * Rotating the session secret signs nobody out: a host sealing with a new secret still opens the cookies sealed
 * with the earlier ones it is given (ADDON_KIT_PREVIOUS_SESSION_SECRETS), on pages and JSON routes alike, and seals
 * what it saves with the new one; a host that is not given the earlier secret treats those cookies as no login.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '#host/app.ts';
import { HOST_SESSION_COOKIE } from '#host/auth/session.ts';
import { ConfigError, resolveHostConfig } from '#host/config.ts';
import { createLogger } from '#host/logger.ts';
import { TEST_ENCRYPTION_KEY, TEST_PASSWORD, TEST_SESSION_SECRET } from '../../support/constants.ts';
import { testConfig } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

const NEW_SECRET = 'rotated-session-secret-rotated-session-secret-42';

let old: HttpTestHost;
const others: { host: Host; server: Server; url: string }[] = [];

/** A second host on the old one's database and base URL (as behind one balancer), with the given secrets. */
async function hostWith(secrets: { sessionSecret: string; previousSessionSecrets: string[] }) {
  const config = testConfig({ baseUrl: old.baseUrl, addonSweepIntervalSeconds: 0, ...secrets });
  const host = await createHost({ config, db: old.db, logger: createLogger('silent') });
  const server = createServer(host.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const entry = { host, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  others.push(entry);
  return entry;
}

beforeAll(async () => {
  old = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
});
afterAll(async () => {
  for (const { host, server } of others) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await host.close();
  }
  await old.close();
});

/** Signs in on the old host and returns the Cookie header it set. */
async function cookieFromOldHost(): Promise<string> {
  const browser = new TestBrowser(old.baseUrl);
  const done = await browser.submit(await browser.request('/login'), {
    email: 'editor@demo.test',
    password: TEST_PASSWORD,
  });
  expect(done.status).toBe(303);
  return browser.jar.header('/');
}

const get = (url: string, cookie: string, accept = 'text/html') =>
  fetch(url, { headers: { cookie, accept }, redirect: 'manual' });

describe('session secret rotation', () => {
  it('opens a cookie sealed with an earlier secret, on pages and JSON routes', async () => {
    const cookie = await cookieFromOldHost();
    const rotated = await hostWith({ sessionSecret: NEW_SECRET, previousSessionSecrets: [TEST_SESSION_SECRET] });

    const page = await get(`${rotated.url}/developer`, cookie);
    expect(page.status).toBe(200);
    const json = await get(`${rotated.url}/addons/installations`, cookie, 'application/json');
    expect(json.status).toBe(200);
    expect(((await json.json()) as { data: unknown[] }).data).toBeInstanceOf(Array);
  });

  it('treats such a cookie as no login on a host not given the earlier secret', async () => {
    const cookie = await cookieFromOldHost();
    const forgetful = await hostWith({ sessionSecret: NEW_SECRET, previousSessionSecrets: [] });

    const page = await get(`${forgetful.url}/developer`, cookie);
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe(`/login?return_to=${encodeURIComponent('/developer')}`);
  });

  it('seals what it saves with the new secret, which the old host cannot open and a host given it can', async () => {
    const rotated = await hostWith({ sessionSecret: NEW_SECRET, previousSessionSecrets: [TEST_SESSION_SECRET] });
    const browser = new TestBrowser(rotated.url);
    const done = await browser.submit(await browser.request('/login'), {
      email: 'editor@demo.test',
      password: TEST_PASSWORD,
    });
    expect(done.status).toBe(303);
    const cookie = browser.jar.header('/');
    expect(cookie).toContain(`${HOST_SESSION_COOKIE}=`);

    expect((await get(`${old.baseUrl}/developer`, cookie)).status).toBe(303);
    const rolledBack = await hostWith({ sessionSecret: TEST_SESSION_SECRET, previousSessionSecrets: [NEW_SECRET] });
    expect((await get(`${rolledBack.url}/developer`, cookie)).status).toBe(200);
  });
});

describe('ADDON_KIT_PREVIOUS_SESSION_SECRETS', () => {
  const SECRETS = { sessionSecret: TEST_SESSION_SECRET, encryptionKeys: [TEST_ENCRYPTION_KEY] };
  it('is a comma-separated list, each at least 32 characters', () => {
    const env = { ADDON_KIT_PREVIOUS_SESSION_SECRETS: ` ${NEW_SECRET} , ${TEST_SESSION_SECRET},` };
    expect(resolveHostConfig(SECRETS, env).previousSessionSecrets).toEqual([NEW_SECRET, TEST_SESSION_SECRET]);
    expect(() => resolveHostConfig(SECRETS, { ADDON_KIT_PREVIOUS_SESSION_SECRETS: 'short' })).toThrow(ConfigError);
  });
});
