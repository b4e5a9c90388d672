/**
 * What a proxied call is allowed on — the session's person, the installation and the decrypted authorization
 * (proxy-call.ts) — kept in memory per session and installation on the embedded database, so a call that
 * repeats the previous one's read runs no statement (its statements were most of a proxied call's cost).
 *
 * Kept only while nothing it was read from has changed: every change of a session's record, a person, their
 * roles or organization, an installation, its add-on's versions or an authorization is announced on
 * PROXY_CALL_CHANNEL (triggers, migration 098, for a connection with PROXY_CALL_SETTING on — the cache turns it
 * on for PGlite's one connection), and the cache forgets everything when it hears one. PGlite
 * runs in this process and hears a NOTIFY before the statement that committed it resolves to its caller, so a
 * logout, a deactivated person or a rotated token applies to the very next call, as the statement did.
 * PostgreSQL may serve several host processes, and another process hears a NOTIFY only moments after its
 * commit: there the same changes are written down (migration 110) and a call first waits for a look at them
 * begun after it arrived (proxy-call-changes.ts, `settled`) — so a change committed by any process before the
 * call applies to it, "at the time of the call" as the statement was. Calls arriving together share one look.
 *
 * An entry also ends with its session (`expires_at`, checked on every hit) and after MAX_AGE_MS, when the
 * next call reads again and touches the session's `last_seen_at` as any request does. Nothing is kept for a
 * call that was refused (no session, no installation): those read every time.
 */
import type { Database, Subscription } from '../../db/database.ts';
import type { PersonRecord } from '../../auth/person.ts';
import type { Installation } from '../registry/index.ts';
import type { VaultRecord } from '../authorizations/index.ts';
import {
  PURGE_INTERVAL_MS,
  purgeProxyCallChanges,
  watchProxyCallChanges,
  type ProxyCallChanges,
} from './proxy-call-changes.ts';

/** The channel migration 098's triggers announce changes on. */
export const PROXY_CALL_CHANNEL = 'proxy_call_changed';

/** The setting that turns the announcements on, for the connection that sets it (migration 098). */
export const PROXY_CALL_SETTING = 'addon_kit.proxy_call_cache';

/** How long an entry may answer before the next call reads again (well under the last-seen resolution). */
export const MAX_AGE_MS = 60_000;

/** Entries kept at most; the oldest goes first. */
export const MAX_ENTRIES = 10_000;

/** What one session's call on one installation was allowed on. */
export interface CachedProxyCall {
  person: PersonRecord;
  installation: Installation;
  record: VaultRecord | undefined;
  accessRefused: boolean;
  sessionExpiresAt: Date;
}

/** A read's ticket: its result may be kept only when nothing changed since it was taken. */
export type ProxyCallTicket = number;

export interface ProxyCallCache {
  /** Whether entries are kept at all (the embedded database listening, or PostgreSQL). */
  readonly enabled: boolean;
  /**
   * Resolves once every change committed before this call is known here (at once on the embedded database; after
   * a look at the change log on PostgreSQL); false when that could not be learnt — then `get` must not be used.
   */
  settled(): Promise<boolean>;
  /** The entry of `key`, while it may still answer at `now`. */
  get(key: string, now: number): CachedProxyCall | undefined;
  /** Taken before the read whose result `keep` may store. */
  ticket(): ProxyCallTicket;
  /** Keeps `value` unless a change was heard since `ticket` (the read may have seen the old data). */
  keep(key: string, ticket: ProxyCallTicket, value: CachedProxyCall, now: number): void;
  close(): Promise<void>;
}

/** The key of one session's calls on one installation (the session id never leaves this process's memory). */
export function proxyCallKey(sessionId: string, installationId: string): string {
  return `${installationId}\u0000${sessionId}`;
}

const off: Subscription = { active: false, close: async () => {} };
const SETTLED = Promise.resolve(true);

/**
 * Starts listening on the embedded database, or watching the change log on PostgreSQL; either way deletes the log's
 * old rows every PURGE_INTERVAL_MS. A database without LISTEN (another package's opener) keeps nothing.
 */
export async function createProxyCallCache(db: Database): Promise<ProxyCallCache> {
  const entries = new Map<string, { value: CachedProxyCall; storedAt: number }>();
  // Bumped by every change heard: a read in flight across a change must not be kept.
  let generation = 0;
  const forget = () => {
    generation += 1;
    entries.clear();
  };
  let subscription = off;
  let changes: ProxyCallChanges | undefined;
  let purging: NodeJS.Timeout | undefined;
  if (db.kind === 'pglite' && db.listen) {
    // PGlite has one connection: from now on every change is announced, whoever writes it.
    await db.exec(`SET ${PROXY_CALL_SETTING} = 'on'`);
    subscription = await db.listen(PROXY_CALL_CHANNEL, forget, forget);
  } else if (db.kind === 'postgres') {
    changes = await watchProxyCallChanges(db, { onChange: forget, staleAfterMs: MAX_AGE_MS });
    subscription = { active: true, close: async () => {} };
  }
  if (subscription.active) {
    // A failed purge is tried again next time; rows left meanwhile cost only their space.
    purging = setInterval(() => void purgeProxyCallChanges(db).catch(() => {}), PURGE_INTERVAL_MS);
    purging.unref();
  }
  return {
    get enabled() {
      return subscription.active;
    },
    settled: () => (changes ? changes.settled() : SETTLED),
    get(key, now) {
      if (!subscription.active) return undefined;
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (now - entry.storedAt >= MAX_AGE_MS || now >= entry.value.sessionExpiresAt.getTime()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    ticket: () => generation,
    keep(key, ticket, value, now) {
      if (!subscription.active || ticket !== generation) return;
      entries.delete(key);
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, storedAt: now });
    },
    close: () => {
      clearInterval(purging);
      return subscription.close();
    },
  };
}
