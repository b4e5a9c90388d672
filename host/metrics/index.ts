/** The host's metrics (Prometheus format): the only door for the rest of the host. */
export {
  createHostMetrics,
  NO_METRICS,
  type HostMetrics,
  type ProxiedOutcome,
  type ProxiedSide,
  type RefreshGrant,
  type RefusingLimit,
} from './host-metrics.ts';
export { measureRequests } from './measure-requests.ts';
export { listenForMetrics, metricsEndpoint, type MetricsListener } from './metrics-endpoint.ts';
export { observeOAuthGrants } from './observe-oauth.ts';
export { routeTemplate, UNMATCHED_ROUTE } from './route-template.ts';
