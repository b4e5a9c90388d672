import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '#host/db/database.ts';
import { createLimiterStore } from '#host/limits/limiter-store.ts';
import { createSignInThrottle } from '#host/limits/sign-in-throttle.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import { createTestApplication, REDIRECT_URI } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
beforeAll(async () => {
  // Client addresses come from X-Forwarded-For (the test's requests are the "proxy" on loopback).
  t = await startHttpTestHost({ config: { trustProxy: 'loopback' } });
});
afterAll(() => t.close());
afterEach(() => void vi.useRealTimers());

/** A controllable clock: the host's throttles read Date.now(). */
function freezeClock(): (seconds: number) => void {
  vi.useFakeTimers({ toFake: ['Date'] });
  let now = Date.parse('2026-10-01T09:00:00Z');
  vi.setSystemTime(now);
  return (seconds) => {
    now += seconds * 1000;
    vi.setSystemTime(now);
  };
}

/** Signs in on /login from `address`. */
async function signIn(email: string, password: string, address: string): Promise<PageResponse> {
  const browser = new TestBrowser(t.baseUrl);
  const form = await browser.request('/login', { headers: { 'x-forwarded-for': address } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  return browser.request('/login', {
    method: 'POST',
    form: { _csrf: csrf, email, password },
    headers: { 'x-forwarded-for': address },
  });
}

const message = (page: PageResponse) =>
  /<div class="ak-banner ak-banner--critical" role="alert"><p>([^<]+)<\/p><\/div>/.exec(page.body)?.[1];

describe('POST /login [throttling]', () => {
  it('allows 5 failures per account and address, then locks the pair with growing delays', async () => {
    const advance = freezeClock();
    const address = '203.0.113.1';
    for (let i = 0; i < 6; i++) expect((await signIn('editor@demo.test', 'wrong', address)).status).toBe(401);
    // The 6th failure locked the pair for 2 s: even the right password is not checked.
    const locked = await signIn('editor@demo.test', TEST_PASSWORD, address);
    expect(locked.status).toBe(429);
    expect(locked.headers.get('retry-after')).toBe('2');
    expect(message(locked)).toBe('Too many failed sign-ins. Try again in 2 seconds.');
    advance(3);
    expect((await signIn('editor@demo.test', 'wrong', address)).status).toBe(401);
    const longer = await signIn('editor@demo.test', TEST_PASSWORD, address);
    expect(longer.status).toBe(429);
    expect(longer.headers.get('retry-after')).toBe('4');
    // Another address is not affected by this pair's lock.
    expect((await signIn('editor@demo.test', TEST_PASSWORD, '203.0.113.2')).status).toBe(303);
    advance(5);
    expect((await signIn('editor@demo.test', TEST_PASSWORD, address)).status).toBe(303);
    // A success clears the pair's failures.
    for (let i = 0; i < 5; i++) expect((await signIn('editor@demo.test', 'wrong', address)).status).toBe(401);
  });

  it('locks an account after 20 failures from many addresses, except from an address it signed in from', async () => {
    const advance = freezeClock();
    expect((await signIn('member@demo.test', TEST_PASSWORD, '198.51.100.7')).status).toBe(303);
    for (let i = 0; i < 20; i++)
      expect((await signIn('member@demo.test', 'wrong', `192.0.2.${i + 1}`)).status).toBe(401);
    const elsewhere = await signIn('member@demo.test', TEST_PASSWORD, '192.0.2.200');
    expect(elsewhere.status).toBe(429);
    expect(Number(elsewhere.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(Number(elsewhere.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(message(elsewhere)).toMatch(/^Too many failed sign-ins\. Try again in 1[45] minutes\.$/);
    // The person's own address still signs in: the attack cannot lock them out.
    expect((await signIn('member@demo.test', TEST_PASSWORD, '198.51.100.7')).status).toBe(303);
    // The lock is temporary.
    advance(15 * 60 + 1);
    const later = await signIn('member@demo.test', TEST_PASSWORD, '192.0.2.200');
    expect([later.status, later.headers.get('retry-after')]).toEqual([303, null]);
  });

  it('locks an address after 50 failures across accounts, and only that address', async () => {
    freezeClock();
    const address = '203.0.113.50';
    for (let i = 0; i < 50; i++) expect((await signIn(`nobody${i}@demo.test`, 'wrong', address)).status).toBe(401);
    const blocked = await signIn('admin@demo.test', TEST_PASSWORD, address);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect((await signIn('admin@demo.test', TEST_PASSWORD, '203.0.113.51')).status).toBe(303);
  });
});

describe('POST /oauth/interaction/:uid/login [throttling]', () => {
  it('is throttled like /login: 429 with Retry-After and the message on the OAuth login page', async () => {
    freezeClock();
    const app = await createTestApplication(t.db);
    const address = '203.0.113.99';
    for (let i = 0; i < 6; i++) expect((await signIn('admin@demo.test', 'wrong', address)).status).toBe(401);
    const browser = new TestBrowser(t.baseUrl);
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'people',
      state: 's',
    });
    const start = await browser.request(`/oauth/authorize?${query}`, { headers: { 'x-forwarded-for': address } });
    const page = await browser.request(start.location!, { headers: { 'x-forwarded-for': address } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)![1]!;
    const res = await browser.request(action, {
      method: 'POST',
      form: { _csrf: csrf, email: 'admin@demo.test', password: TEST_PASSWORD },
      headers: { 'x-forwarded-for': address },
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(message(res)).toBe('Too many failed sign-ins. Try again in 2 seconds.');
  });
});

describe('createSignInThrottle() [checks in flight]', () => {
  it('turns away password checks beyond the 16 in flight with retry-after 1 s instead of queueing scrypt work, and admits again once one ends', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    try {
      const throttle = createSignInThrottle(await createLimiterStore({ db }));
      const permits = await Promise.all(
        Array.from({ length: 16 }, (_, i) => throttle.permit(`flood${i}@demo.test`, `198.18.0.${i + 1}`)),
      );
      expect(permits.every((p) => p.allowed)).toBe(true);
      expect(await throttle.permit('one-more@demo.test', '198.18.1.1')).toEqual({
        allowed: false,
        retryAfterSeconds: 1,
      });
      (permits[0] as { release(): void }).release();
      const next = await throttle.permit('one-more@demo.test', '198.18.1.1');
      expect(next.allowed).toBe(true);
    } finally {
      await db.close();
    }
  });
});
