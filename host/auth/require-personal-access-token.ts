/** Routes only a person's own scripts may call (e.g. the add-on registry): personal access tokens, not OAuth tokens. */
import type { RequestHandler } from 'express';
import { ForbiddenError } from '../errors.ts';
import { authOf } from './authenticate.ts';

/** Refuses (403) a request authenticated by anything but a personal access token. */
export const requirePersonalAccessToken: RequestHandler = (req, _res, next) => {
  if (authOf(req).method !== 'personal_access_token') {
    // An OAuth application acting for an administrator must not replace add-on code or integrator URLs.
    throw new ForbiddenError(
      'This request needs a personal access token (HTTP Basic); OAuth access tokens are not accepted here',
    );
  }
  next();
};
