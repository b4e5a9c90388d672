/**
 * Recently unsealed host session cookies, so a burst of calls with one cookie (an add-on's proxied
 * fetches) derives the seal's keys and decrypts it once, not on every call. Only the unseal is kept:
 * the entry is exactly what the seal decrypts to, never outlives the seal's own expiry, and every check
 * that follows the unseal (the person's status, a revocation) still runs on every request.
 */

/** What a session holds: flat fields (ids, tokens, times), so a shallow copy is a whole copy. */
export type FlatSessionData<T> = { [K in keyof T]: string | number | boolean | undefined };

/** The cache of one session configuration (one password, one cookie name). */
export interface UnsealedSessions<T extends FlatSessionData<T>> {
  /** A copy of the data `seal` was unsealed to, while the entry lasts. */
  get(seal: string): T | undefined;
  /** Keeps what `seal` unsealed to. */
  set(seal: string, data: T): void;
  /** Drops a seal (logout). */
  forget(seal: string): void;
}

/** Options of the cache. */
export interface UnsealedSessionsOptions {
  /** Milliseconds an entry lasts at most. */
  ttlMs?: number;
  /** Entries kept at most; the least recently used goes first. */
  maxEntries?: number;
  now?: () => number;
}

/**
 * The expiry (ms) an iron seal carries: `Fe26.2*id*salt*iv*data*expiration*hmacSalt*hmac`, then `~version`.
 * @see https://hapi.dev/module/iron/api/#sealing (the seal's format)
 */
function sealExpiry(seal: string): number | undefined {
  const expiration = seal.split('~')[0]!.split('*')[5];
  const ms = Number(expiration);
  return expiration && Number.isSafeInteger(ms) ? ms : undefined;
}

/** Creates a bounded, short-lived cache of unsealed sessions. */
export function createUnsealedSessions<T extends FlatSessionData<T>>(
  options: UnsealedSessionsOptions = {},
): UnsealedSessions<T> {
  const ttlMs = options.ttlMs ?? 60_000;
  const maxEntries = options.maxEntries ?? 5000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, { data: T; expiresAt: number }>();
  return {
    get(seal) {
      const entry = entries.get(seal);
      if (!entry) return undefined;
      entries.delete(seal);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(seal, entry);
      return { ...entry.data };
    },
    set(seal, data) {
      const expiry = sealExpiry(seal);
      // A seal without a readable expiry is not kept: the unseal is the only judge of its age.
      if (expiry === undefined) return;
      entries.delete(seal);
      entries.set(seal, { data: { ...data }, expiresAt: Math.min(now() + ttlMs, expiry) });
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
    forget(seal) {
      entries.delete(seal);
    },
  };
}
