/**
 * The two-way handshake (the spec's steps 0–6), run in a popup the add-on's Authorize button opens — one
 * file per step, listed here in order (host login on every route):
 *
 * 0      start.ts                `GET …/installations/{id}/authorize`: the popup's page, posts the next for a same-origin opener
 * 0 → 1  start.ts                `POST …/installations/{id}/authorize` (CSRF): leg one's state, to the host's /oauth/authorize
 * 1      consent.ts              the provider issued a code for that state: the row is marked (step 3 needs it)
 * 2      (the integrator)        the code at its redirect_url; it must send the browser to /advance
 * 3 → 4  advance.ts              leg one consumed, the host grant issued, to the integrator's authorize_url
 * 5      integrator-callback.ts  the integrator's redirect back checked, the PKCE verifier read back
 * 6      complete.ts             the code exchanged, the tokens stored (`ready`), the opener told
 *
 * A step refuses by throwing a StepFailure, rendered as the popup's failure page (step-failure.ts).
 */
import { Router } from 'express';
import { requireCsrf } from '../../auth/csrf.ts';
import { requireHostLogin } from '../../auth/session.ts';
import { advanceHandshake } from './advance.ts';
import { completeHandshake } from './complete.ts';
import type { HandshakeDeps } from './deps.ts';
import { checkIntegratorCallback } from './integrator-callback.ts';
import { showHandshakeStart, startHandshake } from './start.ts';
import { renderStepFailure } from './step-failure.ts';

export { HANDSHAKE_COOKIE } from './cookie.ts';
export { handshakeStateDigest, recordServiceConsent } from './consent.ts';
export type { HandshakeDeps } from './deps.ts';

/** The routes of steps 0, 3 and 5–6 (mounted under `/addons`). */
export function handshakeRouter(deps: HandshakeDeps): Router {
  const router = Router();
  router.get('/installations/:id/authorize', requireHostLogin, showHandshakeStart);
  router.post('/installations/:id/authorize', requireHostLogin, requireCsrf, startHandshake(deps));
  router.get('/authorizations/:oauthApplicationId/advance', requireHostLogin, advanceHandshake(deps));
  router.get(
    '/authorizations/:oauthApplicationId',
    requireHostLogin,
    checkIntegratorCallback(deps),
    completeHandshake(deps),
  );
  router.use(renderStepFailure(new URL(deps.config.baseUrl).origin));
  return router;
}
