/**
 * `GET /people/v2/me`: the spec's `/<product>/v2/me` for the people product — the requester as the People
 * API's Person. Unlike `/current/v2/me` it sits behind the people product's rules: the `people` scope
 * for OAuth tokens and a people role (viewer or above), checked by the people router.
 */
import { Router } from 'express';
import { organizationResource } from '../api/organization-resource.ts';
import type { Database } from '../db/database.ts';
import { singleRoute } from '../jsonapi/routes.ts';
import { personResource } from './person-resource.ts';
import { loadPersonRow, personIncludes } from './person-sql.ts';
import { organizationParent, scopeOf } from './request-scope.ts';

/** The `/me` route of the people router (`include=organization` as on `/people/v2/people/{id}`). */
export function meRoutes(db: Database): Router {
  const router = Router();
  router.get(
    '/me',
    singleRoute(
      personResource,
      async (req, query) => {
        const scope = scopeOf(req);
        const row = await loadPersonRow(db, scope.organizationId, scope.personId);
        return { row, parent: organizationParent(req), included: personIncludes(row, query.include) };
      },
      { related: [organizationResource] },
    ),
  );
  return router;
}
