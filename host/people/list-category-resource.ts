/** The ListCategory resource: a named group of lists. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of ListCategory. */
export const listCategoryResource: ResourceDefinition = {
  type: 'ListCategory',
  attributes: { name: { type: 'string' }, created_at: { type: 'date_time' }, updated_at: { type: 'date_time' } },
  fields: ['name', 'created_at', 'updated_at'],
  links: (row, base) => ({
    self: `${base}/people/v2/list_categories/${String(row.id)}`,
    lists: `${base}/people/v2/list_categories/${String(row.id)}/lists`,
  }),
};

/** Columns of a ListCategory row (alias `c`). */
export const LIST_CATEGORY_SELECT = 'c.id::text AS id, c.name, c.created_at, c.updated_at';
