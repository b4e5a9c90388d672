/**
 * Where a proxied call and a token request go: the integrator (its API, its token endpoint) over host/outbound's
 * checked keep-alive pool, or the host itself over its loopback port. Failures are the proxy's typed errors.
 */
export { createLoopback, type Loopback } from './loopback.ts';
export { upstreamFetch } from './upstream-fetch.ts';
export { sendUpstream, type UpstreamRequest } from './upstream-request.ts';
