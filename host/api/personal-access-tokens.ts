/** The requesting person's own personal access tokens (nobody reads another person's). */
import { findPersonalAccessToken, pageOfPersonalAccessTokens } from '../auth/personal-access-tokens.ts';
import { SqlParams, orderClause, pageClause } from '../jsonapi/sql.ts';
import type { Endpoint } from './endpoint.ts';
import { personalAccessTokenResource } from './personal-access-token-resource.ts';

/** The two personal access token endpoints (everyone, own tokens only). */
export const personalAccessTokenEndpoints: readonly Endpoint[] = [
  {
    kind: 'collection',
    path: '/personal_access_tokens',
    operationId: 'listPersonalAccessTokens',
    summary: 'List your personal access tokens',
    description: "The requesting person's own personal access tokens, oldest first (disabled ones included).",
    definition: personalAccessTokenResource,
    parentType: 'Organization',
    pathParameters: [],
    access: 'any_person',
    async load(ctx, query) {
      const params = new SqlParams([ctx.person.id, ctx.person.organization_id]);
      const order = orderClause(personalAccessTokenResource, query, 't.id ASC');
      const page = pageClause(query, params);
      const { rows, total } = await pageOfPersonalAccessTokens(ctx.db, params.values, { order, page });
      return { rows, total, parent: { id: ctx.person.organization_id, type: 'Organization' } };
    },
  },
  {
    kind: 'single',
    path: '/personal_access_tokens/{personal_access_token_id}',
    operationId: 'getPersonalAccessToken',
    summary: 'Read one of your personal access tokens',
    description: "One of the requesting person's tokens; another person's token is 404.",
    definition: personalAccessTokenResource,
    parentType: 'Organization',
    pathParameters: [{ name: 'personal_access_token_id', description: 'Id of the token (not its client_id).' }],
    access: 'any_person',
    async load(ctx) {
      const { id, organization_id: organizationId } = ctx.person;
      const row = await findPersonalAccessToken(ctx.db, id, organizationId, ctx.id('personal_access_token_id'));
      return { row, parent: { id: organizationId, type: 'Organization' } };
    },
  },
];
