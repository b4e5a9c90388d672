/** ConnectedApplicationPerson: a person of the organization who connected an application. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** The resource definition; `where[site_administrator]` is its one query attribute. */
export const connectedApplicationPersonResource: ResourceDefinition = {
  type: 'ConnectedApplicationPerson',
  description: 'A person of the organization who authorized the connected application.',
  attributes: {
    avatar_url: { type: 'string', nullable: true, description: 'null when the person has no avatar.' },
    connected_at: { type: 'date_time', description: 'When the person first authorized the application.' },
    first_name: { type: 'string' },
    last_name: { type: 'string' },
    scopes: { type: 'array', items: 'string', description: 'OAuth scopes the person granted.' },
    site_administrator: { type: 'boolean' },
  },
  fields: ['avatar_url', 'connected_at', 'first_name', 'last_name', 'scopes', 'site_administrator'],
  links: (row, base) => ({
    self: `${base}/api/v2/connected_applications/${String(row.application_id)}/people/${String(row.id)}`,
  }),
  where: { site_administrator: { type: 'boolean', column: 'p.site_administrator' } },
  canQueryBy: ['site_administrator'],
  defaultOrder: 'c.connected_at ASC',
};
