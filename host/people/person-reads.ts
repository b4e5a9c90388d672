/** Person reads the links of Notes and Lists point at: `GET /people/v2/people` and `/people/{id}`. */
import { Router } from 'express';
import { organizationResource } from '../api/organization-resource.ts';
import type { Database } from '../db/database.ts';
import { queryCollection } from '../jsonapi/collection-sql.ts';
import { collectionRoute, pathId, singleRoute } from '../jsonapi/routes.ts';
import { SqlParams } from '../jsonapi/sql.ts';
import { personResource } from './person-resource.ts';
import { PERSON_SELECT, loadPersonRow, personIncludes } from './person-sql.ts';
import { organizationParent, scopeOf } from './request-scope.ts';

/** `GET /people/v2/people` and `GET /people/v2/people/{id}`. */
export function personReadRoutes(db: Database): Router {
  const router = Router();
  router.get(
    '/people',
    collectionRoute(
      personResource,
      async (req, query) => {
        const scope = scopeOf(req);
        const page = await queryCollection(db, personResource, query, {
          select: PERSON_SELECT,
          from: 'people p',
          conditions: ['p.organization_id = $1'],
          params: new SqlParams([scope.organizationId]),
          tieBreaker: 'p.id ASC',
          personId: scope.personId,
        });
        return { ...page, parent: organizationParent(req), included: personIncludes(page.rows[0], query.include) };
      },
      { related: [organizationResource] },
    ),
  );
  router.get(
    '/people/:id',
    singleRoute(
      personResource,
      async (req, query) => {
        const row = await loadPersonRow(db, scopeOf(req).organizationId, pathId(req, 'id'));
        return { row, parent: organizationParent(req), included: personIncludes(row, query.include) };
      },
      { related: [organizationResource] },
    ),
  );
  return router;
}
