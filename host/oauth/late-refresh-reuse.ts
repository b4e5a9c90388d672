/**
 * A used refresh token presented again after its own expiry still revokes its grant, as a used code
 * does (late-code-replay.ts). oidc-provider refuses an expired refresh token before it looks at whether
 * the token was used, so without this such a reuse — the sign of a stolen token, RFC 9700 §4.14.2 —
 * would be refused but the grant, with the tokens rotated from it, would live on. The adapter keeps
 * used refresh tokens findable for a day after expiry for this.
 * @see RFC 9700 §4.14.2, RFC 6749 §10.4
 */
import type { Middleware } from 'koa';
import { invalidGrantRefusal } from './refused-token-request.ts';
import { revokeGrant } from './revoke-grant.ts';

/**
 * The oidc-provider (koa) middleware that, after a refresh_token grant refused with invalid_grant,
 * revokes the grant of a used, expired refresh token presented by the client it was issued to.
 */
export function revokeOnLateRefreshReuse(): Middleware {
  return async (koaCtx, next) => {
    await next();
    const oidc = invalidGrantRefusal(koaCtx);
    if (!oidc) return;
    const { params, client, provider } = oidc;
    if (!client || params?.grant_type !== 'refresh_token' || typeof params.refresh_token !== 'string') return;
    const token = await provider.RefreshToken.find(params.refresh_token, { ignoreExpiration: true });
    if (!token || !token.consumed || !token.isExpired || !token.grantId || token.clientId !== client.clientId) return;
    await revokeGrant(provider, token.grantId);
  };
}
