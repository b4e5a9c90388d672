/**
 * The integrator's grant (authenticatedIntegratorFetch): refreshed at the integrator's token endpoint
 * from the add-on config, with the version's client credentials, through integrator-client.ts.
 */
import * as oidc from 'openid-client';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import {
  AddonError,
  HandshakeRequiredError,
  ReauthorizationRequiredError,
  TokenEndpointUnavailableError,
} from '../addon-error.ts';
import { integratorClientSecret } from '../registry/index.ts';
import { integratorOAuthClient, tokenRequestError } from './integrator-client.ts';
import type { GrantKind } from './grant-kind.ts';

/** What the integrator's grant needs. */
export interface IntegratorGrantOptions {
  db: Queryable;
  box: SecretBox;
  /** Seconds a token request may take. */
  timeoutSeconds: number;
  /** Development token endpoints on private addresses allowed (the operator's setting). */
  allowPrivateAddresses: boolean;
}

/** The integrator side of the refresh engine. */
export function integratorGrant(options: IntegratorGrantOptions): GrantKind {
  return {
    side: 'integrator',
    usable(state, tokens) {
      if (state === 'reauthorization_required') throw new ReauthorizationRequiredError();
      if (state !== 'ready' || !tokens) throw new HandshakeRequiredError('integrator_auth');
      return tokens;
    },
    reauthorization(reason) {
      return reason === 'refused'
        ? new ReauthorizationRequiredError()
        : new ReauthorizationRequiredError(
            'The integrator gave no refresh token and no longer accepts the access token; authorize the add-on again',
          );
    },
    unavailable: (message) => new TokenEndpointUnavailableError(message),
    async refresh(refreshToken, installation) {
      const secret = await integratorClientSecret(options.db, options.box, installation.versionId);
      const client = integratorOAuthClient(installation, secret, {
        timeoutSeconds: options.timeoutSeconds,
        allowPrivateAddresses: options.allowPrivateAddresses,
      });
      try {
        return await oidc.refreshTokenGrant(client, refreshToken);
      } catch (error) {
        throw tokenRequestError(error) satisfies AddonError;
      }
    },
  };
}
