import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import { createPeopleFixture, FORBIDDEN_EDITOR, NOT_FOUND, sqlRows, type PeopleFixture } from './people-fixture.ts';

let f: PeopleFixture;
let person: string;
let otherPerson: string;
let category: string;
let otherCategory: string;

beforeAll(async () => {
  f = await createPeopleFixture();
  person = (
    await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM people WHERE organization_id = $1 ORDER BY people.id OFFSET 10 LIMIT 1',
      [f.demoId],
    )
  )[0]!.id;
  otherPerson = (
    await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM people WHERE organization_id = $1 ORDER BY people.id LIMIT 1',
      [f.otherId],
    )
  )[0]!.id;
  category = (
    await sqlRows<{ id: string }>(
      f.db,
      "SELECT id::text FROM note_categories WHERE organization_id = $1 AND name = 'Pastoral Care'",
      [f.demoId],
    )
  )[0]!.id;
  otherCategory = (
    await sqlRows<{ id: string }>(
      f.db,
      "SELECT id::text FROM note_categories WHERE organization_id = $1 AND name = 'Pastoral Care'",
      [f.otherId],
    )
  )[0]!.id;
});
afterAll(() => f.t.close());

const post = (personId: string, body: unknown, auth = f.auth.editor) =>
  f.t
    .api()
    .post(`/people/v2/people/${personId}/notes`)
    .set('Authorization', auth)
    .send(body as object);
const patch = (id: string, body: unknown, auth = f.auth.editor) =>
  f.t
    .api()
    .patch(`/people/v2/notes/${id}`)
    .set('Authorization', auth)
    .send(body as object);
const note = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { type: 'Note', attributes, ...extra },
});
const author = (id: string) => ({ data: { type: 'Person', id } });
const noteCount = async () => (await sqlRows<{ n: number }>(f.db, 'SELECT count(*)::int AS n FROM notes'))[0]!.n;

async function noteRow(id: string) {
  const [row] = await sqlRows<Record<string, unknown>>(
    f.db,
    'SELECT person_id::text, created_by_id::text, note_category_id::text, note, created_at, updated_at, display_date FROM notes WHERE id = $1',
    [id],
  );
  return row;
}

describe('POST /people/v2/people/{person_id}/notes', () => {
  it('creates the note for the path person by the requester and answers 201 with a Location', async () => {
    const res = await post(person, note({ note: 'Brought a meal.', note_category_id: category }));
    expect(res.status).toBe(201);
    const id = res.body.data.id as string;
    expect(res.headers.location).toBe(`${TEST_BASE_URL}/people/v2/notes/${id}`);
    const row = (await noteRow(id))!;
    expect(row).toMatchObject({
      person_id: person,
      created_by_id: f.editorId,
      note_category_id: category,
      note: 'Brought a meal.',
    });
    expect(new Date(String(row.display_date)).getTime()).toBe(new Date(String(row.created_at)).getTime());
    expect(res.body.data.attributes).toMatchObject({
      note: 'Brought a meal.',
      person_id: person,
      created_by_id: f.editorId,
      note_category_id: category,
      organization_id: f.demoId,
    });
    expect(res.body.meta).toEqual({ parent: { id: f.demoId, type: 'Organization' } });
  });

  it('takes created_at, updated_at and display_date, and defaults display_date to created_at [dates]', async () => {
    const res = await post(
      person,
      note({ note: 'Dated.', created_at: '2025-03-04T05:06:07Z', updated_at: '2025-03-05T00:00:00Z' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.attributes).toMatchObject({
      created_at: '2025-03-04T05:06:07Z',
      updated_at: '2025-03-05T00:00:00Z',
      display_date: '2025-03-04T05:06:07Z',
      note_category_id: null,
    });
    const shown = await post(
      person,
      note({ note: 'Shown.', created_at: '2025-03-04T05:06:07Z', display_date: '2025-01-01' }),
    );
    expect(shown.body.data.attributes).toMatchObject({ display_date: '2025-01-01T00:00:00Z' });
  });

  it('lets a people manager name another author through the created_by relationship [created_by, manager]', async () => {
    const res = await post(
      person,
      note({ note: 'Imported.' }, { relationships: { created_by: author(f.editorId) } }),
      f.auth.admin,
    );
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.created_by_id).toBe(f.editorId);
    expect(await noteRow(res.body.data.id)).toMatchObject({ created_by_id: f.editorId });
  });

  it('lets an editor name themselves as the author [created_by, editor, self]', async () => {
    const res = await post(person, note({ note: 'Mine.' }, { relationships: { created_by: author(f.editorId) } }));
    expect(res.status).toBe(201);
    expect(await noteRow(res.body.data.id)).toMatchObject({ created_by_id: f.editorId });
  });

  it('answers 422 Forbidden Attribute when an editor names someone else as the author, storing nothing [created_by, editor]', async () => {
    const before = await noteCount();
    const res = await post(
      person,
      note({ note: 'In your name.' }, { relationships: { created_by: author(f.adminId) } }),
    );
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      errors: [
        {
          status: '422',
          title: 'Forbidden Attribute',
          detail: 'created_by can name only the requester unless the requester is a people manager',
          source: { parameter: 'created_by' },
        },
      ],
    });
    expect(await noteCount()).toBe(before);
  });

  it('accepts a person relationship that names the path person [relationships.person]', async () => {
    const res = await post(
      person,
      note({ note: 'Same person.' }, { relationships: { person: { data: { type: 'Person', id: person } } } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.attributes.person_id).toBe(person);
    expect(res.body.data.relationships.person.data).toEqual({ type: 'Person', id: person });
    expect(await noteRow(res.body.data.id)).toMatchObject({
      person_id: person,
      created_by_id: f.editorId,
      note: 'Same person.',
    });
    const numeric = await post(
      person,
      note({ note: 'Numeric id.' }, { relationships: { person: { data: { type: 'Person', id: Number(person) } } } }),
    );
    expect(numeric.status).toBe(201);
    expect(numeric.body.data.attributes.person_id).toBe(person);
  });

  it('answers 422 Validation Error when the person relationship names anyone but the path person, storing nothing [relationships.person, mismatch]', async () => {
    const before = await noteCount();
    // Another person of this organization, one of another organization and an unknown id get the same answer.
    for (const id of [f.memberId, otherPerson, '999999999']) {
      const res = await post(
        person,
        note({ note: 'Elsewhere.' }, { relationships: { person: { data: { type: 'Person', id } } } }),
      );
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        errors: [
          {
            status: '422',
            title: 'Validation Error',
            detail: `person must be the person of the path (${person}); to move a note, PATCH /people/v2/notes/{id}`,
            source: { parameter: 'person' },
            meta: { resource: 'Note', associated_resources: [] },
          },
        ],
      });
    }
    expect(await noteCount()).toBe(before);
  });

  it('answers 400 invalid_json for a malformed body [invalid_json]', async () => {
    const res = await f.t
      .api()
      .post(`/people/v2/people/${person}/notes`)
      .set('Authorization', f.auth.editor)
      .set('Content-Type', 'application/json')
      .send('{"data": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        { status: '400', code: 'invalid_json', title: 'Bad Request', detail: 'Your request could not be processed' },
      ],
    });
  });

  it.each(['null', '[]', '1', '"x"', 'true'])(
    'answers 400 invalid_resource_payload for the JSON body %s, which is not an object [invalid_resource_payload]',
    async (body) => {
      const before = await noteCount();
      const res = await f.t
        .api()
        .post(`/people/v2/people/${person}/notes`)
        .set('Authorization', f.auth.editor)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          {
            status: '400',
            code: 'invalid_resource_payload',
            title: 'Bad Request',
            detail: 'The body must be {"data": {"type": "Note", "attributes": {…}}}',
          },
        ],
      });
      expect(await noteCount()).toBe(before);
    },
  );

  it('answers 400 invalid_resource_payload without data or with another type [invalid_resource_payload]', async () => {
    const missing = await post(person, { note: 'x' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'invalid_resource_payload',
          title: 'Bad Request',
          detail: 'The body must be {"data": {"type": "Note", "attributes": {…}}}',
        },
      ],
    });
    const wrongType = await post(person, { data: { type: 'List', attributes: { note: 'x' } } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({
      errors: [
        { status: '400', code: 'invalid_resource_payload', title: 'Bad Request', detail: 'data.type must be Note' },
      ],
    });
  });

  it('answers 400 Invalid Version for an unknown attribute [unknown attribute]', async () => {
    const res = await post(person, note({ note: 'x', colour: 'blue' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unknown_attribute',
          title: 'Invalid Version',
          detail:
            'colour is not an attribute of Note; assignable: note, created_at, updated_at, display_date, note_category_id',
          source: { parameter: 'colour' },
        },
      ],
    });
  });

  it('answers 422 Forbidden Attribute for a known attribute that cannot be assigned [forbidden attribute]', async () => {
    for (const attribute of ['organization_id', 'person_id', 'created_by_id', 'id']) {
      const res = await post(person, note({ note: 'x', [attribute]: '1' }));
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
  });

  it('answers 422 Validation Error for an empty or missing note [validation]', async () => {
    for (const attributes of [{ note: '' }, { note: '   ' }, {}]) {
      const res = await post(person, note(attributes));
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        errors: [
          {
            status: '422',
            title: 'Validation Error',
            detail: "note can't be blank",
            source: { parameter: 'note' },
            meta: { resource: 'Note', associated_resources: [] },
          },
        ],
      });
    }
  });

  it('answers 422 attribute_resource_not_found for a category or author of another organization [attribute_resource_not_found]', async () => {
    const res = await post(person, note({ note: 'x', note_category_id: otherCategory }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      errors: [
        {
          status: '422',
          code: 'attribute_resource_not_found',
          title: 'Attribute Resource Not Found',
          detail: 'note_category_id does not name a record of this organization',
          source: { parameter: 'note_category_id' },
        },
      ],
    });
    const foreignAuthor = await post(
      person,
      note({ note: 'x' }, { relationships: { created_by: author(otherPerson) } }),
      f.auth.admin,
    );
    expect(foreignAuthor.status).toBe(422);
    expect(foreignAuthor.body.errors[0]).toMatchObject({
      code: 'attribute_resource_not_found',
      source: { parameter: 'created_by' },
    });
  });

  it('answers 422 invalid_payload for an unparsable date or a value of the wrong kind [invalid_payload]', async () => {
    const res = await post(person, note({ note: 'x', display_date: 'next tuesday' }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      errors: [
        {
          status: '422',
          code: 'invalid_payload',
          title: 'Invalid Payload',
          detail: 'display_date must be an ISO 8601 date-time',
          source: { parameter: 'display_date' },
        },
      ],
    });
    const month13 = await post(person, note({ note: 'x', created_at: '2025-13-01T00:00:00Z' }));
    expect(month13.status).toBe(422);
    const number = await post(person, note({ note: 42 }));
    expect(number.status).toBe(422);
    expect(number.body.errors[0]).toMatchObject({ code: 'invalid_payload', detail: 'note must be a string' });
    const nul = await post(person, note({ note: 'a\u0000b' }));
    expect(nul.status).toBe(422);
    expect(nul.body.errors[0]).toMatchObject({
      code: 'invalid_payload',
      detail: 'note must not contain NUL characters',
    });
    const year0 = await post(person, note({ note: 'x', created_at: '0000-01-01T00:00:00Z' }));
    expect(year0.body.errors[0]).toMatchObject({ code: 'invalid_payload', source: { parameter: 'created_at' } });
  });

  it('answers 404 for a person of another organization and leaves nothing behind [tenant isolation]', async () => {
    const before = await sqlRows<{ n: number }>(f.db, 'SELECT count(*)::int AS n FROM notes');
    const res = await post(otherPerson, note({ note: 'x' }));
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
    expect(await sqlRows(f.db, 'SELECT count(*)::int AS n FROM notes')).toEqual(before);
  });

  it('refuses a people viewer and a person without a people role, and lets a manager write [permissions]', async () => {
    for (const auth of [f.auth.viewer, f.auth.none]) {
      const res = await post(person, note({ note: 'x' }), auth);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(FORBIDDEN_EDITOR);
    }
    expect((await post(person, note({ note: 'By a manager.' }), f.auth.admin)).status).toBe(201);
  });
});

describe('PATCH /people/v2/notes/{id}', () => {
  it('updates the given attributes, stamps updated_at and answers 200', async () => {
    const created = await post(
      person,
      note({ note: 'Before.', created_at: '2025-01-01T00:00:00Z', updated_at: '2025-01-01T00:00:00Z' }),
    );
    const id = created.body.data.id as string;
    const res = await patch(
      id,
      note({ note: 'After.', note_category_id: category, display_date: '2025-06-01T10:00:00Z' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes).toMatchObject({
      note: 'After.',
      note_category_id: category,
      display_date: '2025-06-01T10:00:00Z',
      created_at: '2025-01-01T00:00:00Z',
    });
    expect(res.body.data.attributes.updated_at).not.toBe('2025-01-01T00:00:00Z');
    expect(await noteRow(id)).toMatchObject({ note: 'After.', note_category_id: category });
    const cleared = await patch(id, note({ note_category_id: null, updated_at: '2025-07-01T00:00:00Z' }));
    expect(cleared.body.data.attributes).toMatchObject({
      note_category_id: null,
      updated_at: '2025-07-01T00:00:00Z',
      note: 'After.',
    });
  });

  it('moves the note to another person of the organization through the person relationship [relationships]', async () => {
    const created = await post(person, note({ note: 'Move me.' }));
    const res = await patch(
      created.body.data.id,
      note({}, { relationships: { person: { data: { type: 'Person', id: f.memberId } } } }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.attributes.person_id).toBe(f.memberId);
    const away = await patch(
      created.body.data.id,
      note({}, { relationships: { person: { data: { type: 'Person', id: otherPerson } } } }),
    );
    expect(away.status).toBe(422);
    expect(away.body.errors[0]).toMatchObject({
      code: 'attribute_resource_not_found',
      source: { parameter: 'person' },
    });
  });

  it('lets a people manager change the author, and an editor only keep it [created_by]', async () => {
    const id = (await post(person, note({ note: 'Whose?' }))).body.data.id as string;
    const kept = await patch(id, note({}, { relationships: { created_by: author(f.editorId) } }));
    expect(kept.status).toBe(200);
    expect(kept.body.data.attributes.created_by_id).toBe(f.editorId);
    const refused = await patch(id, note({ note: 'Not mine.' }, { relationships: { created_by: author(f.memberId) } }));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      errors: [
        {
          status: '422',
          title: 'Forbidden Attribute',
          detail: 'created_by can be changed only by a people manager',
          source: { parameter: 'created_by' },
        },
      ],
    });
    expect(await noteRow(id)).toMatchObject({ created_by_id: f.editorId, note: 'Whose?' });
    const changed = await patch(id, note({}, { relationships: { created_by: author(f.memberId) } }), f.auth.admin);
    expect(changed.status).toBe(200);
    expect(await noteRow(id)).toMatchObject({ created_by_id: f.memberId });
    // Now the editor is not the author: naming themselves would take the note over.
    const takeover = await patch(id, note({}, { relationships: { created_by: author(f.editorId) } }));
    expect(takeover.status).toBe(422);
    expect(await noteRow(id)).toMatchObject({ created_by_id: f.memberId });
  });

  it.each(['null', '[]', '1', '"x"', 'true'])(
    'answers 400 invalid_resource_payload for the JSON body %s [invalid_resource_payload]',
    async (body) => {
      const id = (await post(person, note({ note: 'Body.' }))).body.data.id as string;
      const res = await f.t
        .api()
        .patch(`/people/v2/notes/${id}`)
        .set('Authorization', f.auth.editor)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        errors: [
          {
            status: '400',
            code: 'invalid_resource_payload',
            title: 'Bad Request',
            detail: 'The body must be {"data": {"type": "Note", "attributes": {…}}}',
          },
        ],
      });
      expect(await noteRow(id)).toMatchObject({ note: 'Body.' });
    },
  );

  it('applies the write error rows [errors]', async () => {
    const id = (await post(person, note({ note: 'Errors.' }))).body.data.id as string;
    expect((await patch(id, note({ note: '' }))).body.errors[0]).toMatchObject({
      title: 'Validation Error',
      source: { parameter: 'note' },
    });
    expect((await patch(id, note({ organization_id: '1' }))).body.errors[0]).toMatchObject({
      status: '422',
      title: 'Forbidden Attribute',
    });
    expect((await patch(id, note({ mood: 'x' }))).body.errors[0]).toMatchObject({
      status: '400',
      title: 'Invalid Version',
    });
    expect((await patch(id, note({ updated_at: 'soon' }))).body.errors[0]).toMatchObject({
      status: '422',
      code: 'invalid_payload',
    });
    expect((await patch(id, note({ note_category_id: otherCategory }))).body.errors[0]).toMatchObject({
      status: '422',
      code: 'attribute_resource_not_found',
    });
    expect((await patch(id, { data: { type: 'Person' } })).body.errors[0]).toMatchObject({
      status: '400',
      code: 'invalid_resource_payload',
    });
    expect(await noteRow(id)).toMatchObject({ note: 'Errors.', note_category_id: null });
  });

  it('answers 404 for another organization note and 403 for a viewer [tenant isolation, permissions]', async () => {
    const [other] = await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM notes WHERE organization_id = $1 LIMIT 1',
      [f.otherId],
    );
    expect((await patch(other!.id, note({ note: 'x' }))).status).toBe(404);
    const id = (await post(person, note({ note: 'Mine.' }))).body.data.id as string;
    const res = await patch(id, note({ note: 'x' }), f.auth.viewer);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN_EDITOR);
  });
});

describe('DELETE /people/v2/notes/{id}', () => {
  it('deletes the note and answers 204 with no body, then 404', async () => {
    const id = (await post(person, note({ note: 'Delete me.' }))).body.data.id as string;
    const res = await f.t.api().delete(`/people/v2/notes/${id}`).set('Authorization', f.auth.editor);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await noteRow(id)).toBeUndefined();
    expect((await f.t.api().delete(`/people/v2/notes/${id}`).set('Authorization', f.auth.editor)).status).toBe(404);
  });

  it('answers 404 for another organization note and 403 for a viewer [tenant isolation, permissions]', async () => {
    const [other] = await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM notes WHERE organization_id = $1 LIMIT 1',
      [f.otherId],
    );
    expect((await f.t.api().delete(`/people/v2/notes/${other!.id}`).set('Authorization', f.auth.editor)).status).toBe(
      404,
    );
    expect(await sqlRows(f.db, 'SELECT 1 FROM notes WHERE id = $1', [other!.id])).toHaveLength(1);
    const id = (await post(person, note({ note: 'Keep me.' }))).body.data.id as string;
    const res = await f.t.api().delete(`/people/v2/notes/${id}`).set('Authorization', f.auth.viewer);
    expect(res.status).toBe(403);
    expect(await noteRow(id)).toBeDefined();
  });
});
