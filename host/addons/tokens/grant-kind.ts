/**
 * What the refresh engine needs to know of one side's grant: who issued it (the token request) and
 * which of the record's tokens it is. Two kinds: the host's own grant (host-grant.ts) and the
 * integrator's (integrator-grant.ts); everything else — single flight, lease, stale check, writing
 * the rotation, `invalid_grant` → `reauthorization_required` — is the engine's, once.
 */
import type * as oidc from 'openid-client';
import type { AddonError } from '../addon-error.ts';
import type { AuthorizationState, RefreshSide, TokenSet } from '../authorizations/index.ts';
import type { Installation } from '../registry/index.ts';

export type { RefreshSide };

/** One side's grant as the engine drives it. */
export interface GrantKind {
  readonly side: RefreshSide;
  /** The side's tokens when the state lets them be used; otherwise throws the typed reason (handshake or reauthorization). */
  usable(state: AuthorizationState, tokens: TokenSet | undefined): TokenSet;
  /** The person must authorize again (`invalid_grant`, or no refresh token left). */
  reauthorization(reason: 'refused' | 'no_refresh_token'): AddonError;
  /** Another host process held the refresh too long; a retry can help. */
  unavailable(message: string): AddonError;
  /**
   * Sends the refresh_token grant. Rejects with an AddonError: code `reauthorization_required` when the
   * issuer refused the grant for good, anything else when the stored tokens stay as they are.
   * @see RFC 6749 §6
   */
  refresh(refreshToken: string, installation: Installation): Promise<oidc.TokenEndpointResponse>;
}
