/**
 * The tokens a proxied call carries: one refresh engine for both grants (the host's own, the integrator's), each
 * grant a small kind; the sweeper that refreshes idle integrator tokens; and the integrator's OAuth client the
 * handshake's step 6 also uses.
 */
export { createRefreshEngine, dueForRefresh, type RefreshEngine, type RefreshEngineOptions } from './refresh-engine.ts';
export type { GrantKind } from './grant-kind.ts';
export { hostGrant, type HostGrantOptions } from './host-grant.ts';
export { integratorGrant, type IntegratorGrantOptions } from './integrator-grant.ts';
export { createSweeper, type Sweeper, type SweeperOptions } from './sweeper.ts';
export {
  integratorOAuthClient,
  refusedIntegratorUrl,
  isLoopbackUrl,
  tokenRequestError,
  tokenSetOf,
  type IntegratorClientOptions,
} from './integrator-client.ts';
