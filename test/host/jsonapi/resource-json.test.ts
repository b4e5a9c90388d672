import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collectionDocument, collectionDocumentJson, type CollectionInput } from '#host/jsonapi/document.ts';
import { parseCollectionQuery } from '#host/jsonapi/query.ts';
import { resourceJson } from '#host/jsonapi/resource-json.ts';
import { renderResource, type ResourceDefinition, type Row } from '#host/jsonapi/resource.ts';
import { noteResource } from '#host/people/notes/note-resource.ts';

/** Every kind of attribute, a computed one, an id reader, and relationships with and without links. */
const thing: ResourceDefinition = {
  type: 'Thing',
  attributes: {
    name: { type: 'string', nullable: true },
    count: { type: 'integer', nullable: true },
    active: { type: 'boolean' },
    seen_at: { type: 'date_time', nullable: true },
    owner_id: { type: 'primary_key', nullable: true },
    tags: { type: 'array', items: 'string' },
    extra: { type: 'object', nullable: true },
    shout: { type: 'string', read: (row) => String((row.name as string | null) ?? '').toUpperCase() },
  },
  fields: ['name', 'count', 'active', 'seen_at', 'owner_id', 'tags', 'extra', 'shout', 'owner', 'parent'],
  relationships: {
    owner: {
      type: 'Person',
      id: (row) => row.owner_id as string | null,
      related: (row, base) => `${base}/things/${String(row.key)}/owner`,
    },
    parent: { type: 'Thing', id: (row) => row.parent_id as number | null },
  },
  links: (row, base) => ({ self: `${base}/things/${String(row.key)}`, html: `${base}/t/${String(row.key)}` }),
  id: (row) => row.key as number,
};

const text = fc.string({ unit: 'binary', maxLength: 12 });
const row = fc.record({
  key: fc.integer({ min: 1, max: 1e9 }),
  name: fc.option(text),
  count: fc.option(fc.oneof(fc.integer(), fc.constantFrom('12', '007'))),
  active: fc.boolean(),
  seen_at: fc.option(
    fc.oneof(
      fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
      fc.constant('2026-11-21T20:01:00Z'),
    ),
  ),
  owner_id: fc.option(fc.oneof(fc.integer({ min: 1 }), fc.constant('42'))),
  parent_id: fc.option(fc.integer({ min: 1 })),
  tags: fc.array(text, { maxLength: 3 }),
  extra: fc.option(fc.dictionary(text, fc.oneof(text, fc.integer(), fc.boolean()), { maxKeys: 3 })),
});
const fieldSets = fc.option(fc.subarray([...thing.fields]).map((names) => new Set<string>(names)));

describe('resourceJson()', () => {
  it('writes exactly JSON.stringify(renderResource(…)) [any row, any fields]', () => {
    fc.assert(
      fc.property(row, fieldSets, (r, fields) => {
        const expected = JSON.stringify(renderResource(thing, r, 'https://host.test', fields ?? undefined));
        expect(resourceJson(thing, r as Row, 'https://host.test', fields ?? undefined)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe('collectionDocumentJson()', () => {
  it('writes exactly JSON.stringify(collectionDocument(…)) [pages, fields, included]', () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 5 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 8 }),
        fc.boolean(),
        (rows, extra, offset, limitFields) => {
          const search = `per_page=5&offset=${offset}${limitFields ? '&fields[Thing]=name,owner' : ''}&include=parent`;
          const input: CollectionInput = {
            definition: thing,
            rows: rows,
            total: offset + rows.length + extra,
            parent: { id: '1', type: 'Organization' },
            query: parseCollectionQuery(new URLSearchParams(search), { ...thing, includes: ['parent'] }),
            baseUrl: 'https://host.test',
            requestUrl: `/things?${search}`,
            included: [{ definition: thing, rows: rows.slice(0, 2) }],
          };
          expect(collectionDocumentJson(input)).toBe(JSON.stringify(collectionDocument(input)));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('writes a page of Notes as the object form does [Note]', () => {
    const note = (id: number): Row => ({
      id: String(id),
      organization_id: '1',
      person_id: '7',
      created_by_id: id % 2 ? null : '8',
      note_category_id: id % 3 ? '3' : null,
      note: `Note "${id}" — ünïcode \u2028 line`,
      display_date: '2026-11-21T20:01:00Z',
      created_at: new Date(Date.UTC(2026, 0, id, 10, 11, 12, 345)),
      updated_at: '2026-11-22 08:00:00+00',
    });
    const input: CollectionInput = {
      definition: noteResource,
      rows: [note(1), note(2), note(3)],
      total: 10,
      parent: { id: '1', type: 'Organization' },
      query: parseCollectionQuery(new URLSearchParams('per_page=3'), noteResource),
      baseUrl: 'https://host.test',
      requestUrl: '/people/v2/notes?per_page=3',
    };
    expect(collectionDocumentJson(input)).toBe(JSON.stringify(collectionDocument(input)));
  });
});
