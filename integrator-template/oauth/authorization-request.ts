/** Validation of an authorization request, shared by the GET (prompt) and POST (decision) handlers. */
import type { IntegratorConfig, RegisteredClient } from '../config.ts';
import { findClient, redirectUriRegistered } from './clients.ts';
import type { OAuthErrorCode } from './oauth-error.ts';
import { CODE_CHALLENGE } from './pkce.ts';

/** A checked authorization request. */
export interface AuthorizationRequest {
  client: RegisteredClient;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  scopes: string[];
}

/**
 * The outcome of checking the parameters: a request to prompt for, an error to show on this server
 * (client or redirect URI not trusted), or an error to send back to the client's redirect URI.
 */
export type AuthorizationCheck =
  | { kind: 'ok'; request: AuthorizationRequest }
  | { kind: 'page'; status: number; title: string; detail: string }
  | { kind: 'redirect'; redirectUri: string; state: string | undefined; error: OAuthErrorCode; description: string };

const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'state',
  'code_challenge',
  'code_challenge_method',
  'scope',
] as const;

/** Checks an authorization request's parameters (`sessionUris`: redirect URIs registered for this session). */
export function checkAuthorizationRequest(
  input: Record<string, unknown>,
  config: IntegratorConfig,
  sessionUris: readonly string[] = [],
): AuthorizationCheck {
  const client = findClient(config.clients, input.client_id);
  if (!client) {
    return {
      kind: 'page',
      status: 400,
      title: 'Unknown application',
      detail: 'The client_id is missing or not registered with this server.',
    };
  }
  // RFC 6749 §4.1.2.1: never redirect to an unverified URI; tell the user instead.
  if (!redirectUriRegistered(client, input.redirect_uri, sessionUris)) {
    return {
      kind: 'page',
      status: 400,
      title: 'Invalid redirect URI',
      detail: 'The redirect_uri is missing or does not exactly match a redirect URI registered for this application.',
    };
  }
  const redirectUri = input.redirect_uri;
  const rawState = input.state;
  const state = typeof rawState === 'string' ? rawState : undefined;
  const fail = (error: OAuthErrorCode, description: string): AuthorizationCheck => ({
    kind: 'redirect',
    redirectUri,
    state,
    error,
    description,
  });

  // RFC 6749 §3.1: request parameters MUST NOT be included more than once.
  for (const name of PARAMS) {
    if (input[name] !== undefined && typeof input[name] !== 'string')
      return fail('invalid_request', `${name} is repeated or malformed`);
  }
  if (input.response_type !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  // RFC 7636 §4.4.1: this server requires PKCE of every client.
  if (typeof input.code_challenge !== 'string' || input.code_challenge === '')
    return fail('invalid_request', 'code_challenge is required');
  if (input.code_challenge_method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (!CODE_CHALLENGE.test(input.code_challenge))
    return fail('invalid_request', 'code_challenge is not a S256 challenge');

  const allowed = client.scopes.length > 0 ? client.scopes : Object.keys(config.scopes);
  const requested = typeof input.scope === 'string' ? input.scope.split(' ').filter(Boolean) : [];
  // RFC 6749 §3.3: an omitted scope gets the documented default, here everything the client may have.
  const scopes = requested.length > 0 ? [...new Set(requested)] : allowed;
  const refused = scopes.filter((s) => !allowed.includes(s));
  if (refused.length > 0) return fail('invalid_scope', `scope not allowed: ${refused.join(' ')}`);

  return { kind: 'ok', request: { client, redirectUri, state, codeChallenge: input.code_challenge, scopes } };
}

/** The client's redirect URI with response parameters added (its own query kept). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}
