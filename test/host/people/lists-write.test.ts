import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeopleFixture, FORBIDDEN_EDITOR, NOT_FOUND, sqlRows, type PeopleFixture } from './people-fixture.ts';

let f: PeopleFixture;
let campus: string;
let otherCampus: string;
let category: string;

const one = async (sql: string, params: unknown[]) => (await sqlRows<{ id: string }>(f.db, sql, params))[0]!.id;
const patch = (id: string, body: unknown, auth = f.auth.admin) =>
  f.t
    .api()
    .patch(`/people/v2/lists/${id}`)
    .set('Authorization', auth)
    .send(body as object);
const list = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { type: 'List', attributes, ...extra },
});

async function newList(createdBy = f.adminId): Promise<string> {
  const id = await one(
    "INSERT INTO lists (organization_id, name, description, created_by_id, updated_by_id, created_at, updated_at) VALUES ($1, 'Patch me', 'A list', $2, $2, '2024-01-01', '2024-01-01') RETURNING id::text",
    [f.demoId, createdBy],
  );
  await f.db.query(
    "INSERT INTO list_rules (list_id, attribute, operator, value, position) VALUES ($1, 'membership', 'is', 'Member', 0), ($1, 'age', 'greater_than', '30', 1)",
    [id],
  );
  return id;
}
const row = async (id: string) =>
  (
    await sqlRows<Record<string, unknown>>(
      f.db,
      'SELECT name, description, auto_generated_name, auto_refresh, auto_refresh_frequency, include_inactive, return_original_if_none, returns, subset, status, campus_id::text, list_category_id::text, updated_by_id::text FROM lists WHERE id = $1',
      [id],
    )
  )[0]!;

beforeAll(async () => {
  f = await createPeopleFixture();
  campus = await one("SELECT id::text FROM campuses WHERE organization_id = $1 AND name = 'South Campus'", [f.demoId]);
  otherCampus = await one('SELECT id::text FROM campuses WHERE organization_id = $1 LIMIT 1', [f.otherId]);
  category = await one("SELECT id::text FROM list_categories WHERE organization_id = $1 AND name = 'Volunteers'", [
    f.demoId,
  ]);
});
afterAll(() => f.t.close());

describe('PATCH /people/v2/lists/{id}', () => {
  it('updates every assignable attribute, stamps updated_by and updated_at, and answers 200 with the list', async () => {
    const id = await newList();
    const res = await patch(
      id,
      list({
        name: 'Renamed',
        description: 'New words',
        auto_refresh: true,
        auto_refresh_frequency: 'weekly',
        include_inactive: true,
        return_original_if_none: true,
        returns: 'adults',
        subset: 'any',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      name: 'Renamed',
      description: 'New words',
      auto_refresh: true,
      auto_refresh_frequency: 'weekly',
      include_inactive: true,
      return_original_if_none: true,
      returns: 'adults',
      subset: 'any',
      auto_generated_name: false,
      status: 'never_run',
    });
    expect(res.body.data.attributes.updated_at).not.toBe('2024-01-01T00:00:00Z');
    expect(await row(id)).toMatchObject({
      name: 'Renamed',
      subset: 'any',
      returns: 'adults',
      updated_by_id: f.adminId,
    });
  });

  it('sets and clears the campus and category through relationships [campus, category]', async () => {
    const id = await newList();
    const set = await patch(
      id,
      list(
        {},
        {
          relationships: {
            campus: { data: { type: 'Campus', id: campus } },
            category: { data: { type: 'ListCategory', id: category } },
          },
        },
      ),
    );
    expect(set.status).toBe(200);
    expect(set.body.data.relationships.campus.data).toEqual({ type: 'Campus', id: campus });
    expect(set.body.data.relationships.category.data).toEqual({ type: 'ListCategory', id: category });
    const cleared = await patch(id, list({}, { relationships: { campus: { data: null } } }));
    expect(cleared.body.data.relationships.campus.data).toBeNull();
    expect(await row(id)).toMatchObject({ campus_id: null, list_category_id: category });
  });

  it('stars and unstars the list for the requester only [starred]', async () => {
    const id = await newList();
    expect((await patch(id, list({ starred: true }))).body.data.attributes.starred).toBe(true);
    expect(await sqlRows(f.db, 'SELECT person_id::text FROM list_stars WHERE list_id = $1', [id])).toEqual([
      { person_id: f.adminId },
    ]);
    expect(
      (await f.t.api().get(`/people/v2/lists/${id}`).set('Authorization', f.auth.editor)).body.data.attributes.starred,
    ).toBe(false);
    expect((await patch(id, list({ starred: false }))).body.data.attributes.starred).toBe(false);
    expect(await sqlRows(f.db, 'SELECT 1 FROM list_stars WHERE list_id = $1', [id])).toEqual([]);
  });

  it('generates the name from the rules when the name is cleared [auto_generated_name]', async () => {
    const id = await newList();
    const res = await patch(id, list({ name: null }));
    expect(res.body.data.attributes).toMatchObject({
      name: 'membership is Member and age greater than 30',
      auto_generated_name: true,
      name_or_description: 'membership is Member and age greater than 30',
    });
    const any = await patch(id, list({ name: '', subset: 'any' }));
    expect(any.body.data.attributes.name).toBe('membership is Member or age greater than 30');
    expect((await patch(id, list({ name: 'Chosen' }))).body.data.attributes.auto_generated_name).toBe(false);
  });

  it('moves a complete list to stale when its criteria change, and back to complete on the next run [states]', async () => {
    const id = await newList();
    expect(
      (await f.t.api().post(`/people/v2/lists/${id}/run`).set('Authorization', f.auth.admin)).body.data.attributes
        .status,
    ).toBe('complete');
    expect((await patch(id, list({ name: 'Only the name' }))).body.data.attributes.status).toBe('complete');
    expect((await patch(id, list({ subset: 'all' }))).body.data.attributes.status).toBe('complete');
    expect((await patch(id, list({ include_inactive: true }))).body.data.attributes.status).toBe('stale');
    expect(
      (await f.t.api().get('/people/v2/lists?filter=needs_attention').set('Authorization', f.auth.admin)).body.data.map(
        (d: { id: string }) => d.id,
      ),
    ).toContain(id);
    expect(
      (await f.t.api().post(`/people/v2/lists/${id}/run`).set('Authorization', f.auth.admin)).body.data.attributes
        .status,
    ).toBe('complete');
  });

  it('answers 422 invalid_enum_value for a value outside the allowed ones [invalid_enum_value]', async () => {
    const id = await newList();
    const res = await patch(id, list({ auto_refresh_frequency: 'yearly' }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      errors: [
        {
          status: '422',
          code: 'invalid_enum_value',
          title: 'Invalid Enum Value',
          detail: 'auto_refresh_frequency must be one of: hourly, daily, weekly, monthly',
          source: { parameter: 'auto_refresh_frequency' },
        },
      ],
    });
    for (const [attribute, value] of [
      ['returns', 'households'],
      ['subset', 'some'],
    ]) {
      expect((await patch(id, list({ [attribute!]: value }))).body.errors[0]).toMatchObject({
        code: 'invalid_enum_value',
        source: { parameter: attribute },
      });
    }
  });

  it('applies the write error rows and leaves the list unchanged [errors]', async () => {
    const id = await newList();
    const before = await row(id);
    const bad = await f.t
      .api()
      .patch(`/people/v2/lists/${id}`)
      .set('Authorization', f.auth.admin)
      .set('Content-Type', 'application/json')
      .send('{');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ code: 'invalid_json' });
    expect((await patch(id, { data: { type: 'Note', attributes: {} } })).body.errors[0]).toMatchObject({
      status: '400',
      code: 'invalid_resource_payload',
      detail: 'data.type must be List',
    });
    const unknown = await patch(id, list({ colour: 'red' }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatchObject({ title: 'Invalid Version', source: { parameter: 'colour' } });
    for (const attribute of ['total_people', 'status', 'refreshed_at', 'invalid', 'name_or_description']) {
      const res = await patch(id, list({ [attribute]: 1 }));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        errors: [
          {
            status: '422',
            title: 'Forbidden Attribute',
            detail: `${attribute} cannot be assigned`,
            source: { parameter: attribute },
          },
        ],
      });
    }
    const kind = await patch(id, list({ auto_refresh: 'yes' }));
    expect(kind.body.errors[0]).toMatchObject({
      status: '422',
      code: 'invalid_payload',
      detail: 'auto_refresh must be true or false',
    });
    const foreign = await patch(
      id,
      list({}, { relationships: { campus: { data: { type: 'Campus', id: otherCampus } } } }),
    );
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0]).toMatchObject({
      code: 'attribute_resource_not_found',
      source: { parameter: 'campus' },
    });
    expect(await row(id)).toEqual(before);
  });

  it.each(['null', '[]', '1', '"x"', 'true'])(
    'answers 400 invalid_resource_payload for the JSON body %s [invalid_resource_payload]',
    async (body) => {
      const id = await newList();
      const before = await row(id);
      const res = await f.t
        .api()
        .patch(`/people/v2/lists/${id}`)
        .set('Authorization', f.auth.admin)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          {
            status: '400',
            code: 'invalid_resource_payload',
            title: 'Bad Request',
            detail: 'The body must be {"data": {"type": "List", "attributes": {…}}}',
          },
        ],
      });
      expect(await row(id)).toEqual(before);
    },
  );

  it('lets the creator and edit shares patch, refuses other editors and viewers [permissions]', async () => {
    const id = await newList();
    const refused = await patch(id, list({ name: 'x' }), f.auth.editor);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0].meta).toEqual({
      description: 'Managing this list needs the people manager role, being its creator, or an edit share of it',
    });
    await f.db.query("INSERT INTO list_shares (list_id, person_id, permission) VALUES ($1, $2, 'edit')", [
      id,
      f.editorId,
    ]);
    expect((await patch(id, list({ name: 'Shared edit' }), f.auth.editor)).status).toBe(200);
    expect((await patch(await newList(f.editorId), list({ name: 'Mine' }), f.auth.editor)).status).toBe(200);
    const viewer = await patch(id, list({ name: 'x' }), f.auth.viewer);
    expect(viewer.status).toBe(403);
    expect(viewer.body).toEqual(FORBIDDEN_EDITOR);
    expect((await patch(id, list({ name: 'x' }), f.auth.none)).status).toBe(403);
  });

  it('answers 404 for another organization list [tenant isolation]', async () => {
    const other = await one('SELECT id::text FROM lists WHERE organization_id = $1 LIMIT 1', [f.otherId]);
    const res = await patch(other, list({ name: 'Taken over' }));
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect((await sqlRows<{ name: string }>(f.db, 'SELECT name FROM lists WHERE id = $1', [other]))[0]!.name).not.toBe(
      'Taken over',
    );
  });
});
