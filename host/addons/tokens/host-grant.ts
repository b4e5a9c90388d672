/**
 * The host's own grant (authenticatedFetch): issued by the host's OAuth provider in step 1 of the
 * handshake to the add-on's OAuth application for the person. The host refreshes it like any OAuth
 * client would — openid-client against its own token endpoint (over the loopback port) with the
 * application's credentials — so rotation, revocation and monthly-active-user counting all apply.
 */
import * as oidc from 'openid-client';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import { clientCredentials } from '../../oauth/applications.ts';
import { AddonError, HandshakeRequiredError } from '../addon-error.ts';
import type { Loopback } from '../upstream/index.ts';
import type { GrantKind } from './grant-kind.ts';

/** What the host's grant needs. */
export interface HostGrantOptions {
  db: Queryable;
  box: SecretBox;
  loopback: Loopback;
  /** The host's issuer (its public base URL). */
  issuer: string;
  /** Seconds a token request may take. */
  timeoutSeconds: number;
}

/** The person must run the handshake again: the host grant is gone. */
function reauthorize(): AddonError {
  return new AddonError(
    401,
    'host_auth',
    'reauthorization_required',
    'The host no longer accepts this add-on authorization; authorize the add-on again',
    false,
  );
}

/** The host side of the refresh engine. */
export function hostGrant(options: HostGrantOptions): GrantKind {
  const { db, box } = options;

  async function client(oauthApplicationId: string): Promise<oidc.Configuration> {
    const app = await clientCredentials(db, box, oauthApplicationId);
    if (!app)
      throw new AddonError(
        500,
        'host_auth',
        'internal_error',
        "The add-on's OAuth application has no client secret",
        false,
      );
    const config = new oidc.Configuration(
      { issuer: options.issuer, token_endpoint: `${await options.loopback.origin()}/oauth/token` },
      app.clientId,
      { token_endpoint_auth_method: 'client_secret_post' },
      oidc.ClientSecretPost(app.clientSecret),
    );
    config.timeout = options.timeoutSeconds;
    // The loopback port is plain HTTP on 127.0.0.1, never the network.
    oidc.allowInsecureRequests(config);
    return config;
  }

  return {
    side: 'service',
    usable(state, tokens) {
      if (state === 'reauthorization_required') throw reauthorize();
      if (state === 'uninitialized' || !tokens) throw new HandshakeRequiredError('host_auth');
      return tokens;
    },
    reauthorization: () => reauthorize(),
    unavailable: (message) => new AddonError(503, 'host_auth', 'token_endpoint_unavailable', message, true),
    async refresh(refreshToken, installation) {
      const config = await client(installation.oauthApplicationId);
      try {
        return await oidc.refreshTokenGrant(config, refreshToken);
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') throw reauthorize();
        throw new AddonError(
          503,
          'host_auth',
          'token_endpoint_unavailable',
          'The host could not refresh its add-on token',
          true,
        );
      }
    },
  };
}
