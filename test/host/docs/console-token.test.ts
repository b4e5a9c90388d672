/**
 * Console tokens for the /docs try-it console: the control on /docs, `POST /docs/console-token` (issue, CSRF,
 * sign-in), where the token is accepted (its one API and scope), its expiry, and revocation on the account page.
 * The host's clock is the test's (`deps.now`).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLE_TOKEN_TTL_MINUTES, purgeExpiredConsoleTokens } from '#host/auth/console-tokens.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { parseForms, TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let clock: Date;
beforeAll(async () => {
  t = await startHttpTestHost({ deps: { now: () => clock } });
});
afterAll(() => t.close());
beforeEach(() => {
  clock = new Date('2026-11-28T06:00:00.000Z');
});

interface Issued {
  client_id: string;
  secret: string;
  api_prefix: string;
  scope: string | null;
  expires_at: string;
}

async function loggedIn(email: string): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const done = await browser.submit(await browser.request('/login'), { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  return browser;
}

/** The CSRF token of the console-token control on `/docs?api=<api>`. */
async function csrfOnDocs(browser: TestBrowser, api: string): Promise<string> {
  const page = await browser.request(`/docs?api=${api}`);
  return parseForms(page.body).find((f) => f.action === '/docs/console-token')!.fields._csrf!;
}

/** `POST /docs/console-token` as reference.js sends it. */
function postConsoleToken(browser: TestBrowser, api: string, csrf: string | undefined): Promise<PageResponse> {
  return browser.request('/docs/console-token', {
    method: 'POST',
    form: { api },
    headers: { accept: 'application/json', ...(csrf === undefined ? {} : { 'X-CSRF-Token': csrf }) },
  });
}

async function issue(browser: TestBrowser, api: string): Promise<Issued> {
  const res = await postConsoleToken(browser, api, await csrfOnDocs(browser, api));
  expect(res.status).toBe(201);
  return JSON.parse(res.body) as Issued;
}

const basic = (token: Issued) => `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;
const get = (path: string, token: Issued) => t.api().get(path).set('Authorization', basic(token));

const UNAUTHORIZED = {
  errors: [
    {
      status: '401',
      title: 'Unauthorized',
      detail: 'The authenticated user has no record in this application or the credentials are not valid',
    },
  ],
};
const forbidden = (description: string) => ({
  errors: [
    { status: '403', title: 'Forbidden', detail: 'You do not have access to this resource', meta: { description } },
  ],
});

describe('GET /docs [console-token control]', () => {
  it('offers a signed-in person a button that posts the API and the CSRF token', async () => {
    const page = await (await loggedIn('editor@demo.test')).request('/docs?api=people');
    const form = parseForms(page.body).find((f) => f.action === '/docs/console-token')!;
    expect(Object.keys(form.fields)).toEqual(['_csrf', 'api']);
    expect(form.fields.api).toBe('people');
    expect(form.buttons.map((b) => b.text)).toEqual(['Use a console token for this API']);
    expect(page.body).toContain(
      `Authorizes Try it out as you for ${CONSOLE_TOKEN_TTL_MINUTES} minutes, on /people/v2 with the people scope only.`,
    );
    expect(page.body).toContain('<p class="ak-console-token-status" role="status" data-console-status="true"></p>');
  });

  it('asks anyone signed out to sign in and come back to the same API [signed out]', async () => {
    const page = await new TestBrowser(t.baseUrl).request('/docs?api=webhooks');
    expect(parseForms(page.body).some((f) => f.action === '/docs/console-token')).toBe(false);
    expect(page.body).toContain(
      'To try requests without pasting a token, <a href="/login?return_to=%2Fdocs%3Fapi%3Dwebhooks">sign in</a>',
    );
  });

  it('offers nothing on the OAuth endpoints, which take no console token [oauth]', async () => {
    const page = await (await loggedIn('editor@demo.test')).request('/docs?api=oauth');
    expect(page.body).not.toContain('ak-console-token');
  });
});

describe('POST /docs/console-token', () => {
  it('issues a token for the chosen API, stored as a digest, expiring after the documented time', async () => {
    const browser = await loggedIn('editor@demo.test');
    const res = await postConsoleToken(browser, 'people', await csrfOnDocs(browser, 'people'));
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const token = JSON.parse(res.body) as Issued;
    expect(Object.keys(token)).toEqual(['client_id', 'secret', 'api_prefix', 'scope', 'expires_at']);
    expect(token.client_id).toMatch(/^console_[0-9a-f]{32}$/);
    expect(token.secret).toMatch(/^[0-9a-f]{64}$/);
    expect([token.api_prefix, token.scope, token.expires_at]).toEqual([
      '/people/v2',
      'people',
      '2026-11-28T07:00:00.000Z',
    ]);
    const { rows } = await t.db.query<Record<string, unknown>>(
      `SELECT person_id::text, api_prefix, scope, secret_hash, created_at, expires_at FROM console_tokens WHERE client_id = $1`,
      [token.client_id],
    );
    expect(rows).toEqual([
      {
        person_id: await personId(t.db, 'editor@demo.test'),
        api_prefix: '/people/v2',
        scope: 'people',
        secret_hash: createHash('sha256').update(token.secret).digest('hex'),
        created_at: new Date('2026-11-28T06:00:00.000Z'),
        expires_at: new Date('2026-11-28T07:00:00.000Z'),
      },
    ]);
    const people = await get('/people/v2/people', token);
    expect(people.status).toBe(200);
    expect(people.body.data.length).toBeGreaterThan(0);
  });

  it('refuses a request without the CSRF token, or with a wrong one or a foreign Origin [csrf]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const csrf = await csrfOnDocs(browser, 'people');
    const before = await t.db.query('SELECT 1 FROM console_tokens');
    // Without the header the refusal is a page (a form post); a script's call gets the JSON error body.
    const missing = await postConsoleToken(browser, 'people', undefined);
    expect(missing.status).toBe(403);
    expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
    for (const res of [
      await postConsoleToken(browser, 'people', `${csrf}x`),
      await browser.request('/docs/console-token', {
        method: 'POST',
        form: { api: 'people' },
        headers: { accept: 'application/json', 'X-CSRF-Token': csrf, origin: 'https://elsewhere.example' },
      }),
    ]) {
      expect(res.status).toBe(403);
      expect(JSON.parse(res.body)).toEqual(
        forbidden('The CSRF token is missing or invalid, or the request came from another origin'),
      );
    }
    expect((await t.db.query('SELECT 1 FROM console_tokens')).rows.length).toBe(before.rows.length);
  });

  it('answers 401 to a session that is not signed in [signed out]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const login = await browser.request('/login');
    const res = await postConsoleToken(browser, 'people', parseForms(login.body)[0]!.fields._csrf);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body).errors[0].detail).toBe('Log in to the host first');
  });

  it('answers 422 for an API without console tokens [oauth]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const res = await postConsoleToken(browser, 'oauth', await csrfOnDocs(browser, 'people'));
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body).errors[0]).toMatchObject({
      code: 'invalid_enum_value',
      detail: 'api must be one of: current, people, api, webhooks',
    });
  });
});

describe('console tokens on the APIs', () => {
  it('works on the API it was issued for, each API with its own scope', async () => {
    const browser = await loggedIn('admin@demo.test');
    expect((await get('/current/v2/me', await issue(browser, 'current'))).status).toBe(200);
    expect((await get('/api/v2', await issue(browser, 'api'))).status).toBe(200);
    expect((await get('/webhooks/v2/webhook_subscriptions', await issue(browser, 'webhooks'))).status).toBe(200);
  });

  it('is refused (403) outside its API, as a missing scope is [scope]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const people = await issue(browser, 'people');
    for (const path of ['/current/v2/me', '/api/v2', '/webhooks/v2/webhook_subscriptions']) {
      const res = await get(path, people);
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.body).toEqual(forbidden('This console token is for /people/v2 only'));
    }
    const current = await get('/people/v2/people', await issue(browser, 'current'));
    expect(current.status).toBe(403);
    expect(current.body).toEqual(forbidden('This console token is for /current/v2 only'));
  });

  it('is refused (403) by the add-on registry, which is no API of /docs [scope, /addons/v1]', async () => {
    // The registry authenticates by the system clock: issue the token by it.
    clock = new Date();
    const people = await issue(await loggedIn('admin@demo.test'), 'people');
    const res = await get('/addons/v1/applications/1/environments/development', people);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(forbidden('This console token is for /people/v2 only'));
  });

  it('is refused (401) with a wrong secret', async () => {
    const token = await issue(await loggedIn('admin@demo.test'), 'people');
    const res = await get('/people/v2/people', { ...token, secret: '0'.repeat(64) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('is refused (401) once expired, then no longer listed, and pruned [expiry]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const token = await issue(browser, 'people');
    clock = new Date(clock.getTime() + CONSOLE_TOKEN_TTL_MINUTES * 60_000 - 1000);
    expect((await get('/people/v2/people', token)).status).toBe(200);
    clock = new Date(clock.getTime() + 1000);
    const res = await get('/people/v2/people', token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    const account = await browser.request('/developer/account');
    expect(account.body).not.toContain(`data-console-token-id=`);
    expect(account.body).toContain('You have no live console tokens.');
    const { rows } = await t.db.query('SELECT 1 FROM console_tokens WHERE client_id = $1', [token.client_id]);
    expect(rows).toEqual([]);
  });
});

describe('purgeExpiredConsoleTokens()', () => {
  it('deletes the expired tokens of everyone and keeps the live ones', async () => {
    const live = await issue(await loggedIn('member@demo.test'), 'current');
    clock = new Date(clock.getTime() - 2 * CONSOLE_TOKEN_TTL_MINUTES * 60_000);
    const old = await issue(await loggedIn('admin@other.test'), 'current');
    const purged = await purgeExpiredConsoleTokens(t.db, new Date('2026-11-28T06:00:00.000Z'));
    expect(purged).toBeGreaterThanOrEqual(1);
    const ids = (await t.db.query<{ client_id: string }>('SELECT client_id FROM console_tokens')).rows.map(
      (r) => r.client_id,
    );
    expect(ids).toContain(live.client_id);
    expect(ids).not.toContain(old.client_id);
  });
});

describe('POST /developer/account/console-tokens/:id/revoke', () => {
  /** The person's listed console tokens: [id, API] pairs, and each row's revoke form. */
  async function listed(browser: TestBrowser) {
    const page = await browser.request('/developer/account');
    expect(page.status).toBe(200);
    const rows = [...page.body.matchAll(/data-console-token-id="(\d+)"><td class="ak-mono">([^<]+)<\/td>/g)];
    return { page, tokens: rows.map((m) => [m[1]!, m[2]!]) };
  }

  it('lists the live tokens with API, created and expires, and revokes one, which then stops working', async () => {
    const browser = await loggedIn('member@demo.test');
    const token = await issue(browser, 'current');
    const { page, tokens } = await listed(browser);
    const mine = tokens.find(([, api]) => api === '/current/v2')!;
    expect(page.body).toContain(
      `<tr data-console-token-id="${mine[0]}"><td class="ak-mono">/current/v2</td><td>2026-11-28 06:00 UTC</td><td>2026-11-28 07:00 UTC</td>`,
    );
    const forms = parseForms(page.body);
    const formIndex = forms.findIndex((f) => f.action === `/developer/account/console-tokens/${mine[0]}/revoke`);
    expect(Object.keys(forms[formIndex]!.fields)).toEqual(['_csrf']);
    expect(forms[formIndex]!.buttons.map((b) => b.text)).toEqual(['Revoke the console token for /current/v2']);
    const done = await browser.submit(page, {}, { formIndex });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${t.baseUrl}/developer/account#console-tokens`);
    const res = await get('/current/v2/me', token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect((await listed(browser)).tokens.map(([id]) => id)).not.toContain(mine[0]);
  });

  it('refuses a revocation without the CSRF token [csrf]', async () => {
    const browser = await loggedIn('member@demo.test');
    const token = await issue(browser, 'current');
    const { tokens } = await listed(browser);
    const id = tokens[0]![0];
    const res = await browser.request(`/developer/account/console-tokens/${id}/revoke`, { method: 'POST', form: {} });
    expect(res.status).toBe(403);
    expect((await get('/current/v2/me', token)).status).toBe(200);
  });

  it("answers 404 to another person's token and leaves it working [isolation]", async () => {
    const owner = await loggedIn('editor@demo.test');
    const token = await issue(owner, 'people');
    const id = (await listed(owner)).tokens.find(([, api]) => api === '/people/v2')![0];
    for (const email of ['admin@demo.test', 'admin@other.test']) {
      const other = await loggedIn(email);
      const page = await other.request('/developer/account');
      const csrf = parseForms(page.body)[0]!.fields._csrf!;
      const res = await other.request(`/developer/account/console-tokens/${id}/revoke`, {
        method: 'POST',
        form: { _csrf: csrf },
      });
      expect([email, res.status]).toEqual([email, 404]);
      expect(res.body).toContain('That console token does not exist.');
      expect((await listed(other)).tokens.map(([tokenId]) => tokenId)).not.toContain(id);
    }
    expect((await get('/people/v2/people', token)).status).toBe(200);
  });
});
