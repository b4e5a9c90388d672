/**
 * The cache of unsealed host session cookies: a copy of what a seal unsealed to, for a short time, never
 * past the seal's own expiry; and the host session through it still answers like iron-session alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUnsealedSessions } from '#host/auth/unsealed-sessions.ts';
import { HOST_SESSION_COOKIE } from '#host/auth/session.ts';
import { personId } from '../../support/host.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { loggedIn } from '../addons/fixtures.ts';

/** A seal in iron's format (`Fe26.2*id*salt*iv*data*expiration*hmacSalt*hmac~2`) expiring in `ttl` seconds (0: never). */
let sealCount = 0;
function sealFor(ttl: number): string {
  sealCount += 1;
  const expiration = ttl ? String(Date.now() + ttl * 1000) : '';
  return `Fe26.2*1*salt${sealCount}*iv*data*${expiration}*hsalt*hmac~2`;
}

describe('createUnsealedSessions()', () => {
  it('hands out copies: changing one changes neither the cache nor the next copy [copy]', async () => {
    const seal = sealFor(3600);
    const cache = createUnsealedSessions<{ personId?: string; csrfToken?: string }>();
    const data = { personId: '1', csrfToken: 'a' };
    cache.set(seal, data);
    data.csrfToken = 'changed before';
    const first = cache.get(seal)!;
    first.csrfToken = 'changed after';
    expect(cache.get(seal)).toEqual({ personId: '1', csrfToken: 'a' });
  });

  it('keeps an entry for its time, never past the expiry written in the seal [expiry]', async () => {
    let now = Date.now();
    const cache = createUnsealedSessions<{ personId: string }>({ ttlMs: 60_000, now: () => now });
    const long = sealFor(3600);
    const short = sealFor(30);
    cache.set(long, { personId: '1' });
    cache.set(short, { personId: '2' });
    now += 29_000;
    expect([cache.get(long), cache.get(short)]).toEqual([{ personId: '1' }, { personId: '2' }]);
    now += 2_000;
    expect([cache.get(long), cache.get(short)]).toEqual([{ personId: '1' }, undefined]);
    now += 30_000;
    expect(cache.get(long)).toBeUndefined();
  });

  it('keeps no seal without a readable expiry, and forgets a seal on request [forget]', async () => {
    const cache = createUnsealedSessions<{ personId: string }>();
    const noExpiry = sealFor(0);
    cache.set(noExpiry, { personId: '1' });
    expect(cache.get(noExpiry)).toBeUndefined();
    const seal = sealFor(3600);
    cache.set(seal, { personId: '2' });
    cache.forget(seal);
    expect(cache.get(seal)).toBeUndefined();
  });

  it('drops the least recently used entry beyond its size [bounded]', async () => {
    const cache = createUnsealedSessions<{ n: number }>({ maxEntries: 2 });
    const seals = [1, 2, 3].map(() => sealFor(3600));
    cache.set(seals[0]!, { n: 1 });
    cache.set(seals[1]!, { n: 2 });
    expect(cache.get(seals[0]!)).toEqual({ n: 1 });
    cache.set(seals[2]!, { n: 3 });
    expect(seals.map((s) => cache.get(s))).toEqual([{ n: 1 }, undefined, { n: 3 }]);
  });
});

describe('the host session with unsealed cookies kept', () => {
  let t: HttpTestHost;
  beforeAll(async () => {
    t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
  });
  afterAll(() => t.close());

  const installations = (cookie: string) =>
    fetch(`${t.baseUrl}/addons/installations`, { headers: { cookie, accept: 'application/json' } });

  it('still refuses a person deactivated after their cookie was unsealed [checks after the unseal]', async () => {
    const editor = await loggedIn(t.baseUrl, 'editor@demo.test');
    expect((await installations(editor.cookie)).status).toBe(200);
    expect((await installations(editor.cookie)).status).toBe(200);
    const id = await personId(t.db, 'editor@demo.test');
    await t.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [id]);
    try {
      const res = await installations(editor.cookie);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: { side: 'host_auth', code: 'login_required', message: 'Log in to the host first', retryable: false },
      });
    } finally {
      await t.db.query("UPDATE people SET status = 'active' WHERE id = $1", [id]);
    }
  });

  it('reads the same cookie iron-session reads when a request carries two session cookies [first one]', async () => {
    const admin = await loggedIn(t.baseUrl, 'admin@demo.test');
    const member = await loggedIn(t.baseUrl, 'member@demo.test');
    const seal = (cookie: string) => new RegExp(`${HOST_SESSION_COOKIE}=([^;]+)`).exec(cookie)![1]!;
    // Both are unsealed (and kept) once on their own.
    const own = async (cookie: string) =>
      ((await (await installations(cookie)).json()) as { csrf_token: string }).csrf_token;
    expect([await own(admin.cookie), await own(member.cookie)]).toEqual([admin.csrf, member.csrf]);
    const both = `${HOST_SESSION_COOKIE}=${seal(member.cookie)}; ${HOST_SESSION_COOKIE}=${seal(admin.cookie)}`;
    expect(await own(both)).toBe(member.csrf);
    const reversed = `${HOST_SESSION_COOKIE}=${seal(admin.cookie)}; ${HOST_SESSION_COOKIE}=${seal(member.cookie)}`;
    expect(await own(reversed)).toBe(admin.csrf);
  });
});
