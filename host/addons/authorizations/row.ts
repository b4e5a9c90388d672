/**
 * A row of `addon_authorizations` as the store reads it: its columns, the sealed ones, and the two helpers every
 * statement group of the store shares (one row read by a WHERE clause; a refused state move explained).
 */
import type { Queryable } from '../../db/database.ts';
import { IllegalTransitionError, type AuthorizationState } from './states.ts';

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

/** The columns of an {@link AuthorizationRow}, as a SELECT list. */
export const COLUMNS = `id::text, installation_id::text, person_id::text, state, service_expires_at, service_scopes,
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

/** The row matching `where` (with `params`), locked when `options.forUpdate`. */
export async function selectRow(
  db: Queryable,
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
export async function refuseMove(id: string, to: AuthorizationState, q: Queryable): Promise<never> {
  const row = await selectRow(q, 'id = $1', [id]);
  if (!row) throw new Error(`No add-on authorization ${id}`);
  throw new IllegalTransitionError(row.state, to);
}
