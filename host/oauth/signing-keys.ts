/**
 * The provider's RS256 signing keys: generated once, kept in `oauth_signing_keys` sealed with the
 * secret box (so a database copy alone does not let anyone mint ID tokens), shared by every host
 * process. The newest key signs; all keys stay in the JWKS so earlier ID tokens still verify.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Database } from '../db/database.ts';

const AAD = 'oauth_signing_key';
// Any constant: one process at a time generates the first key.
const LOCK_KEY = 727_001;

/** A new RS256 private JWK with `kid` (its RFC 7638 thumbprint), `alg` and `use`. */
export async function generateSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: 'RS256', use: 'sig' };
}

/** The private JWKS, newest first; creates the first key when there is none. */
export async function loadSigningKeys(db: Database, box: SecretBox): Promise<{ keys: JWK[] }> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    let { rows } = await tx.query<{ kid: string; sealed_jwk: string }>(
      'SELECT kid, sealed_jwk FROM oauth_signing_keys ORDER BY created_at DESC, kid',
    );
    if (rows.length === 0) {
      const jwk = await generateSigningKey();
      const sealed = box.seal(JSON.stringify(jwk), `${AAD}:${jwk.kid}`);
      await tx.query('INSERT INTO oauth_signing_keys (kid, sealed_jwk) VALUES ($1, $2)', [jwk.kid, sealed]);
      rows = [{ kid: jwk.kid!, sealed_jwk: sealed }];
    }
    return { keys: rows.map((r) => JSON.parse(box.open(r.sealed_jwk, `${AAD}:${r.kid}`)) as JWK) };
  });
}
