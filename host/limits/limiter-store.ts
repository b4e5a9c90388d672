/**
 * Where rate-limit counters live, chosen once per host: Redis when `redisUrl` is configured, else the
 * host's PostgreSQL database (table `rate_limits`, the only module that touches it), else — on the
 * single-process embedded PGlite — memory. Every host process on one PostgreSQL or Redis shares the
 * counters, so a limit holds when the host is scaled out. A store that fails falls back to memory for
 * that call (rate-limiter-flexible's insurance limiter): a database hiccup never fails a request.
 * @see https://github.com/animir/node-rate-limiter-flexible/wiki
 */
import { createHash } from 'node:crypto';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Database } from '../db/database.ts';

/** One counter family: `points` per `duration` seconds per key; over the limit, the key stays blocked `blockDuration` seconds. */
export interface LimiterOptions {
  /** Distinguishes the families sharing one store. */
  name: string;
  points: number;
  duration: number;
  blockDuration?: number;
}

/** One key of one limiter built on the store. */
export interface LimiterEntry {
  limiter: RateLimiterAbstract;
  key: string;
}

/** Builds limiters on the host's store. */
export interface LimiterStore {
  readonly kind: 'memory' | 'postgres' | 'redis';
  limiter(options: LimiterOptions): RateLimiterAbstract;
  /** The counters of several keys (null: none), as each limiter's `get` reads them; one round trip on PostgreSQL. */
  getMany(entries: readonly LimiterEntry[]): Promise<(RateLimiterRes | null)[]>;
  close(): Promise<void>;
}

/** A fixed-length key: user-controlled text (an e-mail address, a client id) never reaches the store in clear. */
export function limiterKey(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0001'), 'utf8').digest('base64url');
}

/** Each counter by its own limiter's `get`. */
function getEach(entries: readonly LimiterEntry[]): Promise<(RateLimiterRes | null)[]> {
  return Promise.all(entries.map(({ limiter, key }) => limiter.get(key)));
}

/** The store for this host: Redis if configured, PostgreSQL when the database is one, memory otherwise. */
export async function createLimiterStore(deps: { db: Database; redisUrl?: string | undefined }): Promise<LimiterStore> {
  const memory = (o: LimiterOptions) =>
    new RateLimiterMemory({
      keyPrefix: o.name,
      points: o.points,
      duration: o.duration,
      blockDuration: o.blockDuration ?? 0,
    });
  if (deps.redisUrl) {
    const { Redis } = await import('ioredis');
    // No offline queue: while Redis is unreachable a call fails at once and the insurance limiter answers.
    const client = new Redis(deps.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: true });
    client.on('error', () => {});
    await client.connect().catch(() => {});
    return {
      kind: 'redis',
      limiter: (o) =>
        new RateLimiterRedis({
          storeClient: client,
          keyPrefix: `addon-kit:${o.name}`,
          points: o.points,
          duration: o.duration,
          blockDuration: o.blockDuration ?? 0,
          insuranceLimiter: memory(o),
        }),
      getMany: getEach,
      close: () => {
        client.disconnect();
        return Promise.resolve();
      },
    };
  }
  if (deps.db.kind === 'postgres') {
    const { db } = deps;
    // rate-limiter-flexible sends {name, text, values}; the host's database runs them as plain statements.
    const storeClient = { query: (q: { text: string; values?: unknown[] }) => db.query(q.text, q.values ?? []) };
    return {
      kind: 'postgres',
      limiter: (o) =>
        new RateLimiterPostgres({
          storeClient,
          storeType: 'client',
          tableName: 'rate_limits',
          tableCreated: true,
          // Expired rows are deleted by the host's housekeeping, not by a timer per limiter.
          clearExpiredByTimeout: false,
          keyPrefix: o.name,
          points: o.points,
          duration: o.duration,
          blockDuration: o.blockDuration ?? 0,
          insuranceLimiter: memory(o),
        }),
      async getMany(entries) {
        if (entries.length < 2) return getEach(entries);
        // The rows each `get` reads (rate-limiter-flexible's layout: key `prefix:key`, points, expire in ms).
        const keys = entries.map(({ limiter, key }) => limiter.getKey(key));
        let rows: { key: string; points: number; expire: number | null }[];
        try {
          ({ rows } = await db.query<{ key: string; points: number; expire: number | null }>(
            'SELECT key, points, expire FROM rate_limits WHERE key = ANY($1::text[]) AND (expire > $2 OR expire IS NULL)',
            [keys, Date.now()],
          ));
        } catch {
          // As a failing `get` does: its insurance limiter answers.
          return getEach(entries);
        }
        return entries.map(({ limiter }, i) => {
          const row = rows.find((r) => r.key === keys[i]);
          if (!row) return null;
          const msBeforeNext = row.expire ? Math.max(row.expire - Date.now(), 0) : -1;
          return new RateLimiterRes(Math.max(limiter.points - row.points, 0), msBeforeNext, row.points, false);
        });
      },
      close: async () => {},
    };
  }
  return { kind: 'memory', limiter: memory, getMany: getEach, close: async () => {} };
}

/** Counts one failure; the one that reaches the limit locks the key for `lockSeconds` from now. */
export async function countFailure(limiter: RateLimiterAbstract, key: string, lockSeconds: number): Promise<void> {
  const res = await limiter.penalty(key);
  if (res.consumedPoints === limiter.points) await limiter.block(key, lockSeconds);
}

/** Deletes counters that expired more than an hour ago (PostgreSQL store). */
export async function purgeExpiredLimits(db: Database, now = Date.now()): Promise<number> {
  if (db.kind !== 'postgres') return 0;
  const { rowCount } = await db.query('DELETE FROM rate_limits WHERE expire < $1', [now - 3_600_000]);
  return rowCount;
}
