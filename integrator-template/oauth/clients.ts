/** Registered OAuth clients and client authentication at the token endpoint. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { RegisteredClient } from '../config.ts';
import { OAuthError } from './oauth-error.ts';

/** The registered client with this client_id, if any. */
export function findClient(clients: readonly RegisteredClient[], clientId: unknown): RegisteredClient | undefined {
  return typeof clientId === 'string' ? clients.find((c) => c.client_id === clientId) : undefined;
}

/**
 * Exact string comparison with a registered redirect URI, or one registered for this browser session
 * (`sessionUris`: the host's callbacks of the applications whose completion it went through, in development).
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-3.1.2.3
 */
export function redirectUriRegistered(
  client: RegisteredClient,
  redirectUri: unknown,
  sessionUris: readonly string[] = [],
): redirectUri is string {
  return (
    typeof redirectUri === 'string' && (client.redirect_uris.includes(redirectUri) || sessionUris.includes(redirectUri))
  );
}

function sameSecret(presented: string, expected: string): boolean {
  // Digests first, so the comparison takes the same time whatever the lengths.
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Authenticates the client by HTTP Basic (client_secret_basic) or body parameters
 * (client_secret_post); using both at once is refused.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1
 */
export function authenticateClient(req: Request, clients: readonly RegisteredClient[]): RegisteredClient {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const header = req.get('authorization');
  const basic = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
  if (header && /^Basic\b/i.test(header)) {
    if (body.client_secret !== undefined) {
      throw new OAuthError('invalid_request', 'use exactly one client authentication method');
    }
    const decoded = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (!basic || colon < 0) throw new OAuthError('invalid_client', 'malformed Basic credentials', 401, true);
    // §2.3.1: both parts are form-urlencoded before Basic encoding.
    let id: string;
    let secret: string;
    try {
      id = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    } catch {
      throw new OAuthError('invalid_client', 'malformed Basic credentials', 401, true);
    }
    if (typeof body.client_id === 'string' && body.client_id !== id) {
      throw new OAuthError('invalid_request', 'client_id in the body differs from the authenticated client');
    }
    const client = findClient(clients, id);
    if (!client || !sameSecret(secret, client.client_secret)) {
      throw new OAuthError('invalid_client', 'client authentication failed', 401, true);
    }
    return client;
  }
  if (header) throw new OAuthError('invalid_client', 'unsupported Authorization scheme', 401, true);
  if (typeof body.client_id !== 'string' || typeof body.client_secret !== 'string') {
    throw new OAuthError(
      'invalid_client',
      'client authentication failed: send client_secret_basic or client_secret_post',
      401,
    );
  }
  const client = findClient(clients, body.client_id);
  if (!client || !sameSecret(body.client_secret, client.client_secret)) {
    throw new OAuthError('invalid_client', 'client authentication failed', 401);
  }
  return client;
}
