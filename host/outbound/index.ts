/**
 * Outbound HTTP from the host to servers it does not run (integrator APIs and token endpoints; subscribers'
 * endpoints): the address policy, the lookup hook that checks the address actually connected to, the keep-alive
 * pool built on it, and one exchange over that pool. See README.md.
 */
export { isNonPublicAddress } from './address-policy.ts';
export {
  createCheckedLookups,
  RefusedAddressError,
  type CheckedLookupOptions,
  type CheckedLookups,
  type LookupFunction,
  type Resolve,
} from './checked-lookup.ts';
export { OutboundError, type OutboundErrorCode } from './outbound-error.ts';
export { sendOutbound, type OutboundRequest } from './send-outbound.ts';
export {
  createUpstreamPool,
  sharedUpstreamPool,
  type UpstreamPool,
  type UpstreamPoolOptions,
} from './upstream-pool.ts';
