/**
 * The provider's interaction pages at `/oauth/interaction/{uid}`: login, account chooser, consent and the
 * access_mode refusal (../access-refused-page.tsx), server-rendered, working without JavaScript, every POST
 * CSRF-checked with the host session's token. Logging in here also logs in to the host; a host session
 * already open satisfies a plain login prompt (not `prompt=login`, which always asks for the password again).
 *
 * Each route starts from the interaction's details (details.ts: an expired or foreign one is a 400 page):
 *
 * GET  …/{uid}           show.tsx          the page of the provider's prompt
 * POST …/{uid}/login     submit-login.ts   the password checked, the host login started, the login step finished
 * POST …/{uid}/select    submit-login.ts   "Continue as" the host's person
 * POST …/{uid}/consent   decide.ts         Allow (the grant saved) or Deny (access_denied)
 * POST …/{uid}/refused   decide.ts         the refusal page's button: access_denied with the access_mode's reason
 */
import { Router } from 'express';
import { requireCsrf } from '../../auth/csrf.ts';
import { decideConsent, endRefused } from './decide.ts';
import type { InteractionDeps } from './details.ts';
import { showInteraction } from './show.tsx';
import { selectAccount, submitLogin } from './submit-login.ts';

export type { InteractionDeps } from './details.ts';

/** The interaction routes, in the order they are matched. */
export function interactionRouter(deps: InteractionDeps): Router {
  const router = Router();
  router.get('/oauth/interaction/:uid', showInteraction(deps));
  router.post('/oauth/interaction/:uid/login', requireCsrf, submitLogin(deps));
  router.post('/oauth/interaction/:uid/select', requireCsrf, selectAccount(deps));
  router.post('/oauth/interaction/:uid/consent', requireCsrf, decideConsent(deps));
  router.post('/oauth/interaction/:uid/refused', requireCsrf, endRefused(deps));
  return router;
}
