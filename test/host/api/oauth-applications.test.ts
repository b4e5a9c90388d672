import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { basicAuthFor, createTestHost, personId, type TestHost } from '../../support/host.ts';
import { documentedApi, type DocumentedApi } from '../../support/openapi.ts';
import { insertApplication, insertMonthlyActiveUser, organizationId, somePeople } from './fixtures.ts';

const API = `${TEST_BASE_URL}/api/v2`;

let now = new Date('2026-11-15T12:00:00Z');
let t: TestHost;
let api: DocumentedApi;
let demo: string;
let admin: string;
let member: string;
let metrics: string;
let early: string;
let zeta: string;
let foreign: string;

beforeAll(async () => {
  t = await createTestHost({ deps: { now: () => now } });
  api = await documentedApi(t);
  demo = await organizationId(t.db, 'demo');
  const other = await organizationId(t.db, 'other');
  admin = await basicAuthFor(t.db, 'admin@demo.test');
  member = await basicAuthFor(t.db, 'member@demo.test');
  const [p0, p1, p2] = (await somePeople(t.db, demo, 3)) as [string, string, string];
  const outsider = await personId(t.db, 'admin@other.test');

  metrics = await insertApplication(t.db, demo, 'Metrics App', {
    description: 'Counts',
    url: 'https://metrics.example',
  });
  early = await insertApplication(t.db, demo, 'Early App', { description: 'Old', url: 'https://early.example' });
  zeta = await insertApplication(t.db, demo, 'Zeta App', { description: 'Last', url: 'https://zeta.example' });
  foreign = await insertApplication(t.db, other, 'Foreign App');

  // Metrics: three people of demo and one of another organization this month; the window is
  // December 2024 to November 2026 at `now`.
  for (const p of [p0, p1, p2, outsider]) await insertMonthlyActiveUser(t.db, metrics, p, 2026, 11);
  await insertMonthlyActiveUser(t.db, metrics, p0, 2026, 10);
  await insertMonthlyActiveUser(t.db, metrics, p0, 2024, 12);
  await insertMonthlyActiveUser(t.db, metrics, p1, 2024, 12);
  await insertMonthlyActiveUser(t.db, metrics, p0, 2024, 11);
  await insertMonthlyActiveUser(t.db, metrics, p0, 2026, 12);
  // Early: history around its February 2019 start.
  await insertMonthlyActiveUser(t.db, early, p0, 2018, 12);
  await insertMonthlyActiveUser(t.db, early, p0, 2019, 1);
  await insertMonthlyActiveUser(t.db, early, p0, 2019, 2);
  await insertMonthlyActiveUser(t.db, early, p1, 2019, 2);
  await insertMonthlyActiveUser(t.db, early, p0, 2019, 6);
  await insertMonthlyActiveUser(t.db, foreign, outsider, 2026, 11);
});
afterAll(() => t.close());

function application(id: string, name: string, description: string, url: string, attributes?: Record<string, unknown>) {
  return {
    id,
    type: 'OauthApplication',
    attributes: attributes ?? { name, description, url },
    links: { self: `${API}/oauth_applications/${id}`, mau: `${API}/oauth_applications/${id}/mau` },
  };
}

function mau(app: string, year: number, month: number, count: number) {
  const id = `${year}${String(month).padStart(2, '0')}`;
  return {
    id,
    type: 'OauthApplicationMau',
    attributes: { count, month, year },
    relationships: {
      oauth_application: {
        data: { type: 'OauthApplication', id: app },
        links: { related: `${API}/oauth_applications/${app}` },
      },
    },
    links: { self: `${API}/oauth_applications/${app}/mau/${id}` },
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

describe('GET /api/v2/oauth_applications', () => {
  it("returns the organization's applications by name", async () => {
    const res = await api.get('/api/v2/oauth_applications', { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        application(early, 'Early App', 'Old', 'https://early.example'),
        application(metrics, 'Metrics App', 'Counts', 'https://metrics.example'),
        application(zeta, 'Zeta App', 'Last', 'https://zeta.example'),
      ],
      included: [],
      meta: { total_count: 3, count: 3, parent: { id: demo, type: 'Organization' } },
      links: { self: `${API}/oauth_applications` },
    });
  });

  it('pages with per_page and follows links.next verbatim [per_page=2, fields=name]', async () => {
    const first = await api.get('/api/v2/oauth_applications?per_page=2&fields[OauthApplication]=name', {
      Authorization: admin,
    });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([
      application(early, '', '', '', { name: 'Early App' }),
      application(metrics, '', '', '', { name: 'Metrics App' }),
    ]);
    expect(first.body.meta).toEqual({
      total_count: 3,
      count: 2,
      next: { offset: 2 },
      parent: { id: demo, type: 'Organization' },
    });
    const second = await api.get(first.body.links.next, { Authorization: admin });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual([application(zeta, '', '', '', { name: 'Zeta App' })]);
    expect(second.body.meta).toEqual({
      total_count: 3,
      count: 1,
      prev: { offset: 0 },
      parent: { id: demo, type: 'Organization' },
    });
    expect(second.body.links).toEqual({
      self: `${API}/oauth_applications?per_page=2&fields[OauthApplication]=name&offset=2`,
      prev: `${API}/oauth_applications?per_page=2&fields[OauthApplication]=name&offset=0`,
    });
  });

  it.each([
    ['per_page=-3', 'integer_out_of_range', 'per_page'],
    ['offset=x', 'integer_out_of_range', 'offset'],
    ['fields[OauthApplication]=client_id', 'unknown_attribute', 'fields[OauthApplication]'],
    ['fields[Person]=first_name', 'unknown_attribute', 'fields[Person]'],
    ['where[name]=Zeta', 'unknown_attribute', 'where[name]'],
  ])('answers 400 for a bad query [%s]', async (query, code, parameter) => {
    const res = await api.get(`/api/v2/oauth_applications?${query}`, { Authorization: admin });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ status: '400', code, source: { parameter } });
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get('/api/v2/oauth_applications', { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe('GET /api/v2/oauth_applications/{oauth_application_id}', () => {
  it('returns one application with the organization as parent', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: application(metrics, 'Metrics App', 'Counts', 'https://metrics.example'),
      included: [],
      meta: { parent: { id: demo, type: 'Organization' } },
    });
  });

  it('renders only the attributes fields[OauthApplication] names [fields=url,description]', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}?fields[OauthApplication]=url,description`, {
      Authorization: admin,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toEqual({ description: 'Counts', url: 'https://metrics.example' });
  });

  it.each([
    ["another organization's application", () => foreign],
    ['an unknown id', () => '424242'],
    ['a non-numeric id', () => 'metrics'],
  ])('answers 404 for %s', async (_label, id) => {
    const res = await api.get(`/api/v2/oauth_applications/${id()}`, { Authorization: admin });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}`, { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe('GET /api/v2/oauth_applications/{oauth_application_id}/mau', () => {
  it('counts distinct people per month over the last 24 months, newest first [no future month, none older]', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}/mau`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [mau(metrics, 2026, 11, 4), mau(metrics, 2026, 10, 1), mau(metrics, 2024, 12, 2)],
      included: [],
      meta: { total_count: 3, count: 3, parent: { id: metrics, type: 'OauthApplication' } },
      links: { self: `${API}/oauth_applications/${metrics}/mau` },
    });
  });

  it('pages and follows links.next verbatim [per_page=2]', async () => {
    const first = await api.get(`/api/v2/oauth_applications/${metrics}/mau?per_page=2`, { Authorization: admin });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([mau(metrics, 2026, 11, 4), mau(metrics, 2026, 10, 1)]);
    expect(first.body.meta).toEqual({
      total_count: 3,
      count: 2,
      next: { offset: 2 },
      parent: { id: metrics, type: 'OauthApplication' },
    });
    expect(first.body.links.next).toBe(`${API}/oauth_applications/${metrics}/mau?per_page=2&offset=2`);
    const second = await api.get(first.body.links.next, { Authorization: admin });
    expect(second.body.data).toEqual([mau(metrics, 2024, 12, 2)]);
    expect(second.body.meta).toEqual({
      total_count: 3,
      count: 1,
      prev: { offset: 0 },
      parent: { id: metrics, type: 'OauthApplication' },
    });
  });

  it('renders only what fields[OauthApplicationMau] names [fields=count]', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}/mau?fields[OauthApplicationMau]=count`, {
      Authorization: admin,
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({ ...mau(metrics, 2026, 11, 4), attributes: { count: 4 }, relationships: {} });
  });

  it('renders the oauth_application relationship alone when fields names only it [fields=oauth_application]', async () => {
    const res = await api.get(
      `/api/v2/oauth_applications/${metrics}/mau?fields[OauthApplicationMau]=oauth_application`,
      { Authorization: admin },
    );
    expect(res.status).toBe(200);
    expect(res.body.data[2]).toEqual({ ...mau(metrics, 2024, 12, 2), attributes: {} });
  });

  it('shows nothing before February 2019 and moves its window with the clock [clock at 2019-06, 2021-01, 2021-02]', async () => {
    try {
      now = new Date('2019-06-10T00:00:00Z');
      let res = await api.get(`/api/v2/oauth_applications/${early}/mau`, { Authorization: admin });
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([mau(early, 2019, 6, 1), mau(early, 2019, 2, 2)]);

      now = new Date('2021-01-31T23:59:59Z');
      res = await api.get(`/api/v2/oauth_applications/${early}/mau`, { Authorization: admin });
      expect(res.body.data).toEqual([mau(early, 2019, 6, 1), mau(early, 2019, 2, 2)]);

      now = new Date('2021-02-01T00:00:00Z');
      res = await api.get(`/api/v2/oauth_applications/${early}/mau`, { Authorization: admin });
      expect(res.body.data).toEqual([mau(early, 2019, 6, 1)]);
      expect(res.body.meta.total_count).toBe(1);
    } finally {
      now = new Date('2026-11-15T12:00:00Z');
    }
  });

  it('returns an empty collection for an application without active users in the window', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${zeta}/mau`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [],
      included: [],
      meta: { total_count: 0, count: 0, parent: { id: zeta, type: 'OauthApplication' } },
      links: { self: `${API}/oauth_applications/${zeta}/mau` },
    });
  });

  it.each([
    ['fields[OauthApplicationMau]=total', 'unknown_attribute', 'fields[OauthApplicationMau]'],
    ['per_page=101', 'integer_out_of_range', 'per_page'],
    ['offset=-5', 'integer_out_of_range', 'offset'],
    ['where[year]=2026', 'unknown_attribute', 'where[year]'],
  ])('answers 400 for a bad query [%s]', async (query, code, parameter) => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}/mau?${query}`, { Authorization: admin });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ status: '400', code, source: { parameter } });
  });

  it.each([
    ["another organization's application", () => foreign],
    ['an unknown application', () => '424242'],
  ])('answers 404 for %s', async (_label, id) => {
    const res = await api.get(`/api/v2/oauth_applications/${id()}/mau`, { Authorization: admin });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}/mau`, { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});

describe('GET /api/v2/oauth_applications/{oauth_application_id}/mau/{mau_id}', () => {
  it('returns one month with the application as parent', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}/mau/202610`, { Authorization: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: mau(metrics, 2026, 10, 1),
      included: [],
      meta: { parent: { id: metrics, type: 'OauthApplication' } },
    });
  });

  it('renders only what fields[OauthApplicationMau] names [fields=year,month]', async () => {
    const res = await api.get(
      `/api/v2/oauth_applications/${metrics}/mau/202611?fields[OauthApplicationMau]=year,month`,
      { Authorization: admin },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      ...mau(metrics, 2026, 11, 4),
      attributes: { month: 11, year: 2026 },
      relationships: {},
    });
  });

  it.each([
    ['a month older than 24 months', () => [metrics, '202411']],
    ['a future month', () => [metrics, '202612']],
    ['a month without active users', () => [metrics, '202609']],
    ['a month that does not exist', () => [metrics, '202613']],
    ['a malformed id', () => [metrics, '2026-11']],
    ["a month of another organization's application", () => [foreign, '202611']],
  ])('answers 404 for %s', async (_label, ids) => {
    const [app, month] = ids();
    const res = await api.get(`/api/v2/oauth_applications/${app}/mau/${month}`, { Authorization: admin });
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });

  it('answers 404 for a month before February 2019 even inside 24 months [clock at 2019-06]', async () => {
    try {
      now = new Date('2019-06-10T00:00:00Z');
      expect((await api.get(`/api/v2/oauth_applications/${early}/mau/201902`, { Authorization: admin })).status).toBe(
        200,
      );
      const res = await api.get(`/api/v2/oauth_applications/${early}/mau/201901`, { Authorization: admin });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    } finally {
      now = new Date('2026-11-15T12:00:00Z');
    }
  });

  it('answers 403 to a person who is not an organization administrator [member]', async () => {
    const res = await api.get(`/api/v2/oauth_applications/${metrics}/mau/202611`, { Authorization: member });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN);
  });
});
