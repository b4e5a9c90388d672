import { describe, expect, it } from 'vitest';
import { HostError } from '#host/errors.ts';
import { parseCollectionQuery } from '#host/jsonapi/query.ts';
import type { ResourceDefinition } from '#host/jsonapi/resource.ts';

const def: ResourceDefinition = {
  type: 'Thing',
  attributes: {},
  fields: [],
  links: () => ({ self: '/' }),
  where: { name: { type: 'string', column: 't.name' }, at: { type: 'date_time', column: 't.at' } },
};

function errorOf(query: string) {
  try {
    parseCollectionQuery(new URLSearchParams(query), def);
  } catch (error) {
    if (error instanceof HostError) return error.toErrors()[0];
    throw error;
  }
  throw new Error('no error');
}

describe('parseCollectionQuery() [where values the database cannot compare]', () => {
  it('answers 400 invalid_parameter for a string with NUL', () => {
    expect(errorOf('where[name]=a%00b')).toEqual({
      status: '400',
      code: 'invalid_parameter',
      title: 'Bad Request',
      detail: 'where[name] must not contain NUL characters',
      source: { parameter: 'where[name]' },
    });
  });

  it('answers 400 invalid_parameter for a date-time outside years 1000–9999', () => {
    for (const at of ['0000-01-01', '0001-01-01T00:00:00Z']) {
      expect(errorOf(`where[at]=${at}`)).toMatchObject({
        status: '400',
        code: 'invalid_parameter',
        source: { parameter: 'where[at]' },
      });
    }
    expect(parseCollectionQuery(new URLSearchParams('where[at]=1000-01-01'), def).where[0]!.value).toEqual(
      new Date('1000-01-01T00:00:00Z'),
    );
  });
});
