/**
 * Mounts the provider in Express: the request's origin pinned to the base URL, the interaction pages,
 * the JSON-body and /oauth/refresh adapters, then oidc-provider's own handler for `/oauth/*` and the
 * discovery document.
 */
import { Router } from 'express';
import type Provider from 'oidc-provider';
import type { Queryable } from '../db/database.ts';
import type { ClientAuthThrottle } from '../limits/client-auth-throttle.ts';
import type { SignInThrottle } from '../limits/sign-in-throttle.ts';
import { throttleClientAuth } from './throttle-client-auth.ts';
import { interactionRouter } from './interaction/index.ts';
import { pinRequestOrigin } from './pin-request-origin.ts';
import { OAUTH_ROUTES } from './provider.ts';
import { acceptJsonBody, refreshAlias } from './token-request-body.ts';

/** True for the paths oidc-provider answers. */
export function isProviderPath(path: string): boolean {
  return path.startsWith('/oauth/') || path === '/.well-known/openid-configuration';
}

/** The `/oauth/*` and discovery routes of the host. */
export function oauthRouter(deps: {
  provider: Provider;
  db: Queryable;
  baseUrl: string;
  throttle: SignInThrottle;
  clientAuth: ClientAuthThrottle;
}): Router {
  const router = Router();
  const pin = pinRequestOrigin(deps.provider, deps.baseUrl);
  router.use((req, res, next) => (isProviderPath(req.path) ? pin(req, res, next) : next()));
  router.use(interactionRouter(deps));
  router.post([OAUTH_ROUTES.token, OAUTH_ROUTES.revocation, OAUTH_ROUTES.introspection], acceptJsonBody);
  router.post('/oauth/refresh', acceptJsonBody, refreshAlias);
  router.post(
    [OAUTH_ROUTES.token, OAUTH_ROUTES.revocation, OAUTH_ROUTES.introspection],
    throttleClientAuth(deps.clientAuth),
  );
  const callback = deps.provider.callback();
  router.use((req, res, next) => (isProviderPath(req.path) ? callback(req, res) : next()));
  return router;
}
