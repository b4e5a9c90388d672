/** The store's statements writing the sealed token sets: the host's grant (step 3, a refresh) and the integrator's (step 6, a refresh). */
import type { Queryable } from '../../db/database.ts';
import { refuseMove, type SealedTokens } from './row.ts';
import { sourcesOf } from './states.ts';

/** The token writes (part of the AuthorizationStore). */
export interface TokenStatements {
  /** Step 3 done: the host grant stored → `service_authorized`. */
  saveServiceTokens(id: string, tokens: SealedTokens, scopes: readonly string[], q?: Queryable): Promise<void>;
  /** The host grant refreshed (state unchanged; no refresh token back keeps the stored one). */
  replaceServiceTokens(id: string, tokens: SealedTokens, q?: Queryable): Promise<void>;
  /**
   * Stores the integrator tokens: with `ready` (step 6) the whole set is replaced and the row moves to
   * `ready`; without (a refresh) the state stays and a missing refresh token keeps the stored one.
   */
  saveIntegratorTokens(
    id: string,
    tokens: SealedTokens & { scope: string | null },
    options?: { q?: Queryable; ready?: boolean; refreshedAt?: Date; subject?: string | null },
  ): Promise<void>;
}

/** The token writes over a database (or a transaction, per call through `q`). */
export function tokenStatements(db: Queryable): TokenStatements {
  return {
    async saveServiceTokens(id, tokens, scopes, q = db) {
      const { rowCount } = await q.query(
        `UPDATE addon_authorizations SET state = 'service_authorized', service_access_token_encrypted = $2, service_refresh_token_encrypted = $3,
           service_expires_at = $4, service_scopes = $5, encryption_key_id = $6, updated_at = now() WHERE id = $1 AND state = ANY($7::text[])`,
        [
          id,
          tokens.access,
          tokens.refresh,
          tokens.expiresAt,
          [...scopes],
          tokens.keyId,
          sourcesOf('service_authorized'),
        ],
      );
      if (rowCount !== 1) await refuseMove(id, 'service_authorized', q);
    },
    async replaceServiceTokens(id, tokens, q = db) {
      // A refresh response without a refresh token leaves the current one in force (RFC 6749 §6).
      await q.query(
        `UPDATE addon_authorizations SET service_access_token_encrypted = $2, service_refresh_token_encrypted = COALESCE($3, service_refresh_token_encrypted),
           service_expires_at = $4, encryption_key_id = $5, updated_at = now() WHERE id = $1`,
        [id, tokens.access, tokens.refresh, tokens.expiresAt, tokens.keyId],
      );
    },
    async saveIntegratorTokens(id, tokens, options = {}) {
      const q = options.q ?? db;
      const ready = options.ready === true;
      const { rowCount } = await q.query(
        `UPDATE addon_authorizations SET integrator_access_token_encrypted = $2,
           integrator_refresh_token_encrypted = CASE WHEN $6::boolean THEN $3 ELSE COALESCE($3, integrator_refresh_token_encrypted) END,
           integrator_expires_at = $4, integrator_scope = COALESCE($5, integrator_scope),
           state = CASE WHEN $6::boolean THEN 'ready' ELSE state END,
           integrator_refreshed_at = $7, encryption_key_id = $8, updated_at = now(),
           integrator_subject = CASE WHEN $6::boolean THEN $10 ELSE integrator_subject END,
           authorized_at = CASE WHEN $6::boolean THEN now() ELSE authorized_at END,
           excluded_at = CASE WHEN $6::boolean THEN NULL ELSE excluded_at END
         WHERE id = $1 AND (NOT $6::boolean OR state = ANY($9::text[]))`,
        [
          id,
          tokens.access,
          tokens.refresh,
          tokens.expiresAt,
          tokens.scope,
          ready,
          options.refreshedAt ?? null,
          tokens.keyId,
          sourcesOf('ready'),
          options.subject ?? null,
        ],
      );
      if (ready && rowCount !== 1) await refuseMove(id, 'ready', q);
    },
  };
}
