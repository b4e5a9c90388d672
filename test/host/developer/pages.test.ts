import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { parseForms, TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import { discoverClient, obtainTokens, REDIRECT_URI } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
beforeAll(async () => {
  t = await startHttpTestHost();
});
afterAll(() => t.close());

async function loggedIn(email: string): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const done = await browser.submit(await browser.request('/login'), { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  return browser;
}
const field = (page: PageResponse, name: string) => new RegExp(`data-field="${name}">([^<]+)<`).exec(page.body)?.[1];
const formWith = (page: PageResponse, suffix: string) =>
  parseForms(page.body).findIndex((f) => f.action.endsWith(suffix));

describe('GET /developer', () => {
  it('redirects to the login page when nobody is logged in', async () => {
    const res = await new TestBrowser(t.baseUrl).request('/developer/personal-access-tokens');
    expect(res.status).toBe(303);
    expect(res.location).toBe(`${t.baseUrl}/login?return_to=%2Fdeveloper%2Fpersonal-access-tokens`);
  });

  it('greets the logged-in person', async () => {
    const page = await (await loggedIn('editor@demo.test')).request('/developer');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Logged in as Eden Editor (editor@demo.test), Demo Church.');
    // Named once, not "Developer account · Developer account · addon-kit".
    expect(page.body).toContain('<title>Developer account · addon-kit</title>');
  });

  it('names the person and the organization in the header, offers Log out, and shows only the tabs they may use [header]', async () => {
    const editor = await (await loggedIn('editor@demo.test')).request('/developer');
    expect(editor.body).toContain('<span class="ak-account-person" data-viewer="person">Eden Editor</span>');
    expect(editor.body).toContain(
      '<span class="ak-account-organization" data-viewer="organization">Demo Church</span>',
    );
    const logout = parseForms(editor.body).find((f) => f.action === '/logout')!;
    expect([Object.keys(logout.fields), logout.buttons.map((b) => b.text)]).toEqual([['_csrf'], ['Log out']]);
    expect(editor.body).toContain('<a href="/developer" aria-current="page">Overview</a>');
    expect(editor.body).not.toContain('href="/developer/connected-applications"');
    const admin = await (await loggedIn('admin@demo.test')).request('/developer');
    expect(admin.body).toContain('<span class="ak-account-person" data-viewer="person">Alex Admin</span>');
    expect(admin.body).toContain('<a href="/developer/connected-applications">Connected applications</a>');
  });
});

describe('/developer/personal-access-tokens', () => {
  it('creates a token showing the secret once, which then authenticates, and deletes it', async () => {
    const browser = await loggedIn('editor@demo.test');
    const list = await browser.request('/developer/personal-access-tokens');
    const created = await browser.submit(
      list,
      { name: 'My script' },
      { formIndex: formWith(list, '/developer/personal-access-tokens') },
    );
    expect(created.status).toBe(201);
    expect(created.body).toContain('Token “My script” created');
    const clientId = field(created, 'client_id')!;
    const secret = field(created, 'secret')!;
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    // One name per thing: a token's client ID (what ADDON_KIT_PAT_CLIENT_ID wants) is never an "Application ID".
    expect(created.body).toContain('<dt>Client ID</dt>');
    expect(created.body).not.toContain('Application ID');
    const basic = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
    expect(
      (await fetch(`${t.baseUrl}/current/v2/me`, { headers: { authorization: basic, 'user-agent': TEST_USER_AGENT } }))
        .status,
    ).toBe(200);
    // Listed without the secret afterwards.
    const again = await browser.request('/developer/personal-access-tokens');
    expect(again.body).toContain(clientId);
    expect(again.body).not.toContain(secret);
    const { rows } = await t.db.query<{ id: string }>(
      'SELECT id::text FROM personal_access_tokens WHERE client_id = $1',
      [clientId],
    );
    const deleted = await browser.submit(
      again,
      {},
      { formIndex: formWith(again, `/personal-access-tokens/${rows[0]!.id}/delete`) },
    );
    expect(deleted.status).toBe(303);
    expect(
      (await fetch(`${t.baseUrl}/current/v2/me`, { headers: { authorization: basic, 'user-agent': TEST_USER_AGENT } }))
        .status,
    ).toBe(401);
  });

  it('refuses to delete another person’s token [isolation]', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "INSERT INTO personal_access_tokens (person_id, organization_id, name, client_id, secret_hash) SELECT id, organization_id, 'admin token', 'cid-admin-1', 'x' FROM people WHERE email = 'admin@demo.test' RETURNING id::text",
    );
    const browser = await loggedIn('editor@demo.test');
    const list = await browser.request('/developer/personal-access-tokens');
    const csrf = parseForms(list.body)[0]!.fields._csrf!;
    const res = await browser.request(`/developer/personal-access-tokens/${rows[0]!.id}/delete`, {
      form: { _csrf: csrf },
    });
    expect(res.status).toBe(404);
    expect((await t.db.query('SELECT 1 FROM personal_access_tokens WHERE id = $1', [rows[0]!.id])).rows).toHaveLength(
      1,
    );
  });

  it('refuses a post without the CSRF token [CSRF]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const res = await browser.request('/developer/personal-access-tokens', { form: { name: 'sneaky' } });
    expect(res.status).toBe(403);
    expect((await t.db.query("SELECT 1 FROM personal_access_tokens WHERE name = 'sneaky'")).rows).toHaveLength(0);
  });

  it('answers 422 to a token without a name', async () => {
    const browser = await loggedIn('editor@demo.test');
    const list = await browser.request('/developer/personal-access-tokens');
    const res = await browser.submit(
      list,
      { name: '  ' },
      { formIndex: formWith(list, '/developer/personal-access-tokens') },
    );
    expect(res.status).toBe(422);
    expect(res.body).toContain('Name is required');
  });
});

describe('/developer/oauth-applications', () => {
  it('lets an organization administrator create a confidential application whose secret works at /oauth/token', async () => {
    const browser = await loggedIn('admin@demo.test');
    const list = await browser.request('/developer/oauth-applications');
    const created = await browser.submit(
      list,
      {
        name: 'Made in the page',
        description: 'd',
        url: 'https://made.example',
        redirect_uris: `${REDIRECT_URI}\nhttp://localhost:3000/cb`,
        client_type: 'confidential',
        add_on_scopes: 'people',
      },
      { formIndex: formWith(list, '/developer/oauth-applications') },
    );
    expect(created.status).toBe(201);
    const clientId = field(created, 'client_id')!;
    const clientSecret = field(created, 'client_secret')!;
    expect(clientSecret).toMatch(/^[\w-]{43}$/);
    const { rows } = await t.db.query<Record<string, unknown>>(
      'SELECT id::text, name, description, url, public, redirect_uris, add_on_scopes, created_by_id::text, client_secret_encrypted FROM oauth_applications WHERE client_id = $1',
      [clientId],
    );
    expect(rows[0]).toMatchObject({
      name: 'Made in the page',
      description: 'd',
      url: 'https://made.example',
      public: false,
      redirect_uris: [REDIRECT_URI, 'http://localhost:3000/cb'],
      add_on_scopes: 'people',
      created_by_id: await personId(t.db, 'admin@demo.test'),
    });
    expect(rows[0]!.client_secret_encrypted).not.toContain(clientSecret);
    // The integer application ID (what ADDON_OAUTH_APPLICATION_ID wants) beside the client ID: shown, list and detail.
    expect(created.body).toContain(`<dt>Application ID</dt><dd>${String(rows[0]!.id)}</dd>`);
    const listed = await browser.request('/developer/oauth-applications');
    expect(listed.body).toContain('Application ID');
    expect(listed.body).toContain(`<td class="ak-num">${String(rows[0]!.id)}</td>`);
    const config = await discoverClient(t.baseUrl, { id: rows[0]!.id as string, clientId, clientSecret });
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    expect(tokens.token_type).toBe('bearer');
    // The secret is not on the page any more.
    expect((await browser.request(`/developer/oauth-applications/${String(rows[0]!.id)}`)).body).not.toContain(
      clientSecret,
    );
  });

  it('creates a public application without a secret [public]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const list = await browser.request('/developer/oauth-applications');
    const created = await browser.submit(
      list,
      { name: 'Phone', redirect_uris: 'com.example.app:/callback', client_type: 'public' },
      { formIndex: formWith(list, '/developer/oauth-applications') },
    );
    expect(created.status).toBe(201);
    expect(field(created, 'client_secret')).toBeUndefined();
    expect(created.body).toContain('Public client: no secret; use PKCE.');
  });

  it('answers 422 with every problem of the form', async () => {
    const browser = await loggedIn('admin@demo.test');
    const list = await browser.request('/developer/oauth-applications');
    const res = await browser.submit(
      list,
      { name: '', url: 'ftp://x', redirect_uris: 'http://evil.example/cb', add_on_scopes: 'people wat' },
      { formIndex: formWith(list, '/developer/oauth-applications') },
    );
    expect(res.status).toBe(422);
    for (const text of [
      'Name is required',
      'URL must be an http or https address',
      'http://evil.example/cb must use https (http is allowed for localhost only)',
      'Unknown scope: wat',
    ]) {
      expect(res.body).toContain(text);
    }
  });

  it('does not let a person who is not an administrator create one [role]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const list = await browser.request('/developer/oauth-applications');
    expect(list.body).toContain('Only organization administrators create and manage OAuth applications.');
    expect(formWith(list, '/developer/oauth-applications')).toBe(-1);
    const csrf = parseForms(list.body)[0]!.fields._csrf!;
    const res = await browser.request('/developer/oauth-applications', {
      form: { _csrf: csrf, name: 'Nope', redirect_uris: REDIRECT_URI },
    });
    expect(res.status).toBe(403);
    expect((await t.db.query("SELECT 1 FROM oauth_applications WHERE name = 'Nope'")).rows).toHaveLength(0);
  });

  it('lets any administrator of the organization edit the add-on scopes', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "SELECT id::text FROM oauth_applications WHERE name = 'Made in the page'",
    );
    const id = rows[0]!.id;
    // Another administrator of the same organization.
    await t.db.query("UPDATE people SET site_administrator = true WHERE email = 'member@demo.test'");
    try {
      const browser = await loggedIn('member@demo.test');
      const page = await browser.request(`/developer/oauth-applications/${id}`);
      const saved = await browser.submit(
        page,
        { add_on_scopes: 'people api' },
        { formIndex: formWith(page, `/developer/oauth-applications/${id}`) },
      );
      expect(saved.status).toBe(303);
      const { rows: after } = await t.db.query('SELECT add_on_scopes, name FROM oauth_applications WHERE id = $1', [
        id,
      ]);
      expect(after).toEqual([{ add_on_scopes: 'people api', name: 'Made in the page' }]);
    } finally {
      await t.db.query("UPDATE people SET site_administrator = false WHERE email = 'member@demo.test'");
    }
  });

  it('answers 404 for another organization’s application [isolation]', async () => {
    const { rows } = await t.db.query<{ id: string }>(
      "SELECT id::text FROM oauth_applications WHERE name = 'Made in the page'",
    );
    const browser = await loggedIn('admin@other.test');
    expect((await browser.request(`/developer/oauth-applications/${String(rows[0]!.id)}`)).status).toBe(404);
    const list = await browser.request('/developer/oauth-applications');
    expect(list.body).not.toContain('Made in the page');
    const csrf = parseForms(list.body)[0]!.fields._csrf!;
    expect(
      (await browser.request(`/developer/oauth-applications/${rows[0]!.id}/delete`, { form: { _csrf: csrf } })).status,
    ).toBe(404);
    expect((await t.db.query('SELECT 1 FROM oauth_applications WHERE id = $1', [rows[0]!.id])).rows).toHaveLength(1);
  });

  it('issues a new secret (shown once) that replaces the old one, and deletes the application', async () => {
    const browser = await loggedIn('admin@demo.test');
    const list = await browser.request('/developer/oauth-applications');
    const created = await browser.submit(
      list,
      { name: 'Rotating', redirect_uris: REDIRECT_URI, client_type: 'confidential' },
      { formIndex: formWith(list, '/developer/oauth-applications') },
    );
    const clientId = field(created, 'client_id')!;
    const oldSecret = field(created, 'client_secret')!;
    const { rows } = await t.db.query<{ id: string }>('SELECT id::text FROM oauth_applications WHERE client_id = $1', [
      clientId,
    ]);
    const id = rows[0]!.id;
    const detail = await browser.request(`/developer/oauth-applications/${id}`);
    const rotated = await browser.submit(detail, {}, { formIndex: formWith(detail, '/secret') });
    expect(rotated.status).toBe(200);
    const newSecret = field(rotated, 'client_secret')!;
    expect(newSecret).not.toBe(oldSecret);
    const probe = async (secret: string) =>
      (
        await fetch(`${t.baseUrl}/oauth/introspect`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: 'x', client_id: clientId, client_secret: secret }),
        })
      ).status;
    expect(await probe(oldSecret)).toBe(401);
    expect(await probe(newSecret)).toBe(200);
    const deleted = await browser.submit(detail, {}, { formIndex: formWith(detail, '/delete') });
    expect(deleted.status).toBe(303);
    expect((await t.db.query('SELECT 1 FROM oauth_applications WHERE id = $1', [id])).rows).toHaveLength(0);
  });
});
