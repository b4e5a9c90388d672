/** Counts the host's own OAuth refresh grants from oidc-provider's events, without touching the provider's code. */
import type Provider from 'oidc-provider';
import type { HostMetrics } from './host-metrics.ts';

/** The grant type of the token request a provider event belongs to. */
function grantType(ctx: unknown): unknown {
  return (ctx as { oidc?: { params?: { grant_type?: unknown } } }).oidc?.params?.grant_type;
}

/** Subscribes the metrics to the provider's `grant.success` and `grant.error` events. */
export function observeOAuthGrants(provider: Provider, metrics: HostMetrics): void {
  if (!metrics.enabled) return;
  provider.on('grant.success', (ctx) => {
    if (grantType(ctx) === 'refresh_token') metrics.tokenRefresh('oauth_refresh_token', 'success');
  });
  provider.on('grant.error', (ctx) => {
    if (grantType(ctx) === 'refresh_token') metrics.tokenRefresh('oauth_refresh_token', 'failure');
  });
}
