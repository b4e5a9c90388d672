/** The Campus resource: a location of an organization that people and lists belong to. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of Campus. */
export const campusResource: ResourceDefinition = {
  type: 'Campus',
  attributes: { name: { type: 'string' }, created_at: { type: 'date_time' } },
  fields: ['name', 'created_at'],
  links: (row, base) => ({
    self: `${base}/people/v2/campuses/${String(row.id)}`,
    lists: `${base}/people/v2/campuses/${String(row.id)}/lists`,
  }),
};

/** Columns of a Campus row (alias `c`). */
export const CAMPUS_SELECT = 'c.id::text AS id, c.name, c.created_at';
