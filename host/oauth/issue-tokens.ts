/**
 * Issues an access/refresh token pair to a person for an application without a browser flow, for the
 * host's own use (the add-on runtime keeps a server-side pair per user and add-on). The tokens are
 * ordinary provider tokens: refreshable, revocable, introspectable; the issue counts as MAU.
 */
import type Provider from 'oidc-provider';
import type { Queryable } from '../db/database.ts';
import { recordTokenIssued } from './mau.ts';
import { isKnownScope } from './scopes.ts';

/** The token pair, shaped like a token endpoint response, plus the grant it belongs to. */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
  scope: string;
  created_at: number;
  grantId: string;
}

/** Creates a grant for (person, client, scopes) and a token pair under it. */
export async function issueTokensForPerson(
  provider: Provider,
  db: Queryable,
  request: { clientId: string; personId: string; scopes: readonly string[] },
): Promise<IssuedTokens> {
  const unknown = request.scopes.filter((s) => !isKnownScope(s));
  if (unknown.length) throw new Error(`unknown scope: ${unknown.join(' ')}`);
  const client = await provider.Client.find(request.clientId);
  if (!client) throw new Error(`no OAuth application with client_id ${request.clientId}`);
  const scope = [...new Set(request.scopes)].join(' ');
  const grant = new provider.Grant({ accountId: request.personId, clientId: client.clientId });
  if (scope) grant.addOIDCScope(scope);
  const grantId = await grant.save();
  const at = new provider.AccessToken({
    accountId: request.personId,
    client,
    grantId,
    scope,
    gty: 'authorization_code',
  });
  const accessToken = await at.save();
  const rt = new provider.RefreshToken({
    accountId: request.personId,
    client,
    grantId,
    scope,
    gty: 'authorization_code',
  });
  const refreshToken = await rt.save();
  await recordTokenIssued(db, {
    clientId: client.clientId,
    personId: request.personId,
    scopes: scope.split(' ').filter(Boolean),
  });
  return {
    access_token: accessToken,
    refresh_token: refreshToken,
    token_type: 'bearer',
    expires_in: at.expiration,
    scope,
    created_at: Math.floor(Date.now() / 1000),
    grantId,
  };
}
