/**
 * The token vault: one record per person and installation (= add-on + organization + environment)
 * holding the handshake state and both token sets — the host's own grant (authenticatedFetch) and
 * the integrator's tokens (authenticatedIntegratorFetch) — sealed with AES-256-GCM. Each ciphertext is
 * bound to its row and column by the additional authenticated data, so a sealed value copied into
 * another row does not open. Values sealed with a retired key are re-sealed with the current key the
 * first time they are read. The rows are read and written through the authorizations store.
 */
import type { AddonSide } from '@addon-kit/sdk/protocol';
import { createOpenedSecrets, type OpenedSecrets } from '../../crypto/opened-secrets.ts';
import type { SecretBox } from '../../crypto/secret-box.ts';
import type { Queryable } from '../../db/database.ts';
import type { AuthorizationState } from './states.ts';
import {
  SEALED_COLUMNS,
  createAuthorizationStore,
  type AuthorizationRow,
  type AuthorizationStore,
  type ReadOptions,
  type SealedColumn,
  type SealedTokens,
} from './store.ts';

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

/** The key id a sealed value names (`v1.<keyId>.…`). */
export function keyIdOf(sealed: string): string {
  return sealed.split('.')[1] ?? '';
}

/** Binds a ciphertext to its row and column. */
function aad(id: string, column: SealedColumn): string {
  return `addon_authorizations:${id}:${column}`;
}

/** A row's sealed values opened, by column. */
type OpenedColumns = Partial<Record<SealedColumn, string>>;

/** Opens every sealed value of a row; those sealed with a retired key come back re-sealed with the current one. */
function openSealedColumns(
  row: AuthorizationRow,
  opened: OpenedSecrets,
  box: SecretBox,
): { plain: OpenedColumns; stale: { column: SealedColumn; sealed: string; previous: string }[] } {
  const plain: OpenedColumns = {};
  const stale: { column: SealedColumn; sealed: string; previous: string }[] = [];
  for (const column of SEALED_COLUMNS) {
    const sealed = row[column];
    if (sealed === null) continue;
    plain[column] = opened.open(sealed, aad(row.id, column));
    if (box.isStale(sealed))
      stale.push({ column, sealed: opened.seal(plain[column], aad(row.id, column)), previous: sealed });
  }
  return { plain, stale };
}

/** One side's token set of the opened values, none when its access token is absent. */
function tokenSetOf(
  plain: OpenedColumns,
  access: SealedColumn,
  refresh: SealedColumn,
  expires: Date | null,
  scope: string | undefined,
): TokenSet | undefined {
  return plain[access] === undefined
    ? undefined
    : { accessToken: plain[access], refreshToken: plain[refresh], expiresAt: expires ?? undefined, scope };
}

/** The record of a row and its opened values. */
function recordOf(row: AuthorizationRow, plain: OpenedColumns): VaultRecord {
  return {
    id: row.id,
    installationId: row.installation_id,
    personId: row.person_id,
    state: row.state,
    service: tokenSetOf(
      plain,
      'service_access_token_encrypted',
      'service_refresh_token_encrypted',
      row.service_expires_at,
      row.service_scopes.join(' '),
    ),
    integrator: tokenSetOf(
      plain,
      'integrator_access_token_encrypted',
      'integrator_refresh_token_encrypted',
      row.integrator_expires_at,
      row.integrator_scope ?? undefined,
    ),
  };
}

/** Reads and writes vault records; every token sealed at rest. */
export interface TokenVault {
  /** The store underneath (the handshake's state, consent mark and verifier). */
  readonly store: AuthorizationStore;
  /** The record of a person's authorization, created as `uninitialized` when missing. */
  ensure(installationId: string, personId: string, q?: Queryable): Promise<VaultRecord>;
  /** The record, or undefined; `forUpdate` locks the row until the caller's transaction ends. */
  find(installationId: string, personId: string, options?: ReadOptions): Promise<VaultRecord | undefined>;
  /** The record of a row read elsewhere in the same statement as other things (the proxy's one read per call). */
  fromRow(row: AuthorizationRow): Promise<VaultRecord>;
  /** The record by its own id (`forUpdate` as above). */
  findById(id: string, options?: ReadOptions): Promise<VaultRecord | undefined>;
  /** Stores the host's grant and moves to `service_authorized` (step 3 done). */
  saveServiceTokens(id: string, tokens: TokenSet, scopes: readonly string[], q?: Queryable): Promise<void>;
  /** Replaces the host's tokens after a refresh (state unchanged). */
  replaceServiceTokens(id: string, tokens: TokenSet, q?: Queryable): Promise<void>;
  /** Stores the integrator's tokens; `state: 'ready'` after the handshake (from `integrator_pending` only), none after a refresh. */
  saveIntegratorTokens(
    id: string,
    tokens: TokenSet,
    options?: { q?: Queryable; state?: 'ready'; refreshedAt?: Date; subject?: string | null },
  ): Promise<void>;
  /** Moves the record to another state, keeping its tokens (an illegal move throws IllegalTransitionError). */
  setState(id: string, state: AuthorizationState, q?: Queryable): Promise<void>;
  /** Seals a value for a column of a row (used by the handshake for its PKCE verifier). */
  seal(id: string, column: SealedColumn, value: string): string;
  /** Opens a sealed value of a column of a row. */
  open(id: string, column: SealedColumn, sealed: string): string;
}

/** A vault over the database, sealing with `box` (the first key encrypts). */
export function createTokenVault(
  db: Queryable,
  box: SecretBox,
  store: AuthorizationStore = createAuthorizationStore(db),
): TokenVault {
  // Each row's tokens are opened once per token, not on every read (the proxy reads the row on every call).
  const opened = createOpenedSecrets(box);
  const seal = (id: string, column: SealedColumn, value: string | undefined) =>
    value === undefined ? null : opened.seal(value, aad(id, column));

  function sealTokens(id: string, tokens: TokenSet, side: AddonSide): SealedTokens {
    const access = seal(id, `${side}_access_token_encrypted`, tokens.accessToken)!;
    return {
      access,
      refresh: seal(id, `${side}_refresh_token_encrypted`, tokens.refreshToken),
      expiresAt: tokens.expiresAt ?? null,
      keyId: keyIdOf(access),
    };
  }

  /** Decrypts a row; re-seals values of a retired key with the current one, guarded against a concurrent write. */
  async function toRecord(row: AuthorizationRow, q: Queryable): Promise<VaultRecord> {
    const { plain, stale } = openSealedColumns(row, opened, box);
    if (stale.length > 0) await store.reseal(row.id, keyIdOf(stale[0]!.sealed), stale, q);
    return recordOf(row, plain);
  }

  const decrypt = async (row: AuthorizationRow | undefined, q: Queryable) => (row ? toRecord(row, q) : undefined);

  return {
    store,
    async ensure(installationId, personId, q = db) {
      return toRecord(await store.ensure(installationId, personId, q), q);
    },
    find: async (installationId, personId, options = {}) =>
      decrypt(await store.find(installationId, personId, options), options.q ?? db),
    fromRow: (row) => toRecord(row, db),
    findById: async (id, options = {}) => decrypt(await store.findById(id, options), options.q ?? db),
    saveServiceTokens: (id, tokens, scopes, q) =>
      store.saveServiceTokens(id, sealTokens(id, tokens, 'service'), scopes, q),
    replaceServiceTokens: (id, tokens, q) => store.replaceServiceTokens(id, sealTokens(id, tokens, 'service'), q),
    saveIntegratorTokens: (id, tokens, options = {}) =>
      store.saveIntegratorTokens(
        id,
        { ...sealTokens(id, tokens, 'integrator'), scope: tokens.scope ?? null },
        {
          ...(options.q ? { q: options.q } : {}),
          ready: options.state === 'ready',
          ...(options.refreshedAt ? { refreshedAt: options.refreshedAt } : {}),
          ...(options.subject !== undefined ? { subject: options.subject } : {}),
        },
      ),
    setState: (id, state, q) => store.transition(id, state, q),
    seal: (id, column, value) => box.seal(value, aad(id, column)),
    open: (id, column, sealed) => box.open(sealed, aad(id, column)),
  };
}
