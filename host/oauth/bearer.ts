/**
 * Bearer access tokens for the host APIs, checked against the provider's AccessToken store on every
 * request (no cache): a token revoked at /oauth/revoke fails on the very next request.
 */
import type Provider from 'oidc-provider';
import type { BearerVerifier } from '../auth/authenticate.ts';

/** A BearerVerifier over oidc-provider's opaque access tokens. @see RFC 6750 §2.1 */
export function oauthBearerVerifier(provider: Provider): BearerVerifier {
  return {
    async verify(token) {
      if (token.length > 512) return undefined;
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired || !at.accountId || !at.clientId) return undefined;
      // A deleted application's tokens stop working with it.
      const client = await provider.Client.find(at.clientId);
      if (!client) return undefined;
      return { personId: at.accountId, scopes: (at.scope ?? '').split(' ').filter(Boolean), clientId: at.clientId };
    },
  };
}
