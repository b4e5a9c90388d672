/**
 * The store's statements on the running handshake: a leg begun (state digest, deadline, sealed verifier), read,
 * consented, cleared — the columns `handshake/` uses and nothing else does.
 */
import type { Queryable } from '../../db/database.ts';
import type { HandshakeRow } from './row.ts';

/** The handshake's reads and writes (part of the AuthorizationStore). */
export interface HandshakeStatements {
  /**
   * Starts a handshake leg: a new state digest, deadline and (leg two) sealed verifier, no consent mark.
   * With `replacing`, only while the row holds that state, consented and unexpired at `now` — one
   * statement, so of concurrent callers exactly one succeeds. False when nothing was written.
   */
  beginLeg(
    id: string,
    leg: { stateHash: string; expiresAt: Date; sealedVerifier: string | null },
    replacing?: { stateHash: string; now: Date },
  ): Promise<boolean>;
  /** The running handshake of a person and installation. */
  handshakeOf(installationId: string, personId: string): Promise<HandshakeRow | undefined>;
  /** The sealed PKCE verifier of the running leg two. */
  sealedVerifier(id: string): Promise<string | null>;
  /** Ends the handshake: state, deadline, verifier and consent mark cleared (single use). */
  clearHandshake(id: string, q?: Queryable): Promise<void>;
  /** The row running leg one (no verifier) with this state digest for this person. */
  findLegOne(stateHash: string, personId: string): Promise<{ id: string; installationId: string } | undefined>;
  /** Marks the host's consent to leg one, only if the row still holds that state digest. */
  markConsent(id: string, stateHash: string): Promise<void>;
}

/** The handshake's statements over a database. */
export function handshakeStatements(db: Queryable): HandshakeStatements {
  return {
    async beginLeg(id, leg, replacing) {
      const params: unknown[] = [id, leg.stateHash, leg.expiresAt, leg.sealedVerifier];
      const guard = replacing
        ? ' AND handshake_state_hash = $5 AND handshake_consent_hash = $5 AND handshake_expires_at > $6'
        : '';
      if (replacing) params.push(replacing.stateHash, replacing.now);
      const { rowCount } = await db.query(
        `UPDATE addon_authorizations SET handshake_state_hash = $2, handshake_expires_at = $3, handshake_code_verifier_encrypted = $4,
           handshake_consent_hash = NULL, updated_at = now() WHERE id = $1${guard}`,
        params,
      );
      return rowCount === 1;
    },
    async handshakeOf(installationId, personId) {
      const { rows } = await db.query<{
        id: string;
        handshake_state_hash: string | null;
        handshake_expires_at: Date | null;
        handshake_consent_hash: string | null;
      }>(
        `SELECT id::text, handshake_state_hash, handshake_expires_at, handshake_consent_hash FROM addon_authorizations
         WHERE installation_id = $1 AND person_id = $2`,
        [installationId, personId],
      );
      const row = rows[0];
      return (
        row && {
          id: row.id,
          stateHash: row.handshake_state_hash,
          expiresAt: row.handshake_expires_at,
          consentHash: row.handshake_consent_hash,
        }
      );
    },
    async sealedVerifier(id) {
      const { rows } = await db.query<{ sealed: string | null }>(
        'SELECT handshake_code_verifier_encrypted AS sealed FROM addon_authorizations WHERE id = $1',
        [id],
      );
      return rows[0]?.sealed ?? null;
    },
    async clearHandshake(id, q = db) {
      await q.query(
        `UPDATE addon_authorizations SET handshake_state_hash = NULL, handshake_expires_at = NULL, handshake_code_verifier_encrypted = NULL,
           handshake_consent_hash = NULL WHERE id = $1`,
        [id],
      );
    },
    async findLegOne(stateHash, personId) {
      // Leg one carries no PKCE verifier; leg two's state never goes to the host's /oauth/authorize.
      const { rows } = await db.query<{ id: string; installation_id: string }>(
        `SELECT id::text, installation_id::text FROM addon_authorizations
         WHERE handshake_state_hash = $1 AND handshake_code_verifier_encrypted IS NULL AND person_id::text = $2`,
        [stateHash, personId],
      );
      return rows[0] && { id: rows[0].id, installationId: rows[0].installation_id };
    },
    async markConsent(id, stateHash) {
      await db.query(
        'UPDATE addon_authorizations SET handshake_consent_hash = $2, updated_at = now() WHERE id = $1 AND handshake_state_hash = $2',
        [id, stateHash],
      );
    },
  };
}
