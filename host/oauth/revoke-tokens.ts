/** Revocation of tokens the host issued itself (a handshake's host grant it replaces). */
import type Provider from 'oidc-provider';

/**
 * Destroys an access token and its refresh token in the provider's store; unknown or already gone ones are
 * skipped. @see RFC 7009 §2.2 (a revoked token is unusable at once)
 */
export async function revokeIssuedTokens(
  provider: Provider,
  tokens: { accessToken: string; refreshToken?: string | undefined },
): Promise<void> {
  await (await provider.AccessToken.find(tokens.accessToken))?.destroy();
  if (tokens.refreshToken) await (await provider.RefreshToken.find(tokens.refreshToken))?.destroy();
}
