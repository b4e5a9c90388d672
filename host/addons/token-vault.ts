/**
 * The token vault: one record per person and installation (= add-on + organization + environment)
 * holding the handshake state and both token sets — the host's own grant (authenticatedFetch) and
 * the integrator's tokens (authenticatedIntegratorFetch) — sealed with AES-256-GCM. Each ciphertext is
 * bound to its row and column by the additional authenticated data, so a sealed value copied into
 * another row does not open. Values sealed with a retired key are re-sealed with the current key the
 * first time they are read.
 */
import type { SecretBox } from '../crypto/secret-box.ts';
import type { Queryable } from '../db/database.ts';

/** The handshake and token state of one person's authorization of one installation. */
export const AUTHORIZATION_STATES = ['uninitialized', 'service_authorized', 'integrator_pending', 'ready', 'reauthorization_required'] as const;
/** One of AUTHORIZATION_STATES. */
export type AuthorizationState = (typeof AUTHORIZATION_STATES)[number];

/** A token set as the vault hands it out (plaintext, in memory only). */
export interface TokenSet {
  accessToken: string;
  refreshToken: string | undefined;
  /** Absent when the issuer gave no expiry: no proactive refresh then. */
  expiresAt: Date | undefined;
  scope: string | undefined;
}

/** One person's authorization of one installation, decrypted. */
export interface VaultRecord {
  id: string;
  installationId: string;
  personId: string;
  state: AuthorizationState;
  service: TokenSet | undefined;
  integrator: TokenSet | undefined;
}

const SEALED = [
  'service_access_token_encrypted',
  'service_refresh_token_encrypted',
  'integrator_access_token_encrypted',
  'integrator_refresh_token_encrypted',
  'handshake_code_verifier_encrypted',
] as const;
type SealedColumn = (typeof SEALED)[number];

interface Row extends Record<SealedColumn, string | null> {
  id: string;
  installation_id: string;
  person_id: string;
  state: AuthorizationState;
  service_expires_at: Date | null;
  service_scopes: string[];
  integrator_expires_at: Date | null;
  integrator_scope: string | null;
}

const COLUMNS = `id::text, installation_id::text, person_id::text, state, service_expires_at, service_scopes,
  integrator_expires_at, integrator_scope, ${SEALED.join(', ')}`;

/** The key id a sealed value names (`v1.<keyId>.…`). */
export function keyIdOf(sealed: string): string {
  return sealed.split('.')[1] ?? '';
}

/** Binds a ciphertext to its row and column. */
function aad(id: string, column: SealedColumn): string {
  return `addon_authorizations:${id}:${column}`;
}

/** Reads and writes vault records; every token sealed at rest. */
export interface TokenVault {
  /** The record of a person's authorization, created as `uninitialized` when missing. */
  ensure(installationId: string, personId: string, q?: Queryable): Promise<VaultRecord>;
  /** The record, or undefined; `forUpdate` locks the row until the caller's transaction ends. */
  find(installationId: string, personId: string, options?: { q?: Queryable; forUpdate?: boolean }): Promise<VaultRecord | undefined>;
  /** The record by its own id (`forUpdate` as above). */
  findById(id: string, options?: { q?: Queryable; forUpdate?: boolean }): Promise<VaultRecord | undefined>;
  /** Stores the host's grant and moves to `service_authorized` (step 1 done). */
  saveServiceTokens(id: string, tokens: TokenSet, scopes: readonly string[], q?: Queryable): Promise<void>;
  /** Replaces the host's tokens after a refresh (state unchanged). */
  replaceServiceTokens(id: string, tokens: TokenSet, q?: Queryable): Promise<void>;
  /** Stores the integrator's tokens; `state` is `ready` after the handshake, unchanged after a refresh. */
  saveIntegratorTokens(id: string, tokens: TokenSet, options?: { q?: Queryable; state?: AuthorizationState; refreshedAt?: Date }): Promise<void>;
  /** Moves the record to another state, keeping its tokens. */
  setState(id: string, state: AuthorizationState, q?: Queryable): Promise<void>;
  /** Seals a value for a column of a row (used by the handshake for its PKCE verifier). */
  seal(id: string, column: SealedColumn, value: string): string;
  /** Opens a sealed value of a column of a row. */
  open(id: string, column: SealedColumn, sealed: string): string;
}

/** A vault over the database, sealing with `box` (the first key encrypts). */
export function createTokenVault(db: Queryable, box: SecretBox): TokenVault {
  const seal = (id: string, column: SealedColumn, value: string | undefined) => (value === undefined ? null : box.seal(value, aad(id, column)));

  /** Decrypts a row; re-seals values of a retired key with the current one, guarded against a concurrent write. */
  async function toRecord(row: Row, q: Queryable): Promise<VaultRecord> {
    const plain: Partial<Record<SealedColumn, string>> = {};
    const stale: SealedColumn[] = [];
    for (const column of SEALED) {
      const sealed = row[column];
      if (sealed === null) continue;
      plain[column] = box.open(sealed, aad(row.id, column));
      if (box.isStale(sealed)) stale.push(column);
    }
    if (stale.length > 0) {
      const sets = stale.map((c, i) => `${c} = $${i * 2 + 3}`).join(', ');
      const guards = stale.map((c, i) => `${c} = $${i * 2 + 4}`).join(' AND ');
      const params = stale.flatMap((c) => [box.seal(plain[c]!, aad(row.id, c)), row[c]]);
      await q.query(`UPDATE addon_authorizations SET ${sets}, encryption_key_id = $2 WHERE id = $1 AND ${guards}`, [row.id, keyIdOf(params[0] as string), ...params]);
    }
    const tokens = (access: SealedColumn, refresh: SealedColumn, expires: Date | null, scope: string | undefined): TokenSet | undefined =>
      plain[access] === undefined ? undefined : { accessToken: plain[access]!, refreshToken: plain[refresh], expiresAt: expires ?? undefined, scope };
    return {
      id: row.id,
      installationId: row.installation_id,
      personId: row.person_id,
      state: row.state,
      service: tokens('service_access_token_encrypted', 'service_refresh_token_encrypted', row.service_expires_at, row.service_scopes.join(' ')),
      integrator: tokens('integrator_access_token_encrypted', 'integrator_refresh_token_encrypted', row.integrator_expires_at, row.integrator_scope ?? undefined),
    };
  }


  async function select(where: string, params: unknown[], options: { q?: Queryable; forUpdate?: boolean } = {}) {
    const q = options.q ?? db;
    const { rows } = await q.query<Row>(`SELECT ${COLUMNS} FROM addon_authorizations WHERE ${where}${options.forUpdate ? ' FOR UPDATE' : ''}`, params);
    return rows[0] ? toRecord(rows[0], q) : undefined;
  }

  return {
    async ensure(installationId, personId, q = db) {
      await q.query(
        `INSERT INTO addon_authorizations (installation_id, person_id) VALUES ($1, $2) ON CONFLICT (installation_id, person_id) DO NOTHING`,
        [installationId, personId],
      );
      return (await select('installation_id = $1 AND person_id = $2', [installationId, personId], { q }))!;
    },
    find: (installationId, personId, options) => select('installation_id = $1 AND person_id = $2', [installationId, personId], options),
    findById: (id, options) => select('id = $1', [id], options),
    async saveServiceTokens(id, tokens, scopes, q = db) {
      const access = seal(id, 'service_access_token_encrypted', tokens.accessToken)!;
      await q.query(
        `UPDATE addon_authorizations SET state = 'service_authorized', service_access_token_encrypted = $2, service_refresh_token_encrypted = $3,
           service_expires_at = $4, service_scopes = $5, encryption_key_id = $6, updated_at = now() WHERE id = $1`,
        [id, access, seal(id, 'service_refresh_token_encrypted', tokens.refreshToken), tokens.expiresAt ?? null, [...scopes], keyIdOf(access)],
      );
    },
    async replaceServiceTokens(id, tokens, q = db) {
      const access = seal(id, 'service_access_token_encrypted', tokens.accessToken)!;
      // A refresh response without a refresh token leaves the current one in force (RFC 6749 §6).
      await q.query(
        `UPDATE addon_authorizations SET service_access_token_encrypted = $2, service_refresh_token_encrypted = COALESCE($3, service_refresh_token_encrypted),
           service_expires_at = $4, encryption_key_id = $5, updated_at = now() WHERE id = $1`,
        [id, access, seal(id, 'service_refresh_token_encrypted', tokens.refreshToken), tokens.expiresAt ?? null, keyIdOf(access)],
      );
    },
    async saveIntegratorTokens(id, tokens, options = {}) {
      const q = options.q ?? db;
      const access = seal(id, 'integrator_access_token_encrypted', tokens.accessToken)!;
      await q.query(
        `UPDATE addon_authorizations SET integrator_access_token_encrypted = $2,
           integrator_refresh_token_encrypted = CASE WHEN $7::boolean THEN $3 ELSE COALESCE($3, integrator_refresh_token_encrypted) END,
           integrator_expires_at = $4, integrator_scope = COALESCE($5, integrator_scope), state = COALESCE($6, state),
           integrator_refreshed_at = $8, encryption_key_id = $9, updated_at = now() WHERE id = $1`,
        [
          id,
          access,
          seal(id, 'integrator_refresh_token_encrypted', tokens.refreshToken),
          tokens.expiresAt ?? null,
          tokens.scope ?? null,
          options.state ?? null,
          // A new handshake replaces the whole set; a refresh keeps the old refresh token when none comes back.
          options.state === 'ready',
          options.refreshedAt ?? null,
          keyIdOf(access),
        ],
      );
    },
    async setState(id, state, q = db) {
      await q.query('UPDATE addon_authorizations SET state = $2, updated_at = now() WHERE id = $1', [id, state]);
    },
    seal: (id, column, value) => box.seal(value, aad(id, column)),
    open: (id, column, sealed) => box.open(sealed, aad(id, column)),
  };
}
