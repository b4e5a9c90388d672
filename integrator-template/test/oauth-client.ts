/** openid-client 6 configured against a test integrator, as the host configures it. */
import * as client from 'openid-client';
import { CLIENT_ID, CLIENT_SECRET, REDIRECT_URI, USER, authorizeInBrowser, Browser } from './support.ts';

/** A client of the integrator's authorization server (Basic or post authentication). */
export function integratorClient(
  baseUrl: string,
  auth: 'basic' | 'post' = 'basic',
  secret = CLIENT_SECRET,
  clientId = CLIENT_ID,
): client.Configuration {
  const config = new client.Configuration(
    { issuer: baseUrl, authorization_endpoint: `${baseUrl}/oauth/authorize`, token_endpoint: `${baseUrl}/oauth/token` },
    clientId,
    {},
    auth === 'basic' ? client.ClientSecretBasic(secret) : client.ClientSecretPost(secret),
  );
  client.allowInsecureRequests(config);
  return config;
}

/** Runs authorize (login + consent) and returns the callback URL with its PKCE verifier and state. */
export async function authorizeWith(
  config: client.Configuration,
  options: {
    user?: { username: string; password: string };
    browser?: Browser;
    redirectUri?: string;
    scope?: string;
  } = {},
): Promise<{ callback: URL; verifier: string; state: string }> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    scope: options.scope ?? 'messages',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
  });
  const callback = await authorizeInBrowser(options.browser ?? new Browser(), url.toString(), options.user ?? USER);
  return { callback, verifier, state };
}

/** The whole code flow: returns the token response. */
export async function codeFlow(config: client.Configuration, user = USER) {
  const { callback, verifier, state } = await authorizeWith(config, { user });
  return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
}

/** POSTs raw form parameters to the token endpoint (for exact error assertions). */
export function postToken(
  baseUrl: string,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(params),
  });
}

/** `Authorization: Basic` of a client id and secret (form-urlencoded first, RFC 6749 §2.3.1). */
export function basic(id = CLIENT_ID, secret = CLIENT_SECRET): Record<string, string> {
  return {
    authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
  };
}
