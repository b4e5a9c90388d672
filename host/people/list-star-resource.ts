/** The ListStar resource: the requesting person's star on a list. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of ListStar. */
export const listStarResource: ResourceDefinition = {
  type: 'ListStar',
  attributes: { created_at: { type: 'date_time' } },
  fields: ['created_at', 'person'],
  relationships: {
    person: {
      type: 'Person',
      id: (row) => row.person_id as string,
      related: (row, base) => `${base}/people/v2/people/${String(row.person_id)}`,
    },
  },
  links: (row, base) => ({ self: `${base}/people/v2/lists/${String(row.list_id)}/star` }),
};

/** Columns of a ListStar row (alias `s`). */
export const LIST_STAR_SELECT =
  's.id::text AS id, s.list_id::text AS list_id, s.person_id::text AS person_id, s.created_at';
