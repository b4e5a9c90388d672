/** Authorization codes: single use, short lived, bound to client, redirect URI, PKCE challenge and user. */
import { randomBytes } from 'node:crypto';
import { hashSecret } from './secrets.ts';
import type { Queryable } from './sql.ts';

/** What a code is bound to. */
export interface CodeGrant {
  clientId: string;
  userId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
}

/** A code row as the token endpoint sees it. */
export interface StoredCode extends CodeGrant {
  expiresAt: Date;
  usedAt: Date | null;
  familyId: string | null;
}

/** Creates a code and returns it; only its digest is stored. */
export async function createAuthorizationCode(
  db: Queryable,
  grant: CodeGrant,
  now: Date,
  ttlSeconds: number,
): Promise<string> {
  const code = randomBytes(32).toString('base64url');
  await db.query(
    `INSERT INTO authorization_codes (code_hash, client_id, user_id, redirect_uri, code_challenge, scope, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      hashSecret(code),
      grant.clientId,
      grant.userId,
      grant.redirectUri,
      grant.codeChallenge,
      grant.scope,
      now,
      new Date(now.getTime() + ttlSeconds * 1000),
    ],
  );
  return code;
}

/** Locks and returns a code by its plain value (inside a transaction). */
export async function lockAuthorizationCode(
  tx: Queryable,
  code: string,
): Promise<(StoredCode & { hash: string }) | null> {
  const hash = hashSecret(code);
  const { rows } = await tx.query<{
    client_id: string;
    user_id: string;
    redirect_uri: string;
    code_challenge: string;
    scope: string;
    expires_at: Date;
    used_at: Date | null;
    family_id: string | null;
  }>(
    `SELECT client_id, user_id::text, redirect_uri, code_challenge, scope, expires_at, used_at, family_id::text
       FROM authorization_codes WHERE code_hash = $1 FOR UPDATE`,
    [hash],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    hash,
    clientId: r.client_id,
    userId: r.user_id,
    redirectUri: r.redirect_uri,
    codeChallenge: r.code_challenge,
    scope: r.scope,
    expiresAt: new Date(r.expires_at),
    usedAt: r.used_at ? new Date(r.used_at) : null,
    familyId: r.family_id,
  };
}

/** Marks a code used, remembering the token family it produced. */
export async function markCodeUsed(tx: Queryable, hash: string, familyId: string, now: Date): Promise<void> {
  await tx.query('UPDATE authorization_codes SET used_at = $2, family_id = $3 WHERE code_hash = $1', [
    hash,
    now,
    familyId,
  ]);
}
