/**
 * Password sign-in throttling (`/login` and the OAuth login page), checked before any password is hashed:
 *
 * - per account and client address: 5 failures are free, then every further failure locks the pair for a
 *   growing delay (2 s, 4 s, 8 s … at most 15 minutes); a success clears it;
 * - per client address: 50 failures in 15 minutes lock the address for 15 minutes (guessing across accounts);
 * - per account: 20 failures in 15 minutes, from any address, lock the account for 15 minutes — except
 *   from an address where the account signed in successfully in the last 20 days, so nobody can lock a
 *   person out of the place they sign in from;
 * - at most 16 password checks are in flight per process (libuv's thread pool runs 4 at a time, the rest
 *   wait); more get 429 at once, so the scrypt cost (about 50 ms of CPU each) cannot be turned into a CPU
 *   denial of service, and a locked key costs no hashing at all.
 *
 * Counters live in the host's limiter store (shared across processes on PostgreSQL or Redis).
 * @see https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html#login-throttling
 */
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { countFailure, limiterKey, type LimiterStore } from './limiter-store.ts';

/** Free failures per account and address before delays start. */
export const FREE_FAILURES = 5;
/** Longest delay of the growing lock, in seconds. */
export const MAX_DELAY_SECONDS = 15 * 60;
const WINDOW_SECONDS = 15 * 60;
const ADDRESS_FAILURES = 50;
const ACCOUNT_FAILURES = 20;
// Under 2^31 ms: the memory store expires keys with setTimeout.
const KNOWN_ADDRESS_SECONDS = 20 * 24 * 3600;
const CHECKS_IN_FLIGHT = 16;

/** The outcome of asking whether a sign-in may be tried now. */
export type SignInPermit = { allowed: true; release(): void } | { allowed: false; retryAfterSeconds: number };

export interface SignInThrottle {
  /** May this address try a password for this account now? An allowed permit must be released. */
  permit(email: string, address: string): Promise<SignInPermit>;
  /** A wrong password (or unknown account): counts against the pair, the address and the account. */
  failed(email: string, address: string): Promise<void>;
  /** A successful sign-in: clears the pair's failures and remembers the address for this account. */
  succeeded(email: string, address: string): Promise<void>;
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/** The throttle over a limiter store. */
export function createSignInThrottle(store: LimiterStore): SignInThrottle {
  const pairFailures = store.limiter({ name: 'signin_pair_failures', points: 1_000_000, duration: 24 * 3600 });
  const pairLock = store.limiter({ name: 'signin_pair_lock', points: 1, duration: MAX_DELAY_SECONDS });
  const addressFailures = store.limiter({ name: 'signin_address', points: ADDRESS_FAILURES, duration: WINDOW_SECONDS });
  const accountFailures = store.limiter({ name: 'signin_account', points: ACCOUNT_FAILURES, duration: WINDOW_SECONDS });
  const knownAddresses = store.limiter({ name: 'signin_known_address', points: 1, duration: KNOWN_ADDRESS_SECONDS });
  const gate = createGate(CHECKS_IN_FLIGHT);

  const account = (email: string) => limiterKey(email.trim().toLowerCase());
  const pair = (email: string, address: string) => limiterKey(email.trim().toLowerCase(), address);
  /** Milliseconds a key is still blocked for, 0 when it is not over its limit. */
  const blockedFor = async (limiter: RateLimiterAbstract, key: string): Promise<number> => {
    const res = await limiter.get(key);
    return res && res.consumedPoints > limiter.points && res.msBeforeNext > 0 ? res.msBeforeNext : 0;
  };

  return {
    async permit(email, address) {
      const mark = await knownAddresses.get(pair(email, address));
      const known = !!mark && mark.consumedPoints > 0 && mark.msBeforeNext > 0;
      const waits = await Promise.all([
        blockedFor(pairLock, pair(email, address)),
        blockedFor(addressFailures, limiterKey(address)),
        known ? 0 : blockedFor(accountFailures, account(email)),
      ]);
      const wait = Math.max(...waits);
      if (wait > 0) return { allowed: false, retryAfterSeconds: seconds(wait) };
      const release = gate.enter();
      return release ? { allowed: true, release } : { allowed: false, retryAfterSeconds: 1 };
    },
    async failed(email, address) {
      const [count] = await Promise.all([
        pairFailures.penalty(pair(email, address)),
        countFailure(addressFailures, limiterKey(address), WINDOW_SECONDS),
        countFailure(accountFailures, account(email), WINDOW_SECONDS),
      ]);
      const beyond = count.consumedPoints - FREE_FAILURES;
      if (beyond > 0) await pairLock.block(pair(email, address), Math.min(2 ** beyond, MAX_DELAY_SECONDS));
    },
    async succeeded(email, address) {
      await Promise.all([
        pairFailures.delete(pair(email, address)),
        pairLock.delete(pair(email, address)),
        knownAddresses.set(pair(email, address), 1, KNOWN_ADDRESS_SECONDS),
      ]);
    },
  };
}

/** A counting gate: `enter()` gives a release function, or undefined when `capacity` are inside. */
function createGate(capacity: number) {
  let inside = 0;
  return {
    enter(): (() => void) | undefined {
      if (inside >= capacity) return undefined;
      inside++;
      let released = false;
      return () => {
        if (!released) inside--;
        released = true;
      };
    },
  };
}
