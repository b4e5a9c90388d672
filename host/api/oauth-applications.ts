/** The organization's OAuth applications and their monthly active users. */
import type { Queryable } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { APPLICATIONS_VIEW } from '../oauth/applications.ts';
import { SqlParams, orderClause, pageClause } from '../jsonapi/sql.ts';
import type { Endpoint, EndpointContext } from './endpoint.ts';
import { mauWindow } from './mau-window.ts';
import { oauthApplicationMauResource } from './oauth-application-mau-resource.ts';
import { oauthApplicationResource } from './oauth-application-resource.ts';
import { MONTHLY_ACTIVE_USERS_FROM } from '../oauth/mau.ts';

const APPLICATION_ID = {
  name: 'oauth_application_id',
  description: 'Integer id of the OAuth application (not its client_id).',
};
const APPLICATION_COLUMNS = 'a.id::text, a.name, a.description, a.url';

async function loadApplication(db: Queryable, organizationId: string, applicationId: string) {
  const { rows } = await db.query(
    `SELECT ${APPLICATION_COLUMNS} FROM ${APPLICATIONS_VIEW} a WHERE a.organization_id = $1 AND a.id = $2`,
    [organizationId, applicationId],
  );
  return rows[0];
}

/** The application of the path, or 404 (unknown, or another organization's). */
async function requireApplication(ctx: EndpointContext): Promise<string> {
  const applicationId = ctx.id('oauth_application_id');
  if (!(await loadApplication(ctx.db, ctx.person.organization_id, applicationId))) throw new NotFoundError();
  return applicationId;
}

// One row per month in the window: distinct people issued a token that month.
const MAU_FROM = MONTHLY_ACTIVE_USERS_FROM;
const MAU_SELECT = `SELECT m.application_id::text, m.year, m.month, count(DISTINCT m.person_id)::int AS count ${MAU_FROM}`;
const MAU_GROUP = 'GROUP BY m.application_id, m.year, m.month';

/** The four OAuth application endpoints (organization administrators only). */
export const oauthApplicationEndpoints: readonly Endpoint[] = [
  {
    kind: 'collection',
    path: '/oauth_applications',
    operationId: 'listOauthApplications',
    summary: 'List OAuth applications',
    description: "OAuth applications registered by the requester's organization, by name.",
    definition: oauthApplicationResource,
    parentType: 'Organization',
    pathParameters: [],
    access: 'organization_administrator',
    async load(ctx, query) {
      const params = new SqlParams([ctx.person.organization_id]);
      const from = `FROM ${APPLICATIONS_VIEW} a WHERE a.organization_id = $1`;
      const total = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params.values);
      const { rows } = await ctx.db.query(
        `SELECT ${APPLICATION_COLUMNS} ${from} ${orderClause(oauthApplicationResource, query, 'a.id ASC')} ${pageClause(query, params)}`,
        params.values,
      );
      return { rows, total: total.rows[0]?.n ?? 0, parent: { id: ctx.person.organization_id, type: 'Organization' } };
    },
  },
  {
    kind: 'single',
    path: '/oauth_applications/{oauth_application_id}',
    operationId: 'getOauthApplication',
    summary: 'Read an OAuth application',
    description: 'One OAuth application of the organization.',
    definition: oauthApplicationResource,
    parentType: 'Organization',
    pathParameters: [APPLICATION_ID],
    access: 'organization_administrator',
    async load(ctx) {
      const row = await loadApplication(ctx.db, ctx.person.organization_id, ctx.id('oauth_application_id'));
      return { row, parent: { id: ctx.person.organization_id, type: 'Organization' } };
    },
  },
  {
    kind: 'collection',
    path: '/oauth_applications/{oauth_application_id}/mau',
    operationId: 'listOauthApplicationMau',
    summary: 'List monthly active users of an OAuth application',
    description:
      'One record per month with at least one active user, newest first: the last 24 months (the current one included), nothing before February 2019.',
    definition: oauthApplicationMauResource,
    parentType: 'OauthApplication',
    pathParameters: [APPLICATION_ID],
    access: 'organization_administrator',
    async load(ctx, query) {
      const applicationId = await requireApplication(ctx);
      const { first, last } = mauWindow(ctx.now);
      const params = new SqlParams([applicationId, first, last]);
      const total = await ctx.db.query<{ n: number }>(
        `SELECT count(DISTINCT (m.year, m.month))::int AS n ${MAU_FROM}`,
        params.values,
      );
      const { rows } = await ctx.db.query(
        `${MAU_SELECT} ${MAU_GROUP} ${orderClause(oauthApplicationMauResource, query, 'm.year DESC, m.month DESC')} ${pageClause(query, params)}`,
        params.values,
      );
      return { rows, total: total.rows[0]?.n ?? 0, parent: { id: applicationId, type: 'OauthApplication' } };
    },
  },
  {
    kind: 'single',
    path: '/oauth_applications/{oauth_application_id}/mau/{mau_id}',
    operationId: 'getOauthApplicationMau',
    summary: 'Read one month of monthly active users',
    description:
      "One month of an OAuth application's monthly active users; 404 for a month outside the history window or without active users.",
    definition: oauthApplicationMauResource,
    parentType: 'OauthApplication',
    pathParameters: [APPLICATION_ID, { name: 'mau_id', description: 'The month as YYYYMM, e.g. 202509.' }],
    access: 'organization_administrator',
    async load(ctx) {
      const applicationId = await requireApplication(ctx);
      const parent = { id: applicationId, type: 'OauthApplication' };
      const m = /^(\d{4})(0[1-9]|1[0-2])$/.exec(ctx.param('mau_id'));
      if (!m) return { row: undefined, parent };
      const { first, last } = mauWindow(ctx.now);
      const { rows } = await ctx.db.query(`${MAU_SELECT} AND m.year = $4 AND m.month = $5 ${MAU_GROUP}`, [
        applicationId,
        first,
        last,
        Number(m[1]),
        Number(m[2]),
      ]);
      return { row: rows[0], parent };
    },
  },
];
