/** The ListShare resource: a list shared with a person, to view or to edit (manage) it. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of ListShare. */
export const listShareResource: ResourceDefinition = {
  type: 'ListShare',
  attributes: { permission: { type: 'string' }, created_at: { type: 'date_time' } },
  fields: ['permission', 'created_at', 'person'],
  relationships: {
    person: {
      type: 'Person',
      id: (row) => row.person_id as string,
      related: (row, base) => `${base}/people/v2/people/${String(row.person_id)}`,
    },
  },
  links: (row, base) => ({ self: `${base}/people/v2/lists/${String(row.list_id)}/shares/${String(row.id)}` }),
  order: { created_at: 's.created_at' },
  defaultOrder: 's.id ASC',
};

/** Columns of a ListShare row (alias `s`). */
export const LIST_SHARE_SELECT =
  's.id::text AS id, s.list_id::text AS list_id, s.person_id::text AS person_id, s.permission, s.created_at';
