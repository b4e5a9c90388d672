/**
 * The token, revocation and introspection endpoints under the client-authentication throttle
 * (host/limits/client-auth-throttle.ts): a locked client id and address pair, or address, gets 429 with
 * Retry-After before the provider looks at the credentials (Express side); every 401 the provider answers
 * (invalid_client) counts as a failure, counted before the response leaves (provider side), so the next
 * request already sees it.
 */
import express, { type Request, type RequestHandler } from 'express';
import type { Middleware } from 'koa';
import { parseBasic } from '../auth/authenticate.ts';
import { clientAddress } from '../http/client-address.ts';
import type { ClientAuthThrottle } from '../limits/client-auth-throttle.ts';
import { runMiddleware } from '../run-middleware.ts';

const readForm = express.text({ type: 'application/x-www-form-urlencoded', limit: '56kb' });

/** The client_id a request authenticates as: HTTP Basic user name (form-decoded) or the body's `client_id`. */
function clientIdOf(req: Request): string | undefined {
  const basic = parseBasic(req.get('authorization') ?? '');
  if (basic) {
    try {
      // @see RFC 6749 §2.3.1: the Basic user name is the form-encoded client_id.
      return decodeURIComponent(basic.username.replace(/\+/g, ' '));
    } catch {
      return basic.username;
    }
  }
  const body = typeof req.body === 'string' ? new URLSearchParams(req.body) : undefined;
  return body?.get('client_id') ?? undefined;
}

/** 429 `slow_down` for a locked client; counts the provider's 401s. @see RFC 8628 §3.5 (slow_down) */
export function throttleClientAuth(throttle: ClientAuthThrottle): RequestHandler {
  return async (req, res, next) => {
    // Read a form body as the string oidc-provider accepts in place of the stream (as acceptJsonBody does).
    if (req.body === undefined) await runMiddleware(readForm, req, res);
    const clientId = clientIdOf(req);
    const address = clientAddress(req);
    const wait = await throttle.retryAfter(clientId, address);
    if (wait > 0) {
      res
        .status(429)
        .set('Retry-After', String(wait))
        .set('Cache-Control', 'no-store')
        .json({
          error: 'slow_down',
          error_description: `Too many failed client authentications; try again in ${wait} seconds`,
        });
      return;
    }
    (req as AttemptingRequest)[ATTEMPT] = { clientId, address };
    next();
  };
}

const ATTEMPT = Symbol('clientAuthAttempt');
type AttemptingRequest = Request & { [ATTEMPT]?: { clientId: string | undefined; address: string } };

/** The provider (koa) middleware counting the client authentications it refused (401). */
export function countClientAuthFailures(throttle: ClientAuthThrottle): Middleware {
  return async (ctx, next) => {
    await next();
    const attempt = (ctx.req as AttemptingRequest)[ATTEMPT];
    if (attempt && ctx.status === 401) await throttle.failed(attempt.clientId, attempt.address).catch(() => {});
  };
}
