import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox } from '#host/crypto/secret-box.ts';
import { createOAuthApplication } from '#host/oauth/applications.ts';
import { TEST_ENCRYPTION_KEY, TEST_PASSWORD, TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, personId } from '../../support/host.ts';
import { parseForms, TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  obtainCode,
  REDIRECT_URI,
  runAuthorization,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let demo: string;
let other: string;
/** Demo Church's own application, connected by a person of Demo Church. */
let planner: TestApplication;
/** Other Fellowship's application that a person of Demo Church connected. */
let shared: TestApplication;
/** Other Fellowship's application nobody of Demo Church connected. */
let foreign: TestApplication;

async function otherApplication(name: string): Promise<TestApplication> {
  const created = await createOAuthApplication(t.db, createSecretBox([TEST_ENCRYPTION_KEY]), {
    organizationId: other,
    name,
    redirectUris: [REDIRECT_URI],
  });
  return { id: created.id, clientId: created.client_id, clientSecret: created.client_secret! };
}

beforeAll(async () => {
  t = await startHttpTestHost();
  const orgs = await t.db.query<{ slug: string; id: string }>('SELECT slug, id::text FROM organizations');
  demo = orgs.rows.find((o) => o.slug === 'demo')!.id;
  other = orgs.rows.find((o) => o.slug === 'other')!.id;
  planner = await createTestApplication(t.db, { name: 'Demo Planner' });
  shared = await otherApplication('Shared Tool');
  foreign = await otherApplication('Foreign Tool');
  // Real connections: the provider records them when it issues tokens.
  for (const app of [planner, shared]) {
    const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app, {
      email: 'member@demo.test',
      scope: 'people',
    });
    const res = await fetch(`${t.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
    });
    expect(res.status).toBe(200);
  }
});
afterAll(() => t.close());

async function loggedIn(email: string): Promise<TestBrowser> {
  const browser = new TestBrowser(t.baseUrl);
  const done = await browser.submit(await browser.request('/login'), { email, password: TEST_PASSWORD });
  expect(done.status).toBe(303);
  return browser;
}
const formWith = (page: PageResponse, suffix: string) =>
  parseForms(page.body).findIndex((f) => f.action.endsWith(suffix));
const csrfOf = (page: PageResponse) => parseForms(page.body)[0]!.fields._csrf!;

async function setting(organization: string, app: TestApplication): Promise<string | undefined> {
  const { rows } = await t.db.query<{ access_mode: string }>(
    'SELECT access_mode FROM connected_application_settings WHERE organization_id = $1 AND application_id = $2',
    [organization, app.id],
  );
  return rows[0]?.access_mode;
}

async function listed(app: TestApplication): Promise<string[]> {
  const { rows } = await t.db.query<{ person_id: string }>(
    'SELECT person_id::text FROM connected_application_people_allowed WHERE application_id = $1 ORDER BY person_id',
    [app.id],
  );
  return rows.map((r) => r.person_id);
}

async function apiAccessMode(app: TestApplication): Promise<unknown> {
  const res = await fetch(`${t.baseUrl}/api/v2/connected_applications/${app.id}`, {
    headers: { authorization: await basicAuthFor(t.db, 'admin@demo.test'), 'user-agent': TEST_USER_AGENT },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { attributes: { access_mode: string } } }).data.attributes.access_mode;
}

/** Authorizes `app` as `email`: the code or the OAuth error the client gets. */
async function authorizeAs(app: TestApplication, email: string): Promise<string> {
  const url = new URL('/oauth/authorize', t.baseUrl);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'people',
    state: 's',
  }).toString();
  const callback = await runAuthorization(new TestBrowser(t.baseUrl), url, { email });
  return callback.searchParams.get('code') ? 'code' : callback.searchParams.get('error')!;
}

describe('GET /developer/connected-applications', () => {
  it('lists the applications people of the organization connected and its own, with who may connect each', async () => {
    const page = await (await loggedIn('admin@demo.test')).request('/developer/connected-applications');
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      `<tr data-application-id="${shared.id}"><td><a href="/developer/connected-applications/${shared.id}">Shared Tool</a></td><td>Other Fellowship</td><td class="ak-num">1</td><td data-access-mode="anyone">Anyone in the organization</td></tr>`,
    );
    expect(page.body).toContain(
      `<a href="/developer/connected-applications/${planner.id}">Demo Planner</a></td><td>Demo Church</td><td class="ak-num">1</td>`,
    );
    expect(page.body).not.toContain('Foreign Tool');
  });

  it('shows a 403 page to a person who is not an organization administrator [role]', async () => {
    const browser = await loggedIn('editor@demo.test');
    for (const path of ['/developer/connected-applications', `/developer/connected-applications/${planner.id}`]) {
      const page = await browser.request(path);
      expect(page.status).toBe(403);
      expect(page.body).toContain('<h1>Administrators only</h1>');
      expect(page.body).toContain('Only organization administrators decide who may connect applications.');
    }
  });
});

describe('POST /developer/connected-applications/:id', () => {
  it('lets an administrator set the mode and the people, which the authorization step and the API then follow', async () => {
    const browser = await loggedIn('admin@demo.test');
    const detail = await browser.request(`/developer/connected-applications/${shared.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toContain('<legend class="ak-visually-hidden">Who in Demo Church may connect it</legend>');
    expect(detail.body).toContain(
      '<label class="ak-choice"><input type="radio" name="access_mode" value="anyone" checked/> Anyone in the organization</label>',
    );
    expect(detail.body).toContain('<label for="email">E-mail of a person in Demo Church</label>');

    const saved = await browser.submit(
      detail,
      { access_mode: 'specific_people' },
      { formIndex: formWith(detail, `/connected-applications/${shared.id}`) },
    );
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${t.baseUrl}/developer/connected-applications/${shared.id}`);
    expect(await setting(demo, shared)).toBe('specific_people');
    // Other Fellowship's own setting for its application is untouched.
    expect(await setting(other, shared)).toBeUndefined();
    expect(await apiAccessMode(shared)).toBe('specific_people');
    expect(await authorizeAs(shared, 'member@demo.test')).toBe('access_denied');

    const added = await browser.submit(
      detail,
      { email: ' MEMBER@demo.test ' },
      { formIndex: formWith(detail, '/people') },
    );
    expect(added.status).toBe(303);
    expect(await listed(shared)).toEqual([await personId(t.db, 'member@demo.test')]);
    const after = await browser.request(`/developer/connected-applications/${shared.id}`);
    expect(after.body).toContain(
      '<label class="ak-choice"><input type="radio" name="access_mode" value="specific_people" checked/> Only the people listed</label>',
    );
    expect(after.body).toContain('<td>Morgan Member</td><td>member@demo.test</td>');
    expect(await authorizeAs(shared, 'member@demo.test')).toBe('code');
    expect(await authorizeAs(shared, 'editor@demo.test')).toBe('access_denied');

    const removed = await browser.submit(after, {}, { button: 'Remove Morgan Member' });
    expect(removed.status).toBe(303);
    expect(await listed(shared)).toEqual([]);
    expect(await authorizeAs(shared, 'member@demo.test')).toBe('access_denied');

    const adminsOnly = await browser.submit(
      after,
      { access_mode: 'admins_only' },
      { formIndex: formWith(after, `/connected-applications/${shared.id}`) },
    );
    expect(adminsOnly.status).toBe(303);
    expect(await apiAccessMode(shared)).toBe('admins_only');
    expect(await authorizeAs(shared, 'admin@demo.test')).toBe('code');
    expect((await browser.request('/developer/connected-applications')).body).toContain(
      `<td>Other Fellowship</td><td class="ak-num">1</td><td data-access-mode="admins_only">Organization administrators only</td>`,
    );
  });

  it('answers 422 with a clear message to an unknown, repeated or missing mode and changes nothing [validation]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const detail = await browser.request(`/developer/connected-applications/${planner.id}`);
    const csrf = csrfOf(detail);
    const post = (body: string) =>
      fetch(`${t.baseUrl}/developer/connected-applications/${planner.id}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: browser.jar.header('/developer'),
          accept: 'text/html',
        },
        body,
        redirect: 'manual',
      });
    const cases: [string, string][] = [
      [
        `_csrf=${encodeURIComponent(csrf)}&access_mode=everyone`,
        'Unknown access mode “everyone”: choose one of anyone, admins_only, specific_people.',
      ],
      [
        `_csrf=${encodeURIComponent(csrf)}&access_mode=anyone&access_mode=admins_only`,
        'Unknown access mode more than one value: choose one of anyone, admins_only, specific_people.',
      ],
      [`_csrf=${encodeURIComponent(csrf)}`, 'Choose who may connect the application.'],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await res.text()).toContain(`<p class="ak-field-error" id="access_mode-error">${message}</p>`);
    }
    expect(await setting(demo, planner)).toBeUndefined();
  });

  it('picks people of the organization only [isolation]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const detail = await browser.request(`/developer/connected-applications/${planner.id}`);
    for (const email of ['admin@other.test', 'nobody@demo.test']) {
      const res = await browser.submit(detail, { email }, { formIndex: formWith(detail, '/people') });
      expect(res.status).toBe(422);
      expect(res.body).toContain(
        `<p class="ak-field-error" id="email-error">No person with the e-mail ${email} in Demo Church.</p>`,
      );
    }
    const empty = await browser.submit(detail, { email: ' ' }, { formIndex: formWith(detail, '/people') });
    expect(empty.status).toBe(422);
    expect(empty.body).toContain(
      '<p class="ak-field-error" id="email-error">Enter the e-mail of a person in Demo Church.</p>',
    );
    expect(await listed(planner)).toEqual([]);
    const otherAdmin = await personId(t.db, 'admin@other.test');
    const res = await browser.request(`/developer/connected-applications/${planner.id}/people/${otherAdmin}/delete`, {
      form: { _csrf: csrfOf(detail) },
    });
    expect(res.status).toBe(404);
    expect(res.body).toContain('That person is not on the list of this application.');
  });

  it('refuses a person who is not an organization administrator with a 403 page [role]', async () => {
    const browser = await loggedIn('editor@demo.test');
    const csrf = csrfOf(await browser.request('/developer/oauth-applications'));
    const mode = await browser.request(`/developer/connected-applications/${planner.id}`, {
      form: { _csrf: csrf, access_mode: 'anyone' },
    });
    expect(mode.status).toBe(403);
    expect(mode.body).toContain('<h1>Administrators only</h1>');
    const people = await browser.request(`/developer/connected-applications/${planner.id}/people`, {
      form: { _csrf: csrf, email: 'editor@demo.test' },
    });
    expect(people.status).toBe(403);
    expect(await setting(demo, planner)).toBeUndefined();
    expect(await listed(planner)).toEqual([]);
  });

  it('answers 404 for an application neither connected in nor owned by the organization [isolation]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const csrf = csrfOf(await browser.request('/developer/connected-applications'));
    for (const id of [foreign.id, '0', 'abc', '9'.repeat(30)]) {
      const page = await browser.request(`/developer/connected-applications/${id}`);
      expect(page.status).toBe(404);
      expect(page.body).toContain('No application with that id is connected in or owned by your organization.');
    }
    const res = await browser.request(`/developer/connected-applications/${foreign.id}`, {
      form: { _csrf: csrf, access_mode: 'admins_only' },
    });
    expect(res.status).toBe(404);
    expect(await setting(demo, foreign)).toBeUndefined();
    // Nor does Other Fellowship's administrator reach Demo Church's application, which none of its people connected.
    const otherAdmin = await loggedIn('admin@other.test');
    expect((await otherAdmin.request(`/developer/connected-applications/${planner.id}`)).status).toBe(404);
  });

  it('refuses a post without the CSRF token [CSRF]', async () => {
    const browser = await loggedIn('admin@demo.test');
    const mode = await browser.request(`/developer/connected-applications/${planner.id}`, {
      form: { access_mode: 'admins_only' },
    });
    expect(mode.status).toBe(403);
    expect(mode.body).toContain('This form has expired');
    const people = await browser.request(`/developer/connected-applications/${planner.id}/people`, {
      form: { email: 'member@demo.test' },
    });
    expect(people.status).toBe(403);
    expect(await setting(demo, planner)).toBeUndefined();
    expect(await listed(planner)).toEqual([]);
  });
});
