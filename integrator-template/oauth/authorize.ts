/**
 * The authorization endpoint: GET shows the consent prompt (after login), POST records the decision
 * and redirects back with a code or `access_denied`.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-4.1.1
 */
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { createAuthorizationCode } from '../store/authorization-codes.ts';
import { findUser } from '../store/users.ts';
import { consentPage } from '../pages/consent-page.ts';
import { messagePage } from '../pages/page.ts';
import type { PageSite } from '../pages/site.ts';
import { csrfMatches, csrfToken, openSession } from '../session.ts';
import type { IntegratorContext } from '../context.ts';
import { checkAuthorizationRequest, redirectWith, type AuthorizationCheck } from './authorization-request.ts';
import { sessionApplicationOf, sessionCallbacks } from './session-applications.ts';

function sendCheckFailure(
  site: PageSite,
  res: Response,
  check: Exclude<AuthorizationCheck, { kind: 'ok' }>,
  status: 302 | 303,
): void {
  if (check.kind === 'page') {
    res
      .status(check.status)
      .type('html')
      .send(messagePage(site, check.title, check.detail));
    return;
  }
  res.redirect(
    status,
    redirectWith(check.redirectUri, { error: check.error, error_description: check.description, state: check.state }),
  );
}

/** GET and POST /oauth/authorize. */
export function authorizeRouter(ctx: IntegratorContext): Router {
  const router = Router();
  router.get('/oauth/authorize', showConsent(ctx));
  router.post('/oauth/authorize', express.urlencoded({ extended: false, limit: ctx.config.maxBodyBytes }), decide(ctx));
  return router;
}

/** The request checked, the user logged in (or sent to log in), the consent prompt shown. */
function showConsent(ctx: IntegratorContext): RequestHandler {
  return async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const session = await openSession(req, res, ctx.session);
    const check = checkAuthorizationRequest(req.query, ctx.config, sessionCallbacks(ctx.config, session));
    if (check.kind !== 'ok') return sendCheckFailure(ctx.site, res, check, 302);
    const user = session.userId ? await findUser(ctx.db, session.userId) : null;
    if (!user) return res.redirect(302, `/login?${new URLSearchParams({ return_to: req.originalUrl })}`);
    const { request } = check;
    // An application learnt at completion is named as the host names it, when the integrator can ask.
    const learnt = sessionApplicationOf(ctx.config, session, request.redirectUri);
    const learntName = learnt === undefined ? undefined : await ctx.applicationName?.(learnt);
    res.type('html').send(
      consentPage(ctx.site, {
        addonName: learntName ?? request.client.name,
        hostName: request.client.host_name ?? new URL(request.redirectUri).host,
        userName: user.name,
        scopes: request.scopes.map((name) => ({ name, description: ctx.config.scopes[name] ?? name })),
        fields: {
          csrf_token: await csrfToken(session),
          client_id: request.client.client_id,
          redirect_uri: request.redirectUri,
          response_type: 'code',
          scope: request.scopes.join(' '),
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256',
          ...(request.state !== undefined ? { state: request.state } : {}),
        },
      }),
    );
  };
}

/** The decision posted (CSRF-checked, every hidden field checked again): a code, or `access_denied`. */
function decide(ctx: IntegratorContext): RequestHandler {
  return async (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const session = await openSession(req, res, ctx.session);
    if (!csrfMatches(session, body.csrf_token)) {
      const detail = 'The form was not recognised (CSRF check failed). Start the authorization again.';
      return res
        .status(403)
        .type('html')
        .send(messagePage(ctx.site, 'Request expired', detail));
    }
    // The hidden fields came back from the browser: trust nothing, check them all again.
    const check = checkAuthorizationRequest(body, ctx.config, sessionCallbacks(ctx.config, session));
    if (check.kind !== 'ok') return sendCheckFailure(ctx.site, res, check, 303);
    const { request } = check;
    const user = session.userId ? await findUser(ctx.db, session.userId) : null;
    if (!user) {
      const detail = 'Your session ended. Start the authorization again.';
      return res
        .status(401)
        .type('html')
        .send(messagePage(ctx.site, 'Signed out', detail));
    }
    if (body.decision === 'deny') {
      const denied = { error: 'access_denied', error_description: 'the user denied the request', state: request.state };
      return res.redirect(303, redirectWith(request.redirectUri, denied));
    }
    if (body.decision !== 'allow')
      return res
        .status(400)
        .type('html')
        .send(messagePage(ctx.site, 'No decision', 'Choose Allow or Deny.'));
    const code = await createAuthorizationCode(
      ctx.db,
      {
        clientId: request.client.client_id,
        userId: user.id,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope: request.scopes.join(' '),
      },
      ctx.now(),
      ctx.config.codeTtlSeconds,
    );
    res.redirect(303, redirectWith(request.redirectUri, { code, state: request.state }));
  };
}
