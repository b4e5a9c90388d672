/** OauthApplication: an OAuth application registered by the organization. */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** The resource definition; the id is the integer id (not the client_id). */
export const oauthApplicationResource: ResourceDefinition = {
  type: 'OauthApplication',
  description: "An OAuth application registered in the organization's developer account.",
  attributes: {
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
  },
  fields: ['description', 'name', 'url'],
  links: (row, base) => ({
    self: `${base}/api/v2/oauth_applications/${String(row.id)}`,
    mau: `${base}/api/v2/oauth_applications/${String(row.id)}/mau`,
  }),
  defaultOrder: 'a.name COLLATE "C" ASC',
};
