import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowPerson, setAccessMode, type AccessMode } from '#host/oauth/application-access.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { TestBrowser, type PageResponse } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  credentials,
  discoverClient,
  obtainCode,
  obtainTokens,
  postOAuth,
  REDIRECT_URI,
  runAuthorization,
  type PageKind,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let demo: string;
let ids: Record<'admin' | 'editor' | 'member', string>;

const ADMINS_ONLY = 'Your organization allows only its administrators to connect this application';
const SPECIFIC_PEOPLE = 'Your organization allows only the people its administrators chose to connect this application';

beforeAll(async () => {
  t = await startHttpTestHost();
  demo = (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
  ids = {
    admin: await personId(t.db, 'admin@demo.test'),
    editor: await personId(t.db, 'editor@demo.test'),
    member: await personId(t.db, 'member@demo.test'),
  };
});
afterAll(() => t.close());

/** A new application of the demo organization whose mode (and list) is set as given. */
async function application(
  name: string,
  mode: AccessMode,
  listed: (keyof typeof ids)[] = [],
): Promise<TestApplication> {
  const app = await createTestApplication(t.db, { name });
  await setAccessMode(t.db, { organizationId: demo, applicationId: app.id, mode });
  for (const who of listed)
    expect(await allowPerson(t.db, { organizationId: demo, applicationId: app.id, personId: ids[who] })).toBe(true);
  return app;
}

async function setAdministrator(who: keyof typeof ids, value: boolean): Promise<void> {
  await t.db.query('UPDATE people SET site_administrator = $2 WHERE id = $1', [ids[who], value]);
}

function authorizeUrl(app: TestApplication, params: Record<string, string> = {}): URL {
  const url = new URL('/oauth/authorize', t.baseUrl);
  url.search = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'people',
    state: 's-1',
    ...params,
  }).toString();
  return url;
}

/** The provider's records (grants, codes, tokens) of a person for an application. */
async function providerRecords(app: TestApplication, who: keyof typeof ids): Promise<string[]> {
  const { rows } = await t.db.query<{ model: string }>(
    "SELECT model FROM oauth_provider_records WHERE payload->>'clientId' = $1 AND payload->>'accountId' = $2 AND model IN ('Grant', 'AuthorizationCode', 'AccessToken', 'RefreshToken') ORDER BY model",
    [app.clientId, ids[who]],
  );
  return rows.map((r) => r.model);
}

/** Runs the flow as `email`, collecting the pages met; returns the client's callback and the pages. */
async function authorizeAs(app: TestApplication, email: string, browser = new TestBrowser(t.baseUrl)) {
  const pages: { kind: PageKind; page: PageResponse }[] = [];
  const callback = await runAuthorization(browser, authorizeUrl(app), {
    email,
    onPage: (page, kind) => void pages.push({ kind, page }),
  });
  return { callback, pages, browser };
}

async function me(accessToken: string): Promise<number> {
  return (
    await fetch(`${t.baseUrl}/current/v2/me`, {
      headers: { authorization: `Bearer ${accessToken}`, 'user-agent': TEST_USER_AGENT },
    })
  ).status;
}

describe('GET /oauth/authorize [access_mode]', () => {
  it('issues a code to an organization administrator [admins_only, admin]', async () => {
    const app = await application('Admins App', 'admins_only');
    const { callback, pages } = await authorizeAs(app, 'admin@demo.test');
    expect(pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    expect(callback.searchParams.get('code')).toMatch(/^[\w-]{43}$/);
    expect(callback.searchParams.get('state')).toBe('s-1');
  });

  it('shows the refusal page and sends access_denied with state, never a code [admins_only, non-admin]', async () => {
    const app = await application('Admins Only Tool', 'admins_only');
    const { callback, pages } = await authorizeAs(app, 'editor@demo.test');
    expect(pages.map((p) => p.kind)).toEqual(['login', 'refused']);
    const refused = pages[1]!.page;
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.body).toContain('<h1>You cannot connect Admins Only Tool</h1>');
    expect(refused.body).toContain(
      '<p data-access-mode="admins_only">Demo Church allows only its organization administrators to connect Admins Only Tool.</p>',
    );
    expect(refused.body).toContain(
      'An organization administrator of Demo Church can change who may connect it on the Connected applications page of the developer account.',
    );
    expect(refused.body).toContain(
      '<button type="submit" class="ak-button--primary">Back to Admins Only Tool</button>',
    );
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: ADMINS_ONLY,
      state: 's-1',
      iss: t.baseUrl,
    });
    expect(await providerRecords(app, 'editor')).toEqual([]);
    expect((await t.db.query('SELECT 1 FROM oauth_connections WHERE application_id = $1', [app.id])).rows).toEqual([]);
  });

  it('lets a listed person connect and refuses everyone else, administrators included [specific_people]', async () => {
    const app = await application('Chosen Few', 'specific_people', ['member']);
    const listed = await authorizeAs(app, 'member@demo.test');
    expect(listed.callback.searchParams.get('code')).toMatch(/^[\w-]{43}$/);

    for (const [email, who] of [
      ['editor@demo.test', 'editor'],
      ['admin@demo.test', 'admin'],
    ] as const) {
      const { callback, pages } = await authorizeAs(app, email);
      expect(pages.map((p) => p.kind)).toEqual(['login', 'refused']);
      expect(pages[1]!.page.body).toContain(
        '<p data-access-mode="specific_people">Demo Church allows only the people its organization administrators chose to connect Chosen Few, and you are not one of them.</p>',
      );
      expect(Object.fromEntries(callback.searchParams)).toEqual({
        error: 'access_denied',
        error_description: SPECIFIC_PEOPLE,
        state: 's-1',
        iss: t.baseUrl,
      });
      expect(await providerRecords(app, who)).toEqual([]);
    }
  });

  it('applies a role change at once, also between the consent page and its answer [role change]', async () => {
    const app = await application('Role Watcher', 'admins_only');
    try {
      await setAdministrator('editor', true);
      const promoted = await authorizeAs(app, 'editor@demo.test');
      expect(promoted.callback.searchParams.get('code')).toMatch(/^[\w-]{43}$/);

      await setAdministrator('editor', false);
      const demoted = await authorizeAs(app, 'editor@demo.test', promoted.browser);
      expect(demoted.pages.map((p) => p.kind)).toEqual(['refused']);
      expect(demoted.callback.searchParams.get('error')).toBe('access_denied');

      // Shown the consent page as an administrator, refused when answering it after the demotion.
      await setAdministrator('editor', true);
      const kinds: PageKind[] = [];
      const callback = await runAuthorization(new TestBrowser(t.baseUrl), authorizeUrl(app, { scope: 'people api' }), {
        email: 'editor@demo.test',
        onPage: async (_page, kind) => {
          kinds.push(kind);
          if (kind === 'consent') await setAdministrator('editor', false);
        },
      });
      expect(kinds).toEqual(['login', 'consent', 'refused']);
      expect(Object.fromEntries(callback.searchParams)).toEqual({
        error: 'access_denied',
        error_description: ADMINS_ONLY,
        state: 's-1',
        iss: t.baseUrl,
      });
    } finally {
      await setAdministrator('editor', false);
    }
  });

  it('refuses a person with an earlier consent, whom the provider would not ask again [existing grant]', async () => {
    const app = await application('Used To Be Open', 'anyone');
    const first = await authorizeAs(app, 'editor@demo.test');
    expect(first.pages.map((p) => p.kind)).toEqual(['login', 'consent']);
    const again = await authorizeAs(app, 'editor@demo.test', first.browser);
    expect(again.pages).toEqual([]);
    expect(again.callback.searchParams.get('code')).toMatch(/^[\w-]{43}$/);

    await setAccessMode(t.db, { organizationId: demo, applicationId: app.id, mode: 'specific_people' });
    const refused = await authorizeAs(app, 'editor@demo.test', first.browser);
    expect(refused.pages.map((p) => p.kind)).toEqual(['refused']);
    expect(Object.fromEntries(refused.callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: SPECIFIC_PEOPLE,
      state: 's-1',
      iss: t.baseUrl,
    });
  });

  it('answers access_denied at once to prompt=none [prompt=none]', async () => {
    const app = await application('Silent Check', 'admins_only');
    const { browser } = await authorizeAs(app, 'editor@demo.test');
    const res = await browser.request(authorizeUrl(app, { prompt: 'none' }).href);
    expect(res.status).toBe(303);
    expect(Object.fromEntries(new URL(res.location!).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'Your organization does not allow you to connect this application',
      state: 's-1',
      iss: t.baseUrl,
    });
  });

  it('refuses a refusal form without the CSRF token [CSRF]', async () => {
    const app = await application('Forged Return', 'admins_only');
    const browser = new TestBrowser(t.baseUrl);
    const pages: PageResponse[] = [];
    await expect(
      runAuthorization(browser, authorizeUrl(app), {
        email: 'editor@demo.test',
        onPage: (page, kind) => {
          if (kind === 'refused') {
            pages.push(page);
            throw new Error('stop');
          }
        },
      }),
    ).rejects.toThrow('stop');
    const action = /action="([^"]+\/refused)"/.exec(pages[0]!.body)![1]!;
    const res = await browser.request(action, { form: { _csrf: 'wrong' } });
    expect(res.status).toBe(403);
    expect(res.location).toBeUndefined();
  });
});

describe('POST /oauth/token [access_mode]', () => {
  it('refuses the refresh, the access token and introspection of a person no longer admitted, and restores them once admitted again', async () => {
    const app = await application('Suspended Tokens', 'anyone');
    const config = await discoverClient(t.baseUrl, app);
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, {
      email: 'editor@demo.test',
      scope: 'openid people',
    });
    expect(await me(tokens.access_token)).toBe(200);

    await setAccessMode(t.db, { organizationId: demo, applicationId: app.id, mode: 'admins_only' });
    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, ...credentials(app) };
    const refused = await postOAuth(t.baseUrl, '/oauth/token', refresh);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: 'invalid_grant', error_description: ADMINS_ONLY });
    expect(await me(tokens.access_token)).toBe(401);
    const userinfo = await fetch(`${t.baseUrl}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(401);
    expect(await userinfo.json()).toEqual({ error: 'invalid_token', error_description: ADMINS_ONLY });
    const introspection = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: tokens.access_token,
      ...credentials(app),
    });
    expect(introspection.body).toEqual({ active: false });
    // Nothing was revoked: the grant and its tokens are kept.
    expect(await providerRecords(app, 'editor')).toEqual(['AccessToken', 'AuthorizationCode', 'Grant', 'RefreshToken']);

    await setAccessMode(t.db, { organizationId: demo, applicationId: app.id, mode: 'anyone' });
    expect(await me(tokens.access_token)).toBe(200);
    const restored = await postOAuth(t.baseUrl, '/oauth/token', refresh);
    expect(restored.status).toBe(200);
    expect(await me(restored.body.access_token as string)).toBe(200);
  });

  it('refuses to exchange a code issued before the person was demoted [authorization_code]', async () => {
    const app = await application('Quick Demotion', 'admins_only');
    try {
      await setAdministrator('editor', true);
      const { code, verifier } = await obtainCode(new TestBrowser(t.baseUrl), app, {
        email: 'editor@demo.test',
        scope: 'people',
      });
      await setAdministrator('editor', false);
      const res = await postOAuth(t.baseUrl, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        ...credentials(app),
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: ADMINS_ONLY });
      expect(await providerRecords(app, 'editor')).not.toContain('AccessToken');
    } finally {
      await setAdministrator('editor', false);
    }
  });

  it('keeps issuing tokens to an administrator through openid-client [admins_only]', async () => {
    const app = await application('Admins Refresh', 'admins_only');
    const config = await discoverClient(t.baseUrl, app);
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' });
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(await me(refreshed.access_token)).toBe(200);
  });
});

describe('allowPerson()', () => {
  it('lists only people of the organization, and the database refuses anyone else [same organization]', async () => {
    const app = await application('Same Org Only', 'specific_people');
    const outsider = await personId(t.db, 'admin@other.test');
    expect(await allowPerson(t.db, { organizationId: demo, applicationId: app.id, personId: outsider })).toBe(false);
    await expect(
      t.db.query(
        'INSERT INTO connected_application_people_allowed (organization_id, application_id, person_id) VALUES ($1, $2, $3)',
        [demo, app.id, outsider],
      ),
    ).rejects.toThrow(/violates foreign key constraint "connected_application_people_allowed_same_organization"/);
    expect(await allowPerson(t.db, { organizationId: demo, applicationId: app.id, personId: ids.member })).toBe(true);
    // Listing again changes nothing.
    expect(await allowPerson(t.db, { organizationId: demo, applicationId: app.id, personId: ids.member })).toBe(true);
    const { rows } = await t.db.query(
      'SELECT person_id::text FROM connected_application_people_allowed WHERE application_id = $1',
      [app.id],
    );
    expect(rows).toEqual([{ person_id: ids.member }]);
  });
});
