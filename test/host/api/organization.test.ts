import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, type TestHost } from '../../support/host.ts';
import { documentedApi, type DocumentedApi } from '../../support/openapi.ts';
import { organizationId } from './fixtures.ts';

const API = `${TEST_BASE_URL}/api/v2`;

let t: TestHost;
let api: DocumentedApi;
let demo: string;
let other: string;
let member: string;
let otherAdmin: string;

beforeAll(async () => {
  t = await createTestHost();
  api = await documentedApi(t);
  demo = await organizationId(t.db, 'demo');
  other = await organizationId(t.db, 'other');
  member = await basicAuthFor(t.db, 'member@demo.test');
  otherAdmin = await basicAuthFor(t.db, 'admin@other.test');
});
afterAll(() => t.close());

function organization(id: string) {
  return {
    data: {
      id,
      type: 'Organization',
      attributes: {},
      links: {
        self: API,
        connected_applications: `${API}/connected_applications`,
        oauth_applications: `${API}/oauth_applications`,
        personal_access_tokens: `${API}/personal_access_tokens`,
      },
    },
    included: [],
    meta: { parent: { id, type: 'Organization' } },
  };
}

describe('GET /api/v2', () => {
  it("returns the requester's organization, its links.self pointing here [any person]", async () => {
    const res = await api.get('/api/v2', { Authorization: member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(organization(demo));
    expect(res.body.data.links.self).toBe(`${TEST_BASE_URL}/api/v2`);
  });

  it('returns each person their own organization [other organization, trailing slash]', async () => {
    const res = await api.get('/api/v2/', { Authorization: otherAdmin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(organization(other));
  });

  it('answers 400 for fields[Organization], which has no attributes', async () => {
    const res = await api.get('/api/v2?fields[Organization]=name', { Authorization: member });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unknown_attribute',
          title: 'Invalid Version',
          detail: 'fields[Organization] accepts a comma-separated list of unique values from: (none); got "name"',
          source: { parameter: 'fields[Organization]' },
        },
      ],
    });
  });

  it('answers 401 without credentials and with wrong ones [none, wrong secret]', async () => {
    const unauthorized = {
      errors: [
        {
          status: '401',
          title: 'Unauthorized',
          detail: 'The authenticated user has no record in this application or the credentials are not valid',
        },
      ],
    };
    const none = await api.get('/api/v2');
    expect(none.status).toBe(401);
    expect(none.body).toEqual(unauthorized);
    const wrong = await api.get('/api/v2', {
      Authorization: `Basic ${Buffer.from('nobody:nothing').toString('base64')}`,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(unauthorized);
  });

  it('answers 403 without a User-Agent', async () => {
    const res = await api.get('/api/v2', { Authorization: member, 'User-Agent': '' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      errors: [
        {
          status: '403',
          title: 'Forbidden',
          detail: 'You do not have access to this resource',
          meta: { description: 'Every API request must carry a User-Agent header identifying the application' },
        },
      ],
    });
  });

  it('answers 404 as JSON for a path the API does not have', async () => {
    const res = await t.api().get('/api/v2/webhooks').set('Authorization', member);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
    });
  });
});

describe('X-API-Version', () => {
  it('answers with the latest version when the request names none [absent]', async () => {
    const res = await api.get('/api/v2', { Authorization: member });
    expect(res.status).toBe(200);
    expect(res.headers['x-api-version']).toBe('2025-09-30');
    expect(res.headers.vary).toMatch(/X-API-Version/i);
  });

  it('answers with the version the request names [2025-09-30]', async () => {
    const res = await api.get('/api/v2/personal_access_tokens', {
      Authorization: member,
      'X-API-Version': '2025-09-30',
    });
    expect(res.status).toBe(200);
    expect(res.headers['x-api-version']).toBe('2025-09-30');
  });

  it.each(['2024-01-01', 'latest', ' '])(
    'answers 400 unsupported_version for a version it does not serve [%j]',
    async (version) => {
      const res = await api.get('/api/v2/personal_access_tokens', { Authorization: member, 'X-API-Version': version });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          {
            status: '400',
            code: 'unsupported_version',
            title: 'Invalid Version',
            detail: `API version ${JSON.stringify(version.trim() === '' ? '' : version)} is not supported; send one of 2025-09-30 in X-API-Version, or no X-API-Version for the latest`,
            meta: { supported_versions: ['2025-09-30'] },
          },
        ],
      });
    },
  );
});
