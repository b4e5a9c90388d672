/**
 * Who may call the add-on registry (`/addons/v1`): a person's own scripts (a personal access token) or the addon-kit
 * CLI signed in as that person (`addon-kit login`: the CLI's OAuth access token with the `addons` scope). No other
 * OAuth application, whatever its scopes, acts on the registry for a person.
 */
import type { RequestHandler } from 'express';
import { ForbiddenError } from '../../errors.ts';
import { CLI_CLIENT_ID } from '../../oauth/applications.ts';
import { ADDONS_SCOPE } from '../../oauth/scopes.ts';
import { authOf } from '../../auth/authenticate.ts';

/** Refuses (403) a request authenticated by anything but a personal access token or the CLI's `addons` token. */
export const requireRegistryCredentials: RequestHandler = (req, _res, next) => {
  const auth = authOf(req);
  if (auth.method === 'personal_access_token') return next();
  if (auth.clientId === CLI_CLIENT_ID && auth.scopes !== 'all' && auth.scopes.has(ADDONS_SCOPE)) return next();
  // An OAuth application acting for an administrator must not replace add-on code or integrator URLs.
  throw new ForbiddenError(
    'This request needs a personal access token (HTTP Basic) or the addon-kit CLI signed in (addon-kit login); ' +
      "other applications' OAuth access tokens are not accepted here",
  );
};
