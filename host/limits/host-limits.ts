/**
 * The host's limits in one place: the store (Redis, PostgreSQL or memory), the API rate limit, the
 * sign-in throttle and the client-authentication throttle, and the hourly purge of expired counters.
 */
import type { RequestHandler } from 'express';
import type { HostConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Logger } from '../logger.ts';
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
}): Promise<HostLimits> {
  const { config, db } = deps;
  const store = await createLimiterStore({ db, redisUrl: config.redisUrl });
  const clientAuth = createClientAuthThrottle(store);
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
    signIn: createSignInThrottle(store),
    clientAuth,
    api: (authenticate) => limitApiRequests({ authenticate, limiter, limit, clientAuth }),
    async close() {
      clearInterval(timer);
      await store.close();
    },
  };
}
