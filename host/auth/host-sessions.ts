/**
 * The server-side records of host login sessions (table `host_sessions`, owned here). The sealed cookie holds a
 * random session id; the table keeps its SHA-256 digest, so a database read does not yield a usable cookie
 * value. A session counts while its row is neither revoked nor expired: every cookie-authenticated request loads
 * the person through `loadSessionPerson`, one statement joining the row, so a revoked copy of a cookie stops at
 * the next request without an extra round trip.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { fromPeople } from '../directory/index.ts';
import { personSql, type PersonRecord } from './person.ts';

/** `last_seen_at` is written at most this often per session (not on every request). */
export const LAST_SEEN_RESOLUTION_MINUTES = 5;

/** A new session id for the cookie: 32 random bytes, base64url. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** The stored form of a session id. */
function idHash(sessionId: string): string {
  return createHash('sha256').update(sessionId, 'utf8').digest('base64url');
}

/** Records a new session of `personId`, valid for `ttlSeconds` from `now`. */
export async function createSessionRecord(
  db: Queryable,
  session: { sessionId: string; personId: string; now: Date; ttlSeconds: number },
): Promise<void> {
  const expires = new Date(session.now.getTime() + session.ttlSeconds * 1000);
  await db.query(
    `INSERT INTO host_sessions (id_hash, person_id, organization_id, created_at, last_seen_at, expires_at)
     SELECT $1, p.id, p.organization_id, $3, $3, $4 ${fromPeople('p')} WHERE p.id = $2`,
    [idHash(session.sessionId), session.personId, session.now, expires],
  );
}

/** What a caller reads in the same statement as the session's person (see `personSql`). */
export interface SessionPersonExtra {
  /** Selected columns; the person is `p`, the organization `o`, the session `s` (its `expires_at`); parameters from `$3` on. */
  columns: string;
  /** The values of `$3`, `$4`, … */
  params: readonly unknown[];
}

/**
 * The person of a live session (not revoked, not expired, still in the session's organization), with their
 * organization and roles — undefined otherwise. Touches `last_seen_at` in the same statement when it is older
 * than LAST_SEEN_RESOLUTION_MINUTES. `extra` reads more in the same statement (the add-on proxy reads its
 * installation and authorization with it: one round trip per proxied call).
 */
export async function loadSessionPerson<T extends object = object>(
  db: Queryable,
  sessionId: string,
  now = new Date(),
  extra?: SessionPersonExtra,
): Promise<(PersonRecord & T) | undefined> {
  const { rows } = await db.query<PersonRecord & T>(
    `WITH live AS (
       SELECT person_id, organization_id, expires_at FROM host_sessions WHERE id_hash = $1 AND revoked_at IS NULL AND expires_at > $2),
     touched AS (
       UPDATE host_sessions SET last_seen_at = $2
       WHERE id_hash = $1 AND revoked_at IS NULL AND expires_at > $2
         AND last_seen_at <= $2::timestamptz - interval '${LAST_SEEN_RESOLUTION_MINUTES} minutes')
${personSql({ join: 'JOIN live s ON s.person_id = p.id AND s.organization_id = p.organization_id', ...(extra ? { columns: extra.columns } : {}) })}`,
    [idHash(sessionId), now, ...(extra?.params ?? [])],
  );
  return rows[0];
}

/** Revokes one session (logout). */
export async function revokeSession(db: Queryable, sessionId: string, now = new Date()): Promise<void> {
  await db.query('UPDATE host_sessions SET revoked_at = $2 WHERE id_hash = $1 AND revoked_at IS NULL', [
    idHash(sessionId),
    now,
  ]);
}

/** Revokes every live session of a person, except `keep` when given; returns how many were revoked. */
export async function revokePersonSessions(
  db: Queryable,
  personId: string,
  options: { keep?: string | undefined; now?: Date } = {},
): Promise<number> {
  const { rowCount } = await db.query(
    'UPDATE host_sessions SET revoked_at = $2 WHERE person_id = $1 AND revoked_at IS NULL AND id_hash IS DISTINCT FROM $3',
    [personId, options.now ?? new Date(), options.keep === undefined ? null : idHash(options.keep)],
  );
  return rowCount;
}

/** Deletes the rows of sessions that have expired (revoked ones too, once expired); returns how many. */
export async function purgeExpiredSessions(db: Queryable, now = new Date()): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM host_sessions WHERE expires_at <= $1', [now]);
  return rowCount;
}
