/** The ListResult resource: one person a list found, and since when. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of ListResult. */
export const listResultResource: ResourceDefinition = {
  type: 'ListResult',
  attributes: { created_at: { type: 'date_time' } },
  fields: ['created_at', 'person', 'list'],
  relationships: {
    person: {
      type: 'Person',
      id: (row) => row.person_id as string,
      related: (row, base) => `${base}/people/v2/people/${String(row.person_id)}`,
    },
    list: {
      type: 'List',
      id: (row) => row.list_id as string,
      related: (row, base) => `${base}/people/v2/lists/${String(row.list_id)}`,
    },
  },
  links: (row, base) => ({ self: `${base}/people/v2/lists/${String(row.list_id)}/list_results/${String(row.id)}` }),
  order: { created_at: 'r.created_at', person_id: 'r.person_id' },
  defaultOrder: 'r.person_id ASC',
};

/** Columns of a ListResult row (alias `r`). */
export const LIST_RESULT_SELECT =
  'r.id::text AS id, r.list_id::text AS list_id, r.person_id::text AS person_id, r.created_at';
