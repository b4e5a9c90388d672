import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, personId, type TestHost } from '../../support/host.ts';

let t: TestHost;
let admin: string;
let adminId: string;
let orgId: string;

beforeAll(async () => {
  t = await createTestHost();
  admin = await basicAuthFor(t.db, 'admin@demo.test');
  adminId = await personId(t.db, 'admin@demo.test');
  orgId = (await t.db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
});
afterAll(() => t.close());

describe('GET /current/v2/me', () => {
  it('returns the requesting person with an organization relationship', async () => {
    const res = await t.api().get('/current/v2/me').set('Authorization', admin);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        id: adminId,
        type: 'Person',
        attributes: { first_name: 'Alex', last_name: 'Admin' },
        relationships: { organization: { data: { type: 'Organization', id: orgId } } },
        links: { self: `${TEST_BASE_URL}/people/v2/people/${adminId}` },
      },
      included: [],
      meta: { parent: { id: orgId, type: 'Organization' } },
    });
  });

  it('adds the organization under included [include=organization]', async () => {
    const res = await t.api().get('/current/v2/me?include=organization').set('Authorization', admin);
    expect(res.status).toBe(200);
    expect(res.body.included).toEqual([
      {
        id: orgId,
        type: 'Organization',
        attributes: {},
        links: {
          self: `${TEST_BASE_URL}/api/v2`,
          connected_applications: `${TEST_BASE_URL}/api/v2/connected_applications`,
          oauth_applications: `${TEST_BASE_URL}/api/v2/oauth_applications`,
          personal_access_tokens: `${TEST_BASE_URL}/api/v2/personal_access_tokens`,
        },
      },
    ]);
  });

  it('limits attributes to fields[Person] [fields]', async () => {
    const res = await t.api().get('/current/v2/me?fields[Person]=last_name').set('Authorization', admin);
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ last_name: 'Admin' });
    expect(res.body.data.relationships).toEqual({});
  });

  it('answers 401 without credentials', async () => {
    const res = await t.api().get('/current/v2/me');
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
});
