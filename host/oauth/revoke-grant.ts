/** Ends a whole grant: every access token, refresh token and code issued under it, and the grant itself. */
import type Provider from 'oidc-provider';

/** Revokes everything of `grantId`, as oidc-provider does when a used code or refresh token comes back. */
export async function revokeGrant(provider: Provider, grantId: string): Promise<void> {
  await Promise.all([
    provider.AccessToken.adapter.revokeByGrantId(grantId),
    provider.RefreshToken.adapter.revokeByGrantId(grantId),
    provider.AuthorizationCode.adapter.revokeByGrantId(grantId),
    provider.Grant.adapter.destroy(grantId),
  ]);
}
