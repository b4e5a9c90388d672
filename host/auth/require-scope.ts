/** OAuth scope checks; personal access tokens carry their owner's whole access. */
import type { RequestHandler } from 'express';
import { ForbiddenError } from '../errors.ts';
import { authOf } from './authenticate.ts';

/** The OAuth scopes of the spec (one per product, plus openid). */
export const SCOPES = [
  'api',
  'calendar',
  'check_ins',
  'giving',
  'groups',
  'home',
  'people',
  'publishing',
  'registrations',
  'services',
  'webhooks',
  'openid',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Refuses (403) an OAuth token without `scope`. */
export function requireScope(scope: Scope): RequestHandler {
  return (req, _res, next) => {
    const { scopes } = authOf(req);
    if (scopes !== 'all' && !scopes.has(scope)) {
      throw new ForbiddenError(`This request needs an access token with the ${scope} scope`);
    }
    next();
  };
}
