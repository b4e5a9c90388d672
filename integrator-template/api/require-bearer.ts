/**
 * Bearer token authentication of the sample API.
 * @see https://www.rfc-editor.org/rfc/rfc6750#section-3.1
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { verifyAccessToken, type AccessGrant } from '../store/tokens.ts';
import type { IntegratorContext } from '../context.ts';

const REALM = 'realm="integrator"';

/** The grant `requireBearer` attached to the request. */
export function grantOf(res: Response): AccessGrant {
  return res.locals.grant as AccessGrant;
}

/** Accepts a live access token carrying `scope`; answers 401/403 with the RFC 6750 challenge. */
export function requireBearer(ctx: IntegratorContext, scope: string): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization');
    if (!header) {
      // §3.1: a request without credentials gets a challenge but no error code.
      res.set('WWW-Authenticate', `Bearer ${REALM}`);
      return res.status(401).json({ error: 'unauthorized', error_description: 'a Bearer access token is required' });
    }
    const match = header.match(/^Bearer ([A-Za-z0-9\-._~+/]+=*)$/);
    if (!match) {
      res.set(
        'WWW-Authenticate',
        `Bearer ${REALM}, error="invalid_request", error_description="malformed Authorization header"`,
      );
      return res.status(400).json({ error: 'invalid_request', error_description: 'malformed Authorization header' });
    }
    const grant = await verifyAccessToken(ctx.db, match[1]!, ctx.now());
    if (!grant) {
      res.set(
        'WWW-Authenticate',
        `Bearer ${REALM}, error="invalid_token", error_description="the access token is invalid or expired"`,
      );
      return res
        .status(401)
        .json({ error: 'invalid_token', error_description: 'the access token is invalid or expired' });
    }
    if (!grant.scope.split(' ').includes(scope)) {
      res.set('WWW-Authenticate', `Bearer ${REALM}, error="insufficient_scope", scope="${scope}"`);
      return res.status(403).json({ error: 'insufficient_scope', error_description: `the token lacks scope ${scope}` });
    }
    res.locals.grant = grant;
    next();
  };
}
