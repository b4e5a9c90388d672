/**
 * The host as an OAuth client of the integrator (steps 4–6 and refresh), through openid-client: a
 * Configuration built from the add-on config's URLs (the integrator need not publish discovery
 * metadata), client_secret_post with the config's credentials.
 */
import * as oidc from 'openid-client';
import { isLoopbackUrl } from '../../http/loopback-url.ts';
import { upstreamFetch } from '../upstream/index.ts';
import type { UpstreamPool } from '../../outbound/index.ts';

export { isLoopbackUrl };
import {
  AddonError,
  ReauthorizationRequiredError,
  TokenEndpointUnavailableError,
  UpstreamError,
} from '../addon-error.ts';
import type { Installation } from '../registry/index.ts';
import type { TokenSet } from '../authorizations/index.ts';

/** Options of the integrator OAuth client. */
export interface IntegratorClientOptions {
  /** Seconds before a token request is abandoned. */
  timeoutSeconds: number;
  /** Development installations may use a private or loopback token endpoint (the operator's `allowsPrivateAddresses`). */
  allowPrivateAddresses: boolean;
  /** The keep-alive connections of token requests (the process's pool unless a test passes its own). */
  pool?: UpstreamPool;
}

/**
 * The integrator OAuth URL this host refuses for the installation, if any: a plain-http `authorize_url` or
 * `token_url` is accepted only for a development add-on on this machine, and only while the operator lets development
 * add-ons reach private addresses (openid-client refuses anything else, as it must). Undefined when both are usable.
 */
export function refusedIntegratorUrl(installation: Installation, allowPrivateAddresses: boolean): string | undefined {
  const settings = installation.integratorOAuth;
  const allowPrivate = installation.environment === 'development' && allowPrivateAddresses;
  const insecureAllowed = allowPrivate && isLoopbackUrl(settings.token_url);
  return [settings.authorize_url, settings.token_url].find(
    (url) => new URL(url).protocol !== 'https:' && !insecureAllowed,
  );
}

/** An openid-client Configuration for an installation's integrator. */
export function integratorOAuthClient(
  installation: Installation,
  clientSecret: string,
  options: IntegratorClientOptions,
): oidc.Configuration {
  const settings = installation.integratorOAuth;
  const issuer = new URL(settings.authorize_url).origin;
  const config = new oidc.Configuration(
    { issuer, authorization_endpoint: settings.authorize_url, token_endpoint: settings.token_url },
    settings.client_id,
    { token_endpoint_auth_method: 'client_secret_post' },
    oidc.ClientSecretPost(clientSecret),
  );
  config.timeout = options.timeoutSeconds;
  const allowPrivate = installation.environment === 'development' && options.allowPrivateAddresses;
  // Plain HTTP only for a development environment's integrator on this machine (the template).
  if (allowPrivate && isLoopbackUrl(settings.token_url)) oidc.allowInsecureRequests(config);
  // Every token request goes through the proxy's pool and its pinned, checked lookup: outside development the
  // address connected to is the address checked to be public (no SSRF into the host's network, no rebinding).
  config[oidc.customFetch] = upstreamFetch(allowPrivate, options.pool);
  return config;
}

/** A token endpoint response as the vault stores it; `now` anchors expires_in. */
export function tokenSetOf(response: oidc.TokenEndpointResponse, now: number): TokenSet {
  return {
    accessToken: response.access_token,
    refreshToken: response.refresh_token,
    expiresAt: typeof response.expires_in === 'number' ? new Date(now + response.expires_in * 1000) : undefined,
    scope: response.scope,
  };
}

/** What a token endpoint that is down is said to be (whichever way the exchange found it so). */
const NO_ANSWER_IN_TIME = "The integrator's token endpoint did not answer in time";
const CANNOT_BE_REACHED = "The integrator's token endpoint cannot be reached";

/**
 * Maps a failed token request to the proxy's typed errors: `invalid_grant` is final (the person must
 * authorize again, RFC 6749 §5.2); a timeout, a network failure or a 5xx can pass, so it is retryable.
 */
export function tokenRequestError(error: unknown): AddonError {
  // A refusal from upstreamFetch arrives as is, or wrapped (as a cause) by openid-client: the policy's as it is; the
  // exchange's (no connection, no answer in time) said as the token endpoint's, however the network failed.
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UpstreamError && (e.code === 'upstream_unreachable' || e.code === 'upstream_timeout'))
      return new TokenEndpointUnavailableError(e.code === 'upstream_timeout' ? NO_ANSWER_IN_TIME : CANNOT_BE_REACHED);
    if (e instanceof AddonError) return e;
  }
  if (error instanceof oidc.ClientError && error.code === 'OAUTH_HTTP_REQUEST_FORBIDDEN') {
    return new AddonError(502, 'policy', 'not_allowed', "The integrator's token endpoint must use https here", false);
  }
  if (error instanceof oidc.ResponseBodyError) {
    if (error.error === 'invalid_grant') return new ReauthorizationRequiredError();
    if (error.status >= 500)
      return new TokenEndpointUnavailableError(`The integrator's token endpoint failed (HTTP ${error.status})`);
    return new AddonError(
      502,
      'integrator_auth',
      'token_request_refused',
      `The integrator's token endpoint refused the request (${error.error})`,
      false,
    );
  }
  const name = (error as { name?: string; cause?: { name?: string } })?.name;
  const causeName = (error as { cause?: { name?: string } })?.cause?.name;
  if (name === 'TimeoutError' || causeName === 'TimeoutError' || name === 'AbortError') {
    return new TokenEndpointUnavailableError(NO_ANSWER_IN_TIME);
  }
  if (error instanceof TypeError) return new TokenEndpointUnavailableError(CANNOT_BE_REACHED);
  if (error instanceof oidc.ClientError && error.code === 'OAUTH_RESPONSE_IS_NOT_CONFORM') {
    return new TokenEndpointUnavailableError("The integrator's token endpoint answered with an unexpected status");
  }
  return new AddonError(
    502,
    'integrator_auth',
    'token_request_refused',
    "The integrator's token endpoint answered with something that is not a token response",
    false,
  );
}
