/** The requesting person's own personal access tokens (nobody reads another person's). */
import { SqlParams, orderClause, pageClause } from '../jsonapi/sql.ts';
import type { Endpoint } from './endpoint.ts';
import { personalAccessTokenResource } from './personal-access-token-resource.ts';

const FROM = 'FROM personal_access_tokens t WHERE t.person_id = $1 AND t.organization_id = $2';

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
      const total = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n ${FROM}`, params.values);
      const { rows } = await ctx.db.query(
        `SELECT t.id::text, t.name ${FROM} ${orderClause(personalAccessTokenResource, query, 't.id ASC')} ${pageClause(query, params)}`,
        params.values,
      );
      return { rows, total: total.rows[0]?.n ?? 0, parent: { id: ctx.person.organization_id, type: 'Organization' } };
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
      const { rows } = await ctx.db.query(`SELECT t.id::text, t.name ${FROM} AND t.id = $3`, [
        ctx.person.id,
        ctx.person.organization_id,
        ctx.id('personal_access_token_id'),
      ]);
      return { row: rows[0], parent: { id: ctx.person.organization_id, type: 'Organization' } };
    },
  },
];
