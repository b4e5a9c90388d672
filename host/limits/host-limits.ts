/**
 * The host's limits in one place: the store (Redis, PostgreSQL or memory), the API rate limit, the
 * sign-in throttle and the client-authentication throttle, and the hourly purge of expired counters.
 */
import type { RequestHandler } from 'express';
import type { HostConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
import { NO_METRICS, type HostMetrics } from '../metrics/index.ts';
import { limitApiRequests } from './api-rate-limit.ts';
import { createClientAuthThrottle, type ClientAuthThrottle } from './client-auth-throttle.ts';
import { createLimiterStore, purgeExpiredLimits, type LimiterStore } from './limiter-store.ts';
import { createSignInThrottle, type SignInThrottle } from './sign-in-throttle.ts';

export interface HostLimits {
  store: LimiterStore;
  signIn: SignInThrottle;
  clientAuth: ClientAuthThrottle;
  /** `authenticate` wrapped by the API rate limit and the credential throttle. */
  api(authenticate: RequestHandler): RequestHandler;
  close(): Promise<void>;
}

/** Builds the limits of a host from its configuration. */
export async function createHostLimits(deps: {
  config: HostConfig;
  db: Database;
  logger: Logger;
  /** Counts the refusals (429s) of each limit. */
  metrics?: HostMetrics;
}): Promise<HostLimits> {
  const { config, db } = deps;
  const metrics = deps.metrics ?? NO_METRICS;
  const store = await createLimiterStore({ db, redisUrl: config.redisUrl });
  const clientAuth = countRefusals(createClientAuthThrottle(store), metrics);
  const signIn = countSignInRefusals(createSignInThrottle(store), metrics);
  const limit = config.rateLimit;
  const limiter =
    limit === 'off' ? undefined : store.limiter({ name: 'api', points: limit.points, duration: limit.seconds });
  const timer = setInterval(
    () => {
      purgeExpiredLimits(db).catch((error: Error) =>
        deps.logger.warn({ err: { name: error.name, message: error.message } }, 'rate-limit purge failed'),
      );
    },
    60 * 60 * 1000,
  );
  timer.unref();
  return {
    store,
    signIn,
    clientAuth,
    api: (authenticate) =>
      limitApiRequests({
        authenticate,
        limiter,
        limit,
        clientAuth,
        onExceeded: () => metrics.limitRefused('api_rate_limit'),
      }),
    async close() {
      clearInterval(timer);
      await store.close();
    },
  };
}

/** The client-authentication throttle, counting each time it makes a client wait. */
function countRefusals(throttle: ClientAuthThrottle, metrics: HostMetrics): ClientAuthThrottle {
  if (!metrics.enabled) return throttle;
  return {
    ...throttle,
    async retryAfter(clientId, address) {
      const wait = await throttle.retryAfter(clientId, address);
      if (wait > 0) metrics.limitRefused('client_auth');
      return wait;
    },
  };
}

/** The sign-in throttle, counting each sign-in it refuses. */
function countSignInRefusals(throttle: SignInThrottle, metrics: HostMetrics): SignInThrottle {
  if (!metrics.enabled) return throttle;
  return {
    ...throttle,
    async permit(email, address) {
      const permit = await throttle.permit(email, address);
      if (!permit.allowed) metrics.limitRefused('sign_in');
      return permit;
    },
  };
}
