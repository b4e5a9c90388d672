/** `GET /current/v2/me`: the requesting person, for every OAuth application, with no scope needed. */
import { Router } from 'express';
import { authOf } from '../auth/authenticate.ts';
import { organizationResource } from '../api/organization-resource.ts';
import { singleRoute } from '../jsonapi/routes.ts';
import { personResource } from '../people/index.ts';

export function currentRouter(): Router {
  const router = Router();
  router.get(
    '/me',
    singleRoute(
      personResource,
      (req, query) => {
        const { person } = authOf(req);
        const parent = { id: person.organization_id, type: 'Organization' };
        const included = query.include.includes('organization')
          ? [{ definition: organizationResource, rows: [{ id: person.organization_id }] }]
          : [];
        return Promise.resolve({ row: { ...person }, parent, included });
      },
      { related: [organizationResource] },
    ),
  );
  return router;
}
