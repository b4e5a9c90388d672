/**
 * Personal access tokens: a client_id and a secret, sent by HTTP Basic. The secret is shown once and
 * stored as a SHA-256 digest; checks run in constant time.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { fromPeople } from '../directory/index.ts';
import { personSql, type PersonRecord } from './person.ts';
import { hashSecret, newSecret, secretMatches } from './secret-hash.ts';

export interface CreatedPersonalAccessToken {
  id: string;
  name: string;
  client_id: string;
  /** Shown once; only its digest is stored. */
  secret: string;
}

/** Creates a token for a person; returns the secret once. */
export async function createPersonalAccessToken(
  db: Queryable,
  personId: string,
  name: string,
): Promise<CreatedPersonalAccessToken> {
  const clientId = randomBytes(16).toString('hex');
  const secret = newSecret(32);
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO personal_access_tokens (person_id, organization_id, name, client_id, secret_hash)
     SELECT p.id, p.organization_id, $2, $3, $4 ${fromPeople('p')} WHERE p.id = $1 RETURNING id::text`,
    [personId, name, clientId, hashSecret(secret)],
  );
  const row = rows[0];
  if (!row) throw new Error(`no person ${personId}`);
  return { id: row.id, name, client_id: clientId, secret };
}

// A digest no secret has: unknown client ids still cost one comparison.
const NO_MATCH = hashSecret(randomBytes(32).toString('hex'));

/**
 * The person a client_id/secret pair authenticates (with organization and roles, read now), or undefined.
 * One statement reads the token and its person, so roles and the token's state are those at request time.
 */
export async function verifyPersonalAccessToken(
  db: Queryable,
  clientId: string,
  secret: string,
): Promise<PersonRecord | undefined> {
  const { rows } = await db.query<PersonRecord & { secret_hash: string; token_disabled_at: Date | null }>(
    `${personSql({ columns: 't.secret_hash, t.disabled_at AS token_disabled_at', join: 'JOIN personal_access_tokens t ON t.person_id = p.id' })}
     WHERE t.client_id = $1`,
    [clientId],
  );
  const row = rows[0];
  const matches = secretMatches(secret, row?.secret_hash ?? NO_MATCH);
  if (!row || !matches || row.token_disabled_at) return undefined;
  const { secret_hash: _digest, token_disabled_at: _disabled, ...person } = row;
  return person;
}

/** A token as its owner's developer page lists it (never its secret or digest). */
export interface PersonalAccessTokenRow {
  id: string;
  name: string;
  client_id: string;
  created_at: Date;
  disabled_at: Date | null;
}

/** The person's tokens, newest first (the developer page's list). */
export async function listPersonalAccessTokens(db: Queryable, personId: string): Promise<PersonalAccessTokenRow[]> {
  const { rows } = await db.query<PersonalAccessTokenRow>(
    'SELECT id::text, name, client_id, created_at, disabled_at FROM personal_access_tokens WHERE person_id = $1 ORDER BY created_at DESC, personal_access_tokens.id DESC',
    [personId],
  );
  return rows;
}

/** Deletes one of the person's own tokens; false when the person has no token `id` (another person's included). */
export async function deletePersonalAccessToken(db: Queryable, personId: string, id: string): Promise<boolean> {
  if (!/^\d{1,18}$/.test(id)) return false;
  const { rowCount } = await db.query('DELETE FROM personal_access_tokens WHERE id = $1 AND person_id = $2', [
    id,
    personId,
  ]);
  return (rowCount ?? 0) > 0;
}

/**
 * A page of the person's tokens in the organization as the developer API reads them: `$1` the person, `$2` the
 * organization, then the parameters of the API's `order` and `page` clauses (its query, parsed by jsonapi/).
 */
export async function pageOfPersonalAccessTokens(
  db: Queryable,
  params: readonly unknown[],
  clauses: { order: string; page: string },
): Promise<{ rows: { id: string; name: string }[]; total: number }> {
  const from = 'FROM personal_access_tokens t WHERE t.person_id = $1 AND t.organization_id = $2';
  const total = await db.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params.slice(0, 2));
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT t.id::text, t.name ${from} ${clauses.order} ${clauses.page}`,
    [...params],
  );
  return { rows, total: total.rows[0]?.n ?? 0 };
}

/** One of the person's tokens in the organization (id and name), or undefined. */
export async function findPersonalAccessToken(
  db: Queryable,
  personId: string,
  organizationId: string,
  id: string,
): Promise<{ id: string; name: string } | undefined> {
  const { rows } = await db.query<{ id: string; name: string }>(
    'SELECT t.id::text, t.name FROM personal_access_tokens t WHERE t.person_id = $1 AND t.organization_id = $2 AND t.id = $3',
    [personId, organizationId, id],
  );
  return rows[0];
}
