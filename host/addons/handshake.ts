/**
 * The two-way handshake (the spec's steps 0–6), run in a popup the add-on's Authorize button opens:
 *
 * 0. `GET /addons/installations/{id}/authorize` — the popup's start (host login required; a person the
 *    organization's access_mode leaves out of the add-on's OAuth application gets the `access_restricted`
 *    failure page here, at step 3, and from /oauth/authorize in between): a new handshake state, kept
 *    sealed in the `addon_kit_handshake` cookie and as a SHA-256 digest with a deadline in the vault row.
 *    Starting again replaces it, so the flow can restart at any point.
 * 1. Redirect to `/oauth/authorize` for the add-on's OAuth application with the add-on scopes, the
 *    integrator's redirect_url and the handshake state; the person consents at the host. When the
 *    provider issues the code, `service-consent.ts` marks the row with the state's digest.
 * 2. The provider sends the code to the integrator's redirect_url; the integrator may exchange it and
 *    must redirect to `/addons/authorizations/{oauth_application_id}/advance?state=…`.
 * 3. advance: the state must match cookie and database, unexpired, same person, and carry the
 *    provider's consent mark (an integrator dropping `error=access_denied`, or a visit that skipped
 *    the consent, gets no grant). The state is consumed in one statement that starts leg two (a new
 *    state and PKCE verifier), so of concurrent requests exactly one goes on. The host then issues its
 *    own grant for the application and person (a real provider grant: refreshable, revocable, counted
 *    as MAU) and stores it sealed → `service_authorized` → `integrator_pending`.
 * 4. Redirect to the integrator's authorize_url (state + S256 challenge).
 * 5. `GET /addons/authorizations/{oauth_application_id}?code&state`: state checked again.
 * 6. openid-client POSTs code + verifier + the config's client credentials to token_url; tokens
 *    stored sealed → `ready`; the page tells the opener and closes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { getIronSession, type IronSession } from 'iron-session';
import * as oidc from 'openid-client';
import type Provider from 'oidc-provider';
import { requireHostLogin, hostPersonOf } from '../auth/session.ts';
import type { PersonRecord } from '../auth/person.ts';
import { allowsPrivateAddresses, type HostConfig } from '../config.ts';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { describeRefusal, findAccessRefusal, whoCanChange } from '../oauth/application-access.ts';
import { findOAuthApplication } from '../oauth/applications.ts';
import { issueTokensForPerson } from '../oauth/issue-tokens.ts';
import type { Clock } from './clock.ts';
import { sendHandshakeDone, sendHandshakeFailure } from './handshake-pages.tsx';
import { findInstallation, integratorClientSecret, type Installation } from './installations.ts';
import { integratorOAuthClient, tokenRequestError, tokenSetOf } from './integrator-client.ts';
import { handshakeStateDigest as digest } from './service-consent.ts';
import type { AuthorizationState, TokenVault } from './token-vault.ts';

/** What the handshake routes need. */
export interface HandshakeDeps {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  config: HostConfig;
  clock: Clock;
  provider: Provider;
  logger: Logger;
  tokenTimeoutSeconds: number;
}

/** Name of the handshake cookie (sealed with iron-session, scoped to `/addons`). */
export const HANDSHAKE_COOKIE = 'addon_kit_handshake';
/** A handshake must finish within 15 minutes of its current leg's start. */
const HANDSHAKE_TTL_MS = 15 * 60 * 1000;

interface HandshakeCookie {
  installationId?: string;
  oauthApplicationId?: string;
  personId?: string;
  /** Which redirect is expected next. */
  leg?: 'service' | 'integrator';
  state?: string;
  /** PKCE verifier of the integrator leg. */
  codeVerifier?: string;
}

type Cookie = IronSession<HandshakeCookie>;

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/** Which prompt a step belongs to, as the popup reports it to the opener. */
type Side = 'host' | 'integrator';

class StepFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string,
    readonly installationId?: string,
    readonly state?: AuthorizationState,
    readonly side: Side = 'host',
    /** The person chose Deny: the popup tells the opener and closes instead of offering a restart. */
    readonly declined = false,
    /** False when starting again cannot help (the organization refuses the person). */
    readonly restartable = true,
  ) {
    super(detail);
  }
}

/**
 * Refuses (403 `access_restricted`) a person the organization's access_mode does not admit to the add-on's
 * OAuth application, read now: the same rule /oauth/authorize applies, checked before the handshake
 * sends the person there and again before the host issues its own grant.
 */
async function requireAccess(
  deps: Pick<HandshakeDeps, 'db' | 'vault'>,
  person: PersonRecord,
  installation: Installation,
  clientId: string,
): Promise<void> {
  const refusal = await findAccessRefusal(deps.db, { personId: person.id, clientId });
  if (!refusal) return;
  const state = (await deps.vault.find(installation.id, person.id))?.state ?? 'uninitialized';
  const message = `${describeRefusal(refusal)} ${whoCanChange(refusal)}`;
  throw new StepFailure(403, 'access_restricted', 'You cannot connect this add-on', message, installation.id, state, 'host', false, false);
}

/** The routes of steps 0, 3 and 5 (mounted under `/addons`). */
export function handshakeRouter(deps: HandshakeDeps): Router {
  const { db, vault, config, clock } = deps;
  const hostOrigin = new URL(config.baseUrl).origin;
  const router = Router();

  const cookieOf = (req: Request, res: Response): Promise<Cookie> =>
    getIronSession<HandshakeCookie>(req, res, {
      cookieName: HANDSHAKE_COOKIE,
      password: config.sessionSecret,
      ttl: HANDSHAKE_TTL_MS / 1000,
      // Lax: steps 3 and 5 are top-level GET navigations coming back from the integrator's site.
      cookieOptions: { httpOnly: true, sameSite: 'lax', secure: config.baseUrl.startsWith('https:'), path: '/addons' },
    });

  /**
   * Starts (or restarts) a leg: a fresh state in cookie and database, no consent mark. With `replacing`
   * (the digest of the state being consumed), only if the row still holds that state, consented and
   * unexpired — one statement, so of concurrent requests with one state exactly one gets a new state;
   * the others get undefined.
   */
  async function beginLeg(cookie: Cookie, recordId: string, leg: 'service' | 'integrator', codeVerifier?: string, replacing?: string): Promise<string | undefined> {
    const state = randomBytes(32).toString('base64url');
    const now = clock.now();
    const sealedVerifier = codeVerifier ? vault.seal(recordId, 'handshake_code_verifier_encrypted', codeVerifier) : null;
    const next = { stateHash: digest(state), expiresAt: new Date(now + HANDSHAKE_TTL_MS), sealedVerifier };
    if (!(await vault.store.beginLeg(recordId, next, replacing ? { stateHash: replacing, now: new Date(now) } : undefined))) return undefined;
    cookie.leg = leg;
    cookie.state = state;
    if (codeVerifier) cookie.codeVerifier = codeVerifier;
    else delete cookie.codeVerifier;
    await cookie.save();
    return state;
  }

  /** Steps 3 and 5: the returning state must be this browser's, this person's, the database's, and fresh. */
  async function checkReturn(
    req: Request,
    res: Response,
    leg: 'service' | 'integrator',
  ): Promise<{ cookie: Cookie; installation: Installation; person: PersonRecord; recordId: string; state: AuthorizationState; stateHash: string; consented: boolean }> {
    const person = hostPersonOf(req);
    const cookie = await cookieOf(req, res);
    const returned = typeof req.query.state === 'string' ? req.query.state : undefined;
    const appId = String(req.params.oauthApplicationId);
    const known = cookie.installationId && cookie.personId === person.id && cookie.oauthApplicationId === appId ? cookie.installationId : undefined;
    const installation = known ? await findInstallation(db, known, person.organization_id) : undefined;
    if (!installation || !cookie.state) {
      throw new StepFailure(400, 'handshake_not_started', 'No authorization in progress', 'This browser has no add-on authorization in progress for this application, or it has expired. Start it again from the add-on.');
    }
    const record = await vault.find(installation.id, person.id);
    const fail = (code: string, title: string, detail: string) => new StepFailure(400, code, title, detail, installation.id, record?.state ?? 'uninitialized');
    if (!returned) throw fail('state_missing', 'The authorization cannot continue', 'The request carries no state parameter.');
    if (cookie.leg !== leg || !sameSecret(returned, cookie.state)) throw fail('state_mismatch', 'The authorization cannot continue', 'The state parameter does not belong to the authorization this browser started.');
    const row = await vault.store.handshakeOf(installation.id, person.id);
    if (!row || !row.stateHash || !sameSecret(digest(returned), row.stateHash)) {
      throw fail('state_mismatch', 'The authorization cannot continue', 'This authorization was replaced by a newer one or already finished.');
    }
    if (!row.expiresAt || row.expiresAt.getTime() <= clock.now()) {
      throw fail('state_expired', 'The authorization expired', 'The authorization took too long.');
    }
    const consented = !!row.consentHash && sameSecret(row.consentHash, row.stateHash);
    return { cookie, installation, person, recordId: row.id, state: record!.state, stateHash: row.stateHash, consented };
  }

  const render = (res: Response, error: unknown) => {
    if (!(error instanceof StepFailure)) throw error;
    sendHandshakeFailure(res, {
      status: error.status,
      code: error.code,
      title: error.title,
      message: error.detail,
      hostOrigin,
      ...(error.installationId ? { installationId: error.installationId } : {}),
      ...(error.state ? { state: error.state } : {}),
      side: error.side,
      declined: error.declined,
      restartable: error.restartable,
    });
  };

  // Step 0 → 1.
  router.get('/installations/:id/authorize', requireHostLogin, async (req, res) => {
    try {
      const person = hostPersonOf(req);
      const installation = await findInstallation(db, String(req.params.id), person.organization_id);
      if (!installation) throw new StepFailure(404, 'installation_not_found', 'Add-on not found', 'This add-on is not available to your organization.');
      const { client_id: clientId } = (await findOAuthApplication(db, installation.oauthApplicationId))!;
      await requireAccess(deps, person, installation, clientId);
      const record = await vault.ensure(installation.id, person.id);
      const cookie = await cookieOf(req, res);
      cookie.installationId = installation.id;
      cookie.oauthApplicationId = installation.oauthApplicationId;
      cookie.personId = person.id;
      const state = (await beginLeg(cookie, record.id, 'service'))!;
      const authorize = new URL('/oauth/authorize', config.baseUrl);
      authorize.search = new URLSearchParams({
        client_id: clientId,
        redirect_uri: installation.integratorOAuth.redirect_url,
        response_type: 'code',
        scope: installation.scopes.join(' '),
        state,
      }).toString();
      res.set('Cache-Control', 'no-store').redirect(303, authorize.toString());
    } catch (error) {
      render(res, error);
    }
  });

  // Step 3 → 4.
  router.get('/authorizations/:oauthApplicationId/advance', requireHostLogin, async (req, res) => {
    try {
      const { cookie, installation, person, recordId, state: current, stateHash, consented } = await checkReturn(req, res, 'service');
      const { client_id: clientId } = (await findOAuthApplication(db, installation.oauthApplicationId))!;
      // Also explains an error=access_denied that /oauth/authorize sent for this reason.
      await requireAccess(deps, person, installation, clientId);
      if (typeof req.query.error === 'string') {
        throw new StepFailure(400, 'service_denied', 'Authorization declined', 'Access to your data on this platform was not granted, so the add-on cannot be used.', installation.id, current, 'host', true);
      }
      if (!consented) {
        throw new StepFailure(400, 'service_not_authorized', 'Authorization not confirmed', 'This platform has no record that you allowed the add-on during this authorization. Start it again from the add-on and allow access when asked.', installation.id, current);
      }
      // Consumes the state: only one request with it gets past this line.
      const verifier = oidc.randomPKCECodeVerifier();
      const state = await beginLeg(cookie, recordId, 'integrator', verifier, stateHash);
      if (!state) {
        throw new StepFailure(400, 'state_mismatch', 'The authorization cannot continue', 'This authorization was already used or replaced by a newer one.', installation.id, (await vault.findById(recordId))!.state);
      }
      // A restarted handshake replaces the host grant: the previous tokens are revoked, not left behind.
      const previous = (await vault.findById(recordId))?.service;
      if (previous) {
        await (await deps.provider.AccessToken.find(previous.accessToken))?.destroy();
        if (previous.refreshToken) await (await deps.provider.RefreshToken.find(previous.refreshToken))?.destroy();
      }
      const issued = await issueTokensForPerson(deps.provider, db, { clientId: clientId, personId: person.id, scopes: installation.scopes });
      const now = clock.now();
      await vault.saveServiceTokens(recordId, { accessToken: issued.access_token, refreshToken: issued.refresh_token, expiresAt: new Date(now + issued.expires_in * 1000), scope: issued.scope }, installation.scopes);
      await vault.setState(recordId, 'integrator_pending');
      const client = integratorOAuthClient(installation, await integratorClientSecret(db, deps.box, installation.versionId), { timeoutSeconds: deps.tokenTimeoutSeconds, allowPrivateAddresses: allowsPrivateAddresses(deps.config) });
      const target = oidc.buildAuthorizationUrl(client, {
        redirect_uri: `${config.baseUrl}/addons/authorizations/${installation.oauthApplicationId}`,
        response_type: 'code',
        scope: installation.integratorOAuth.scopes.join(' '),
        state,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      res.set('Cache-Control', 'no-store').redirect(303, target.toString());
    } catch (error) {
      render(res, error);
    }
  });

  // Step 5 → 6.
  router.get('/authorizations/:oauthApplicationId', requireHostLogin, async (req, res) => {
    try {
      const { cookie, installation, recordId } = await checkReturn(req, res, 'integrator');
      const pending = (await vault.findById(recordId))!.state;
      if (typeof req.query.error === 'string') {
        throw new StepFailure(400, 'integrator_denied', 'Authorization declined', 'Access to the add-on’s service was not granted, so the add-on cannot be used.', installation.id, pending, 'integrator', true);
      }
      const sealed = await vault.store.sealedVerifier(recordId);
      const verifier = sealed ? vault.open(recordId, 'handshake_code_verifier_encrypted', sealed) : undefined;
      if (!verifier || verifier !== cookie.codeVerifier) {
        throw new StepFailure(400, 'state_mismatch', 'The authorization cannot continue', 'This authorization was replaced by a newer one.', installation.id, pending);
      }
      const client = integratorOAuthClient(installation, await integratorClientSecret(db, deps.box, installation.versionId), { timeoutSeconds: deps.tokenTimeoutSeconds, allowPrivateAddresses: allowsPrivateAddresses(deps.config) });
      const currentUrl = new URL(req.originalUrl, config.baseUrl);
      let tokens: oidc.TokenEndpointResponse;
      try {
        tokens = await oidc.authorizationCodeGrant(client, currentUrl, { pkceCodeVerifier: verifier, expectedState: cookie.state! });
      } catch (error) {
        const typed = tokenRequestError(error);
        deps.logger.warn({ installationId: installation.id, code: typed.code }, 'integrator code exchange failed');
        throw new StepFailure(502, typed.code, 'The add-on’s service refused the authorization', 'Exchanging the authorization code with the add-on’s service failed. Start the authorization again.', installation.id, pending, 'integrator');
      }
      await db.transaction(async (tx) => {
        await vault.saveIntegratorTokens(recordId, tokenSetOf(tokens, clock.now()), { q: tx, state: 'ready' });
        // Single use: the finished handshake's state and verifier are gone.
        await vault.store.clearHandshake(recordId, tx);
      });
      cookie.destroy();
      sendHandshakeDone(res, hostOrigin, installation.id);
    } catch (error) {
      render(res, error);
    }
  });

  return router;
}
