import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#host/db/database.ts';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { createTestDatabase } from '../../support/database.ts';
import { engineApp } from '../../support/engine-app.ts';

let db: Database;
let request: ReturnType<typeof supertest>;
let demoIds: string[];
let orgId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  request = supertest(engineApp(db));
  demoIds = (
    await db.query<{ id: string }>(
      "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' ORDER BY p.id",
    )
  ).rows.map((r) => r.id);
  orgId = (await db.query<{ id: string }>("SELECT id::text FROM organizations WHERE slug = 'demo'")).rows[0]!.id;
});
afterAll(() => db.close());

/** The path and query of an absolute link, to follow it verbatim against the in-process app. */
const follow = (link: string) => {
  expect(link.startsWith(`${TEST_BASE_URL}/`)).toBe(true);
  return link.slice(TEST_BASE_URL.length);
};

describe('collection envelope', () => {
  it('returns the first page with default per_page 25, next but no prev, and an empty included [defaults]', async () => {
    const res = await request.get('/test/people');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['data', 'included', 'meta', 'links']);
    expect(res.body.included).toEqual([]);
    expect(res.body.meta).toEqual({
      total_count: demoIds.length,
      count: 25,
      next: { offset: 25 },
      parent: { id: orgId, type: 'Organization' },
    });
    expect(res.body.links).toEqual({
      self: `${TEST_BASE_URL}/test/people`,
      next: `${TEST_BASE_URL}/test/people?offset=25`,
    });
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(demoIds.slice(0, 25));
  });

  it('renders resource objects with string ids, type, attributes, relationships and links.self', async () => {
    const res = await request.get(`/test/people?where[id]=${demoIds[0]}`);
    const row = (
      await db.query<{ first_name: string; last_name: string; created_at: Date; campus_id: string | null }>(
        'SELECT first_name, last_name, created_at, campus_id::text FROM people WHERE id = $1',
        [demoIds[0]],
      )
    ).rows[0]!;
    expect(res.body.data).toEqual([
      {
        id: demoIds[0],
        type: 'TestPerson',
        attributes: {
          first_name: row.first_name,
          last_name: row.last_name,
          site_administrator: true,
          created_at: row.created_at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
        relationships: { campus: { data: row.campus_id ? { type: 'Campus', id: row.campus_id } : null } },
        links: { self: `${TEST_BASE_URL}/test/people/${demoIds[0]}` },
      },
    ]);
  });

  it('pages through everything by following links.next verbatim, keeping every parameter [links]', async () => {
    let path: string | undefined = '/test/people?per_page=100&fields[TestPerson]=last_name&order=-last_name';
    const seen: string[] = [];
    let pages = 0;
    while (path) {
      const res = await request.get(path);
      expect(res.status).toBe(200);
      for (const r of res.body.data) {
        expect(Object.keys(r.attributes)).toEqual(['last_name']);
        seen.push(r.id);
      }
      if (pages > 0) expect(res.body.links.prev).toBeDefined();
      else expect(res.body.links.prev).toBeUndefined();
      expect(res.body.links.self).toContain('fields[TestPerson]=last_name');
      path = res.body.links.next ? follow(res.body.links.next) : undefined;
      if (path) expect(path).toContain('order=-last_name');
      pages++;
    }
    expect(pages).toBe(Math.ceil(demoIds.length / 100));
    expect([...seen].sort()).toEqual([...demoIds].sort());
  });

  it('has prev but no next on the last page, and counts what it returns [last page]', async () => {
    const last = Math.floor((demoIds.length - 1) / 25) * 25;
    const res = await request.get(`/test/people?offset=${last}`);
    expect(res.body.meta.count).toBe(demoIds.length - last);
    expect(res.body.meta.next).toBeUndefined();
    expect(res.body.meta.prev).toEqual({ offset: last - 25 });
    expect(res.body.links.next).toBeUndefined();
    expect(res.body.links.prev).toBe(`${TEST_BASE_URL}/test/people?offset=${last - 25}`);
  });

  it('returns an empty page past the end [offset beyond total]', async () => {
    const res = await request.get('/test/people?offset=100000');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([]);
    expect(res.body.meta).toMatchObject({ total_count: demoIds.length, count: 0 });
    expect(res.body.meta.next).toBeUndefined();
  });

  it('accepts per_page 1 and 100 [bounds]', async () => {
    expect((await request.get('/test/people?per_page=1')).body.meta.count).toBe(1);
    expect((await request.get('/test/people?per_page=100')).body.meta.count).toBe(100);
  });
});

describe('query errors', () => {
  const badRequest = (parameter: string) => ({
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

  it.each(['0', '101', '-1', 'abc', '1.5', ''])('answers 400 integer_out_of_range for per_page=%s', async (value) => {
    const res = await request.get(`/test/people?per_page=${value}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest('per_page'));
  });

  it.each(['-1', 'x'])('answers 400 integer_out_of_range for offset=%s', async (value) => {
    const res = await request.get(`/test/people?offset=${value}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(badRequest('offset'));
  });

  it('answers 400 Invalid Version for an unknown fields value [fields]', async () => {
    const res = await request.get('/test/people?fields[TestPerson]=first_name,password_hash');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unknown_attribute',
          title: 'Invalid Version',
          detail:
            'fields[TestPerson] accepts a comma-separated list of unique values from: first_name, last_name, site_administrator, created_at, campus; got "password_hash"',
          source: { parameter: 'fields[TestPerson]' },
        },
      ],
    });
  });

  it('answers 400 for a repeated fields value [unique]', async () => {
    const res = await request.get('/test/people?fields[TestPerson]=first_name,first_name');
    expect(res.status).toBe(400);
    expect(res.body.errors[0].title).toBe('Invalid Version');
  });

  it('answers 400 for fields of a type the route does not render', async () => {
    const res = await request.get('/test/people?fields[Note]=note');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({
      status: '400',
      title: 'Invalid Version',
      source: { parameter: 'fields[Note]' },
    });
  });

  it('answers 400 for an unknown where attribute, order value or include', async () => {
    for (const [query, parameter] of [
      ['where[email]=x', 'where[email]'],
      ['order=email', 'order'],
      ['order=first_name,first_name', 'order'],
      ['include=organization', 'include'],
      ['filter=men', 'filter'],
    ] as const) {
      const res = await request.get(`/test/people?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0], query).toMatchObject({
        status: '400',
        code: 'unknown_attribute',
        title: 'Invalid Version',
        source: { parameter },
      });
    }
  });

  it('answers 400 invalid_parameter for a malformed where value [types]', async () => {
    for (const [query, parameter] of [
      ['where[site_administrator]=yes', 'where[site_administrator]'],
      ['where[id]=abc', 'where[id]'],
      ['where[created_at]=yesterday', 'where[created_at]'],
      ['where[created_at]=2024-13-45T00:00:00Z', 'where[created_at]'],
    ] as const) {
      const res = await request.get(`/test/people?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.errors[0], query).toMatchObject({
        status: '400',
        code: 'invalid_parameter',
        title: 'Bad Request',
        source: { parameter },
      });
    }
  });

  it('answers 400 when a single-valued parameter is repeated', async () => {
    const res = await request.get('/test/people?per_page=2&per_page=3');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_parameter', source: { parameter: 'per_page' } });
  });
});

describe('where, order, filter and include', () => {
  it('filters by a boolean [where boolean]', async () => {
    const admins = (
      await db.query<{ id: string }>(
        "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' AND p.site_administrator ORDER BY p.id",
      )
    ).rows.map((r) => r.id);
    const res = await request.get('/test/people?where[site_administrator]=true');
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(admins);
    const others = await request.get('/test/people?where[site_administrator]=false&per_page=1');
    expect(others.body.meta.total_count).toBe(demoIds.length - admins.length);
  });

  it('matches a string exactly [where string]', async () => {
    const expected = (
      await db.query<{ id: string }>(
        "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' AND p.first_name = 'Grace' ORDER BY p.id",
      )
    ).rows.map((r) => r.id);
    expect(expected.length).toBeGreaterThan(0);
    const res = await request.get('/test/people?where[first_name]=Grace&per_page=100');
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual(expected);
    expect((await request.get('/test/people?where[first_name]=grace')).body.meta.total_count).toBe(0);
  });

  it('matches a rendered created_at exactly [where date_time]', async () => {
    const first = (await request.get(`/test/people?where[id]=${demoIds[10]}`)).body.data[0];
    const createdAt: string = first.attributes.created_at;
    const expected = (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' AND date_trunc('second', p.created_at) = $1",
        [new Date(createdAt)],
      )
    ).rows[0]!.n;
    const res = await request.get(`/test/people?where[created_at]=${encodeURIComponent(createdAt)}&per_page=100`);
    expect(res.body.meta.total_count).toBe(expected);
    expect(res.body.data.map((r: { id: string }) => r.id)).toContain(demoIds[10]);
  });

  it('orders ascending and, with a hyphen, descending, with a stable tie-breaker [order]', async () => {
    const asc = (
      await db.query<{ id: string }>(
        "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' ORDER BY p.last_name ASC, p.id ASC LIMIT 10",
      )
    ).rows.map((r) => r.id);
    const desc = (
      await db.query<{ id: string }>(
        "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' ORDER BY p.last_name DESC, p.id ASC LIMIT 10",
      )
    ).rows.map((r) => r.id);
    expect(
      (await request.get('/test/people?order=last_name&per_page=10')).body.data.map((r: { id: string }) => r.id),
    ).toEqual(asc);
    expect(
      (await request.get('/test/people?order=-last_name&per_page=10')).body.data.map((r: { id: string }) => r.id),
    ).toEqual(desc);
  });

  it('orders by a joined column [order campuses.name]', async () => {
    const expected = (
      await db.query<{ id: string }>(
        "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id LEFT JOIN campuses c ON c.id = p.campus_id WHERE o.slug = 'demo' ORDER BY c.name DESC NULLS LAST, p.id ASC LIMIT 30",
      )
    ).rows.map((r) => r.id);
    expect(
      (await request.get('/test/people?order=-campuses.name&per_page=30')).body.data.map((r: { id: string }) => r.id),
    ).toEqual(expected);
  });

  it('applies a named filter [filter]', async () => {
    const women = (
      await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' AND p.gender = 'F'",
      )
    ).rows[0]!.n;
    expect((await request.get('/test/people?filter=women')).body.meta.total_count).toBe(women);
  });

  it('adds each related resource once under included, limited by its fields [include]', async () => {
    const res = await request.get('/test/people?include=campus&per_page=100&fields[Campus]=name');
    expect(res.status).toBe(200);
    const campusIds = new Set(
      res.body.data
        .map((r: { relationships: { campus: { data: { id: string } | null } } }) => r.relationships.campus.data?.id)
        .filter(Boolean),
    );
    expect(res.body.included.map((c: { id: string }) => c.id).sort()).toEqual([...campusIds].sort());
    for (const c of res.body.included) expect(Object.keys(c)).toEqual(['id', 'type', 'attributes', 'links']);
  });

  it('keeps included an empty array when the include finds nothing [include, none found]', async () => {
    const [row] = (
      await db.query<{ id: string }>(
        "SELECT p.id::text FROM people p JOIN organizations o ON o.id = p.organization_id WHERE o.slug = 'demo' AND p.campus_id IS NULL ORDER BY p.id LIMIT 1",
      )
    ).rows;
    const res = await request.get(`/test/people?include=campus&where[id]=${row!.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([row!.id]);
    expect(res.body.data[0].relationships.campus.data).toBeNull();
    expect(res.body.included).toEqual([]);
  });
});

describe('single resources and errors', () => {
  it('returns {data, included: [], meta:{parent}} for one resource', async () => {
    const res = await request.get(`/test/people/${demoIds[1]}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['data', 'included', 'meta']);
    expect(res.body.included).toEqual([]);
    expect(res.body.data.id).toBe(demoIds[1]);
  });

  it.each(['999999999', 'abc', '0', '1e3'])('answers 404 JSON for id %s', async (id) => {
    const res = await request.get(`/test/people/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
    });
  });

  it('answers 404 JSON (never HTML) for an unknown route', async () => {
    const res = await request.post('/nowhere/at/all');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      errors: [{ status: '404', title: 'Not Found', detail: 'The resource you requested could not be found' }],
    });
  });

  it('answers 400 invalid_json for a malformed JSON body', async () => {
    const res = await request.post('/test/echo').set('Content-Type', 'application/json').send('{"data": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        { status: '400', code: 'invalid_json', title: 'Bad Request', detail: 'Your request could not be processed' },
      ],
    });
  });
});
