import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, personId, type TestHost } from '../../support/host.ts';
import { documentedApi, type DocumentedApi } from '../../support/openapi.ts';
import { insertApplication, insertConnection, organizationId, setAccessMode, somePeople } from './fixtures.ts';

const API = `${TEST_BASE_URL}/api/v2`;

let t: TestHost;
let api: DocumentedApi;
let demo: string;
let other: string;
let admin: string;
let member: string;
let otherAdmin: string;
let adminId: string;
let otherAdminId: string;
let people: string[];
let alpha: string;
let beta: string;
let gamma: string;

/** People rows as the API should render them, in connection order. */
let rendered: { id: string; first_name: string; last_name: string; avatar_url: string | null }[];

beforeAll(async () => {
  t = await createTestHost();
  api = await documentedApi(t);
  demo = await organizationId(t.db, 'demo');
  other = await organizationId(t.db, 'other');
  admin = await basicAuthFor(t.db, 'admin@demo.test');
  member = await basicAuthFor(t.db, 'member@demo.test');
  otherAdmin = await basicAuthFor(t.db, 'admin@other.test');
  adminId = await personId(t.db, 'admin@demo.test');
  otherAdminId = await personId(t.db, 'admin@other.test');
  people = await somePeople(t.db, demo, 30);

  // Alpha is another organization's application that 30 people and the administrator of demo use.
  alpha = await insertApplication(t.db, other, 'Alpha Planner', {
    description: 'Plans things',
    url: 'https://alpha.example',
  });
  beta = await insertApplication(t.db, demo, 'Beta Sync', { description: 'Syncs things', url: 'https://beta.example' });
  gamma = await insertApplication(t.db, demo, 'Gamma Hidden');
  for (const [i, id] of people.entries()) {
    const minute = String(i).padStart(2, '0');
    await insertConnection(
      t.db,
      alpha,
      id,
      i % 2 === 0 ? ['people'] : ['people', 'api'],
      `2026-01-01T00:${minute}:00Z`,
    );
  }
  await insertConnection(t.db, alpha, adminId, ['api'], '2026-02-01T08:30:00Z');
  await insertConnection(t.db, alpha, otherAdminId, ['api'], '2026-01-15T00:00:00Z');
  await insertConnection(t.db, beta, adminId, ['people'], '2026-03-01T12:00:00Z');
  await insertConnection(t.db, gamma, otherAdminId, ['people'], '2026-03-02T12:00:00Z');
  await setAccessMode(t.db, demo, beta, 'admins_only');
  await setAccessMode(t.db, other, alpha, 'specific_people');

  const { rows } = await t.db.query<{ id: string; first_name: string; last_name: string; avatar_url: string | null }>(
    'SELECT id::text, first_name, last_name, avatar_url FROM people WHERE id = ANY($1::bigint[])',
    [[...people, adminId]],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  rendered = [...people, adminId].map((id) => byId.get(id)!);
});
afterAll(() => t.close());

function alphaResource(attributes?: Record<string, unknown>) {
  return {
    id: alpha,
    type: 'ConnectedApplication',
    attributes: attributes ?? {
      name: 'Alpha Planner',
      description: 'Plans things',
      url: 'https://alpha.example',
      access_mode: 'anyone',
    },
    links: { self: `${API}/connected_applications/${alpha}`, people: `${API}/connected_applications/${alpha}/people` },
  };
}

function personResource(index: number) {
  const p = rendered[index]!;
  const isAdmin = p.id === adminId;
  return {
    id: p.id,
    type: 'ConnectedApplicationPerson',
    attributes: {
      avatar_url: p.avatar_url,
      connected_at: isAdmin ? '2026-02-01T08:30:00Z' : `2026-01-01T00:${String(index).padStart(2, '0')}:00Z`,
      first_name: p.first_name,
      last_name: p.last_name,
      scopes: isAdmin ? ['api'] : index % 2 === 0 ? ['people'] : ['people', 'api'],
      site_administrator: isAdmin,
    },
    links: { self: `${API}/connected_applications/${alpha}/people/${p.id}` },
  };
}

const FORBIDDEN = {
  errors: [
    {
      status: '403',
      title: 'Forbidden',
      detail: 'You do not have access to this resource',
      meta: {
        description:
          'Only organization administrators may read connected applications, OAuth applications and monthly active users',
      },
    },
  ],
};
const NOT_FOUND = {
  errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
};
const OUT_OF_RANGE = (parameter: string) => ({
  errors: [
    {
      status: '400',
      code: 'integer_out_of_range',
      title: 'Bad Request',
      detail: 'Your request could not be processed',
      source: { parameter },
    },
  ],
});

describe('GET /api/v2/connected_applications', () => {
  it('returns the applications people of the organization connected, by name, with access_mode [default anyone, stored row]', async () => {
    const res = await api.get('/api/v2/connected_applications', { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        alphaResource(),
        {
          id: beta,
          type: 'ConnectedApplication',
          attributes: {
            name: 'Beta Sync',
            description: 'Syncs things',
            url: 'https://beta.example',
            access_mode: 'admins_only',
          },
          links: {
            self: `${API}/connected_applications/${beta}`,
            people: `${API}/connected_applications/${beta}/people`,
          },
        },
      ],
      included: [],
      meta: { total_count: 2, count: 2, parent: { id: demo, type: 'Organization' } },
      links: { self: `${API}/connected_applications` },
    });
  });

  it('keeps access_mode per organization and shows only what its own people connected [other organization]', async () => {
    const res = await api.get('/api/v2/connected_applications?fields[ConnectedApplication]=name', {
      Authorization: otherAdmin,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { id: string; attributes: unknown }) => [d.id, d.attributes])).toEqual([
      [alpha, { name: 'Alpha Planner' }],
      [gamma, { name: 'Gamma Hidden' }],
    ]);
    const single = await api.get(`/api/v2/connected_applications/${alpha}`, { Authorization: otherAdmin });
    expect(single.body.data.attributes.access_mode).toBe('specific_people');
    expect(single.body.meta).toEqual({ parent: { id: other, type: 'Organization' } });
  });

  it('renders only the attributes fields[ConnectedApplication] names [fields=name,url]', async () => {
    const res = await api.get('/api/v2/connected_applications?fields[ConnectedApplication]=name,url', {
      Authorization: admin,
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual(alphaResource({ name: 'Alpha Planner', url: 'https://alpha.example' }));
  });

  it('refuses access_mode in fields[ConnectedApplication] [not a fields value]', async () => {
    const res = await api.get('/api/v2/connected_applications?fields[ConnectedApplication]=name,access_mode', {
      Authorization: admin,
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unknown_attribute',
          title: 'Invalid Version',
          detail:
            'fields[ConnectedApplication] accepts a comma-separated list of unique values from: description, name, url; got "access_mode"',
          source: { parameter: 'fields[ConnectedApplication]' },
        },
      ],
    });
  });

  it('pages with per_page and offset, and links.next followed verbatim reaches the last page [per_page=1]', async () => {
    const first = await api.get('/api/v2/connected_applications?per_page=1', { Authorization: admin });
    expect(first.status).toBe(200);
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual([alpha]);
    expect(first.body.meta).toEqual({
      total_count: 2,
      count: 1,
      next: { offset: 1 },
      parent: { id: demo, type: 'Organization' },
    });
    expect(first.body.links).toEqual({
      self: `${API}/connected_applications?per_page=1`,
      next: `${API}/connected_applications?per_page=1&offset=1`,
    });

    const second = await api.get(first.body.links.next, { Authorization: admin });
    expect(second.status).toBe(200);
    expect(second.body.data.map((d: { id: string }) => d.id)).toEqual([beta]);
    expect(second.body.meta).toEqual({
      total_count: 2,
      count: 1,
      prev: { offset: 0 },
      parent: { id: demo, type: 'Organization' },
    });
    expect(second.body.links).toEqual({
      self: `${API}/connected_applications?per_page=1&offset=1`,
      prev: `${API}/connected_applications?per_page=1&offset=0`,
    });
  });

  it('returns an empty page past the end with a link back [offset=5]', async () => {
    const res = await api.get('/api/v2/connected_applications?offset=5', { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      included: [],
      meta: { total_count: 2, count: 0, prev: { offset: 0 }, parent: { id: demo, type: 'Organization' } },
      links: { self: `${API}/connected_applications?offset=5`, prev: `${API}/connected_applications?offset=0` },
    });
  });

  it.each([
    ['per_page=0', 'per_page'],
    ['per_page=101', 'per_page'],
    ['per_page=ten', 'per_page'],
    ['offset=-1', 'offset'],
    ['offset=1.5', 'offset'],
  ])('answers 400 integer_out_of_range for a bad page parameter [%s]', async (query, parameter) => {
    const res = await api.get(`/api/v2/connected_applications?${query}`, { Authorization: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(OUT_OF_RANGE(parameter));
  });

  it('answers 400 for a where[] attribute the collection does not have [where[name]]', async () => {
    const res = await api.get('/api/v2/connected_applications?where[name]=Alpha', { Authorization: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unknown_attribute',
          title: 'Invalid Version',
          detail: 'where[name] is not a query attribute of ConnectedApplication',
          source: { parameter: 'where[name]' },
        },
      ],
    });
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get('/api/v2/connected_applications', { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });

  it("applies the person's current access on every request [promoted, then demoted]", async () => {
    const memberId = await personId(t.db, 'member@demo.test');
    try {
      await t.db.query('UPDATE people SET site_administrator = true WHERE id = $1', [memberId]);
      expect((await api.get('/api/v2/connected_applications', { Authorization: member })).status).toBe(200);
    } finally {
      await t.db.query('UPDATE people SET site_administrator = false WHERE id = $1', [memberId]);
    }
    expect((await api.get('/api/v2/connected_applications', { Authorization: member })).status).toBe(403);
  });

  it('answers 401 without credentials', async () => {
    const res = await api.get('/api/v2/connected_applications');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].title).toBe('Unauthorized');
  });
});

describe('GET /api/v2/connected_applications/{connected_application_id}', () => {
  it('returns one connected application with the organization as parent', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: alphaResource(),
      included: [],
      meta: { parent: { id: demo, type: 'Organization' } },
    });
  });

  it('renders only the attributes fields[ConnectedApplication] names [fields=description]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}?fields[ConnectedApplication]=description`, {
      Authorization: admin,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(alphaResource({ description: 'Plans things' }));
  });

  it('answers 400 for a repeated fields value [fields=name,name]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}?fields[ConnectedApplication]=name,name`, {
      Authorization: admin,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      code: 'unknown_attribute',
      source: { parameter: 'fields[ConnectedApplication]' },
    });
  });

  it.each([
    ['an application only another organization connected', () => gamma],
    ['an unknown id', () => '999999'],
    ['a non-numeric id', () => 'alpha'],
  ])('answers 404 for %s', async (_label, id) => {
    const res = await api.get(`/api/v2/connected_applications/${id()}`, { Authorization: admin });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}`, { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe('GET /api/v2/connected_applications/{connected_application_id}/people', () => {
  it('returns the first 25 people of this organization in connection order with can_query_by [default page]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: Array.from({ length: 25 }, (_, i) => personResource(i)),
      included: [],
      meta: {
        total_count: 31,
        count: 25,
        next: { offset: 25 },
        parent: { id: alpha, type: 'ConnectedApplication' },
        can_query_by: ['site_administrator'],
      },
      links: {
        self: `${API}/connected_applications/${alpha}/people`,
        next: `${API}/connected_applications/${alpha}/people?offset=25`,
      },
    });
  });

  it("reaches the rest by following links.next verbatim, never showing another organization's people [offset=25]", async () => {
    const first = await api.get(`/api/v2/connected_applications/${alpha}/people`, { Authorization: admin });
    const res = await api.get(first.body.links.next, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([25, 26, 27, 28, 29, 30].map(personResource));
    expect(res.body.data.map((d: { id: string }) => d.id)).not.toContain(otherAdminId);
    expect(res.body.meta).toEqual({
      total_count: 31,
      count: 6,
      prev: { offset: 0 },
      parent: { id: alpha, type: 'ConnectedApplication' },
      can_query_by: ['site_administrator'],
    });
    expect(res.body.links).toEqual({
      self: `${API}/connected_applications/${alpha}/people?offset=25`,
      prev: `${API}/connected_applications/${alpha}/people?offset=0`,
    });
  });

  it('filters by where[site_administrator] [true]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people?where[site_administrator]=true`, {
      Authorization: admin,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([personResource(30)]);
    expect(res.body.meta.total_count).toBe(1);
  });

  it('filters by where[site_administrator] and keeps every parameter in the links [false, per_page, fields]', async () => {
    const query = 'where[site_administrator]=false&per_page=10&fields[ConnectedApplicationPerson]=first_name,scopes';
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people?${query}`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({
      total_count: 30,
      count: 10,
      next: { offset: 10 },
      parent: { id: alpha, type: 'ConnectedApplication' },
      can_query_by: ['site_administrator'],
    });
    expect(res.body.data[0].attributes).toEqual({ first_name: rendered[0]!.first_name, scopes: ['people'] });
    expect(res.body.links).toEqual({
      self: `${API}/connected_applications/${alpha}/people?${query}`,
      next: `${API}/connected_applications/${alpha}/people?${query}&offset=10`,
    });
    const next = await api.get(res.body.links.next, { Authorization: admin });
    expect(next.status).toBe(200);
    expect(next.body.data.map((d: { id: string }) => d.id)).toEqual(people.slice(10, 20));
    expect(next.body.data[0].attributes).toEqual({ first_name: rendered[10]!.first_name, scopes: ['people'] });
  });

  it.each(['yes', '1', 'TRUE', ''])(
    'answers 400 for a where[site_administrator] that is not true or false [%j]',
    async (value) => {
      const res = await api.get(`/api/v2/connected_applications/${alpha}/people?where[site_administrator]=${value}`, {
        Authorization: admin,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          {
            status: '400',
            code: 'invalid_parameter',
            title: 'Bad Request',
            detail: 'where[site_administrator] must be true or false',
            source: { parameter: 'where[site_administrator]' },
          },
        ],
      });
    },
  );

  it('answers 400 for a fields value it does not accept [fields=email]', async () => {
    const res = await api.get(
      `/api/v2/connected_applications/${alpha}/people?fields[ConnectedApplicationPerson]=email`,
      { Authorization: admin },
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      status: '400',
      code: 'unknown_attribute',
      source: { parameter: 'fields[ConnectedApplicationPerson]' },
    });
  });

  it('answers 400 for a bad per_page [per_page=500]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people?per_page=500`, { Authorization: admin });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(OUT_OF_RANGE('per_page'));
  });

  it.each([
    ['an application only another organization connected', () => gamma],
    ['an unknown application', () => '999999'],
  ])('answers 404 for %s', async (_label, id) => {
    const res = await api.get(`/api/v2/connected_applications/${id()}/people`, { Authorization: admin });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people`, { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe('GET /api/v2/connected_applications/{connected_application_id}/people/{person_id}', () => {
  it('returns one person with the connected application as parent', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people/${adminId}`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: personResource(30),
      included: [],
      meta: { parent: { id: alpha, type: 'ConnectedApplication' } },
    });
  });

  it('renders only the attributes fields[ConnectedApplicationPerson] names [fields=connected_at,site_administrator]', async () => {
    const res = await api.get(
      `/api/v2/connected_applications/${alpha}/people/${people[3]}?fields[ConnectedApplicationPerson]=connected_at,site_administrator`,
      { Authorization: admin },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ connected_at: '2026-01-01T00:03:00Z', site_administrator: false });
  });

  it.each([
    ['a person of another organization who connected it', () => [alpha, otherAdminId]],
    ['a person who did not connect it', () => [beta, people[0]!]],
    ['an application only another organization connected', () => [gamma, otherAdminId]],
    ['an unknown person', () => [alpha, '999999']],
  ])('answers 404 for %s', async (_label, ids) => {
    const [app, person] = ids();
    const res = await api.get(`/api/v2/connected_applications/${app}/people/${person}`, { Authorization: admin });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get(`/api/v2/connected_applications/${alpha}/people/${adminId}`, { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});
