import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL } from '../../support/constants.ts';
import {
  createPeopleFixture,
  FORBIDDEN_VIEWER,
  NOT_FOUND,
  sortLikeApi,
  sqlRows,
  type PeopleFixture,
} from './people-fixture.ts';

interface NoteRow {
  id: string;
  person_id: string;
  created_by_id: string | null;
  note_category_id: string | null;
  note: string;
  created_at: string;
  display_date: string;
  updated_at: string;
}

let f: PeopleFixture;
let notes: NoteRow[];
let otherNote: NoteRow;

const iso = (v: unknown) => new Date(String(v)).toISOString().replace(/\.\d{3}Z$/, 'Z');
const NOTE_SQL = `SELECT id::text, person_id::text, created_by_id::text, note_category_id::text, note, created_at, display_date, updated_at FROM notes WHERE organization_id = $1 ORDER BY notes.id`;

beforeAll(async () => {
  f = await createPeopleFixture();
  notes = (await sqlRows<NoteRow>(f.db, NOTE_SQL, [f.demoId])).map((n) => ({
    ...n,
    created_at: iso(n.created_at),
    display_date: iso(n.display_date),
    updated_at: iso(n.updated_at),
  }));
  otherNote = (await sqlRows<NoteRow>(f.db, NOTE_SQL, [f.otherId]))[0]!;
});
afterAll(() => f.t.close());

const get = (path: string, auth = f.auth.admin) => f.t.api().get(path).set('Authorization', auth);
const ids = (body: { data: { id: string }[] }) => body.data.map((d) => d.id);

function expectedNote(n: NoteRow) {
  const self = `${TEST_BASE_URL}/people/v2/notes/${n.id}`;
  return {
    id: n.id,
    type: 'Note',
    attributes: {
      created_at: n.created_at,
      created_by_id: n.created_by_id,
      display_date: n.display_date,
      note: n.note,
      note_category_id: n.note_category_id,
      organization_id: f.demoId,
      person_id: n.person_id,
      updated_at: n.updated_at,
    },
    relationships: {
      note_category: {
        data: n.note_category_id ? { type: 'NoteCategory', id: n.note_category_id } : null,
        links: { related: `${self}/category` },
      },
      organization: { data: { type: 'Organization', id: f.demoId } },
      person: { data: { type: 'Person', id: n.person_id }, links: { related: `${self}/person` } },
      created_by: {
        data: n.created_by_id ? { type: 'Person', id: n.created_by_id } : null,
        links: { related: `${self}/created_by` },
      },
    },
    links: { self },
  };
}

describe('GET /people/v2/notes', () => {
  it('returns the organization notes in id order with the collection envelope', async () => {
    const res = await get('/people/v2/notes?per_page=2');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: notes.slice(0, 2).map(expectedNote),
      included: [],
      meta: {
        total_count: notes.length,
        count: 2,
        next: { offset: 2 },
        parent: { id: f.demoId, type: 'Organization' },
      },
      links: {
        self: `${TEST_BASE_URL}/people/v2/notes?per_page=2`,
        next: `${TEST_BASE_URL}/people/v2/notes?per_page=2&offset=2`,
      },
    });
  });

  it.each(['created_at', 'display_date', 'id', 'note', 'note_category_id', 'updated_at'] as const)(
    'orders by %s both ways [order]',
    async (order) => {
      const key = (n: NoteRow): string | number | null =>
        order === 'id' || order === 'note_category_id' ? (n[order] === null ? null : Number(n[order])) : n[order];
      for (const descending of [false, true]) {
        const res = await get(`/people/v2/notes?per_page=100&order=${descending ? '-' : ''}${order}`);
        expect(res.status).toBe(200);
        expect(ids(res.body)).toEqual(
          sortLikeApi(notes, key, descending)
            .slice(0, 100)
            .map((n) => n.id),
        );
      }
    },
  );

  it('filters by where[created_at], where[updated_at], where[note], where[note_category_id] [where]', async () => {
    const sample = notes[7]!;
    const cases: [string, (n: NoteRow) => boolean][] = [
      [`where[created_at]=${sample.created_at}`, (n) => n.created_at === sample.created_at],
      [`where[updated_at]=${sample.updated_at}`, (n) => n.updated_at === sample.updated_at],
      [`where[note]=${encodeURIComponent(sample.note)}`, (n) => n.note === sample.note],
      [`where[note_category_id]=${sample.note_category_id}`, (n) => n.note_category_id === sample.note_category_id],
    ];
    for (const [query, keep] of cases) {
      const expected = notes.filter(keep).map((n) => n.id);
      expect(expected.length).toBeGreaterThan(0);
      const res = await get(`/people/v2/notes?per_page=100&${query}`);
      expect(res.status).toBe(200);
      expect(res.body.meta.total_count).toBe(expected.length);
      expect(ids(res.body)).toEqual(expected.slice(0, 100));
    }
  });

  it('includes category, created_by and person [include]', async () => {
    const n = notes[0]!;
    const res = await get(`/people/v2/notes?per_page=1&include=category,created_by,person`);
    expect(res.status).toBe(200);
    const [category] = await sqlRows<{ name: string; created_at: string; updated_at: string }>(
      f.db,
      'SELECT name, created_at, updated_at FROM note_categories WHERE id = $1',
      [n.note_category_id],
    );
    const person = async (id: string) => {
      const [p] = await sqlRows<{ first_name: string; last_name: string }>(
        f.db,
        'SELECT first_name, last_name FROM people WHERE id = $1',
        [id],
      );
      return {
        id,
        type: 'Person',
        attributes: { first_name: p!.first_name, last_name: p!.last_name },
        relationships: { organization: { data: { type: 'Organization', id: f.demoId } } },
        links: { self: `${TEST_BASE_URL}/people/v2/people/${id}` },
      };
    };
    expect(res.body.included).toEqual([
      {
        id: n.note_category_id,
        type: 'NoteCategory',
        attributes: {
          name: category!.name,
          created_at: iso(category!.created_at),
          updated_at: iso(category!.updated_at),
        },
        links: { self: `${TEST_BASE_URL}/people/v2/note_categories/${n.note_category_id}` },
      },
      await person(n.created_by_id!),
      await person(n.person_id),
    ]);
  });

  it('limits attributes and relationships to fields[Note] [fields]', async () => {
    const res = await get('/people/v2/notes?per_page=1&fields[Note]=note,person');
    expect(res.status).toBe(200);
    expect(res.body.data[0].attributes).toEqual({ note: notes[0]!.note });
    expect(Object.keys(res.body.data[0].relationships)).toEqual(['person']);
  });

  it('answers 400 Invalid Version for an unknown where attribute or order value [unknown attribute]', async () => {
    const where = await get('/people/v2/notes?where[person_id]=1');
    expect(where.status).toBe(400);
    expect(where.body).toEqual({
      errors: [
        {
          status: '400',
          code: 'unknown_attribute',
          title: 'Invalid Version',
          detail:
            'where[person_id] is not a query attribute of Note; allowed: where[created_at], where[note], where[note_category_id], where[updated_at]',
          source: { parameter: 'where[person_id]' },
        },
      ],
    });
    const order = await get('/people/v2/notes?order=person_id');
    expect(order.status).toBe(400);
    expect(order.body.errors[0]).toMatchObject({
      status: '400',
      code: 'unknown_attribute',
      title: 'Invalid Version',
      source: { parameter: 'order' },
    });
    const include = await get('/people/v2/notes?include=organization');
    expect(include.status).toBe(400);
    expect(include.body.errors[0]).toMatchObject({ code: 'unknown_attribute', source: { parameter: 'include' } });
  });

  it('lets a people viewer read and refuses a person without a people role [permissions]', async () => {
    expect((await get('/people/v2/notes?per_page=1', f.auth.viewer)).status).toBe(200);
    const res = await get('/people/v2/notes', f.auth.none);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(FORBIDDEN_VIEWER);
  });

  it('shows another organization only its own notes [tenant isolation]', async () => {
    const res = await get('/people/v2/notes?per_page=100', f.auth.other);
    expect(res.status).toBe(200);
    const expected = await sqlRows<{ id: string }>(
      f.db,
      'SELECT id::text FROM notes WHERE organization_id = $1 ORDER BY notes.id',
      [f.otherId],
    );
    expect(ids(res.body)).toEqual(expected.map((r) => r.id));
  });
});

describe('GET /people/v2/notes/{id}', () => {
  it('returns the note with meta.parent', async () => {
    const n = notes[3]!;
    const res = await get(`/people/v2/notes/${n.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: expectedNote(n),
      included: [],
      meta: { parent: { id: f.demoId, type: 'Organization' } },
    });
  });

  it('includes the category [include=category]', async () => {
    const n = notes[3]!;
    const res = await get(`/people/v2/notes/${n.id}?include=category`);
    expect(res.body.included.map((r: { type: string; id: string }) => `${r.type}:${r.id}`)).toEqual([
      `NoteCategory:${n.note_category_id}`,
    ]);
  });

  it('answers 404 for another organization note, an unknown id and a non-numeric id [tenant isolation]', async () => {
    for (const id of [otherNote.id, '999999', 'abc']) {
      const res = await get(`/people/v2/notes/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    }
  });
});

describe('GET /people/v2/notes/{note_id}/category|created_by|person', () => {
  it('returns the NoteCategory of the note [category]', async () => {
    const n = notes[5]!;
    const res = await get(`/people/v2/notes/${n.id}/category`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: n.note_category_id, type: 'NoteCategory' });
    expect(res.body.meta).toEqual({ parent: { id: n.id, type: 'Note' } });
  });

  it('returns the author and the person as Person [created_by, person]', async () => {
    const n = notes[5]!;
    const author = await get(`/people/v2/notes/${n.id}/created_by`);
    expect(author.status).toBe(200);
    expect(author.body.data).toMatchObject({ id: n.created_by_id, type: 'Person' });
    const person = await get(`/people/v2/notes/${n.id}/person?include=organization`);
    expect(person.status).toBe(200);
    expect(person.body.data).toMatchObject({ id: n.person_id, type: 'Person' });
    expect(person.body.included).toHaveLength(1);
    expect(person.body.included[0]).toMatchObject({ id: f.demoId, type: 'Organization' });
  });

  it('answers 404 for another organization note [tenant isolation]', async () => {
    for (const association of ['category', 'created_by', 'person']) {
      expect((await get(`/people/v2/notes/${otherNote.id}/${association}`)).status).toBe(404);
    }
  });

  it('answers 404 for a note without a category [category]', async () => {
    await f.db.query('UPDATE notes SET note_category_id = NULL WHERE id = $1', [notes[9]!.id]);
    expect((await get(`/people/v2/notes/${notes[9]!.id}/category`)).status).toBe(404);
    await f.db.query('UPDATE notes SET note_category_id = $2 WHERE id = $1', [
      notes[9]!.id,
      notes[9]!.note_category_id,
    ]);
  });
});

describe('GET /people/v2/people/{person_id}/notes', () => {
  it('returns the notes of the person with a Person parent', async () => {
    const personId = notes[0]!.person_id;
    const expected = notes.filter((n) => n.person_id === personId);
    const res = await get(`/people/v2/people/${personId}/notes?order=-id`);
    expect(res.status).toBe(200);
    expect(ids(res.body)).toEqual(expected.map((n) => n.id).reverse());
    expect(res.body.meta).toMatchObject({ total_count: expected.length, parent: { id: personId, type: 'Person' } });
  });

  it('answers 404 for a person of another organization [tenant isolation]', async () => {
    const res = await get(`/people/v2/people/${otherNote.person_id}/notes`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(NOT_FOUND);
  });
});
