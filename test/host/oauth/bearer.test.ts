import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueTokensForPerson } from '#host/oauth/issue-tokens.ts';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import {
  createTestApplication,
  credentials,
  discoverClient,
  obtainTokens,
  postOAuth,
  type TestApplication,
} from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';

let t: HttpTestHost;
let app: TestApplication;

beforeAll(async () => {
  t = await startHttpTestHost();
  app = await createTestApplication(t.db);
});
afterAll(() => t.close());

const me = (authorization: string) =>
  fetch(`${t.baseUrl}/current/v2/me`, { headers: { authorization, 'user-agent': TEST_USER_AGENT } });

describe('GET /current/v2/me [Bearer]', () => {
  it('answers as the token’s person', async () => {
    const tokens = await obtainTokens(new TestBrowser(t.baseUrl), await discoverClient(t.baseUrl, app), {
      scope: 'people',
      email: 'editor@demo.test',
    });
    const res = await me(`Bearer ${tokens.access_token}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { id: string; attributes: unknown } };
    expect(body.data.id).toBe(await personId(t.db, 'editor@demo.test'));
    expect(body.data.attributes).toEqual({ first_name: 'Eden', last_name: 'Editor' });
  });

  it('needs no scope', async () => {
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: await personId(t.db, 'member@demo.test'),
      scopes: [],
    });
    expect((await me(`Bearer ${issued.access_token}`)).status).toBe(200);
  });

  it('answers 401 to an unknown token', async () => {
    const res = await me(`Bearer ${'q'.repeat(43)}`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      errors: [
        {
          status: '401',
          title: 'Unauthorized',
          detail: 'The authenticated user has no record in this application or the credentials are not valid',
        },
      ],
    });
  });

  it('answers 401 once the application is deleted', async () => {
    const doomed = await createTestApplication(t.db, { name: 'Doomed' });
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: doomed.clientId,
      personId: await personId(t.db, 'admin@demo.test'),
      scopes: ['people'],
    });
    expect((await me(`Bearer ${issued.access_token}`)).status).toBe(200);
    await t.db.query('DELETE FROM oauth_applications WHERE id = $1', [doomed.id]);
    expect((await me(`Bearer ${issued.access_token}`)).status).toBe(401);
  });

  it('answers 401 when the person became inactive', async () => {
    const member = await personId(t.db, 'member@demo.test');
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: member,
      scopes: ['people'],
    });
    await t.db.query("UPDATE people SET status = 'inactive' WHERE id = $1", [member]);
    try {
      expect((await me(`Bearer ${issued.access_token}`)).status).toBe(401);
    } finally {
      await t.db.query("UPDATE people SET status = 'active' WHERE id = $1", [member]);
    }
  });
});

describe('issueTokensForPerson()', () => {
  it('issues a refreshable, introspectable pair and records the connection', async () => {
    const admin = await personId(t.db, 'admin@demo.test');
    const issued = await issueTokensForPerson(t.host.oauthProvider, t.db, {
      clientId: app.clientId,
      personId: admin,
      scopes: ['people', 'api'],
    });
    expect(issued).toEqual({
      access_token: expect.stringMatching(/^[\w-]{43}$/),
      refresh_token: expect.stringMatching(/^[\w-]{43}$/),
      token_type: 'bearer',
      expires_in: 7200,
      scope: 'people api',
      created_at: expect.any(Number),
      grantId: expect.any(String),
    });
    const introspected = await postOAuth(t.baseUrl, '/oauth/introspect', {
      token: issued.access_token,
      ...credentials(app),
    });
    expect(introspected.body).toMatchObject({ active: true, scope: 'people api', client_id: app.clientId });
    const refreshed = await postOAuth(t.baseUrl, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: issued.refresh_token,
      ...credentials(app),
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.scope).toBe('people api');
    const { rows } = await t.db.query(
      'SELECT scopes FROM oauth_connections WHERE application_id = $1 AND person_id = $2',
      [app.id, admin],
    );
    expect(rows).toEqual([{ scopes: ['people', 'api'] }]);
  });

  it('refuses an unknown scope', async () => {
    await expect(
      issueTokensForPerson(t.host.oauthProvider, t.db, { clientId: app.clientId, personId: '1', scopes: ['admin'] }),
    ).rejects.toThrow('unknown scope: admin');
  });
});
