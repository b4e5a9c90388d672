/**
 * Throttling of failed client authentications: OAuth client credentials at the token, revocation and
 * introspection endpoints, and personal-access-token secrets (HTTP Basic) on the APIs.
 *
 * - per client id and client address: 10 failures in 5 minutes lock the pair for 5 minutes;
 * - per client address: 50 failures in 5 minutes (any client id, and unknown Bearer tokens) lock the
 *   address for 5 minutes.
 *
 * There is deliberately no lock per client id alone: client ids are not secret, so such a lock would let
 * anyone lock an integration out, while the secrets (256-bit random) cannot be guessed anyway.
 */
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { countFailure, limiterKey, type LimiterStore } from './limiter-store.ts';

const WINDOW_SECONDS = 5 * 60;
const PAIR_FAILURES = 10;
const ADDRESS_FAILURES = 50;

export interface ClientAuthThrottle {
  /** Seconds to wait before this client id (when known) may be tried from this address; 0 when allowed. */
  retryAfter(clientId: string | undefined, address: string): Promise<number>;
  /** A failed client authentication (wrong secret, unknown client or token). */
  failed(clientId: string | undefined, address: string): Promise<void>;
}

/** The throttle over a limiter store. */
export function createClientAuthThrottle(store: LimiterStore): ClientAuthThrottle {
  const pairs = store.limiter({ name: 'client_auth_pair', points: PAIR_FAILURES, duration: WINDOW_SECONDS });
  const addresses = store.limiter({ name: 'client_auth_address', points: ADDRESS_FAILURES, duration: WINDOW_SECONDS });
  // Milliseconds a counter keeps its key locked: 0 when it is not over the limit.
  const blockedFor = (limiter: RateLimiterAbstract, res: RateLimiterRes | null): number =>
    res && res.consumedPoints > limiter.points && res.msBeforeNext > 0 ? res.msBeforeNext : 0;
  return {
    async retryAfter(clientId, address) {
      // Both counters in one read (one statement on PostgreSQL): this runs before every token request.
      const entries = [
        { limiter: addresses, key: limiterKey(address) },
        ...(clientId ? [{ limiter: pairs, key: limiterKey(clientId, address) }] : []),
      ];
      const counters = await store.getMany(entries);
      const wait = Math.max(...entries.map(({ limiter }, i) => blockedFor(limiter, counters[i] ?? null)));
      return wait > 0 ? Math.ceil(wait / 1000) : 0;
    },
    async failed(clientId, address) {
      await Promise.all([
        clientId ? countFailure(pairs, limiterKey(clientId, address), WINDOW_SECONDS) : undefined,
        countFailure(addresses, limiterKey(address), WINDOW_SECONDS),
      ]);
    },
  };
}
