/**
 * The host's metrics in the Prometheus format (prom-client), one registry per host: requests by route template and
 * status, proxied add-on calls, token refreshes, limit refusals, List runs, the database pool and the process's own
 * metrics. Off unless the operator exposes them (a metrics port or token): a host nobody scrapes counts nothing.
 */
import type { AddonSide } from '@addon-kit/sdk/protocol';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.ts';

/** Which side of the add-on proxy a call went to. */
export type ProxiedSide = AddonSide;
/** How a proxied call ended: the upstream answered, the proxy refused it, or the upstream could not be reached. */
export type ProxiedOutcome = 'answered' | 'refused' | 'failed';
/** The grant whose tokens were refreshed: the host's own OAuth refresh grant, or an add-on authorization's side. */
export type RefreshGrant = 'oauth_refresh_token' | 'addon_integrator' | 'addon_service';
/** A limit that refused a request. */
export type RefusingLimit = 'api_rate_limit' | 'client_auth' | 'sign_in';

/** What the host's domains report; every method is a no-op when metrics are off. */
export interface HostMetrics {
  readonly enabled: boolean;
  /** One answered HTTP request. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** One proxied add-on call and, when the upstream answered, how long it took to. */
  proxiedCall(side: ProxiedSide, outcome: ProxiedOutcome, upstreamSeconds?: number): void;
  /** One token refresh attempt. */
  tokenRefresh(grant: RefreshGrant, outcome: 'success' | 'failure'): void;
  /** One request refused by a limit (429). */
  limitRefused(limit: RefusingLimit): void;
  /** One List run. */
  listRun(trigger: 'scheduled' | 'request', outcome: 'success' | 'failure'): void;
  /** One webhook delivery attempt (host/webhooks), by whether it delivered. */
  webhookDelivery(outcome: 'delivered' | 'failed'): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** Request durations in seconds: from a cached page (~ms) to a slow upstream (the proxy's 15 s deadline). */
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15];

/** Metrics that count nothing (metrics off). */
export const NO_METRICS: HostMetrics = {
  enabled: false,
  request() {},
  proxiedCall() {},
  tokenRefresh() {},
  limitRefused() {},
  listRun() {},
  webhookDelivery() {},
  render: async () => ({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body: '' }),
};

/** A registry with the host's instruments; `db` supplies the pool gauges. */
export function createHostMetrics(db: Pick<Database, 'kind' | 'poolStats'>): HostMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const instruments = createInstruments([registry]);
  if (db.poolStats) addPoolGauges([registry], db.poolStats.bind(db));
  const { requests, proxied, upstream, refreshes, refusals, listRuns, deliveries } = instruments;
  return {
    enabled: true,
    request(method, route, status, seconds) {
      requests.observe({ method, route, status: String(status) }, seconds);
    },
    proxiedCall(side, outcome, upstreamSeconds) {
      proxied.inc({ side, outcome });
      if (upstreamSeconds !== undefined) upstream.observe({ side }, upstreamSeconds);
    },
    tokenRefresh(grant, outcome) {
      refreshes.inc({ grant, outcome });
    },
    limitRefused(limit) {
      refusals.inc({ limit });
    },
    listRun(trigger, outcome) {
      listRuns.inc({ trigger, outcome });
    },
    webhookDelivery(outcome) {
      deliveries.inc({ outcome });
    },
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** The host's own counters and histograms, registered in `registers`. */
function createInstruments(registers: Registry[]) {
  return {
    requests: new Histogram({
      name: 'addon_kit_http_request_duration_seconds',
      help: 'Time from a request arriving to its response sent, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    proxied: new Counter({
      name: 'addon_kit_proxied_calls_total',
      help: 'Add-on calls through the fetch proxy, by side (service, integrator) and outcome',
      labelNames: ['side', 'outcome'] as const,
      registers,
    }),
    upstream: new Histogram({
      name: 'addon_kit_proxied_call_upstream_seconds',
      help: "Time the proxied call's upstream took to answer with its response head, by side",
      labelNames: ['side'] as const,
      buckets: REQUEST_BUCKETS,
      registers,
    }),
    refreshes: new Counter({
      name: 'addon_kit_token_refreshes_total',
      help: 'Token refreshes, by grant (oauth_refresh_token, addon_integrator, addon_service) and outcome',
      labelNames: ['grant', 'outcome'] as const,
      registers,
    }),
    refusals: new Counter({
      name: 'addon_kit_limit_refusals_total',
      help: 'Requests refused by a limit (429), by limit (api_rate_limit, client_auth, sign_in)',
      labelNames: ['limit'] as const,
      registers,
    }),
    listRuns: new Counter({
      name: 'addon_kit_list_runs_total',
      help: 'List runs, by trigger (scheduled, request) and outcome',
      labelNames: ['trigger', 'outcome'] as const,
      registers,
    }),
    deliveries: new Counter({
      name: 'addon_kit_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome',
      labelNames: ['outcome'] as const,
      registers,
    }),
  };
}

/** Gauges of the database pool (PostgreSQL), read from `stats` at each scrape. */
function addPoolGauges(registers: Registry[], stats: NonNullable<Database['poolStats']>): void {
  new Gauge({
    name: 'addon_kit_db_pool_connections',
    help: 'Database pool connections, by state (in_use, idle)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const now = stats();
      this.set({ state: 'in_use' }, now.total - now.idle);
      this.set({ state: 'idle' }, now.idle);
    },
  });
  new Gauge({
    name: 'addon_kit_db_pool_waiting',
    help: 'Queries waiting for a database pool connection',
    registers,
    collect() {
      this.set(stats().waiting);
    },
  });
}
