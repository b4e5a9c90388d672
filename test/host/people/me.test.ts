import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_USER_AGENT } from '../../support/constants.ts';
import { basicAuthFor, personId } from '../../support/host.ts';
import { TestBrowser } from '../../support/oauth-browser.ts';
import { createTestApplication, discoverClient, obtainTokens } from '../../support/oauth-flow.ts';
import { startHttpTestHost, type HttpTestHost } from '../../support/oauth-server.ts';
import { FORBIDDEN_VIEWER, NOT_FOUND } from './people-fixture.ts';

let t: HttpTestHost;
let demoId: string;
let otherId: string;
let editorId: string;
let otherAdminId: string;
const auth: Record<'editor' | 'viewer' | 'none' | 'other', string> = { editor: '', viewer: '', none: '', other: '' };
let peopleToken: string;
let apiToken: string;

/** A GET over real HTTP with the test User-Agent. */
async function get(path: string, authorization: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${t.baseUrl}${path}`, { headers: { authorization, 'user-agent': TEST_USER_AGENT } });
  return { status: res.status, body: await res.json() };
}

const one = async (sql: string, params: unknown[] = []) => (await t.db.query<{ id: string }>(sql, params)).rows[0]!.id;

/** The Person resource of `/people/v2/me` for a person, as the People API renders it. */
function person(id: string, organizationId: string, firstName: string, lastName: string) {
  return {
    id,
    type: 'Person',
    attributes: { first_name: firstName, last_name: lastName },
    relationships: { organization: { data: { type: 'Organization', id: organizationId } } },
    links: { self: `${t.baseUrl}/people/v2/people/${id}` },
  };
}

beforeAll(async () => {
  t = await startHttpTestHost();
  demoId = await one("SELECT id::text FROM organizations WHERE slug = 'demo'");
  otherId = await one("SELECT id::text FROM organizations WHERE slug = 'other'");
  editorId = await personId(t.db, 'editor@demo.test');
  otherAdminId = await personId(t.db, 'admin@other.test');
  const noRoleEmail = await one(
    "SELECT email AS id FROM people WHERE organization_id = $1 AND password_hash IS NULL AND status = 'active' ORDER BY id LIMIT 1",
    [demoId],
  );
  auth.editor = await basicAuthFor(t.db, 'editor@demo.test');
  auth.viewer = await basicAuthFor(t.db, 'member@demo.test');
  auth.none = await basicAuthFor(t.db, noRoleEmail);
  auth.other = await basicAuthFor(t.db, 'admin@other.test');
  const config = await discoverClient(t.baseUrl, await createTestApplication(t.db, { name: 'Me Client' }));
  peopleToken = (await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'people', email: 'editor@demo.test' }))
    .access_token;
  apiToken = (await obtainTokens(new TestBrowser(t.baseUrl), config, { scope: 'api', email: 'editor@demo.test' }))
    .access_token;
});
afterAll(() => t.close());

describe('GET /people/v2/me', () => {
  it('returns the requester as a People API Person with the usual envelope [personal access token]', async () => {
    const res = await get('/people/v2/me', auth.editor);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: person(editorId, demoId, 'Eden', 'Editor'),
      included: [],
      meta: { parent: { id: demoId, type: 'Organization' } },
    });
  });

  it('accepts an OAuth access token with the people scope [Bearer, people]', async () => {
    const res = await get('/people/v2/me', `Bearer ${peopleToken}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: person(editorId, demoId, 'Eden', 'Editor'),
      included: [],
      meta: { parent: { id: demoId, type: 'Organization' } },
    });
  });

  it('answers 403 to an access token without the people scope, as every /people/v2 route does [Bearer, api]', async () => {
    const res = await get('/people/v2/me', `Bearer ${apiToken}`);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: { description: 'This request needs an access token with the people scope' },
        },
      ],
    });
    expect(await get('/people/v2/notes', `Bearer ${apiToken}`)).toEqual(res);
  });

  it('applies the people product access: a viewer reads themselves, a person without a people role gets 403 [roles]', async () => {
    const viewer = await get('/people/v2/me', auth.viewer);
    expect(viewer.status).toBe(200);
    expect(viewer.body.data).toEqual(person(await personId(t.db, 'member@demo.test'), demoId, 'Morgan', 'Member'));
    const none = await get('/people/v2/me', auth.none);
    expect(none.status).toBe(403);
    expect(none.body).toEqual(FORBIDDEN_VIEWER);
    // /current/v2/me applies no access rules: the same person is answered there.
    expect((await get('/current/v2/me', auth.none)).status).toBe(200);
  });

  it('returns a person of another organization only themselves, with their own organization [tenant isolation]', async () => {
    const res = await get('/people/v2/me?include=organization', auth.other);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(person(otherAdminId, otherId, 'Olive', 'Other'));
    expect(res.body.meta).toEqual({ parent: { id: otherId, type: 'Organization' } });
    expect(res.body.included.map((r: { type: string; id: string }) => `${r.type}:${r.id}`)).toEqual([
      `Organization:${otherId}`,
    ]);
  });

  it('takes fields[Person] and rejects an unknown include [fields, include]', async () => {
    const sparse = await get('/people/v2/me?fields[Person]=last_name', auth.editor);
    expect(sparse.status).toBe(200);
    expect(sparse.body.data.attributes).toEqual({ last_name: 'Editor' });
    const unknown = await get('/people/v2/me?include=notes', auth.editor);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({
      status: '400',
      code: 'unknown_attribute',
      title: 'Invalid Version',
      source: { parameter: 'include' },
    });
  });

  it('answers 401 without credentials', async () => {
    const res = await fetch(`${t.baseUrl}/people/v2/me`, { headers: { 'user-agent': TEST_USER_AGENT } });
    expect(res.status).toBe(401);
  });
});

describe('GET /api/v2/me', () => {
  it('does not exist: the developer API has no "me" (use /current/v2/me) [decision]', async () => {
    const res = await get('/api/v2/me', auth.editor);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});
