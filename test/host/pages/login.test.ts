import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireCsrf } from '#host/auth/csrf.ts';
import {
  configureHostSession,
  HOST_SESSION_COOKIE,
  hostPersonOf,
  hostSessionOptions,
  requireHostLogin,
  safeReturnTo,
} from '#host/auth/session.ts';
import { errorHandler } from '#host/http/error-handler.ts';
import { createLogger } from '#host/logger.ts';
import { TEST_PASSWORD } from '../../support/constants.ts';
import { testConfig } from '../../support/host.ts';
import { parseForms, TestBrowser } from '../../support/oauth-browser.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;

beforeAll(async () => {
  // A page and an API route behind the session, served beside the host's /login.
  t = await startHttpTestHost({
    prepend(outer, host) {
      configureHostSession(outer, { config: host.host.config, db: host.db });
      const probe = express.Router();
      probe.get(
        '/probe/page',
        requireHostLogin,
        (req, res) => void res.type('text/plain').send(`hello ${hostPersonOf(req).email}`),
      );
      probe.post(
        '/probe/action',
        requireHostLogin,
        requireCsrf,
        (req, res) => void res.json({ ok: true, person: hostPersonOf(req).id }),
      );
      outer.use(probe);
      outer.use('/probe', errorHandler(createLogger('silent')));
    },
  });
});
afterAll(() => t.close());

async function loggedIn(email = 'admin@demo.test'): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const form = await browser.request('/login');
  const done = await browser.submit(form, { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  return browser;
}

describe('GET /login', () => {
  it('renders a form with a CSRF token and sets the sealed session cookie', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const page = await browser.request('/login?return_to=/developer/tokens');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const [form] = parseForms(page.body);
    expect(form?.action).toBe('/login');
    expect(Object.keys(form!.fields).sort()).toEqual(['_csrf', 'email', 'password', 'return_to']);
    expect(form!.fields._csrf).toMatch(/^[\w-]{43}$/);
    expect(form!.fields.return_to).toBe('/developer/tokens');
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith(`${HOST_SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    // Sealed: the token is not readable in the cookie.
    expect(cookie).not.toContain(form!.fields._csrf);
  });

  it('drops a return_to that leaves the origin [open redirect]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const page = await browser.request('/login?return_to=//evil.example/x');
    expect(parseForms(page.body)[0]!.fields.return_to).toBe('/developer');
  });
});

describe('POST /login', () => {
  it('logs in and redirects to return_to', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const form = await browser.request('/login?return_to=/probe/page');
    const done = await browser.submit(form, { email: 'Admin@Demo.test', password: TEST_PASSWORD });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${t.baseUrl}/probe/page`);
    const page = await browser.request('/probe/page');
    expect(page.status).toBe(200);
    expect(page.body).toBe('hello admin@demo.test');
  });

  it('answers 401 with a generic message [wrong password]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const form = await browser.request('/login');
    const done = await browser.submit(form, { email: 'admin@demo.test', password: 'wrong' });
    expect(done.status).toBe(401);
    expect(done.body).toContain('The e-mail address or password is incorrect.');
    expect(parseForms(done.body)[0]!.fields.email).toBe('admin@demo.test');
  });

  it('answers 401 with the same message [unknown e-mail]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const form = await browser.request('/login');
    const done = await browser.submit(form, { email: 'nobody@demo.test', password: TEST_PASSWORD });
    expect(done.status).toBe(401);
    expect(done.body).toContain('The e-mail address or password is incorrect.');
  });

  it('refuses a post without the CSRF token with 403 [login CSRF]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const form = await browser.request('/login');
    const done = await browser.submit(form, { email: 'admin@demo.test', password: TEST_PASSWORD, _csrf: '' });
    expect(done.status).toBe(403);
    expect(done.body).toContain('This form has expired');
    expect(done.headers.getSetCookie().some((c) => c.startsWith(`${HOST_SESSION_COOKIE}=`))).toBe(false);
  });

  it('refuses a post from another origin with 403 [Origin]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const form = await browser.request('/login');
    const fields = parseForms(form.body)[0]!.fields;
    const done = await browser.request('/login', {
      form: { ...fields, email: 'admin@demo.test', password: TEST_PASSWORD },
      headers: { origin: 'http://evil.example' },
    });
    expect(done.status).toBe(403);
  });

  it('issues a new CSRF token at login [fixation]', async () => {
    const browser = new TestBrowser(t.baseUrl);
    const form = await browser.request('/login');
    const before = parseForms(form.body)[0]!.fields._csrf!;
    await browser.submit(form, { email: 'admin@demo.test', password: TEST_PASSWORD });
    const res = await browser.request('/probe/action', {
      method: 'POST',
      headers: { 'x-csrf-token': before, accept: 'application/json' },
    });
    expect(res.status).toBe(403);
  });
});

describe('requireHostLogin', () => {
  it('redirects a page request to /login with return_to [not logged in]', async () => {
    const res = await new TestBrowser(t.baseUrl).request('/probe/page?x=1', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${t.baseUrl}/login?return_to=${encodeURIComponent('/probe/page?x=1')}`);
  });

  it('answers 401 JSON to an API request [not logged in]', async () => {
    const res = await new TestBrowser(t.baseUrl).request('/probe/action', {
      method: 'POST',
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toEqual({
      errors: [{ status: '401', title: 'Unauthorized', detail: 'Log in to the host first' }],
    });
  });
});

describe('requireCsrf', () => {
  it('accepts the session token in the X-CSRF-Token header', async () => {
    const browser = await loggedIn();
    const token = parseForms((await browser.request('/login')).body)[0]!.fields._csrf!;
    const res = await browser.request('/probe/action', {
      method: 'POST',
      headers: { 'x-csrf-token': token, origin: t.baseUrl },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ ok: true, person: expect.stringMatching(/^\d+$/) });
  });

  it('refuses a wrong token with 403 JSON', async () => {
    const browser = await loggedIn();
    const res = await browser.request('/probe/action', { method: 'POST', headers: { 'x-csrf-token': 'x'.repeat(43) } });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: { description: 'The CSRF token is missing or invalid, or the request came from another origin' },
        },
      ],
    });
  });

  it('refuses the right token from a foreign Origin with 403', async () => {
    const browser = await loggedIn();
    const token = parseForms((await browser.request('/login')).body)[0]!.fields._csrf!;
    const res = await browser.request('/probe/action', {
      method: 'POST',
      headers: { 'x-csrf-token': token, origin: 'http://127.0.0.1:1' },
    });
    expect(res.status).toBe(403);
  });
});

describe('POST /logout', () => {
  it('ends the session', async () => {
    const browser = await loggedIn();
    const token = parseForms((await browser.request('/login')).body)[0]!.fields._csrf!;
    const out = await browser.request('/logout', { form: { _csrf: token } });
    expect(out.status).toBe(303);
    expect(out.location).toBe(`${t.baseUrl}/login`);
    expect((await browser.request('/probe/page', { headers: { accept: 'text/html' } })).status).toBe(303);
  });
});

describe('hostSessionOptions()', () => {
  it('marks the cookie Secure when the host is served over https', () => {
    expect(hostSessionOptions(testConfig({ baseUrl: 'https://host.example' })).cookieOptions).toEqual({
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      path: '/',
    });
  });
});

describe('safeReturnTo()', () => {
  it('keeps same-origin paths only', () => {
    expect(safeReturnTo('/a?b=c')).toBe('/a?b=c');
    expect(safeReturnTo('//evil.example')).toBe('/developer');
    expect(safeReturnTo('/\\evil.example')).toBe('/developer');
    expect(safeReturnTo('https://evil.example/')).toBe('/developer');
    expect(safeReturnTo(undefined)).toBe('/developer');
  });
});
