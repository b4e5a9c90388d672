/**
 * Step 6: openid-client POSTs the code, the verifier and the config's client credentials to the integrator's
 * token_url; the tokens are stored sealed → `ready`, the handshake's state and verifier cleared (single
 * use), the `addon.authorization.completed` lifecycle event recorded in the same transaction (host/addons/lifecycle),
 * and the last page tells the opener and closes.
 */
import type { RequestHandler } from 'express';
import * as oidc from 'openid-client';
import { allowsPrivateAddresses } from '../../config.ts';
import { sendHandshakeDone } from './pages.tsx';
import { integratorClientSecret } from '../registry/index.ts';
import { integratorSubjectOf, recordAddonLifecycleEvent } from '../lifecycle/index.ts';
import { integratorOAuthClient, tokenRequestError, tokenSetOf } from '../tokens/index.ts';
import type { HandshakeDeps } from './deps.ts';
import { integratorCallbackOf } from './integrator-callback.ts';
import { StepFailure } from './step-failure.ts';

/** Exchanges the integrator's code and finishes the handshake. */
export function completeHandshake(deps: HandshakeDeps): RequestHandler {
  const { db, vault, config, clock } = deps;
  const hostOrigin = new URL(config.baseUrl).origin;
  return async (req, res) => {
    const { cookie, installation, recordId, personId, state, verifier } = integratorCallbackOf(res);
    const secret = await integratorClientSecret(db, deps.box, installation.versionId);
    const client = integratorOAuthClient(installation, secret, {
      timeoutSeconds: deps.tokenTimeoutSeconds,
      allowPrivateAddresses: allowsPrivateAddresses(config),
    });
    let tokens: oidc.TokenEndpointResponse;
    try {
      tokens = await oidc.authorizationCodeGrant(client, new URL(req.originalUrl, config.baseUrl), {
        pkceCodeVerifier: verifier,
        expectedState: cookie.state!,
      });
    } catch (error) {
      const typed = tokenRequestError(error);
      deps.logger.warn({ installationId: installation.id, code: typed.code }, 'integrator code exchange failed');
      throw new StepFailure(
        502,
        typed.code,
        'The add-on’s service refused the authorization',
        'Exchanging the authorization code with the add-on’s service failed. Start the authorization again.',
        installation.id,
        state,
        'integrator',
      );
    }
    const subject = integratorSubjectOf(tokens);
    await db.transaction(async (tx) => {
      await vault.saveIntegratorTokens(recordId, tokenSetOf(tokens, clock.now()), { q: tx, state: 'ready', subject });
      await vault.store.clearHandshake(recordId, tx);
      // In the same transaction: the integrator hears of every completed handshake, and of no rolled-back one.
      await recordAddonLifecycleEvent(tx, deps.box, {
        name: 'addon.authorization.completed',
        installation,
        personId,
        integratorSubject: subject,
        occurredAt: new Date(clock.now()),
      });
    });
    cookie.destroy();
    sendHandshakeDone(res, hostOrigin, installation.id);
  };
}
