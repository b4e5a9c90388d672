import { describe, expect, it } from 'vitest';
import { HostError } from '#host/errors.ts';
import { parseResourcePayload, type PayloadShape } from '#host/jsonapi/payload.ts';

const shape: PayloadShape = {
  type: 'Thing',
  assignable: {
    title: { type: 'string' },
    note: { type: 'string', nullable: true },
    size: { type: 'string', enum: ['s', 'm'] },
    count: { type: 'integer' },
    open: { type: 'boolean' },
    due: { type: 'date_time' },
    owner_id: { type: 'primary_key', nullable: true },
  },
  readOnly: ['id', 'created_at', 'parent'],
  relationships: {
    owner: { type: 'Person', attribute: 'owner_id', nullable: true },
    keeper: { type: 'Person', attribute: 'keeper_id' },
  },
};

function errorOf(body: unknown): ReturnType<HostError['toErrors']>[number] {
  try {
    parseResourcePayload(body, shape);
  } catch (error) {
    if (error instanceof HostError) return error.toErrors()[0]!;
    throw error;
  }
  throw new Error('no error');
}

describe('parseResourcePayload()', () => {
  it('reads every kind of attribute and relationship', () => {
    expect(
      parseResourcePayload(
        {
          data: {
            type: 'Thing',
            attributes: {
              title: 'T',
              note: null,
              size: 'm',
              count: 3,
              open: false,
              due: '2025-01-02T03:04:05Z',
              owner_id: 12,
            },
            relationships: { keeper: { data: { type: 'Person', id: '7' } } },
          },
        },
        shape,
      ),
    ).toEqual({
      title: 'T',
      note: null,
      size: 'm',
      count: 3,
      open: false,
      due: new Date('2025-01-02T03:04:05Z'),
      owner_id: '12',
      keeper_id: '7',
    });
    expect(parseResourcePayload({ data: { type: 'Thing' } }, shape)).toEqual({});
    expect(parseResourcePayload({ data: { type: 'Thing', relationships: { owner: { data: null } } } }, shape)).toEqual({
      owner_id: null,
    });
  });

  it.each([
    [null, 'The body must be {"data": {"type": "Thing", "attributes": {…}}}'],
    [[], 'The body must be {"data": {"type": "Thing", "attributes": {…}}}'],
    [{ data: [] }, 'The body must be {"data": {"type": "Thing", "attributes": {…}}}'],
    [{ data: { attributes: {} } }, 'data.type must be Thing'],
    [{ data: { type: 'Thing', attributes: [] } }, 'data.attributes must be an object'],
    [{ data: { type: 'Thing', relationships: 'x' } }, 'data.relationships must be an object'],
    [
      { data: { type: 'Thing', relationships: { owner: { id: '1' } } } },
      'relationships.owner must be {"data": {"type": "Person", "id": "…"}} or {"data": null}',
    ],
    [
      { data: { type: 'Thing', relationships: { owner: { data: { type: 'Campus', id: '1' } } } } },
      'relationships.owner.data must be {"type": "Person", "id": "…"}',
    ],
  ])('answers 400 invalid_resource_payload for a malformed envelope [%j]', (body, detail) => {
    expect(errorOf(body)).toEqual({ status: '400', code: 'invalid_resource_payload', title: 'Bad Request', detail });
  });

  it('answers 400 Invalid Version for an unknown attribute or relationship [unknown attribute]', () => {
    expect(errorOf({ data: { type: 'Thing', attributes: { colour: 1 } } })).toMatchObject({
      status: '400',
      title: 'Invalid Version',
      source: { parameter: 'colour' },
    });
    expect(errorOf({ data: { type: 'Thing', relationships: { friend: { data: null } } } })).toMatchObject({
      status: '400',
      title: 'Invalid Version',
      source: { parameter: 'friend' },
    });
  });

  it('answers 422 Forbidden Attribute for a read-only attribute or relationship [forbidden attribute]', () => {
    expect(errorOf({ data: { type: 'Thing', attributes: { created_at: 'x' } } })).toEqual({
      status: '422',
      title: 'Forbidden Attribute',
      detail: 'created_at cannot be assigned',
      source: { parameter: 'created_at' },
    });
    expect(errorOf({ data: { type: 'Thing', relationships: { parent: { data: null } } } })).toMatchObject({
      status: '422',
      title: 'Forbidden Attribute',
      source: { parameter: 'parent' },
    });
  });

  it.each([
    [{ title: 5 }, 'title must be a string'],
    [{ title: null }, 'title cannot be null'],
    [{ count: 1.5 }, 'count must be an integer'],
    [{ open: 'true' }, 'open must be true or false'],
    [{ due: 'tomorrow' }, 'due must be an ISO 8601 date-time'],
    [{ due: 20250101 }, 'due must be an ISO 8601 date-time'],
    [{ owner_id: 'abc' }, 'owner_id must be an id'],
    [{ owner_id: -1 }, 'owner_id must be an id'],
  ])('answers 422 invalid_payload for a value of the wrong kind [%j]', (attributes, detail) => {
    expect(errorOf({ data: { type: 'Thing', attributes } })).toMatchObject({
      status: '422',
      code: 'invalid_payload',
      title: 'Invalid Payload',
      detail,
    });
  });

  it('answers 422 invalid_enum_value outside the allowed values, and 422 for removing a required relationship', () => {
    expect(errorOf({ data: { type: 'Thing', attributes: { size: 'xl' } } })).toEqual({
      status: '422',
      code: 'invalid_enum_value',
      title: 'Invalid Enum Value',
      detail: 'size must be one of: s, m',
      source: { parameter: 'size' },
    });
    expect(errorOf({ data: { type: 'Thing', relationships: { keeper: { data: null } } } })).toMatchObject({
      status: '422',
      code: 'invalid_payload',
      detail: 'keeper cannot be removed',
    });
  });
});

describe('parseResourcePayload() [values the database cannot store]', () => {
  it('answers 422 invalid_payload for text with NUL and for dates outside years 1000–9999', () => {
    expect(errorOf({ data: { type: 'Thing', attributes: { title: 'a\u0000b' } } })).toMatchObject({
      status: '422',
      code: 'invalid_payload',
      detail: 'title must not contain NUL characters',
    });
    for (const due of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00Z', '0999-12-31']) {
      expect(errorOf({ data: { type: 'Thing', attributes: { due } } })).toMatchObject({
        status: '422',
        code: 'invalid_payload',
        detail: 'due must be an ISO 8601 date-time',
      });
    }
    expect(parseResourcePayload({ data: { type: 'Thing', attributes: { due: '1000-01-01' } } }, shape)).toEqual({
      due: new Date('1000-01-01T00:00:00Z'),
    });
  });
});
