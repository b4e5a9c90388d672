/**
 * `GET /`: a browser gets the home page — signed out, the way to sign in; signed in, what the person can do and the
 * add-ons of their organization — while an API client asking for JSON keeps the JSON 404 of an unknown path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { loggedIn, registerAddon } from '../addons/fixtures.ts';

let t: HttpTestHost;

beforeAll(async () => {
  t = await startHttpTestHost({ config: { addonSweepIntervalSeconds: 0 } });
});
afterAll(() => t?.close());

describe('GET /', () => {
  it('answers an API client with the JSON 404 of an unknown path [Accept: application/json, */*]', async () => {
    for (const accept of ['application/json', '*/*']) {
      const res = await fetch(`${t.baseUrl}/`, { headers: { accept, 'user-agent': TEST_USER_AGENT } });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual({
        errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
      });
    }
  });

  it('shows a signed-out browser what the platform is and the way to sign in [signed out]', async () => {
    const res = await fetch(`${t.baseUrl}/`, { headers: { accept: 'text/html,application/xhtml+xml' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('<title>Welcome · addon-kit</title>');
    expect(html).toContain('href="/login?return_to=%2F"');
    expect(html).toContain('href="/docs"');
    expect(html).not.toContain('Developer account');
  });

  it('shows a signed-in person their Lists, developer account, API reference and the add-ons of their organization', async () => {
    const { browser } = await loggedIn(t.baseUrl);
    const empty = await browser.request('/');
    expect(empty.status).toBe(200);
    expect(empty.body).toContain('No add-on is installed for your organization yet.');
    const addon = await registerAddon(t.db, { integratorUrl: 'http://127.0.0.1:9' });
    const page = await browser.request('/');
    expect(page.status).toBe(200);
    for (const part of ['href="/demo/lists"', 'href="/developer"', 'href="/docs"', '<h2>Add-ons of Demo Church</h2>'])
      expect(page.body).toContain(part);
    expect(page.body).toMatch(new RegExp(`<td class="ak-num">${addon.oauthApplicationId}</td>`));
    expect(page.body).not.toContain('No add-on is installed');
    // A member of another organization does not see it.
    const other = await loggedIn(t.baseUrl, 'admin@other.test');
    expect((await other.browser.request('/')).body).toContain('No add-on is installed for your organization yet.');
  });
});
