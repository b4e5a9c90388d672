/**
 * The developer-account API (`/api/v2`), mounted behind authentication (scope `api` or a personal
 * access token). Who may read what:
 * - everyone: the Organization (`GET /api/v2`) and their own personal access tokens;
 * - organization administrators (site administrators) only: connected applications and their people,
 *   OAuth applications and their monthly active users; anyone else gets 403.
 * Ids of another organization (or another person's tokens) are 404, like unknown ones.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { authOf } from '../auth/authenticate.ts';
import { isOrganizationAdministrator } from '../auth/permissions.ts';
import type { Database } from '../db/database.ts';
import { ForbiddenError } from '../errors.ts';
import { collectionRoute, pathId, singleRoute } from '../jsonapi/routes.ts';
import { selectApiVersion } from './api-version.ts';
import { developerApiEndpoints } from './developer-api-endpoints.ts';
import { expressPath, type Access, type EndpointContext } from './endpoint.ts';

/** What the developer API needs from the host. */
export interface DeveloperApiDeps {
  db: Database;
  /** Current time (the monthly-active-user window); tests control it. */
  now?: () => Date;
}

/** Why a person is refused, per access level. */
const REFUSALS: Record<Exclude<Access, 'any_person'>, string> = {
  organization_administrator:
    'Only organization administrators may read connected applications, OAuth applications and monthly active users',
};

function requireAccess(access: Access): RequestHandler {
  return (req, _res, next) => {
    if (access === 'organization_administrator' && !isOrganizationAdministrator(authOf(req).person)) {
      throw new ForbiddenError(REFUSALS[access]);
    }
    next();
  };
}

/** Mounts every endpoint of `developerApiEndpoints` behind the version check and its access rule. */
export function developerApiRouter(deps: DeveloperApiDeps): Router {
  const now = deps.now ?? (() => new Date());
  const context = (req: Request): EndpointContext => ({
    db: deps.db,
    person: authOf(req).person,
    id: (name) => pathId(req, name),
    param: (name) => String(req.params[name] ?? ''),
    now: now(),
  });
  const router = Router();
  router.use(selectApiVersion);
  for (const endpoint of developerApiEndpoints) {
    const handler =
      endpoint.kind === 'collection'
        ? collectionRoute(endpoint.definition, (req, query) => endpoint.load(context(req), query))
        : singleRoute(endpoint.definition, (req, query) => endpoint.load(context(req), query));
    router.get(expressPath(endpoint.path), requireAccess(endpoint.access), handler);
  }
  return router;
}
