/**
 * Token families: an access + refresh pair per grant, refresh rotation with a grace window, and
 * revocation of the whole family on reuse. Only SHA-256 digests are stored.
 */
import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { hashSecret } from './secrets.ts';
import type { Queryable } from './sql.ts';

/** A token response's content. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  /** Seconds until the access token expires. */
  expiresIn: number;
  scope: string;
  /** The user the grant is for (`user_id` of the token response: the host keeps it to name the person back). */
  userId: string;
}

/** Lifetimes and the grace window, from the configuration. */
export interface TokenSettings {
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  refreshGraceSeconds: number;
}

/** What a refresh attempt found; the endpoint maps everything but `issued` to invalid_grant. */
export type RefreshOutcome =
  | { kind: 'issued'; pair: TokenPair }
  | { kind: 'unknown' | 'wrong_client' | 'revoked' | 'expired' | 'invalid_scope' }
  | { kind: 'reused'; familyId: string };

/**
 * Derives the successor of a refresh token. Being a function of the presented token and a server
 * key, a replay inside the grace window yields the very same pair without storing it in clear.
 */
export function createTokenDeriver(secret: string): (purpose: 'access' | 'refresh', previous: string) => string {
  const key = Buffer.from(hkdfSync('sha256', secret, 'integrator-template', 'refresh token rotation', 32));
  return (purpose, previous) => createHmac('sha256', key).update(`${purpose}\0${previous}`).digest('base64url');
}

const later = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

async function storePair(
  tx: Queryable,
  familyId: string,
  access: string,
  refresh: string,
  now: Date,
  s: TokenSettings,
): Promise<void> {
  await tx.query('INSERT INTO access_tokens (token_hash, family_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    hashSecret(access),
    familyId,
    now,
    later(now, s.accessTokenTtlSeconds),
  ]);
  await tx.query('INSERT INTO refresh_tokens (token_hash, family_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    hashSecret(refresh),
    familyId,
    now,
    later(now, s.refreshTokenTtlSeconds),
  ]);
}

/** Starts a family for a fresh grant and issues its first pair. */
export async function issueTokenFamily(
  tx: Queryable,
  grant: { clientId: string; userId: string; scope: string },
  now: Date,
  s: TokenSettings,
): Promise<{ familyId: string; pair: TokenPair }> {
  const { rows } = await tx.query<{ id: string }>(
    'INSERT INTO token_families (client_id, user_id, scope, created_at) VALUES ($1, $2, $3, $4) RETURNING id::text',
    [grant.clientId, grant.userId, grant.scope, now],
  );
  const familyId = rows[0]!.id;
  const access = randomBytes(32).toString('base64url');
  const refresh = randomBytes(32).toString('base64url');
  await storePair(tx, familyId, access, refresh, now, s);
  return {
    familyId,
    pair: {
      accessToken: access,
      refreshToken: refresh,
      expiresIn: s.accessTokenTtlSeconds,
      scope: grant.scope,
      userId: grant.userId,
    },
  };
}

/** Revokes every token of a family. */
export async function revokeTokenFamily(tx: Queryable, familyId: string, now: Date): Promise<void> {
  await tx.query('UPDATE token_families SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1', [familyId, now]);
}

/**
 * Rotates a refresh token. Within the grace window after a rotation, the previous token may be
 * presented once more (a lost response) and gets the same new pair; any other reuse revokes the family.
 * @see https://www.rfc-editor.org/rfc/rfc9700#section-4.14.2
 */
export async function rotateRefreshToken(
  tx: Queryable,
  presented: string,
  clientId: string,
  derive: (purpose: 'access' | 'refresh', previous: string) => string,
  now: Date,
  s: TokenSettings,
  /** The request's `scope`, if sent: it must equal the granted scope (narrowing is not offered). */
  requestedScope?: string,
): Promise<RefreshOutcome> {
  const { rows } = await tx.query<{
    family_id: string;
    client_id: string;
    user_id: string;
    scope: string;
    expires_at: Date;
    rotated_at: Date | null;
    replayed_at: Date | null;
    revoked_at: Date | null;
  }>(
    `SELECT r.family_id::text, f.client_id, f.user_id::text, f.scope, r.expires_at, r.rotated_at, r.replayed_at, f.revoked_at
       FROM refresh_tokens r JOIN token_families f ON f.id = r.family_id
      WHERE r.token_hash = $1 FOR UPDATE OF r, f`,
    [hashSecret(presented)],
  );
  const row = rows[0];
  if (!row) return { kind: 'unknown' };
  // A token bound to another client is treated as unknown to it (RFC 6749 §6).
  if (row.client_id !== clientId) return { kind: 'wrong_client' };
  if (row.revoked_at) return { kind: 'revoked' };
  if (new Date(row.expires_at) <= now) return { kind: 'expired' };
  // RFC 6749 §6: a scope beyond the original grant MUST be refused.
  if (requestedScope !== undefined && !sameScopes(requestedScope, row.scope)) return { kind: 'invalid_scope' };

  const access = derive('access', presented);
  const refresh = derive('refresh', presented);
  if (!row.rotated_at) {
    await tx.query('UPDATE refresh_tokens SET rotated_at = $2 WHERE token_hash = $1', [hashSecret(presented), now]);
    await storePair(tx, row.family_id, access, refresh, now, s);
    return {
      kind: 'issued',
      pair: {
        accessToken: access,
        refreshToken: refresh,
        expiresIn: s.accessTokenTtlSeconds,
        scope: row.scope,
        userId: row.user_id,
      },
    };
  }

  const inGrace = now.getTime() - new Date(row.rotated_at).getTime() <= s.refreshGraceSeconds * 1000;
  const successor = await tx.query<{ rotated_at: Date | null }>(
    'SELECT rotated_at FROM refresh_tokens WHERE token_hash = $1',
    [hashSecret(refresh)],
  );
  const successorUnused = successor.rows[0] !== undefined && successor.rows[0].rotated_at === null;
  if (inGrace && !row.replayed_at && successorUnused) {
    await tx.query('UPDATE refresh_tokens SET replayed_at = $2 WHERE token_hash = $1', [hashSecret(presented), now]);
    const { rows: tokenRows } = await tx.query<{ expires_at: Date }>(
      'SELECT expires_at FROM access_tokens WHERE token_hash = $1',
      [hashSecret(access)],
    );
    const expiresAt = new Date(tokenRows[0]!.expires_at).getTime();
    const expiresIn = Math.max(0, Math.ceil((expiresAt - now.getTime()) / 1000));
    return {
      kind: 'issued',
      pair: { accessToken: access, refreshToken: refresh, expiresIn, scope: row.scope, userId: row.user_id },
    };
  }
  // RFC 9700 §4.14.2: a rotated token presented again means it may have leaked — end the grant.
  await revokeTokenFamily(tx, row.family_id, now);
  return { kind: 'reused', familyId: row.family_id };
}

/**
 * Drops every token family (access and refresh tokens, the codes that made them) of a user and client: the host
 * said the person revoked the add-on, was excluded, or must authorize again (webhooks/addon-kit-receiver.ts).
 * Returns how many grants were dropped.
 */
export async function dropUserTokens(tx: Queryable, grant: { clientId: string; userId: string }): Promise<number> {
  const { rowCount } = await tx.query('DELETE FROM token_families WHERE client_id = $1 AND user_id::text = $2', [
    grant.clientId,
    grant.userId,
  ]);
  return rowCount;
}

/** Who an access token speaks for. */
export interface AccessGrant {
  userId: string;
  clientId: string;
  scope: string;
}

/** The grant behind a live access token, or null when unknown, expired or revoked. */
export async function verifyAccessToken(db: Queryable, token: string, now: Date): Promise<AccessGrant | null> {
  const { rows } = await db.query<{ user_id: string; client_id: string; scope: string }>(
    `SELECT f.user_id::text, f.client_id, f.scope
       FROM access_tokens a JOIN token_families f ON f.id = a.family_id
      WHERE a.token_hash = $1 AND a.expires_at > $2 AND f.revoked_at IS NULL`,
    [hashSecret(token), now],
  );
  const r = rows[0];
  return r ? { userId: r.user_id, clientId: r.client_id, scope: r.scope } : null;
}

function sameScopes(a: string, b: string): boolean {
  const x = new Set(a.split(' ').filter(Boolean));
  const y = new Set(b.split(' ').filter(Boolean));
  return x.size === y.size && [...x].every((v) => y.has(v));
}
