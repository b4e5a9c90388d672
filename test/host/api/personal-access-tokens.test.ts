import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersonalAccessToken } from '#host/auth/personal-access-tokens.ts';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { createTestHost, personId, type TestHost } from '../../support/host.ts';
import { documentedApi, type DocumentedApi } from '../../support/openapi.ts';
import { organizationId } from './fixtures.ts';

const API = `${TEST_BASE_URL}/api/v2`;

let t: TestHost;
let api: DocumentedApi;
let demo: string;
let member: string;
let admin: string;
/** The member's tokens, oldest first: the one used to authenticate, then two more. */
let memberTokens: { id: string; name: string }[];
let adminToken: string;
let otherToken: string;

const basic = (token: { client_id: string; secret: string }) =>
  `Basic ${Buffer.from(`${token.client_id}:${token.secret}`).toString('base64')}`;

beforeAll(async () => {
  t = await createTestHost();
  api = await documentedApi(t);
  demo = await organizationId(t.db, 'demo');
  const memberId = await personId(t.db, 'member@demo.test');
  const main = await createPersonalAccessToken(t.db, memberId, 'Laptop script');
  member = basic(main);
  const second = await createPersonalAccessToken(t.db, memberId, 'Server backup');
  const third = await createPersonalAccessToken(t.db, memberId, 'Leaked one');
  await t.db.query('UPDATE personal_access_tokens SET disabled_at = now() WHERE id = $1', [third.id]);
  memberTokens = [main, second, third].map((k) => ({ id: k.id, name: k.name }));
  const adminKey = await createPersonalAccessToken(t.db, await personId(t.db, 'admin@demo.test'), 'Admin token');
  admin = basic(adminKey);
  adminToken = adminKey.id;
  otherToken = (await createPersonalAccessToken(t.db, await personId(t.db, 'admin@other.test'), 'Other token')).id;
});
afterAll(() => t.close());

function token(index: number, attributes?: Record<string, unknown>) {
  const k = memberTokens[index]!;
  return {
    id: k.id,
    type: 'PersonalAccessToken',
    attributes: attributes ?? { name: k.name },
    links: { self: `${API}/personal_access_tokens/${k.id}` },
  };
}

const NOT_FOUND = {
  errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
};

describe('GET /api/v2/personal_access_tokens', () => {
  it("returns only the requester's own tokens, oldest first, disabled ones included [not an administrator]", async () => {
    const res = await api.get('/api/v2/personal_access_tokens', { Authorization: member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [token(0), token(1), token(2)],
      included: [],
      meta: { total_count: 3, count: 3, parent: { id: demo, type: 'Organization' } },
      links: { self: `${API}/personal_access_tokens` },
    });
  });

  it("does not show an administrator other people's tokens [administrator]", async () => {
    const res = await api.get('/api/v2/personal_access_tokens', { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([adminToken]);
  });

  it('pages and follows links.next verbatim [per_page=2, fields=name]', async () => {
    const first = await api.get('/api/v2/personal_access_tokens?fields[PersonalAccessToken]=name&per_page=2', {
      Authorization: member,
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([token(0), token(1)]);
    expect(first.body.meta).toEqual({
      total_count: 3,
      count: 2,
      next: { offset: 2 },
      parent: { id: demo, type: 'Organization' },
    });
    expect(first.body.links).toEqual({
      self: `${API}/personal_access_tokens?fields[PersonalAccessToken]=name&per_page=2`,
      next: `${API}/personal_access_tokens?fields[PersonalAccessToken]=name&per_page=2&offset=2`,
    });
    const second = await api.get(first.body.links.next, { Authorization: member });
    expect(second.body.data).toEqual([token(2)]);
    expect(second.body.meta).toEqual({
      total_count: 3,
      count: 1,
      prev: { offset: 0 },
      parent: { id: demo, type: 'Organization' },
    });
  });

  it('pages from an offset in the middle [offset=1, per_page=1]', async () => {
    const res = await api.get('/api/v2/personal_access_tokens?offset=1&per_page=1', { Authorization: member });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([token(1)]);
    expect(res.body.meta).toEqual({
      total_count: 3,
      count: 1,
      prev: { offset: 0 },
      next: { offset: 2 },
      parent: { id: demo, type: 'Organization' },
    });
    expect(res.body.links).toEqual({
      self: `${API}/personal_access_tokens?offset=1&per_page=1`,
      prev: `${API}/personal_access_tokens?per_page=1&offset=0`,
      next: `${API}/personal_access_tokens?per_page=1&offset=2`,
    });
  });

  it.each([
    ['fields[PersonalAccessToken]=secret', 'unknown_attribute', 'fields[PersonalAccessToken]'],
    ['fields[PersonalAccessToken]=', 'unknown_attribute', 'fields[PersonalAccessToken]'],
    ['per_page=0', 'integer_out_of_range', 'per_page'],
    ['offset=1e3', 'integer_out_of_range', 'offset'],
    ['per_page=1&per_page=2', 'invalid_parameter', 'per_page'],
    ['where[name]=x', 'unknown_attribute', 'where[name]'],
  ])('answers 400 for a bad query [%s]', async (query, code, parameter) => {
    const res = await api.get(`/api/v2/personal_access_tokens?${query}`, { Authorization: member });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ status: '400', code, source: { parameter } });
  });

  it('answers 401 to a disabled token [found publicly]', async () => {
    await t.db.query('UPDATE personal_access_tokens SET disabled_at = now() WHERE id = $1', [adminToken]);
    try {
      const res = await api.get('/api/v2/personal_access_tokens', { Authorization: admin });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].status).toBe('401');
    } finally {
      await t.db.query('UPDATE personal_access_tokens SET disabled_at = NULL WHERE id = $1', [adminToken]);
    }
  });
});

describe('GET /api/v2/personal_access_tokens/{personal_access_token_id}', () => {
  it("returns one of the requester's tokens with the organization as parent", async () => {
    const res = await api.get(`/api/v2/personal_access_tokens/${memberTokens[1]!.id}`, { Authorization: member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: token(1), included: [], meta: { parent: { id: demo, type: 'Organization' } } });
  });

  it('accepts fields[PersonalAccessToken] [fields=name]', async () => {
    const res = await api.get(
      `/api/v2/personal_access_tokens/${memberTokens[0]!.id}?fields[PersonalAccessToken]=name`,
      { Authorization: member },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(token(0));
  });

  it.each([
    ["another person's token of the same organization", () => adminToken],
    ['a token of another organization', () => otherToken],
    ['an unknown id', () => '987654'],
    ['a client_id-like id', () => 'abc123'],
  ])('answers 404 for %s', async (_label, id) => {
    const res = await api.get(`/api/v2/personal_access_tokens/${id()}`, { Authorization: member });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});
