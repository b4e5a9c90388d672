/**
 * Step 3 → 4 (`/authorizations/{oauth_application_id}/advance`, where the integrator sends the browser after
 * step 2): the state must match cookie and database, unexpired, same person, and carry the provider's
 * consent mark (consent.ts) — an integrator dropping `error=access_denied`, or a visit that skipped the
 * consent, gets no grant. The state is consumed in one statement that starts leg two (a new state and PKCE
 * verifier), so of concurrent requests exactly one goes on. The host then issues its own grant (a real
 * provider grant: refreshable, revocable, counted as MAU), replacing and revoking a previous one, stores it
 * sealed (`service_authorized` → `integrator_pending`) and redirects to the integrator's authorize_url
 * (state + S256 challenge).
 */
import type { Request, RequestHandler } from 'express';
import * as oidc from 'openid-client';
import { allowsPrivateAddresses } from '../../config.ts';
import { findOAuthApplication } from '../../oauth/applications.ts';
import { issueTokensForPerson } from '../../oauth/issue-tokens.ts';
import { revokeIssuedTokens } from '../../oauth/revoke-tokens.ts';
import { integratorClientSecret, type Installation } from '../registry/index.ts';
import { integratorOAuthClient, refusedIntegratorUrl } from '../tokens/index.ts';
import type { HandshakeDeps } from './deps.ts';
import { beginLeg, checkReturn, requireAccess, type CheckedReturn } from './legs.ts';
import { StepFailure } from './step-failure.ts';

/**
 * `…/authorizations/{oauth_application_id}/advance`: ends leg one, starts leg two — in order: the return checked
 * (legs.ts), access and consent required, the integrator's URL checked, the state consumed, the host grant
 * issued, the browser sent to the integrator.
 */
export function advanceHandshake(deps: HandshakeDeps): RequestHandler {
  return async (req, res) => {
    const checked = await checkReturn(deps, req, res, 'service');
    const { installation, person, recordId } = checked;
    const { client_id: clientId } = (await findOAuthApplication(deps.db, installation.oauthApplicationId))!;
    // Also explains an error=access_denied that /oauth/authorize sent for this reason.
    await requireAccess(deps, person, installation, clientId);
    requireServiceConsent(req, checked);
    refuseUnusableIntegratorUrl(deps, checked);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = await consumeLegOne(deps, checked, verifier);
    await issueHostGrant(deps, recordId, clientId, checked);
    const target = await integratorAuthorizeUrl(deps, installation, state, verifier);
    res.set('Cache-Control', 'no-store').redirect(303, target.toString());
  };
}

/** The provider's answer must be a grant (no `error`) and carry the consent mark of leg one. */
function requireServiceConsent(req: Request, { installation, state, consented }: CheckedReturn): void {
  if (typeof req.query.error === 'string') {
    throw new StepFailure(
      400,
      'service_denied',
      'Authorization declined',
      'Access to your data on this platform was not granted, so the add-on cannot be used.',
      installation.id,
      state,
      'host',
      true,
    );
  }
  if (!consented) {
    throw new StepFailure(
      400,
      'service_not_authorized',
      'Authorization not confirmed',
      'This platform has no record that you allowed the add-on during this authorization. Start it again from the add-on and allow access when asked.',
      installation.id,
      state,
    );
  }
}

/**
 * Before anything is consumed or issued: an integrator URL this host may not use is the add-on's configuration
 * to fix, said plainly (openid-client would refuse it later, after the host's tokens were issued).
 */
function refuseUnusableIntegratorUrl({ config }: HandshakeDeps, { installation, state }: CheckedReturn): void {
  const refused = refusedIntegratorUrl(installation, allowsPrivateAddresses(config));
  if (!refused) return;
  throw new StepFailure(
    502,
    'integrator_url_refused',
    'The add-on cannot be authorized on this platform',
    `The add-on's integrator address ${new URL(refused).origin} uses plain http, which this platform accepts only for a development add-on on this machine. The add-on's developer must use an https address.`,
    installation.id,
    state,
    'integrator',
    false,
    false,
  );
}

/** Consumes leg one's state by starting leg two: only one request with it gets past this step. Leg two's state. */
async function consumeLegOne(deps: HandshakeDeps, checked: CheckedReturn, verifier: string): Promise<string> {
  const { cookie, recordId, stateHash, installation } = checked;
  const state = await beginLeg(deps, cookie, recordId, 'integrator', verifier, stateHash);
  if (state) return state;
  throw new StepFailure(
    400,
    'state_mismatch',
    'The authorization cannot continue',
    'This authorization was already used or replaced by a newer one.',
    installation.id,
    (await deps.vault.findById(recordId))!.state,
  );
}

/**
 * The host's own grant to the add-on, stored sealed (`integrator_pending`). A restarted handshake replaces the
 * host grant: the previous tokens are revoked, not left behind.
 */
async function issueHostGrant(
  { db, vault, clock, provider }: HandshakeDeps,
  recordId: string,
  clientId: string,
  { installation, person }: CheckedReturn,
): Promise<void> {
  const previous = (await vault.findById(recordId))?.service;
  if (previous) await revokeIssuedTokens(provider, previous);
  const issued = await issueTokensForPerson(provider, db, {
    clientId,
    personId: person.id,
    scopes: installation.scopes,
  });
  const tokens = {
    accessToken: issued.access_token,
    refreshToken: issued.refresh_token,
    expiresAt: new Date(clock.now() + issued.expires_in * 1000),
    scope: issued.scope,
  };
  await vault.saveServiceTokens(recordId, tokens, installation.scopes);
  await vault.setState(recordId, 'integrator_pending');
}

/** The integrator's authorize_url for leg two: its state and the verifier's S256 challenge. */
async function integratorAuthorizeUrl(
  deps: HandshakeDeps,
  installation: Installation,
  state: string,
  verifier: string,
): Promise<URL> {
  const { db, config } = deps;
  const secret = await integratorClientSecret(db, deps.box, installation.versionId);
  const client = integratorOAuthClient(installation, secret, {
    timeoutSeconds: deps.tokenTimeoutSeconds,
    allowPrivateAddresses: allowsPrivateAddresses(config),
  });
  return oidc.buildAuthorizationUrl(client, {
    redirect_uri: `${config.baseUrl}/addons/authorizations/${installation.oauthApplicationId}`,
    response_type: 'code',
    scope: installation.integratorOAuth.scopes.join(' '),
    state,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
}
