/**
 * The only module that issues SQL on `addon_authorizations` (migrations 040, 045): one row per person and
 * installation, holding the state (see states.ts), both token sets sealed, and the running handshake's
 * state digest, deadline, consent mark and sealed PKCE verifier. Values arrive here already sealed; the
 * token vault (token-vault.ts) seals and opens them.
 */
import type { Queryable } from '../../db/database.ts';
import { IllegalTransitionError, sourcesOf, type AuthorizationState } from './states.ts';

/** Columns holding sealed values (each bound to its row and column by the AAD). */
export const SEALED_COLUMNS = [
  'service_access_token_encrypted',
  'service_refresh_token_encrypted',
  'integrator_access_token_encrypted',
  'integrator_refresh_token_encrypted',
  'handshake_code_verifier_encrypted',
] as const;

/** One of {@link SEALED_COLUMNS}. */
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

/** A row as stored (sealed values still sealed). */
export interface AuthorizationRow extends Record<SealedColumn, string | null> {
  id: string;
  installation_id: string;
  person_id: string;
  state: AuthorizationState;
  service_expires_at: Date | null;
  service_scopes: string[];
  integrator_expires_at: Date | null;
  integrator_scope: string | null;
}

/** The running handshake of a row. */
export interface HandshakeRow {
  id: string;
  stateHash: string | null;
  expiresAt: Date | null;
  consentHash: string | null;
}

/** A sealed token set as written (`keyId` = the key that sealed `access`). */
export interface SealedTokens {
  access: string;
  refresh: string | null;
  expiresAt: Date | null;
  keyId: string;
}

/** Row locking for reads inside a transaction. */
export interface ReadOptions {
  q?: Queryable;
  /** `SELECT … FOR UPDATE`: the row stays locked until the caller's transaction ends. */
  forUpdate?: boolean;
}

const COLUMNS = `id::text, installation_id::text, person_id::text, state, service_expires_at, service_scopes,
  integrator_expires_at, integrator_scope, ${SEALED_COLUMNS.join(', ')}`;

/** A row as {@link authorizationJsonSql} reads it: its timestamps as JSON strings. */
export type AuthorizationRowJson = Omit<AuthorizationRow, 'service_expires_at' | 'integrator_expires_at'> & {
  service_expires_at: string | null;
  integrator_expires_at: string | null;
};

/**
 * For a statement that reads more than the row (the proxy's, with the person and the installation): the row of
 * `installation` and `person` (SQL expressions) as one JSON value, null when there is none.
 */
export function authorizationJsonSql(installation: string, person: string): string {
  return `(SELECT to_json(x) FROM (SELECT ${COLUMNS} FROM addon_authorizations
    WHERE installation_id = ${installation} AND person_id = ${person}) x)`;
}

/** The row of a value read by {@link authorizationJsonSql}. */
export function authorizationRowOf(json: AuthorizationRowJson): AuthorizationRow {
  const date = (value: string | null) => (value === null ? null : new Date(value));
  return {
    ...json,
    service_expires_at: date(json.service_expires_at),
    integrator_expires_at: date(json.integrator_expires_at),
  };
}

/** Every read, write and state transition of `addon_authorizations`. */
export interface AuthorizationStore {
  /** Creates the row as `uninitialized` when missing; returns it. */
  ensure(installationId: string, personId: string, q?: Queryable): Promise<AuthorizationRow>;
  /** The row of a person and installation. */
  find(installationId: string, personId: string, options?: ReadOptions): Promise<AuthorizationRow | undefined>;
  /** The row by its id. */
  findById(id: string, options?: ReadOptions): Promise<AuthorizationRow | undefined>;
  /** The state of each installation the person has a row for. */
  statesOfPerson(personId: string): Promise<Map<string, AuthorizationState>>;
  /** Moves the row to `to`, refused with IllegalTransitionError when its current state may not. */
  transition(id: string, to: AuthorizationState, q?: Queryable): Promise<void>;
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
  /**
   * The organization's access_mode leaves the person out: marks the row excluded (once; a completed handshake
   * clears the mark). Returns the row's integrator subject when this call marked it, undefined when it was already
   * marked or never authorized (`uninitialized`) — so the `excluded` event is recorded once.
   */
  markExcluded(id: string, q?: Queryable): Promise<{ subject: string | null } | undefined>;
  /**
   * The person revokes the add-on: the row is deleted (its tokens with it; a new handshake starts from
   * `uninitialized`). Returns what it held for the revocation of the host grant and the `revoked` event, or
   * undefined when there was no row.
   */
  revoke(
    installationId: string,
    personId: string,
    q?: Queryable,
  ): Promise<{ row: AuthorizationRow; subject: string | null } | undefined>;
  /** Re-seals values of a retired key, each only if it still holds the value read (a concurrent write wins). */
  reseal(
    id: string,
    keyId: string,
    columns: readonly { column: SealedColumn; sealed: string; previous: string }[],
    q?: Queryable,
  ): Promise<void>;
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

/** The store over a database (or a transaction, per call through `q`). */
export function createAuthorizationStore(db: Queryable): AuthorizationStore {
  async function select(
    where: string,
    params: unknown[],
    options: ReadOptions = {},
  ): Promise<AuthorizationRow | undefined> {
    const q = options.q ?? db;
    const lock = options.forUpdate ? ' FOR UPDATE' : '';
    const { rows } = await q.query<AuthorizationRow>(
      `SELECT ${COLUMNS} FROM addon_authorizations WHERE ${where}${lock}`,
      params,
    );
    return rows[0];
  }

  /** After a guarded update wrote nothing: the row's state did not allow the move (or there is no row). */
  async function refuse(id: string, to: AuthorizationState, q: Queryable): Promise<never> {
    const row = await select('id = $1', [id], { q });
    if (!row) throw new Error(`No add-on authorization ${id}`);
    throw new IllegalTransitionError(row.state, to);
  }

  return {
    async ensure(installationId, personId, q = db) {
      await q.query(
        'INSERT INTO addon_authorizations (installation_id, person_id) VALUES ($1, $2) ON CONFLICT (installation_id, person_id) DO NOTHING',
        [installationId, personId],
      );
      return (await select('installation_id = $1 AND person_id = $2', [installationId, personId], { q }))!;
    },
    find: (installationId, personId, options) =>
      select('installation_id = $1 AND person_id = $2', [installationId, personId], options),
    findById: (id, options) => select('id = $1', [id], options),
    async statesOfPerson(personId) {
      const { rows } = await db.query<{ installation_id: string; state: AuthorizationState }>(
        'SELECT installation_id::text, state FROM addon_authorizations WHERE person_id = $1',
        [personId],
      );
      return new Map(rows.map((r) => [r.installation_id, r.state]));
    },
    async transition(id, to, q = db) {
      const { rowCount } = await q.query(
        'UPDATE addon_authorizations SET state = $2, updated_at = now() WHERE id = $1 AND state = ANY($3::text[])',
        [id, to, sourcesOf(to)],
      );
      if (rowCount !== 1) await refuse(id, to, q);
    },
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
      if (rowCount !== 1) await refuse(id, 'service_authorized', q);
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
      if (ready && rowCount !== 1) await refuse(id, 'ready', q);
    },
    async markExcluded(id, q = db) {
      const { rows } = await q.query<{ subject: string | null }>(
        `UPDATE addon_authorizations SET excluded_at = now(), updated_at = now()
         WHERE id = $1 AND excluded_at IS NULL AND state <> 'uninitialized' RETURNING integrator_subject AS subject`,
        [id],
      );
      return rows[0];
    },
    async revoke(installationId, personId, q = db) {
      const { rows } = await q.query<AuthorizationRow & { subject: string | null }>(
        `DELETE FROM addon_authorizations WHERE installation_id = $1 AND person_id = $2
         RETURNING ${COLUMNS}, integrator_subject AS subject`,
        [installationId, personId],
      );
      const found = rows[0];
      if (!found) return undefined;
      const { subject, ...row } = found;
      return { row, subject };
    },
    async reseal(id, keyId, columns, q = db) {
      if (columns.length === 0) return;
      const sets = columns.map((c, i) => `${c.column} = $${i * 2 + 3}`).join(', ');
      const guards = columns.map((c, i) => `${c.column} = $${i * 2 + 4}`).join(' AND ');
      const params = columns.flatMap((c) => [c.sealed, c.previous]);
      await q.query(`UPDATE addon_authorizations SET ${sets}, encryption_key_id = $2 WHERE id = $1 AND ${guards}`, [
        id,
        keyId,
        ...params,
      ]);
    },
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
