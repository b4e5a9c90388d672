/** ConnectedApplication: an OAuth application that people of the organization have authorized. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';
import { ACCESS_MODES } from '../oauth/application-access.ts';

/** The resource definition; the id is the OAuth application's integer id. */
export const connectedApplicationResource: ResourceDefinition = {
  type: 'ConnectedApplication',
  description: 'An OAuth application that at least one person of the organization has authorized.',
  attributes: {
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
    access_mode: {
      type: 'string',
      enum: ACCESS_MODES,
      description:
        'Who in the organization may connect the application. Not a fields[ConnectedApplication] value: it is rendered only when no fields[ConnectedApplication] is given.',
    },
  },
  // access_mode is left out on purpose: the spec does not accept it here.
  fields: ['description', 'name', 'url'],
  links: (row, base) => ({
    self: `${base}/api/v2/connected_applications/${String(row.id)}`,
    people: `${base}/api/v2/connected_applications/${String(row.id)}/people`,
  }),
  defaultOrder: 'a.name COLLATE "C" ASC',
};
