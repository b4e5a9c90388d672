/**
 * `POST /addons/installations/{id}/revoke` (session cookie + `X-CSRF-Token` + the host's exact `Origin`): the person
 * revokes their authorization of the add-on (revoke-authorization.ts, as the account page does). Answers
 * `200 {"state":"uninitialized"}`, also when there was nothing to revoke (no event then).
 */
import type { RequestHandler } from 'express';
import { installationOf } from '../registry/index.ts';
import { addonPersonOf } from '../session-gate.ts';
import { revokeAuthorization, type RevokeDeps } from './revoke-authorization.ts';

/** What the route needs. */
export type RevokeRouteDeps = RevokeDeps;

/** The person's revocation of an installation's authorization. */
export function revokeAuthorizationRoute(deps: RevokeRouteDeps): RequestHandler {
  return async (req, res) => {
    const person = addonPersonOf(req);
    const installation = await installationOf(deps.db, String(req.params.id), person);
    await revokeAuthorization(deps, installation, person);
    res.set('Cache-Control', 'no-store').json({ state: 'uninitialized' });
  };
}
