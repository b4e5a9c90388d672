import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { personId } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens, type TestApplication } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { createOpenApiValidator, type OpenApiValidator } from '../../support/openapi.ts';
import { organizationId } from './fixtures.ts';

let t: HttpTestHost;
let app: TestApplication;
let validator: OpenApiValidator;
let apiToken: string;
let peopleToken: string;
let memberApiToken: string;

/** A GET over real HTTP with a Bearer token, checked against the served OpenAPI document. */
async function get(path: string, token: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}`, 'user-agent': TEST_USER_AGENT },
  });
  const body = await res.json();
  validator.check({ method: 'GET', url: path, status: res.status, body, headers: Object.fromEntries(res.headers) });
  return { status: res.status, body };
}

beforeAll(async () => {
  t = await startHttpTestHost();
  validator = createOpenApiValidator(await (await fetch(`${t.baseUrl}/api/v2/open_api/2025-09-30`)).json());
  app = await createTestApplication(t.db, { name: 'Api Client' });
  const config = await discoverClient(t.baseUrl, app);
  apiToken = (await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'api' })).access_token;
  peopleToken = (await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people' })).access_token;
  memberApiToken = (await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'api', email: 'member@demo.test' }))
    .access_token;
});
afterAll(() => t.close());

describe('GET /api/v2 [Bearer]', () => {
  it('accepts an OAuth access token with the api scope', async () => {
    const res = await get('/api/v2', apiToken);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: await organizationId(t.db, 'demo'), type: 'Organization' });
  });

  it('answers 403 to an access token without the api scope [people]', async () => {
    const res = await get('/api/v2/personal_access_tokens', peopleToken);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: { description: 'This request needs an access token with the api scope' },
        },
      ],
    });
  });

  it('answers 401 to a token the provider did not issue', async () => {
    const res = await get('/api/v2', 'x'.repeat(43));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      errors: [
        {
          status: '401',
          title: 'Unauthorized',
          detail: 'The authenticated user has no record in this application or the credentials are not valid',
        },
      ],
    });
  });

  it("still applies the person's access with an api token [member, administrators only]", async () => {
    const res = await get('/api/v2/oauth_applications', memberApiToken);
    expect(res.status).toBe(403);
    expect((await get('/api/v2/personal_access_tokens', memberApiToken)).status).toBe(200);
  });
});

describe('GET /api/v2/connected_applications [tokens issued by the provider]', () => {
  it('lists the application and the people the provider recorded as connected, with their latest scopes', async () => {
    const apps = await get('/api/v2/connected_applications', apiToken);
    expect(apps.status).toBe(200);
    expect(apps.body.data.map((d: { id: string }) => d.id)).toEqual([app.id]);
    const people = await get(
      `/api/v2/connected_applications/${app.id}/people?fields[ConnectedApplicationPerson]=first_name,scopes,site_administrator`,
      apiToken,
    );
    expect(people.status).toBe(200);
    const byId = Object.fromEntries(
      people.body.data.map((d: { id: string; attributes: unknown }) => [d.id, d.attributes]),
    );
    expect(byId).toEqual({
      [await personId(t.db, 'admin@demo.test')]: { first_name: 'Alex', scopes: ['people'], site_administrator: true },
      [await personId(t.db, 'member@demo.test')]: { first_name: 'Morgan', scopes: ['api'], site_administrator: false },
    });
  });

  it("counts this month's active users of the application", async () => {
    const now = new Date();
    const res = await get(`/api/v2/oauth_applications/${app.id}/mau`, apiToken);
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
    expect(res.body.data[0].attributes).toEqual({ count: 2, month: now.getUTCMonth() + 1, year: now.getUTCFullYear() });
  });
});
