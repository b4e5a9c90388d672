import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { createPeopleFixture, FORBIDDEN_VIEWER, NOT_FOUND, sqlRows, type PeopleFixture } from './people-fixture.ts';

let f: PeopleFixture;
beforeAll(async () => {
  f = await createPeopleFixture();
});
afterAll(() => f.t.close());
const get = (path: string, auth = f.auth.viewer) => f.t.api().get(path).set('Authorization', auth);

describe('GET /people/v2/people/{id}', () => {
  it('returns the person, the target of Person self links', async () => {
    const res = await get(`/people/v2/people/${f.editorId}?include=organization`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: f.editorId,
      type: 'Person',
      attributes: { first_name: 'Eden', last_name: 'Editor' },
      relationships: { organization: { data: { type: 'Organization', id: f.demoId } } },
      links: { self: `${TEST_BASE_URL}/people/v2/people/${f.editorId}` },
    });
    expect(res.body.included.map((r: { type: string }) => r.type)).toEqual(['Organization']);
    expect(res.body.meta).toEqual({ parent: { id: f.demoId, type: 'Organization' } });
  });

  it('answers 404 for a person of another organization and 403 without a people role [tenant isolation, permissions]', async () => {
    const [other] = await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM people WHERE organization_id = $1 LIMIT 1',
      [f.otherId],
    );
    const res = await get(`/people/v2/people/${other!.id}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    const none = await get(`/people/v2/people/${f.editorId}`, f.auth.none);
    expect(none.status).toBe(403);
    expect(none.body).toEqual(FORBIDDEN_VIEWER);
  });
});

describe('GET /people/v2/people', () => {
  it('returns the organization people, filtered by where[last_name] and ordered by first_name', async () => {
    const expected = await sqlRows<{ id: string; first_name: string }>(
      f.db,
      "SELECT id::text, first_name FROM people WHERE organization_id = $1 AND last_name = 'Tanaka'",
      [f.demoId],
    );
    expected.sort((a, b) =>
      a.first_name < b.first_name ? 1 : a.first_name > b.first_name ? -1 : Number(a.id) - Number(b.id),
    );
    const res = await get('/people/v2/people?where[last_name]=Tanaka&order=-first_name&per_page=100');
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual(expected.map((r) => r.id));
    const all = await get('/people/v2/people?per_page=1');
    const [{ n }] = (await sqlRows<{ n: number }>(
      f.db,
      'SELECT count(*)::int AS n FROM people WHERE organization_id = $1',
      [f.demoId],
    )) as [{ n: number }];
    expect(all.body.meta.total_count).toBe(n);
  });
});
