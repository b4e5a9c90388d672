/** The Organization resource: no attributes, links to its developer-account collections. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

export const organizationResource: ResourceDefinition = {
  type: 'Organization',
  attributes: {},
  fields: [],
  links: (_row, base) => ({
    self: `${base}/api/v2`,
    connected_applications: `${base}/api/v2/connected_applications`,
    oauth_applications: `${base}/api/v2/oauth_applications`,
    personal_access_tokens: `${base}/api/v2/personal_access_tokens`,
  }),
};
