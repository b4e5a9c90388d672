/**
 * A used authorization code presented again after its 60 s lifetime still revokes the tokens issued
 * from it. oidc-provider refuses an expired code before it looks at whether the code was used, so
 * without this such a replay would be refused but nothing revoked. The adapter keeps used codes
 * findable for a day after expiry for this.
 * @see RFC 6749 §4.1.2
 */
import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AuthorizationCode } from 'oidc-provider';
import { invalidGrantRefusal } from './refused-token-request.ts';
import { revokeGrant } from './revoke-grant.ts';

/** Whether the code_verifier sent fits the code's challenge (S256 only; none without a challenge). */
function verifierMatches(code: AuthorizationCode, verifier: unknown): boolean {
  if (!code.codeChallenge) return verifier === undefined;
  if (typeof verifier !== 'string' || code.codeChallengeMethod !== 'S256') return false;
  return createHash('sha256').update(verifier, 'ascii').digest('base64url') === code.codeChallenge;
}

/**
 * The oidc-provider (koa) middleware that, after a token request refused with invalid_grant, revokes
 * the grant of a used, expired code, when the request would otherwise have passed as the code's
 * holder: the same client, redirect_uri and PKCE verifier (as oidc-provider requires for a replay
 * within the lifetime), so a stolen code alone cannot end someone's tokens.
 */
export function revokeOnLateCodeReplay(): Middleware {
  return async (koaCtx, next) => {
    await next();
    const oidc = invalidGrantRefusal(koaCtx);
    if (!oidc) return;
    const { params, client, provider } = oidc;
    if (!client || params?.grant_type !== 'authorization_code' || typeof params.code !== 'string') return;
    const code = await provider.AuthorizationCode.find(params.code, { ignoreExpiration: true });
    // `consumed` is in the model's payload, though not in its type declaration.
    if (
      !code ||
      !(code as { consumed?: unknown }).consumed ||
      !code.isExpired ||
      !code.grantId ||
      code.clientId !== client.clientId
    )
      return;
    if (code.redirectUri !== params.redirect_uri || !verifierMatches(code, params.code_verifier)) return;
    await revokeGrant(provider, code.grantId);
  };
}
