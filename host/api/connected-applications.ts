/**
 * Connected applications of the requester's organization (any organization's OAuth applications that
 * people of this one authorized) and the people who connected each.
 */
import type { Queryable } from '../db/database.ts';
import { NotFoundError } from '../errors.ts';
import { SqlParams, orderClause, pageClause, queryConditions } from '../jsonapi/sql.ts';
import { accessModeSql } from '../oauth/application-access.ts';
import { APPLICATIONS_VIEW } from '../oauth/applications.ts';
import { CONNECTED_PEOPLE_FROM, connectedInOrganization } from '../oauth/mau.ts';
import { connectedApplicationPersonResource } from './connected-application-person-resource.ts';
import { connectedApplicationResource } from './connected-application-resource.ts';
import type { Endpoint, EndpointContext } from './endpoint.ts';

const APPLICATION_ID = { name: 'connected_application_id', description: 'Id of the connected OAuth application.' };

// Connected: at least one person of the organization authorized it.
const APPLICATIONS_FROM = `
  FROM ${APPLICATIONS_VIEW} a
  WHERE ${connectedInOrganization('a.id', '$1')}`;
const APPLICATION_COLUMNS = `a.id::text, a.name, a.description, a.url, ${accessModeSql('a.id', '$1')} AS access_mode`;

const PEOPLE_FROM = CONNECTED_PEOPLE_FROM;
const PEOPLE_COLUMNS = `p.id::text, c.application_id::text, p.avatar_url, c.connected_at, p.first_name, p.last_name, c.scopes, p.site_administrator`;

async function loadConnectedApplication(db: Queryable, organizationId: string, applicationId: string) {
  const { rows } = await db.query(`SELECT ${APPLICATION_COLUMNS} ${APPLICATIONS_FROM} AND a.id = $2`, [
    organizationId,
    applicationId,
  ]);
  return rows[0];
}

function organizationParent(ctx: EndpointContext) {
  return { id: ctx.person.organization_id, type: 'Organization' };
}

/** The four connected-application endpoints (organization administrators only). */
export const connectedApplicationEndpoints: readonly Endpoint[] = [
  {
    kind: 'collection',
    path: '/connected_applications',
    operationId: 'listConnectedApplications',
    summary: 'List connected applications',
    description:
      "OAuth applications (of any organization) that people of the requester's organization have authorized, by name.",
    definition: connectedApplicationResource,
    parentType: 'Organization',
    pathParameters: [],
    access: 'organization_administrator',
    async load(ctx, query) {
      const params = new SqlParams([ctx.person.organization_id]);
      const total = await ctx.db.query<{ n: number }>(`SELECT count(*)::int AS n ${APPLICATIONS_FROM}`, params.values);
      const { rows } = await ctx.db.query(
        `SELECT ${APPLICATION_COLUMNS} ${APPLICATIONS_FROM} ${orderClause(connectedApplicationResource, query, 'a.id ASC')} ${pageClause(query, params)}`,
        params.values,
      );
      return { rows, total: total.rows[0]?.n ?? 0, parent: organizationParent(ctx) };
    },
  },
  {
    kind: 'single',
    path: '/connected_applications/{connected_application_id}',
    operationId: 'getConnectedApplication',
    summary: 'Read a connected application',
    description: 'One connected application; 404 when no one of the organization has authorized it.',
    definition: connectedApplicationResource,
    parentType: 'Organization',
    pathParameters: [APPLICATION_ID],
    access: 'organization_administrator',
    async load(ctx) {
      const row = await loadConnectedApplication(
        ctx.db,
        ctx.person.organization_id,
        ctx.id('connected_application_id'),
      );
      return { row, parent: organizationParent(ctx) };
    },
  },
  {
    kind: 'collection',
    path: '/connected_applications/{connected_application_id}/people',
    operationId: 'listConnectedApplicationPeople',
    summary: 'List the people who connected an application',
    description: 'People of the organization who authorized the application, in the order they connected.',
    definition: connectedApplicationPersonResource,
    parentType: 'ConnectedApplication',
    pathParameters: [APPLICATION_ID],
    access: 'organization_administrator',
    async load(ctx, query) {
      const applicationId = ctx.id('connected_application_id');
      const parent = { id: applicationId, type: 'ConnectedApplication' };
      if (!(await loadConnectedApplication(ctx.db, ctx.person.organization_id, applicationId)))
        throw new NotFoundError();
      const params = new SqlParams([applicationId, ctx.person.organization_id]);
      const where = queryConditions(connectedApplicationPersonResource, query, params, ctx.person.id)
        .map((c) => ` AND ${c}`)
        .join('');
      const total = await ctx.db.query<{ n: number }>(
        `SELECT count(*)::int AS n ${PEOPLE_FROM}${where}`,
        params.values,
      );
      const { rows } = await ctx.db.query(
        `SELECT ${PEOPLE_COLUMNS} ${PEOPLE_FROM}${where} ${orderClause(connectedApplicationPersonResource, query, 'p.id ASC')} ${pageClause(query, params)}`,
        params.values,
      );
      return { rows, total: total.rows[0]?.n ?? 0, parent };
    },
  },
  {
    kind: 'single',
    path: '/connected_applications/{connected_application_id}/people/{person_id}',
    operationId: 'getConnectedApplicationPerson',
    summary: 'Read a person who connected an application',
    description: 'One person of the organization who authorized the application.',
    definition: connectedApplicationPersonResource,
    parentType: 'ConnectedApplication',
    pathParameters: [APPLICATION_ID, { name: 'person_id', description: 'Id of the person.' }],
    access: 'organization_administrator',
    async load(ctx) {
      const applicationId = ctx.id('connected_application_id');
      const { rows } = await ctx.db.query(`SELECT ${PEOPLE_COLUMNS} ${PEOPLE_FROM} AND p.id = $3`, [
        applicationId,
        ctx.person.organization_id,
        ctx.id('person_id'),
      ]);
      return { row: rows[0], parent: { id: applicationId, type: 'ConnectedApplication' } };
    },
  },
];
