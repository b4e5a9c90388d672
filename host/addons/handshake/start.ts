/**
 * Step 0 → 1: the popup's start, a form POST with the session's CSRF token (host login required). The
 * Authorize button (addon-sdk/host/authorization.ts) and the failure page's restart link open step 0's page
 * (`GET`), which starts nothing itself and posts the form only for an opener of the host's own origin
 * (pages.tsx, `sendHandshakeStart`), so no other site can start an authorization for a signed-in
 * person. A person the organization's access_mode leaves out of the add-on's OAuth application gets the
 * `access_restricted` failure page here (and again at step 3).
 * A new handshake state is kept sealed in the cookie and as a digest with a deadline in the vault row;
 * starting again replaces it, so the flow can restart at any point. Then a redirect to the host's own
 * `/oauth/authorize` for the add-on's application, scopes and the integrator's redirect_url.
 */
import type { RequestHandler } from 'express';
import { ensureCsrfToken, getHostSession, hostPersonOf } from '../../auth/session.ts';
import { sendHandshakeStart } from './pages.tsx';
import { findOAuthApplication } from '../../oauth/applications.ts';
import { findInstallation } from '../registry/index.ts';
import { openHandshakeCookie } from './cookie.ts';
import type { HandshakeDeps } from './deps.ts';
import { beginLeg, requireAccess } from './legs.ts';
import { StepFailure } from './step-failure.ts';

/** `GET …/installations/{id}/authorize`: step 0's page; nothing started, nothing written. */
export const showHandshakeStart: RequestHandler = async (req, res) => {
  const csrfToken = await ensureCsrfToken(await getHostSession(req, res));
  sendHandshakeStart(res, {
    action: `/addons/installations/${encodeURIComponent(String(req.params.id))}/authorize`,
    csrfToken,
  });
};

/** `POST …/installations/{id}/authorize`: starts leg one. */
export function startHandshake(deps: HandshakeDeps): RequestHandler {
  const { db, vault, config } = deps;
  return async (req, res) => {
    const person = hostPersonOf(req);
    const installation = await findInstallation(db, String(req.params.id), person.organization_id);
    if (!installation)
      throw new StepFailure(
        404,
        'installation_not_found',
        'Add-on not found',
        'This add-on is not available to your organization.',
      );
    const { client_id: clientId } = (await findOAuthApplication(db, installation.oauthApplicationId))!;
    await requireAccess(deps, person, installation, clientId);
    const record = await vault.ensure(installation.id, person.id);
    const cookie = await openHandshakeCookie(config, req, res);
    cookie.installationId = installation.id;
    cookie.oauthApplicationId = installation.oauthApplicationId;
    cookie.personId = person.id;
    const state = (await beginLeg(deps, cookie, record.id, 'service'))!;
    const authorize = new URL('/oauth/authorize', config.baseUrl);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: installation.integratorOAuth.redirect_url,
      response_type: 'code',
      scope: installation.scopes.join(' '),
      state,
    }).toString();
    res.set('Cache-Control', 'no-store').redirect(303, authorize.toString());
  };
}
