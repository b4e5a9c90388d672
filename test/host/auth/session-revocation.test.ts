/**
 * Host login sessions are recorded server-side and can be revoked: a copy of the sealed cookie stops working
 * after logout, after a password change (other sessions only) and after "sign out everywhere", on pages, the
 * JSON routes of the add-on runtime (the proxy) and the handshake alike.
 */
import { sealData } from 'iron-session';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSessionRecord, loadSessionPerson, purgeExpiredSessions } from '#host/auth/host-sessions.ts';
import { HOST_SESSION_COOKIE } from '#host/auth/session.ts';
import { hashPassword } from '#host/crypto/passwords.ts';
import { createLogger } from '#host/logger.ts';
import { startOAuthHousekeeping } from '#host/oauth/housekeeping.ts';
import { TEST_PASSWORD, TEST_SESSION_SECRET } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { parseForms, TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens, type PageKind } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
beforeAll(async () => {
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
});
afterAll(() => t.close());

async function loggedIn(email: string, password = TEST_PASSWORD): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const done = await browser.submit(await browser.request('/login'), { email, password });
  expect(done.status).toBe(303);
  return browser;
}

/** The Cookie header of a browser, as someone who copied it would send it. */
const copyOf = (browser: TestBrowser) => browser.jar.header('/');

/** A request carrying a copied cookie (no jar: nothing the server answers changes it). */
async function withCookie(
  cookie: string,
  path: string,
  init: { method?: string; accept?: string; headers?: Record<string, string> } = {},
): Promise<PageResponse> {
  const response = await fetch(`${t.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { cookie, accept: init.accept ?? 'text/html', ...init.headers },
    redirect: 'manual',
  });
  const location = response.headers.get('location');
  return {
    status: response.status,
    headers: response.headers,
    ...(location ? { location } : {}),
    body: await response.text(),
    url: path,
  };
}

const LOGIN_REQUIRED = {
  error: { side: 'host_auth', code: 'login_required', message: 'Log in to the host first', retryable: false },
};
const PAGE_LOGIN = (returnTo: string) => `/login?return_to=${encodeURIComponent(returnTo)}`;

/** What a revoked (or unknown) session gets on a page, the add-on JSON routes, the proxy and the handshake. */
async function expectRefused(cookie: string): Promise<void> {
  const page = await withCookie(cookie, '/developer');
  expect([page.status, page.location]).toEqual([303, PAGE_LOGIN('/developer')]);
  const api = await withCookie(cookie, '/addons/installations', { accept: 'application/json' });
  expect([api.status, JSON.parse(api.body)]).toEqual([401, LOGIN_REQUIRED]);
  const proxy = await withCookie(cookie, '/addons/installations/1/fetch/service', {
    method: 'POST',
    accept: 'application/json',
    headers: { origin: t.baseUrl, 'x-csrf-token': 'x' },
  });
  expect([proxy.status, JSON.parse(proxy.body)]).toEqual([401, LOGIN_REQUIRED]);
  const handshake = await withCookie(cookie, '/addons/installations/1/authorize');
  expect([handshake.status, handshake.location]).toEqual([303, PAGE_LOGIN('/addons/installations/1/authorize')]);
  const json = await withCookie(cookie, '/developer/account/sign-out-everywhere', {
    method: 'POST',
    accept: 'application/json',
  });
  expect([json.status, JSON.parse(json.body)]).toEqual([
    401,
    { errors: [{ status: '401', title: 'Unauthorized', detail: 'Log in to the host first' }] },
  ]);
}

/** The same routes answering a live session. */
async function expectAccepted(cookie: string): Promise<void> {
  expect((await withCookie(cookie, '/developer')).status).toBe(200);
  expect((await withCookie(cookie, '/addons/installations', { accept: 'application/json' })).status).toBe(200);
}

async function sessionRows(email: string): Promise<{ revoked: boolean; organization_id: string }[]> {
  const { rows } = await t.db.query<{ revoked: boolean; organization_id: string }>(
    'SELECT revoked_at IS NOT NULL AS revoked, organization_id::text FROM host_sessions WHERE person_id = $1 ORDER BY created_at, id_hash',
    [await personId(t.db, email)],
  );
  return rows;
}

async function csrfOf(browser: TestBrowser): Promise<string> {
  return parseForms((await browser.request('/developer/account')).body)[0]!.fields._csrf!;
}

describe('POST /login', () => {
  it('records the session server-side under a digest of its id, not the id itself', async () => {
    const before = (await sessionRows('editor@demo.test')).length;
    const browser = await loggedIn('editor@demo.test');
    const demo = (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!
      .id;
    const rows = await sessionRows('editor@demo.test');
    expect(rows.slice(before)).toEqual([{ revoked: false, organization_id: demo }]);
    const { rows: stored } = await t.db.query<{ id_hash: string; ttl: number }>(
      'SELECT id_hash, extract(epoch FROM expires_at - created_at)::int AS ttl FROM host_sessions ORDER BY created_at DESC LIMIT 1',
    );
    expect(stored[0]!.id_hash).toMatch(/^[\w-]{43}$/);
    expect(stored[0]!.ttl).toBe(12 * 60 * 60);
    expect(copyOf(browser)).not.toContain(stored[0]!.id_hash);
  });
});

describe('POST /logout', () => {
  it('revokes the session: a copy of the cookie is refused afterwards, another session of the person is not', async () => {
    const browser = await loggedIn('editor@demo.test');
    const other = await loggedIn('editor@demo.test');
    const copy = copyOf(browser);
    await expectAccepted(copy);
    const out = await browser.request('/logout', { form: { _csrf: await csrfOf(browser) } });
    expect([out.status, out.location]).toEqual([303, `${t.baseUrl}/login`]);
    await expectRefused(copy);
    await expectAccepted(copyOf(other));
    const rows = await sessionRows('editor@demo.test');
    expect(rows.slice(-2).map((r) => r.revoked)).toEqual([true, false]);
  });
});

describe('POST /developer/account/password', () => {
  it('changes the password and logs out every other session of the person, keeping this one', async () => {
    const here = await loggedIn('member@demo.test');
    const elsewhere = await loggedIn('member@demo.test');
    const bystander = await loggedIn('editor@demo.test');
    const page = await here.request('/developer/account');
    const done = await here.submit(
      page,
      { current_password: TEST_PASSWORD, new_password: 'a brand new passphrase' },
      { button: 'Change password' },
    );
    expect([done.status, done.location]).toEqual([303, `${t.baseUrl}/developer/account?changed=1`]);
    const shown = await here.request(done.location!);
    expect(shown.status).toBe(200);
    expect(shown.body).toContain('Your password was changed. Every other session of yours was logged out.');
    await expectRefused(copyOf(elsewhere));
    await expectAccepted(copyOf(here));
    await expectAccepted(copyOf(bystander));
    expect((await sessionRows('member@demo.test')).map((r) => r.revoked)).toEqual([false, true]);
    // The new password logs in; the old one no longer does.
    await loggedIn('member@demo.test', 'a brand new passphrase');
    const old = new TestBrowser(t.baseUrl);
    expect(
      (await old.submit(await old.request('/login'), { email: 'member@demo.test', password: TEST_PASSWORD })).status,
    ).toBe(401);
  });

  it('refuses a wrong current password (401) and a short new one (422), revoking nothing', async () => {
    const here = await loggedIn('editor@demo.test');
    const elsewhere = await loggedIn('editor@demo.test');
    const page = await here.request('/developer/account');
    const wrong = await here.submit(
      page,
      { current_password: 'not it', new_password: 'a brand new passphrase' },
      { button: 'Change password' },
    );
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('The current password is incorrect.');
    const short = await here.submit(
      page,
      { current_password: TEST_PASSWORD, new_password: 'short' },
      { button: 'Change password' },
    );
    expect(short.status).toBe(422);
    expect(short.body).toContain('Use at least 12 characters.');
    await expectAccepted(copyOf(elsewhere));
  });
});

describe('POST /developer/account/password [throttle]', () => {
  it('checks the current password under the sign-in throttle: repeated wrong guesses get 429 with Retry-After', async () => {
    const demo = (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!
      .id;
    await t.db.query(
      "INSERT INTO people (organization_id, first_name, last_name, email, password_hash) VALUES ($1, 'Theo', 'Throttled', 'throttled@demo.test', $2)",
      [demo, await hashPassword(TEST_PASSWORD)],
    );
    const browser = await loggedIn('throttled@demo.test');
    const page = await browser.request('/developer/account');
    const statuses: number[] = [];
    let last: PageResponse | undefined;
    for (let attempt = 0; attempt < 12 && last?.status !== 429; attempt++) {
      last = await browser.submit(
        page,
        { current_password: `guess ${attempt}`, new_password: 'a brand new passphrase' },
        { button: 'Change password' },
      );
      statuses.push(last.status);
    }
    expect(statuses.slice(0, 6)).toEqual([401, 401, 401, 401, 401, 401]);
    expect(last!.status).toBe(429);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(last!.body).toMatch(/Too many failed sign-ins\. Try again in \d+ seconds\./);
  });
});

describe('POST /developer/account/sign-out-everywhere', () => {
  it('requires the CSRF token: without it nothing is revoked [CSRF]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const refused = await browser.request('/developer/account/sign-out-everywhere', { form: { _csrf: '' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('This form has expired');
    const foreign = await browser.request('/developer/account/sign-out-everywhere', {
      form: { _csrf: await csrfOf(browser) },
      headers: { origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    await expectAccepted(copyOf(browser));
    expect((await sessionRows('admin@demo.test')).every((r) => !r.revoked)).toBe(true);
  });

  it('revokes every session of the person, this one included; other people keep theirs [tenant isolation]', async () => {
    const first = await loggedIn('admin@demo.test');
    const second = await loggedIn('admin@demo.test');
    const colleague = await loggedIn('editor@demo.test');
    const otherOrganization = await loggedIn('admin@other.test');
    const page = await first.request('/developer/account');
    const done = await first.submit(page, {}, { button: 'Sign out everywhere' });
    expect([done.status, done.location]).toEqual([303, `${t.baseUrl}/login`]);
    await expectRefused(copyOf(second));
    await expectRefused(copyOf(first));
    expect((await sessionRows('admin@demo.test')).every((r) => r.revoked)).toBe(true);
    await expectAccepted(copyOf(colleague));
    await expectAccepted(copyOf(otherOrganization));
    expect((await sessionRows('admin@other.test')).map((r) => r.revoked)).toEqual([false]);
  });
});

describe('requireHostLogin', () => {
  it('refuses a cookie sealed before sessions were recorded (no session id) as logged out [old cookie]', async () => {
    const sealed = await sealData(
      {
        personId: await personId(t.db, 'editor@demo.test'),
        csrfToken: 'x'.repeat(43),
        authenticatedAt: Math.floor(Date.now() / 1000),
      },
      { password: TEST_SESSION_SECRET, ttl: 3600 },
    );
    await expectRefused(`${HOST_SESSION_COOKIE}=${sealed}`);
  });

  it('refuses a session whose record expired', async () => {
    const browser = await loggedIn('editor@demo.test');
    await expectAccepted(copyOf(browser));
    await t.db.query(
      "UPDATE host_sessions SET expires_at = now() - interval '1 second' WHERE created_at = (SELECT max(created_at) FROM host_sessions)",
    );
    await expectRefused(copyOf(browser));
  });
});

describe('GET /oauth/authorize', () => {
  it('asks a copied cookie pair to log in again once the host session is revoked, instead of signing it in [single sign-on]', async () => {
    const config = await discoverClient(t.baseUrl, await createTestApplication(t.db));
    const browser = new TestBrowser(t.baseUrl);
    const pages = async (b: TestBrowser): Promise<PageKind[]> => {
      const seen: PageKind[] = [];
      await obtainTokens(b, config, { email: 'editor@demo.test', onPage: (_page, kind) => void seen.push(kind) });
      return seen;
    };
    expect(await pages(browser)).toEqual(['login', 'consent']);
    expect(await pages(browser)).toEqual([]);
    const copy = new TestBrowser(t.baseUrl);
    for (const [key, cookie] of browser.jar.cookies) copy.jar.cookies.set(key, { ...cookie });
    const out = await browser.request('/logout', { form: { _csrf: await csrfOf(browser) } });
    expect(out.status).toBe(303);
    expect(await pages(copy)).toEqual(['login']);
  });
});

describe('loadSessionPerson()', () => {
  it('writes last_seen_at at most every five minutes', async () => {
    const sessionId = 'a-session-id-for-last-seen';
    const person = await personId(t.db, 'editor@demo.test');
    const created = new Date('2026-01-01T10:00:00Z');
    await createSessionRecord(t.db, { sessionId, personId: person, now: created, ttlSeconds: 12 * 60 * 60 });
    const lastSeen = async () =>
      (
        await t.db.query<{ at: Date }>('SELECT last_seen_at AS at FROM host_sessions WHERE created_at = $1', [created])
      ).rows[0]!.at.toISOString();
    expect((await loadSessionPerson(t.db, sessionId, new Date('2026-01-01T10:04:59Z')))?.id).toBe(person);
    expect(await lastSeen()).toBe('2026-01-01T10:00:00.000Z');
    expect((await loadSessionPerson(t.db, sessionId, new Date('2026-01-01T10:05:00Z')))?.id).toBe(person);
    expect(await lastSeen()).toBe('2026-01-01T10:05:00.000Z');
    expect(await loadSessionPerson(t.db, sessionId, new Date('2026-01-01T22:00:00Z'))).toBeUndefined();
  });
});

describe('purgeExpiredSessions()', () => {
  it('deletes the rows of expired sessions, revoked or not, and keeps live ones', async () => {
    const live = (
      await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM host_sessions WHERE expires_at > now() + interval '1 hour'",
      )
    ).rows[0]!.n;
    expect(live).toBeGreaterThan(0);
    const expired = (
      await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM host_sessions WHERE expires_at <= now()')
    ).rows[0]!.n;
    expect(await purgeExpiredSessions(t.db)).toBe(expired);
    expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM host_sessions')).rows[0]!.n).toBe(live);
  });
});

describe('startOAuthHousekeeping()', () => {
  it('deletes expired session rows on its sweep', async () => {
    const created = new Date('2025-03-01T08:00:00Z');
    await createSessionRecord(t.db, {
      sessionId: 'swept-session',
      personId: await personId(t.db, 'editor@demo.test'),
      now: created,
      ttlSeconds: 60,
    });
    const rows = async () =>
      (await t.db.query('SELECT 1 FROM host_sessions WHERE created_at = $1', [created])).rows.length;
    expect(await rows()).toBe(1);
    const sweep = startOAuthHousekeeping(t.db, createLogger('silent'), 20);
    try {
      await vi.waitFor(async () => expect(await rows()).toBe(0), { timeout: 10_000, interval: 50 });
    } finally {
      sweep.stop();
    }
  });
});
