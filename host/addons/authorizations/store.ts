/**
 * The only module that issues SQL on `addon_authorizations` (migrations 040, 045): one row per person and
 * installation, holding the state (see states.ts), both token sets sealed, and the running handshake's
 * state digest, deadline, consent mark and sealed PKCE verifier. Values arrive here already sealed; the
 * token vault (token-vault.ts) seals and opens them.
 *
 * The statements come in three groups, one file each:
 *
 * row.ts                    the row's columns, one row read by a WHERE clause, a refused move explained
 * row-statements.ts         the row: created, read, its state moved, marked excluded, deleted, re-sealed
 * token-statements.ts       the sealed token sets of either side written
 * handshake-statements.ts   the running handshake: a leg begun, read, consented, cleared
 */
import type { Queryable } from '../../db/database.ts';
import { handshakeStatements, type HandshakeStatements } from './handshake-statements.ts';
import { rowStatements, type RowStatements } from './row-statements.ts';
import { tokenStatements, type TokenStatements } from './token-statements.ts';

export {
  SEALED_COLUMNS,
  authorizationJsonSql,
  authorizationRowOf,
  type AuthorizationRow,
  type AuthorizationRowJson,
  type HandshakeRow,
  type ReadOptions,
  type SealedColumn,
  type SealedTokens,
} from './row.ts';

/** Every read, write and state transition of `addon_authorizations`. */
export interface AuthorizationStore extends RowStatements, TokenStatements, HandshakeStatements {}

/** The store over a database (or a transaction, per call through `q`). */
export function createAuthorizationStore(db: Queryable): AuthorizationStore {
  return { ...rowStatements(db), ...tokenStatements(db), ...handshakeStatements(db) };
}
