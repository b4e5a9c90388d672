/**
 * The host's own token for authenticatedFetch: the grant its OAuth provider issued in step 1 to the
 * add-on's OAuth application for the person. The host refreshes it like any OAuth client would —
 * openid-client against its own token endpoint (over the loopback port) with the application's
 * credentials — so refresh rotation, revocation and monthly-active-user counting all apply. Same
 * single-flight discipline as the integrator refresher: one promise per record in a process, the
 * vault row locked across processes, the rotated refresh token committed before use.
 */
import * as oidc from 'openid-client';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database, Queryable } from '../db/database.ts';
import { clientCredentials } from '../oauth/applications.ts';
import { AddonError, HandshakeRequiredError } from './addon-error.ts';
import type { Clock } from './clock.ts';
import type { Installation } from './installations.ts';
import type { Loopback } from './loopback.ts';
import { dueForRefresh, underRefreshLock } from './refresher.ts';
import type { TokenVault, VaultRecord } from './token-vault.ts';

/** What the host-token source needs. */
export interface ServiceTokensOptions {
  db: Database;
  box: SecretBox;
  vault: TokenVault;
  clock: Clock;
  loopback: Loopback;
  /** The host's issuer (its public base URL). */
  issuer: string;
  leadMs: number;
  timeoutSeconds: number;
}

/** The host's own add-on tokens, refreshed when due. */
export interface ServiceTokens {
  /** A usable host access token of the record (refreshed when due or when `rejected` by the API). */
  accessToken(record: VaultRecord, installation: Installation, options?: { rejected?: string }): Promise<string>;
}

/** The person must run the handshake again: the host grant is gone. */
function reauthorize(): AddonError {
  return new AddonError(401, 'host_auth', 'reauthorization_required', 'The host no longer accepts this add-on authorization; authorize the add-on again', false);
}

/** An openid-client Configuration of the add-on's OAuth application against the host's own token endpoint. */
export async function serviceOAuthClient(q: Queryable, box: SecretBox, oauthApplicationId: string, issuer: string, tokenEndpoint: string, timeoutSeconds: number): Promise<oidc.Configuration> {
  const app = await clientCredentials(q, box, oauthApplicationId);
  if (!app) throw new AddonError(500, 'host_auth', 'internal_error', "The add-on's OAuth application has no client secret", false);
  const config = new oidc.Configuration(
    { issuer, token_endpoint: tokenEndpoint },
    app.clientId,
    { token_endpoint_auth_method: 'client_secret_post' },
    oidc.ClientSecretPost(app.clientSecret),
  );
  config.timeout = timeoutSeconds;
  // The loopback port is plain HTTP on 127.0.0.1, never the network.
  oidc.allowInsecureRequests(config);
  return config;
}

/** Creates the host-token source. */
export function createServiceTokens(options: ServiceTokensOptions): ServiceTokens {
  const { db, box, vault, clock } = options;
  const inFlight = new Map<string, Promise<string>>();

  async function refreshLocked(recordId: string, installation: Installation, stale: string): Promise<string> {
    const outcome = await underRefreshLock(db, async (tx, lock) => {
      const current = await vault.findById(recordId, { q: tx, forUpdate: lock });
      const service = current?.service;
      if (!current || !service || current.state === 'uninitialized') throw new HandshakeRequiredError('host_auth');
      if (service.accessToken !== stale) return { token: service.accessToken };
      if (!service.refreshToken) {
        await vault.setState(current.id, 'reauthorization_required', tx);
        return { error: reauthorize() };
      }
      const client = await serviceOAuthClient(tx, box, installation.oauthApplicationId, options.issuer, `${await options.loopback.origin()}/oauth/token`, options.timeoutSeconds);
      let response: oidc.TokenEndpointResponse;
      try {
        response = await oidc.refreshTokenGrant(client, service.refreshToken);
      } catch (error) {
        if (error instanceof oidc.ResponseBodyError && error.error === 'invalid_grant') {
          await vault.setState(current.id, 'reauthorization_required', tx);
          return { error: reauthorize() };
        }
        throw new AddonError(503, 'host_auth', 'token_endpoint_unavailable', 'The host could not refresh its add-on token', true);
      }
      const now = clock.now();
      await vault.replaceServiceTokens(
        current.id,
        {
          accessToken: response.access_token,
          refreshToken: response.refresh_token,
          expiresAt: typeof response.expires_in === 'number' ? new Date(now + response.expires_in * 1000) : undefined,
          scope: response.scope,
        },
        tx,
      );
      return { token: response.access_token };
    });
    if ('error' in outcome) throw outcome.error;
    return outcome.token;
  }

  return {
    accessToken(record, installation, opts = {}) {
      if (record.state === 'reauthorization_required') return Promise.reject(reauthorize());
      const service = record.service;
      if (!service || record.state === 'uninitialized') return Promise.reject(new HandshakeRequiredError('host_auth'));
      if (!dueForRefresh(service.expiresAt, clock.now(), options.leadMs) && opts.rejected !== service.accessToken) return Promise.resolve(service.accessToken);
      const running = inFlight.get(record.id);
      if (running) return running;
      const flight = refreshLocked(record.id, installation, service.accessToken).finally(() => inFlight.delete(record.id));
      inFlight.set(record.id, flight);
      return flight;
    },
  };
}
