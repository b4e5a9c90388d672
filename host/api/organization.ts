/** `GET /api/v2`: the requester's Organization, the entry point linking to every collection. */
import type { Endpoint } from './endpoint.ts';
import { organizationResource } from './organization-resource.ts';

/** `GET /api/v2` (everyone). */
export const organizationEndpoints: readonly Endpoint[] = [
  {
    kind: 'single',
    path: '',
    operationId: 'getOrganization',
    summary: 'Read your organization',
    description:
      "The requester's organization with links to its developer-account collections. Its meta.parent is the organization itself.",
    definition: organizationResource,
    parentType: 'Organization',
    pathParameters: [],
    access: 'any_person',
    load(ctx) {
      const parent = { id: ctx.person.organization_id, type: 'Organization' };
      return Promise.resolve({ row: { id: ctx.person.organization_id }, parent });
    },
  },
];
