/** PersonalAccessToken: one of the requesting person's tokens (never its secret). */
import type { ResourceDefinition } from '../jsonapi/resource.ts';

/** The resource definition; only the name is ever shown. */
export const personalAccessTokenResource: ResourceDefinition = {
  type: 'PersonalAccessToken',
  description: 'A personal access token of the requesting person. Its secret is never shown again.',
  attributes: { name: { type: 'string' } },
  fields: ['name'],
  links: (row, base) => ({ self: `${base}/api/v2/personal_access_tokens/${String(row.id)}` }),
  defaultOrder: 't.created_at ASC',
};
