/**
 * Bearer access tokens for the host APIs, checked against the provider's AccessToken store on every
 * request (no cache): a token revoked at /oauth/revoke fails on the very next request, and so does a
 * token of a person their organization's access_mode no longer admits for the application.
 */
import type Provider from 'oidc-provider';
import type { BearerVerifier } from '../auth/authenticate.ts';
import type { Queryable } from '../db/database.ts';
import { findAccessRefusal } from './application-access.ts';

/** A BearerVerifier over oidc-provider's opaque access tokens. @see RFC 6750 §2.1 */
export function oauthBearerVerifier(provider: Provider, db: Queryable): BearerVerifier {
  return {
    async verify(token) {
      if (token.length > 512) return undefined;
      const at = await provider.AccessToken.find(token);
      if (!at || at.isExpired || !at.accountId || !at.clientId) return undefined;
      // A deleted application's tokens stop working with it.
      const client = await provider.Client.find(at.clientId);
      if (!client) return undefined;
      if (await findAccessRefusal(db, { personId: at.accountId, clientId: at.clientId })) return undefined;
      return { personId: at.accountId, scopes: (at.scope ?? '').split(' ').filter(Boolean), clientId: at.clientId };
    },
  };
}
