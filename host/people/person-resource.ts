/** The Person resource (people product), as rendered wherever a person appears. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** Definition of Person (also rendered by `/current/v2/me`). */
export const personResource: ResourceDefinition = {
  type: 'Person',
  attributes: { first_name: { type: 'string' }, last_name: { type: 'string' } },
  fields: ['first_name', 'last_name'],
  relationships: {
    organization: { type: 'Organization', id: (row) => row.organization_id as string },
  },
  links: (row, base) => ({ self: `${base}/people/v2/people/${String(row.id)}` }),
  includes: ['organization'],
  order: { first_name: 'p.first_name', last_name: 'p.last_name' },
  where: {
    first_name: { type: 'string', column: 'p.first_name' },
    last_name: { type: 'string', column: 'p.last_name' },
  },
};
