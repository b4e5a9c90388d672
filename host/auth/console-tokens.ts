/**
 * Console tokens (table `console_tokens`, owned here): short-lived credentials the host issues to a signed-in
 * person for the /docs try-it console. Each is bound to one API (its mount prefix, e.g. `/people/v2`) and carries
 * only that API's OAuth scope. It is sent like a personal access token (HTTP Basic: its `console_…` client id and
 * its secret); the secret is returned once and stored as a SHA-256 digest, checked in constant time.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { fromPeople } from '../directory/index.ts';
import { personSql, type PersonRecord } from './person.ts';
import { hashSecret, newSecret, secretMatches } from './secret-hash.ts';

/** How long a console token lasts: long enough to try an API, short enough that a leaked one soon stops. */
export const CONSOLE_TOKEN_TTL_MINUTES = 60;

/** Every console token's client id starts so; personal access tokens' ids are bare hex. */
export const CONSOLE_CLIENT_ID_PREFIX = 'console_';

/** Where a console token is accepted and the scope it carries there (none for an API that needs no scope). */
export interface ConsoleTarget {
  apiPrefix: string;
  scope: string | null;
}

export interface IssuedConsoleToken extends ConsoleTarget {
  id: string;
  client_id: string;
  /** Returned once; only its digest is stored. */
  secret: string;
  expires_at: Date;
}

/** True when an HTTP Basic user name names a console token rather than a personal access token. */
export function isConsoleClientId(clientId: string): boolean {
  return clientId.startsWith(CONSOLE_CLIENT_ID_PREFIX);
}

/** Issues a console token to a person for one API, valid CONSOLE_TOKEN_TTL_MINUTES from `now`. */
export async function issueConsoleToken(
  db: Queryable,
  personId: string,
  target: ConsoleTarget,
  now: Date,
): Promise<IssuedConsoleToken> {
  const clientId = `${CONSOLE_CLIENT_ID_PREFIX}${randomBytes(16).toString('hex')}`;
  const secret = newSecret(32);
  const expires = new Date(now.getTime() + CONSOLE_TOKEN_TTL_MINUTES * 60_000);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO console_tokens (person_id, organization_id, api_prefix, scope, client_id, secret_hash, created_at, expires_at)
     SELECT p.id, p.organization_id, $2, $3, $4, $5, $6, $7 ${fromPeople('p')} WHERE p.id = $1 RETURNING id::text`,
    [personId, target.apiPrefix, target.scope, clientId, hashSecret(secret), now, expires],
  );
  const row = rows[0];
  if (!row) throw new Error(`no person ${personId}`);
  return { id: row.id, client_id: clientId, secret, expires_at: expires, ...target };
}

// A digest no secret has: unknown client ids still cost one comparison.
const NO_MATCH = hashSecret(randomBytes(32).toString('hex'));

/**
 * The person a live console token authenticates (read now, in the token's organization) and where the token may
 * be used, or undefined for an unknown, revoked (deleted) or expired token or a wrong secret.
 */
export async function verifyConsoleToken(
  db: Queryable,
  clientId: string,
  secret: string,
  now: Date,
): Promise<{ person: PersonRecord; target: ConsoleTarget } | undefined> {
  type Row = PersonRecord & { secret_hash: string; api_prefix: string; scope: string | null };
  const { rows } = await db.query<Row>(
    `${personSql({
      columns: 't.secret_hash, t.api_prefix, t.scope',
      join: 'JOIN console_tokens t ON t.person_id = p.id AND t.organization_id = p.organization_id',
    })}
     WHERE t.client_id = $1 AND t.expires_at > $2`,
    [clientId, now],
  );
  const row = rows[0];
  const matches = secretMatches(secret, row?.secret_hash ?? NO_MATCH);
  if (!row || !matches) return undefined;
  const { secret_hash: _digest, api_prefix: apiPrefix, scope, ...person } = row;
  return { person, target: { apiPrefix, scope } };
}

/** A console token as its owner's account page lists it (never its secret or digest). */
export interface ConsoleTokenRow {
  id: string;
  api_prefix: string;
  scope: string | null;
  created_at: Date;
  expires_at: Date;
}

/** The person's live console tokens, newest first; their expired ones are deleted first. */
export async function listConsoleTokens(db: Queryable, personId: string, now: Date): Promise<ConsoleTokenRow[]> {
  await db.query('DELETE FROM console_tokens WHERE person_id = $1 AND expires_at <= $2', [personId, now]);
  const { rows } = await db.query<ConsoleTokenRow>(
    // t.id: the bigint, not the text the list selects under the same name (which would sort '9' above '10').
    `SELECT t.id::text, t.api_prefix, t.scope, t.created_at, t.expires_at FROM console_tokens t
     WHERE t.person_id = $1 AND t.expires_at > $2 ORDER BY t.created_at DESC, t.id DESC`,
    [personId, now],
  );
  return rows;
}

/** Revokes (deletes) one of the person's own tokens; false when the person has no token `id` (another's included). */
export async function revokeConsoleToken(db: Queryable, personId: string, id: string): Promise<boolean> {
  if (!/^\d{1,18}$/.test(id)) return false;
  const { rowCount } = await db.query('DELETE FROM console_tokens WHERE id = $1 AND person_id = $2', [id, personId]);
  return (rowCount ?? 0) > 0;
}

/** Deletes every expired console token (the hourly housekeeping); returns how many. */
export async function purgeExpiredConsoleTokens(db: Queryable, now = new Date()): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM console_tokens WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
